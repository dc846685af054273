//! Model 3D files: binary `.m3d` (`3DMO`) and ASCII `.a3d` (`3dmodel`).
//!
//! [`read`] (or [`read_with`] and its [`ReadOptions`]) gives a [`File`] holding exactly
//! what is stored: the HEAD type bits ([`Types`]), the string table and every chunk in file
//! order ([`Chunk`], [`Body`]), with quantized coordinates kept as their integers
//! ([`Coord`]) and indices as stored ([`Idx`], with m3d.h's -1/-2 sentinels). ASCII files
//! are read into the same [`File`] (f64 coordinates, u32 indices, literal colours).
//!
//! Writing: [`File::write`] / [`File::write_with`] ([`WriteOptions`]: compressed or not)
//! give the binary file, [`File::payload`] the uncompressed HEAD..OMD3 stream, which is
//! byte-identical to the one read; the zlib stream itself may differ from the original
//! encoder's (any valid stream loads). [`File::write_ascii`] (or
//! [`File::write_ascii_with`]) writes the text form. [`File::to_core`] and
//! [`File::from_core`] convert to and from meshfmt-core with a loss
//! list; [`File::to_core_with`] also takes a loader for external textures and a shared
//! material library ([`CoreOptions`]).
//!
//! # What the reference loader does after parsing
//! [`File::load`] gives a [`Loaded`] model the way m3d.h's `m3d_load` leaves it, with its
//! post-processing as explicit steps ([`LoadOptions`]): voxels meshed into triangles,
//! normals generated for faces without them, per-bone weight lists, inverse bind
//! matrices, inlined PNG textures decoded ([`Loaded::textures`]); [`load`] gives the same
//! model from the bytes in one pass, without the faithful [`File`] in between; then
//! [`Loaded::frame`] and [`Loaded::pose`] like `m3d_frame` and `m3d_pose`, without their
//! crashes and without mutating the model. On the public samples the counts and digests
//! equal the reference's where m3d.h is right (its ASCII voxel bug and its approximate
//! normals aside), and poses agree within 1e-5 ([`Loaded::pose_like_m3d_h`];
//! [`Loaded::pose`] also fixes a blend-factor bug).
//!
//! # For a summary (format, counts)
//! [`File::counts`] gives [`Counts`]: vertices, faces and triangles, bones, skins, actions
//! and their frames, materials, textures, CMAP/TMAP entries, shapes, labels, voxel types
//! and blocks, inlined assets and extra chunks. [`sniff_variant`] tells binary (compressed or
//! not, with a preview or not) from ASCII without parsing. [`File::compressed`], [`File::types`],
//! [`File::scale`] and [`File::header_strings`] (name, license, author, description) give
//! the rest. Surfaces are a meshfmt-core notion: `to_core()?.value.surfaces` (one per run
//! of faces after a use-material record).
//!
//! ```
//! let bytes = m3d_format::File::default().write()?;
//! let file = m3d_format::read(&bytes)?;
//! let c = file.counts();
//! assert_eq!((c.vertices, c.triangles, c.bones, c.actions), (0, 0, 0, 0));
//! # Ok::<(), m3d_format::Error>(())
//! ```
//!
//! # Where this crate follows the reference loader, and where not
//! The format documents and the reference loader m3d.h disagree in places; real files
//! follow m3d.h, and so does this crate: absent index types take no bytes even when a
//! record flag asks for them (WusonBlitz files), `inc` and `mesh` shape commands use
//! m3d.h's argument counts, vp_t is two bits, 1-bone skins have no weight bytes, TMAP
//! int8/int16 are unsigned, a material map with an empty name is not a texture.
//!
//! It does not copy m3d.h's mistakes: [`File::counts`] are the counts as stored (m3d.h's
//! "raw" configuration: no generated normals, no voxel meshing); labels are counted as
//! stored (m3d.h over-counts them); ASET chunks are not also counted as extra chunks;
//! polygons other than triangles are read (m3d.h stops at the first one); the ASCII voxel
//! layers are read correctly (m3d.h reads them all as type 0); names of any length are
//! read (m3d.h overflows a 256-byte buffer). Indices are kept as stored, listed by
//! [`File::problems`] when they point nowhere, and checked where they are used
//! ([`File::to_core`] drops and reports faces with an undefined vertex instead of reading
//! out of bounds). The ASCII reader skips `Preview` and `Assets` blocks (they name external
//! files it does not open).
//!
//! # The no-panic contract
//! Every function here takes untrusted bytes and never panics, hangs or allocates
//! beyond what the input justifies: every count is checked against the bytes left before
//! allocating, sizes from the file are computed with checked or saturating arithmetic,
//! errors name the byte offset (within the inflated payload for compressed files, within
//! the file otherwise) and the context path (`MESH[0].record[12].corner[1].vertex`).
//!
//! # Memory and time
//! Every operation draws on one [`Budget`] (by default a fresh one of
//! [`Limits::DEFAULT`], 1 GiB): reading ([`ReadOptions`]), [`File::to_core_with`]
//! ([`CoreOptions`]), [`File::from_core`] and writing ([`WriteOptions`]) and
//! [`File::load`] ([`LoadOptions`]) take `limits` for a fresh budget or `budget` to share
//! the caller's, so a read, to_core, from_core and write can run under one allowance.
//! What the input asks to be built is charged before it is allocated: the inflated
//! payload and the chunks decoded from it (records, polygon corners, skins, shape
//! commands, copied bytes), the ASCII reader's lines and records, names copied from the
//! string table, the loaded model and the triangles, normals and voxel geometry its steps
//! generate, to_core's surfaces, animation keys and textures (decoded, or as the caller's
//! reader returns them), from_core's frames (checked against the 65,535-frame limit
//! first), and the binary and text output. An operation that would pass its budget
//! returns [`Error::OverBudget`] naming what it was building (inside [`Error::Decode`] or
//! [`Error::Payload`], with the offset, while decoding); a zlib stream that inflates past
//! `max_alloc_bytes` on its own stays an [`Error::Inflate`]. The work follows the input,
//! not what it declares: names are matched through keys found in one pass over the
//! string table, voxel meshing visits only the voxels the runs code, actions touch only
//! the bones they move, and loss and problem lists give the first 100 of each kind and
//! a count of the rest.
//!
//! ```
//! use m3d_format::{Budget, CoreOptions, Error, File, Limits, ReadOptions, WriteOptions};
//! let bytes = File::default().write()?;
//! // One budget for the whole conversion: each step adds to it.
//! let budget = Budget::new(Limits::DEFAULT);
//! let file = m3d_format::read_with(&bytes, &ReadOptions { budget: budget.clone(), ..ReadOptions::default() })?;
//! let read = budget.used();
//! let core = file.to_core_with(&CoreOptions { budget: budget.clone(), ..Default::default() })?;
//! File::from_core_with(&core.value, &WriteOptions { budget: budget.clone(), ..WriteOptions::default() })?;
//! assert!(budget.used() > read);
//! // Too small an allowance is a typed error, not an allocation.
//! let tiny = Limits { max_alloc_bytes: 16, ..Limits::DEFAULT };
//! let e = file.write_ascii_with(&WriteOptions { budget: m3d_format::Budget::new(tiny), ..WriteOptions::default() }).unwrap_err();
//! assert!(matches!(e, Error::OverBudget(ref b) if b.what == "ASCII text"), "{e}");
//! # Ok::<(), m3d_format::Error>(())
//! ```
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
mod asset;
mod bones;
mod check;
mod chunk;
mod context;
mod contract;
mod convert;
mod counts;
mod direct;
mod error;
mod extra;
mod file;
mod from_core;
mod label;
mod load;
mod loaded;
mod material;
mod mesh;
mod options;
mod procedural;
mod read;
mod shape;
mod sniff;
mod texture;
mod types;
mod vertex;
mod voxel;
mod write;
mod zlib;

pub use bones::{Action, Bone, Frame, Skeleton, Transform};
pub use chunk::{Body, Chunk};
pub use contract::{FORMAT, FORMAT_INFO, Model3d};
pub use convert::CoreOptions;
pub use counts::Counts;
pub use direct::load;
#[doc(hidden)]
pub use direct::load_in_pieces;
pub use error::{Error, Result};
pub use file::File;
pub use label::Labels;
pub use load::{LoadOptions, Loaded};
pub use loaded::{LoadedBone, LoadedFace, LoadedSkin, LoadedVertex, LoadedVoxelType, PoseBone};
pub use material::{Material, PropValue, Property};
pub use mesh::{Corner, Corners, Mesh, MeshRecord};
pub use options::{Precision, ReadOptions, WriteOptions};
pub use parsing_primitives::{Budget, BudgetExceeded, Limits};
pub use read::{read, read_payload, read_with};
pub use shape::{ArgValue, Command, Shape};
pub use sniff::{Variant, sniff, sniff_variant};
pub use texture::LoadedTexture;
pub use types::{Coord, Idx, Skin, Str, Types, Vertex};
pub use vertex::Records;
pub use voxel::{Run, VoxelBlock, VoxelType};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
