//! The Sims Online "Vitaboy" character files: `.mesh` (v2), `.skel` (v1), `.anim` (v2).
//!
//! Every integer is big-endian and every float little-endian; strings are Pascal
//! strings (notes/niotso.md is the authority over the older wiki page).
//!
//! **Status:** this release detects the formats ([`sniff`], [`sniff_kind`]); reading and
//! writing land with the crate's format work.
//!
//! # The no-panic contract
//! Every function here takes untrusted bytes and never panics, hangs or allocates
//! beyond what the input justifies.
//!
//! ```
//! use niotso_mesh::{sniff_kind, Kind};
//! // version 2, 1 bone named "HEAD"
//! let mesh = b"\x00\x00\x00\x02\x00\x00\x00\x01\x04HEAD\x00\x00\x00\x00";
//! assert_eq!(sniff_kind(mesh), Some(Kind::Mesh));
//! // version 2, long Pascal name "a20-trapfall"
//! let anim = b"\x00\x00\x00\x02\x00\x0ca20-trapfall\x00\x00\x00\x00";
//! assert_eq!(sniff_kind(anim), Some(Kind::Anim));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod anim;
pub mod convert;
mod error;
pub mod mesh;
pub mod props;
pub mod skel;
pub mod skinning;

pub use anim::Anim;
pub use convert::{CoreOptions, FPS, NATIVE, mirror_x};
pub use error::{Error, Result};
pub use mesh::Mesh;
pub use skel::Skel;

/// Name used in error messages.
pub const FORMAT_NAME: &str = "niotso-mesh";

/// Which Vitaboy file a byte string looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `.mesh` v2: version, bone-name count, Pascal bone names, faces, ...
    Mesh,
    /// `.skel` v1: version, Pascal skeleton name, `u16` bone count, ...
    Skel,
    /// `.anim` v2: version, long Pascal (`u16` BE) name, ...
    Anim,
}

fn be_u32(data: &[u8], at: usize) -> Option<u32> {
    let b = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// True for a plausible name: non-empty, printable ASCII.
fn plausible_name(bytes: &[u8]) -> bool {
    !bytes.is_empty() && bytes.iter().all(|b| b.is_ascii_graphic() || *b == b' ')
}

/// Guesses the file kind from its structure (these formats have no magic beyond a
/// version number). Never allocates.
pub fn sniff_kind(data: &[u8]) -> Option<Kind> {
    let version = be_u32(data, 0)?;
    match version {
        2 => {
            // .mesh: u32 bone count then that many Pascal strings (check the first).
            if let Some(bones) = be_u32(data, 4) {
                if (1..=1024).contains(&bones) {
                    let len = usize::from(*data.get(8)?);
                    if data.get(9..9 + len).is_some_and(plausible_name) {
                        return Some(Kind::Mesh);
                    }
                }
            }
            // .anim: u16 BE name length then the name.
            let len = usize::from(u16::from_be_bytes([*data.get(4)?, *data.get(5)?]));
            data.get(6..6 + len)
                .is_some_and(plausible_name)
                .then_some(Kind::Anim)
        }
        1 => {
            let len = usize::from(*data.get(4)?);
            data.get(5..5 + len)
                .is_some_and(plausible_name)
                .then_some(Kind::Skel)
        }
        _ => None,
    }
}

/// True when [`sniff_kind`] recognizes the bytes.
pub fn sniff(data: &[u8]) -> bool {
    sniff_kind(data).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(
            sniff_kind(b"\x00\x00\x00\x01\x05adult\x00\x10"),
            Some(Kind::Skel)
        );
        assert_eq!(sniff_kind(b"\x00\x00\x00\x03\x05adult"), None);
        assert_eq!(sniff_kind(b"\x00\x00\x00\x02\x00\x00\x00\x01\x04HE"), None);
        assert!(!sniff(b""));
        assert!(!sniff(
            b"\x00\x00\x00\x02\x00\x00\x00\x01\x04\x00\x01\x02\x03"
        ));
    }
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
