//! The Sims Online "Vitaboy" character files: `.mesh` (v2), `.skel` (v1), `.anim` (v2).
//!
//! Every integer is big-endian and every float little-endian; strings are Pascal
//! strings (notes/niotso.md is the authority over the older wiki page).
//!
//! | file | contents | status |
//! |---|---|---|
//! | `.mesh` v2 | bone names, faces, bindings, UVs, blend weights, real and blend vertices | read/write; every public sample rewrites byte for byte |
//! | `.skel` v1 | named bone hierarchy with rest transforms, properties | read/write; no public sample: tested with a fixture built from the notes' hierarchy |
//! | `.anim` v2 | per-bone motions in shared translation/rotation pools, properties | read/write; every public sample rewrites byte for byte |
//!
//! - Faithful types keep every field as stored ([`Mesh`], [`Skel`], [`Anim`]); floats are
//!   copied bit for bit. Lenient where real readers are ([`Mesh::binding_bone`] resolves an
//!   out-of-range bone index to the last name, [`Mesh::diagnostics`] says so), strict
//!   elsewhere.
//! - [`skinning`] poses and deforms in native coordinates exactly as the reference
//!   readers do (local rotation = conjugate of the stored quaternion, blend vertices
//!   tugging real ones in file order).
//! - [`convert`] maps to meshfmt-core and back in the file's native left-handed frame
//!   ([`NATIVE`]); [`mirror_x`] gives the right-handed frame FreeSO and Blender use.
//!
//! ```
//! use niotso_mesh::{read_any, VitaboyFile, CoreOptions};
//! use meshfmt_core::canonical;
//!
//! let model = canonical::skinned_arm();
//! let mesh = niotso_mesh::Mesh::from_core(&model, &CoreOptions::default())?.value;
//! let skel = niotso_mesh::Skel::from_core(&model, "arm")?.value;
//! let bytes = mesh.write()?;
//! let VitaboyFile::Mesh(back) = read_any(&bytes, None)? else { unreachable!() };
//! assert_eq!(back.write()?, bytes);
//! let core = back.to_core(Some(&skel), &CoreOptions::default())?.value;
//! assert_eq!(core.vertex_count(), 20);
//! # Ok::<(), niotso_mesh::Error>(())
//! ```
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
pub mod companions;
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

/// Any Vitaboy file.
#[derive(Debug, Clone, PartialEq)]
pub enum VitaboyFile {
    /// `.mesh`.
    Mesh(Mesh),
    /// `.skel`.
    Skel(Skel),
    /// `.anim`.
    Anim(Anim),
}

impl VitaboyFile {
    /// The file's bytes.
    pub fn write(&self) -> Result<Vec<u8>> {
        match self {
            VitaboyFile::Mesh(m) => m.write(),
            VitaboyFile::Skel(s) => s.write(),
            VitaboyFile::Anim(a) => a.write(),
        }
    }

    /// Which kind it is.
    pub fn kind(&self) -> Kind {
        match self {
            VitaboyFile::Mesh(_) => Kind::Mesh,
            VitaboyFile::Skel(_) => Kind::Skel,
            VitaboyFile::Anim(_) => Kind::Anim,
        }
    }
}

/// Reads a file of the given kind, or of the kind [`sniff_kind`] guesses (these files
/// share a leading version number, so callers that know the extension should say).
pub fn read_any(data: &[u8], kind: Option<Kind>) -> Result<VitaboyFile> {
    match kind.or_else(|| sniff_kind(data)) {
        Some(Kind::Skel) => skel::read(data).map(VitaboyFile::Skel),
        Some(Kind::Anim) => anim::read(data).map(VitaboyFile::Anim),
        // A mesh is the likeliest; its reader gives the most useful error otherwise.
        Some(Kind::Mesh) | None => mesh::read(data).map(VitaboyFile::Mesh),
    }
}

impl Kind {
    /// The kind an extension names (`mesh`, `skel`, `anim`).
    pub fn from_extension(ext: &str) -> Option<Kind> {
        match ext {
            "mesh" => Some(Kind::Mesh),
            "skel" => Some(Kind::Skel),
            "anim" => Some(Kind::Anim),
            _ => None,
        }
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
