//! Reading the accessors of a document the builder wrote (tight little-endian arrays in
//! one buffer), checked against their views: the compressor's only byte access.

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
pub struct Raw {
    pub component: ComponentType,
    pub ty: Type,
    pub normalized: bool,
    pub count: usize,
    pub elem: usize,
    pub bytes: Vec<u8>,
}

/// The packed elements of accessor `index`.
pub fn raw(root: &json::Root, bin: &[u8], index: usize) -> Result<Raw, CliError> {
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
    let count = a.count.0 as usize;
    let view = a
        .buffer_view
        .and_then(|v| root.buffer_views.get(v.value()))
        .ok_or_else(|| bad(format!("{what}: no bufferView")))?;
    let stride = view.byte_stride.map_or(elem, |s| s.0);
    let start =
        view.byte_offset.map_or(0, |o| o.0 as usize) + a.byte_offset.map_or(0, |o| o.0 as usize);
    let end = view.byte_offset.map_or(0, |o| o.0 as usize) + view.byte_length.0 as usize;
    let data = bin
        .get(start..end)
        .ok_or_else(|| bad(format!("{what}: view out of the buffer")))?;
    let needed = count.checked_sub(1).map_or(0, |c| c * stride + elem);
    if stride < elem || data.len() < needed {
        return Err(bad(format!("{what}: elements do not fit the view")));
    }
    let mut bytes = Vec::with_capacity(count * elem);
    if stride == elem {
        bytes.extend_from_slice(&data[..count * elem]);
    } else {
        for i in 0..count {
            bytes.extend_from_slice(&data[i * stride..i * stride + elem]);
        }
    }
    Ok(Raw {
        component,
        ty,
        normalized: a.normalized,
        count,
        elem,
        bytes,
    })
}

impl Raw {
    /// The elements as floats (normalized integers decoded as glTF specifies).
    pub fn floats(&self) -> Vec<f32> {
        // Floats, the common case: decoded in bulk.
        if self.component == ComponentType::F32 {
            return self
                .bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
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
