//! What to_core's chunk steps share: the options, the loss list, the file's names and the ToCore context (a leaf).

use std::collections::{HashMap, HashSet};

use meshfmt_core::glam::{Vec2, Vec4};
use meshfmt_core::model::Model;
use meshfmt_core::side_files::SideFiles;
use meshfmt_core::{Budget, Converted, Feature, LossKind};

use crate::bones::Skin;
use crate::chunk::Body;
use crate::error::Result;
use crate::file::File;
use crate::material::PropValue;
use crate::mesh::MeshRecord;
use crate::types::Colours;
use crate::types::{NameKey, Names, Str};
use crate::vertex::core::Points;

/// What [`File::to_core_with`] may use besides the file: m3d.h's `readfilecb` and
/// `mtllib`, and the budget the conversion draws on.
#[derive(Clone, Default)]
pub struct CoreOptions<'a> {
    /// External files (textures) by name, as m3d.h's `readfilecb`: a
    /// [`SideFolder`](meshfmt_core::side_files::SideFolder) reads only regular files in
    /// the model's folder (or folders the caller allowed), never a name that leads out.
    pub side_files: Option<&'a dyn SideFiles>,
    /// A material library (a model holding only materials, from `m3dconv -m`).
    pub mtllib: Option<&'a File>,
    /// The operation's budget (clones share it: give the one the file was read with;
    /// the default is a fresh one of [`Limits::DEFAULT`](meshfmt_core::Limits::DEFAULT)).
    pub budget: Budget,
}

impl std::fmt::Debug for CoreOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoreOptions")
            .field("side_files", &self.side_files.is_some())
            .field("mtllib", &self.mtllib.is_some())
            .field("budget", &self.budget.used())
            .finish()
    }
}

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
    /// The file.
    pub file: &'f File,
    /// Its colour map.
    pub colours: Colours<'f>,
    /// The keys of its names.
    pub names: Names,
    /// Its ASET chunks by name.
    pub assets: HashMap<NameKey, &'f [u8]>,
}

impl<'f> FileNames<'f> {
    /// The names of `file`, the index charged to `budget`.
    pub fn new(file: &'f File, budget: &Budget) -> Result<FileNames<'f>> {
        let refs = file.chunks.iter().flat_map(|c| {
            let (name, props, records): (Option<Str>, &[crate::material::Property], &[MeshRecord]) =
                match &c.body {
                    Body::Mtrl(m) => (Some(m.name), &m.props, &[]),
                    Body::Aset { name, .. } => (Some(*name), &[], &[]),
                    Body::Mesh(m) => (None, &[], &m.records),
                    _ => (None, &[], &[]),
                };
            name.into_iter()
                .chain(props.iter().filter_map(|p| match p.value {
                    PropValue::Map(s) => Some(s),
                    _ => None,
                }))
                .chain(records.iter().filter_map(|r| match r {
                    MeshRecord::UseMaterial(s) => Some(*s),
                    _ => None,
                }))
        });
        let names = Names::new(&file.strings, refs, Some(budget))?;
        let mut assets = HashMap::new();
        for c in &file.chunks {
            if let Body::Aset { name, data } = &c.body {
                budget.charge("name index", 48)?;
                let key = names.key(*name).unwrap_or(NameKey::EMPTY);
                assets.entry(key).or_insert(data.as_slice());
            }
        }
        Ok(FileNames {
            file,
            colours: file.colours(),
            names,
            assets,
        })
    }

    /// The key of the string at `s`; the empty string's for none (as m3d.h's lookups
    /// see a missing name).
    pub fn key(&self, s: Str) -> NameKey {
        self.names.key(s).unwrap_or(NameKey::EMPTY)
    }
}

/// What the conversion builds, and what every chunk module's part of it reads.
pub(crate) struct ToCore<'f> {
    /// The file converted.
    pub file: &'f File,
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
    /// Core materials by the key of their MTRL name.
    pub materials: HashMap<NameKey, usize>,
    /// ASET names that became embedded textures (not lost).
    pub embedded: HashSet<NameKey>,
    /// The budget everything built is charged to.
    pub budget: Budget,
}
