//! meshfmt-core model -> glTF document and binary buffer.

use std::collections::BTreeMap;

use gltf_json as json;
use json::accessor::{ComponentType, GenericComponentType, Type};
use json::animation::{Interpolation as GInterp, Property};
use json::buffer::Target;
use json::mesh::{Mode, Semantic};
use json::validation::{Checked::Valid, USize64};
use json::{Index, Root};
use meshfmt_core::glam::{Quat, Vec3, Vec4};
use meshfmt_core::{
    CoordinateSystem, Feature, Interpolation, Loss, LossKind, Model, MorphKind, Surface,
    TextureRole, TextureSource, Track,
};

use meshfmt_core::side_files::output_reference;

use crate::error::CliError;

/// The document (its one buffer's URI still unset), the buffer, and the losses.
pub struct Built {
    pub root: Root,
    pub bin: Vec<u8>,
    pub losses: Vec<Loss>,
}

struct Builder {
    root: Root,
    bin: Vec<u8>,
    losses: Vec<Loss>,
    /// Copies of materials without the textures whose UV sets a surface lacks, by
    /// (material, UV sets present as bits).
    untextured: BTreeMap<(usize, u8), Index<json::Material>>,
    /// Values the export computed that were not finite, by feature (written as 0).
    overflowed: BTreeMap<Feature, usize>,
}

fn lose(losses: &mut Vec<Loss>, feature: Feature, kind: LossKind, path: String, reason: &str) {
    losses.push(Loss {
        feature,
        kind,
        path,
        reason: reason.to_string(),
    });
}

impl Builder {
    /// Appends bytes as a buffer view, 4-byte aligned as accessors need.
    fn view(&mut self, bytes: &[u8], target: Option<Target>) -> Index<json::buffer::View> {
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: Default::default(),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn accessor(
        &mut self,
        bytes: &[u8],
        count: usize,
        component: ComponentType,
        ty: Type,
        target: Option<Target>,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
    ) -> Index<json::Accessor> {
        let view = self.view(bytes, target);
        let (min, max) = match bounds {
            Some((lo, hi)) => (Some(json::Value::from(lo)), Some(json::Value::from(hi))),
            None => (None, None),
        };
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Valid(GenericComponentType(component)),
            type_: Valid(ty),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
            extensions: None,
            extras: Default::default(),
        })
    }

    /// Float vectors of N components; `with_bounds` adds min/max (POSITION and animation
    /// inputs must have them). glTF accessors hold finite numbers only: a value the
    /// export computed that overflowed (the model's own were made finite before) is
    /// written as 0 and counted under `feature`.
    fn floats<const N: usize>(
        &mut self,
        data: &[[f32; N]],
        ty: Type,
        target: Option<Target>,
        with_bounds: bool,
        feature: Feature,
    ) -> Index<json::Accessor> {
        let overflowed = data.iter().flatten().filter(|f| !f.is_finite()).count();
        let fixed: Vec<[f32; N]>;
        let data = if overflowed > 0 {
            *self.overflowed.entry(feature).or_default() += overflowed;
            fixed = data
                .iter()
                .map(|v| v.map(|f| if f.is_finite() { f } else { 0.0 }))
                .collect();
            &fixed
        } else {
            data
        };
        let bounds = with_bounds.then(|| {
            let mut lo = vec![f32::INFINITY; N];
            let mut hi = vec![f32::NEG_INFINITY; N];
            for v in data {
                for i in 0..N {
                    lo[i] = lo[i].min(v[i]);
                    hi[i] = hi[i].max(v[i]);
                }
            }
            (lo, hi)
        });
        let bytes: Vec<u8> = data
            .iter()
            .flatten()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        self.accessor(&bytes, data.len(), ComponentType::F32, ty, target, bounds)
    }
}

/// Builds the glTF document for `model`, charging `budget` for the copy of the model it
/// converts to glTF's frame and for the binary buffer (about the model's size again).
pub fn build(model: &Model, budget: &meshfmt_core::Budget) -> Result<Built, CliError> {
    budget.charge("glTF export", model.heap_bytes().saturating_mul(2))?;
    let mut model = model.clone();
    model.convert_to(CoordinateSystem::GLTF);
    // glTF's JSON has no NaN (serializers write null, which readers refuse), and
    // accessors must be finite.
    let losses = model.replace_non_finite();
    let mut b = Builder {
        root: Root::default(),
        bin: Vec::new(),
        losses,
        untextured: BTreeMap::new(),
        overflowed: BTreeMap::new(),
    };
    b.root.asset = json::Asset {
        generator: Some(format!("meshfmt {}", env!("CARGO_PKG_VERSION"))),
        version: "2.0".into(),
        copyright: None,
        min_version: None,
        extensions: None,
        extras: Default::default(),
    };
    let textures = textures(&mut b, &model)?;
    materials(&mut b, &model, &textures);
    let (joints, roots) = skeleton(&mut b, &model);
    let mut overflowed_ibm = 0;
    let skin = if joints.is_empty() {
        None
    } else {
        let ibm: Vec<[f32; 16]> = model
            .skeleton
            .inverse_bind_matrices()
            .iter()
            .map(|m| {
                // Finite rest transforms can still compose to infinite world matrices
                // (translations of 3e38 on a chain): their inverse is written as the
                // identity, not NaN.
                if !m.is_finite() {
                    overflowed_ibm += 1;
                    return meshfmt_core::glam::Mat4::IDENTITY.to_cols_array();
                }
                // Affine: glTF requires the last row to be exactly (0, 0, 0, 1), which an
                // f32 inverse misses by an ulp.
                let mut a = m.to_cols_array();
                (a[3], a[7], a[11], a[15]) = (0.0, 0.0, 0.0, 1.0);
                a
            })
            .collect();
        if overflowed_ibm > 0 {
            lose(
                &mut b.losses,
                Feature::Skeleton,
                LossKind::Reduced,
                String::new(),
                &format!(
                    "{overflowed_ibm} inverse bind matrices overflowed (the bones' world transforms are not finite): written as the identity"
                ),
            );
        }
        let ibm = b.floats(&ibm, Type::Mat4, None, false, Feature::Skeleton);
        Some(b.root.push(json::Skin {
            inverse_bind_matrices: Some(ibm),
            joints: joints.clone(),
            name: None,
            skeleton: None,
            extensions: None,
            extras: Default::default(),
        }))
    };
    let mut scene_nodes = roots;
    for (i, s) in model.surfaces.iter().enumerate() {
        if let Some(mesh) = surface(&mut b, &model, i, s, joints.len())? {
            let skinned = !s.skin.is_empty() && skin.is_some();
            let node = b.root.push(json::Node {
                mesh: Some(mesh),
                name: (!s.name.is_empty()).then(|| s.name.clone()),
                skin: if skinned { skin } else { None },
                ..empty_node()
            });
            scene_nodes.push(node);
        }
    }
    animations(&mut b, &model, &joints);
    if !b.bin.is_empty() {
        b.bin.resize(b.bin.len().next_multiple_of(4), 0);
        b.root.push(json::Buffer {
            byte_length: USize64::from(b.bin.len()),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        });
    }
    // A scene needs at least one node (glTF's minItems; gltf-json drops an empty list
    // and then cannot read its own output): an empty model gets no scene.
    if !scene_nodes.is_empty() {
        let scene = b.root.push(json::Scene {
            name: (!model.name.is_empty()).then(|| model.name.clone()),
            nodes: scene_nodes,
            extensions: None,
            extras: Default::default(),
        });
        b.root.scene = Some(scene);
    }
    for (feature, n) in std::mem::take(&mut b.overflowed) {
        lose(
            &mut b.losses,
            feature,
            LossKind::Reduced,
            String::new(),
            &format!("{n} values the export computed overflowed (not finite): written as 0"),
        );
    }
    Ok(Built {
        root: b.root,
        bin: b.bin,
        losses: b.losses,
    })
}

fn empty_node() -> json::Node {
    json::Node {
        camera: None,
        children: None,
        matrix: None,
        mesh: None,
        name: None,
        rotation: None,
        scale: None,
        translation: None,
        skin: None,
        weights: None,
        extensions: None,
        extras: Default::default(),
    }
}

/// One node per bone (local rest TRS, children), in bone order; returns the joint
/// nodes and the root nodes for the scene.
fn skeleton(b: &mut Builder, model: &Model) -> (Vec<Index<json::Node>>, Vec<Index<json::Node>>) {
    let bones = &model.skeleton.bones;
    let first = b.root.nodes.len() as u32;
    let mut joints = Vec::with_capacity(bones.len());
    let mut roots = Vec::new();
    // glTF nodes form a forest: parents out of range, a bone that is its own parent and
    // the link closing a cycle are cut (validate() reports them on the source model).
    let parents = model.skeleton.forest_parents();
    let cut = bones
        .iter()
        .zip(&parents)
        .filter(|(bone, p)| bone.parent != **p)
        .count();
    if cut > 0 {
        lose(
            &mut b.losses,
            Feature::Skeleton,
            LossKind::Reduced,
            "skeleton".into(),
            &format!("{cut} parent links that are out of range or form a cycle made roots"),
        );
    }
    let mut child_lists = vec![Vec::new(); bones.len()];
    for (i, p) in parents.iter().enumerate() {
        if let Some(p) = p {
            child_lists[*p].push(i);
        }
    }
    for (i, bone) in bones.iter().enumerate() {
        let children: Vec<_> = child_lists[i]
            .iter()
            .map(|&c| Index::new(first + c as u32))
            .collect();
        let r = unit_quat(bone.rest.rotation);
        let node = b.root.push(json::Node {
            name: Some(bone.name.clone()),
            children: (!children.is_empty()).then_some(children),
            translation: Some(bone.rest.translation.to_array()),
            rotation: Some(json::scene::UnitQuaternion(r.to_array())),
            scale: Some(bone.rest.scale.to_array()),
            ..empty_node()
        });
        joints.push(node);
        if parents[i].is_none() {
            roots.push(node);
        }
    }
    // glTF wants a skin's joints under one common root: several root bones get an
    // untransformed parent node.
    if roots.len() > 1 {
        let parent = b.root.push(json::Node {
            name: Some("skeleton".into()),
            children: Some(roots),
            ..empty_node()
        });
        roots = vec![parent];
    }
    (joints, roots)
}

fn unit_quat(q: Quat) -> Quat {
    // Already unit (to f32 precision): keep the exact bits, so glTF round trips.
    if q.is_finite() && (q.length_squared() - 1.0).abs() <= 1e-6 {
        q
    } else if q.is_finite() {
        meshfmt_core::unit_quat_or_identity(q)
    } else {
        Quat::IDENTITY
    }
}

/// A unit vector, or `fallback` for a zero or non-finite one (counted in `fixed`).
fn unit(v: Vec3, fallback: Vec3, fixed: &mut usize) -> [f32; 3] {
    match v.try_normalize() {
        // Unit within the validator's tolerance: keep the exact bits.
        Some(_) if (v.length() - 1.0).abs() <= 1e-4 => v.to_array(),
        Some(n) => {
            *fixed += 1;
            n.to_array()
        }
        None => {
            *fixed += 1;
            fallback.to_array()
        }
    }
}

fn surface(
    b: &mut Builder,
    model: &Model,
    index: usize,
    s: &Surface,
    bones: usize,
) -> Result<Option<Index<json::Mesh>>, CliError> {
    let path = format!("surfaces[{index}]");
    let n = s.positions.len();
    let triangles = s.indices.len() / 3;
    if n == 0 || triangles == 0 {
        lose(
            &mut b.losses,
            Feature::Geometry,
            LossKind::Dropped,
            path,
            "glTF has no empty meshes: a surface without triangles is left out",
        );
        return Ok(None);
    }
    if let Some(bad) = s.indices.iter().find(|&&i| i as usize >= n) {
        return Err(CliError::format(
            "gltf",
            format!("{path}: index {bad} out of range for {n} vertices"),
        ));
    }
    let attributes = vertex_attributes(b, s, bones, &path)?;
    let indices = index_accessor(b, s, n, triangles);
    let targets = morph_targets(b, s, &path);
    let material = s
        .material
        .filter(|&m| m < model.materials.len())
        .map(|m| usable_material(b, m, &attributes, &path));
    let weights = (!targets.is_empty()).then(|| vec![0.0; targets.len()]);
    let primitive = json::mesh::Primitive {
        attributes,
        indices: Some(indices),
        material,
        mode: Valid(Mode::Triangles),
        targets: (!targets.is_empty()).then_some(targets),
        extensions: None,
        extras: Default::default(),
    };
    if s.indices.len() % 3 != 0 {
        lose(
            &mut b.losses,
            Feature::Geometry,
            LossKind::Reduced,
            path,
            "index count is not a multiple of 3: the incomplete last triangle is left out",
        );
    }
    Ok(Some(b.root.push(json::Mesh {
        name: (!s.name.is_empty()).then(|| s.name.clone()),
        primitives: vec![primitive],
        weights,
        extensions: None,
        extras: Default::default(),
    })))
}

/// A primitive's attributes, by semantic.
type Attributes = BTreeMap<json::validation::Checked<Semantic>, Index<json::Accessor>>;

/// The accessors of a surface's vertex attributes (positions, normals, tangents, UV
/// sets, colors, skin), in that order, with what glTF cannot take reported.
fn vertex_attributes(
    b: &mut Builder,
    s: &Surface,
    bones: usize,
    path: &str,
) -> Result<Attributes, CliError> {
    let n = s.positions.len();
    let mut attributes = BTreeMap::new();
    let positions: Vec<[f32; 3]> = s.positions.iter().map(|p| p.to_array()).collect();
    if positions.iter().flatten().any(|f| !f.is_finite()) {
        return Err(CliError::format(
            "gltf",
            format!("{path}: non-finite position"),
        ));
    }
    let acc = b.floats(
        &positions,
        Type::Vec3,
        Some(Target::ArrayBuffer),
        true,
        Feature::Geometry,
    );
    attributes.insert(Valid(Semantic::Positions), acc);
    if s.normals.len() == n {
        let mut fixed = 0;
        let normals: Vec<[f32; 3]> = s
            .normals
            .iter()
            .map(|v| unit(*v, Vec3::Y, &mut fixed))
            .collect();
        if fixed > 0 {
            lose(
                &mut b.losses,
                Feature::Normals,
                LossKind::Reduced,
                path.to_string(),
                &format!(
                    "{fixed} normals were not unit length; glTF requires unit normals, so they were normalized (zero ones set to +Y)"
                ),
            );
        }
        let acc = b.floats(
            &normals,
            Type::Vec3,
            Some(Target::ArrayBuffer),
            false,
            Feature::Normals,
        );
        attributes.insert(Valid(Semantic::Normals), acc);
    }
    if s.tangents.len() == n && s.normals.len() == n {
        let mut fixed = 0;
        let tangents: Vec<[f32; 4]> = s
            .tangents
            .iter()
            .map(|t| {
                let [x, y, z] = unit(t.truncate(), Vec3::X, &mut fixed);
                [x, y, z, if t.w < 0.0 { -1.0 } else { 1.0 }]
            })
            .collect();
        if fixed > 0 {
            lose(
                &mut b.losses,
                Feature::Tangents,
                LossKind::Reduced,
                path.to_string(),
                &format!(
                    "{fixed} tangents were not unit length and were normalized (zero ones set to +X)"
                ),
            );
        }
        let acc = b.floats(
            &tangents,
            Type::Vec4,
            Some(Target::ArrayBuffer),
            false,
            Feature::Tangents,
        );
        attributes.insert(Valid(Semantic::Tangents), acc);
    } else if s.tangents.len() == n {
        lose(
            &mut b.losses,
            Feature::Tangents,
            LossKind::Dropped,
            path.to_string(),
            "glTF tangents need normals, and this surface has none",
        );
    }
    for (set, uvs) in [&s.uv0, &s.uv1].into_iter().enumerate() {
        if uvs.len() == n {
            let data: Vec<[f32; 2]> = uvs.iter().map(|v| v.to_array()).collect();
            let feature = if set == 0 { Feature::Uv0 } else { Feature::Uv1 };
            let acc = b.floats(&data, Type::Vec2, Some(Target::ArrayBuffer), false, feature);
            attributes.insert(Valid(Semantic::TexCoords(set as u32)), acc);
        }
    }
    if s.colors.len() == n {
        let data: Vec<[f32; 4]> = s
            .colors
            .iter()
            .map(|c| c.clamp(Vec4::ZERO, Vec4::ONE).to_array())
            .collect();
        let acc = b.floats(
            &data,
            Type::Vec4,
            Some(Target::ArrayBuffer),
            false,
            Feature::Colors,
        );
        attributes.insert(Valid(Semantic::Colors(0)), acc);
    }
    if s.skin.len() == n && bones > 0 {
        skin_attributes(b, s, bones, path, &mut attributes);
    } else if !s.skin.is_empty() {
        lose(
            &mut b.losses,
            Feature::Skin,
            LossKind::Dropped,
            path.to_string(),
            "skin without a skeleton or with a count other than the vertex count",
        );
    }
    Ok(attributes)
}

/// The index accessor: 16-bit when every vertex fits, else 32-bit; whole triangles.
fn index_accessor(
    b: &mut Builder,
    s: &Surface,
    n: usize,
    triangles: usize,
) -> Index<json::Accessor> {
    if n <= usize::from(u16::MAX) {
        let bytes: Vec<u8> = s.indices[..triangles * 3]
            .iter()
            .flat_map(|&i| (i as u16).to_le_bytes())
            .collect();
        b.accessor(
            &bytes,
            triangles * 3,
            ComponentType::U16,
            Type::Scalar,
            Some(Target::ElementArrayBuffer),
            None,
        )
    } else {
        let bytes: Vec<u8> = s.indices[..triangles * 3]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect();
        b.accessor(
            &bytes,
            triangles * 3,
            ComponentType::U32,
            Type::Scalar,
            Some(Target::ElementArrayBuffer),
            None,
        )
    }
}

/// Morph targets as glTF position (and normal) deltas; a target whose count differs
/// from the vertex count is left out and reported.
fn morph_targets(b: &mut Builder, s: &Surface, path: &str) -> Vec<json::mesh::MorphTarget> {
    let n = s.positions.len();
    let mut targets = Vec::new();
    for (t, m) in s.morph_targets.iter().enumerate() {
        if m.positions.len() != n {
            lose(
                &mut b.losses,
                Feature::MorphTargets,
                LossKind::Dropped,
                format!("{path}.morph_targets[{t}]"),
                "position count differs from the vertex count",
            );
            continue;
        }
        let deltas: Vec<[f32; 3]> = m
            .position_deltas(&s.positions)
            .iter()
            .map(|v| v.to_array())
            .collect();
        let positions = b.floats(
            &deltas,
            Type::Vec3,
            Some(Target::ArrayBuffer),
            true,
            Feature::MorphTargets,
        );
        let normals = (m.normals.len() == n && s.normals.len() == n).then(|| {
            let d: Vec<[f32; 3]> = match m.kind {
                MorphKind::Delta => m.normals.iter().map(|v| v.to_array()).collect(),
                MorphKind::Absolute => m
                    .normals
                    .iter()
                    .zip(&s.normals)
                    .map(|(a, b)| (*a - *b).to_array())
                    .collect(),
            };
            b.floats(
                &d,
                Type::Vec3,
                Some(Target::ArrayBuffer),
                false,
                Feature::MorphTargets,
            )
        });
        targets.push(json::mesh::MorphTarget {
            positions: Some(positions),
            normals,
            tangents: None,
        });
    }
    targets
}

/// JOINTS_k (u16) and WEIGHTS_k (f32) sets of four, weights normalized to sum to one.
fn skin_attributes(
    b: &mut Builder,
    s: &Surface,
    bones: usize,
    path: &str,
    attributes: &mut BTreeMap<json::validation::Checked<Semantic>, Index<json::Accessor>>,
) {
    let mut per_vertex: Vec<Vec<(u16, f32)>> = Vec::with_capacity(s.skin.len());
    let (mut fixed, mut unbound) = (0, 0);
    for inf in &s.skin {
        // Valid joints with positive weight; one entry per joint.
        let mut pairs: Vec<(u16, f32)> = Vec::new();
        for (j, w) in inf.pairs() {
            if (j as usize) < bones && w > 0.0 && w.is_finite() {
                match pairs.iter_mut().find(|p| u32::from(p.0) == j) {
                    Some(p) => p.1 += w,
                    None => pairs.push((j as u16, w)),
                }
            }
        }
        let mut sum: f32 = pairs.iter().map(|p| p.1).sum();
        if !sum.is_finite() {
            // Weights near f32's limit overflow their sum: scaled by the largest first.
            let largest = pairs.iter().map(|p| p.1).fold(0.0, f32::max);
            for p in &mut pairs {
                p.1 /= largest;
            }
            sum = pairs.iter().map(|p| p.1).sum();
        }
        if pairs.is_empty() {
            unbound += 1;
            pairs.push((0, 1.0));
        } else {
            if (sum - 1.0).abs() > 2e-3 {
                fixed += 1;
            }
            for p in &mut pairs {
                p.1 /= sum;
            }
        }
        per_vertex.push(pairs);
    }
    if fixed > 0 || unbound > 0 {
        lose(
            &mut b.losses,
            Feature::Skin,
            LossKind::Reduced,
            path.to_string(),
            &format!(
                "{fixed} vertices had weights not summing to 1 (normalized) and {unbound} had no valid influence (bound to joint 0)"
            ),
        );
    }
    let sets = per_vertex
        .iter()
        .map(Vec::len)
        .max()
        .unwrap_or(1)
        .div_ceil(4);
    for set in 0..sets {
        let mut joints = Vec::with_capacity(per_vertex.len() * 8);
        let mut weights = Vec::with_capacity(per_vertex.len() * 16);
        for pairs in &per_vertex {
            for k in 0..4 {
                let (j, w) = pairs.get(set * 4 + k).copied().unwrap_or((0, 0.0));
                joints.extend_from_slice(&j.to_le_bytes());
                weights.extend_from_slice(&w.to_le_bytes());
            }
        }
        let n = per_vertex.len();
        let j = b.accessor(
            &joints,
            n,
            ComponentType::U16,
            Type::Vec4,
            Some(Target::ArrayBuffer),
            None,
        );
        let w = b.accessor(
            &weights,
            n,
            ComponentType::F32,
            Type::Vec4,
            Some(Target::ArrayBuffer),
            None,
        );
        attributes.insert(Valid(Semantic::Joints(set as u32)), j);
        attributes.insert(Valid(Semantic::Weights(set as u32)), w);
    }
}

/// Keys with strictly increasing, finite, non-negative times (glTF requires it): a key
/// at the same time as the previous one replaces it.
fn clean_keys<T: Copy>(track: &Track<T>) -> (Vec<f32>, Vec<T>, usize) {
    let mut times: Vec<f32> = Vec::with_capacity(track.times.len());
    let mut values: Vec<T> = Vec::with_capacity(track.times.len());
    let mut dropped = 0;
    for (&t, &v) in track.times.iter().zip(&track.values) {
        if !t.is_finite() || t < 0.0 {
            dropped += 1;
            continue;
        }
        match times.last() {
            Some(&last) if t <= last => {
                dropped += 1;
                if t == last {
                    if let Some(x) = values.last_mut() {
                        *x = v;
                    }
                }
            }
            _ => {
                times.push(t);
                values.push(v);
            }
        }
    }
    (times, values, dropped)
}

fn animations(b: &mut Builder, model: &Model, joints: &[Index<json::Node>]) {
    for (c, clip) in model.animations.iter().enumerate() {
        let mut channels = Vec::new();
        let mut samplers = Vec::new();
        let mut dropped = 0;
        for ch in &clip.channels {
            let Some(&node) = joints.get(ch.bone) else {
                dropped += 1;
                continue;
            };
            let mut add = |b: &mut Builder,
                           times: Vec<f32>,
                           values: Vec<u8>,
                           count: usize,
                           ty: Type,
                           interp: Interpolation,
                           property: Property| {
                let times_arr: Vec<[f32; 1]> = times.iter().map(|&t| [t]).collect();
                let input = b.floats(&times_arr, Type::Scalar, None, true, Feature::Animation);
                let output = b.accessor(&values, count, ComponentType::F32, ty, None, None);
                let sampler = Index::push(
                    &mut samplers,
                    json::animation::Sampler {
                        input,
                        interpolation: Valid(match interp {
                            Interpolation::Linear => GInterp::Linear,
                            Interpolation::Step => GInterp::Step,
                        }),
                        output,
                        extensions: None,
                        extras: Default::default(),
                    },
                );
                channels.push(json::animation::Channel {
                    sampler,
                    target: json::animation::Target {
                        node,
                        path: Valid(property),
                        extensions: None,
                        extras: Default::default(),
                    },
                    extensions: None,
                    extras: Default::default(),
                });
            };
            let (t, v, d) = clean_keys(&ch.translation);
            dropped += d;
            if !t.is_empty() {
                let bytes: Vec<u8> = v
                    .iter()
                    .flat_map(|x| x.to_array())
                    .flat_map(f32::to_le_bytes)
                    .collect();
                add(
                    b,
                    t,
                    bytes,
                    v.len(),
                    Type::Vec3,
                    ch.translation.interpolation,
                    Property::Translation,
                );
            }
            let (t, v, d) = clean_keys(&ch.rotation);
            dropped += d;
            if !t.is_empty() {
                let bytes: Vec<u8> = v
                    .iter()
                    .flat_map(|q| unit_quat(*q).to_array())
                    .flat_map(f32::to_le_bytes)
                    .collect();
                add(
                    b,
                    t,
                    bytes,
                    v.len(),
                    Type::Vec4,
                    ch.rotation.interpolation,
                    Property::Rotation,
                );
            }
            let (t, v, d) = clean_keys(&ch.scale);
            dropped += d;
            if !t.is_empty() {
                let bytes: Vec<u8> = v
                    .iter()
                    .flat_map(|x| x.to_array())
                    .flat_map(f32::to_le_bytes)
                    .collect();
                add(
                    b,
                    t,
                    bytes,
                    v.len(),
                    Type::Vec3,
                    ch.scale.interpolation,
                    Property::Scale,
                );
            }
        }
        if dropped > 0 {
            lose(
                &mut b.losses,
                Feature::Animation,
                LossKind::Reduced,
                format!("animations[{c}]"),
                &format!(
                    "{dropped} keys or channels dropped: glTF needs strictly increasing non-negative times and an existing bone"
                ),
            );
        }
        if channels.is_empty() {
            if !clip.events.is_empty() {
                lose(
                    &mut b.losses,
                    Feature::Animation,
                    LossKind::Dropped,
                    format!("animations[{c}]"),
                    &format!(
                        "{} events dropped with the clip: a glTF animation needs a channel",
                        clip.events.len()
                    ),
                );
            }
            continue;
        }
        b.root.push(json::Animation {
            name: (!clip.name.is_empty()).then(|| clip.name.clone()),
            channels,
            samplers,
            extensions: None,
            extras: events_extras(&model.skeleton, &clip.events),
        });
    }
}

/// A clip's events as the animation's extras, `{"meshfmt_events": [{"time": 0.5,
/// "bone": "hand_r", "props": [["sound", "step"]]}]}` (a bone by its node name, `null`
/// for the whole clip); none without events. Times and names are written as the model
/// has them (non-finite times never reach a writer).
fn events_extras(
    skeleton: &meshfmt_core::Skeleton,
    events: &[meshfmt_core::ClipEvent],
) -> json::Extras {
    if events.is_empty() {
        return None;
    }
    let list: Vec<String> = events
        .iter()
        .map(|e| {
            let bone = e
                .bone
                .and_then(|i| skeleton.bones.get(i))
                .map_or_else(|| "null".to_string(), |b| crate::json::string(&b.name));
            let props: Vec<String> = e
                .props
                .iter()
                .map(|(k, v)| format!("[{},{}]", crate::json::string(k), crate::json::string(v)))
                .collect();
            let time = if e.time.is_finite() { e.time } else { 0.0 };
            format!(
                "{{\"time\":{time},\"bone\":{bone},\"props\":[{}]}}",
                props.join(",")
            )
        })
        .collect();
    serde_json::value::RawValue::from_string(format!("{{\"meshfmt_events\":[{}]}}", list.join(",")))
        .ok()
}

/// Images and textures, one per model texture (embedded pixels as PNG in the buffer,
/// paths as relative URIs); returns the glTF texture for each model texture.
fn textures(b: &mut Builder, model: &Model) -> Result<Vec<Option<Index<json::Texture>>>, CliError> {
    let mut out = Vec::with_capacity(model.textures.len());
    for (i, t) in model.textures.iter().enumerate() {
        let image = match &t.source {
            TextureSource::Embedded(img) => {
                let expected = u64::from(img.width)
                    .saturating_mul(u64::from(img.height))
                    .saturating_mul(4);
                if img.width == 0 || img.height == 0 || img.pixels.len() as u64 != expected {
                    lose(
                        &mut b.losses,
                        Feature::Textures,
                        LossKind::Dropped,
                        format!("textures[{i}]"),
                        "embedded image size does not match its pixel data",
                    );
                    out.push(None);
                    continue;
                }
                let png = img
                    .encode_png()
                    .ok_or_else(|| CliError::format("gltf", "PNG: cannot encode the image"))?;
                let view = b.view(&png, None);
                json::Image {
                    buffer_view: Some(view),
                    mime_type: Some(json::image::MimeType("image/png".into())),
                    name: (!t.name.is_empty()).then(|| t.name.clone()),
                    uri: None,
                    extensions: None,
                    extras: Default::default(),
                }
            }
            TextureSource::Path(p) if p.is_empty() => {
                lose(
                    &mut b.losses,
                    Feature::Textures,
                    LossKind::Dropped,
                    format!("textures[{i}]"),
                    "texture without a file name or pixels",
                );
                out.push(None);
                continue;
            }
            TextureSource::Path(p) => {
                // Never a reference that leads out of the output's folder.
                let r = output_reference(p);
                b.losses.extend(r.loss(p, format!("textures[{i}]")));
                if r.written.is_empty() {
                    out.push(None);
                    continue;
                }
                json::Image {
                    buffer_view: None,
                    mime_type: None,
                    name: (!t.name.is_empty()).then(|| t.name.clone()),
                    uri: Some(uri_path(&r.written)),
                    extensions: None,
                    extras: Default::default(),
                }
            }
        };
        let image = b.root.push(image);
        out.push(Some(b.root.push(json::Texture {
            name: None,
            sampler: None,
            source: image,
            extensions: None,
            extras: Default::default(),
        })));
    }
    Ok(out)
}

/// A file path as a relative URI reference: forward slashes, reserved and non-ASCII
/// bytes percent-encoded.
fn uri_path(p: &str) -> String {
    let mut s = String::with_capacity(p.len());
    for &byte in p.replace('\\', "/").as_bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            s.push(char::from(byte));
        } else {
            s.push_str(&format!("%{byte:02X}"));
        }
    }
    s
}

/// Material `m` as a primitive with `attributes` may use it: glTF requires the UV set
/// each of its textures samples (`TEXCOORD_n`), so a surface that lacks one gets a copy
/// of the material without the textures on it (made once per material and UV sets),
/// and the loss says so.
fn usable_material(
    b: &mut Builder,
    m: usize,
    attributes: &Attributes,
    path: &str,
) -> Index<json::Material> {
    let has = |set: u32| attributes.contains_key(&Valid(Semantic::TexCoords(set)));
    let present = u8::from(has(0)) | (u8::from(has(1)) << 1);
    let index = Index::new(m as u32);
    let Some(mut copy) = b.root.materials.get(m).cloned() else {
        return index;
    };
    let usable = |tex_coord: u32| tex_coord < 2 && present & (1 << tex_coord) != 0;
    let pbr = &mut copy.pbr_metallic_roughness;
    let mut dropped = 0;
    let mut keep = |t: &mut Option<json::texture::Info>| {
        if t.as_ref().is_some_and(|i| !usable(i.tex_coord)) {
            *t = None;
            dropped += 1;
        }
    };
    keep(&mut pbr.base_color_texture);
    keep(&mut pbr.metallic_roughness_texture);
    keep(&mut copy.emissive_texture);
    if copy
        .normal_texture
        .as_ref()
        .is_some_and(|t| !usable(t.tex_coord))
    {
        copy.normal_texture = None;
        dropped += 1;
    }
    if copy
        .occlusion_texture
        .as_ref()
        .is_some_and(|t| !usable(t.tex_coord))
    {
        copy.occlusion_texture = None;
        dropped += 1;
    }
    if dropped == 0 {
        return index;
    }
    lose(
        &mut b.losses,
        Feature::Textures,
        LossKind::Dropped,
        path.to_string(),
        "the material's textures sample a UV set the surface lacks (glTF requires it): the surface uses a copy of the material without them",
    );
    *b.untextured
        .entry((m, present))
        .or_insert_with(|| b.root.push(copy))
}

fn materials(b: &mut Builder, model: &Model, textures: &[Option<Index<json::Texture>>]) {
    for m in &model.materials {
        let tex = |role: TextureRole| {
            m.textures.iter().find(|t| t.role == role).and_then(|t| {
                textures
                    .get(t.texture)
                    .copied()
                    .flatten()
                    .map(|index| (index, t.uv_set.min(1)))
            })
        };
        let info = |role| {
            tex(role).map(|(index, tex_coord)| json::texture::Info {
                index,
                tex_coord,
                extensions: None,
                extras: Default::default(),
            })
        };
        let c = m.base_color.clamp(Vec4::ZERO, Vec4::ONE);
        b.root.push(json::Material {
            alpha_cutoff: None,
            alpha_mode: Valid(if c.w < 1.0 {
                json::material::AlphaMode::Blend
            } else {
                json::material::AlphaMode::Opaque
            }),
            double_sided: false,
            name: (!m.name.is_empty()).then(|| m.name.clone()),
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor(c.to_array()),
                base_color_texture: info(TextureRole::BaseColor),
                metallic_factor: json::material::StrengthFactor(m.metallic.clamp(0.0, 1.0)),
                roughness_factor: json::material::StrengthFactor(m.roughness.clamp(0.0, 1.0)),
                metallic_roughness_texture: info(TextureRole::MetallicRoughness),
                extensions: None,
                extras: Default::default(),
            },
            normal_texture: tex(TextureRole::Normal).map(|(index, tex_coord)| {
                json::material::NormalTexture {
                    index,
                    scale: 1.0,
                    tex_coord,
                    extensions: None,
                    extras: Default::default(),
                }
            }),
            occlusion_texture: tex(TextureRole::Occlusion).map(|(index, tex_coord)| {
                json::material::OcclusionTexture {
                    index,
                    strength: json::material::StrengthFactor(1.0),
                    tex_coord,
                    extensions: None,
                    extras: Default::default(),
                }
            }),
            emissive_texture: info(TextureRole::Emissive),
            emissive_factor: json::material::EmissiveFactor(
                m.emissive.clamp(Vec3::ZERO, Vec3::ONE).to_array(),
            ),
            extensions: None,
            extras: Default::default(),
        });
    }
}
