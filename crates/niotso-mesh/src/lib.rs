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
//! | `.apr`, `.bnd`, `.oft` | appearances, bindings, outfits ([`companions`]) | read/write; [`appearance`] assembles an appearance, its bindings, meshes and textures into one model |
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
//! # Memory and time
//! Every operation (a read, a conversion to or from meshfmt-core) draws on one
//! [`Budget`]: the one in its options ([`ReadOptions::budget`],
//! [`CoreOptions`]`::budget`), shared with the caller's other steps, else a fresh one of
//! the options' [`Limits`] ([`Limits::DEFAULT`]: 1 GiB). Readers charge every array
//! they decode; conversions charge what they build before building it: the surface,
//! skins and skeleton of a mesh, the keys of every motion (motions may share one pool
//! of frames, so a small `.anim` can ask for far more keys than it stores), resampled
//! frames, and the copies `from_core` makes. An operation the budget cannot pay for
//! returns [`Error::OverBudget`] naming what it was building, having allocated
//! nothing for it. Bone and motion names are looked up through maps, and overlapping
//! bindings are resolved in one pass, so no step is quadratic in a count from a file.
//!
//! ```
//! use niotso_mesh::{anim, Budget, CoreOptions, Error, Limits, ReadOptions};
//! // One pool of 2 frames and 3 motions playing it: 3 x 2 keys to build.
//! let mut b = vec![0, 0, 0, 2, 0, 1, b'a'];
//! b.extend([0; 9]); // duration, distance, is_moving
//! b.extend(2u32.to_be_bytes()); // translations
//! b.extend([0; 24]);
//! b.extend(0u32.to_be_bytes()); // rotations
//! b.extend(3u32.to_be_bytes()); // motions
//! for _ in 0..3 {
//!     b.extend([0, 0, 0, 0, 1, b'B']); // unknown, bone name
//!     b.extend(2u32.to_be_bytes()); // frame count
//!     b.extend([0, 0, 0, 0, 1, 0]); // duration, has translation, has rotation
//!     b.extend([0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0]); // first t, first r, no props
//! }
//! let budget = Budget::default();
//! let read = ReadOptions { budget: Some(budget.clone()), ..ReadOptions::default() };
//! let a = anim::read_with_options(&b, &read)?;
//! let after_read = budget.used();
//! let opts = CoreOptions { budget: Some(budget.clone()), ..CoreOptions::default() };
//! assert_eq!(a.to_core_with(None, &opts)?.value.animations[0].channels.len(), 3);
//! // The conversion charged the same budget; one byte less and its keys are refused.
//! let needed = budget.used() - after_read;
//! let tight = CoreOptions {
//!     limits: Limits { max_alloc_bytes: needed - 1, ..Limits::DEFAULT },
//!     ..CoreOptions::default()
//! };
//! let refused = a.to_core_with(None, &tight).err();
//! assert!(matches!(refused, Some(Error::OverBudget(e)) if e.what == "animation keys"));
//! # Ok::<(), niotso_mesh::Error>(())
//! ```
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
pub mod appearance;
pub mod companions;
mod contract;
pub mod convert;
mod error;
pub mod mesh;
pub mod props;
pub mod skel;
pub mod skinning;

mod index;

pub use anim::Anim;
pub use contract::{FORMAT, Vitaboy};
pub use convert::{CoreOptions, DEFAULT_SKELETON_NAME, FPS, NATIVE, mirror_x};
pub use error::{Error, Result};
pub use mesh::Mesh;
pub use meshfmt_core::{Budget, BudgetExceeded, Limits};
pub use skel::Skel;

use meshfmt_core::{Converted, Model};

/// Name used in error messages.
pub const FORMAT_NAME: &str = "niotso-mesh";

/// Reading choices, the same for every kind: `.mesh`, `.skel`, `.anim` and the
/// companions (`.apr`, `.bnd`, `.oft`).
///
/// ```
/// use niotso_mesh::{read_any_with, Budget, Kind, Limits, ReadOptions};
/// // version 1, skeleton "adult", 0 bones
/// let skel = b"\x00\x00\x00\x01\x05adult\x00\x00";
/// let budget = Budget::new(Limits::DEFAULT);
/// let opts = ReadOptions { budget: Some(budget.clone()), ..ReadOptions::default() };
/// let file = read_any_with(skel, Some(Kind::Skel), &opts)?;
/// assert_eq!(file.kind(), Kind::Skel);
/// // A byte more is refused unless allowed.
/// let mut long = skel.to_vec();
/// long.push(0);
/// assert!(read_any_with(&long, Some(Kind::Skel), &opts).is_err());
/// let lenient = ReadOptions { allow_trailing_bytes: true, ..opts };
/// assert!(read_any_with(&long, Some(Kind::Skel), &lenient).is_ok());
/// # Ok::<(), niotso_mesh::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Allocation caps: the budget of a read that is given none.
    pub limits: Limits,
    /// The operation's budget, shared with the caller's other steps (`None`: a fresh
    /// one of `limits` per read).
    pub budget: Option<Budget>,
    /// Accept bytes after the end of the file's content (real files end exactly there).
    pub allow_trailing_bytes: bool,
    /// Accept a version other than the kind's (2 for `.mesh` and `.anim`, 1 for
    /// `.skel`; some readers ignore it). The companions never check theirs.
    pub any_version: bool,
}

impl ReadOptions {
    /// A reader over `data` charging the read's budget: the shared one, else a fresh
    /// one of `limits`.
    pub(crate) fn reader<'a>(&self, data: &'a [u8]) -> parsing_primitives::Reader<'a> {
        let budget = Budget::shared_or_new(self.budget.as_ref(), self.limits);
        parsing_primitives::Reader::new(FORMAT_NAME, data).with_budget(budget)
    }

    /// Ends a read: trailing bytes are an error unless allowed.
    pub(crate) fn finish(&self, r: &parsing_primitives::Reader<'_>) -> Result<()> {
        if !self.allow_trailing_bytes {
            r.finish()?;
        }
        Ok(())
    }
}

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

    /// The file in meshfmt-core under `options`' budget: a mesh posed by `skel` (see
    /// [`Mesh::to_core`]), a skeleton (`skel` unused), or an animation whose channels
    /// name `skel`'s bones (see [`Anim::to_core_with`]).
    ///
    /// ```
    /// use meshfmt_core::canonical;
    /// use niotso_mesh::{Budget, CoreOptions, Kind, Limits, VitaboyFile};
    /// let budget = Budget::new(Limits::DEFAULT);
    /// let opts = CoreOptions { budget: Some(budget.clone()), ..CoreOptions::default() };
    /// let arm = canonical::skinned_arm();
    /// let file = VitaboyFile::from_core_with(&arm, Kind::Anim, &opts)?.value;
    /// let after_from_core = budget.used();
    /// let clip = file.to_core_with(None, &opts)?.value;
    /// assert_eq!(clip.animations.len(), 1);
    /// assert!(after_from_core > 0 && budget.used() > after_from_core);
    /// # Ok::<(), niotso_mesh::Error>(())
    /// ```
    pub fn to_core_with(
        &self,
        skel: Option<&Skel>,
        options: &CoreOptions,
    ) -> Result<Converted<Model>> {
        match self {
            VitaboyFile::Mesh(m) => m.to_core(skel, options),
            VitaboyFile::Skel(s) => s.to_core_with(options),
            VitaboyFile::Anim(a) => a.to_core_with(skel, options),
        }
    }

    /// A file of `kind` from a meshfmt-core model under `options`' budget: see
    /// [`Mesh::from_core`], [`Skel::from_core_with`] (named
    /// [`CoreOptions::skeleton_name`]) and [`Anim::from_core_with`].
    pub fn from_core_with(
        model: &Model,
        kind: Kind,
        options: &CoreOptions,
    ) -> Result<Converted<VitaboyFile>> {
        Ok(match kind {
            Kind::Mesh => Mesh::from_core(model, options)?.map(VitaboyFile::Mesh),
            Kind::Skel => {
                Skel::from_core_with(model, &options.skeleton_name, options)?.map(VitaboyFile::Skel)
            }
            Kind::Anim => Anim::from_core_with(model, options)?.map(VitaboyFile::Anim),
        })
    }
}

/// Reads a `.mesh`, `.skel` or `.anim`, of the kind [`sniff_kind`] guesses (a mesh
/// when it guesses none): the crate-level entry every meshfmt format crate has. Callers
/// that know the kind (from the extension) use [`read_any`].
///
/// ```
/// // version 1, skeleton "adult", 0 bones
/// let file = niotso_mesh::read(b"\x00\x00\x00\x01\x05adult\x00\x00")?;
/// assert_eq!(file.kind(), niotso_mesh::Kind::Skel);
/// # Ok::<(), niotso_mesh::Error>(())
/// ```
pub fn read(data: &[u8]) -> Result<VitaboyFile> {
    read_any_with(data, None, &ReadOptions::default())
}

/// [`read`] with reading choices (limits or a shared budget, trailing bytes, other
/// versions).
pub fn read_with(data: &[u8], options: &ReadOptions) -> Result<VitaboyFile> {
    read_any_with(data, None, options)
}

/// Reads a file of the given kind, or of the kind [`sniff_kind`] guesses (these files
/// share a leading version number, so callers that know the extension should say).
pub fn read_any(data: &[u8], kind: Option<Kind>) -> Result<VitaboyFile> {
    read_any_with(data, kind, &ReadOptions::default())
}

/// [`read_any`] with reading choices: the limits or shared budget, trailing bytes and
/// other versions.
pub fn read_any_with(
    data: &[u8],
    kind: Option<Kind>,
    options: &ReadOptions,
) -> Result<VitaboyFile> {
    match kind.or_else(|| sniff_kind(data)) {
        Some(Kind::Skel) => skel::read_with_options(data, options).map(VitaboyFile::Skel),
        Some(Kind::Anim) => anim::read_with_options(data, options).map(VitaboyFile::Anim),
        // A mesh is the likeliest; its reader gives the most useful error otherwise.
        Some(Kind::Mesh) | None => mesh::read_with(data, options).map(VitaboyFile::Mesh),
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
