//! glTF 2.0 import (`.glb`, `.gltf` with embedded, data-URI or side-file buffers) into
//! meshfmt-core, so edited assets come back into the game formats.
//!
//! Untrusted input: every accessor is checked against its buffer view and buffer before
//! it is read, counts are bounded by the bytes present, node graphs with cycles or shared
//! children are refused, and nothing panics.

use gltf_json as json;
use json::accessor::{ComponentType, Type};
use json::animation::{Interpolation as GInterp, Property};
use json::mesh::{Mode, Semantic};
use json::validation::Checked::Valid;
use meshfmt_core::glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use meshfmt_core::{
    Attribute, Bone, Budget, Channel, Clip, ClipEvent, Converted, CoordinateSystem, Feature,
    Interpolation, LossKind, MAX_INFLUENCES, Material, Model, MorphKind, MorphTarget, RgbaImage,
    Surface, Texture, TextureBinding, TextureRole, TextureSource, Track, Transform,
    VertexInfluences,
};

use meshfmt_core::side_files::{SideFile, SideFiles, Unavailable};

use crate::error::CliError;

fn bad(message: impl std::fmt::Display) -> CliError {
    CliError::format("gltf", message.to_string())
}

/// True for a GLB file (`glTF` magic) or a JSON document that names glTF 2.0.
pub fn sniff(data: &[u8]) -> bool {
    data.starts_with(b"glTF")
}

/// Reads a `.glb` or `.gltf` into meshfmt-core. Buffers with a relative URI (a
/// `.gltf`'s `.bin`) are read from `side_files`, percent-decoded first; one that is not
/// available (missing, refused by the loader's policy, or `side_files` is `None`) fails
/// the import, naming the buffer. Image URIs are kept as texture paths, not read.
///
/// Everything the document makes the importer build is charged to `budget` before it
/// is allocated: the parsed document, buffers, every accessor read (so a mesh that many
/// nodes instance, or an accessor that many primitives, morph targets or channels
/// share, is paid for each time it is copied), decoded textures and the model. Node
/// graphs are checked and walked in linear time.
pub fn import(
    data: &[u8],
    side_files: Option<&dyn SideFiles>,
    budget: &Budget,
) -> Result<Converted<Model>, CliError> {
    import_detailed(data, side_files, budget).map(|(model, _)| model)
}

/// What the document stores beside what [`import`] makes of it, for `info`: each
/// imported surface's attributes with their accessor types, and each texture's source
/// with its image bytes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stored {
    /// Per imported surface (in the model's order), its primitive's attributes.
    pub surfaces: Vec<Vec<Attribute>>,
    /// Per texture: `file URI`, `embedded` or `data URI`, and the image's bytes.
    pub textures: Vec<(String, Option<u64>)>,
}

/// [`import`], with what the document stores as [`Stored`].
pub(crate) fn import_detailed(
    data: &[u8],
    side_files: Option<&dyn SideFiles>,
    budget: &Budget,
) -> Result<(Converted<Model>, Stored), CliError> {
    let (root, buffers) = load(data, side_files, budget)?;
    Importer {
        root: &root,
        buffers,
        budget,
        out: Converted::exact(Model {
            coordinate_system: CoordinateSystem::GLTF,
            ..Default::default()
        }),
        stored: Stored::default(),
        bind_shape: None,
    }
    .run()
}

/// The parsed document and its buffers, one per `buffers` entry (charged to `budget`),
/// with every EXT_meshopt_compression view decoded into a buffer of its own (the view
/// then plain, its extension gone; a fallback buffer is empty).
pub(crate) fn load(
    data: &[u8],
    side_files: Option<&dyn SideFiles>,
    budget: &Budget,
) -> Result<(json::Root, Vec<Vec<u8>>), CliError> {
    let (json_bytes, glb_bin) = split_glb(data)?;
    // The parse is paid for before it runs (a few bytes of JSON can make a few hundred
    // of document), then the charge becomes what the document holds.
    let parsing = parse_bound(json_bytes);
    budget.charge("glTF document (parsing)", parsing)?;
    let root: json::Root =
        json::deserialize::from_slice(json_bytes).map_err(|e| bad(format!("JSON: {e}")))?;
    budget.release(parsing);
    budget.charge("glTF document", document_bytes(&root))?;
    let mut buffers = Vec::with_capacity(root.buffers.len());
    let mut loaded: Vec<(&str, usize)> = Vec::new();
    for (i, b) in root.buffers.iter().enumerate() {
        let bytes = match (&b.uri, i, glb_bin) {
            (None, 0, Some(bin)) => {
                budget.charge("glTF buffer", bin.len() as u64)?;
                bin.to_vec()
            }
            // EXT_meshopt_compression's fallback buffer: no data, its views are decoded
            // from the compressed ones (below).
            (None, _, _) if meshopt_fallback(b) => Vec::new(),
            (None, _, _) => return Err(bad(format!("buffers[{i}] has no data"))),
            (Some(uri), _, _) => match uri.strip_prefix("data:") {
                Some(rest) => {
                    let (_, b64) = rest
                        .split_once(";base64,")
                        .ok_or_else(|| bad(format!("buffers[{i}]: data URI is not base64")))?;
                    budget.charge("glTF buffer", b64.len() as u64 / 4 * 3 + 3)?;
                    decode_base64(b64).ok_or_else(|| bad(format!("buffers[{i}]: bad base64")))?
                }
                // A side file named twice is read once.
                None => match loaded.iter().find(|(u, _)| *u == uri.as_str()) {
                    Some(&(_, k)) => {
                        let copy: &Vec<u8> = &buffers[k];
                        budget.charge("glTF buffer", copy.len() as u64)?;
                        copy.clone()
                    }
                    None => {
                        let name = percent_decoded(uri);
                        let found = match side_files {
                            Some(side) => side.read(&name)?,
                            None => SideFile::Unavailable(Unavailable::missing(&name)),
                        };
                        let bytes = match found {
                            SideFile::Found(b) => b,
                            SideFile::Unavailable(u) => {
                                return Err(bad(format!("buffers[{i}]: {u}")));
                            }
                        };
                        budget.charge("glTF buffer", bytes.len() as u64)?;
                        loaded.push((uri.as_str(), i));
                        bytes
                    }
                },
            },
        };
        if (bytes.len() as u64) < b.byte_length.0 && !meshopt_fallback(b) {
            return Err(bad(format!(
                "buffers[{i}] holds {} bytes, byteLength says {}",
                bytes.len(),
                b.byte_length.0
            )));
        }
        buffers.push(bytes);
    }
    let mut root = root;
    decode_meshopt(&mut root, &mut buffers, budget)?;
    Ok((root, buffers))
}

/// An accessor's stored type as `info` prints it: `f32x3`, `u16`, `u8x4 normalized`.
fn accessor_type(root: &json::Root, index: json::Index<json::Accessor>) -> String {
    let Some(a) = root.accessors.get(index.value()) else {
        return "missing accessor".into();
    };
    let component = match a.component_type {
        Valid(json::accessor::GenericComponentType(c)) => match c {
            ComponentType::I8 => "i8",
            ComponentType::U8 => "u8",
            ComponentType::I16 => "i16",
            ComponentType::U16 => "u16",
            ComponentType::U32 => "u32",
            ComponentType::F32 => "f32",
        },
        _ => "?",
    };
    let count = match a.type_ {
        Valid(Type::Scalar) => "",
        Valid(Type::Vec2) => "x2",
        Valid(Type::Vec3) => "x3",
        Valid(Type::Vec4) => "x4",
        Valid(Type::Mat2) => "x2x2",
        Valid(Type::Mat3) => "x3x3",
        Valid(Type::Mat4) => "x4x4",
        _ => "x?",
    };
    let normalized = if a.normalized { " normalized" } else { "" };
    format!("{component}{count}{normalized}")
}

/// A primitive's attributes as stored, in a fixed order.
fn primitive_attributes(root: &json::Root, prim: &json::mesh::Primitive) -> Vec<Attribute> {
    let attr = |s: Semantic| prim.attributes.get(&Valid(s)).copied();
    let mut out = Vec::new();
    let mut add = |name: &str, s: Semantic| {
        if let Some(a) = attr(s) {
            out.push(Attribute::new(name, accessor_type(root, a)));
        }
    };
    add("position", Semantic::Positions);
    add("normal", Semantic::Normals);
    add("tangent", Semantic::Tangents);
    add("uv0", Semantic::TexCoords(0));
    add("uv1", Semantic::TexCoords(1));
    add("color", Semantic::Colors(0));
    let mut sets = Vec::new();
    for set in 0.. {
        let (Some(j), Some(w)) = (attr(Semantic::Joints(set)), attr(Semantic::Weights(set))) else {
            break;
        };
        sets.push(format!(
            "joints {} + weights {}",
            accessor_type(root, j),
            accessor_type(root, w)
        ));
    }
    if !sets.is_empty() {
        out.push(Attribute::new("skin", sets.join(", ")));
    }
    let targets = prim.targets.as_ref().map_or(0, Vec::len);
    if targets > 0 {
        out.push(Attribute::new(
            "morph targets",
            format!("{targets} targets"),
        ));
    }
    out.push(Attribute::new(
        "indices",
        prim.indices
            .map_or_else(|| "none (implicit)".into(), |i| accessor_type(root, i)),
    ));
    out
}

/// What the parsed document holds in memory, roughly: its arrays of nodes, meshes,
/// accessors and so on (a two-byte `{}` in the JSON becomes a struct of a few hundred
/// bytes, so this is charged apart from the file's own size).
/// The largest value one JSON object becomes when parsed: the largest gltf-json type
/// (a node), or an entry of a JSON map (`min`, `max`, `extras`: a key and a value).
const OBJECT_BYTES: u64 = {
    let sizes = [
        std::mem::size_of::<json::Node>(),
        std::mem::size_of::<json::Accessor>(),
        std::mem::size_of::<json::Material>(),
        std::mem::size_of::<json::Image>(),
        std::mem::size_of::<json::Asset>(),
        std::mem::size_of::<json::Animation>(),
        std::mem::size_of::<json::Mesh>(),
        std::mem::size_of::<json::Camera>(),
        std::mem::size_of::<json::buffer::View>(),
        std::mem::size_of::<json::Skin>(),
        std::mem::size_of::<json::mesh::Primitive>(),
    ];
    let mut max = 0;
    let mut i = 0;
    while i < sizes.len() {
        if sizes[i] > max {
            max = sizes[i];
        }
        i += 1;
    }
    max as u64
};

/// What one array element or map entry becomes at most: a `serde_json::Value` (arrays
/// of numbers in `min`, `max`) or a map entry (a key and a value in a tree node).
const ELEMENT_BYTES: u64 = 64;

/// An upper bound of the heap that parsing `json` into gltf-json's document takes, from
/// its shape alone (one pass, no allocation but a depth stack): each object becomes at
/// most one [`OBJECT_BYTES`] value and each array element or key at most
/// [`ELEMENT_BYTES`], each held in a vector that may be three times its length while it
/// grows (the old buffer beside the doubled one); strings at most their bytes. The
/// million-node document `{"nodes":[{},{},...]}` (3 MB) bounds at about 870 MB (it
/// takes 227 MB).
fn parse_bound(json: &[u8]) -> u64 {
    let (mut objects, mut elements) = (0u64, 0u64);
    // Whether each open container is an array.
    let mut arrays: Vec<bool> = Vec::new();
    // The innermost container is an array with no value counted since its `[` or its
    // last `,`: the next byte that starts a value is one more element.
    let mut pending = false;
    let mut i = 0;
    while let Some(&b) = json.get(i) {
        i += 1;
        if pending && !matches!(BYTE_CLASS[b as usize], BLANK | SEPARATOR) {
            pending = false;
            elements += 1;
        }
        match b {
            b'"' => {
                // Skip the string: only `"` and `\` matter inside it.
                while let Some(&c) = json.get(i) {
                    i += 1;
                    match c {
                        b'"' => break,
                        b'\\' => i += 1,
                        _ => {}
                    }
                }
            }
            b'{' => {
                objects += 1;
                arrays.push(false);
            }
            b'[' => {
                arrays.push(true);
                pending = true;
            }
            b']' | b'}' => {
                // The outer container's value is the one just closed.
                arrays.pop();
                pending = false;
            }
            // The next value of an array, or the next key of an object.
            b',' => match arrays.last() {
                Some(true) => pending = true,
                Some(false) => elements += 1,
                None => {}
            },
            _ => {
                // Numbers, literals, blanks, `:`: nothing to count before the next
                // structural byte unless an element is pending.
                if !pending {
                    while json
                        .get(i)
                        .is_some_and(|&c| matches!(BYTE_CLASS[c as usize], PLAIN | BLANK))
                    {
                        i += 1;
                    }
                }
            }
        }
    }
    objects
        .saturating_mul(3 * OBJECT_BYTES)
        .saturating_add(elements.saturating_mul(3 * ELEMENT_BYTES))
        .saturating_add(json.len() as u64)
}

/// [`parse_bound`]'s byte classes: what may start a value, what never does.
const PLAIN: u8 = 0;
const BLANK: u8 = 1;
const SEPARATOR: u8 = 2;
const STRUCTURAL: u8 = 3;
const BYTE_CLASS: [u8; 256] = {
    let mut t = [PLAIN; 256];
    t[b' ' as usize] = BLANK;
    t[b'\t' as usize] = BLANK;
    t[b'\n' as usize] = BLANK;
    t[b'\r' as usize] = BLANK;
    t[b',' as usize] = SEPARATOR;
    t[b':' as usize] = SEPARATOR;
    t[b']' as usize] = SEPARATOR;
    t[b'}' as usize] = SEPARATOR;
    t[b'"' as usize] = STRUCTURAL;
    t[b'{' as usize] = STRUCTURAL;
    t[b'[' as usize] = STRUCTURAL;
    t
};

fn document_bytes(root: &json::Root) -> u64 {
    fn of<T>(v: &[T]) -> u64 {
        (v.len() as u64).saturating_mul(std::mem::size_of::<T>() as u64)
    }
    let primitives: u64 = root
        .meshes
        .iter()
        .map(|m| of(&m.primitives) + m.primitives.len() as u64 * 256)
        .sum();
    let channels: u64 = root
        .animations
        .iter()
        .map(|a| of(&a.channels) + of(&a.samplers))
        .sum();
    let children: u64 = root
        .nodes
        .iter()
        .map(|n| n.children.as_ref().map_or(0, |c| of(c)))
        .sum();
    let joints: u64 = root.skins.iter().map(|s| of(&s.joints)).sum();
    of(&root.nodes)
        + of(&root.meshes)
        + of(&root.accessors)
        + of(&root.buffer_views)
        + of(&root.buffers)
        + of(&root.animations)
        + of(&root.materials)
        + of(&root.textures)
        + of(&root.images)
        + of(&root.skins)
        + primitives
        + channels
        + children
        + joints
}

/// The JSON chunk and, for GLB, the BIN chunk.
fn split_glb(data: &[u8]) -> Result<(&[u8], Option<&[u8]>), CliError> {
    if !data.starts_with(b"glTF") {
        return Ok((data, None));
    }
    let word = |o: usize| {
        data.get(o..o + 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| bad(format!("GLB truncated at byte {o}")))
    };
    if word(4)? != 2 {
        return Err(bad("GLB version is not 2"));
    }
    let mut at = 12usize;
    let mut json_chunk = None;
    let mut bin = None;
    while at < data.len() {
        let len = word(at)? as usize;
        let kind = word(at + 4)?;
        let body = data
            .get(at + 8..at + 8 + len)
            .ok_or_else(|| bad(format!("GLB chunk at byte {at} runs past the end")))?;
        match kind {
            0x4E4F_534A if json_chunk.is_none() => json_chunk = Some(body),
            0x004E_4942 if bin.is_none() => bin = Some(body),
            _ => {}
        }
        at += 8 + len;
    }
    Ok((json_chunk.ok_or_else(|| bad("GLB has no JSON chunk"))?, bin))
}

fn decode_base64(s: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    };
    let s = s.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(s.len() / 4 * 3 + 3);
    for chunk in s.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= u32::from(value(c)?) << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

/// Bytes per component of an accessor.
pub(crate) fn component_size(c: ComponentType) -> usize {
    match c {
        ComponentType::I8 | ComponentType::U8 => 1,
        ComponentType::I16 | ComponentType::U16 => 2,
        ComponentType::U32 | ComponentType::F32 => 4,
    }
}

/// One component's value, normalized integers decoded as glTF specifies (`b` holds
/// at least [`component_size`] bytes: callers slice it so).
pub(crate) fn component_value(c: ComponentType, normalized: bool, b: &[u8]) -> f32 {
    use meshfmt_core::quantize::{snorm8, snorm16, unorm8, unorm16};
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    let (b2, b4) = ([at(0), at(1)], [at(0), at(1), at(2), at(3)]);
    match (c, normalized) {
        (ComponentType::F32, _) => f32::from_le_bytes(b4),
        (ComponentType::U32, _) => u32::from_le_bytes(b4) as f32,
        (ComponentType::U16, true) => unorm16::decode(u16::from_le_bytes(b2)),
        (ComponentType::U16, false) => f32::from(u16::from_le_bytes(b2)),
        (ComponentType::I16, true) => snorm16::decode(i16::from_le_bytes(b2)),
        (ComponentType::I16, false) => f32::from(i16::from_le_bytes(b2)),
        (ComponentType::U8, true) => unorm8::decode(at(0)),
        (ComponentType::U8, false) => f32::from(at(0)),
        (ComponentType::I8, true) => snorm8::decode(at(0) as i8),
        (ComponentType::I8, false) => f32::from(at(0) as i8),
    }
}

/// Material `m`'s texture references (base colour, metallic-roughness, normal,
/// occlusion, emissive): each one's UV set and its extensions, whatever their type.
pub(crate) fn texture_infos(
    m: &json::Material,
) -> impl Iterator<Item = (u32, Option<&serde_json::Map<String, serde_json::Value>>)> {
    macro_rules! info {
        ($t:expr) => {
            $t.as_ref()
                .map(|t| (t.tex_coord, t.extensions.as_ref().map(|e| &e.others)))
        };
    }
    let pbr = &m.pbr_metallic_roughness;
    [
        info!(pbr.base_color_texture),
        info!(pbr.metallic_roughness_texture),
        info!(m.normal_texture),
        info!(m.occlusion_texture),
        info!(m.emissive_texture),
    ]
    .into_iter()
    .flatten()
}

/// The KHR_texture_transform of the first of material `m`'s textures that reads UV set
/// `set` (`offset`, `rotation`, `scale`; its own `texCoord` overrides the set), as the
/// matrix T * R * S of the extension's specification.
fn texture_transform(m: &json::Material, set: u32) -> Option<meshfmt_core::glam::Affine2> {
    use meshfmt_core::glam::{Affine2, Mat2, Vec2};
    for (tex_coord, others) in texture_infos(m) {
        let Some(ext) = others.and_then(|o| o.get("KHR_texture_transform")) else {
            continue;
        };
        let reads = ext
            .get("texCoord")
            .and_then(serde_json::Value::as_u64)
            .map_or(tex_coord, |t| t as u32);
        if reads != set {
            continue;
        }
        let pair = |name: &str, default: f32| -> Vec2 {
            let v = ext.get(name).and_then(serde_json::Value::as_array);
            let at = |i: usize| {
                v.and_then(|a| a.get(i))
                    .and_then(serde_json::Value::as_f64)
                    .map_or(default, |x| x as f32)
            };
            Vec2::new(at(0), at(1))
        };
        let offset = pair("offset", 0.0);
        let scale = pair("scale", 1.0);
        let r = ext
            .get("rotation")
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(0.0) as f32;
        // The specification's GLSL `mat3(cos, sin, 0, -sin, cos, 0, 0, 0, 1)`: columns
        // (cos, sin) and (-sin, cos).
        let (sin, cos) = r.sin_cos();
        let rotation = Mat2::from_cols(Vec2::new(cos, sin), Vec2::new(-sin, cos));
        let t = Affine2::from_mat2_translation(rotation * Mat2::from_diagonal(scale), offset);
        return t.is_finite().then_some(t);
    }
    None
}

/// True for a buffer EXT_meshopt_compression marks as a fallback (it holds no data).
fn meshopt_fallback(b: &json::Buffer) -> bool {
    b.extensions
        .as_ref()
        .and_then(|e| e.others.get("EXT_meshopt_compression"))
        .and_then(|x| x.get("fallback"))
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}

/// Decodes every EXT_meshopt_compression view into a buffer of its own (charged to the
/// budget before it is allocated), so accessors read it like any other.
fn decode_meshopt(
    root: &mut json::Root,
    buffers: &mut Vec<Vec<u8>>,
    budget: &Budget,
) -> Result<(), CliError> {
    use meshfmt_meshopt::{Filter, Mode};
    for (v, view) in root.buffer_views.iter_mut().enumerate() {
        let Some(ext) = view
            .extensions
            .as_ref()
            .and_then(|e| e.others.get("EXT_meshopt_compression"))
        else {
            continue;
        };
        let what = format!("bufferViews[{v}].extensions.EXT_meshopt_compression");
        let field = |name: &str| {
            ext.get(name)
                .and_then(serde_json::Value::as_u64)
                .and_then(|x| usize::try_from(x).ok())
        };
        let (Some(buffer), Some(length), Some(stride), Some(count)) = (
            field("buffer"),
            field("byteLength"),
            field("byteStride"),
            field("count"),
        ) else {
            return Err(bad(format!(
                "{what}: buffer, byteLength, byteStride and count are required"
            )));
        };
        let offset = field("byteOffset").unwrap_or(0);
        let mode = match ext.get("mode").and_then(serde_json::Value::as_str) {
            Some("ATTRIBUTES") => Mode::Attributes,
            Some("TRIANGLES") => Mode::Triangles,
            Some("INDICES") => Mode::Indices,
            other => return Err(bad(format!("{what}: mode {other:?}"))),
        };
        let filter = match ext.get("filter").and_then(serde_json::Value::as_str) {
            None | Some("NONE") => Filter::None,
            Some("OCTAHEDRAL") => Filter::Octahedral,
            Some("QUATERNION") => Filter::Quaternion,
            Some("EXPONENTIAL") => Filter::Exponential,
            Some(other) => return Err(bad(format!("{what}: filter {other}"))),
        };
        let source = buffers
            .get(buffer)
            .and_then(|b| b.get(offset..offset.checked_add(length)?))
            .ok_or_else(|| {
                bad(format!(
                    "{what}: the compressed bytes lie outside buffers[{buffer}]"
                ))
            })?;
        let size = count
            .checked_mul(stride)
            .filter(|&n| n as u64 <= view.byte_length.0)
            .ok_or_else(|| {
                bad(format!(
                    "{what}: {count} elements of {stride} bytes overflow the view"
                ))
            })?;
        budget.charge("glTF meshopt-decoded view", size as u64)?;
        let mut out = vec![0u8; size];
        meshfmt_meshopt::decode_gltf_buffer(&mut out, count, stride, source, mode, filter)
            .map_err(|e| bad(format!("{what}: {e}")))?;
        // The view's own length may exceed the decoded elements; pad with zeros.
        out.resize(out.len().max(view.byte_length.0 as usize), 0);
        view.buffer = json::Index::new(buffers.len() as u32);
        view.byte_offset = None;
        view.extensions = None;
        buffers.push(out);
    }
    Ok(())
}

struct Importer<'a> {
    root: &'a json::Root,
    /// The skin's bind-shape matrix, when its inverse bind matrices carry one (joint
    /// world x inverse bind the same matrix for every joint, not the identity: a
    /// dequantization, as gltfpack and `--compress` write): skinned positions are
    /// taken through it, and the inverse bind matrices without it.
    bind_shape: Option<Mat4>,
    buffers: Vec<Vec<u8>>,
    budget: &'a Budget,
    out: Converted<Model>,
    stored: Stored,
}

impl Importer<'_> {
    /// An accessor's elements as f32 vectors of `n` components (normalized integers
    /// decoded as glTF specifies), checked against its view and buffer.
    fn read(&self, index: json::Index<json::Accessor>, n: usize) -> Result<Vec<f32>, CliError> {
        let i = index.value();
        let a = self
            .root
            .accessors
            .get(i)
            .ok_or_else(|| bad(format!("no accessors[{i}]")))?;
        let what = format!("accessors[{i}]");
        if a.sparse.is_some() {
            return Err(bad(format!("{what}: sparse accessors are not supported")));
        }
        let Valid(ty) = a.type_ else {
            return Err(bad(format!("{what}: bad type")));
        };
        let Valid(ct) = a.component_type else {
            return Err(bad(format!("{what}: bad componentType")));
        };
        let comps = match ty {
            Type::Scalar => 1,
            Type::Vec2 => 2,
            Type::Vec3 => 3,
            Type::Vec4 => 4,
            Type::Mat4 => 16,
            _ => return Err(bad(format!("{what}: type {ty:?} is not used here"))),
        };
        if comps != n {
            return Err(bad(format!(
                "{what}: {comps} components where {n} are expected"
            )));
        }
        let size = component_size(ct.0);
        let count = usize::try_from(a.count.0).map_err(|_| bad(format!("{what}: count")))?;
        let Some(view_index) = a.buffer_view else {
            return Err(bad(format!(
                "{what}: no bufferView (all zeros is not supported)"
            )));
        };
        let view = self
            .root
            .buffer_views
            .get(view_index.value())
            .ok_or_else(|| bad(format!("{what}: no bufferViews[{}]", view_index.value())))?;
        let buffer = self
            .buffers
            .get(view.buffer.value())
            .ok_or_else(|| bad(format!("{what}: no buffers[{}]", view.buffer.value())))?;
        let elem = size * comps;
        let stride = view.byte_stride.map_or(elem, |s| s.0);
        let start = view.byte_offset.map_or(0, |o| o.0) as usize;
        let view_len = view.byte_length.0 as usize;
        let view_bytes = buffer
            .get(start..start.saturating_add(view_len))
            .ok_or_else(|| bad(format!("{what}: bufferView runs past its buffer")))?;
        let offset = a.byte_offset.map_or(0, |o| o.0) as usize;
        // The last element must end inside the view: checked before allocating.
        let needed = match count {
            0 => 0,
            c => (c - 1)
                .checked_mul(stride)
                .and_then(|x| x.checked_add(offset.checked_add(elem)?))
                .ok_or_else(|| bad(format!("{what}: count too large")))?,
        };
        if stride < elem || needed > view_bytes.len() {
            return Err(bad(format!(
                "{what}: {count} elements of {elem} bytes (stride {stride}) do not fit the {} bytes of its view",
                view_bytes.len()
            )));
        }
        // Paid for on every read: accessors shared by many primitives, morph targets,
        // joint sets or channels, and meshes instanced by many nodes, are copied each time.
        self.budget
            .charge_items::<f32>("glTF accessor data", count.saturating_mul(comps))?;
        // Tightly packed floats, the common case: decoded in bulk.
        if ct.0 == ComponentType::F32 && stride == elem {
            if let Some(bytes) = view_bytes.get(offset..offset + count * elem) {
                return Ok(parsing_primitives::le_elements(bytes));
            }
        }
        let mut out = Vec::with_capacity(count * comps);
        for k in 0..count {
            let base = offset + k * stride;
            for c in 0..comps {
                let at = base + c * size;
                let b = &view_bytes[at..at + size];
                let x = component_value(ct.0, a.normalized, b);
                out.push(x);
            }
        }
        Ok(out)
    }

    /// Integer indices (u8/u16/u32 accessors), exact.
    fn read_indices(&self, index: json::Index<json::Accessor>) -> Result<Vec<u32>, CliError> {
        let i = index.value();
        let a = self
            .root
            .accessors
            .get(i)
            .ok_or_else(|| bad(format!("no accessors[{i}]")))?;
        if !matches!(
            a.component_type,
            Valid(json::accessor::GenericComponentType(
                ComponentType::U8 | ComponentType::U16 | ComponentType::U32
            ))
        ) {
            return Err(bad(format!(
                "accessors[{i}]: indices must be unsigned integers"
            )));
        }
        // u32 values above 2^24 do not survive f32; read them separately.
        if matches!(
            a.component_type,
            Valid(json::accessor::GenericComponentType(ComponentType::U32))
        ) {
            let f = self.read(index, 1)?; // bounds checks
            let view = &self.root.buffer_views[a.buffer_view.map_or(0, |v| v.value())];
            let buf = &self.buffers[view.buffer.value()];
            let stride = view.byte_stride.map_or(4, |s| s.0);
            let base = view.byte_offset.map_or(0, |o| o.0) as usize
                + a.byte_offset.map_or(0, |o| o.0) as usize;
            return Ok((0..f.len())
                .map(|k| {
                    let at = base + k * stride;
                    buf.get(at..at + 4)
                        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                })
                .collect());
        }
        Ok(self.read(index, 1)?.into_iter().map(|v| v as u32).collect())
    }

    fn vec3(&self, i: json::Index<json::Accessor>) -> Result<Vec<Vec3>, CliError> {
        Ok(self
            .read(i, 3)?
            .chunks_exact(3)
            .map(Vec3::from_slice)
            .collect())
    }

    fn run(mut self) -> Result<(Converted<Model>, Stored), CliError> {
        let root = self.root;
        let parents = parents(root)?;
        let worlds = world_matrices(root, &parents);
        let joints: Vec<usize> = root
            .skins
            .first()
            .map_or(Vec::new(), |s| s.joints.iter().map(|j| j.value()).collect());
        if root.skins.len() > 1 {
            self.out.lose(
                Feature::Skin,
                LossKind::Reduced,
                "skins",
                "only the first skin is kept (meshfmt-core has one skeleton)",
            );
        }
        self.skeleton(&joints, &parents, &worlds)?;
        self.textures()?;
        self.materials();
        // Meshes through the nodes that use them; static ones take the node's world
        // transform, skinned ones stay in bind space (glTF ignores their node transform).
        for (n, node) in root.nodes.iter().enumerate() {
            let Some(mesh_index) = node.mesh else {
                continue;
            };
            let mesh = root
                .meshes
                .get(mesh_index.value())
                .ok_or_else(|| bad(format!("nodes[{n}]: no meshes[{}]", mesh_index.value())))?;
            let skinned = node.skin.is_some_and(|s| s.value() == 0) && !joints.is_empty();
            let world = if skinned {
                self.bind_shape.unwrap_or(Mat4::IDENTITY)
            } else {
                worlds.get(n).copied().unwrap_or(Mat4::IDENTITY)
            };
            for (p, prim) in mesh.primitives.iter().enumerate() {
                let path = format!("meshes[{}].primitives[{p}]", mesh_index.value());
                if prim.mode != Valid(Mode::Triangles) {
                    self.out.lose(
                        Feature::Geometry,
                        LossKind::Dropped,
                        path,
                        "only triangle lists are imported",
                    );
                    continue;
                }
                let mut s = self.primitive(prim, &path, skinned)?;
                s.name = mesh
                    .name
                    .clone()
                    .or_else(|| node.name.clone())
                    .unwrap_or_default();
                if world != Mat4::IDENTITY {
                    let normal = world.inverse().transpose();
                    for v in &mut s.positions {
                        *v = world.transform_point3(*v);
                    }
                    for v in &mut s.normals {
                        *v = normal.transform_vector3(*v).normalize_or_zero();
                    }
                    for t in &mut s.tangents {
                        let d = world.transform_vector3(t.truncate()).normalize_or_zero();
                        *t = d.extend(t.w);
                    }
                    if world.determinant() < 0.0 {
                        for tri in s.indices.chunks_exact_mut(3) {
                            tri.swap(1, 2);
                        }
                    }
                }
                self.out.value.surfaces.push(s);
                let stored = primitive_attributes(root, prim);
                self.budget
                    .charge_items::<Attribute>("stored attribute types", stored.len())?;
                self.stored.surfaces.push(stored);
            }
        }
        self.animations(&joints)?;
        self.budget
            .charge("converted model", self.out.value.heap_bytes())?;
        Ok((self.out, self.stored))
    }

    fn primitive(
        &mut self,
        prim: &json::mesh::Primitive,
        path: &str,
        skinned: bool,
    ) -> Result<Surface, CliError> {
        let attr = |s: Semantic| prim.attributes.get(&Valid(s)).copied();
        let pos = attr(Semantic::Positions).ok_or_else(|| bad(format!("{path}: no POSITION")))?;
        let mut s = Surface {
            positions: self.vec3(pos)?,
            ..Default::default()
        };
        let n = s.positions.len();
        let same = |len: usize, what: &str| {
            if len == n {
                Ok(())
            } else {
                Err(bad(format!("{path}: {len} {what} for {n} positions")))
            }
        };
        if let Some(a) = attr(Semantic::Normals) {
            s.normals = self.vec3(a)?;
            same(s.normals.len(), "normals")?;
        }
        if let Some(a) = attr(Semantic::Tangents) {
            s.tangents = self
                .read(a, 4)?
                .chunks_exact(4)
                .map(Vec4::from_slice)
                .collect();
            same(s.tangents.len(), "tangents")?;
        }
        for (set, dst) in [(0, &mut s.uv0), (1, &mut s.uv1)] {
            if let Some(a) = attr(Semantic::TexCoords(set)) {
                *dst = self
                    .read(a, 2)?
                    .chunks_exact(2)
                    .map(Vec2::from_slice)
                    .collect();
                same(dst.len(), "texture coordinates")?;
                // KHR_texture_transform on the material's textures that read this set
                // (a dequantization, as gltfpack and `--compress` write): baked in.
                let material = prim
                    .material
                    .and_then(|m| self.root.materials.get(m.value()));
                if let Some(t) = material.and_then(|m| texture_transform(m, set)) {
                    for uv in dst.iter_mut() {
                        *uv = t.transform_point2(*uv);
                    }
                }
            }
        }
        if let Some(a) = attr(Semantic::Colors(0)) {
            let comps = self
                .root
                .accessors
                .get(a.value())
                .map_or(4, |x| if x.type_ == Valid(Type::Vec3) { 3 } else { 4 });
            s.colors = self
                .read(a, comps)?
                .chunks_exact(comps)
                .map(|v| Vec4::new(v[0], v[1], v[2], v.get(3).copied().unwrap_or(1.0)))
                .collect();
            same(s.colors.len(), "colors")?;
        }
        if skinned {
            self.budget
                .charge_items::<Vec<(u32, f32)>>("glTF skin weights", n)?;
            let mut pairs: Vec<Vec<(u32, f32)>> = vec![Vec::new(); n];
            for set in 0.. {
                let (Some(j), Some(w)) =
                    (attr(Semantic::Joints(set)), attr(Semantic::Weights(set)))
                else {
                    break;
                };
                let (j, w) = (self.read(j, 4)?, self.read(w, 4)?);
                same(j.len() / 4, "joint sets")?;
                same(w.len() / 4, "weight sets")?;
                self.budget
                    .charge_items::<[(u32, f32); 4]>("glTF skin weights", n)?;
                for (v, (j, w)) in j.chunks_exact(4).zip(w.chunks_exact(4)).enumerate() {
                    for k in 0..4 {
                        if w[k] > 0.0 {
                            pairs[v].push((j[k] as u32, w[k]));
                        }
                    }
                }
            }
            // The file's order, unless there are more pairs than meshfmt-core holds.
            s.skin = pairs
                .into_iter()
                .map(|p| {
                    if p.len() <= MAX_INFLUENCES {
                        VertexInfluences::from_pairs(p)
                    } else {
                        VertexInfluences::from_pairs_strongest(p)
                    }
                })
                .collect();
        }
        s.indices = match prim.indices {
            Some(i) => self.read_indices(i)?,
            None => {
                self.budget.charge_items::<u32>("glTF indices", n)?;
                (0..n as u32).collect()
            }
        };
        if let Some(&bad_index) = s.indices.iter().find(|&&i| i as usize >= n) {
            return Err(bad(format!(
                "{path}: index {bad_index} out of range for {n} vertices"
            )));
        }
        s.indices.truncate(s.indices.len() / 3 * 3);
        s.material = prim
            .material
            .map(|m| m.value())
            .filter(|&m| m < self.root.materials.len());
        for (t, target) in prim.targets.iter().flatten().enumerate() {
            let Some(p) = target.positions else { continue };
            let positions = self.vec3(p)?;
            same(positions.len(), "morph positions")?;
            let normals = match target.normals {
                Some(a) => self.vec3(a)?,
                None => Vec::new(),
            };
            if !normals.is_empty() {
                same(normals.len(), "morph normals")?;
            }
            s.morph_targets.push(MorphTarget {
                name: format!("target{t}"),
                kind: MorphKind::Delta,
                positions,
                normals,
            });
        }
        Ok(s)
    }

    fn skeleton(
        &mut self,
        joints: &[usize],
        parents: &[Option<usize>],
        worlds: &[Mat4],
    ) -> Result<(), CliError> {
        let root = self.root;
        let Some(skin) = root.skins.first() else {
            return Ok(());
        };
        let ibm = match skin.inverse_bind_matrices {
            Some(a) => self.read(a, 16)?,
            None => Vec::new(),
        };
        if !ibm.is_empty() && ibm.len() != joints.len() * 16 {
            // (checked before the matrices are taken apart below)
            return Err(bad(format!(
                "skins[0]: {} inverse bind matrices for {} joints",
                ibm.len() / 16,
                joints.len()
            )));
        }
        let mut ibm: Vec<Mat4> = ibm.chunks_exact(16).map(Mat4::from_cols_slice).collect();
        // A bind shape common to every joint (a dequantization in the inverse bind
        // matrices) moves to the skinned positions.
        let shapes: Vec<Mat4> = joints
            .iter()
            .zip(&ibm)
            .map(|(&n, m)| worlds.get(n).copied().unwrap_or(Mat4::IDENTITY) * *m)
            .collect();
        if let Some(first) = shapes.first() {
            let scale = first
                .abs()
                .to_cols_array()
                .iter()
                .fold(0.0f32, |a, &b| a.max(b));
            let same = shapes
                .iter()
                .all(|m| m.abs_diff_eq(*first, 1e-4 * scale.max(1.0)));
            let identity = first.abs_diff_eq(Mat4::IDENTITY, 1e-4);
            if same
                && !identity
                && first.determinant().abs() > f32::MIN_POSITIVE
                && first.is_finite()
            {
                let undo = first.inverse();
                for m in &mut ibm {
                    *m *= undo;
                }
                self.bind_shape = Some(*first);
            }
        }
        let joint_of = joint_indices(root, joints);
        let nearest = nearest_joint_ancestors(parents, &joint_of);
        for (b, &n) in joints.iter().enumerate() {
            let node = root
                .nodes
                .get(n)
                .ok_or_else(|| bad(format!("skins[0].joints[{b}]: no nodes[{n}]")))?;
            // The nearest ancestor that is a joint too.
            let parent = nearest.get(n).copied().flatten();
            self.out.value.skeleton.bones.push(Bone {
                name: node.name.clone().unwrap_or_else(|| format!("joint{b}")),
                parent,
                rest: local_transform(node),
                inverse_bind: ibm.get(b).copied(),
            });
        }
        Ok(())
    }

    /// The clip events in animation `a`'s extras (`meshfmt_events`, as our writer puts
    /// them; other extras are ignored), bones by name; an event naming a bone the
    /// skeleton lacks stays with the clip, and one that does not parse is reported.
    fn events(
        &mut self,
        a: usize,
        anim: &json::Animation,
        bone_named: &std::collections::HashMap<String, usize>,
    ) -> Result<Vec<ClipEvent>, CliError> {
        let Some(raw) = anim.extras.as_ref() else {
            return Ok(Vec::new());
        };
        let text = raw.get();
        // A parsed JSON value takes a few times its text: charged before it is made.
        self.budget.charge(
            "glTF animation extras",
            (text.len() as u64).saturating_mul(8),
        )?;
        let value: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
        let Some(list) = value.get("meshfmt_events").and_then(|v| v.as_array()) else {
            return Ok(Vec::new());
        };
        let mut events = Vec::with_capacity(list.len());
        let mut bad_events = 0usize;
        for e in list {
            let time = e
                .get("time")
                .and_then(serde_json::Value::as_f64)
                .map(|t| t as f32);
            let props = e.get("props").and_then(|p| p.as_array()).map(|pairs| {
                pairs
                    .iter()
                    .filter_map(|kv| {
                        let kv = kv.as_array()?;
                        Some((
                            kv.first()?.as_str()?.to_string(),
                            kv.get(1)?.as_str()?.to_string(),
                        ))
                    })
                    .collect::<Vec<_>>()
            });
            let (Some(time), Some(props)) = (time.filter(|t| t.is_finite()), props) else {
                bad_events += 1;
                continue;
            };
            let bone = e
                .get("bone")
                .and_then(|b| b.as_str())
                .and_then(|name| bone_named.get(name).copied());
            events.push(ClipEvent { time, bone, props });
        }
        if bad_events > 0 {
            self.out.lose(
                Feature::Animation,
                LossKind::Dropped,
                format!("animations[{a}].extras"),
                format!("{bad_events} events without a finite time or a props list"),
            );
        }
        events.sort_by(|x, y| x.time.total_cmp(&y.time));
        Ok(events)
    }

    fn animations(&mut self, joints: &[usize]) -> Result<(), CliError> {
        let root = self.root;
        let joint_of = joint_indices(root, joints);
        // Events name their bones: one look-up table for all of them (the first bone of a
        // name wins), made only when some animation has extras.
        let mut bone_named = std::collections::HashMap::new();
        if root.animations.iter().any(|a| a.extras.is_some()) {
            let bones = &self.out.value.skeleton.bones;
            let names: u64 = bones.iter().map(|b| b.name.len() as u64 + 48).sum();
            self.budget.charge("bone names of clip events", names)?;
            for (i, b) in bones.iter().enumerate() {
                bone_named.entry(b.name.clone()).or_insert(i);
            }
        }
        for (a, anim) in root.animations.iter().enumerate() {
            let mut clip = Clip {
                name: anim.name.clone().unwrap_or_default(),
                channels: Vec::new(),
                events: self.events(a, anim, &bone_named)?,
            };
            // Channel of each bone in this clip, so a lookup per glTF channel is O(1).
            let mut channel_of: std::collections::HashMap<usize, usize> =
                std::collections::HashMap::new();
            for (c, ch) in anim.channels.iter().enumerate() {
                let Some(bone) = joint_of.get(ch.target.node.value()).copied().flatten() else {
                    self.out.lose(
                        Feature::Animation,
                        LossKind::Dropped,
                        format!("animations[{a}].channels[{c}]"),
                        "targets a node that is not a joint of the skin",
                    );
                    continue;
                };
                let sampler = anim
                    .samplers
                    .get(ch.sampler.value())
                    .ok_or_else(|| bad(format!("animations[{a}].channels[{c}]: no sampler")))?;
                let interpolation = match sampler.interpolation {
                    Valid(GInterp::Step) => Interpolation::Step,
                    Valid(GInterp::CubicSpline) => {
                        self.out.lose(
                            Feature::Animation,
                            LossKind::Reduced,
                            format!("animations[{a}].samplers[{}]", ch.sampler.value()),
                            "cubic spline keys are imported as linear (tangents dropped)",
                        );
                        Interpolation::Linear
                    }
                    _ => Interpolation::Linear,
                };
                let times: Vec<f32> = self.read(sampler.input, 1)?;
                let cubic = sampler.interpolation == Valid(GInterp::CubicSpline);
                // Cubic splines store in-tangent, value, out-tangent per key.
                let pick = |v: Vec<f32>, n: usize| -> Vec<f32> {
                    if cubic {
                        v.chunks_exact(n)
                            .skip(1)
                            .step_by(3)
                            .flatten()
                            .copied()
                            .collect()
                    } else {
                        v
                    }
                };
                let idx = *channel_of.entry(bone).or_insert_with(|| {
                    clip.channels.push(Channel {
                        bone,
                        translation: Track::default(),
                        rotation: Track::default(),
                        scale: Track::default(),
                    });
                    clip.channels.len() - 1
                });
                let channel = &mut clip.channels[idx];
                let mismatch = || {
                    bad(format!(
                        "animations[{a}].samplers[{}]: output count differs from input count",
                        ch.sampler.value()
                    ))
                };
                match ch.target.path {
                    Valid(Property::Translation) | Valid(Property::Scale) => {
                        let values: Vec<Vec3> = pick(self.read(sampler.output, 3)?, 3)
                            .chunks_exact(3)
                            .map(Vec3::from_slice)
                            .collect();
                        if values.len() != times.len() {
                            return Err(mismatch());
                        }
                        self.budget
                            .charge_items::<f32>("glTF key times", times.len())?;
                        let track = Track {
                            times: times.clone(),
                            values,
                            interpolation,
                        };
                        if ch.target.path == Valid(Property::Translation) {
                            channel.translation = track
                        } else {
                            channel.scale = track
                        }
                    }
                    Valid(Property::Rotation) => {
                        let values: Vec<Quat> = pick(self.read(sampler.output, 4)?, 4)
                            .chunks_exact(4)
                            .map(Quat::from_slice)
                            .collect();
                        if values.len() != times.len() {
                            return Err(mismatch());
                        }
                        channel.rotation = Track {
                            times,
                            values,
                            interpolation,
                        };
                    }
                    _ => self.out.lose(
                        Feature::MorphTargets,
                        LossKind::Dropped,
                        format!("animations[{a}].channels[{c}]"),
                        "morph weight animation has no place in meshfmt-core",
                    ),
                }
            }
            self.out.value.animations.push(clip);
        }
        Ok(())
    }

    fn textures(&mut self) -> Result<(), CliError> {
        let root = self.root;
        for (t, tex) in root.textures.iter().enumerate() {
            let image = root.images.get(tex.source.value());
            let embedded = image.and_then(|i| i.buffer_view).and_then(|v| {
                let view = root.buffer_views.get(v.value())?;
                let start = view.byte_offset.map_or(0, |o| o.0) as usize;
                let end = start.checked_add(view.byte_length.0 as usize)?;
                self.buffers.get(view.buffer.value())?.get(start..end)
            });
            let source = match (image.and_then(|i| i.uri.clone()), embedded) {
                (Some(uri), _) if !uri.starts_with("data:") => TextureSource::Path(uri),
                (_, Some(bytes)) => {
                    match RgbaImage::decode_png_in(bytes, 64 << 20, self.budget)? {
                        Some(img) => TextureSource::Embedded(img),
                        None => {
                            self.out.lose(Feature::Textures, LossKind::Reduced, format!("textures[{t}]"), "embedded image is not a PNG this reader decodes: kept by name only");
                            TextureSource::Path(String::new())
                        }
                    }
                }
                _ => {
                    self.out.lose(
                        Feature::Textures,
                        LossKind::Reduced,
                        format!("textures[{t}]"),
                        "data-URI images are kept by name only",
                    );
                    TextureSource::Path(String::new())
                }
            };
            let name = image
                .and_then(|i| i.name.clone())
                .or_else(|| tex.name.clone())
                .unwrap_or_default();
            let stored = match (image.and_then(|i| i.uri.as_deref()), embedded) {
                (Some(uri), _) => match uri.strip_prefix("data:") {
                    // Base64: 3 bytes per 4 characters.
                    Some(rest) => (
                        "data URI".into(),
                        rest.split_once(',')
                            .map(|(_, b64)| b64.len() as u64 / 4 * 3),
                    ),
                    None => (format!("file {uri}"), None),
                },
                (None, Some(bytes)) => ("embedded".into(), Some(bytes.len() as u64)),
                (None, None) => ("missing".into(), None),
            };
            self.stored.textures.push(stored);
            self.out.value.textures.push(Texture { name, source });
        }
        Ok(())
    }

    fn materials(&mut self) {
        for m in &self.root.materials {
            let pbr = &m.pbr_metallic_roughness;
            let mut textures = Vec::new();
            let mut bind = |role, info: Option<(usize, u32)>| {
                if let Some((texture, uv_set)) = info {
                    textures.push(TextureBinding {
                        role,
                        texture,
                        uv_set,
                    });
                }
            };
            bind(
                TextureRole::BaseColor,
                pbr.base_color_texture
                    .as_ref()
                    .map(|i| (i.index.value(), i.tex_coord)),
            );
            bind(
                TextureRole::MetallicRoughness,
                pbr.metallic_roughness_texture
                    .as_ref()
                    .map(|i| (i.index.value(), i.tex_coord)),
            );
            bind(
                TextureRole::Normal,
                m.normal_texture
                    .as_ref()
                    .map(|i| (i.index.value(), i.tex_coord)),
            );
            bind(
                TextureRole::Occlusion,
                m.occlusion_texture
                    .as_ref()
                    .map(|i| (i.index.value(), i.tex_coord)),
            );
            bind(
                TextureRole::Emissive,
                m.emissive_texture
                    .as_ref()
                    .map(|i| (i.index.value(), i.tex_coord)),
            );
            textures.retain(|b| b.texture < self.root.textures.len());
            self.out.value.materials.push(Material {
                name: m.name.clone().unwrap_or_default(),
                base_color: Vec4::from_array(pbr.base_color_factor.0),
                metallic: pbr.metallic_factor.0,
                roughness: pbr.roughness_factor.0,
                emissive: Vec3::from_array(m.emissive_factor.0),
                textures,
            });
        }
    }
}

fn local_transform(node: &json::Node) -> Transform {
    if let Some(m) = node.matrix {
        return Transform::from_mat4(&Mat4::from_cols_array(&m));
    }
    Transform {
        translation: Vec3::from_array(node.translation.unwrap_or([0.0; 3])),
        rotation: node
            .rotation
            .map_or(Quat::IDENTITY, |q| Quat::from_array(q.0)),
        scale: Vec3::from_array(node.scale.unwrap_or([1.0; 3])),
    }
}

/// Each node's parent; refuses a node with two parents or a cycle (both invalid glTF).
pub(crate) fn parents(root: &json::Root) -> Result<Vec<Option<usize>>, CliError> {
    let n = root.nodes.len();
    let mut parent = vec![None; n];
    for (p, node) in root.nodes.iter().enumerate() {
        for c in node.children.iter().flatten() {
            let c = c.value();
            let slot = parent
                .get_mut(c)
                .ok_or_else(|| bad(format!("nodes[{p}]: no child nodes[{c}]")))?;
            if slot.is_some() || c == p {
                return Err(bad(format!(
                    "nodes[{c}] has two parents or is its own child"
                )));
            }
            *slot = Some(p);
        }
    }
    // A cycle: with one parent each, a node on a cycle never reaches a root. Each node is
    // walked once (0 new, 1 on the walk in progress, 2 reaches a root).
    let mut state = vec![0u8; n];
    let mut walk = Vec::new();
    for start in 0..n {
        walk.clear();
        let mut at = Some(start);
        while let Some(i) = at {
            match state[i] {
                0 => {
                    state[i] = 1;
                    walk.push(i);
                    at = parent[i];
                }
                1 => return Err(bad(format!("nodes[{i}] is in a cycle"))),
                _ => break,
            }
        }
        for &i in &walk {
            state[i] = 2;
        }
    }
    Ok(parent)
}

/// Every node's world matrix, each computed once from its parent's (the graph is a
/// forest: `parents` refused cycles).
fn world_matrices(root: &json::Root, parents: &[Option<usize>]) -> Vec<Mat4> {
    let n = root.nodes.len();
    let mut world: Vec<Option<Mat4>> = vec![None; n];
    let mut chain = Vec::new();
    for start in 0..n {
        chain.clear();
        let mut at = Some(start);
        let mut base = Mat4::IDENTITY;
        while let Some(i) = at {
            if let Some(m) = world.get(i).copied().flatten() {
                base = m;
                break;
            }
            if chain.len() > n {
                break; // unreachable after `parents`; a guard, not a walk
            }
            chain.push(i);
            at = parents.get(i).copied().flatten();
        }
        for &i in chain.iter().rev() {
            if let Some(node) = root.nodes.get(i) {
                base *= local_transform(node).to_mat4();
            }
            world[i] = Some(base);
        }
    }
    world
        .into_iter()
        .map(|m| m.unwrap_or(Mat4::IDENTITY))
        .collect()
}

/// The joint (skin bone) index of every node that is one.
fn joint_indices(root: &json::Root, joints: &[usize]) -> Vec<Option<usize>> {
    let mut of = vec![None; root.nodes.len()];
    for (b, &n) in joints.iter().enumerate() {
        if let Some(slot) = of.get_mut(n) {
            slot.get_or_insert(b);
        }
    }
    of
}

/// For every node, the joint index of its nearest proper ancestor that is a joint,
/// computed top-down once per node.
fn nearest_joint_ancestors(
    parents: &[Option<usize>],
    joint_of: &[Option<usize>],
) -> Vec<Option<usize>> {
    let n = parents.len();
    // The answer for a node's children: the node itself if it is a joint, else its own
    // nearest joint ancestor.
    let mut below: Vec<Option<Option<usize>>> = vec![None; n];
    let mut out = vec![None; n];
    let mut chain = Vec::new();
    for start in 0..n {
        chain.clear();
        let mut at = Some(start);
        let mut inherited = None;
        while let Some(i) = at {
            if let Some(b) = below.get(i).copied().flatten() {
                inherited = b;
                break;
            }
            if chain.len() > n {
                break;
            }
            chain.push(i);
            at = parents.get(i).copied().flatten();
        }
        // `inherited` is what the topmost node of the chain's parent passes down.
        for &i in chain.iter().rev() {
            out[i] = inherited;
            let mine = joint_of.get(i).copied().flatten().or(inherited);
            below[i] = Some(mine);
            inherited = mine;
        }
    }
    out
}

/// A relative URI as a file name: `%XX` escapes decoded (glTF URIs are URI-encoded:
/// `my%20file.bin`). A URI whose escapes are malformed or decode to something other than
/// UTF-8 is given as it is (the side-file policy judges the name, escapes included).
pub(crate) fn percent_decoded(uri: &str) -> std::borrow::Cow<'_, str> {
    if !uri.contains('%') {
        return uri.into();
    }
    let b = uri.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                Some(v) => {
                    out.push(v);
                    i += 3;
                    continue;
                }
                None => return uri.into(),
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).map_or_else(|_| uri.into(), Into::into)
}

#[cfg(test)]
mod tests {
    use super::{OBJECT_BYTES, parse_bound, percent_decoded};

    /// The bound counts objects, array elements and keys, never inside strings.
    #[test]
    fn the_parse_bound_counts_the_shape() {
        let o = 3 * OBJECT_BYTES;
        let e = 3 * super::ELEMENT_BYTES;
        let len = |s: &str| s.len() as u64;
        let doc = r#"{"nodes":[{},{}]}"#;
        assert_eq!(parse_bound(doc.as_bytes()), 3 * o + 2 * e + len(doc));
        let doc = r#"{"min":[1,2,3],"a":"{[,:]}\"{"}"#;
        // One object, three elements, one more key (the ',' between the members).
        assert_eq!(parse_bound(doc.as_bytes()), o + 4 * e + len(doc));
        assert_eq!(parse_bound(b"[]"), 2);
        // A million empty nodes cannot pass 64 MiB before parsing.
        let mut many = String::from(r#"{"nodes":["#);
        many.push_str(&vec!["{}"; 1_000_000].join(","));
        many.push_str("]}");
        assert!(parse_bound(many.as_bytes()) > 700 << 20);
    }

    /// The bound as first written, one byte at a time with a stack of flags: the fast
    /// one must agree with it on any bytes, JSON or not.
    fn parse_bound_by_bytes(json: &[u8]) -> u64 {
        let (mut objects, mut elements) = (0u64, 0u64);
        let (mut in_string, mut escaped) = (false, false);
        let mut stack: Vec<(bool, bool)> = Vec::new();
        for &b in json {
            if in_string {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            let starts_value =
                !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b',' | b':' | b']' | b'}');
            if starts_value {
                if let Some((true, seen)) = stack.last_mut() {
                    if !*seen {
                        *seen = true;
                        elements += 1;
                    }
                }
            }
            match b {
                b'"' => in_string = true,
                b'{' => {
                    objects += 1;
                    stack.push((false, false));
                }
                b'[' => stack.push((true, false)),
                b']' | b'}' => {
                    stack.pop();
                }
                b',' => match stack.last_mut() {
                    Some((true, seen)) => *seen = false,
                    Some((false, _)) => elements += 1,
                    None => {}
                },
                _ => {}
            }
        }
        objects
            .saturating_mul(3 * OBJECT_BYTES)
            .saturating_add(elements.saturating_mul(3 * super::ELEMENT_BYTES))
            .saturating_add(json.len() as u64)
    }

    #[test]
    fn the_fast_parse_bound_is_the_byte_by_byte_one() {
        // Bytes drawn from JSON's structural alphabet (and a few others), so nesting,
        // strings, escapes and stray separators all occur; xorshift64*, fixed seed.
        const ALPHABET: &[u8] = b"{}[],:\"\\ \n1a-.e";
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        for _ in 0..20_000 {
            let len = (next() % 40) as usize;
            let doc: Vec<u8> = (0..len)
                .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
                .collect();
            assert_eq!(
                parse_bound(&doc),
                parse_bound_by_bytes(&doc),
                "{}",
                String::from_utf8_lossy(&doc)
            );
        }
        let real = r#"{"accessors":[{"min":[-1.5,0,2e3],"max":[ 1 , 2 ,3 ]}],"s":"a\"[,"}"#;
        assert_eq!(
            parse_bound(real.as_bytes()),
            parse_bound_by_bytes(real.as_bytes())
        );
    }

    #[test]
    fn texture_transform_is_the_specifications_matrix() -> Result<(), Box<dyn std::error::Error>> {
        use gltf_json as json;
        // The specification's example: offset (0, 1), a quarter turn, scale 0.5. By hand
        // from translation * rotation * scale (GLSL columns): (1, 0) -> scale (0.5, 0)
        // -> rotate 0.5 * (cos, sin) = (0, 0.5) -> offset (0, 1.5); (0, 1) -> (0, 0.5)
        // -> 0.5 * (-sin, cos) = (-0.5, 0) -> (-0.5, 1).
        let m: json::Material = json::deserialize::from_str(
            r#"{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0, "texCoord": 1,
                "extensions": {"KHR_texture_transform":
                  {"offset": [0, 1], "rotation": 1.57079632679, "scale": [0.5, 0.5]}}}}}"#,
        )?;
        assert!(super::texture_transform(&m, 0).is_none());
        let t = super::texture_transform(&m, 1).ok_or("no transform for UV set 1")?;
        let a = t.transform_point2(meshfmt_core::glam::Vec2::new(1.0, 0.0));
        let b = t.transform_point2(meshfmt_core::glam::Vec2::new(0.0, 1.0));
        assert!(
            (a - meshfmt_core::glam::Vec2::new(0.0, 1.5)).length() < 1e-6,
            "{a}"
        );
        assert!(
            (b - meshfmt_core::glam::Vec2::new(-0.5, 1.0)).length() < 1e-6,
            "{b}"
        );
        Ok(())
    }

    /// Escapes decode before the policy sees the name, so `..%2F` is judged as `../`;
    /// malformed escapes and non-UTF-8 results keep the URI as it is.
    #[test]
    fn uris_are_percent_decoded() {
        assert_eq!(percent_decoded("my%20file.bin"), "my file.bin");
        assert_eq!(
            percent_decoded("..%2F..%2Fetc%2Fpasswd"),
            "../../etc/passwd"
        );
        assert_eq!(percent_decoded("a%2"), "a%2");
        assert_eq!(percent_decoded("a%zz"), "a%zz");
        assert_eq!(percent_decoded("%ff.bin"), "%ff.bin");
        assert_eq!(percent_decoded("%00"), "\0");
    }
}
