//! Model 3D files: binary `.m3d` (`3DMO`) and ASCII `.a3d` (`3dmodel`).
//!
//! **Status:** binary files are read chunk by chunk into faithful types ([`Chunks`]):
//! the envelope with its optional preview and zlib stream (inflated under
//! [`Limits`], so a compression bomb is an error), HEAD
//! with its type bits and string table, CMAP, TMAP, VRTS, BONE with skins (1-bone
//! skins without weight bytes), MTRL with typed properties, MESH records (material and
//! parameter switches, polygons with the optional UV, normal and max-vertex fields),
//! VOXT/VOXD (run-length voxels, the volume checked against the limits first), LBLS,
//! ACTN, ASET, and SHPE, PROC and unknown chunks kept as bytes. Every quantization level
//! and index width, with m3d.h's -1/-2 index sentinels. Conversion to meshfmt-core
//! ([`Model3d::to_core`]) gives geometry, colours, UVs, materials, the skeleton, skins
//! and actions. Not yet: writing, the ASCII form, SHPE command decoding.
//!
//! Layouts follow notes/m3d.md, which says what real files and the reference loader
//! m3d.h do where the format documents disagree.
//!
//! # Use
//! ```
//! // The smallest model: HEAD with int8 coordinates, u8 indices, no optional fields,
//! // three vertices and one triangle, uncompressed.
//! let mut head = b"HEAD\x18\x00\x00\x00\x00\x00\x80\x3f".to_vec(); // scale 1.0
//! head.extend_from_slice(&0x03ff_cfc0u32.to_le_bytes()); // ci..vp absent
//! head.extend_from_slice(b"tri\0\0\0\0\0");              // name, licence, author, description
//! let vrts = [b"VRTS\x14\x00\x00\x00".as_slice(), &[0, 0, 0, 127, 127, 0, 0, 127, 0, 127, 0, 127]].concat();
//! let mesh = b"MESH\x0c\x00\x00\x00\x30\x00\x01\x02".to_vec();
//! let payload = [head, vrts, mesh, b"OMD3".to_vec()].concat();
//! let mut file = b"3DMO".to_vec();
//! file.extend_from_slice(&(8 + payload.len() as u32).to_le_bytes());
//! file.extend_from_slice(&payload);
//! let m = m3d_format::read(&file)?;
//! assert_eq!(m.chunks.head.titles()[0], "tri");
//! assert_eq!(m.chunks.vertices.len(), 3);
//! assert_eq!(m.chunks.triangle_count(), 1);
//! let core = m.to_core()?.value;
//! assert_eq!(core.surfaces[0].positions[1].x, 1.0);
//! # Ok::<(), m3d_format::Error>(())
//! ```
//!
//! # The no-panic contract
//! Every function here takes untrusted bytes and never panics, hangs or allocates
//! beyond what the input justifies, unlike the reference loader: every index is
//! checked before use, string references are bounds-checked, counts are checked against
//! the bytes left, and the crafted files that crash m3d.h (notes/m3d-reference-bugs.md)
//! give typed errors or correct values.
//!
//! ```
//! assert!(m3d_format::sniff(b"3DMO\x10\x00\x00\x00"));
//! assert!(m3d_format::sniff(b"3dmodel 1.0\r\n"));
//! assert!(!m3d_format::sniff(b"glTF"));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod chunks;
mod convert;
pub mod envelope;
mod error;
pub mod types;

pub use chunks::Chunks;
pub use error::{Error, Result};
pub use parsing_primitives::Limits;

use parsing_primitives::Reader;

/// Name used in error messages.
pub const FORMAT_NAME: &str = "m3d-format";

/// True for a binary model (`3DMO`) or an ASCII one (`3dmo`, as the reference checks:
/// the text starts with `3dmodel`). Never allocates.
pub fn sniff(data: &[u8]) -> bool {
    matches!(data.get(..4), Some(b"3DMO") | Some(b"3dmo"))
}

/// A binary Model 3D file.
#[derive(Debug, Clone, PartialEq)]
pub struct Model3d {
    /// The PRVW chunk's PNG, if any.
    pub preview: Option<Vec<u8>>,
    /// True when the chunks were zlib-compressed.
    pub compressed: bool,
    /// The chunks.
    pub chunks: Chunks,
}

/// Reading choices.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Caps on inflated size and allocations.
    pub limits: Limits,
}

/// Reads a binary file with the default limits.
pub fn read(data: &[u8]) -> Result<Model3d> {
    read_with(data, &ReadOptions::default())
}

/// Reads a binary file. Offsets in chunk errors are within the inflated HEAD..OMD3
/// payload.
pub fn read_with(data: &[u8], options: &ReadOptions) -> Result<Model3d> {
    if data.starts_with(b"3dmo") {
        return Err(Error::Unsupported(
            "the ASCII form (3dmodel) is not read yet".into(),
        ));
    }
    if !data.starts_with(b"3DMO") {
        let mut magic = [0u8; 4];
        for (m, b) in magic.iter_mut().zip(data) {
            *m = *b;
        }
        return Err(Error::NotM3d(magic));
    }
    let env = envelope::split(data, &options.limits)?;
    let mut r = Reader::new(FORMAT_NAME, &env.payload).with_limits(options.limits);
    let chunks = chunks::parse(&mut r)?;
    Ok(Model3d {
        preview: env.preview,
        compressed: env.compressed,
        chunks,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn sniff_both_forms() {
        assert!(super::sniff(b"3DMO"));
        assert!(super::sniff(b"3dmodel"));
        assert!(!super::sniff(b"3DM"));
        assert!(!super::sniff(b"3Dmo"));
    }
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
