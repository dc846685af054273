//! Delivery glTF: the exported document made small (`--quality quantized` or
//! `meshopt`; `--compress` is the latter).
//!
//! - `quantized`: KHR_mesh_quantization. Positions on a 14-bit grid over each mesh's
//!   box, dequantized by the mesh node's translation and uniform scale (skinned
//!   positions stay floats: Blender's importer builds bones from the inverse bind
//!   matrices, where their dequantization would go);
//!   normals and tangents 8-bit signed normalized; UVs 12-bit over each material's UV
//!   box, dequantized by KHR_texture_transform; colours and skin weights 8-bit
//!   normalized (weights summing to exactly one); joints 8-bit where they fit;
//!   rotation keys 16-bit normalized. Indices are reordered for the vertex cache and
//!   vertices for fetch (first use), unreferenced vertices dropped.
//! - `meshopt`: the above, then EXT_meshopt_compression: vertex streams, indices and
//!   keys through meshopt's codecs, normals and tangents through its octahedral filter,
//!   rotations through its quaternion filter (12 bits), translations and scales through
//!   its exponential filter (16-bit mantissas), indices in strip-friendly order;
//!   skinned positions quantized too, over one box per skin, dequantized by the skin's
//!   inverse bind matrices (as gltfpack writes them; three.js applies them).
//!
//! Both also share identical accessors, images, textures, samplers and materials,
//! collapse animation tracks that hold one value to one key, and drop those that hold
//! the node's rest value. Each quantized attribute is reported as a loss with its
//! error bound and the largest error measured in this file.

mod anim;
mod dedup;
mod layout;
mod mesh;
mod minify;
mod quantize;
mod read;

use std::collections::BTreeMap;

use gltf_json as json;
use json::accessor::{ComponentType, Type};
use meshfmt_core::{Budget, Feature, Loss, LossKind};

use crate::error::CliError;

pub(crate) use minify::minified;
pub(crate) use read::{components, elements};

/// The precision and coding of a compressed export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compression {
    /// EXT_meshopt_compression on top of quantization.
    pub meshopt: bool,
    /// Position grid bits (1-16).
    pub position_bits: u32,
    /// Normal and tangent bits (2-16; above 8, 16-bit storage).
    pub normal_bits: u32,
    /// UV grid bits (1-16).
    pub uv_bits: u32,
    /// Rotation key bits with meshopt's quaternion filter (4-16); 16 without it.
    pub rotation_bits: u32,
    /// Translation and scale key mantissa bits with the exponential filter (1-24).
    pub translation_bits: u32,
    /// Keep what rendering does not need (as `gltfpack -kv -km -ke` would): every
    /// surface as its own named mesh, UV sets no texture reads, tangents without a
    /// normal map, clip events. Without it (the default, as gltfpack does), surfaces
    /// that share a material, skin and attributes become one mesh, and those are
    /// dropped (each drop reported).
    pub keep: bool,
}

impl Compression {
    /// KHR_mesh_quantization alone (every glTF 2.0 reader that takes the extension,
    /// Blender's importer among them).
    pub const QUANTIZED: Compression = Compression {
        meshopt: false,
        position_bits: 14,
        normal_bits: 8,
        uv_bits: 12,
        rotation_bits: 16,
        translation_bits: 24,
        keep: false,
    };
    /// Quantization and EXT_meshopt_compression (three.js, Babylon.js, Godot, Unity's
    /// glTFast and other readers with meshopt's decoder).
    pub const MESHOPT: Compression = Compression {
        meshopt: true,
        rotation_bits: 12,
        translation_bits: 16,
        ..Compression::QUANTIZED
    };

    /// The coding a `--quality` names for glTF, if any: `quantized`, `meshopt`, and
    /// with `-keep` ([`keep`](Self::keep)) `quantized-keep`, `meshopt-keep`.
    pub fn for_quality(quality: &str) -> Option<Compression> {
        match quality {
            "quantized" => Some(Compression::QUANTIZED),
            "meshopt" => Some(Compression::MESHOPT),
            "quantized-keep" => Some(Compression {
                keep: true,
                ..Compression::QUANTIZED
            }),
            "meshopt-keep" => Some(Compression {
                keep: true,
                ..Compression::MESHOPT
            }),
            _ => None,
        }
    }
}

/// How a stream is stored: vertex attributes (a view with a byte stride), indices, or
/// anything else (animation keys, inverse bind matrices: tightly packed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Kind {
    Vertex,
    Index,
    Plain,
}

/// meshopt's filter a stream is stored through (its bytes are the filter's input form).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Filter {
    None,
    Octahedral,
    Quaternion,
    Exponential,
}

impl Filter {
    fn name(self) -> Option<&'static str> {
        match self {
            Filter::None => None,
            Filter::Octahedral => Some("OCTAHEDRAL"),
            Filter::Quaternion => Some("QUATERNION"),
            Filter::Exponential => Some("EXPONENTIAL"),
        }
    }
}

/// A new accessor's contents: `count` elements, each `stride` bytes (the element and
/// its padding).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Data {
    pub bytes: Vec<u8>,
    pub count: usize,
    pub component: ComponentType,
    pub ty: Type,
    pub normalized: bool,
    pub stride: usize,
    pub kind: Kind,
    pub filter: Filter,
    pub bounds: Option<(Vec<f32>, Vec<f32>)>,
}

impl Data {
    /// `count` elements of `stride` bytes, stored plainly (no filter, no bounds yet).
    pub fn new(
        bytes: Vec<u8>,
        count: usize,
        component: ComponentType,
        ty: Type,
        normalized: bool,
        stride: usize,
        kind: Kind,
    ) -> Data {
        Data {
            bytes,
            count,
            component,
            ty,
            normalized,
            stride,
            kind,
            filter: Filter::None,
            bounds: None,
        }
    }

    /// `values` as plain floats of type `ty` (keys, matrices: packed, no filter).
    pub fn floats(values: &[f32], ty: Type) -> Data {
        let comps = read::components(ty);
        Data::new(
            parsing_primitives::le_bytes(values),
            values.len() / comps,
            ComponentType::F32,
            ty,
            false,
            comps * 4,
            Kind::Plain,
        )
    }
}

/// The largest errors measured, per attribute, with their bounds.
#[derive(Debug, Default)]
pub(crate) struct Errors {
    /// By (feature, what): (bound, measured, how stored).
    pub by: BTreeMap<(Feature, &'static str), (f32, f32, String)>,
}

impl Errors {
    pub fn note(
        &mut self,
        feature: Feature,
        what: &'static str,
        bound: f32,
        measured: f32,
        how: String,
    ) {
        let e = self.by.entry((feature, what)).or_insert((0.0, 0.0, how));
        e.0 = e.0.max(bound);
        e.1 = e.1.max(measured);
    }

    fn losses(self) -> Vec<Loss> {
        self.by
            .into_iter()
            .map(|((feature, what), (bound, measured, how))| Loss {
                feature,
                kind: LossKind::Quantized { max_error: bound },
                path: String::new(),
                reason: format!(
                    "{what}: {how}; largest error in this file {measured:e} (bound {bound:e})"
                ),
            })
            .collect()
    }
}

/// The document being rewritten: its old accessors' new contents, by index.
pub(crate) struct State<'a> {
    pub root: json::Root,
    pub bin: &'a [u8],
    pub data: Vec<Option<Data>>,
    pub c: Compression,
    pub errors: Errors,
    pub used: std::collections::BTreeSet<&'static str>,
    pub required: std::collections::BTreeSet<&'static str>,
    /// What was dropped (without `keep`): reported with the quantization.
    pub dropped: Vec<Loss>,
    /// Triangles whose corners quantization welded together (reported once).
    pub collapsed: usize,
}

/// Rewrites `root` and `bin` in the compressed coding; the quantization losses (each
/// with its bound and measured error) are returned.
pub(crate) fn compress(
    root: json::Root,
    bin: &[u8],
    c: Compression,
    budget: &Budget,
) -> Result<(json::Root, Vec<u8>, Vec<Loss>), CliError> {
    // The new contents of every accessor, the grouped streams and the encoded buffer:
    // about three copies of the buffer at most.
    budget.charge("glTF compression", (bin.len() as u64).saturating_mul(3))?;
    let mut root = root;
    dedup::images(&mut root, bin);
    // Before meshes: surfaces whose materials turn out equal can then merge.
    dedup::dedup(&mut root, !c.keep);
    let accessors = root.accessors.len();
    let mut s = State {
        root,
        bin,
        data: vec![None; accessors],
        c,
        errors: Errors::default(),
        used: Default::default(),
        required: Default::default(),
        dropped: Vec::new(),
        collapsed: 0,
    };
    s.used.insert("KHR_mesh_quantization");
    s.required.insert("KHR_mesh_quantization");
    mesh::meshes(&mut s)?;
    anim::animations(&mut s)?;
    let (mut root, new_bin) = layout::layout(s.root, bin, s.data, c.meshopt)?;
    if c.meshopt {
        s.used.insert("EXT_meshopt_compression");
        s.required.insert("EXT_meshopt_compression");
    }
    dedup::drop_empty_meshes(&mut root);
    root.extensions_used = s.used.iter().map(|e| e.to_string()).collect();
    root.extensions_required = s.required.iter().map(|e| e.to_string()).collect();
    let mut losses = s.dropped;
    if s.collapsed > 0 {
        losses.push(Loss {
            feature: Feature::Geometry,
            kind: LossKind::Reduced,
            path: String::new(),
            reason: format!(
                "{} triangles dropped: quantization made two of their corners one vertex (they drew nothing)",
                s.collapsed
            ),
        });
    }
    losses.extend(s.errors.losses());
    Ok((root, new_bin, losses))
}
