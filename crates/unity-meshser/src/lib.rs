//! Unity MeshSerializer2: the compact binary mesh format of Aras Pranckevičius'
//! community script (2009), byte-compatible with the original.
//!
//! Layout, all little-endian (.NET `BinaryWriter`):
//!
//! | field | bytes |
//! |---|---|
//! | vertex count | `u16` (at most 64000) |
//! | triangle count | `u16` (at most 64000) |
//! | format | `u8`: 1 positions, 2 normals, 4 tangents, 8 UVs |
//! | position box | 6 x `f32`: xmin, xmax, ymin, ymax, zmin, zmax (only with vertices) |
//! | positions | `u16` x 3 per vertex across the box |
//! | normals | 3 bytes per vertex, `(b - 128) / 127` |
//! | tangents | 4 bytes per vertex, same encoding, w last |
//! | UV box | 4 x `f32`: umin, umax, vmin, vmax (only with vertices) |
//! | UVs | `u16` x 2 per vertex across the box |
//! | triangles | `u16` x 3 per triangle |
//!
//! The file has no magic; [`sniff`] checks that the header's counts and format predict
//! the file length exactly.
//!
//! # Use
//! ```
//! use meshfmt_core::{glam::Vec3, Surface};
//! use unity_meshser::{MeshFile, Quantization, WriteOptions};
//!
//! let surface = Surface {
//!     positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
//!     normals: vec![Vec3::Z; 3],
//!     indices: vec![0, 1, 2],
//!     ..Default::default()
//! };
//! let file = MeshFile::from_surface(&surface, &WriteOptions::default())?;
//! let bytes = file.write()?;
//! assert!(unity_meshser::sniff(&bytes));
//! let back = unity_meshser::read(&bytes)?.to_surface();
//! assert!(back.positions[1].abs_diff_eq(Vec3::X, 1e-6));
//! // The original script's exact output, quirks included:
//! let compatible = MeshFile::from_surface(&surface, &WriteOptions::compatible(false))?;
//! assert_eq!(compatible.write()?.len(), bytes.len());
//! # let _ = Quantization::Rounded;
//! # Ok::<(), unity_meshser::Error>(())
//! ```
//!
//! # Fidelity
//! - [`read`] decodes exactly as the original reader (single-precision
//!   `u / 65535.0 * (max - min) + min` and `(b - 128) / 127`) and turns its sanity
//!   checks into typed errors, adding the checks it lacks (array lengths against the
//!   bytes left, indices in range, trailing bytes).
//! - `write(read(bytes)) == bytes` for every valid file.
//! - [`Quantization::Compatible`] writes the bytes the original script writes for the
//!   same mesh; [`Quantization::Rounded`] (default) halves the worst-case error or
//!   better. The bounds are in [`quantize`].
//!
//! # The no-panic contract
//! No function here panics, hangs or allocates beyond what the input justifies on any
//! input; every truncation of a file is an error.
//!
//! # Memory and time
//! Every operation (a read, [`MeshFile::to_core_with`], [`MeshFile::from_core_with`],
//! [`MeshFile::from_surface`], [`MeshFile::write_with`]) draws on the [`Budget`] of its
//! options: the default is a fresh one of [`Limits::DEFAULT`] (1 GiB); give the caller's
//! (clones share it) to bound a pipeline as a whole. Reads charge the arrays they decode, conversions the
//! surface or quantized arrays they build, before building them; one the budget
//! cannot pay for returns [`Error::OverBudget`] naming what it was building. The
//! format holds at most [`MAX_COUNT`] vertices and triangles, and `from_core` checks a
//! model's counts before it merges or copies anything, so a model of millions of
//! vertices is refused at once. Every step is linear in the mesh.
//!
//! ```
//! use meshfmt_core::{canonical, glam::Vec3, Model, Surface};
//! use unity_meshser::{Budget, Error, MeshFile, WriteOptions};
//! let budget = Budget::default();
//! let opts = WriteOptions { budget: budget.clone(), ..WriteOptions::default() };
//! let file = MeshFile::from_core_with(&canonical::cube(), &opts)?.value;
//! let encoded = budget.used();
//! assert!(encoded > 0);
//! let core = unity_meshser::CoreOptions { budget: budget.clone() };
//! file.to_core_with(&core)?;
//! assert!(budget.used() > encoded);
//! // Ten million vertices: refused before anything is merged or charged.
//! let big = Model {
//!     surfaces: vec![Surface { positions: vec![Vec3::ZERO; 10_000_000], ..Default::default() }],
//!     ..Default::default()
//! };
//! let before = budget.used();
//! let refused = MeshFile::from_core_with(&big, &opts).err();
//! assert!(matches!(refused, Some(Error::TooManyVertices { count: 10_000_000, .. })));
//! assert_eq!(budget.used(), before);
//! # Ok::<(), unity_meshser::Error>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod contract;
mod convert;
mod error;
mod file;
pub mod quantize;
mod read;
mod write;

pub use contract::{FORMAT, FORMAT_INFO, MeshSerializer2};
pub use convert::{COORDINATE_SYSTEM, CoreOptions, WriteOptions};
pub use error::{Error, Result};
pub use file::{Format, MeshFile, PositionBounds, UvBounds, encoded_len};
pub use meshfmt_core::{Budget, BudgetExceeded, Limits};
pub use quantize::Quantization;
pub use read::{ReadOptions, read, read_with};

/// Name used in error messages.
pub const FORMAT_NAME: &str = "unity-meshser";

/// The original reader's cap on vertex and triangle counts.
pub const MAX_COUNT: u16 = 64000;

/// The file has no magic, so this checks structure: counts within the original's cap,
/// a valid format byte (positions set, at most 15), and a length that matches what the
/// counts and format predict exactly. Never allocates.
///
/// ```
/// // 1 vertex, 0 triangles, positions only: 5 + 24 + 6 bytes.
/// let mut file = vec![1, 0, 0, 0, 1];
/// file.extend_from_slice(&[0; 30]);
/// assert!(unity_meshser::sniff(&file));
/// assert!(!unity_meshser::sniff(&file[..34]));
/// ```
pub fn sniff(data: &[u8]) -> bool {
    let [v0, v1, t0, t1, format, ..] = *data else {
        return false;
    };
    let vertices = u16::from_le_bytes([v0, v1]);
    let triangles = u16::from_le_bytes([t0, t1]);
    if vertices > MAX_COUNT || triangles > MAX_COUNT || format > 15 || format & 1 == 0 {
        return false;
    }
    data.len()
        == encoded_len(
            usize::from(vertices),
            usize::from(triangles),
            Format(format),
        )
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
