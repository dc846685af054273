//! Meshes: indices reordered for the vertex cache, vertices for fetch, then every
//! attribute in its quantized form, and the dequantization put where it belongs (the
//! mesh node's transform, the skin's inverse bind matrices, the material's texture
//! transform).

use std::collections::BTreeMap;

use gltf_json as json;
use json::accessor::{ComponentType, Type};
use json::mesh::{Mode, Semantic};
use json::validation::Checked::Valid;
use meshfmt_core::Feature;
use meshfmt_core::glam::{Mat4, Quat, Vec3};
use meshfmt_core::quantize::{Rounding, unorm8};

use super::quantize::{Grid, angle_deg, snorm, unorm, weights_u8};
use super::read::{Raw, elements, raw};
use super::{Data, Kind, State};
use crate::error::CliError;

fn bad(message: String) -> CliError {
    CliError::format("gltf", format!("compress: {message}"))
}

/// A UV grid: `uv = offset + q * step`, q of `bits` bits.
#[derive(Debug, Clone, Copy)]
struct UvGrid {
    offset: [f32; 2],
    step: [f32; 2],
    top: u32,
}

type Bounds3 = ([f32; 3], [f32; 3]);

fn grow3(b: &mut Option<Bounds3>, p: &[f32]) {
    let (lo, hi) = b.get_or_insert(([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]));
    for k in 0..3 {
        lo[k] = lo[k].min(p[k]);
        hi[k] = hi[k].max(p[k]);
    }
}

/// True when a texture of material `m` reads UV set `set`.
fn texture_infos_using(m: &json::Material, set: u32) -> bool {
    crate::gltf::import::texture_infos(m).any(|(t, _)| t == set)
}

fn transform_value(g: &UvGrid) -> serde_json::Value {
    // Decoded UVs are q / 65535; the transform scales them back onto the grid.
    let s = [0, 1].map(|k| g.step[k] * 65535.0);
    serde_json::json!({ "offset": g.offset, "scale": s })
}

/// Puts the dequantizing texture transform on every texture of material `m` that reads
/// UV set `set`.
fn set_texture_transforms(m: &mut json::Material, set: u32, g: &UvGrid) {
    let value = transform_value(g);
    // The five references have three types, each with its own extensions type.
    macro_rules! put {
        ($t:expr) => {
            if let Some(t) = $t.as_mut().filter(|t| t.tex_coord == set) {
                t.extensions
                    .get_or_insert_with(Default::default)
                    .others
                    .insert("KHR_texture_transform".into(), value.clone());
            }
        };
    }
    let pbr = &mut m.pbr_metallic_roughness;
    put!(pbr.base_color_texture);
    put!(pbr.metallic_roughness_texture);
    put!(m.normal_texture);
    put!(m.occlusion_texture);
    put!(m.emissive_texture);
}

/// Elements of `elem` bytes each padded with zeros to `stride` (4-byte vertex strides).
fn padded(bytes: &[u8], elem: usize, stride: usize) -> Vec<u8> {
    if stride == elem {
        return bytes.to_vec();
    }
    let mut out = vec![0; bytes.len() / elem.max(1) * stride];
    for (i, e) in bytes.chunks_exact(elem.max(1)).enumerate() {
        out[i * stride..i * stride + elem].copy_from_slice(e);
    }
    out
}

/// Elements of `n` bytes moved to their new places (`remap[old] = new`, `u32::MAX` for
/// a vertex no triangle uses: dropped).
fn moved(v: &[u8], n: usize, (map, unique): &(Vec<u32>, usize)) -> Vec<u8> {
    let mut out = vec![0; unique * n];
    for (e, &to) in v.chunks_exact(n).zip(map) {
        if let Some(dst) = out.get_mut(to as usize * n..to as usize * n + n) {
            dst.copy_from_slice(e);
        }
    }
    out
}

/// Primitives written as one: same material, attributes (by semantic and storage),
/// skin, no morph targets, triangle lists, on scene-root nodes with no transform.
type GroupKey = (Option<usize>, Vec<(String, String)>, Option<usize>);

/// Drops the UV sets no texture of the primitive's material reads, and tangents
/// without a normal map (gltfpack's default too), reporting each kind once.
fn prune(s: &mut State<'_>) {
    let (mut uvs, mut tangents) = (0usize, 0usize);
    for m in 0..s.root.meshes.len() {
        for p in 0..s.root.meshes[m].primitives.len() {
            let prim = &s.root.meshes[m].primitives[p];
            let material = prim.material.and_then(|x| s.root.materials.get(x.value()));
            let normal_map = material.is_some_and(|x| x.normal_texture.is_some());
            let drop: Vec<_> = prim
                .attributes
                .keys()
                .filter(|k| match k {
                    Valid(Semantic::TexCoords(set)) => {
                        !material.is_some_and(|x| texture_infos_using(x, *set))
                    }
                    Valid(Semantic::Tangents) => !normal_map,
                    _ => false,
                })
                .cloned()
                .collect();
            let prim = &mut s.root.meshes[m].primitives[p];
            for k in drop {
                if matches!(k, Valid(Semantic::Tangents)) {
                    tangents += 1;
                } else {
                    uvs += 1;
                }
                prim.attributes.remove(&k);
            }
        }
    }
    for (n, what, why) in [
        (
            uvs,
            Feature::Uv0,
            "UV sets no texture of the material reads",
        ),
        (
            tangents,
            Feature::Tangents,
            "tangents of primitives without a normal map",
        ),
    ] {
        if n > 0 {
            s.dropped.push(meshfmt_core::Loss {
                feature: what,
                kind: meshfmt_core::LossKind::Dropped,
                path: String::new(),
                reason: format!(
                    "{n} {why}: not needed to render (--quality meshopt-keep keeps them)"
                ),
            });
        }
    }
}

/// Rewrites every mesh's primitives.
pub(crate) fn meshes(s: &mut State<'_>) -> Result<(), CliError> {
    if !s.c.keep {
        prune(s);
    }
    let root = &s.root;
    // Which skin (if any) each mesh is drawn with, how many nodes draw it, and how many
    // primitives use each accessor (a shared one is not reordered or merged).
    let mut skin_of: BTreeMap<usize, usize> = BTreeMap::new();
    let mut drawn = vec![0usize; root.meshes.len()];
    let mut mergeable_node = vec![false; root.meshes.len()];
    let scene_roots: std::collections::BTreeSet<usize> = root
        .scenes
        .iter()
        .flat_map(|sc| sc.nodes.iter().map(|n| n.value()))
        .collect();
    for (n, node) in root.nodes.iter().enumerate() {
        if let Some(m) = node.mesh.map(|m| m.value()) {
            if let Some(k) = node.skin {
                skin_of.insert(m, k.value());
            }
            if let Some(d) = drawn.get_mut(m) {
                *d += 1;
            }
            let plain = node.children.is_none()
                && node.matrix.is_none()
                && node.translation.is_none()
                && node.rotation.is_none()
                && node.scale.is_none()
                && node.weights.is_none();
            if let Some(x) = mergeable_node.get_mut(m) {
                *x = plain && (node.skin.is_some() || scene_roots.contains(&n));
            }
        }
    }
    let mut uses = vec![0usize; root.accessors.len()];
    for mesh in &root.meshes {
        for p in &mesh.primitives {
            let mut seen: Vec<usize> = p.attributes.values().map(|a| a.value()).collect();
            seen.extend(p.indices.map(|i| i.value()));
            for t in p.targets.iter().flatten() {
                seen.extend(
                    [t.positions, t.normals, t.tangents]
                        .into_iter()
                        .flatten()
                        .map(|a| a.value()),
                );
            }
            seen.sort_unstable();
            seen.dedup();
            for a in seen {
                if let Some(u) = uses.get_mut(a) {
                    *u += 1;
                }
            }
        }
    }
    let alone = |p: &json::mesh::Primitive| {
        p.attributes
            .values()
            .all(|a| uses.get(a.value()) == Some(&1))
            && p.indices.is_some_and(|i| uses.get(i.value()) == Some(&1))
            && p.targets.iter().flatten().all(|t| {
                [t.positions, t.normals, t.tangents]
                    .into_iter()
                    .flatten()
                    .all(|a| uses.get(a.value()) == Some(&1))
            })
    };
    // Groups of primitives written as one (without `keep`), in first-use order.
    let mut groups: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut mergeable: Vec<bool> = Vec::new();
    let mut by_key: BTreeMap<GroupKey, usize> = BTreeMap::new();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            if !prim.attributes.contains_key(&Valid(Semantic::Positions)) {
                continue;
            }
            let merge = !s.c.keep
                && alone(prim)
                && drawn[m] == 1
                && mergeable_node[m]
                && mesh.weights.is_none()
                && prim.targets.is_none()
                && prim.mode == Valid(Mode::Triangles);
            if !merge {
                groups.push(vec![(m, p)]);
                mergeable.push(false);
                continue;
            }
            let layout: Vec<(String, String)> = prim
                .attributes
                .iter()
                .map(|(k, a)| {
                    let acc = root.accessors.get(a.value());
                    let form = acc.map_or(String::new(), |x| {
                        format!("{:?}{:?}{}", x.component_type, x.type_, x.normalized)
                    });
                    (format!("{k:?}"), form)
                })
                .collect();
            let key = (
                prim.material.map(|x| x.value()),
                layout,
                skin_of.get(&m).copied(),
            );
            match by_key.get(&key) {
                Some(&g) => groups[g].push((m, p)),
                None => {
                    by_key.insert(key, groups.len());
                    groups.push(vec![(m, p)]);
                    mergeable.push(true);
                }
            }
        }
    }
    // Position boxes: per skin (all its meshes), else per mesh the groups land in.
    let mut skin_box: BTreeMap<usize, Option<Bounds3>> = BTreeMap::new();
    let mut mesh_box: Vec<Option<Bounds3>> = vec![None; root.meshes.len()];
    // UV boxes per (material, set), for materials with a texture reading that set.
    let mut uv_box: BTreeMap<(usize, u32), ([f32; 2], [f32; 2])> = BTreeMap::new();
    // The mesh each group lands in: mergeable ones share one mesh per skin (or none),
    // one primitive per material, as gltfpack writes them.
    let mut common: BTreeMap<Option<usize>, usize> = BTreeMap::new();
    let targets: Vec<usize> = groups
        .iter()
        .zip(&mergeable)
        .map(|(g, &merge)| {
            if merge {
                *common
                    .entry(skin_of.get(&g[0].0).copied())
                    .or_insert(g[0].0)
            } else {
                g[0].0
            }
        })
        .collect();
    for (g, &target_mesh) in groups.iter().zip(&targets) {
        for &(m, p) in g {
            let prim = &root.meshes[m].primitives[p];
            if let Some(a) = prim.attributes.get(&Valid(Semantic::Positions)) {
                let pos = raw(root, s.bin, a.value())?.floats();
                let target = match skin_of.get(&m) {
                    Some(k) => skin_box.entry(*k).or_default(),
                    None => &mut mesh_box[target_mesh],
                };
                for v in pos.chunks_exact(3) {
                    grow3(target, v);
                }
            }
            let Some(mat) = prim.material.map(|x| x.value()) else {
                continue;
            };
            let Some(material) = root.materials.get(mat) else {
                continue;
            };
            for set in 0..2u32 {
                let Some(a) = prim.attributes.get(&Valid(Semantic::TexCoords(set))) else {
                    continue;
                };
                if !texture_infos_using(material, set) {
                    continue;
                }
                let uv = raw(root, s.bin, a.value())?.floats();
                let e = uv_box
                    .entry((mat, set))
                    .or_insert(([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]));
                for v in uv.chunks_exact(2) {
                    for (k, x) in v.iter().enumerate() {
                        e.0[k] = e.0[k].min(*x);
                        e.1[k] = e.1[k].max(*x);
                    }
                }
            }
        }
    }
    let bits = s.c.position_bits;
    let grid = |b: &Option<Bounds3>| b.map(|(lo, hi)| Grid::new(lo, hi, bits));
    // Skinned positions are quantized under meshopt only: their dequantization goes in
    // the inverse bind matrices, which three.js applies but Blender's importer reads as
    // the bones' rest (the `quantized` coding is the one Blender takes).
    let skinned_grids = s.c.meshopt;
    let skin_grid: BTreeMap<usize, Grid> = skin_box
        .iter()
        .filter(|_| skinned_grids)
        .filter_map(|(k, b)| Some((*k, grid(b)?)))
        .collect();
    let mesh_grid: Vec<Option<Grid>> = (0..root.meshes.len())
        .map(|m| match skin_of.get(&m) {
            Some(k) => skin_grid.get(k).copied(),
            None => grid(&mesh_box[m]),
        })
        .collect();
    let uv_top = (1u32 << s.c.uv_bits) - 1;
    let uv_grid: BTreeMap<(usize, u32), UvGrid> = uv_box
        .iter()
        .filter(|(_, (lo, hi))| lo.iter().chain(hi).all(|x| x.is_finite()))
        .map(|(&key, &(lo, hi))| {
            let step = [0, 1].map(|k| {
                let extent = hi[k] - lo[k];
                if extent > 0.0 {
                    extent / uv_top as f32
                } else {
                    1.0 / uv_top as f32
                }
            });
            (
                key,
                UvGrid {
                    offset: lo,
                    step,
                    top: uv_top,
                },
            )
        })
        .collect();

    for (g, &target) in groups.iter().zip(&targets) {
        let reorder = g
            .iter()
            .all(|&(m, p)| alone(&s.root.meshes[m].primitives[p]));
        primitive(s, g, mesh_grid[target].as_ref(), &uv_grid, reorder)?;
    }
    // Each group's primitive moves to its mesh; merged members go.
    let grouped: std::collections::BTreeSet<(usize, usize)> =
        groups.iter().flatten().copied().collect();
    let old: Vec<Vec<json::mesh::Primitive>> = s
        .root
        .meshes
        .iter_mut()
        .map(|m| std::mem::take(&mut m.primitives))
        .collect();
    let mut new: Vec<Vec<json::mesh::Primitive>> = vec![Vec::new(); old.len()];
    for (m, prims) in old.iter().enumerate() {
        for (p, prim) in prims.iter().enumerate() {
            if !grouped.contains(&(m, p)) {
                new[m].push(prim.clone());
            }
        }
    }
    let mut merged = 0;
    let mut received = vec![false; old.len()];
    for (g, &target) in groups.iter().zip(&targets) {
        let (m, p) = g[0];
        // Every triangle collapsed (reported above): glTF has no empty accessors, so
        // the primitive goes (and an emptied mesh after it).
        let empty = old[m][p]
            .indices
            .and_then(|i| s.data.get(i.value()))
            .and_then(Option::as_ref)
            .is_some_and(|d| d.count == 0);
        if empty {
            continue;
        }
        new[target].push(old[m][p].clone());
        merged += g.len() - 1 + usize::from(target != m);
        if target != m {
            received[target] = true;
        }
    }
    for (m, prims) in new.into_iter().enumerate() {
        s.root.meshes[m].primitives = prims;
        if received[m] {
            // Several surfaces' mesh: neither surface's name is its own.
            s.root.meshes[m].name = None;
        }
    }
    for node in &mut s.root.nodes {
        if node
            .mesh
            .is_some_and(|m| received.get(m.value()).copied().unwrap_or(false))
        {
            node.name = None;
        }
    }
    if merged > 0 {
        s.dropped.push(meshfmt_core::Loss {
            feature: Feature::Names,
            kind: meshfmt_core::LossKind::Reduced,
            path: String::new(),
            reason: format!(
                "{merged} surfaces merged into others of the same material, skin and attributes (their names go; --quality meshopt-keep keeps them)"
            ),
        });
    }
    // The dequantization: mesh nodes (skinned ones ignore their transform) and skins.
    let dequant = |g: &Grid| {
        Mat4::from_scale_rotation_translation(
            Vec3::splat(g.step),
            Quat::IDENTITY,
            Vec3::from(g.offset),
        )
    };
    let animated: std::collections::BTreeSet<usize> = s
        .root
        .animations
        .iter()
        .flat_map(|a| a.channels.iter().map(|c| c.target.node.value()))
        .collect();
    let mut extra_nodes = Vec::new();
    for n in 0..s.root.nodes.len() {
        let node = &s.root.nodes[n];
        let Some(m) = node.mesh.map(|m| m.value()) else {
            continue;
        };
        if node.skin.is_some() {
            continue;
        }
        let Some(g) = mesh_grid.get(m).copied().flatten() else {
            continue;
        };
        let node = &mut s.root.nodes[n];
        let simple = node.children.is_none() && node.matrix.is_none() && !animated.contains(&n);
        if simple {
            // T R S · T(offset) S(step) = T(t + R S offset) R (S step).
            let t = Vec3::from(node.translation.unwrap_or([0.0; 3]));
            let r = node
                .rotation
                .map_or(Quat::IDENTITY, |q| Quat::from_array(q.0));
            let sc = Vec3::from(node.scale.unwrap_or([1.0; 3]));
            let t2 = t + r * (sc * Vec3::from(g.offset));
            node.translation = Some(t2.to_array());
            node.scale = Some((sc * g.step).to_array());
        } else {
            // The mesh moves to a child that holds the dequantization alone.
            let mesh = node.mesh.take();
            extra_nodes.push((n, mesh, g));
        }
    }
    for (parent, mesh, g) in extra_nodes {
        let child = json::Index::<json::Node>::new(s.root.nodes.len() as u32);
        s.root.nodes.push(json::Node {
            camera: None,
            children: None,
            matrix: None,
            mesh,
            name: None,
            rotation: None,
            scale: Some([g.step; 3]),
            translation: Some(g.offset),
            skin: None,
            weights: None,
            extensions: None,
            extras: Default::default(),
        });
        s.root.nodes[parent]
            .children
            .get_or_insert_with(Vec::new)
            .push(child);
    }
    for (k, g) in &skin_grid {
        let Some(ibm) = s.root.skins.get(*k).and_then(|sk| sk.inverse_bind_matrices) else {
            // No inverse bind matrices means identities: they become the dequantization.
            let joints = s.root.skins.get(*k).map_or(0, |sk| sk.joints.len());
            let d = dequant(g).to_cols_array();
            let matrices: Vec<f32> = (0..joints).flat_map(|_| d).collect();
            let index = s.root.accessors.len();
            s.root.accessors.push(json::Accessor {
                count: json::validation::USize64::from(joints),
                type_: Valid(Type::Mat4),
                ..super::layout::empty_accessor()
            });
            s.data.push(Some(Data::floats(&matrices, Type::Mat4)));
            if let Some(sk) = s.root.skins.get_mut(*k) {
                sk.inverse_bind_matrices = Some(json::Index::new(index as u32));
            }
            continue;
        };
        let r = raw(&s.root, s.bin, ibm.value())?;
        let d = dequant(g);
        let matrices: Vec<f32> = r
            .floats()
            .chunks_exact(16)
            .flat_map(|m| {
                let mut a = (Mat4::from_cols_slice(m) * d).to_cols_array();
                // glTF wants the last row exactly (0, 0, 0, 1).
                (a[3], a[7], a[11], a[15]) = (0.0, 0.0, 0.0, 1.0);
                a
            })
            .collect();
        s.data[ibm.value()] = Some(Data::floats(&matrices, Type::Mat4));
    }
    if s.root
        .materials
        .iter()
        .any(|m| [0u32, 1].iter().any(|&set| texture_infos_using(m, set)))
        && !uv_grid.is_empty()
    {
        for (&(mat, set), g) in &uv_grid {
            if let Some(m) = s.root.materials.get_mut(mat) {
                set_texture_transforms(m, set, g);
            }
        }
        s.used.insert("KHR_texture_transform");
        s.required.insert("KHR_texture_transform");
    }
    Ok(())
}

/// A group's primitives as one: attributes concatenated and quantized, identical
/// vertices welded, indices reordered for the vertex cache (strip-like order under
/// meshopt, which its index codec codes smaller) and vertices for fetch (first use).
/// The result goes in the first primitive's accessors.
fn primitive(
    s: &mut State<'_>,
    group: &[(usize, usize)],
    g: Option<&Grid>,
    uv_grid: &BTreeMap<(usize, u32), UvGrid>,
    reorder: bool,
) -> Result<(), CliError> {
    let (m, p) = group[0];
    let prim = s.root.meshes[m].primitives[p].clone();
    let path = format!("meshes[{m}].primitives[{p}]");
    let triangles = prim.mode == Valid(Mode::Triangles);
    let material = prim.material.map(|x| x.value());
    // Each attribute over the group, and the indices with each member's offset.
    let mut raws: Vec<(json::validation::Checked<Semantic>, usize, Raw)> = Vec::new();
    let mut counts = Vec::with_capacity(group.len());
    for (semantic, a) in &prim.attributes {
        let mut r = raw(&s.root, s.bin, a.value())?;
        for &(mm, pp) in &group[1..] {
            let other = s.root.meshes[mm].primitives[pp]
                .attributes
                .get(semantic)
                .ok_or_else(|| bad(format!("{path}: merged primitive lacks {semantic:?}")))?;
            let o = raw(&s.root, s.bin, other.value())?;
            r.bytes.to_mut().extend_from_slice(&o.bytes);
            r.count += o.count;
        }
        raws.push((semantic.clone(), a.value(), r));
    }
    for &(mm, pp) in group {
        let pos = s.root.meshes[mm].primitives[pp]
            .attributes
            .get(&Valid(Semantic::Positions))
            .ok_or_else(|| bad(format!("{path}: no POSITION")))?;
        // The count alone, checked against the view, without copying the data.
        counts.push(elements(&s.root, s.bin, pos.value())?.count);
    }
    let n: usize = counts.iter().sum();
    if let Some((_, a, r)) = raws.iter().find(|x| x.2.count != n) {
        return Err(bad(format!(
            "{path}: accessors[{a}] has {} elements for {n} vertices",
            r.count
        )));
    }
    let mut indices: Option<Vec<u32>> = None;
    if prim.indices.is_some() {
        let mut all = Vec::new();
        let mut base = 0u32;
        for (&(mm, pp), &count) in group.iter().zip(&counts) {
            let ia = s.root.meshes[mm].primitives[pp]
                .indices
                .ok_or_else(|| bad(format!("{path}: merged primitive without indices")))?;
            let idx = raw(&s.root, s.bin, ia.value())?.uints();
            if let Some(&bad_index) = idx.iter().find(|&&i| i as usize >= count) {
                return Err(bad(format!(
                    "meshes[{mm}].primitives[{pp}]: index {bad_index} out of range"
                )));
            }
            all.extend(idx.iter().map(|&i| i + base));
            base += count as u32;
        }
        indices = Some(all);
    }
    // Every attribute in its stored form.
    let mut out: Vec<(usize, Data, Option<json::validation::Checked<Semantic>>)> = Vec::new();
    for (semantic, a, r) in &raws {
        let d = match semantic {
            Valid(Semantic::Positions) => positions_data(s, r, g),
            Valid(Semantic::Normals) => directions(s, r, Feature::Normals),
            Valid(Semantic::Tangents) => directions(s, r, Feature::Tangents),
            Valid(Semantic::TexCoords(set)) => {
                match material.and_then(|mat| uv_grid.get(&(mat, *set))) {
                    Some(ug) => uvs(s, r, ug, *set),
                    None => copy(r),
                }
            }
            Valid(Semantic::Colors(_)) => colors(s, r),
            Valid(Semantic::Joints(_)) => joints(r),
            Valid(Semantic::Weights(_))
                if !prim.attributes.contains_key(&Valid(Semantic::Weights(1))) =>
            {
                weights(s, r)
            }
            _ => copy(r),
        };
        out.push((*a, d, Some(semantic.clone())));
    }
    for t in prim.targets.iter().flatten() {
        if let Some(a) = t.positions {
            let r = raw(&s.root, s.bin, a.value())?;
            out.push((a.value(), deltas(&r, g), None));
        }
        for a in [t.normals, t.tangents].into_iter().flatten() {
            let r = raw(&s.root, s.bin, a.value())?;
            out.push((a.value(), copy(&r), None));
        }
    }
    if out.iter().any(|(_, d, _)| d.count != n) {
        return Err(bad(format!(
            "{path}: an attribute's count differs from the vertex count"
        )));
    }
    // A weight that rounds to zero leaves its joint unused: glTF wants it 0 then.
    for set in 0..4u32 {
        let find = |sem: Semantic| out.iter().position(|x| x.2 == Some(Valid(sem.clone())));
        let (Some(j), Some(w)) = (find(Semantic::Joints(set)), find(Semantic::Weights(set))) else {
            continue;
        };
        if out[w].1.component != ComponentType::U8 {
            continue;
        }
        let weights = out[w].1.bytes.clone();
        let joints = &mut out[j].1;
        let size = joints.stride / 4;
        for (v, wb) in weights.chunks_exact(4).enumerate() {
            for (k, &x) in wb.iter().enumerate() {
                if x == 0 {
                    let at = v * joints.stride + k * size;
                    if let Some(b) = joints.bytes.get_mut(at..at + size) {
                        b.fill(0);
                    }
                }
            }
        }
    }
    if let Some(idx) = indices
        .as_mut()
        .filter(|i| reorder && triangles && i.len() % 3 == 0)
    {
        // Vertices equal in every stored attribute are one.
        let welded = weld(&out, n);
        for i in idx.iter_mut() {
            *i = welded.0[*i as usize];
        }
        // A triangle two of whose corners became one vertex draws nothing: it goes.
        let before = idx.len();
        let mut kept = 0;
        for t in 0..before / 3 {
            let [a, b, c] = [idx[3 * t], idx[3 * t + 1], idx[3 * t + 2]];
            if a != b && b != c && a != c {
                idx.copy_within(3 * t..3 * t + 3, kept);
                kept += 3;
            }
        }
        idx.truncate(kept);
        s.collapsed += (before - kept) / 3;
        let optimize = if s.c.meshopt {
            meshfmt_meshopt::optimize_vertex_cache_strip
        } else {
            meshfmt_meshopt::optimize_vertex_cache
        };
        optimize(idx, welded.1).map_err(|e| bad(format!("{path}: {e}")))?;
        let r = meshfmt_meshopt::optimize_vertex_fetch_remap(idx, welded.1)
            .map_err(|e| bad(format!("{path}: {e}")))?;
        meshfmt_meshopt::remap_index_buffer(idx, &r.0);
        // Welded, then fetch order: each stream moved once, by the two maps composed.
        let both: Vec<u32> = welded
            .0
            .iter()
            .map(|&w| r.0.get(w as usize).copied().unwrap_or(u32::MAX))
            .collect();
        let both = (both, r.1);
        for (_, d, _) in &mut out {
            remap_stream(d, &both);
        }
    }
    let vertices = out.first().map_or(n, |x| x.1.count);
    for (a, mut d, _) in out {
        bounds(&mut d);
        s.data[a] = Some(d);
    }
    if let (Some(ia), Some(idx)) = (prim.indices, indices) {
        let (component, bytes) = if vertices <= usize::from(u16::MAX) {
            (
                ComponentType::U16,
                idx.iter()
                    .flat_map(|&i| (i as u16).to_le_bytes())
                    .collect::<Vec<u8>>(),
            )
        } else {
            (
                ComponentType::U32,
                idx.iter().flat_map(|i| i.to_le_bytes()).collect(),
            )
        };
        let stride = if component == ComponentType::U16 {
            2
        } else {
            4
        };
        let d = Data::new(
            bytes,
            idx.len(),
            component,
            Type::Scalar,
            false,
            stride,
            Kind::Index,
        );
        s.data[ia.value()] = Some(d);
    }
    Ok(())
}

/// Old vertex -> its first identical vertex's new number, and the count of distinct
/// ones: each vertex's bytes in every stream side by side, then an open-addressing
/// table of vertex numbers (no allocation per vertex).
fn weld(
    out: &[(usize, Data, Option<json::validation::Checked<Semantic>>)],
    n: usize,
) -> (Vec<u32>, usize) {
    let width: usize = out.iter().map(|(_, d, _)| d.stride).sum();
    let mut keys = vec![0u8; n * width];
    let mut at = 0;
    for (_, d, _) in out {
        for (v, e) in d.bytes.chunks_exact(d.stride).enumerate().take(n) {
            keys[v * width + at..v * width + at + d.stride].copy_from_slice(e);
        }
        at += d.stride;
    }
    let key = |v: usize| &keys[v * width..(v + 1) * width];
    let hash = |k: &[u8]| {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut chunks = k.chunks_exact(8);
        for c in &mut chunks {
            h = (h ^ u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .wrapping_mul(0x0100_0000_01b3);
            h ^= h >> 29;
        }
        for &b in chunks.remainder() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        h ^ (h >> 32)
    };
    let size = (n * 2).next_power_of_two().max(16);
    let mask = size - 1;
    let mut table = vec![u32::MAX; size];
    let mut map = vec![0u32; n];
    let mut next = 0u32;
    for v in 0..n {
        let k = key(v);
        let mut slot = hash(k) as usize & mask;
        loop {
            let t = table[slot];
            if t == u32::MAX {
                table[slot] = v as u32;
                map[v] = next;
                next += 1;
                break;
            }
            if key(t as usize) == k {
                map[v] = map[t as usize];
                break;
            }
            slot = (slot + 1) & mask;
        }
    }
    (map, next as usize)
}

/// Moves a stream's vertices (`remap[old] = new`, `u32::MAX` to drop).
fn remap_stream(d: &mut Data, remap: &(Vec<u32>, usize)) {
    d.bytes = moved(&d.bytes, d.stride, remap);
    d.count = remap.1;
}

/// min/max again, for the streams that carry them (vertices may have gone).
fn bounds(d: &mut Data) {
    if d.bounds.is_none() || d.count == 0 {
        return;
    }
    let comps = super::read::components(d.ty);
    let size = super::read::component_size(d.component);
    let mut lo = vec![f32::INFINITY; comps];
    let mut hi = vec![f32::NEG_INFINITY; comps];
    for e in d.bytes.chunks_exact(d.stride) {
        for k in 0..comps {
            let b = &e[k * size..k * size + size];
            let x = match d.component {
                ComponentType::U16 => f32::from(u16::from_le_bytes([b[0], b[1]])),
                ComponentType::I16 => f32::from(i16::from_le_bytes([b[0], b[1]])),
                ComponentType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                ComponentType::U8 => f32::from(b[0]),
                ComponentType::I8 => f32::from(b[0] as i8),
                ComponentType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
            };
            lo[k] = lo[k].min(x);
            hi[k] = hi[k].max(x);
        }
    }
    d.bounds = Some((lo, hi));
}

/// Positions or deltas kept as floats (skinned, without meshopt): min/max, which glTF
/// requires of them, are computed once the vertices are final.
fn floats_with_bounds(r: &Raw) -> Data {
    let mut d = copy(r);
    d.bounds = Some((Vec::new(), Vec::new()));
    d
}

/// An attribute as stored, elements padded to 4 bytes.
fn copy(r: &Raw) -> Data {
    let stride = r.elem.next_multiple_of(4);
    let bytes = padded(&r.bytes, r.elem, stride);
    Data::new(
        bytes,
        r.count,
        r.component,
        r.ty,
        r.normalized,
        stride,
        Kind::Vertex,
    )
}

fn positions_data(s: &mut State<'_>, r: &Raw, g: Option<&Grid>) -> Data {
    let Some(g) = g else {
        return floats_with_bounds(r);
    };
    let v = r.floats();
    let count = v.len() / 3;
    let mut bytes = Vec::with_capacity(count * 8);
    let (mut lo, mut hi) = ([u16::MAX; 3], [0u16; 3]);
    let mut worst = 0.0f32;
    for p in v.chunks_exact(3) {
        let p = [p[0], p[1], p[2]];
        let q = g.quantize(p);
        let back = g.dequantize(q);
        for k in 0..3 {
            worst = worst.max((back[k] - p[k]).abs());
            lo[k] = lo[k].min(q[k]);
            hi[k] = hi[k].max(q[k]);
            bytes.extend_from_slice(&q[k].to_le_bytes());
        }
        bytes.extend_from_slice(&[0, 0]);
    }
    s.errors.note(
        Feature::Geometry,
        "positions",
        g.bound(),
        worst,
        format!(
            "{} bits over each mesh's box (a skin's meshes share one), uint16",
            s.c.position_bits
        ),
    );
    let mut d = Data::new(
        bytes,
        count,
        ComponentType::U16,
        Type::Vec3,
        false,
        8,
        Kind::Vertex,
    );
    if count > 0 {
        d.bounds = Some((lo.map(f32::from).to_vec(), hi.map(f32::from).to_vec()));
    }
    d
}

/// Normals (VEC3) and tangents (VEC4, w the handedness): octahedral under meshopt,
/// else signed normalized components.
fn directions(s: &mut State<'_>, r: &Raw, feature: Feature) -> Data {
    let n = if r.ty == Type::Vec4 { 4 } else { 3 };
    if r.component != ComponentType::F32 || !(n == 3 || r.ty == Type::Vec4) {
        return copy(r);
    }
    let v = r.floats();
    let count = v.len() / n;
    let bits = s.c.normal_bits.clamp(2, 16);
    let wide = bits > 8;
    let (component, stride) = if wide {
        (ComponentType::I16, 8)
    } else {
        (ComponentType::I8, 4)
    };
    let what = if feature == Feature::Normals {
        "normals"
    } else {
        "tangents"
    };
    let mut worst = 0.0f32;
    if s.c.meshopt {
        let mut four = Vec::with_capacity(count * 4);
        for e in v.chunks_exact(n) {
            four.extend_from_slice(&[e[0], e[1], e[2], if n == 4 { e[3] } else { 0.0 }]);
        }
        let encoded = meshfmt_meshopt::encode_filter_oct(&four, count, stride, bits);
        let Ok(bytes) = encoded else {
            return copy(r);
        };
        let mut decoded = bytes.clone();
        if meshfmt_meshopt::decode_filter_oct(&mut decoded, count, stride).is_ok() {
            let size = stride / 4;
            let top = if wide { 32767.0 } else { 127.0 };
            for (e, o) in decoded.chunks_exact(stride).zip(four.chunks_exact(4)) {
                let c = |k: usize| -> f32 {
                    if size == 1 {
                        f32::from(e[k] as i8) / top
                    } else {
                        f32::from(i16::from_le_bytes([e[2 * k], e[2 * k + 1]])) / top
                    }
                };
                worst = worst.max(angle_deg([c(0), c(1), c(2)], [o[0], o[1], o[2]]));
            }
        }
        let mut d = Data::new(bytes, count, component, r.ty, true, stride, Kind::Vertex);
        d.filter = super::Filter::Octahedral;
        s.errors.note(
            feature,
            what,
            oct_bound_deg(bits),
            worst,
            format!("{bits}-bit octahedral (meshopt filter), degrees"),
        );
        d
    } else {
        let mut bytes = Vec::with_capacity(count * stride);
        for e in v.chunks_exact(n) {
            let q: [i32; 4] = std::array::from_fn(|k| {
                if k < 3 || n == 4 {
                    snorm(e[k], bits)
                } else {
                    0
                }
            });
            let top = ((1i32 << (bits - 1)) - 1) as f32;
            worst = worst.max(angle_deg(
                [q[0] as f32 / top, q[1] as f32 / top, q[2] as f32 / top],
                [e[0], e[1], e[2]],
            ));
            for x in q {
                if wide {
                    bytes.extend_from_slice(&(x as i16).to_le_bytes());
                } else {
                    bytes.push(x as i8 as u8);
                }
            }
        }
        s.errors.note(
            feature,
            what,
            snorm_bound_deg(bits),
            worst,
            format!("{bits}-bit signed normalized components, degrees"),
        );
        Data::new(bytes, count, component, r.ty, true, stride, Kind::Vertex)
    }
}

/// The angle a unit vector's snorm components can turn by: each off by half a step.
fn snorm_bound_deg(bits: u32) -> f32 {
    let half = 0.5 / ((1i32 << (bits - 1)) - 1) as f32;
    // Three components each off by `half`: the direction moves by at most
    // asin(|e|) with |e| <= sqrt(3) half, over a vector at least 1 - sqrt(3) half long.
    let e = 3f32.sqrt() * half;
    (e / (1.0 - e)).min(1.0).asin().to_degrees()
}

/// The octahedral filter's bound: its two components each off by half a step of
/// `bits` bits over [-1, 1] on the octahedron, which the projection to the sphere
/// stretches by at most 2 (measured, not assumed: the tests check it).
fn oct_bound_deg(bits: u32) -> f32 {
    let half = 1.0 / ((1i32 << (bits - 1)) - 1) as f32;
    (2.0 * half * std::f32::consts::SQRT_2)
        .min(1.0)
        .asin()
        .to_degrees()
}

fn uvs(s: &mut State<'_>, r: &Raw, g: &UvGrid, set: u32) -> Data {
    let v = r.floats();
    let count = v.len() / 2;
    let mut bytes = Vec::with_capacity(count * 4);
    let mut worst = 0.0f32;
    for e in v.chunks_exact(2) {
        for (k, &x) in e.iter().enumerate() {
            let q = unorm((x - g.offset[k]) / (g.step[k] * g.top as f32), s.c.uv_bits).min(g.top);
            // What a renderer computes: offset + scale * (q / 65535).
            let back = g.offset[k] + g.step[k] * 65535.0 * (q as f32 / 65535.0);
            worst = worst.max((back - x).abs());
            bytes.extend_from_slice(&(q as u16).to_le_bytes());
        }
    }
    let bound = g.step[0].max(g.step[1]) * 0.5
        + 4.0
            * f32::EPSILON
            * (g.offset[0].abs().max(g.offset[1].abs()) + g.step[0].max(g.step[1]) * g.top as f32);
    s.errors.note(
        if set == 0 { Feature::Uv0 } else { Feature::Uv1 },
        if set == 0 { "UV set 0" } else { "UV set 1" },
        bound,
        worst,
        format!(
            "{} bits over each material's UV box (KHR_texture_transform), uint16 normalized",
            s.c.uv_bits
        ),
    );
    Data::new(
        bytes,
        count,
        ComponentType::U16,
        Type::Vec2,
        true,
        4,
        Kind::Vertex,
    )
}

fn colors(s: &mut State<'_>, r: &Raw) -> Data {
    let n = if r.ty == Type::Vec3 { 3 } else { 4 };
    let v = r.floats();
    let count = v.len() / n;
    let mut bytes = Vec::with_capacity(count * 4);
    let mut worst = 0.0f32;
    // The 256 values readers decode, once (a division per component was most of this).
    let back: [f32; 256] = std::array::from_fn(|q| unorm8::decode(q as u8));
    for e in v.chunks_exact(n) {
        for &x in e {
            let q = unorm8::encode(x, Rounding::Nearest);
            worst = worst.max((back[usize::from(q)] - x.clamp(0.0, 1.0)).abs());
            bytes.push(q);
        }
        if n == 3 {
            bytes.push(255);
        }
    }
    s.errors.note(
        Feature::Colors,
        "colors",
        unorm8::max_error(Rounding::Nearest) + 1e-7,
        worst,
        "8-bit normalized".into(),
    );
    Data::new(bytes, count, ComponentType::U8, r.ty, true, 4, Kind::Vertex)
}

fn joints(r: &Raw) -> Data {
    let v = r.uints();
    let small = v.iter().all(|&j| j < 256);
    let (component, size) = if small {
        (ComponentType::U8, 1)
    } else {
        (ComponentType::U16, 2)
    };
    let bytes: Vec<u8> = v
        .iter()
        .flat_map(|&j| {
            if small {
                vec![j as u8]
            } else {
                (j as u16).to_le_bytes().to_vec()
            }
        })
        .collect();
    let elem = 4 * size;
    let out = padded(&bytes, elem, elem.next_multiple_of(4));
    let count = out.len() / elem.next_multiple_of(4);
    Data::new(
        out,
        count,
        component,
        Type::Vec4,
        false,
        elem.next_multiple_of(4),
        Kind::Vertex,
    )
}

fn weights(s: &mut State<'_>, r: &Raw) -> Data {
    let v = r.floats();
    let count = v.len() / 4;
    let mut bytes = Vec::with_capacity(count * 4);
    let mut worst = 0.0f32;
    for e in v.chunks_exact(4) {
        let q = weights_u8([e[0], e[1], e[2], e[3]]);
        for k in 0..4 {
            worst = worst.max((f32::from(q[k]) / 255.0 - e[k]).abs());
        }
        bytes.extend_from_slice(&q);
    }
    s.errors.note(
        Feature::Skin,
        "weights",
        1.0 / 255.0,
        worst,
        "8-bit normalized, each vertex's summing to exactly 255".into(),
    );
    Data::new(
        bytes,
        count,
        ComponentType::U8,
        Type::Vec4,
        true,
        4,
        Kind::Vertex,
    )
}

/// Morph position deltas in grid steps (the node's scale applies to them too): 16-bit
/// integers where they fit, else floats.
fn deltas(r: &Raw, g: Option<&Grid>) -> Data {
    let Some(g) = g else {
        return floats_with_bounds(r);
    };
    let v = r.floats();
    let count = v.len() / 3;
    let steps: Vec<f32> = v.iter().map(|x| x / g.step).collect();
    let fits = steps.iter().all(|x| x.abs() <= 32767.0);
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    let mut bytes = Vec::with_capacity(count * if fits { 8 } else { 12 });
    for e in steps.chunks_exact(3) {
        for k in 0..3 {
            let x = if fits { e[k].round() } else { e[k] };
            lo[k] = lo[k].min(x);
            hi[k] = hi[k].max(x);
            if fits {
                bytes.extend_from_slice(&(x as i16).to_le_bytes());
            } else {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
        }
        if fits {
            bytes.extend_from_slice(&[0, 0]);
        }
    }
    let mut d = if fits {
        Data::new(
            bytes,
            count,
            ComponentType::I16,
            Type::Vec3,
            false,
            8,
            Kind::Vertex,
        )
    } else {
        Data::new(
            bytes,
            count,
            ComponentType::F32,
            Type::Vec3,
            false,
            12,
            Kind::Vertex,
        )
    };
    if count > 0 {
        d.bounds = Some((lo.to_vec(), hi.to_vec()));
    }
    d
}
