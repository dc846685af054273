//! UNIGINE animation files: `.anim` (an10) and `.sanim` (as08).
//!
//! | magic | extension | engine | status |
//! |---|---|---|---|
//! | `as08` | `.sanim` | UNIGINE 1.x | read/write from the docs; no public sample; flag bits assumed ([`as08::FLAG_BITS`]) |
//! | `an10` | `.anim` | UNIGINE 2.0 - 2.18 | read/write, verified byte for byte on real files |
//! | `an11` | `.anim` | UNIGINE 2.19+ | read/write, verified byte for byte on real files |
//! | `an12` | `.anim` | current docs | read/write **implemented from the documentation only, not verified against real files** ([`an12`]) |
//!
//! as08/an10/an11 store no frame rate; conversions take it as a parameter ([`DEFAULT_FPS`]).
//! an12 stores one, and its conversion uses it.
//!
//! an12 assumptions (the page leaves these open): `bool` root motion is one byte, 0 or 1;
//! joint parents are checked as in an11; GUID/path strings with a stored length of 0
//! read as empty but are written back with length 1; the file has no bind pose, so its
//! skeleton in meshfmt-core has identity rest transforms.
//!
//! # Use
//! ```
//! use meshfmt_core::canonical;
//! use unigine_anim::{AnimFile, TargetVersion, WriteOptions};
//!
//! // A skeleton and clip from anywhere (here the canonical two-bone arm)...
//! let model = canonical::skinned_arm();
//! let options = WriteOptions { version: TargetVersion::An10, ..Default::default() };
//! let file = AnimFile::from_core_with(&model, &options)?.value;
//! let bytes = file.write()?;
//! // ...reads back as faithful types, rewrites byte for byte, and decodes to clips.
//! let back = unigine_anim::read(&bytes)?;
//! assert_eq!(back.write()?, bytes);
//! let clips = back.to_core()?.value.animations; // at DEFAULT_FPS
//! assert_eq!(clips[0].name, "bend");
//! # Ok::<(), unigine_anim::Error>(())
//! ```
//!
//! - [`an10::An10`] and [`as08::As08`] keep everything as stored; `write(read(b)) == b`
//!   for every real an10 file.
//! - [`Frames::decode`] gives exact per-frame values (unflagged components
//!   carried forward, never-flagged ones from the bind pose);
//!   [`Frames::encode`] lays values out the way the real exporter does (on the
//!   real files: the same flags, stored components, box minima and rotations; translation
//!   and scale integers within one unit, so not byte-identical).
//! - [`convert`]: skeletons and clips in meshfmt-core, both ways.
//!
//! # Crates
//! This crate and `unigine-mesh` share the UNIGINE-specific parts (bone lists, key
//! flags, version dispatch, skeleton conversion pieces) through `unigine-common`; its
//! items that appear here are re-exported ([`ReadOptions`], [`DEFAULT_FPS`], [`an10::BoneInfo`]), so
//! depend on this crate alone. Every version is one row of one table, which drives
//! reading by magic, writing, conversion and the format contract.
//!
//! # The no-panic contract
//! Every function here takes untrusted bytes and never panics, hangs or allocates
//! beyond what the input justifies; errors name the byte offset and the field.
//!
//! # Memory and time
//! Every operation draws on the [`Budget`] of its options: a read ([`read_with`]), a
//! conversion to meshfmt-core ([`AnimFile::to_core_with`]) and one from it
//! ([`AnimFile::from_core_with`]); by default a fresh one of [`Limits::DEFAULT`] (1 GiB),
//! and the same one (clones share it) can run through read, `to_core` and
//! `from_core`. What the input makes grow is charged before it is allocated:
//! decoded keys, decoded an10 frames, dense tracks from sparse keys, resampled frames
//! (a low stored an12 frame rate stretches a clip, and its resampling pays for it) and
//! a copy of a model in another frame (one in UNIGINE's frame is encoded as it is). An
//! operation that would pass the budget fails with [`Error::OverBudget`] (inside
//! [`Error::Decode`] for a read) naming what it was building. Frame counts of animations without bones cost nothing, and a clip's bones
//! are gathered in linear time.
//!
//! # Derived data
//! The an10 animation flag byte is derived from the keys: the writer stores the OR of
//! their flags, `to_core` emits the tracks the keys hold and reports a stored byte that
//! disagrees as a loss (never a silently dropped track), and [`An10::problems`] rejects
//! keys on a quantization box that cannot decode them. Real files agree, and are
//! written back byte for byte.
//!
//! ```
//! assert!(unigine_anim::sniff(b"an10\x02"));
//! assert!(!unigine_anim::sniff(b"ms10"));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod an10;
pub mod an11;
pub mod an12;
pub mod as08;
mod contract;
pub mod convert;
mod error;
pub mod values;
mod versions;

use parsing_primitives::Reader;
use unigine_common::magic::{self, Dispatch};

pub use meshfmt_core::{Budget, BudgetExceeded, Limits};
pub use unigine_common::ReadOptions;

pub use an10::An10;
pub use an12::An12;
pub use as08::As08;
pub use contract::{FORMAT, FORMAT_INFO, UnigineAnim};
pub use convert::{COORDINATE_SYSTEM, CoreOptions, WriteOptions};
pub use error::{Error, Result};
pub use values::Frames;
pub use versions::TargetVersion;

/// Name used in error messages.
pub const FORMAT_NAME: &str = "unigine-anim";

pub use unigine_common::DEFAULT_FPS;

/// Every animation magic this crate knows.
pub const MAGICS: [&[u8; 4]; versions::VERSIONS.rows.len()] = versions::MAGICS;

/// True when `data` starts with a UNIGINE animation magic. Never allocates.
pub fn sniff(data: &[u8]) -> bool {
    versions::VERSIONS.sniff(data)
}

/// An animation file of any supported version.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AnimFile {
    /// as08 (UNIGINE 1.x).
    As08(As08),
    /// an10 (UNIGINE 2.x).
    An10(An10),
    /// an11 (UNIGINE 2.19+).
    An11(an11::An11),
    /// an12 (current docs; implemented from the documentation only).
    An12(An12),
}

impl AnimFile {
    /// The version's magic as text.
    pub fn version(&self) -> &'static str {
        match self {
            AnimFile::As08(_) => "as08",
            AnimFile::An10(_) => "an10",
            AnimFile::An11(_) => "an11",
            AnimFile::An12(_) => "an12",
        }
    }

    /// The file's bytes.
    pub fn write(&self) -> Result<Vec<u8>> {
        match self {
            AnimFile::As08(a) => a.write(),
            AnimFile::An10(a) => a.write(),
            AnimFile::An11(a) => a.write(),
            AnimFile::An12(a) => a.write(),
        }
    }

    /// [`AnimFile::write`] under `options`' budget: the bytes are charged once written.
    pub fn write_with(&self, options: &WriteOptions) -> Result<Vec<u8>> {
        Ok(options.budget.charged_output(self.write()?)?)
    }

    /// Every reason [`AnimFile::write`] would refuse the file, each at its path.
    pub fn problems(&self) -> Vec<meshfmt_core::Problem> {
        match self {
            AnimFile::As08(a) => a.problems(),
            AnimFile::An10(a) => a.problems(),
            AnimFile::An11(a) => a.problems(),
            AnimFile::An12(a) => a.problems(),
        }
    }

    /// Writes the file's bytes to `out`.
    pub fn write_to(&self, mut out: impl std::io::Write) -> Result<()> {
        out.write_all(&self.write()?)?;
        Ok(())
    }
}

/// Reads an animation of any supported version with default options.
pub fn read(data: &[u8]) -> Result<AnimFile> {
    read_with(data, &ReadOptions::default())
}

/// Reads an animation of any supported version.
pub fn read_with(data: &[u8], options: &ReadOptions) -> Result<AnimFile> {
    let mut r = Reader::new(FORMAT_NAME, data).with_budget(options.budget.clone());
    let magic = magic::peek_magic(&r).map_err(Error::Decode)?;
    match versions::VERSIONS.dispatch(&magic) {
        Dispatch::Known(v) => (v.read)(&mut r),
        Dispatch::UnsupportedVersion => Err(Error::UnsupportedVersion(
            String::from_utf8_lossy(&magic).into_owned(),
        )),
        Dispatch::Foreign => Err(Error::NotAnAnimation(magic)),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sniff_refuses_a_near_magic() {
        assert!(!super::sniff(b"an13"));
    }
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
