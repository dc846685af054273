//! The new buffer: identical accessors shared, accessors of one kind and stride packed
//! into one view, each view encoded by meshopt (or stored plainly), images copied; the
//! document's accessor references follow.

use std::collections::HashMap;

use gltf_json as json;
use json::accessor::{ComponentType, GenericComponentType};
use json::buffer::Target;
use json::validation::Checked::Valid;
use json::validation::USize64;
use json::{Index, Root};

use super::read::raw;
use super::{Data, Filter, Kind};
use crate::error::CliError;

fn bad(message: String) -> CliError {
    CliError::format("gltf", format!("compress: {message}"))
}

/// How each accessor is referenced, for the ones the compressor left untouched.
fn kinds(root: &Root) -> Vec<Option<Kind>> {
    let mut k = vec![None; root.accessors.len()];
    let mut set = |a: Index<json::Accessor>, kind: Kind| {
        if let Some(x) = k.get_mut(a.value()) {
            x.get_or_insert(kind);
        }
    };
    for mesh in &root.meshes {
        for p in &mesh.primitives {
            for a in p.attributes.values() {
                set(*a, Kind::Vertex);
            }
            if let Some(i) = p.indices {
                set(i, Kind::Index);
            }
            for t in p.targets.iter().flatten() {
                for a in [t.positions, t.normals, t.tangents].into_iter().flatten() {
                    set(a, Kind::Vertex);
                }
            }
        }
    }
    for s in &root.skins {
        if let Some(a) = s.inverse_bind_matrices {
            set(a, Kind::Plain);
        }
    }
    for a in &root.animations {
        for s in &a.samplers {
            set(s.input, Kind::Plain);
            set(s.output, Kind::Plain);
        }
    }
    k
}

/// FNV-1a over the bytes, eight at a time: a bucket key, compared in full after.
fn hash(d: &Data) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |x: u64| {
        h ^= x;
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    mix(d.count as u64);
    mix(d.stride as u64);
    let mut chunks = d.bytes.chunks_exact(8);
    for c in &mut chunks {
        mix(u64::from_le_bytes([
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
        ]));
    }
    for &b in chunks.remainder() {
        mix(u64::from(b));
    }
    h
}

fn same_shape(a: &Data, b: &Data) -> bool {
    a.count == b.count
        && a.component == b.component
        && a.ty == b.ty
        && a.normalized == b.normalized
        && a.stride == b.stride
        && a.kind == b.kind
        && a.filter == b.filter
        && a.bounds == b.bounds
        && a.bytes == b.bytes
}

/// A view's encoding key: accessors sharing it go in one view.
type GroupKey = (Kind, usize, Filter, bool);

fn align(v: &mut Vec<u8>) {
    v.resize(v.len().next_multiple_of(4), 0);
}

/// Rewrites `root`'s accessors, views and buffers around a new buffer.
pub(crate) fn layout(
    mut root: Root,
    old_bin: &[u8],
    mut data: Vec<Option<Data>>,
    meshopt: bool,
) -> Result<(Root, Vec<u8>), CliError> {
    let kinds = kinds(&root);
    // Old accessor -> unique data.
    let mut unique: Vec<(Data, Option<(json::Value, json::Value)>)> = Vec::new();
    let mut buckets: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut new_of: Vec<Option<u32>> = vec![None; root.accessors.len()];
    for (a, kind) in kinds.iter().enumerate() {
        let Some(kind) = kind else { continue };
        let (d, minmax) = match data.get_mut(a).and_then(Option::take) {
            Some(d) => (d, None),
            None => {
                let r = raw(&root, old_bin, a)?;
                let stride = if *kind == Kind::Vertex {
                    r.elem.next_multiple_of(4)
                } else {
                    r.elem
                };
                let mut bytes = Vec::with_capacity(r.count * stride);
                for e in r.bytes.chunks_exact(r.elem.max(1)) {
                    bytes.extend_from_slice(e);
                    bytes.resize(bytes.len() + stride - r.elem, 0);
                }
                let old = &root.accessors[a];
                let minmax = old.min.clone().zip(old.max.clone());
                (
                    Data {
                        bytes,
                        count: r.count,
                        component: r.component,
                        ty: r.ty,
                        normalized: r.normalized,
                        stride,
                        kind: *kind,
                        filter: Filter::None,
                        bounds: None,
                    },
                    minmax,
                )
            }
        };
        let h = hash(&d);
        let bucket = buckets.entry(h).or_default();
        let found = bucket
            .iter()
            .copied()
            .find(|&u| same_shape(&unique[u].0, &d) && unique[u].1 == minmax);
        let u = match found {
            Some(u) => u,
            None => {
                bucket.push(unique.len());
                unique.push((d, minmax));
                unique.len() - 1
            }
        };
        new_of[a] = Some(u as u32);
    }
    // Groups, in first-use order.
    let mut groups: Vec<(GroupKey, Vec<usize>)> = Vec::new();
    for (u, (d, _)) in unique.iter().enumerate() {
        let triangles = d.kind == Kind::Index && d.count % 3 == 0;
        let key = (d.kind, d.stride, d.filter, triangles);
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(u),
            None => groups.push((key, vec![u])),
        }
    }
    let mut bin = Vec::new();
    let mut views: Vec<json::buffer::View> = Vec::new();
    let mut accessors: Vec<json::Accessor> = (0..unique.len()).map(|_| empty_accessor()).collect();
    let mut fallback_len = 0usize;
    for ((kind, stride, filter, triangles), members) in &groups {
        let mut bytes = Vec::new();
        let mut offsets = Vec::with_capacity(members.len());
        let mut count = 0usize;
        for &u in members {
            offsets.push(bytes.len());
            bytes.extend_from_slice(&unique[u].0.bytes);
            count += unique[u].0.count;
        }
        let view_index = Index::<json::buffer::View>::new(views.len() as u32);
        let target = match kind {
            Kind::Vertex => Some(Valid(Target::ArrayBuffer)),
            Kind::Index => Some(Valid(Target::ElementArrayBuffer)),
            Kind::Plain => None,
        };
        let byte_stride = (*kind == Kind::Vertex).then_some(json::buffer::Stride(*stride));
        if meshopt {
            let (encoded, mode) = match kind {
                Kind::Index => {
                    let indices: Vec<u32> = match stride {
                        2 => bytes
                            .chunks_exact(2)
                            .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
                            .collect(),
                        _ => bytes
                            .chunks_exact(4)
                            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                            .collect(),
                    };
                    if *triangles {
                        (
                            meshfmt_meshopt::encode_index_buffer(&indices)
                                .map_err(|e| bad(e.to_string()))?,
                            "TRIANGLES",
                        )
                    } else {
                        (meshfmt_meshopt::encode_index_sequence(&indices), "INDICES")
                    }
                }
                _ => (
                    meshfmt_meshopt::encode_vertex_buffer(&bytes, count, *stride)
                        .map_err(|e| bad(e.to_string()))?,
                    "ATTRIBUTES",
                ),
            };
            align(&mut bin);
            let offset = bin.len();
            bin.extend_from_slice(&encoded);
            fallback_len = fallback_len.next_multiple_of(4);
            let mut ext = serde_json::json!({
                "buffer": 0,
                "byteOffset": offset,
                "byteLength": encoded.len(),
                "byteStride": stride,
                "count": count,
                "mode": mode,
            });
            if let (Some(name), Some(map)) = (filter.name(), ext.as_object_mut()) {
                map.insert("filter".into(), name.into());
            }
            let mut others = serde_json::Map::new();
            others.insert("EXT_meshopt_compression".into(), ext);
            views.push(json::buffer::View {
                buffer: Index::new(1),
                byte_length: USize64::from(bytes.len()),
                byte_offset: Some(USize64::from(fallback_len)),
                byte_stride,
                name: None,
                target,
                extensions: Some(json::extensions::buffer::View { others }),
                extras: Default::default(),
            });
            fallback_len += bytes.len();
        } else {
            align(&mut bin);
            let offset = bin.len();
            bin.extend_from_slice(&bytes);
            views.push(json::buffer::View {
                buffer: Index::new(0),
                byte_length: USize64::from(bytes.len()),
                byte_offset: Some(USize64::from(offset)),
                byte_stride,
                name: None,
                target,
                extensions: None,
                extras: Default::default(),
            });
        }
        for (&u, &off) in members.iter().zip(&offsets) {
            let (d, minmax) = &unique[u];
            let (min, max) = match (&d.bounds, minmax) {
                (Some((lo, hi)), _) => (
                    Some(json::Value::from(lo.clone())),
                    Some(json::Value::from(hi.clone())),
                ),
                (None, Some((lo, hi))) => (Some(lo.clone()), Some(hi.clone())),
                (None, None) => (None, None),
            };
            accessors[u] = json::Accessor {
                buffer_view: Some(view_index),
                byte_offset: (off > 0).then(|| USize64::from(off)),
                count: USize64::from(d.count),
                component_type: Valid(GenericComponentType(d.component)),
                type_: Valid(d.ty),
                min,
                max,
                name: None,
                normalized: d.normalized,
                sparse: None,
                extensions: None,
                extras: Default::default(),
            };
        }
    }
    // Images keep their bytes, in the real buffer.
    let old_views = std::mem::take(&mut root.buffer_views);
    for image in &mut root.images {
        let Some(v) = image.buffer_view else { continue };
        let view = old_views
            .get(v.value())
            .ok_or_else(|| bad(format!("image view {} missing", v.value())))?;
        let start = view.byte_offset.map_or(0, |o| o.0 as usize);
        let bytes = old_bin
            .get(start..start + view.byte_length.0 as usize)
            .ok_or_else(|| bad("image view out of the buffer".into()))?;
        align(&mut bin);
        let offset = bin.len();
        bin.extend_from_slice(bytes);
        image.buffer_view = Some(Index::new(views.len() as u32));
        views.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: None,
            extensions: None,
            extras: Default::default(),
        });
    }
    align(&mut bin);
    // References follow the accessors.
    let map = |a: &mut Index<json::Accessor>| {
        if let Some(Some(n)) = new_of.get(a.value()) {
            *a = Index::new(*n);
        }
    };
    for mesh in &mut root.meshes {
        for p in &mut mesh.primitives {
            for a in p.attributes.values_mut() {
                map(a);
            }
            if let Some(i) = p.indices.as_mut() {
                map(i);
            }
            for t in p.targets.iter_mut().flatten() {
                for a in [&mut t.positions, &mut t.normals, &mut t.tangents]
                    .into_iter()
                    .flatten()
                {
                    map(a);
                }
            }
        }
    }
    for s in &mut root.skins {
        if let Some(a) = s.inverse_bind_matrices.as_mut() {
            map(a);
        }
    }
    for a in &mut root.animations {
        for s in &mut a.samplers {
            map(&mut s.input);
            map(&mut s.output);
        }
    }
    root.accessors = accessors;
    root.buffer_views = views;
    root.buffers.clear();
    if !bin.is_empty() {
        root.buffers.push(json::Buffer {
            byte_length: USize64::from(bin.len()),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        });
    }
    if meshopt && fallback_len > 0 {
        let mut others = serde_json::Map::new();
        others.insert(
            "EXT_meshopt_compression".into(),
            serde_json::json!({ "fallback": true }),
        );
        root.buffers.push(json::Buffer {
            byte_length: USize64::from(fallback_len),
            name: None,
            uri: None,
            extensions: Some(json::extensions::buffer::Buffer { others }),
            extras: Default::default(),
        });
    }
    Ok((root, bin))
}

/// An accessor of no elements (a starting point: every field set by its user).
pub(crate) fn empty_accessor() -> json::Accessor {
    json::Accessor {
        buffer_view: None,
        byte_offset: None,
        count: USize64::from(0usize),
        component_type: Valid(GenericComponentType(ComponentType::F32)),
        type_: Valid(json::accessor::Type::Scalar),
        min: None,
        max: None,
        name: None,
        normalized: false,
        sparse: None,
        extensions: None,
        extras: Default::default(),
    }
}
