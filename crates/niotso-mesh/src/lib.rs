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
//! use niotso_mesh::{read, VitaboyFile, CoreOptions};
//! use meshfmt_core::canonical;
//!
//! let model = canonical::skinned_arm();
//! let mesh = niotso_mesh::Mesh::from_core(&model)?.value;
//! let skel = niotso_mesh::Skel::from_core(&model)?.value;
//! let bytes = mesh.write()?;
//! let VitaboyFile::Mesh(back) = read(&bytes)? else { unreachable!() };
//! assert_eq!(back.write()?, bytes);
//! let posed = CoreOptions { skeleton: Some(&skel), ..Default::default() };
//! let core = back.to_core_with(&posed)?.value;
//! assert_eq!(core.vertex_count(), 20);
//! # Ok::<(), niotso_mesh::Error>(())
//! ```
//!
//! # The no-panic contract
//! Every function here takes untrusted bytes and never panics, hangs or allocates
//! beyond what the input justifies.
//!
//! # Memory and time
//! Every operation (a read, a conversion to or from meshfmt-core) draws on the
//! [`Budget`] of its options ([`ReadOptions::budget`], [`CoreOptions::budget`],
//! [`WriteOptions::budget`]): by default a fresh one of [`Limits::DEFAULT`] (1 GiB);
//! give the same one (clones share it) to every step to bound a pipeline as a whole. Readers charge every array
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
//! let read = ReadOptions { budget: budget.clone(), ..ReadOptions::default() };
//! let a = anim::read_with(&b, &read)?;
//! let after_read = budget.used();
//! let opts = CoreOptions { budget: budget.clone(), ..CoreOptions::default() };
//! assert_eq!(a.to_core_with(&opts)?.value.animations[0].channels.len(), 3);
//! // The conversion charged the same budget; one byte less and its keys are refused.
//! let needed = budget.used() - after_read;
//! let tight = CoreOptions {
//!     budget: Budget::new(Limits { max_alloc_bytes: needed - 1, ..Limits::DEFAULT }),
//!     ..CoreOptions::default()
//! };
//! let refused = a.to_core_with(&tight).err();
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
pub mod character;
pub mod companions;
mod contract;
pub mod convert;
mod error;
pub mod loose;
pub mod mesh;
mod options;
pub mod props;
pub mod skel;
pub mod skinning;

mod index;

pub use anim::Anim;
pub use contract::{FORMAT, FORMAT_INFO, Vitaboy};
pub use convert::{NATIVE, mirror_x};
pub use error::{Error, Result};
pub use mesh::Mesh;
pub use meshfmt_core::{Budget, BudgetExceeded, Limits};
pub use options::{Asset, Assets, CoreOptions, DEFAULT_SKELETON_NAME, FPS, WriteOptions};
pub use skel::Skel;

use meshfmt_core::{Converted, Model};

/// Name used in error messages.
pub const FORMAT_NAME: &str = "niotso-mesh";

/// Reading choices, the same for every kind: `.mesh`, `.skel`, `.anim` and the
/// companions (`.apr`, `.bnd`, `.oft`).
///
/// ```
/// use niotso_mesh::{read_with, Budget, Kind, Limits, ReadOptions};
/// // version 1, skeleton "adult", 0 bones
/// let skel = b"\x00\x00\x00\x01\x05adult\x00\x00";
/// let budget = Budget::new(Limits::DEFAULT);
/// let opts = ReadOptions { kind: Some(Kind::Skel), budget: budget.clone(), ..ReadOptions::default() };
/// let file = read_with(skel, &opts)?;
/// assert_eq!(file.kind(), Kind::Skel);
/// // A byte more is refused unless allowed.
/// let mut long = skel.to_vec();
/// long.push(0);
/// assert!(read_with(&long, &opts).is_err());
/// let lenient = ReadOptions { allow_trailing_bytes: true, ..opts };
/// assert!(read_with(&long, &lenient).is_ok());
/// # Ok::<(), niotso_mesh::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The kind of file to read (`None`: the kind [`sniff_kind`] guesses, else a mesh;
    /// these files share a leading version number, so callers that know the extension
    /// should say).
    pub kind: Option<Kind>,
    /// The operation's budget (clones share it; the default is a fresh one of
    /// [`Limits::DEFAULT`]).
    pub budget: Budget,
    /// Accept bytes after the end of the file's content (real files end exactly there).
    pub allow_trailing_bytes: bool,
    /// Accept a version other than the kind's (2 for `.mesh` and `.anim`, 1 for
    /// `.skel`; some readers ignore it). The companions never check theirs.
    pub any_version: bool,
}

impl ReadOptions {
    /// A reader over `data` charging the read's budget.
    pub(crate) fn reader<'a>(&self, data: &'a [u8]) -> parsing_primitives::Reader<'a> {
        parsing_primitives::Reader::new(FORMAT_NAME, data).with_budget(self.budget.clone())
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

    /// The file in meshfmt-core: a mesh (bones at the origin), a skeleton, or an
    /// animation on a flat skeleton of its bone names; see
    /// [`VitaboyFile::to_core_with`].
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_with(&CoreOptions::default())
    }

    /// The file in meshfmt-core under `options`' budget: a mesh posed by
    /// `options.skeleton` (see [`Mesh::to_core_with`]), a skeleton, or an animation
    /// whose channels name that skeleton's bones (see [`Anim::to_core_with`]).
    ///
    /// ```
    /// use meshfmt_core::canonical;
    /// use niotso_mesh::{Budget, CoreOptions, Kind, Limits, VitaboyFile, WriteOptions};
    /// let budget = Budget::new(Limits::DEFAULT);
    /// let arm = canonical::skinned_arm();
    /// let write = WriteOptions { kind: Kind::Anim, budget: budget.clone(), ..Default::default() };
    /// let file = VitaboyFile::from_core_with(&arm, &write)?.value;
    /// let after_from_core = budget.used();
    /// let core = CoreOptions { budget: budget.clone(), ..Default::default() };
    /// let clip = file.to_core_with(&core)?.value;
    /// assert_eq!(clip.animations.len(), 1);
    /// assert!(after_from_core > 0 && budget.used() > after_from_core);
    /// # Ok::<(), niotso_mesh::Error>(())
    /// ```
    pub fn to_core_with(&self, options: &CoreOptions<'_>) -> Result<Converted<Model>> {
        match self {
            VitaboyFile::Mesh(m) => m.to_core_with(options),
            VitaboyFile::Skel(s) => s.to_core_with(options),
            VitaboyFile::Anim(a) => a.to_core_with(options),
        }
    }

    /// A `.mesh` from a meshfmt-core model; see [`VitaboyFile::from_core_with`].
    pub fn from_core(model: &Model) -> Result<Converted<VitaboyFile>> {
        VitaboyFile::from_core_with(model, &WriteOptions::default())
    }

    /// A file of `options.kind` from a meshfmt-core model under `options`' budget: see
    /// [`Mesh::from_core_with`], [`Skel::from_core_with`] (named
    /// [`WriteOptions::skeleton_name`]) and [`Anim::from_core_with`].
    pub fn from_core_with(model: &Model, options: &WriteOptions) -> Result<Converted<VitaboyFile>> {
        Ok(match options.kind {
            Kind::Mesh => Mesh::from_core_with(model, options)?.map(VitaboyFile::Mesh),
            Kind::Skel => Skel::from_core_with(model, options)?.map(VitaboyFile::Skel),
            Kind::Anim => Anim::from_core_with(model, options)?.map(VitaboyFile::Anim),
        })
    }

    /// [`VitaboyFile::write`] under `options`' budget: the bytes are charged once
    /// written.
    pub fn write_with(&self, options: &WriteOptions) -> Result<Vec<u8>> {
        Ok(options.budget.charged_output(self.write()?)?)
    }

    /// Every reason [`VitaboyFile::write`] would refuse the file, each at its path.
    pub fn problems(&self) -> Vec<meshfmt_core::Problem> {
        let mut p = meshfmt_core::Problems::default();
        match self {
            VitaboyFile::Mesh(m) => p.check("mesh", m.check()),
            VitaboyFile::Skel(s) => p.check("skel", s.write().map(|_| ())),
            VitaboyFile::Anim(a) => p.check("anim", a.write().map(|_| ())),
        }
        p.into_vec()
    }
}

/// Reads a `.mesh`, `.skel` or `.anim`, of the kind [`sniff_kind`] guesses (a mesh
/// when it guesses none); [`read_with`] takes the kind when the caller knows it (from
/// the extension).
///
/// ```
/// // version 1, skeleton "adult", 0 bones
/// let file = niotso_mesh::read(b"\x00\x00\x00\x01\x05adult\x00\x00")?;
/// assert_eq!(file.kind(), niotso_mesh::Kind::Skel);
/// # Ok::<(), niotso_mesh::Error>(())
/// ```
pub fn read(data: &[u8]) -> Result<VitaboyFile> {
    read_with(data, &ReadOptions::default())
}

/// [`read`] with reading choices: the kind, the budget, trailing bytes, other versions.
pub fn read_with(data: &[u8], options: &ReadOptions) -> Result<VitaboyFile> {
    match options.kind.or_else(|| sniff_kind(data)) {
        Some(Kind::Skel) => skel::read_with(data, options).map(VitaboyFile::Skel),
        Some(Kind::Anim) => anim::read_with(data, options).map(VitaboyFile::Anim),
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
