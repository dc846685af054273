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

use meshfmt_core::glam::{Mat3, Mat4, Vec2, Vec3};
use meshfmt_core::{
    Bone, Channel, Clip, Converted, CoordinateSystem, Feature, Handedness, LossKind, Model,
    Skeleton, Surface, Transform, UpAxis, VertexInfluences,
};
use parsing_primitives::RawString;

use crate::anim::{Anim, Motion};
use crate::error::{Result, invalid};
use crate::mesh::{Binding, Blend, Mesh};
use crate::skel::Skel;
use crate::skinning::{bone_worlds, rotation_to_stored, stored_rotation};

/// The files' own frame: +Y up, left-handed, 1 unit = 1/3 m.
pub const NATIVE: CoordinateSystem = CoordinateSystem {
    up: UpAxis::Y,
    handedness: Handedness::Left,
    meters_per_unit: 1.0 / 3.0,
};

/// Frames per second of TSO animations (NIO and FreeSO play them at 30).
pub const FPS: f32 = 30.0;

/// Conversion choices.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CoreOptions {
    /// Store UVs bottom-up (`v' = 1 - v`, for OpenGL, glTF, Blender) instead of as the
    /// file has them (top-down).
    pub flip_v: bool,
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

fn skeleton_to_core(skel: &Skel) -> Skeleton {
    Skeleton {
        bones: skel
            .bones
            .iter()
            .enumerate()
            .map(|(i, b)| Bone {
                name: b.name.to_string_lossy(),
                parent: skel.parent_index(i),
                rest: Transform {
                    translation: Vec3::from_array(b.translation),
                    rotation: stored_rotation(b.rotation),
                    scale: Vec3::ONE,
                },
                inverse_bind: None,
            })
            .collect(),
    }
}

impl Skel {
    /// A `.skel` from a model's skeleton (converted to [`NATIVE`]): parents by name
    /// (`NULL` for roots, which must come before their children here too), rest
    /// rotations stored as conjugates, the fields FreeSO writes (unknown 1, empty
    /// property list, all three flags 1, no wiggle).
    pub fn from_core(model: &Model, name: &str) -> Result<Converted<Skel>> {
        let mut m = model.clone();
        m.convert_to(NATIVE);
        let mut out = Converted::exact(());
        let bones = &m.skeleton.bones;
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
            skel_bones.push(crate::skel::SkelBone {
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
        Ok(Converted::exact(Model {
            coordinate_system: NATIVE,
            skeleton: skeleton_to_core(self),
            ..Model::default()
        }))
    }
}

impl Mesh {
    /// The mesh as one surface posed at `skel`'s rest pose (see the module docs). With
    /// no skeleton, bones stay at the origin: single-bone meshes are then exact, others
    /// keep their parts in bone-local space (reported as a loss).
    pub fn to_core(&self, skel: Option<&Skel>, options: &CoreOptions) -> Result<Converted<Model>> {
        self.check()?;
        let mut out = Converted::exact(());
        let owned;
        let skel = match skel {
            Some(s) => s,
            None => {
                owned = flat_skeleton(self);
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
        for d in self.diagnostics() {
            out.lose(Feature::Skin, LossKind::Reduced, "", d);
        }
        let worlds = bone_worlds(skel, None);
        let bones = crate::skinning::binding_bones(self, skel)?;
        let n = self.real_vertices.len();
        let mut positions: Vec<Vec3> = self
            .real_vertices
            .iter()
            .map(|v| Vec3::new(v[0], v[1], v[2]))
            .collect();
        let mut normals: Vec<Vec3> = self
            .real_vertices
            .iter()
            .map(|v| Vec3::new(v[3], v[4], v[5]))
            .collect();
        let mut skin = vec![VertexInfluences::default(); n];
        let mut blend_bone = vec![0usize; self.blend_vertices.len()];
        for (b, &bone) in self.bindings.iter().zip(&bones) {
            let w = worlds.get(bone).copied().unwrap_or(Mat4::IDENTITY);
            for i in range(b.first_real, b.real_count) {
                positions[i] = w.transform_point3(positions[i]);
                normals[i] = (Mat3::from_mat4(w) * normals[i]).normalize_or_zero();
                skin[i] = VertexInfluences::single(bone as u32);
            }
            for j in range(b.first_blend, b.blend_count) {
                blend_bone[j] = bone;
            }
        }
        // Tugs, in file order: scale what is there by 1 - w, add w for the blend's bone.
        let mut pairs: Vec<Vec<(u32, f32)>> = skin.iter().map(|v| v.pairs().collect()).collect();
        for (j, blend) in self.blends.iter().enumerate() {
            let w = blend.weight_f32();
            let p = &mut pairs[blend.other_vertex as usize];
            p.iter_mut().for_each(|x| x.1 *= 1.0 - w);
            match p.iter_mut().find(|x| x.0 == blend_bone[j] as u32) {
                Some(x) => x.1 += w,
                None => p.push((blend_bone[j] as u32, w)),
            }
        }
        let skin: Vec<VertexInfluences> = pairs
            .into_iter()
            .map(VertexInfluences::from_pairs_strongest)
            .collect();
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
            skeleton: skeleton_to_core(skel),
            ..Model::default()
        };
        Ok(out.map(|()| model))
    }

    /// A mesh from a meshfmt-core model (converted to [`NATIVE`], surfaces merged):
    /// each vertex's strongest bone makes it a real vertex of that bone's binding, a
    /// second bone adds a blend vertex tugging it with the second weight (Q1.15,
    /// truncated like FreeSO). Vertices are stored in their bone's rest frame; normals
    /// unit length; the third count is R + N; empty blend ranges start at -1.
    pub fn from_core(model: &Model, options: &CoreOptions) -> Result<Converted<Mesh>> {
        let mut m = model.clone();
        m.convert_to(NATIVE);
        let mut out = Converted::exact(());
        let any = |f: fn(&Surface) -> bool| m.surfaces.iter().any(f);
        for (present, feature, reason) in [
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
                !m.materials.is_empty() || any(|s| s.material.is_some()),
                Feature::Materials,
                "Vitaboy materials live in .bnd/.apr files",
            ),
            (
                !m.textures.is_empty(),
                Feature::Textures,
                "Vitaboy textures live in separate files",
            ),
            (
                !m.animations.is_empty(),
                Feature::Animation,
                "animations belong in .anim files",
            ),
            (
                !m.name.is_empty() || any(|s| !s.name.is_empty()),
                Feature::Names,
                "Vitaboy meshes store no mesh or surface names",
            ),
        ] {
            if present {
                out.lose(feature, LossKind::Dropped, "", reason);
            }
        }
        if m.surfaces.len() > 1 {
            out.lose(
                Feature::Names,
                LossKind::Reduced,
                "",
                format!("{} surfaces merged into one mesh", m.surfaces.len()),
            );
        }
        // Merge surfaces.
        let mut s = Surface::default();
        for src in &m.surfaces {
            let base = s.positions.len() as u32;
            let n = src.positions.len();
            s.positions.extend(&src.positions);
            s.normals
                .extend((0..n).map(|i| src.normals.get(i).copied().unwrap_or(Vec3::ZERO)));
            s.uv0
                .extend((0..n).map(|i| src.uv0.get(i).copied().unwrap_or(Vec2::ZERO)));
            s.skin
                .extend((0..n).map(|i| src.skin.get(i).copied().unwrap_or_default()));
            s.indices
                .extend(src.indices.iter().map(|i| i.saturating_add(base)));
        }
        let n = s.positions.len();
        if s.indices.len() % 3 != 0 || s.indices.iter().any(|&i| i as usize >= n) {
            return Err(invalid(
                "indices must be whole triangles within the vertices",
            ));
        }
        // Bones: the model's skeleton, or one ROOT bone for static models.
        let skeleton = if m.skeleton.is_empty() {
            Skeleton {
                bones: vec![Bone {
                    name: "ROOT".into(),
                    ..Bone::default()
                }],
            }
        } else {
            m.skeleton.clone()
        };
        let nb = skeleton.len();
        let inverse = skeleton.inverse_bind_matrices();
        // Each vertex: primary bone, optional second bone with weight.
        let mut reduced = false;
        let mut assign: Vec<(usize, Option<(usize, f32)>)> = Vec::with_capacity(n);
        for v in 0..n {
            let inf = VertexInfluences::from_pairs_strongest(s.skin[v].pairs());
            let mut p: Vec<(u32, f32)> = inf.pairs().filter(|&(j, _)| (j as usize) < nb).collect();
            if p.len() > 2 {
                reduced = true;
                p.truncate(2);
            }
            let sum: f32 = p.iter().map(|x| x.1).sum();
            match p.as_slice() {
                [] => assign.push((0, None)),
                [a] => assign.push((a.0 as usize, None)),
                [a, b, ..] => assign.push((a.0 as usize, Some((b.0 as usize, b.1 / sum)))),
            }
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
        // Real vertices grouped by bone (stable), then blend vertices grouped by bone.
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&v| assign[v].0);
        let mut new_index = vec![0u32; n];
        for (k, &v) in order.iter().enumerate() {
            new_index[v] = k as u32;
        }
        let mut blends: Vec<(usize, usize, f32)> = (0..n)
            .filter_map(|v| assign[v].1.map(|(c, w)| (c, v, w)))
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
                other_vertex: new_index[v] as i32,
            })
            .collect();
        // Bindings: one per bone with real or blend vertices, in bone order.
        let mut bone_names = Vec::new();
        let mut bindings = Vec::new();
        for bone in 0..nb {
            let reals: Vec<usize> = (0..n).filter(|&k| assign[order[k]].0 == bone).collect();
            let blended: Vec<usize> = (0..blends.len()).filter(|&k| blends[k].0 == bone).collect();
            if reals.is_empty() && blended.is_empty() {
                continue;
            }
            let index = bone_names.len() as i32;
            bone_names.push(RawString::from(skeleton.bones[bone].name.as_str()));
            bindings.push(Binding {
                bone_index: index,
                first_real: reals.first().map_or(0, |&k| k as i32),
                real_count: reals.len() as i32,
                first_blend: blended.first().map_or(-1, |&k| k as i32),
                blend_count: blended.len() as i32,
            });
        }
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
        let third_count =
            u32::try_from(n + blends.len()).map_err(|_| invalid("too many vertices"))?;
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

fn range(first: i32, count: i32) -> std::ops::Range<usize> {
    if count <= 0 || first < 0 {
        0..0
    } else {
        first as usize..first as usize + count as usize
    }
}

/// A skeleton with the mesh's bone names, all at the origin, no hierarchy.
fn flat_skeleton(mesh: &Mesh) -> Skel {
    Skel {
        version: 1,
        name: RawString::from("flat"),
        bones: mesh
            .bone_names
            .iter()
            .map(|n| crate::skel::SkelBone {
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
    }
}

impl Anim {
    /// One clip; channels name bones of `skel` when given (motions for bones it lacks
    /// are reported), else of a flat skeleton of the motions' bone names. Frame `f` is at
    /// `f / fps`.
    pub fn to_core(&self, skel: Option<&Skel>, fps: f32) -> Result<Converted<Model>> {
        let mut out = Converted::exact(());
        let skeleton = match skel {
            Some(s) => skeleton_to_core(s),
            None => Skeleton {
                bones: self
                    .motions
                    .iter()
                    .map(|m| Bone {
                        name: m.bone_name.to_string_lossy(),
                        ..Bone::default()
                    })
                    .collect(),
            },
        };
        let mut channels = Vec::new();
        for (k, m) in self.motions.iter().enumerate() {
            let bone = match skel {
                Some(s) => match s.find(m.bone_name.as_bytes()) {
                    Some(b) => b,
                    None => {
                        out.lose(
                            Feature::Animation,
                            LossKind::Dropped,
                            format!("motions[{k}]"),
                            format!("bone '{}' not in the skeleton", m.bone_name),
                        );
                        continue;
                    }
                },
                None => k,
            };
            let mut c = Channel {
                bone,
                ..Channel::default()
            };
            // Frames index the pools; a motion that uses neither pool has no keys, and a
            // used pool bounds the count (the reader checked first + frames <= pool), so
            // a hostile frame count cannot make this loop long.
            let frames = if m.has_translation != 0 || m.has_rotation != 0 {
                m.frame_count as usize
            } else {
                0
            };
            for f in 0..frames {
                let time = f as f32 / fps;
                if m.has_translation != 0 {
                    if let Some(t) = usize::try_from(m.first_translation)
                        .ok()
                        .and_then(|s| self.translations.get(s + f))
                    {
                        c.translation.times.push(time);
                        c.translation.values.push(Vec3::from_array(*t));
                    }
                }
                if m.has_rotation != 0 {
                    if let Some(q) = usize::try_from(m.first_rotation)
                        .ok()
                        .and_then(|s| self.rotations.get(s + f))
                    {
                        c.rotation.times.push(time);
                        c.rotation.values.push(stored_rotation(*q));
                    }
                }
            }
            channels.push(c);
        }
        let model = Model {
            coordinate_system: NATIVE,
            skeleton,
            animations: vec![Clip {
                name: self.name.to_string_lossy(),
                channels,
            }],
            ..Model::default()
        };
        Ok(out.map(|()| model))
    }

    /// An `.anim` from a model's first clip sampled at `fps`: one motion per animated
    /// bone, translations and rotations in the shared pools, duration in milliseconds
    /// (the EA convention).
    pub fn from_core(model: &Model, fps: f32) -> Result<Converted<Anim>> {
        let mut m = model.clone();
        m.convert_to(NATIVE);
        let mut out = Converted::exact(());
        let clip = m
            .animations
            .first()
            .ok_or_else(|| invalid("the model has no animation"))?;
        if m.animations.len() > 1 {
            out.lose(
                Feature::Animation,
                LossKind::Dropped,
                "",
                format!(
                    ".anim holds one animation; {} more dropped",
                    m.animations.len() - 1
                ),
            );
        }
        if !clip.is_on_grid(fps) {
            out.lose(
                Feature::Animation,
                LossKind::Reduced,
                "animations[0]",
                format!("keys resampled at {fps} frames per second"),
            );
        }
        if clip.channels.iter().any(|c| !c.scale.is_empty()) {
            out.lose(
                Feature::Animation,
                LossKind::Dropped,
                "animations[0]",
                "Vitaboy animations have no scale",
            );
        }
        let budget = &meshfmt_core::Budget::default(); // replaced by the caller's (issue 16)
        let per_frame = (clip.channels.len() * 28) as u64;
        let times = clip.frame_times(fps, budget, per_frame)?;
        let mut anim = Anim {
            version: 2,
            name: RawString::from(clip.name.as_str()),
            duration: clip.duration() * 1000.0,
            distance: 0.0,
            is_moving: 0,
            translations: Vec::new(),
            rotations: Vec::new(),
            motions: Vec::new(),
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
                anim.translations.len() as i32
            } else {
                -1
            };
            let first_r = if has_r {
                anim.rotations.len() as i32
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
                frame_count: times.len() as u32,
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
        Ok(out.map(|()| anim))
    }
}
