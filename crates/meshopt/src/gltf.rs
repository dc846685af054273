//! The glTF side of EXT_meshopt_compression: the `mode` and `filter` strings of a
//! bufferView's extension object, and [`decode_gltf_buffer`], which decodes a
//! compressed bufferView as three.js's `MeshoptDecoder.decodeGltfBuffer` does.

use crate::error::{DecodeError, decode_len};
use crate::filter::{decode_filter_exp, decode_filter_oct, decode_filter_quat};
use crate::index::{U16Bytes, U32Bytes, decode_sequence, decode_triangles};
use crate::vertex::decode_vertex_buffer;

/// The `mode` of a compressed bufferView: which codec its bytes use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// `"ATTRIBUTES"`: the vertex codec (any data with a stride that is a multiple of 4).
    Attributes,
    /// `"TRIANGLES"`: the triangle list index codec.
    Triangles,
    /// `"INDICES"`: the index sequence codec.
    Indices,
}

impl Mode {
    /// The string glTF stores.
    ///
    /// ```
    /// assert_eq!(meshfmt_meshopt::Mode::Triangles.as_str(), "TRIANGLES");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Attributes => "ATTRIBUTES",
            Mode::Triangles => "TRIANGLES",
            Mode::Indices => "INDICES",
        }
    }

    /// The mode a glTF string names, if any.
    ///
    /// ```
    /// use meshfmt_meshopt::Mode;
    /// assert_eq!(Mode::from_gltf("INDICES"), Some(Mode::Indices));
    /// assert_eq!(Mode::from_gltf("indices"), None);
    /// ```
    pub fn from_gltf(s: &str) -> Option<Mode> {
        [Mode::Attributes, Mode::Triangles, Mode::Indices]
            .into_iter()
            .find(|m| m.as_str() == s)
    }
}

/// The `filter` of a compressed bufferView (mode `ATTRIBUTES` only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Filter {
    /// `"NONE"` (the default when the property is absent).
    #[default]
    None,
    /// `"OCTAHEDRAL"`: unit vectors, stride 4 or 8.
    Octahedral,
    /// `"QUATERNION"`: unit quaternions, stride 8.
    Quaternion,
    /// `"EXPONENTIAL"`: floats, stride a multiple of 4.
    Exponential,
}

impl Filter {
    /// The string glTF stores.
    ///
    /// ```
    /// assert_eq!(meshfmt_meshopt::Filter::Octahedral.as_str(), "OCTAHEDRAL");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Filter::None => "NONE",
            Filter::Octahedral => "OCTAHEDRAL",
            Filter::Quaternion => "QUATERNION",
            Filter::Exponential => "EXPONENTIAL",
        }
    }

    /// The filter a glTF string names, if any.
    ///
    /// ```
    /// use meshfmt_meshopt::Filter;
    /// assert_eq!(Filter::from_gltf("EXPONENTIAL"), Some(Filter::Exponential));
    /// assert_eq!(Filter::from_gltf("COLOR"), None);
    /// ```
    pub fn from_gltf(s: &str) -> Option<Filter> {
        [
            Filter::None,
            Filter::Octahedral,
            Filter::Quaternion,
            Filter::Exponential,
        ]
        .into_iter()
        .find(|f| f.as_str() == s)
    }
}

/// Decodes a compressed bufferView into `out` (`count * stride` bytes, the uncompressed
/// bufferView): `ATTRIBUTES` with the vertex codec and then `filter`, `TRIANGLES` and
/// `INDICES` with the index codecs, writing each index as a little-endian `u16`
/// (stride 2) or `u32` (stride 4). `encoded` is exactly the compressed range
/// (`byteOffset`, `byteLength` of the extension object).
///
/// Never panics and allocates nothing, whatever `encoded` holds.
///
/// # Errors
///
/// [`DecodeError::Argument`] for a combination the extension forbids (a stride the
/// mode or filter does not take, a filter on index data), [`DecodeError::OutputLength`]
/// when `out` is not `count * stride` bytes, and the other variants for an invalid
/// stream.
///
/// ```
/// use meshfmt_meshopt::{Filter, Mode, decode_gltf_buffer, encode_index_buffer};
///
/// let indices = [0u32, 1, 2, 2, 1, 3];
/// let encoded = encode_index_buffer(&indices)?;
/// let mut out = [0u8; 12]; // 6 x u16
/// decode_gltf_buffer(&mut out, 6, 2, &encoded, Mode::Triangles, Filter::None)?;
/// assert_eq!(out, [0, 0, 1, 0, 2, 0, 2, 0, 1, 0, 3, 0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decode_gltf_buffer(
    out: &mut [u8],
    count: usize,
    stride: usize,
    encoded: &[u8],
    mode: Mode,
    filter: Filter,
) -> Result<(), DecodeError> {
    match mode {
        Mode::Attributes => {
            if let Some(e) = crate::filter::filter_stride_problem(filter, stride) {
                return Err(e);
            }
            decode_vertex_buffer(out, count, stride, encoded)?;
            match filter {
                Filter::None => Ok(()),
                Filter::Octahedral => decode_filter_oct(out, count, stride),
                Filter::Quaternion => decode_filter_quat(out, count, stride),
                Filter::Exponential => decode_filter_exp(out, count, stride),
            }
        }
        Mode::Triangles | Mode::Indices => {
            if filter != Filter::None {
                return Err(DecodeError::Argument {
                    name: "filter",
                    value: filter as usize,
                    requirement: "index data takes no filter",
                });
            }
            if stride != 2 && stride != 4 {
                return Err(DecodeError::Argument {
                    name: "stride",
                    value: stride,
                    requirement: "index data needs 2 or 4",
                });
            }
            let len = decode_len(count, stride)?;
            if out.len() != len {
                return Err(DecodeError::OutputLength {
                    expected: len,
                    found: out.len(),
                });
            }
            match (mode, stride) {
                (Mode::Triangles, 2) => decode_triangles(&mut U16Bytes(out), encoded),
                (Mode::Triangles, _) => decode_triangles(&mut U32Bytes(out), encoded),
                (_, 2) => decode_sequence(&mut U16Bytes(out), encoded),
                _ => decode_sequence(&mut U32Bytes(out), encoded),
            }
        }
    }
}
