//! UNIGINE mesh files: `.mesh`, `.smesh`, `.mesh_skinned` and `.skeleton`, read and written
//! without the SDK.
//!
//! | magic | extension | engine | status |
//! |---|---|---|---|
//! | `mi08` | `.mesh` | UNIGINE 1.x static | read/write from the official docs; no public sample exists, tested with hand-assembled files |
//! | `ms08` | `.smesh` | UNIGINE 1.x skinned | read/write from the official docs; no public sample exists, tested with hand-assembled files |
//! | `ms10` | `.mesh` | UNIGINE 2.0 | read/write, verified byte for byte on real files |
//! | `ms11` | `.mesh` | UNIGINE 2.x | read/write, verified byte for byte on real files |
//! | `ms13` | `.mesh` | UNIGINE 2.19 | read/write, verified byte for byte on real files |
//! | `ms14` | `.mesh` | UNIGINE 2.20 (LZ4 blocks: read by the crate's own decoder; new blocks compressed with feature `lz4`, on by default, else stored raw) | read/write, verified byte for byte on real files (original LZ4 bytes kept for unchanged blocks); new files from any version get an engine-shaped spatial tree ([`spatial`]) |
//! | `ms15` | `.mesh` | current docs, static | read/write **implemented from the documentation only, not verified against real files** ([`ms15`]) |
//! | `sk10` | `.mesh_skinned` | current docs, skinned | read/write **implemented from the documentation only, not verified against real files** ([`sk10`]) |
//! | `sn10` | `.skeleton` | current docs, shared skeleton | read/write **implemented from the documentation only, not verified against real files** ([`sn10`]) |
//!
//! Assumptions for the documented-only formats (the pages leave these open; details in
//! each module): every field the page calls `int` is a compact int and every `int32` /
//! `long` a fixed little-endian `i32` / `i64` (so sk10/sn10 joint counts are `i32` while
//! joint-name lengths stay compact); ms15 has no bind pose between its second marker
//! and the blocks; ms15/sk10 blocks, LZ4 handling, index widths, weights and spatial
//! trees are ms14's; sk10 bind and rest counts must equal the joint count; sn10
//! profile and retarget counts are copied through unchecked and new sn10 files get one
//! retarget entry per joint (mode 0, length -1); `int32`-length strings of length 0 read
//! as empty but are written with length 1. Unknown versions of a known family (`ms16`, `sk11`) are rejected as
//! `unsupported UNIGINE mesh version ...`.
//!
//! Layouts follow notes/unigine.md, which corrects the Chinese ms10 page: every count
//! and string length of ms10/ms11 is a compact int, ms10 tangents are 7 bytes and
//! ms11 tangents 8, index widths come from morph-target-0 counts, and the magic
//! appears three times.
//!
//! # Use
//! ```
//! use unigine_mesh::{MeshFile, WriteOptions, TargetVersion};
//! use meshfmt_core::{glam::Vec3, Model, Surface};
//!
//! let model = Model {
//!     coordinate_system: unigine_mesh::COORDINATE_SYSTEM,
//!     surfaces: vec![Surface {
//!         name: "tri".into(),
//!         positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
//!         indices: vec![0, 1, 2],
//!         ..Default::default()
//!     }],
//!     ..Default::default()
//! };
//! let converted = MeshFile::from_core_with(&model, &WriteOptions { version: TargetVersion::Ms11, ..Default::default() })?;
//! let bytes = converted.value.write()?;
//! let file = unigine_mesh::read(&bytes)?;           // faithful types
//! assert_eq!(file.version(), "ms11");
//! assert_eq!(file.write()?, bytes);                 // lossless rewrite
//! let back = file.to_core()?.value;                 // meshfmt-core model
//! assert_eq!(back.surfaces[0].positions[1], Vec3::X);
//! # Ok::<(), unigine_mesh::Error>(())
//! ```
//!
//! Faithful types ([`Ms1x`], [`Mi08`], [`Ms08`]) keep everything the file holds as
//! stored; `write(read(bytes)) == bytes` for every ms10/ms11 sample. Conversion to
//! meshfmt-core and back is described in [`convert`], including how the separate
//! coordinate and triangle index lists map to one index per corner.
//!
//! # Crates
//! This crate and `unigine-anim` share the UNIGINE-specific parts (bone lists, key
//! flags, version dispatch, skeleton conversion pieces) through `unigine-common`; its
//! items that appear here are re-exported ([`ReadOptions`], [`DEFAULT_FPS`], [`ms1x::BoneInfo`]), so
//! depend on this crate alone. Every version is one row of one table, which drives
//! reading by magic, writing, conversion and the format contract.
//!
//! # The no-panic contract
//! Every function here takes untrusted bytes and never panics, hangs or allocates
//! beyond what the input justifies; errors name the byte offset, the surface and the
//! field.
//!
//! # Memory and time
//! Every operation draws on the [`Budget`] of its options: a read ([`read_with`]), a
//! conversion to meshfmt-core ([`MeshFile::to_core_with`]) and one from it
//! ([`MeshFile::from_core_with`]); by default a fresh one of [`Limits::DEFAULT`] (1 GiB),
//! and the same one (clones share it) can run through read, `to_core` and
//! `from_core`. What the input makes grow is charged before it is allocated:
//! decoded arrays, the window an LZ4 block decodes through (at most 512 KiB, handed
//! back after) and the stored block unless it is a range of a shared input, indices
//! widened to 32 bits, the core vertex of every coordinate/tangent index pair, morph
//! targets, dense animation tracks from sparse keys, resampled frames, generated normals
//! and tangents, a copy of a model in another frame (one in UNIGINE's frame is encoded
//! as it is; sk10 always copies it) and ms14 spatial trees. An operation that would pass
//! the budget fails with [`Error::OverBudget`] (inside [`Error::Decode`] for a read)
//! naming what it was building. Frame counts of animations without bones cost
//! nothing, and no work grows faster than what it produces (spatial trees are at most
//! [`spatial::MAX_MIDPOINT_DEPTH`] plus log2(triangles) deep).
//!
//! # Derived data
//! Writers store derived data from the values, so an edited file never carries stale
//! data: bounds that no longer fit the vertices are rebuilt the engine's way
//! ([`Ms1x::bounds_to_write`]); an ms14 surface whose positions or triangles changed
//! gets a new spatial tree and edge flags ([`ms14::Ms14::trees_to_write`]; a tree
//! edited into an inconsistent state over unchanged geometry is rejected by
//! [`ms14::Ms14::problems`]); the ms14/sk10 memory estimate follows the block sizes; an
//! embedded animation's flag byte is the OR of its keys' flags. Unedited files,
//! every real sample included, are written back byte for byte.
//!
//! ```
//! assert!(unigine_mesh::sniff(b"ms11\x01\x05root\x00"));
//! assert!(!unigine_mesh::sniff(b"an10"));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod block;
pub mod common;

/// The unit tests' random cases: xorshift64 from `seed` (forced odd), so every run
/// tests the same cases.
#[cfg(test)]
pub(crate) fn test_rng(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}
mod contract;
pub mod convert;
mod error;
mod file;
mod input;
mod lz4;
#[cfg(feature = "lz4")]
mod lz4_write;
pub mod ms14;
pub mod ms15;
pub mod ms1x;
pub mod old;
mod options;
pub mod sk10;
pub mod sn10;
pub mod spatial;
mod summary;
pub mod tangent;
mod threads;
mod versions;

pub use meshfmt_core::{Budget, BudgetExceeded, Limits};
pub use unigine_common::ReadOptions;

pub use common::{BindTransform, Bounds};
pub use contract::{FORMAT, FORMAT_INFO, UnigineMesh};
pub use convert::{COORDINATE_SYSTEM, DEFAULT_FPS};
pub use error::{Error, Result};
pub use ms1x::{Ms1x, Ms1xVersion};
pub use old::{Mi08, Ms08};
pub use parsing_primitives::SharedBytes;
pub use versions::{
    CoreOptions, MeshFile, TargetVersion, WriteOptions, read, read_shared, read_shared_with,
    read_with,
};

/// Name used in error messages.
pub const FORMAT_NAME: &str = "unigine-mesh";

/// Every mesh magic this crate knows, in file order.
pub const MAGICS: [&[u8; 4]; versions::VERSIONS.rows.len()] = versions::MAGICS;

/// True when `data` starts with a UNIGINE mesh magic. Never allocates.
pub fn sniff(data: &[u8]) -> bool {
    versions::VERSIONS.sniff(data)
}

#[cfg(test)]
mod tests {
    #[test]
    fn sniff_refuses_a_near_magic() {
        assert!(!super::sniff(b"ms12"));
    }
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
