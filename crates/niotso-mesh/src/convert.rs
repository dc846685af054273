//! meshfmt-core conversion.
//!
//! - Coordinates stay native: [`NATIVE`] is +Y up, **left-handed** (the game's Direct3D
//!   view), with 1 unit = 1/3 m. [`mirror_x`] gives the right-handed X-mirrored frame
//!   FreeSO and the Blender tools use (x negated, quaternions `(x, -y, -z, -w)`, faces
//!   flipped); meshfmt-core's own `convert_to` reaches any other frame.
//! - A mesh becomes one surface whose vertices are the real vertices posed at the
//!   skeleton's rest pose (model space); each is bound to its binding's bone, and a
//!   real vertex tugged by blend vertices becomes a two-bone (or more) vertex: the tug
//!   `P = w Q + (1 - w) P` is linear blend skinning with weights `1 - w` and `w`,
//!   exactly so when the blend vertex and the real vertex coincide at the rest pose,
//!   which real files do (residuals below 2e-7, checked in tests/skinning.rs).
//! - UVs stay top-down as stored unless [`CoreOptions::flip_v`].
//! - Rotations: the file's quaternion applies as its conjugate; meshfmt-core holds the
//!   rotation itself.

use std::mem::size_of;

use meshfmt_core::glam::{Mat3, Mat4, Quat, Vec2, Vec3};
use meshfmt_core::quantize::renormalization_error;
use meshfmt_core::{
    Bone, Budget, Channel, Clip, ClipEvent, Converted, CoordinateSystem, Feature, Handedness, Loss,
    LossKind, Model, Skeleton, Surface, Transform, UpAxis, VertexInfluences,
};
use parsing_primitives::RawString;

use crate::anim::{Anim, Motion};
use crate::error::{Result, invalid};
use crate::index::{charge, map_bytes};
use crate::mesh::{Binding, Blend, Mesh};
use crate::options::{CoreOptions, WriteOptions};
use crate::skel::{Skel, SkelBone};
use crate::skinning::{
    binding_bones_with, bone_worlds_with, rotation_to_stored, stored_rotation, vertex_bones,
};

/// The files' own frame: +Y up, left-handed, 1 unit = 1/3 m.
pub const NATIVE: CoordinateSystem = CoordinateSystem {
    up: UpAxis::Y,
    handedness: Handedness::Left,
    meters_per_unit: 1.0 / 3.0,
};

/// Heap bytes of a meshfmt-core skeleton of `bones` bones whose names total
/// `name_bytes`.
fn skeleton_bytes(bones: usize, name_bytes: u64) -> u64 {
    (bones as u64)
        .saturating_mul(size_of::<Bone>() as u64)
        .saturating_add(name_bytes)
}

/// Converts a model in [`NATIVE`] coordinates to the right-handed frame the reference
/// tools use by mirroring X: positions, normals, tangents and translations `x -> -x`,
/// rotations `(x, y, z, w) -> (x, -y, -z, w)` conjugated accordingly, faces flipped.
/// The result's coordinate system is +Y up, right-handed, same units.
pub fn mirror_x(model: &mut Model) {
    let target = CoordinateSystem {
        handedness: Handedness::Right,
        ..NATIVE
    };
    let m = Mat3::from_diagonal(Vec3::new(-1.0, 1.0, 1.0));
    let conv = meshfmt_core::Conversion {
        basis: m,
        scale: 1.0,
    };
    for s in &mut model.surfaces {
        s.positions.iter_mut().for_each(|p| *p = conv.point(*p));
        s.normals.iter_mut().for_each(|n| *n = conv.direction(*n));
        s.tangents.iter_mut().for_each(|t| *t = conv.tangent(*t));
        for mt in &mut s.morph_targets {
            mt.positions.iter_mut().for_each(|p| *p = conv.point(*p));
            mt.normals.iter_mut().for_each(|n| *n = conv.direction(*n));
        }
        for tri in s.indices.chunks_exact_mut(3) {
            tri.swap(1, 2);
        }
    }
    for b in &mut model.skeleton.bones {
        b.rest.translation = conv.point(b.rest.translation);
        b.rest.rotation = conv.rotation(b.rest.rotation);
        if let Some(ib) = &mut b.inverse_bind {
            *ib = conv.matrix(*ib);
        }
    }
    for c in &mut model.animations {
        for ch in &mut c.channels {
            ch.translation
                .values
                .iter_mut()
                .for_each(|t| *t = conv.point(*t));
            ch.rotation
                .values
                .iter_mut()
                .for_each(|q| *q = conv.rotation(*q));
        }
    }
    model.coordinate_system = target;
}

/// Charges what [`Skel::parent_indices`] allocates.
fn parent_indices_in(skel: &Skel, budget: &Budget) -> Result<Vec<Option<usize>>> {
    let n = skel.bones.len();
    budget.charge(
        "bone parents",
        map_bytes(n, 24).saturating_add((n as u64).saturating_mul(16)),
    )?;
    Ok(skel.parent_indices())
}

/// The skeleton in meshfmt-core, charged to `budget`; also gives the parents found.
fn skeleton_to_core(skel: &Skel, budget: &Budget) -> Result<(Skeleton, Vec<Option<usize>>)> {
    let parents = parent_indices_in(skel, budget)?;
    // Lossy names may grow (3 bytes per invalid byte).
    let names: u64 = skel.bones.iter().map(|b| b.name.len() as u64 * 3).sum();
    budget.charge("skeleton", skeleton_bytes(skel.bones.len(), names))?;
    let skeleton = Skeleton {
        bones: skel
            .bones
            .iter()
            .zip(&parents)
            .map(|(b, &parent)| Bone {
                name: b.name.to_string_lossy(),
                parent,
                rest: Transform {
                    translation: Vec3::from_array(b.translation),
                    rotation: stored_rotation(b.rotation),
                    scale: Vec3::ONE,
                },
                inverse_bind: None,
            })
            .collect(),
    };
    Ok((skeleton, parents))
}

/// A copy of `model`'s skeleton (and first clip, when `clip`) converted to [`NATIVE`],
/// charged to `budget`: what a conversion from meshfmt-core needs, without copying the
/// surfaces, textures or other clips.
fn native_parts(model: &Model, clip: bool, budget: &Budget) -> Result<Model> {
    let mut bytes = model.skeleton.heap_bytes();
    let first = model.animations.first().filter(|_| clip);
    if let Some(c) = first {
        bytes = bytes.saturating_add(c.heap_bytes());
    }
    budget.charge("native copy", bytes)?;
    let mut m = Model {
        coordinate_system: model.coordinate_system,
        skeleton: model.skeleton.clone(),
        animations: first.cloned().into_iter().collect(),
        ..Model::default()
    };
    m.convert_to(NATIVE);
    Ok(m)
}

impl Skel {
    /// A `.skel` from a model's skeleton (converted to [`NATIVE`]): parents by name
    /// (`NULL` for roots, which must come before their children here too), rest
    /// rotations stored as conjugates, the fields FreeSO writes (unknown 1, empty
    /// property list, all three flags 1, no wiggle).
    /// Named [`DEFAULT_SKELETON_NAME`](crate::DEFAULT_SKELETON_NAME).
    pub fn from_core(model: &Model) -> Result<Converted<Skel>> {
        Skel::from_core_with(model, &WriteOptions::default())
    }

    /// [`Skel::from_core`] named `options.skeleton_name`, under their budget.
    pub fn from_core_with(model: &Model, options: &WriteOptions) -> Result<Converted<Skel>> {
        let budget = &options.budget;
        let name = options.skeleton_name.as_str();
        let m = native_parts(model, false, budget)?;
        let mut out = Converted::exact(());
        let bones = &m.skeleton.bones;
        let names: u64 = bones.iter().map(|b| b.name.len() as u64 * 2).sum();
        budget.charge_items_with::<SkelBone>("skeleton", bones.len(), names)?;
        let mut skel_bones = Vec::with_capacity(bones.len());
        for (i, b) in bones.iter().enumerate() {
            let parent = match b.parent {
                Some(p) if p < i => RawString::from(bones[p].name.as_str()),
                Some(p) => {
                    return Err(invalid(format!(
                        "bone {i} '{}' comes before its parent {p}; .skel needs parents first",
                        b.name
                    )));
                }
                None => RawString::from("NULL"),
            };
            if b.rest.scale != Vec3::ONE {
                out.lose(
                    Feature::Skeleton,
                    LossKind::Dropped,
                    format!("skeleton.bones[{i}]"),
                    "Vitaboy bones have no scale",
                );
            }
            skel_bones.push(SkelBone {
                unknown: 1,
                name: RawString::from(b.name.as_str()),
                parent,
                has_props: 1,
                props: Vec::new(),
                translation: b.rest.translation.to_array(),
                rotation: rotation_to_stored(b.rest.rotation),
                can_translate: 1,
                can_rotate: 1,
                can_blend: 1,
                wiggle_value: 0.0,
                wiggle_power: 0.0,
            });
        }
        Ok(out.map(|()| Skel {
            version: 1,
            name: RawString::from(name),
            bones: skel_bones,
        }))
    }

    /// The skeleton in meshfmt-core (rest rotations are the conjugates of the stored
    /// quaternions).
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_with(&CoreOptions::default())
    }

    /// [`Skel::to_core`] under `options`' budget (the other options do not apply).
    pub fn to_core_with(&self, options: &CoreOptions<'_>) -> Result<Converted<Model>> {
        let (skeleton, _) = skeleton_to_core(self, &options.budget)?;
        Ok(Converted::exact(Model {
            coordinate_system: NATIVE,
            skeleton,
            ..Model::default()
        }))
    }
}

/// Most tugs on one real vertex resolved step by step in file order, as the reference
/// readers do; a vertex tugged more often (never in real files) gets the same weights
/// from a closed form, in time linear in its tugs.
const EXACT_TUGS: usize = 32;

/// `n` as an `i32` field of a `.mesh`.
fn to_i32(n: usize, what: &str) -> Result<i32> {
    i32::try_from(n).map_err(|_| invalid(format!("{what} {n} does not fit a .mesh (2^31 - 1)")))
}

/// A bone index as a meshfmt-core joint.
fn joint(bone: usize) -> Result<u32> {
    u32::try_from(bone).map_err(|_| invalid(format!("bone {bone} does not fit a joint index")))
}

impl Mesh {
    /// The mesh as one surface posed at `skel`'s rest pose (see the module docs). With
    /// no skeleton, bones stay at the origin: single-bone meshes are then exact, others
    /// keep their parts in bone-local space (reported as a loss). A vertex several
    /// bindings cover (never in real files) follows the last of them.
    ///
    /// Runs under `options`' budget: the surface, its skins and the skeleton are
    /// charged before they are built.
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_with(&CoreOptions::default())
    }

    /// [`Mesh::to_core`] posed at `options.skeleton`'s rest pose, with `options`' UV
    /// flip, under their budget.
    pub fn to_core_with(&self, options: &CoreOptions<'_>) -> Result<Converted<Model>> {
        let budget = options.budget.clone();
        let skel = options.skeleton;
        self.check()?;
        let mut out = Converted::exact(());
        let owned;
        let skel = match skel {
            Some(s) => s,
            None => {
                owned = flat_skeleton(self, &budget)?;
                if owned.bones.len() > 1 {
                    out.lose(
                        Feature::Skeleton,
                        LossKind::Reduced,
                        "",
                        "no .skel given: bones at the origin, vertices left in bone-local space",
                    );
                }
                &owned
            }
        };
        // At most MAX_BINDING_DIAGNOSTICS + 2 lines, whatever the file holds.
        for d in self.diagnostics() {
            out.lose(Feature::Skin, LossKind::Reduced, "", d);
        }
        let (skeleton, parents) = skeleton_to_core(skel, &budget)?;
        charge::<Mat4>(&budget, "bone matrices", skel.bones.len())?;
        let worlds = bone_worlds_with(skel, &parents, None);
        budget.charge("bone names", skel.name_index_bytes())?;
        charge::<usize>(&budget, "binding bones", self.bindings.len())?;
        let bones = binding_bones_with(self, skel, &skel.name_index())?;
        let (n, nn) = (self.real_vertices.len(), self.blend_vertices.len());
        let per_vertex = size_of::<Vec3>() * 2
            + size_of::<Vec2>()
            + size_of::<VertexInfluences>()
            + size_of::<Option<usize>>()
            + size_of::<usize>();
        budget.charge(
            "mesh surface",
            (n as u64)
                .saturating_mul(per_vertex as u64)
                .saturating_add((nn as u64).saturating_mul(2 * size_of::<usize>() as u64))
                .saturating_add((self.faces.len() as u64).saturating_mul(12)),
        )?;
        // Each vertex's bone in one pass, whatever the bindings' overlaps.
        let (real_bones, blend_bones) = vertex_bones(self, &bones);
        let mut positions = Vec::with_capacity(n);
        let mut normals = Vec::with_capacity(n);
        let mut skin = Vec::with_capacity(n);
        for (v, &bone) in self.real_vertices.iter().zip(&real_bones) {
            let (p, nrm) = (Vec3::new(v[0], v[1], v[2]), Vec3::new(v[3], v[4], v[5]));
            match bone {
                Some(bone) => {
                    let w = worlds.get(bone).copied().unwrap_or(Mat4::IDENTITY);
                    positions.push(w.transform_point3(p));
                    normals.push((Mat3::from_mat4(w) * nrm).normalize_or_zero());
                    skin.push(VertexInfluences::single(joint(bone)?));
                }
                None => {
                    positions.push(p);
                    normals.push(nrm);
                    skin.push(VertexInfluences::default());
                }
            }
        }
        drop(real_bones);
        // A blend vertex no binding covers counts as bone 0's.
        let blend_joints = blend_bones
            .iter()
            .map(|b| joint(b.unwrap_or(0)))
            .collect::<Result<Vec<u32>>>()?;
        apply_tugs(&mut skin, &self.blends, &blend_joints, &budget)?;
        let uv0 = self
            .uvs
            .iter()
            .map(|uv| Vec2::new(uv[0], if options.flip_v { 1.0 - uv[1] } else { uv[1] }))
            .collect();
        let surface = Surface {
            name: "mesh".into(),
            positions,
            normals,
            uv0,
            indices: self.faces.iter().flatten().copied().collect(),
            skin,
            ..Surface::default()
        };
        let model = Model {
            coordinate_system: NATIVE,
            surfaces: vec![surface],
            skeleton,
            ..Model::default()
        };
        Ok(out.map(|()| model))
    }

    /// A mesh from a meshfmt-core model (converted to [`NATIVE`], surfaces merged):
    /// each vertex's strongest bone makes it a real vertex of that bone's binding, a
    /// second bone adds a blend vertex tugging it with the second weight (Q1.15,
    /// truncated like FreeSO). Vertices are stored in their bone's rest frame; normals
    /// unit length; the third count is R + N; empty blend ranges start at -1.
    ///
    /// Runs under `options`' budget: the merged surface and the records are charged
    /// before they are built (the counts are checked first, and nothing but the
    /// skeleton is copied to change frames).
    pub fn from_core(model: &Model) -> Result<Converted<Mesh>> {
        Mesh::from_core_with(model, &WriteOptions::default())
    }

    /// [`Mesh::from_core`] with `options`' UV flip, under their budget.
    pub fn from_core_with(model: &Model, options: &WriteOptions) -> Result<Converted<Mesh>> {
        let budget = options.budget.clone();
        let mut out = Converted::exact(());
        report_mesh_drops(model, &mut out);
        let s = merge_native(model, &budget)?;
        let n = s.positions.len();
        // Normals are stored in bone space and made unit length again when read.
        let (worst, moved) = renormalization_error(&s.normals, Vec3::ZERO);
        if moved > 0 {
            out.lose(
                Feature::Normals,
                LossKind::Quantized { max_error: worst },
                "",
                format!("{moved} normals are not unit length: they come back renormalized"),
            );
        }
        let (skeleton, inverse) = mesh_skeleton(model, &budget)?;
        let nb = skeleton.len();
        charge_mesh_records(n, &skeleton, &budget)?;
        let assign = assign_bones(model, &s, nb, &mut out);
        // Real vertices grouped by bone (stable), then blend vertices grouped by bone.
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&v| assign[v].0);
        let mut new_index = vec![0u32; n];
        for (k, &v) in order.iter().enumerate() {
            // k < n, which fits an i32.
            new_index[v] = u32::try_from(k).unwrap_or(u32::MAX);
        }
        let mut blends: Vec<(usize, usize, f32)> = assign
            .iter()
            .enumerate()
            .filter_map(|(v, a)| a.1.map(|(c, w)| (c, v, w)))
            .collect();
        blends.sort_by_key(|b| b.0);
        let local = |bone: usize, p: Vec3, nrm: Vec3| -> [f32; 6] {
            let ib = inverse.get(bone).copied().unwrap_or(Mat4::IDENTITY);
            let lp = ib.transform_point3(p);
            let ln = (Mat3::from_mat4(ib) * nrm).normalize_or_zero();
            [lp.x, lp.y, lp.z, ln.x, ln.y, ln.z]
        };
        let real_vertices: Vec<[f32; 6]> = order
            .iter()
            .map(|&v| local(assign[v].0, s.positions[v], s.normals[v]))
            .collect();
        let uvs: Vec<[f32; 2]> = order
            .iter()
            .map(|&v| {
                let uv = s.uv0[v];
                [uv.x, if options.flip_v { 1.0 - uv.y } else { uv.y }]
            })
            .collect();
        let blend_vertices: Vec<[f32; 6]> = blends
            .iter()
            .map(|&(c, v, _)| local(c, s.positions[v], s.normals[v]))
            .collect();
        let blend_records: Vec<Blend> = blends
            .iter()
            .map(|&(_, v, w)| Blend {
                weight: (w.clamp(0.0, 1.0) * 32768.0) as i32,
                // new_index < n, which fits an i32.
                other_vertex: i32::try_from(new_index[v]).unwrap_or(i32::MAX),
            })
            .collect();
        let (bone_names, bindings) = bindings(&assign, &blends, &skeleton)?;
        let faces = s
            .indices
            .chunks_exact(3)
            .map(|t| {
                [
                    new_index[t[0] as usize],
                    new_index[t[1] as usize],
                    new_index[t[2] as usize],
                ]
            })
            .collect();
        let third_count = n
            .checked_add(blends.len())
            .and_then(|t| u32::try_from(t).ok())
            .ok_or_else(|| invalid("too many vertices"))?;
        let mesh = Mesh {
            version: 2,
            bone_names,
            faces,
            bindings,
            uvs,
            blends: blend_records,
            third_count,
            real_vertices,
            blend_vertices,
        };
        Ok(out.map(|()| mesh))
    }
}

/// What a Vitaboy mesh cannot hold, for each part the model has, and the merge of
/// several surfaces into one.
fn report_mesh_drops(model: &Model, out: &mut Converted<()>) {
    let any = |f: fn(&Surface) -> bool| model.any_surface(f);
    out.drop_present([
        (
            any(|s| !s.tangents.is_empty()),
            Feature::Tangents,
            "Vitaboy meshes store no tangents",
        ),
        (
            any(|s| !s.uv1.is_empty()),
            Feature::Uv1,
            "Vitaboy meshes have one UV set",
        ),
        (
            any(|s| !s.colors.is_empty()),
            Feature::Colors,
            "Vitaboy meshes store no colors",
        ),
        (
            any(|s| !s.morph_targets.is_empty()),
            Feature::MorphTargets,
            "Vitaboy meshes have no morph targets",
        ),
        (
            !model.materials.is_empty() || any(|s| s.material.is_some()),
            Feature::Materials,
            "Vitaboy materials live in .bnd/.apr files",
        ),
        (
            !model.textures.is_empty(),
            Feature::Textures,
            "Vitaboy textures live in separate files",
        ),
        (
            !model.animations.is_empty(),
            Feature::Animation,
            "animations belong in .anim files",
        ),
        (
            !model.name.is_empty() || any(|s| !s.name.is_empty()),
            Feature::Names,
            "Vitaboy meshes store no mesh or surface names",
        ),
    ]);
    if model.surfaces.len() > 1 {
        out.lose(
            Feature::Names,
            LossKind::Reduced,
            "",
            format!("{} surfaces merged into one mesh", model.surfaces.len()),
        );
    }
}

/// The model's surfaces merged into one in [`NATIVE`] (as `Model::convert_to` would
/// convert them), every attribute filled to the vertex count; the counts are checked
/// and the merge charged before it runs.
fn merge_native(model: &Model, budget: &Budget) -> Result<Surface> {
    // Counts first: binding ranges are i32, and the merge is charged before it runs.
    let (n, ni) = model
        .surfaces
        .iter()
        .try_fold((0usize, 0usize), |(n, ni), s| {
            Some((
                n.checked_add(s.positions.len())?,
                ni.checked_add(s.indices.len())?,
            ))
        })
        .ok_or_else(|| invalid("the surfaces' sizes overflow"))?;
    to_i32(n, "vertex count")?;
    let merged_vertex = size_of::<Vec3>() * 2 + size_of::<Vec2>() + size_of::<VertexInfluences>();
    budget.charge(
        "merged surface",
        (n as u64)
            .saturating_mul(merged_vertex as u64)
            .saturating_add((ni as u64).saturating_mul(4)),
    )?;
    // Merge surfaces, converting each to NATIVE as Model::convert_to would.
    let c = model.coordinate_system.conversion_to(&NATIVE);
    let mut s = Surface {
        positions: Vec::with_capacity(n),
        normals: Vec::with_capacity(n),
        uv0: Vec::with_capacity(n),
        skin: Vec::with_capacity(n),
        indices: Vec::with_capacity(ni),
        ..Surface::default()
    };
    for src in &model.surfaces {
        // Below n, which fits an i32.
        let base = u32::try_from(s.positions.len()).unwrap_or(u32::MAX);
        let k = src.positions.len();
        s.positions
            .extend(src.positions.iter().map(|&p| c.point(p)));
        s.normals
            .extend((0..k).map(|i| src.normals.get(i).map_or(Vec3::ZERO, |&d| c.direction(d))));
        s.uv0
            .extend((0..k).map(|i| src.uv0.get(i).copied().unwrap_or(Vec2::ZERO)));
        s.skin
            .extend((0..k).map(|i| src.skin.get(i).copied().unwrap_or_default()));
        c.append_indices(&mut s.indices, &src.indices, base);
    }
    if s.indices.len() % 3 != 0 || s.indices.iter().any(|&i| i as usize >= n) {
        return Err(invalid(
            "indices must be whole triangles within the vertices",
        ));
    }
    Ok(s)
}

/// The bones (the model's skeleton in [`NATIVE`], or one ROOT bone for a static model)
/// and the inverse matrices of their rest poses.
fn mesh_skeleton(model: &Model, budget: &Budget) -> Result<(Skeleton, Vec<Mat4>)> {
    // Bones: the model's skeleton, or one ROOT bone for static models.
    let parts = native_parts(model, false, budget)?;
    let skeleton = if parts.skeleton.is_empty() {
        Skeleton {
            bones: vec![Bone {
                name: "ROOT".into(),
                ..Bone::default()
            }],
        }
    } else {
        parts.skeleton
    };
    let nb = skeleton.len();
    // Inverse binds, and the rest world matrices they come from.
    charge::<[Mat4; 3]>(budget, "bone matrices", nb)?;
    // Vertices are stored in the space of each bone as the .skel will hold it, which
    // is how readers put them back: its rest pose, without scale (a .skel has none)
    // and without a separate inverse bind.
    let inverse = Skeleton {
        bones: skeleton
            .bones
            .iter()
            .map(|b| Bone {
                rest: Transform {
                    scale: Vec3::ONE,
                    ..b.rest
                },
                inverse_bind: None,
                ..b.clone()
            })
            .collect(),
    }
    .inverse_bind_matrices();
    Ok((skeleton, inverse))
}

/// Charges the per-vertex and per-bone records [`Mesh::from_core`] builds.
fn charge_mesh_records(n: usize, skeleton: &Skeleton, budget: &Budget) -> Result<()> {
    let nb = skeleton.len();
    // Per vertex: its assignment, place in the order (and the sort's scratch), new
    // index, real or blend record, UV and blend; per bone: counts and a binding.
    let records = size_of::<(usize, Option<(usize, f32)>)>()
        + size_of::<usize>() * 2
        + size_of::<u32>()
        + size_of::<(usize, usize, f32)>()
        + size_of::<[f32; 6]>() * 2
        + size_of::<[f32; 2]>()
        + size_of::<Blend>();
    let names: u64 = skeleton.bones.iter().map(|b| b.name.len() as u64).sum();
    budget.charge(
        "mesh records",
        (n as u64)
            .saturating_mul(records as u64)
            .saturating_add((nb as u64).saturating_mul(
                (size_of::<usize>() * 2 + size_of::<Binding>() + size_of::<RawString>()) as u64,
            ))
            .saturating_add(names),
    )?;
    Ok(())
}

/// Each vertex's primary bone and optional second bone with its share of the weight,
/// with what that loses reported.
fn assign_bones(
    model: &Model,
    s: &Surface,
    nb: usize,
    out: &mut Converted<()>,
) -> Vec<(usize, Option<(usize, f32)>)> {
    // Each vertex: primary bone, optional second bone with weight.
    let mut reduced = false;
    // Every Vitaboy vertex belongs to a bone: one without influences goes to bone 0.
    let unbound = if model.skeleton.is_empty() {
        0
    } else {
        s.skin.iter().filter(|v| v.count() == 0).count()
    };
    if unbound > 0 {
        out.lose(
            Feature::Skin,
            LossKind::Reduced,
            "",
            format!("{unbound} vertices without influences bound to bone 0 (every Vitaboy vertex has a bone)"),
        );
    }
    let mut assign: Vec<(usize, Option<(usize, f32)>)> = Vec::with_capacity(s.skin.len());
    for skin in &s.skin {
        let inf = VertexInfluences::from_pairs_strongest(skin.pairs());
        let mut p = inf.pairs().filter(|&(j, _)| (j as usize) < nb);
        let (first, second) = (p.next(), p.next());
        if p.next().is_some() {
            reduced = true;
        }
        assign.push(match (first, second) {
            (None, _) => (0, None),
            (Some(a), None) => (a.0 as usize, None),
            (Some(a), Some(b)) => (a.0 as usize, Some((b.0 as usize, b.1 / (a.1 + b.1)))),
        });
    }
    if reduced {
        out.lose(
            Feature::Skin,
            LossKind::Reduced,
            "",
            "more than 2 bones on a vertex: the 2 strongest kept",
        );
    }
    if s.skin.iter().any(|v| v.count() > 1) {
        out.lose(
            Feature::Skin,
            LossKind::Quantized {
                max_error: 1.0 / 32768.0,
            },
            "",
            "blend weights stored as Q1.15, truncated",
        );
    }
    assign
}

/// One binding per bone with real or blend vertices, in bone order, and the names of
/// those bones. Both lists are sorted by bone, so each bone's range starts where the
/// previous one ended.
fn bindings(
    assign: &[(usize, Option<(usize, f32)>)],
    blends: &[(usize, usize, f32)],
    skeleton: &Skeleton,
) -> Result<(Vec<RawString>, Vec<Binding>)> {
    let nb = skeleton.len();
    // Bindings: one per bone with real or blend vertices, in bone order. Both lists
    // are sorted by bone, so each bone's range starts where the previous one ended.
    let (mut reals_of, mut blends_of) = (vec![0usize; nb], vec![0usize; nb]);
    for a in assign {
        reals_of[a.0] += 1; // a.0 < nb: filtered above, or 0 with nb >= 1
    }
    for b in blends {
        blends_of[b.0] += 1;
    }
    let mut bone_names = Vec::new();
    let mut bindings = Vec::new();
    let (mut next_real, mut next_blend) = (0usize, 0usize);
    for (bone, (&reals, &blended)) in reals_of.iter().zip(&blends_of).enumerate() {
        if reals == 0 && blended == 0 {
            continue;
        }
        bindings.push(Binding {
            bone_index: to_i32(bone_names.len(), "bone count")?,
            first_real: if reals == 0 {
                0
            } else {
                to_i32(next_real, "vertex")?
            },
            real_count: to_i32(reals, "vertex count")?,
            first_blend: if blended == 0 {
                -1
            } else {
                to_i32(next_blend, "blend vertex")?
            },
            blend_count: to_i32(blended, "blend vertex count")?,
        });
        bone_names.push(RawString::from(skeleton.bones[bone].name.as_str()));
        next_real += reals;
        next_blend += blended;
    }
    Ok((bone_names, bindings))
}

/// Blend vertices tug the real vertices they name, in file order: what a vertex has is
/// scaled by `1 - w` and `w` is added for the blend's bone (`joints[j]`). That is
/// linear blend skinning with the weights the reference readers' lerps give.
fn apply_tugs(
    skin: &mut [VertexInfluences],
    blends: &[Blend],
    joints: &[u32],
    budget: &Budget,
) -> Result<()> {
    if blends.is_empty() {
        return Ok(());
    }
    let n = skin.len();
    // Group index, cursor, grouped blends and the scratch lists.
    budget.charge(
        "blend tugs",
        ((n as u64).saturating_add(1))
            .saturating_mul(2 * size_of::<usize>() as u64)
            .saturating_add(
                (blends.len() as u64)
                    .saturating_mul((size_of::<usize>() + 2 * size_of::<(u32, f32)>()) as u64),
            ),
    )?;
    let target = |b: &Blend| usize::try_from(b.other_vertex).ok().filter(|&o| o < n);
    // Blends grouped by the vertex they tug, file order kept (a counting sort).
    let mut start = vec![0usize; n + 1];
    for o in blends.iter().filter_map(target) {
        start[o + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut cursor = start.clone();
    let mut grouped = vec![0usize; start[n]];
    for (j, o) in blends
        .iter()
        .enumerate()
        .filter_map(|(j, b)| Some((j, target(b)?)))
    {
        grouped[cursor[o]] = j;
        cursor[o] += 1;
    }
    drop(cursor);
    let mut pairs: Vec<(u32, f32)> = Vec::new();
    let mut parts: Vec<(u32, f32)> = Vec::new();
    for (o, inf) in skin.iter_mut().enumerate() {
        let tugs = &grouped[start[o]..start[o + 1]];
        if tugs.is_empty() {
            continue;
        }
        pairs.clear();
        pairs.extend(inf.pairs());
        let joint = |j: usize| joints.get(j).copied().unwrap_or(0);
        if tugs.len() <= EXACT_TUGS {
            for &j in tugs {
                let (w, bone) = (blends[j].weight_f32(), joint(j));
                pairs.iter_mut().for_each(|x| x.1 *= 1.0 - w);
                match pairs.iter_mut().find(|x| x.0 == bone) {
                    Some(x) => x.1 += w,
                    None => pairs.push((bone, w)),
                }
            }
        } else {
            // Each weight ends scaled by 1 - w of every later tug: walk them backwards.
            parts.clear();
            let mut later = 1.0f32;
            for &j in tugs.iter().rev() {
                let w = blends[j].weight_f32();
                parts.push((joint(j), w * later));
                later *= 1.0 - w;
            }
            parts.extend(pairs.iter().map(|&(bone, v)| (bone, v * later)));
            parts.sort_by_key(|x| x.0);
            pairs.clear();
            for &(bone, v) in &parts {
                match pairs.last_mut() {
                    Some(last) if last.0 == bone => last.1 += v,
                    _ => pairs.push((bone, v)),
                }
            }
        }
        *inf = VertexInfluences::from_pairs_strongest(pairs.iter().copied());
    }
    Ok(())
}

/// A skeleton with the mesh's bone names, all at the origin, no hierarchy.
fn flat_skeleton(mesh: &Mesh, budget: &Budget) -> Result<Skel> {
    let names: u64 = mesh.bone_names.iter().map(|n| n.len() as u64).sum();
    budget.charge(
        "skeleton",
        (mesh.bone_names.len() as u64)
            .saturating_mul(size_of::<SkelBone>() as u64)
            .saturating_add(names),
    )?;
    Ok(Skel {
        version: 1,
        name: RawString::from("flat"),
        bones: mesh
            .bone_names
            .iter()
            .map(|n| SkelBone {
                unknown: 1,
                name: n.clone(),
                parent: RawString::from("NULL"),
                has_props: 0,
                props: Vec::new(),
                translation: [0.0; 3],
                rotation: [0.0, 0.0, 0.0, 1.0],
                can_translate: 0,
                can_rotate: 1,
                can_blend: 0,
                wiggle_value: 0.0,
                wiggle_power: 0.0,
            })
            .collect(),
    })
}

/// Where a motion's keys for one pool start and how many there are: as many of its
/// frames as the pool holds from `first` (the reader checked they all fit; a value
/// built in code may not), none when the flag is 0.
fn pool_keys(has: u8, first: i32, frames: u32, pool: usize) -> (usize, usize) {
    let frames = usize::try_from(frames).unwrap_or(usize::MAX);
    match usize::try_from(first) {
        Ok(s) if has != 0 && s < pool => (s, frames.min(pool - s)),
        _ => (0, 0),
    }
}

impl Anim {
    /// One clip whose channels name the bones of a flat skeleton of the motions' bone
    /// names; frame `f` is at `f / `[`FPS`](crate::FPS). [`Anim::to_core_with`] names a
    /// `.skel`'s bones (motions for bones it lacks are reported) and takes another rate.
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_with(&CoreOptions::default())
    }

    /// [`Anim::to_core`] naming `options.skeleton`'s bones, at `options.fps`, under
    /// `options`' budget. Motions may share frames of the pools, so a small file can ask
    /// for many keys: all of them are charged (as "animation keys") before any is built.
    pub fn to_core_with(&self, options: &CoreOptions<'_>) -> Result<Converted<Model>> {
        let budget = options.budget.clone();
        let skel = options.skeleton;
        let fps = options.fps;
        let mut out = Converted::exact(());
        let skeleton = match skel {
            Some(s) => skeleton_to_core(s, &budget)?.0,
            None => {
                let names: u64 = self
                    .motions
                    .iter()
                    .map(|m| m.bone_name.len() as u64 * 3)
                    .sum();
                budget.charge("skeleton", skeleton_bytes(self.motions.len(), names))?;
                Skeleton {
                    bones: self
                        .motions
                        .iter()
                        .map(|m| Bone {
                            name: m.bone_name.to_string_lossy(),
                            ..Bone::default()
                        })
                        .collect(),
                }
            }
        };
        if let Some(s) = skel {
            budget.charge("bone names", s.name_index_bytes())?;
        }
        let names = skel.map(Skel::name_index);
        let bone_of = |k: usize, m: &Motion| match &names {
            Some(names) => names.find(m.bone_name.as_bytes()),
            None => Some(k),
        };
        // Where each motion's keys lie in the pools: only frames a pool holds become
        // keys, so the work below is the keys built.
        let keys = |m: &Motion| {
            (
                pool_keys(
                    m.has_translation,
                    m.first_translation,
                    m.frame_count,
                    self.translations.len(),
                ),
                pool_keys(
                    m.has_rotation,
                    m.first_rotation,
                    m.frame_count,
                    self.rotations.len(),
                ),
            )
        };
        // Motions may share frames, so the keys can be far more than the file holds:
        // all of them are charged before any is built.
        let key_bytes = self
            .motions
            .iter()
            .enumerate()
            .filter(|&(k, m)| bone_of(k, m).is_some())
            .fold(0u64, |sum, (_, m)| {
                let ((_, nt), (_, nr)) = keys(m);
                sum.saturating_add(
                    (nt as u64)
                        .saturating_mul((4 + size_of::<Vec3>()) as u64)
                        .saturating_add((nr as u64).saturating_mul((4 + size_of::<Quat>()) as u64)),
                )
            });
        charge::<Channel>(&budget, "animation channels", self.motions.len())?;
        budget.charge("animation keys", key_bytes)?;
        let mut channels = Vec::with_capacity(self.motions.len());
        let mut events = Vec::new();
        for (k, m) in self.motions.iter().enumerate() {
            let Some(bone) = bone_of(k, m) else {
                let (path, reason) = (
                    format!("motions[{k}]"),
                    format!("bone '{}' not in the skeleton", m.bone_name),
                );
                // Several times the 24 bytes of a motion: charged.
                budget.charge(
                    "loss reports",
                    (size_of::<Loss>() + path.len() + reason.len()) as u64,
                )?;
                out.lose(Feature::Animation, LossKind::Dropped, path, reason);
                continue;
            };
            let ((ts, nt), (rs, nr)) = keys(m);
            let mut c = Channel {
                bone,
                ..Channel::default()
            };
            let time = |f: usize| f as f32 / fps;
            c.translation.times = (0..nt).map(time).collect();
            c.translation.values = self.translations[ts..ts + nt]
                .iter()
                .map(|t| Vec3::from_array(*t))
                .collect();
            c.rotation.times = (0..nr).map(time).collect();
            c.rotation.values = self.rotations[rs..rs + nr]
                .iter()
                .map(|q| stored_rotation(*q))
                .collect();
            channels.push(c);
            if !m.props.is_empty() {
                out.lose(
                    Feature::Animation,
                    LossKind::Dropped,
                    format!("motions[{k}].props"),
                    format!("{} untimed property lists of the motion dropped: meshfmt's clips hold timed events only", m.props.len()),
                );
            }
            events.extend(motion_events(m, bone, &budget)?);
        }
        // Events of one time keep their file order.
        events.sort_by(|a, b| a.time.total_cmp(&b.time));
        let model = Model {
            coordinate_system: NATIVE,
            skeleton,
            animations: vec![Clip {
                name: self.name.to_string_lossy(),
                channels,
                events,
            }],
            ..Model::default()
        };
        Ok(out.map(|()| model))
    }

    /// An `.anim` from a model's first clip sampled at [`FPS`](crate::FPS): one motion per animated
    /// bone, translations and rotations in the shared pools, duration in milliseconds
    /// (the EA convention).
    pub fn from_core(model: &Model) -> Result<Converted<Anim>> {
        Anim::from_core_with(model, &WriteOptions::default())
    }

    /// [`Anim::from_core`] at `options.fps`, under `options`' budget: the resampled
    /// frames (as "resampled frames", a key of each pool per channel and frame) and the
    /// copy of the clip converted to [`NATIVE`] are charged before they are made.
    pub fn from_core_with(model: &Model, options: &WriteOptions) -> Result<Converted<Anim>> {
        let budget = options.budget.clone();
        let fps = options.fps;
        if model.animations.is_empty() {
            return Err(invalid("the model has no animation"));
        }
        let m = native_parts(model, true, &budget)?;
        let mut out = Converted::exact(());
        let clip = m
            .animations
            .first()
            .ok_or_else(|| invalid("the model has no animation"))?;
        out.keep_one_clip(model.animations.len(), ".anim");
        out.note_resampled(clip, 0, fps);
        if clip.channels.iter().any(|c| !c.scale.is_empty()) {
            out.lose(
                Feature::Animation,
                LossKind::Dropped,
                "animations[0]",
                "Vitaboy animations have no scale",
            );
        }
        // Per frame and channel: a translation and a rotation in the pools.
        let per_frame = (clip.channels.len() as u64)
            .saturating_mul((size_of::<[f32; 3]>() + size_of::<[f32; 4]>()) as u64);
        let times = clip.frame_times(fps, &budget, per_frame)?;
        let names: u64 = clip
            .channels
            .iter()
            .filter_map(|c| m.skeleton.bones.get(c.bone))
            .map(|b| b.name.len() as u64 * 2)
            .sum();
        budget.charge(
            "motions",
            (clip.channels.len() as u64)
                .saturating_mul(size_of::<Motion>() as u64)
                .saturating_add(names),
        )?;
        let with = |f: fn(&Channel) -> bool| clip.channels.iter().filter(|c| f(c)).count();
        let name = anim_name(&clip.name);
        if name != clip.name {
            out.lose(
                Feature::Names,
                LossKind::Reduced,
                "animations[0]",
                format!(
                    "written as '{name}': an .anim is told from a .mesh by a name of printable ASCII"
                ),
            );
        }
        // Charged above with the frames.
        let mut anim = Anim {
            version: 2,
            name: RawString::from(name.as_str()),
            duration: clip.duration() * 1000.0,
            distance: 0.0,
            is_moving: 0,
            translations: Vec::with_capacity(
                times
                    .len()
                    .saturating_mul(with(|c| !c.translation.is_empty())),
            ),
            rotations: Vec::with_capacity(
                times.len().saturating_mul(with(|c| !c.rotation.is_empty())),
            ),
            motions: Vec::with_capacity(clip.channels.len()),
        };
        let frame_count = u32::try_from(times.len())
            .map_err(|_| invalid(format!("{} frames do not fit an .anim", times.len())))?;
        let first = |pool: usize| {
            i32::try_from(pool)
                .map_err(|_| invalid(format!("a pool of {pool} keys does not fit an .anim")))
        };
        for c in &clip.channels {
            let name = m
                .skeleton
                .bones
                .get(c.bone)
                .map(|b| b.name.clone())
                .ok_or_else(|| {
                    invalid(format!(
                        "channel for bone {} of {}",
                        c.bone,
                        m.skeleton.len()
                    ))
                })?;
            let has_t = !c.translation.is_empty();
            let has_r = !c.rotation.is_empty();
            let first_t = if has_t {
                first(anim.translations.len())?
            } else {
                -1
            };
            let first_r = if has_r {
                first(anim.rotations.len())?
            } else {
                -1
            };
            for &t in &times {
                if let Some(v) = c.translation.sample(t) {
                    anim.translations.push(v.to_array());
                }
                if let Some(q) = c.rotation.sample(t) {
                    anim.rotations.push(rotation_to_stored(q));
                }
            }
            anim.motions.push(Motion {
                unknown: 1,
                bone_name: RawString::from(name.as_str()),
                frame_count,
                duration: anim.duration,
                has_translation: u8::from(has_t),
                has_rotation: u8::from(has_r),
                first_translation: first_t,
                first_rotation: first_r,
                has_props: 1,
                props: Vec::new(),
                has_time_props: 0,
                time_props: Vec::new(),
            });
        }
        time_props_from_events(clip, &m.skeleton, &mut anim, &budget, &mut out)?;
        Ok(out.map(|()| anim))
    }
}

/// The timed property lists of motion `m` (on `bone`) as clip events: one per property
/// set, at the list item's time (stored in milliseconds), charged first.
fn motion_events(m: &Motion, bone: usize, budget: &Budget) -> Result<Vec<ClipEvent>> {
    let mut events = Vec::new();
    for list in &m.time_props {
        for (time_ms, sets) in list {
            for set in sets {
                let bytes = set
                    .iter()
                    .map(|(k, v)| (k.len() + v.len() + 48) as u64)
                    .sum::<u64>()
                    + size_of::<ClipEvent>() as u64;
                budget.charge("animation events", bytes)?;
                events.push(ClipEvent {
                    time: *time_ms as f32 / 1000.0,
                    bone: Some(bone),
                    props: set
                        .iter()
                        .map(|(k, v)| (k.to_string_lossy(), v.to_string_lossy()))
                        .collect(),
                });
            }
        }
    }
    Ok(events)
}

/// The clip's events as the motions' timed property lists: each motion gets one list of
/// its bone's events, those at one millisecond sharing an item; a bone with events and
/// no channel gets a motion without keys to carry them; an event on no bone goes to the
/// first motion (reported).
fn time_props_from_events(
    clip: &Clip,
    skeleton: &Skeleton,
    anim: &mut Anim,
    budget: &Budget,
    out: &mut Converted<()>,
) -> Result<()> {
    if clip.events.is_empty() || anim.motions.is_empty() {
        if !clip.events.is_empty() {
            out.lose(
                Feature::Animation,
                LossKind::Dropped,
                "animations[0]",
                format!(
                    "{} events dropped: an .anim without motions has no place for them",
                    clip.events.len()
                ),
            );
        }
        return Ok(());
    }
    // Motions follow the channels; bones with events alone get keyless motions after.
    // The motion of each bone (its first), looked up once per event.
    let mut motion_of_bone: std::collections::HashMap<usize, usize> =
        std::collections::HashMap::with_capacity(clip.channels.len());
    for (k, c) in clip.channels.iter().enumerate() {
        motion_of_bone.entry(c.bone).or_insert(k);
    }
    let mut motions = clip.channels.len();
    for e in &clip.events {
        let Some(b) = e.bone.filter(|b| !motion_of_bone.contains_key(b)) else {
            continue;
        };
        let Some(bone) = skeleton.bones.get(b) else {
            continue;
        };
        motion_of_bone.insert(b, motions);
        motions += 1;
        budget.charge("motions", (size_of::<Motion>() + bone.name.len()) as u64)?;
        anim.motions.push(Motion {
            unknown: 1,
            bone_name: RawString::from(bone.name.as_str()),
            frame_count: 0,
            duration: anim.duration,
            has_translation: 0,
            has_rotation: 0,
            first_translation: -1,
            first_rotation: -1,
            has_props: 1,
            props: Vec::new(),
            has_time_props: 0,
            time_props: Vec::new(),
        });
    }
    let motion_of: Vec<Option<usize>> = clip
        .events
        .iter()
        .map(|e| e.bone.and_then(|b| motion_of_bone.get(&b).copied()))
        .collect();
    let moved = motion_of.iter().filter(|m| m.is_none()).count();
    if moved > 0 {
        out.lose(
            Feature::Animation,
            LossKind::Reduced,
            "animations[0]",
            format!("{moved} events on no animated bone are stored on the first motion"),
        );
    }
    let mut order: Vec<usize> = (0..clip.events.len()).collect();
    order.sort_by(|&a, &b| clip.events[a].time.total_cmp(&clip.events[b].time));
    let mut lists: Vec<Vec<crate::anim::TimedProps>> = vec![Vec::new(); anim.motions.len()];
    for i in order {
        let e = &clip.events[i];
        let k = motion_of[i].unwrap_or(0);
        let ms = (f64::from(e.time) * 1000.0).round();
        if !(f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&ms) {
            out.lose(
                Feature::Animation,
                LossKind::Dropped,
                format!("animations[0].events[{i}]"),
                format!("event at {} s: past what a millisecond count holds", e.time),
            );
            continue;
        }
        let ms = ms as i32;
        budget.charge("animation events", e.heap_bytes() + 64)?;
        let set: crate::props::PropSet = e
            .props
            .iter()
            .map(|(k, v)| (RawString::from(k.as_str()), RawString::from(v.as_str())))
            .collect();
        let list = &mut lists[k];
        match list.last_mut() {
            Some((t, sets)) if *t == ms => sets.push(set),
            _ => list.push((ms, vec![set])),
        }
    }
    for (m, list) in anim.motions.iter_mut().zip(lists) {
        if !list.is_empty() {
            m.has_time_props = 1;
            m.time_props = vec![list];
        }
    }
    Ok(())
}

/// The name an `.anim` is written with: the clip's, with anything but printable ASCII
/// made `_`, or `animation` for an empty one. These files have no magic; readers (ours,
/// FreeSO) tell an `.anim` from a `.mesh` by this name, so one our writer makes must
/// be recognizable.
fn anim_name(clip: &str) -> String {
    if clip.is_empty() {
        return "animation".into();
    }
    clip.chars()
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
