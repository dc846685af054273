//! glTF in, compressed glTF out, without the round trip through meshfmt-core: the
//! document is loaded, checked to be one the compressor takes as it stands, its buffers
//! joined into one, and compressed. Nothing is decoded into a model and built again, so
//! what the model has no place for (scene names, JPEG images, data-URI images) is kept,
//! and the time goes to the compression alone.
//!
//! The document qualifies when the export of its imported model would not repair
//! anything: no extension but the two the compressor reads (KHR_mesh_quantization,
//! EXT_meshopt_compression, decoded on load), references all in range (gltf-json's
//! validation), a node forest, no sparse or empty accessors, finite floats, unit
//! normals, tangents and rotation keys, strictly increasing key times, and image URIs
//! that stay in the output's folder. Any other document takes the model's way, where
//! each repair is made and reported.

use std::collections::BTreeSet;

use gltf_json as json;
use json::accessor::ComponentType;
use json::animation::Property;
use json::mesh::Semantic;
use json::validation::Checked::Valid;
use json::validation::{USize64, Validate};
use meshfmt_core::side_files::{SideFiles, output_reference};
use meshfmt_core::{Budget, Converted};

use super::compress::{self, Compression, elements};
use super::import::{component_size, load, parents, percent_decoded};
use super::{Container, Exported, package};
use crate::error::CliError;

/// The extensions a qualifying document may use.
const TAKEN: [&str; 2] = ["KHR_mesh_quantization", "EXT_meshopt_compression"];

/// `data` (a `.glb` or `.gltf`, its buffers from `side_files`) compressed as `c` asks
/// into `container`, with the quantization's losses, without the round trip through
/// meshfmt-core (so scene names, JPEG and data-URI images are kept). `Ok(None)` when
/// the document does not load or does not qualify: it qualifies when it uses no
/// extension but KHR_mesh_quantization and EXT_meshopt_compression and the export of
/// its imported model would repair nothing (references in range, a node forest, no
/// sparse or empty accessors, finite floats, unit normals, tangents and rotations,
/// increasing key times, image URIs inside the folder). The model's way
/// ([`import`](super::import) then [`export_with`](super::export_with)) then converts
/// it, or reports why it cannot. `meshfmt convert IN.glb OUT.glb --compress` takes this
/// way first.
///
/// ```
/// use meshfmt::gltf::{Compression, Container, export, recompress};
/// use meshfmt_core::{glam::Vec3, Budget, Model, Surface};
///
/// let model = Model {
///     surfaces: vec![Surface {
///         positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
///         indices: vec![0, 1, 2],
///         ..Default::default()
///     }],
///     ..Default::default()
/// };
/// let budget = Budget::default();
/// let glb = export(&model, Container::Glb, &budget)?.value.main;
/// // Our own exports always qualify.
/// let small = recompress(&glb, None, Container::Glb, Compression::MESHOPT, &budget)?;
/// let small = small.ok_or("not taken")?.value.main;
/// assert!(String::from_utf8_lossy(&small).contains("EXT_meshopt_compression"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn recompress(
    data: &[u8],
    side_files: Option<&dyn SideFiles>,
    container: Container,
    c: Compression,
    budget: &Budget,
) -> Result<Option<Converted<Exported>>, CliError> {
    let Ok((mut root, buffers)) = load(data, side_files, budget) else {
        return Ok(None);
    };
    if qualifies(&root, &buffers).is_err() {
        return Ok(None);
    }
    let bin = joined(&mut root, buffers, budget)?;
    if floats_ok(&root, &bin).is_err() {
        return Ok(None);
    }
    // The compressor reads an accessor each time a primitive or channel uses it: a
    // sampler that thousands of channels share costs thousands of reads, paid for as
    // the importer pays for its copies.
    let reads = reads(&root);
    budget.charge("glTF accessors, each time read", reads)?;
    let compressed = compress::compress(root, &bin, c, budget);
    budget.release(reads);
    let (root, bin, losses) = compressed?;
    Ok(Some(Converted {
        value: package(root, bin, container, true, budget)?,
        losses,
    }))
}

/// Why the document does not qualify (the first reason found), else `Ok`.
fn qualifies(root: &json::Root, buffers: &[Vec<u8>]) -> Result<(), String> {
    let taken = |e: &String| TAKEN.contains(&e.as_str());
    if let Some(e) = root
        .extensions_used
        .iter()
        .chain(&root.extensions_required)
        .find(|e| !taken(e))
    {
        return Err(format!("uses {e}"));
    }
    let mut invalid = None;
    root.validate(root, json::Path::new, &mut |path, error| {
        invalid.get_or_insert_with(|| format!("{}: {error}", path()));
    });
    if let Some(why) = invalid {
        return Err(why);
    }
    parents(root).map_err(|e| e.to_string())?;
    no_other_extensions(root)?;
    // A skinned mesh's node has no transform of its own (glTF ignores it; the model's
    // way drops it and says so).
    for (i, n) in root.nodes.iter().enumerate() {
        let moved = n.translation.is_some()
            || n.rotation.is_some()
            || n.scale.is_some()
            || n.matrix.is_some();
        if n.skin.is_some() && moved {
            return Err(format!("nodes[{i}]: a skinned mesh's node has a transform"));
        }
    }
    // A material's texture reads a UV set the primitive has (the model's way gives the
    // primitive a copy of the material without the texture otherwise).
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let Some(material) = prim.material.and_then(|x| root.materials.get(x.value())) else {
                continue;
            };
            let lacks = super::import::texture_infos(material).any(|(set, _)| {
                !prim
                    .attributes
                    .contains_key(&Valid(Semantic::TexCoords(set)))
            });
            if lacks {
                return Err(format!("meshes[{m}].primitives[{p}] lacks a UV set"));
            }
        }
    }
    for (i, a) in root.accessors.iter().enumerate() {
        if a.sparse.is_some() || a.buffer_view.is_none() || a.count.0 == 0 {
            return Err(format!("accessors[{i}]: sparse, without a view or empty"));
        }
        if !matches!((a.component_type, a.type_), (Valid(_), Valid(_))) {
            return Err(format!("accessors[{i}]: bad type"));
        }
    }
    for (i, v) in root.buffer_views.iter().enumerate() {
        let end = v
            .byte_offset
            .map_or(0, |o| o.0)
            .checked_add(v.byte_length.0);
        let fits = buffers
            .get(v.buffer.value())
            .is_some_and(|b| end.is_some_and(|e| e <= b.len() as u64));
        if !fits {
            return Err(format!("bufferViews[{i}] lies outside its buffer"));
        }
    }
    for (i, image) in root.images.iter().enumerate() {
        let Some(uri) = image.uri.as_deref().filter(|u| !u.starts_with("data:")) else {
            continue;
        };
        // Kept as written only when it names a file in the output's folder or below.
        let name = percent_decoded(uri);
        let r = output_reference(&name);
        if r.refusal.is_some() || r.written != name.replace('\\', "/") {
            return Err(format!("images[{i}]: {uri} leads out of the folder"));
        }
    }
    Ok(())
}

/// Refuses an extension object anywhere the compressor keeps the JSON it found (an
/// extension there must be declared, and the compressor declares only its own).
fn no_other_extensions(root: &json::Root) -> Result<(), String> {
    macro_rules! none {
        ($items:expr, $what:literal) => {
            for (i, x) in $items.iter().enumerate() {
                if x.extensions.is_some() {
                    return Err(format!("{}[{i}] has extensions", $what));
                }
            }
        };
    }
    if root.extensions.is_some() {
        return Err("the document has extensions".into());
    }
    none!(root.accessors, "accessors");
    none!(root.animations, "animations");
    none!(root.buffer_views, "bufferViews");
    none!(root.cameras, "cameras");
    none!(root.images, "images");
    none!(root.materials, "materials");
    none!(root.meshes, "meshes");
    none!(root.nodes, "nodes");
    none!(root.samplers, "samplers");
    none!(root.scenes, "scenes");
    none!(root.skins, "skins");
    none!(root.textures, "textures");
    for mesh in &root.meshes {
        none!(mesh.primitives, "primitives");
    }
    for (m, material) in root.materials.iter().enumerate() {
        if super::import::texture_infos(material).any(|(_, e)| e.is_some_and(|e| !e.is_empty())) {
            return Err(format!("materials[{m}]: a texture has extensions"));
        }
    }
    // Buffers may only be meshopt's fallbacks (their views are decoded on load).
    for (i, b) in root.buffers.iter().enumerate() {
        let others = b.extensions.as_ref().map(|e| &e.others);
        if others.is_some_and(|o| o.keys().any(|k| k != "EXT_meshopt_compression")) {
            return Err(format!("buffers[{i}] has extensions"));
        }
    }
    Ok(())
}

/// The buffers as one (each started at a multiple of 4), the views moved onto it and
/// the document given that one buffer (its data in the container's place).
fn joined(
    root: &mut json::Root,
    mut buffers: Vec<Vec<u8>>,
    budget: &Budget,
) -> Result<Vec<u8>, CliError> {
    let bin = if buffers.len() == 1 {
        buffers.pop().unwrap_or_default()
    } else {
        let total: usize = buffers.iter().map(|b| b.len().next_multiple_of(4)).sum();
        budget.charge("glTF buffers joined", total as u64)?;
        let mut bin = Vec::with_capacity(total);
        let mut starts = Vec::with_capacity(buffers.len());
        for b in &buffers {
            starts.push(bin.len() as u64);
            bin.extend_from_slice(b);
            bin.resize(bin.len().next_multiple_of(4), 0);
        }
        for v in &mut root.buffer_views {
            let start = starts.get(v.buffer.value()).copied().unwrap_or(0);
            v.byte_offset = Some(USize64(start + v.byte_offset.map_or(0, |o| o.0)));
            v.buffer = json::Index::new(0);
        }
        bin
    };
    root.buffers = vec![json::Buffer {
        byte_length: USize64(bin.len() as u64),
        name: None,
        uri: None,
        extensions: None,
        extras: Default::default(),
    }];
    Ok(bin)
}

/// The float accessors' values each in `f`'s bounds: every element's components, read
/// in place (view stride honoured) without a copy; other accessors pass.
fn each_element(
    root: &json::Root,
    bin: &[u8],
    index: usize,
    mut f: impl FnMut(&[f32]) -> bool,
) -> Result<(), String> {
    let e = elements(root, bin, index).map_err(|e| e.to_string())?;
    if e.component != ComponentType::F32 {
        return Ok(());
    }
    let mut values = [0f32; 16];
    let n = e.elem / 4;
    for (i, x) in e.iter().enumerate() {
        for (v, b) in values.iter_mut().zip(x.chunks_exact(4)) {
            *v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        if !f(&values[..n]) {
            return Err(format!("accessors[{index}][{i}]"));
        }
    }
    Ok(())
}

/// The bytes of accessor `a`'s elements (0 for none).
fn accessor_bytes(root: &json::Root, a: usize) -> u64 {
    root.accessors
        .get(a)
        .map_or(0, |x| match (x.type_, x.component_type) {
            (Valid(ty), Valid(ct)) => {
                let elem = super::compress::components(ty) * component_size(ct.0);
                x.count.0.saturating_mul(elem as u64)
            }
            _ => 0,
        })
}

/// What the compressor reads: each accessor's bytes once per primitive, channel or skin
/// that uses it.
fn reads(root: &json::Root) -> u64 {
    let mut total = 0u64;
    let mut add = |a: usize| total = total.saturating_add(accessor_bytes(root, a));
    for mesh in &root.meshes {
        for p in &mesh.primitives {
            p.attributes.values().for_each(|a| add(a.value()));
            p.indices.iter().for_each(|a| add(a.value()));
            for t in p.targets.iter().flatten() {
                for a in [t.positions, t.normals, t.tangents].into_iter().flatten() {
                    add(a.value());
                }
            }
        }
    }
    for anim in &root.animations {
        for ch in &anim.channels {
            if let Some(smp) = anim.samplers.get(ch.sampler.value()) {
                add(smp.input.value());
                add(smp.output.value());
            }
        }
    }
    for skin in &root.skins {
        skin.inverse_bind_matrices
            .iter()
            .for_each(|a| add(a.value()));
    }
    total
}

/// Unit length as the export keeps it (the validator's tolerance).
fn unit3(v: &[f32]) -> bool {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    (l - 1.0).abs() <= 1e-4
}

/// Every float finite; normals, tangents and rotation keys unit; tangents' w ±1; key
/// times non-negative and strictly increasing; node transforms finite.
fn floats_ok(root: &json::Root, bin: &[u8]) -> Result<(), String> {
    for i in 0..root.accessors.len() {
        each_element(root, bin, i, |v| v.iter().all(|x| x.is_finite()))?;
    }
    // Each accessor checked once, however many primitives or channels use it.
    let (mut normals, mut tangents) = (BTreeSet::new(), BTreeSet::new());
    for mesh in &root.meshes {
        for p in &mesh.primitives {
            for (semantic, a) in &p.attributes {
                match semantic {
                    Valid(Semantic::Normals) => normals.insert(a.value()),
                    Valid(Semantic::Tangents) => tangents.insert(a.value()),
                    _ => false,
                };
            }
        }
    }
    let (mut times, mut rotations) = (BTreeSet::new(), BTreeSet::new());
    for anim in &root.animations {
        for channel in &anim.channels {
            let Some(sampler) = anim.samplers.get(channel.sampler.value()) else {
                return Err("a channel without its sampler".into());
            };
            times.insert(sampler.input.value());
            if channel.target.path == Valid(Property::Rotation) {
                rotations.insert(sampler.output.value());
            }
        }
    }
    for a in normals {
        each_element(root, bin, a, unit3)?;
    }
    for a in tangents {
        each_element(root, bin, a, |v| {
            v.len() == 4 && unit3(v) && v[3].abs() == 1.0
        })?;
    }
    for a in times {
        let mut last = -1.0f32;
        each_element(root, bin, a, |t| {
            let ok = t[0] >= 0.0 && t[0] > last;
            last = t[0];
            ok
        })?;
    }
    for a in rotations {
        let unit = |q: &[f32]| {
            let l2: f32 = q.iter().map(|x| x * x).sum();
            (l2 - 1.0).abs() <= 1e-6
        };
        each_element(root, bin, a, unit)?;
    }
    for (i, n) in root.nodes.iter().enumerate() {
        let values = n
            .translation
            .iter()
            .flatten()
            .chain(n.rotation.iter().flat_map(|q| &q.0))
            .chain(n.scale.iter().flatten())
            .chain(n.matrix.iter().flatten())
            .chain(n.weights.iter().flatten());
        if !values.into_iter().all(|x| x.is_finite()) {
            return Err(format!("nodes[{i}]: a transform is not finite"));
        }
    }
    for (i, m) in root.materials.iter().enumerate() {
        let pbr = &m.pbr_metallic_roughness;
        let values = pbr
            .base_color_factor
            .0
            .iter()
            .chain(&m.emissive_factor.0)
            .chain([&pbr.metallic_factor.0, &pbr.roughness_factor.0])
            .chain(m.alpha_cutoff.as_ref().map(|c| &c.0));
        if !values.into_iter().all(|x: &f32| x.is_finite()) {
            return Err(format!("materials[{i}]: a factor is not finite"));
        }
    }
    Ok(())
}
