//! The UNIGINE-specific parts that [`unigine-mesh`] and [`unigine-anim`] share: the bone
//! list (`str name; i16 parent`) and its parent checks, the per-frame key with its flag
//! byte (bit 0..2 translation, 3 rotation, 4..6 scale), frame-major key tables, magic
//! sniffing and version-family dispatch, and the bone hierarchy of an info summary.
//!
//! # Arrangement
//! Users add only `unigine-mesh` or only `unigine-anim`; both depend on this crate and
//! re-export what appears in their own API ([`BoneInfo`], [`ReadOptions`], the key
//! types as aliases of [`Key`]), so nothing here needs to be named by a user. What is
//! not UNIGINE-specific (budgets, limits, clip sampling per bone) lives in
//! `meshfmt-core` and `parsing-primitives` instead.
//!
//! # Use
//! ```
//! use parsing_primitives::{Reader, Writer};
//! use unigine_common::{BoneInfo, bones};
//!
//! let list = vec![
//!     BoneInfo { name: "root".into(), parent: -1 },
//!     BoneInfo { name: "arm".into(), parent: 0 },
//! ];
//! let mut w = Writer::new("example");
//! bones::write_bones(&mut w, &list)?;
//! let bytes = w.into_inner();
//! let back = bones::read_bones(&mut Reader::new("example", &bytes))?;
//! assert_eq!(back, list);
//! # Ok::<(), parsing_primitives::Error>(())
//! ```
//!
//! # The no-panic contract
//! The readers here take untrusted bytes through `parsing-primitives`: every count is
//! checked against the bytes left before anything is allocated, and nothing panics.
//!
//! [`unigine-mesh`]: https://docs.rs/unigine-mesh
//! [`unigine-anim`]: https://docs.rs/unigine-anim
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bones;
pub mod keys;
pub mod magic;
pub mod skeleton;
pub mod summary;
pub mod versions;

pub use bones::BoneInfo;
pub use keys::Key;

use parsing_primitives::Budget;

/// Frames per second of UNIGINE animations when nothing else says: the files (all
/// but an12) store no frame rate, and 30 is the engine's default playback speed.
pub const DEFAULT_FPS: f32 = 30.0;

/// Longest name the UNIGINE docs allow (1024 characters, including the NUL).
pub const MAX_NAME: usize = 1024;

/// Reading choices.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The operation's budget (clones share it: one for the read, `to_core` and the
    /// write of a whole conversion; the default is a fresh one of [`Limits::DEFAULT`](parsing_primitives::Limits::DEFAULT)).
    pub budget: Budget,
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
