//! Reading the accessors of a document the builder wrote (tight little-endian arrays in
//! one buffer), checked against their views: the compressor's only byte access.

use std::borrow::Cow;

use gltf_json as json;
use json::accessor::{ComponentType, Type};
use json::validation::Checked::Valid;

use crate::error::CliError;
pub(crate) use crate::gltf::import::component_size;
use crate::gltf::import::component_value;

fn bad(message: String) -> CliError {
    CliError::format("gltf", format!("compress: {message}"))
}

/// Components per element of an accessor type.
pub fn components(ty: Type) -> usize {
    match ty {
        Type::Scalar => 1,
        Type::Vec2 => 2,
        Type::Vec3 => 3,
        Type::Vec4 | Type::Mat2 => 4,
        Type::Mat3 => 9,
        Type::Mat4 => 16,
    }
}

/// An accessor's shape and its elements' bytes (each `elem` bytes, packed).
pub struct Raw<'a> {
    pub component: ComponentType,
    pub ty: Type,
    pub normalized: bool,
    pub count: usize,
    pub elem: usize,
    /// Borrowed from the buffer where the elements lie packed: an attribute of a large
    /// mesh is not copied only to be read once.
    pub bytes: Cow<'a, [u8]>,
}

/// Accessor `index` resolved in the buffer: its shape and the bytes of its view from
/// its first element on, every element checked to lie inside (offsets added without
/// overflow: a loaded document's offsets are untrusted).
pub struct Elements<'a> {
    pub component: ComponentType,
    pub ty: Type,
    pub normalized: bool,
    pub count: usize,
    /// Bytes per element.
    pub elem: usize,
    /// Bytes from one element to the next.
    pub stride: usize,
    data: &'a [u8],
}

impl<'a> Elements<'a> {
    /// Element `i`'s bytes.
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        let at = i.checked_mul(self.stride)?;
        self.data.get(at..at.checked_add(self.elem)?)
    }

    /// Every element's bytes, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        (0..self.count).filter_map(|i| self.get(i))
    }
}

/// Accessor `index`'s elements in `bin` (see [`Elements`]).
pub fn elements<'a>(
    root: &json::Root,
    bin: &'a [u8],
    index: usize,
) -> Result<Elements<'a>, CliError> {
    let what = format!("accessors[{index}]");
    let a = root
        .accessors
        .get(index)
        .ok_or_else(|| bad(format!("no {what}")))?;
    let (Valid(ty), Valid(ct)) = (a.type_, a.component_type) else {
        return Err(bad(format!("{what}: bad type")));
    };
    let component = ct.0;
    let elem = components(ty) * component_size(component);
    let count = usize::try_from(a.count.0).unwrap_or(usize::MAX);
    let view = a
        .buffer_view
        .and_then(|v| root.buffer_views.get(v.value()))
        .ok_or_else(|| bad(format!("{what}: no bufferView")))?;
    let stride = view.byte_stride.map_or(elem, |s| s.0);
    let view_start = view.byte_offset.map_or(0, |o| o.0);
    let range = view_start
        .checked_add(a.byte_offset.map_or(0, |o| o.0))
        .zip(view_start.checked_add(view.byte_length.0))
        .and_then(|(s, e)| Some(usize::try_from(s).ok()?..usize::try_from(e).ok()?));
    let data = range
        .and_then(|r| bin.get(r))
        .ok_or_else(|| bad(format!("{what}: view out of the buffer")))?;
    let needed = match count.checked_sub(1) {
        None => Some(0),
        Some(c) => c.checked_mul(stride).and_then(|x| x.checked_add(elem)),
    };
    if stride < elem || needed.is_none_or(|n| data.len() < n) {
        return Err(bad(format!("{what}: elements do not fit the view")));
    }
    Ok(Elements {
        component,
        ty,
        normalized: a.normalized,
        count,
        elem,
        stride,
        data,
    })
}

/// The packed elements of accessor `index`.
pub fn raw<'a>(root: &json::Root, bin: &'a [u8], index: usize) -> Result<Raw<'a>, CliError> {
    let e = elements(root, bin, index)?;
    let bytes = if e.stride == e.elem {
        Cow::Borrowed(e.data.get(..e.count * e.elem).unwrap_or_default())
    } else {
        let mut bytes = Vec::with_capacity(e.count * e.elem);
        e.iter().for_each(|x| bytes.extend_from_slice(x));
        Cow::Owned(bytes)
    };
    Ok(Raw {
        component: e.component,
        ty: e.ty,
        normalized: e.normalized,
        count: e.count,
        elem: e.elem,
        bytes,
    })
}

impl Raw<'_> {
    /// The elements as floats (normalized integers decoded as glTF specifies).
    pub fn floats(&self) -> Vec<f32> {
        // Floats, the common case: decoded in bulk.
        if self.component == ComponentType::F32 {
            return parsing_primitives::le_elements(&self.bytes);
        }
        let size = component_size(self.component);
        self.bytes
            .chunks_exact(size)
            .map(|b| component_value(self.component, self.normalized, b))
            .collect()
    }

    /// The elements as unsigned integers (indices, joints).
    pub fn uints(&self) -> Vec<u32> {
        let size = component_size(self.component);
        self.bytes
            .chunks_exact(size)
            .map(|b| match b.len() {
                1 => u32::from(b[0]),
                2 => u32::from(u16::from_le_bytes([b[0], b[1]])),
                _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            })
            .collect()
    }
}
