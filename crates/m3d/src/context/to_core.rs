//! What to_core's chunk steps share: the loss list, a file's names, the vertex list
//! decoded on use, and the [`ToCore`] context holding them with the model being built.

use std::collections::{HashMap, HashSet};

use meshfmt_core::glam::{Quat, Vec2, Vec3, Vec4};
use meshfmt_core::model::Model;
use meshfmt_core::skin::VertexInfluences;
use meshfmt_core::{Budget, Converted, Feature, LossKind};

use crate::error::Result;
use crate::types::{Colours, Idx, NameKey, Names, Skin, Str, Types, Vertex, string_at};

/// Losses of one kind past this many are counted, not listed.
pub(crate) const LOSS_CAP: usize = 100;

/// The loss list, capped: the first [`LOSS_CAP`] of each kind in full, then one line
/// saying how many more there were (a file of a million bad records would otherwise
/// make a million ~150-byte losses from a few bytes each).
#[derive(Default)]
pub(crate) struct Losses {
    pub(crate) kinds: Vec<(&'static str, usize, Feature, LossKind)>,
}

impl Losses {
    /// Records a loss of kind `key`; `path` and `reason` are only built when it is listed.
    pub fn lose<P: Into<String>, R: Into<String>>(
        &mut self,
        out: &mut Converted<Model>,
        key: &'static str,
        feature: Feature,
        kind: LossKind,
        path: impl FnOnce() -> P,
        reason: impl FnOnce() -> R,
    ) {
        let n = match self.kinds.iter_mut().find(|k| k.0 == key) {
            Some(k) => {
                k.1 += 1;
                k.1
            }
            None => {
                self.kinds.push((key, 1, feature, kind.clone()));
                1
            }
        };
        if n <= LOSS_CAP {
            out.lose(feature, kind, path(), reason());
        }
    }

    /// The summary lines of the kinds past the cap.
    pub fn finish(self, out: &mut Converted<Model>) {
        for (key, n, feature, kind) in self.kinds {
            if n > LOSS_CAP {
                out.lose(
                    feature,
                    kind,
                    "",
                    format!("{} more like this not listed: {key}", n - LOSS_CAP),
                );
            }
        }
    }
}

/// An RGBA colour (R in the low byte) as meshfmt-core's floats.
pub(crate) fn rgba_to_vec4(c: u32) -> Vec4 {
    let [r, g, b, a] = c.to_le_bytes();
    Vec4::new(f32::from(r), f32::from(g), f32::from(b), f32::from(a)) / 255.0
}

/// One file's names for the conversion: keys of its material names, map names, ASET
/// names and use-material references, found in one pass over its string table, and its
/// ASET chunks by name (the first of a name, as m3d.h finds it).
pub(crate) struct FileNames<'f> {
    /// Its string table.
    pub strings: &'f [u8],
    /// Its colour map.
    pub colours: Colours<'f>,
    /// The keys of its names.
    pub names: Names,
    /// Its ASET chunks by name.
    pub assets: HashMap<NameKey, &'f [u8]>,
}

impl FileNames<'_> {
    /// The key of the string at `s`; the empty string's for none (as m3d.h's lookups
    /// see a missing name).
    pub fn key(&self, s: Str) -> NameKey {
        self.names.key(s).unwrap_or(NameKey::EMPTY)
    }

    /// The string at `s` as text (lossy UTF-8, empty for none), the copy charged to
    /// `budget` (a name may be the whole string table, and be referenced many times).
    pub fn text_in(&self, s: Str, budget: &Budget) -> Result<String> {
        let bytes = string_at(self.strings, s).unwrap_or_default();
        budget.charge("names", bytes.len() as u64)?;
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// What the conversion builds, and what every chunk module's part of it reads.
pub(crate) struct ToCore<'f> {
    /// The model built, and its losses.
    pub out: Converted<Model>,
    /// Losses counted per kind past [`LOSS_CAP`].
    pub losses: Losses,
    /// TMAP, decoded.
    pub tmap: Vec<Vec2>,
    /// The skins of the BONE chunk.
    pub skins: &'f [Skin],
    /// The vertex list, decoded on use.
    pub pts: Points<'f>,
    /// The colour map.
    pub colours: Colours<'f>,
    /// The file's names.
    pub own: FileNames<'f>,
    /// The file's type bits.
    pub types: Types,
    /// Core materials by the key of their MTRL name.
    pub materials: HashMap<NameKey, usize>,
    /// ASET names that became embedded textures (not lost).
    pub embedded: HashSet<NameKey>,
    /// The budget everything built is charged to.
    pub budget: Budget,
}

impl ToCore<'_> {
    /// Records a loss of kind `key` ([`Losses::lose`]).
    pub fn lose<P: Into<String>, R: Into<String>>(
        &mut self,
        key: &'static str,
        feature: Feature,
        kind: LossKind,
        path: impl FnOnce() -> P,
        reason: impl FnOnce() -> R,
    ) {
        self.losses
            .lose(&mut self.out, key, feature, kind, path, reason);
    }
}

/// The vertex list and the header scale, looked up once.
pub(crate) struct Points<'a> {
    pub vertices: &'a [Vertex],
    pub scale: f32,
}

impl Points<'_> {
    /// Decoded x, y, z (times the scale) and w of vertex `i`.
    pub fn point(&self, i: Idx) -> Option<(Vec3, f32)> {
        let v = self.vertices.get(i.get()? as usize)?;
        let c = v.coords.map(|c| c.signed() as f32);
        Some((Vec3::new(c[0], c[1], c[2]) * self.scale, c[3]))
    }

    pub fn quat(&self, i: Idx) -> Option<Quat> {
        let v = self.vertices.get(i.get()? as usize)?;
        let c = v.coords.map(|c| c.signed() as f32);
        let q = Quat::from_xyzw(c[0], c[1], c[2], c[3]);
        // Quantized quaternions are slightly off unit length; m3d.h uses them as stored.
        Some(meshfmt_core::unit_quat_or_identity(q))
    }
}

/// What one new corner of a surface holds: position, normal, UV, colour, skin and its
/// entry in the corner map.
pub(crate) const CORNER_BYTES: u64 = (2 * std::mem::size_of::<Vec3>()
    + std::mem::size_of::<Vec2>()
    + std::mem::size_of::<Vec4>()
    + std::mem::size_of::<VertexInfluences>()
    + std::mem::size_of::<((Idx, Idx, Idx), u32)>()
    + 8) as u64;
