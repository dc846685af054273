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

use super::quantize::{Grid, angle_deg, snorm, unorm, weights_u8};
use super::read::{Raw, raw};
use super::{Data, Filter, Kind, State};
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

/// The textures of a material that read UV set `set`.
fn texture_infos_using(m: &json::Material, set: u32) -> bool {
    let pbr = &m.pbr_metallic_roughness;
    pbr.base_color_texture.as_ref().is_some_and(|t| t.tex_coord == set)
        || pbr
            .metallic_roughness_texture
            .as_ref()
            .is_some_and(|t| t.tex_coord == set)
        || m.normal_texture.as_ref().is_some_and(|t| t.tex_coord == set)
        || m.occlusion_texture.as_ref().is_some_and(|t| t.tex_coord == set)
        || m.emissive_texture.as_ref().is_some_and(|t| t.tex_coord == set)
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
    let put = |ext: &mut Option<json::extensions::texture::Info>| {
        ext.get_or_insert_with(Default::default)
            .others
            .insert("KHR_texture_transform".into(), value.clone());
    };
    let pbr = &mut m.pbr_metallic_roughness;
    for t in [&mut pbr.base_color_texture, &mut pbr.metallic_roughness_texture, &mut m.emissive_texture]
        .into_iter()
        .flatten()
    {
        if t.tex_coord == set {
            put(&mut t.extensions);
        }
    }
    if let Some(t) = m.normal_texture.as_mut().filter(|t| t.tex_coord == set) {
        t.extensions
            .get_or_insert_with(Default::default)
            .others
            .insert("KHR_texture_transform".into(), value.clone());
    }
    if let Some(t) = m.occlusion_texture.as_mut().filter(|t| t.tex_coord == set) {
        t.extensions
            .get_or_insert_with(Default::default)
            .others
            .insert("KHR_texture_transform".into(), value.clone());
    }
}

/// Elements of `elem` bytes moved to their new places (`remap[old] = new`, `u32::MAX`
/// for a vertex no triangle uses), padded to `stride`.
fn remap_bytes(bytes: &[u8], elem: usize, stride: usize, remap: Option<&(Vec<u32>, usize)>) -> Vec<u8> {
    match remap {
        None => {
            if stride == elem {
                return bytes.to_vec();
            }
            let mut out = vec![0; bytes.len() / elem * stride];
            for (i, e) in bytes.chunks_exact(elem).enumerate() {
                out[i * stride..i * stride + elem].copy_from_slice(e);
            }
            out
        }
        Some((map, unique)) => {
            let mut out = vec![0; unique * stride];
            for (e, &to) in bytes.chunks_exact(elem).zip(map) {
                if let Some(dst) = out.get_mut(to as usize * stride..to as usize * stride + elem) {
                    dst.copy_from_slice(e);
                }
            }
            out
        }
    }
}

/// Values (`n` per element) moved to their new places.
fn remap_floats(v: &[f32], n: usize, remap: Option<&(Vec<u32>, usize)>) -> Vec<f32> {
    match remap {
        None => v.to_vec(),
        Some((map, unique)) => {
            let mut out = vec![0.0; unique * n];
            for (e, &to) in v.chunks_exact(n).zip(map) {
                if let Some(dst) = out.get_mut(to as usize * n..to as usize * n + n) {
                    dst.copy_from_slice(e);
                }
            }
            out
        }
    }
}

fn data(bytes: Vec<u8>, count: usize, component: ComponentType, ty: Type, normalized: bool, stride: usize) -> Data {
    Data {
        bytes,
        count,
        component,
        ty,
        normalized,
        stride,
        kind: Kind::Vertex,
        filter: Filter::None,
        bounds: None,
    }
}

/// Rewrites every mesh's primitives.
pub(crate) fn meshes(s: &mut State<'_>) -> Result<(), CliError> {
    let root = &s.root;
    // Which skin (if any) each mesh is drawn with, and how many primitives use each
    // accessor (one that is shared is not reordered for one user alone).
    let mut skin_of: BTreeMap<usize, usize> = BTreeMap::new();
    for node in &root.nodes {
        if let (Some(m), Some(k)) = (node.mesh, node.skin) {
            skin_of.insert(m.value(), k.value());
        }
    }
    let mut uses = vec![0usize; root.accessors.len()];
    for mesh in &root.meshes {
        for p in &mesh.primitives {
            let mut seen: Vec<usize> = p.attributes.values().map(|a| a.value()).collect();
            seen.extend(p.indices.map(|i| i.value()));
            for t in p.targets.iter().flatten() {
                seen.extend([t.positions, t.normals, t.tangents].into_iter().flatten().map(|a| a.value()));
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
    // Position boxes: per skin (all its meshes), else per mesh.
    let mut skin_box: BTreeMap<usize, Option<Bounds3>> = BTreeMap::new();
    let mut mesh_box: Vec<Option<Bounds3>> = vec![None; root.meshes.len()];
    // UV boxes per (material, set), for materials with a texture reading that set.
    let mut uv_box: BTreeMap<(usize, u32), ([f32; 2], [f32; 2])> = BTreeMap::new();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for p in &mesh.primitives {
            if let Some(a) = p.attributes.get(&Valid(Semantic::Positions)) {
                let pos = raw(root, s.bin, a.value())?.floats();
                let target = match skin_of.get(&m) {
                    Some(k) => skin_box.entry(*k).or_default(),
                    None => &mut mesh_box[m],
                };
                for v in pos.chunks_exact(3) {
                    grow3(target, v);
                }
            }
            let Some(mat) = p.material.map(|x| x.value()) else { continue };
            let Some(material) = root.materials.get(mat) else { continue };
            for set in 0..2u32 {
                let Some(a) = p.attributes.get(&Valid(Semantic::TexCoords(set))) else { continue };
                if !texture_infos_using(material, set) {
                    continue;
                }
                let uv = raw(root, s.bin, a.value())?.floats();
                let e = uv_box
                    .entry((mat, set))
                    .or_insert(([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]));
                for v in uv.chunks_exact(2) {
                    for k in 0..2 {
                        e.0[k] = e.0[k].min(v[k]);
                        e.1[k] = e.1[k].max(v[k]);
                    }
                }
            }
        }
    }
    let bits = s.c.position_bits;
    let grid = |b: &Option<Bounds3>| b.map(|(lo, hi)| Grid::new(lo, hi, bits));
    let skin_grid: BTreeMap<usize, Grid> = skin_box
        .iter()
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
                if extent > 0.0 { extent / uv_top as f32 } else { 1.0 / uv_top as f32 }
            });
            (key, UvGrid { offset: lo, step, top: uv_top })
        })
        .collect();

    for m in 0..s.root.meshes.len() {
        let Some(g) = mesh_grid[m] else { continue };
        for p in 0..s.root.meshes[m].primitives.len() {
            primitive(s, m, p, &g, &uv_grid, &uses)?;
        }
    }
    // The dequantization: mesh nodes (skinned ones ignore their transform) and skins.
    let dequant = |g: &Grid| Mat4::from_scale_rotation_translation(Vec3::splat(g.step), Quat::IDENTITY, Vec3::from(g.offset));
    let animated: std::collections::BTreeSet<usize> = s
        .root
        .animations
        .iter()
        .flat_map(|a| a.channels.iter().map(|c| c.target.node.value()))
        .collect();
    let mut extra_nodes = Vec::new();
    for n in 0..s.root.nodes.len() {
        let node = &s.root.nodes[n];
        let Some(m) = node.mesh.map(|m| m.value()) else { continue };
        if node.skin.is_some() {
            continue;
        }
        let Some(g) = mesh_grid.get(m).copied().flatten() else { continue };
        let node = &mut s.root.nodes[n];
        let simple = node.children.is_none() && node.matrix.is_none() && !animated.contains(&n);
        if simple {
            // T R S · T(offset) S(step) = T(t + R S offset) R (S step).
            let t = Vec3::from(node.translation.unwrap_or([0.0; 3]));
            let r = node.rotation.map_or(Quat::IDENTITY, |q| Quat::from_array(q.0));
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
        s.root.nodes[parent].children.get_or_insert_with(Vec::new).push(child);
    }
    for (k, g) in &skin_grid {
        let Some(ibm) = s.root.skins.get(*k).and_then(|sk| sk.inverse_bind_matrices) else {
            // No inverse bind matrices means identities: they become the dequantization.
            let joints = s.root.skins.get(*k).map_or(0, |sk| sk.joints.len());
            let d = dequant(g).to_cols_array();
            let bytes: Vec<u8> = (0..joints).flat_map(|_| d).flat_map(f32::to_le_bytes).collect();
            let index = s.root.accessors.len();
            s.root.accessors.push(json::Accessor {
                buffer_view: None,
                byte_offset: None,
                count: json::validation::USize64::from(joints),
                component_type: Valid(json::accessor::GenericComponentType(ComponentType::F32)),
                type_: Valid(Type::Mat4),
                min: None,
                max: None,
                name: None,
                normalized: false,
                sparse: None,
                extensions: None,
                extras: Default::default(),
            });
            let mut d = data(bytes, joints, ComponentType::F32, Type::Mat4, false, 64);
            d.kind = Kind::Plain;
            s.data.push(Some(d));
            if let Some(sk) = s.root.skins.get_mut(*k) {
                sk.inverse_bind_matrices = Some(json::Index::new(index as u32));
            }
            continue;
        };
        let r = raw(&s.root, s.bin, ibm.value())?;
        let d = dequant(g);
        let bytes: Vec<u8> = r
            .floats()
            .chunks_exact(16)
            .flat_map(|m| {
                let mut a = (Mat4::from_cols_slice(m) * d).to_cols_array();
                // glTF wants the last row exactly (0, 0, 0, 1).
                (a[3], a[7], a[11], a[15]) = (0.0, 0.0, 0.0, 1.0);
                a
            })
            .flat_map(f32::to_le_bytes)
            .collect();
        let mut d = data(bytes, r.count, ComponentType::F32, Type::Mat4, false, 64);
        d.kind = Kind::Plain;
        s.data[ibm.value()] = Some(d);
    }
    if s.root.materials.iter().any(|m| {
        [0u32, 1].iter().any(|&set| texture_infos_using(m, set))
    }) && !uv_grid.is_empty()
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

/// One primitive's indices and attributes.
fn primitive(
    s: &mut State<'_>,
    m: usize,
    p: usize,
    g: &Grid,
    uv_grid: &BTreeMap<(usize, u32), UvGrid>,
    uses: &[usize],
) -> Result<(), CliError> {
    let prim = s.root.meshes[m].primitives[p].clone();
    let path = format!("meshes[{m}].primitives[{p}]");
    let Some(pos) = prim.attributes.get(&Valid(Semantic::Positions)).copied() else {
        return Ok(());
    };
    let positions = raw(&s.root, s.bin, pos.value())?;
    let n = positions.count;
    let triangles = prim.mode == Valid(Mode::Triangles);
    let mut accessors: Vec<usize> = prim.attributes.values().map(|a| a.value()).collect();
    for t in prim.targets.iter().flatten() {
        accessors.extend([t.positions, t.normals, t.tangents].into_iter().flatten().map(|a| a.value()));
    }
    let alone = accessors.iter().all(|&a| uses.get(a) == Some(&1))
        && prim.indices.is_none_or(|i| uses.get(i.value()) == Some(&1));
    // Indices: reordered for the vertex cache (strip-like order under meshopt, which
    // its index codec codes smaller), then vertices in first-use order.
    let mut remap = None;
    if let Some(ia) = prim.indices {
        let mut indices = raw(&s.root, s.bin, ia.value())?.uints();
        if let Some(&bad_index) = indices.iter().find(|&&i| i as usize >= n) {
            return Err(bad(format!("{path}: index {bad_index} out of range")));
        }
        if triangles && alone && indices.len() % 3 == 0 {
            let optimize = if s.c.meshopt {
                meshfmt_meshopt::optimize_vertex_cache_strip
            } else {
                meshfmt_meshopt::optimize_vertex_cache
            };
            optimize(&mut indices, n).map_err(|e| bad(format!("{path}: {e}")))?;
            let r = meshfmt_meshopt::optimize_vertex_fetch_remap(&indices, n)
                .map_err(|e| bad(format!("{path}: {e}")))?;
            meshfmt_meshopt::remap_index_buffer(&mut indices, &r.0);
            remap = Some(r);
        }
        let vertices = remap.as_ref().map_or(n, |r| r.1);
        let (component, bytes) = if vertices <= usize::from(u16::MAX) {
            (ComponentType::U16, indices.iter().flat_map(|&i| (i as u16).to_le_bytes()).collect::<Vec<u8>>())
        } else {
            (ComponentType::U32, indices.iter().flat_map(|i| i.to_le_bytes()).collect())
        };
        let stride = if component == ComponentType::U16 { 2 } else { 4 };
        let mut d = data(bytes, indices.len(), component, Type::Scalar, false, stride);
        d.kind = Kind::Index;
        s.data[ia.value()] = Some(d);
    }
    let remap = remap.as_ref();
    let material = prim.material.map(|x| x.value());
    for (semantic, a) in &prim.attributes {
        let a = a.value();
        let r = raw(&s.root, s.bin, a)?;
        if r.count != n {
            return Err(bad(format!("{path}: accessors[{a}] has {} elements for {n} vertices", r.count)));
        }
        let d = match semantic {
            Valid(Semantic::Positions) => positions_data(s, &r, g, remap),
            Valid(Semantic::Normals) => directions(s, &r, remap, Feature::Normals),
            Valid(Semantic::Tangents) => directions(s, &r, remap, Feature::Tangents),
            Valid(Semantic::TexCoords(set)) => {
                match material.and_then(|mat| uv_grid.get(&(mat, *set))) {
                    Some(ug) => uvs(s, &r, ug, remap, *set),
                    None => copy(&r, remap),
                }
            }
            Valid(Semantic::Colors(_)) => colors(s, &r, remap),
            Valid(Semantic::Joints(_)) => joints(&r, remap),
            Valid(Semantic::Weights(_)) if !prim.attributes.contains_key(&Valid(Semantic::Weights(1))) => {
                weights(s, &r, remap)
            }
            _ => copy(&r, remap),
        };
        s.data[a] = Some(d);
    }
    // A weight that rounds to zero leaves its joint unused: glTF wants it 0 then.
    for set in 0..4u32 {
        let (Some(j), Some(w)) = (
            prim.attributes.get(&Valid(Semantic::Joints(set))),
            prim.attributes.get(&Valid(Semantic::Weights(set))),
        ) else {
            continue;
        };
        let weights = match &s.data[w.value()] {
            Some(d) if d.component == ComponentType::U8 => d.bytes.clone(),
            _ => continue,
        };
        if let Some(joints) = s.data[j.value()].as_mut() {
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
    }
    for t in prim.targets.iter().flatten() {
        if let Some(a) = t.positions {
            let r = raw(&s.root, s.bin, a.value())?;
            s.data[a.value()] = Some(deltas(&r, g, remap));
        }
        for a in [t.normals, t.tangents].into_iter().flatten() {
            let r = raw(&s.root, s.bin, a.value())?;
            s.data[a.value()] = Some(copy(&r, remap));
        }
    }
    Ok(())
}

/// An attribute as stored, vertices reordered, elements padded to 4 bytes.
fn copy(r: &Raw, remap: Option<&(Vec<u32>, usize)>) -> Data {
    let stride = r.elem.next_multiple_of(4);
    let bytes = remap_bytes(&r.bytes, r.elem, stride, remap);
    let mut d = data(bytes, 0, r.component, r.ty, r.normalized, stride);
    d.count = d.bytes.len() / stride;
    d
}

fn positions_data(s: &mut State<'_>, r: &Raw, g: &Grid, remap: Option<&(Vec<u32>, usize)>) -> Data {
    let v = remap_floats(&r.floats(), 3, remap);
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
        format!("{} bits over each mesh's box (a skin's meshes share one), uint16", s.c.position_bits),
    );
    let mut d = data(bytes, count, ComponentType::U16, Type::Vec3, false, 8);
    if count > 0 {
        d.bounds = Some((lo.map(f32::from).to_vec(), hi.map(f32::from).to_vec()));
    }
    d
}

/// Normals (VEC3) and tangents (VEC4, w the handedness): octahedral under meshopt,
/// else signed normalized components.
fn directions(s: &mut State<'_>, r: &Raw, remap: Option<&(Vec<u32>, usize)>, feature: Feature) -> Data {
    let n = if r.ty == Type::Vec4 { 4 } else { 3 };
    if r.component != ComponentType::F32 || !(n == 3 || r.ty == Type::Vec4) {
        return copy(r, remap);
    }
    let v = remap_floats(&r.floats(), n, remap);
    let count = v.len() / n;
    let bits = s.c.normal_bits.clamp(2, 16);
    let wide = bits > 8;
    let (component, stride) = if wide { (ComponentType::I16, 8) } else { (ComponentType::I8, 4) };
    let what = if feature == Feature::Normals { "normals" } else { "tangents" };
    let mut worst = 0.0f32;
    let d = if s.c.meshopt {
        let mut four = Vec::with_capacity(count * 4);
        for e in v.chunks_exact(n) {
            four.extend_from_slice(&[e[0], e[1], e[2], if n == 4 { e[3] } else { 0.0 }]);
        }
        let encoded = meshfmt_meshopt::encode_filter_oct(&four, count, stride, bits);
        let Ok(bytes) = encoded else { return copy(r, remap) };
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
        let mut d = data(bytes, count, component, r.ty, true, stride);
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
            let q: Vec<i32> = (0..4)
                .map(|k| if k < 3 { snorm(e[k], bits) } else if n == 4 { snorm(e[3], bits) } else { 0 })
                .collect();
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
        data(bytes, count, component, r.ty, true, stride)
    };
    d
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
    (2.0 * half * std::f32::consts::SQRT_2).min(1.0).asin().to_degrees()
}

fn uvs(s: &mut State<'_>, r: &Raw, g: &UvGrid, remap: Option<&(Vec<u32>, usize)>, set: u32) -> Data {
    let v = remap_floats(&r.floats(), 2, remap);
    let count = v.len() / 2;
    let mut bytes = Vec::with_capacity(count * 4);
    let mut worst = 0.0f32;
    for e in v.chunks_exact(2) {
        for k in 0..2 {
            let q = unorm((e[k] - g.offset[k]) / (g.step[k] * g.top as f32), s.c.uv_bits).min(g.top);
            // What a renderer computes: offset + scale * (q / 65535).
            let back = g.offset[k] + g.step[k] * 65535.0 * (q as f32 / 65535.0);
            worst = worst.max((back - e[k]).abs());
            bytes.extend_from_slice(&(q as u16).to_le_bytes());
        }
    }
    let bound = g.step[0].max(g.step[1]) * 0.5
        + 4.0 * f32::EPSILON * (g.offset[0].abs().max(g.offset[1].abs()) + g.step[0].max(g.step[1]) * g.top as f32);
    s.errors.note(
        if set == 0 { Feature::Uv0 } else { Feature::Uv1 },
        if set == 0 { "UV set 0" } else { "UV set 1" },
        bound,
        worst,
        format!("{} bits over each material's UV box (KHR_texture_transform), uint16 normalized", s.c.uv_bits),
    );
    data(bytes, count, ComponentType::U16, Type::Vec2, true, 4)
}

fn colors(s: &mut State<'_>, r: &Raw, remap: Option<&(Vec<u32>, usize)>) -> Data {
    let n = if r.ty == Type::Vec3 { 3 } else { 4 };
    let v = remap_floats(&r.floats(), n, remap);
    let count = v.len() / n;
    let mut bytes = Vec::with_capacity(count * 4);
    let mut worst = 0.0f32;
    for e in v.chunks_exact(n) {
        for k in 0..4 {
            if k < n {
                let q = unorm(e[k], 8);
                worst = worst.max((q as f32 / 255.0 - e[k].clamp(0.0, 1.0)).abs());
                bytes.push(q as u8);
            } else {
                bytes.push(255);
            }
        }
    }
    s.errors.note(Feature::Colors, "colors", 0.5 / 255.0 + 1e-7, worst, "8-bit normalized".into());
    data(bytes, count, ComponentType::U8, r.ty, true, 4)
}

fn joints(r: &Raw, remap: Option<&(Vec<u32>, usize)>) -> Data {
    let v = r.uints();
    let small = v.iter().all(|&j| j < 256);
    let (component, size) = if small { (ComponentType::U8, 1) } else { (ComponentType::U16, 2) };
    let bytes: Vec<u8> = v
        .iter()
        .flat_map(|&j| if small { vec![j as u8] } else { (j as u16).to_le_bytes().to_vec() })
        .collect();
    let elem = 4 * size;
    let out = remap_bytes(&bytes, elem, elem.next_multiple_of(4), remap);
    let count = out.len() / elem.next_multiple_of(4);
    data(out, count, component, Type::Vec4, false, elem.next_multiple_of(4))
}

fn weights(s: &mut State<'_>, r: &Raw, remap: Option<&(Vec<u32>, usize)>) -> Data {
    let v = remap_floats(&r.floats(), 4, remap);
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
    data(bytes, count, ComponentType::U8, Type::Vec4, true, 4)
}

/// Morph position deltas in grid steps (the node's scale applies to them too): 16-bit
/// integers where they fit, else floats.
fn deltas(r: &Raw, g: &Grid, remap: Option<&(Vec<u32>, usize)>) -> Data {
    let v = remap_floats(&r.floats(), 3, remap);
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
        data(bytes, count, ComponentType::I16, Type::Vec3, false, 8)
    } else {
        data(bytes, count, ComponentType::F32, Type::Vec3, false, 12)
    };
    if count > 0 {
        d.bounds = Some((lo.to_vec(), hi.to_vec()));
    }
    d
}
