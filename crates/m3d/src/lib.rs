//! Model 3D files: binary `.m3d` (`3DMO`) and ASCII `.a3d` (`3dmodel`).
//!
//! [`read`] gives a [`File`] holding exactly what is stored: the HEAD type bits, the string
//! table and every chunk in file order ([`Body`]), with quantized coordinates kept as their
//! integers ([`Coord`]) and indices as stored ([`Idx`], with m3d.h's -1/-2 sentinels).
//! [`File::write`] writes it back: the payload (HEAD..OMD3) is byte-identical to the one
//! read; the zlib stream may differ from the original encoder's (any valid stream loads).
//!
//! Where the format documents and the reference loader m3d.h disagree, this crate reads
//! what real files hold, which is what m3d.h does: absent index types take no bytes even
//! when a record flag asks for them, `inc` and `mesh` shape commands use m3d.h's argument
//! counts, the 2-bit vp_t field, 1-bone skins without weight bytes.
//!
//! # Not mirrored from m3d.h
//! [`File::counts`] are the counts as stored (m3d.h's "raw" configuration): no generated
//! normals, no voxel meshing. Labels are counted as stored (m3d.h over-counts them), ASET
//! chunks are not also counted as extra chunks, polygons other than triangles are read
//! (m3d.h stops at the first one).
//!
//! # The no-panic contract
//! Every function here takes untrusted bytes and never panics, hangs or allocates
//! beyond what the input justifies, unlike the reference loader: every count is checked
//! against the bytes left before allocating, the zlib stream inflates into at most
//! [`Limits::max_alloc_bytes`](parsing_primitives::Limits), errors name the byte offset
//! (within the inflated payload for compressed files) and the context path
//! (`MESH[0].record[12].corner[1].vertex`).
//!
//! ```
//! assert!(m3d_format::sniff(b"3DMO\x10\x00\x00\x00"));
//! assert!(m3d_format::sniff(b"3dmodel 1.0\r\n"));
//! assert!(!m3d_format::sniff(b"glTF"));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod ascii;
mod ascii_write;
mod bones;
mod convert;
mod error;
mod file;
mod from_core;
mod label;
mod material;
mod mesh;
mod shape;
mod types;
mod vertex;
mod voxel;

pub use bones::{Action, Bone, Frame, Skeleton, Skin, Transform};
pub use error::{Error, Result};
pub use file::{
    Body, Chunk, Counts, File, ReadOptions, WriteOptions, read, read_payload, read_with,
};
pub use label::Labels;
pub use material::{Material, PropValue, Property};
pub use mesh::{Corner, Mesh, MeshRecord};
pub use parsing_primitives::Limits;
pub use shape::{ArgValue, Command, Shape};
pub use types::{Coord, Idx, Str, Types};
pub use vertex::{Records, Vertex};
pub use voxel::{Run, VoxelBlock, VoxelType};

/// True for a binary model (`3DMO`) or an ASCII one (`3dmo`, as the reference checks:
/// the text starts with `3dmodel`). Never allocates.
pub fn sniff(data: &[u8]) -> bool {
    matches!(data.get(..4), Some(b"3DMO") | Some(b"3dmo"))
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
