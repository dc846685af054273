//! The format-neutral model every meshfmt format crate converts to and from.
//!
//! Published as `meshfmt-core`. Built on [`glam`] types (re-exported), it holds what
//! game mesh formats have in common:
//!
//! - geometry: [`Model`] with named [`Surface`]s (positions, normals, tangents with
//!   handedness, two UV sets, RGBA colors, `u32` triangles, a material slot,
//!   [`MorphTarget`]s as deltas or absolute values);
//! - [`Skeleton`] of [`Bone`]s with rest [`Transform`]s, world and inverse-bind matrices;
//! - skins: per-vertex [`VertexInfluences`] of up to [`MAX_INFLUENCES`] pairs;
//! - animation: [`Clip`]s of per-bone keyframe [`Track`]s, [`Clip::sample`] into a
//!   [`Pose`], and [`skin_surface`] for linear-blend skinning on the CPU;
//! - [`Material`]s (metallic-roughness) and [`Texture`]s (paths or embedded RGBA);
//! - [`Bounds`], [`CoordinateSystem`] conversion ([`Model::convert_to`]);
//! - [`quantize`]: the unorm/snorm/box quantizers formats use, with stated error bounds;
//! - [`validate`]: every problem with its path, not just the first;
//! - [`Converted`] and [`Loss`]: what a conversion could not carry, never silently;
//! - [`corners`]: one surface vertex per distinct polygon corner, and fan
//!   triangulation, for formats that index attributes separately;
//! - [`dump`]: a stable text dump for fixtures and the CLI;
//! - assembling a model from companion files: [`Model::attach_clips`] (an animation
//!   file's clips) and [`Model::with_skeleton`] (a skeleton file's bones), matched by
//!   bone name, with what does not match reported;
//! - `canonical` (feature `canonical`): small, fully known models for testing pipelines;
//! - [`format`](mod@format): the contract every format crate implements ([`format::Format`],
//!   [`format::FormatFile`], typed [`format::FormatError`]s), and [`Summary`], what
//!   `info` shows;
//! - [`side_files`]: the one policy for files a model names (a glTF buffer, an OBJ
//!   material library, an M3D texture): only regular files inside the input's folder or
//!   the folders the user allowed, read through a reader the budget caps; and
//!   [`text`]: names and messages made one printable line;
//! - [`Budget`] and [`Limits`] (from parsing-primitives): the memory allowance one
//!   operation draws on, shared by every step of a pipeline (read, `to_core`,
//!   `from_core`, write).
//!
//! # The API every format crate follows
//! A user who knows one meshfmt format crate knows them all. Each has:
//!
//! | call | what it does |
//! |---|---|
//! | `sniff(&[u8]) -> bool` | a cheap magic check that never allocates |
//! | `read(&[u8])`, `read_with(&[u8], &ReadOptions)` | bytes to the faithful file type |
//! | `file.write()`, `file.write_with(&WriteOptions)`, `file.write_to(impl Write)` | back to bytes |
//! | `file.to_core()`, `file.to_core_with(&CoreOptions)` | to the shared [`Model`], as [`Converted`] |
//! | `T::from_core(&model)`, `T::from_core_with(&model, &WriteOptions)` | from it, as [`Converted`] |
//! | `file.problems() -> Vec<Problem>` | what `write` would refuse, each at its path |
//!
//! Everything else a call needs (frame rate, skeleton, version, name, the one
//! [`Budget`]) is a field of the options, never a positional argument, and
//! `Default` gives the format's own choice. Departures, each for a reason the format
//! has (a second encoding, a kind to sniff, input held as [`SharedBytes`](parsing_primitives::SharedBytes)), are listed
//! with that reason in xtask's API-shape test, which reads every format crate's
//! public functions and fails on any other.
//!
//! # Memory and time
//! What this crate builds from data it is given and that can grow faster than that data
//! is charged to a [`Budget`] first: [`Clip::frame_times`] charges the frames a
//! resampling writer will fill (so a key at 1e20 s is refused, not resampled),
//! [`RgbaImage::decode_png_in`] the pixels it decodes, and [`Model::attach_clips`] and
//! [`Model::with_skeleton`] the clips and skeletons they copy (matching bones through a
//! name map, in time linear in the bones and channels). Walks over bones are linear
//! ([`Skeleton::world_matrices_for`], [`Skeleton::child_lists`], [`validate`]'s cycle
//! check), whatever the parents say, and never loop on a cycle.
//!
//! ```
//! use meshfmt_core::{glam::Vec3, validate, Model, Surface};
//! let model = Model {
//!     name: "triangle".into(),
//!     surfaces: vec![Surface {
//!         name: "tri".into(),
//!         positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
//!         indices: vec![0, 1, 2],
//!         ..Default::default()
//!     }],
//!     ..Default::default()
//! };
//! assert!(validate(&model).is_empty());
//! assert_eq!(model.triangle_count(), 1);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use glam;
/// The memory allowance of one operation, shared by the reader, the conversions and the
/// writer of a pipeline (re-exported from parsing-primitives).
pub use parsing_primitives::{Budget, BudgetExceeded, Credit, Limits};

pub mod animation;
mod assemble;
pub mod bone_tracks;
pub mod bounds;
#[cfg(feature = "canonical")]
pub mod canonical;
pub mod coords;
pub mod corners;
mod dump;
mod error;
mod finite;
pub mod format;
mod loss;
pub mod material;
pub mod model;
#[cfg(feature = "png")]
mod png;
pub mod quantize;
pub mod side_files;
pub mod skeleton;
pub mod skin;
mod skinning;
pub mod summary;
pub mod text;
mod validate;

pub use animation::{Channel, Clip, ClipEvent, Interpolation, Pose, Track, TrackRefs};
pub use bounds::{Aabb, Bounds, Sphere};
pub use coords::{Conversion, CoordinateSystem, Handedness, UpAxis};
pub use dump::{DumpOptions, Fnv1a, dump};
pub use loss::{Converted, Feature, Loss, LossKind};
pub use material::{Material, RgbaImage, Texture, TextureBinding, TextureRole, TextureSource};
pub use model::{Model, MorphKind, MorphTarget, Surface};
pub use skeleton::{Bone, Skeleton, Transform, unit_quat_or_identity};
pub use skin::{MAX_INFLUENCES, VertexInfluences};
pub use skinning::skin_surface;
pub use summary::{
    Attribute, ClipSummary, Counts, MaterialSummary, SkeletonSummary, Summary, SurfaceSummary,
    TextureSummary,
};
pub use validate::{MAX_PER_ARRAY, Problem, Problems, WEIGHT_SUM_TOLERANCE, validate};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
