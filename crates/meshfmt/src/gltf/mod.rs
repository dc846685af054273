//! glTF 2.0 export: any meshfmt-core model as `.glb`, or `.gltf` with a separate or
//! embedded buffer, in glTF's frame (+Y up, right-handed, meters).
//!
//! What is written: one mesh and node per surface (positions with min/max, normals,
//! tangents, UV0/UV1, colors, u16 or u32 indices, morph targets), the skeleton as a node
//! hierarchy named after the bones with one skin (joints, inverse bind matrices,
//! JOINTS/WEIGHTS sets of four), every clip as an animation (one sampler per track,
//! strictly increasing times), materials (base color, metallic/roughness, emissive,
//! texture bindings) and textures (embedded pixels as PNG in the buffer, paths as URIs).
//! Whatever glTF cannot hold as given (non-unit normals, weights that do not sum to one,
//! repeated key times, empty surfaces) is repaired or dropped and reported in the loss
//! list, never silently.
//!
//! ```
//! use meshfmt::gltf::{Container, export};
//! use meshfmt_core::{glam::Vec3, Model, Surface};
//!
//! let model = Model {
//!     surfaces: vec![Surface {
//!         positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
//!         indices: vec![0, 1, 2],
//!         ..Default::default()
//!     }],
//!     ..Default::default()
//! };
//! let glb = export(&model, Container::Glb, &meshfmt_core::Budget::default())?.value;
//! assert_eq!(&glb.main[..4], b"glTF");
//! assert_eq!(glb.main.len() % 4, 0);
//! # Ok::<(), meshfmt::error::CliError>(())
//! ```

mod build;
mod compress;
mod contract;
mod glb;
mod import;
mod recompress;

pub use compress::Compression;
pub use contract::{FORMAT, Gltf};
pub use import::{import, sniff};
pub use recompress::recompress;

use gltf_json as json;
use meshfmt_core::{Budget, Converted, Model};

use crate::error::CliError;

/// How the document and its binary data are packaged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Container {
    /// One `.glb` file: JSON chunk and BIN chunk.
    Glb,
    /// `.gltf` JSON with the buffer in a separate file of this name (`model.bin`).
    Separate(String),
    /// `.gltf` JSON with the buffer inlined as a base64 data URI.
    Embedded,
}

/// The exported files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// The `.glb` or `.gltf` file.
    pub main: Vec<u8>,
    /// The separate buffer for [`Container::Separate`] (written beside the `.gltf`).
    pub buffer: Option<Vec<u8>>,
}

/// Exports `model` as glTF 2.0, with the list of what could not be carried as given.
/// The copies it makes (the model in glTF's frame, the buffer, the JSON, a data URI)
/// are charged to `budget`.
pub fn export(
    model: &Model,
    container: Container,
    budget: &Budget,
) -> Result<Converted<Exported>, CliError> {
    export_with(model, container, None, budget)
}

/// [`export`], compressed for delivery when `compression` is given (see
/// [`Compression`]): the quantization's error bounds join the losses.
///
/// ```
/// use meshfmt::gltf::{Compression, Container, export_with};
/// use meshfmt_core::{glam::Vec3, Model, Surface};
///
/// let model = Model {
///     surfaces: vec![Surface {
///         positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
///         indices: vec![0, 1, 2],
///         ..Default::default()
///     }],
///     ..Default::default()
/// };
/// let budget = meshfmt_core::Budget::default();
/// let glb = export_with(&model, Container::Glb, Some(Compression::MESHOPT), &budget)?;
/// let json = String::from_utf8_lossy(&glb.value.main);
/// assert!(json.contains("EXT_meshopt_compression"));
/// assert!(glb.value.main.len() < export(&model, Container::Glb, &budget)?.value.main.len() * 2);
/// # use meshfmt::gltf::export;
/// # Ok::<(), meshfmt::error::CliError>(())
/// ```
pub fn export_with(
    model: &Model,
    container: Container,
    compression: Option<Compression>,
    budget: &Budget,
) -> Result<Converted<Exported>, CliError> {
    let built = build::build(model, budget)?;
    let mut losses = built.losses;
    let (root, bin) = match compression {
        Some(c) => {
            let (root, bin, quantized) = compress::compress(built.root, &built.bin, c, budget)?;
            losses.extend(quantized);
            (root, bin)
        }
        None => (built.root, built.bin),
    };
    Ok(Converted {
        value: package(root, bin, container, compression.is_some(), budget)?,
        losses,
    })
}

/// The document and its one buffer in `container` (the JSON minified when `minify`,
/// as compressed output is).
fn package(
    mut root: json::Root,
    bin: Vec<u8>,
    container: Container,
    minify: bool,
    budget: &Budget,
) -> Result<Exported, CliError> {
    // The JSON (or, embedded, the base64 of the buffer) and the container's copy.
    budget.charge("glTF export", (bin.len() as u64).saturating_mul(2))?;
    Ok(match container {
        Container::Glb => {
            if !bin.is_empty() {
                root.buffers[0].uri = None;
            }
            let json = if minify {
                compress::minified(&root).map_err(|e| CliError::format("gltf", e.to_string()))?
            } else {
                root.to_vec().map_err(json_error)?
            };
            Exported {
                main: glb::write(&json, &bin)?,
                buffer: None,
            }
        }
        Container::Separate(name) => {
            if !bin.is_empty() {
                root.buffers[0].uri = Some(name);
            }
            Exported {
                main: root.to_vec_pretty().map_err(json_error)?,
                buffer: (!bin.is_empty()).then_some(bin),
            }
        }
        Container::Embedded => {
            if !bin.is_empty() {
                root.buffers[0].uri = Some(format!(
                    "data:application/octet-stream;base64,{}",
                    base64(&bin)
                ));
            }
            Exported {
                main: root.to_vec_pretty().map_err(json_error)?,
                buffer: None,
            }
        }
    })
}

fn json_error(e: gltf_json::Error) -> CliError {
    CliError::format("gltf", e.to_string())
}

/// Standard base64 with padding (RFC 4648), for data URIs.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ABC[(n >> shift) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_rfc4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, want) in cases {
            assert_eq!(super::base64(input.as_bytes()), want);
        }
    }
}
