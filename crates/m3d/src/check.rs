//! [`File::problems`]: the cross-references m3d.h never checks. Each chunk module checks
//! its own chunk ([`Check`] holds what the checks compare against).

use std::collections::HashSet;

use crate::file::{Body, File};
use crate::mesh::MeshRecord;
use crate::types::{Idx, NameKey, Names, Str};
use crate::{bones, label, material, mesh, vertex};

/// Problems of one kind listed before the rest are only counted.
const PROBLEM_CAP: usize = 100;

/// The list being built, and the sizes and names the references are checked against:
/// lines of a kind past [`PROBLEM_CAP`] are counted, not made.
#[derive(Default)]
pub(crate) struct Check {
    lines: Vec<String>,
    kinds: Vec<(&'static str, usize)>,
    /// VRTS records.
    pub vertices: usize,
    /// TMAP records.
    pub tmap: usize,
    /// CMAP colours.
    pub cmap: usize,
    /// Bones.
    pub bones: usize,
    /// Skins.
    pub skins: usize,
    /// The string table's length.
    pub table: usize,
    /// True when colour fields are CMAP indices.
    pub cmap_colors: bool,
    /// Keys of the material names and use-material references.
    pub names: Names,
    /// The material names' keys.
    pub materials: HashSet<NameKey>,
}

impl Check {
    /// Lists (or, past the cap, counts) a problem of `kind`; the line is made only when
    /// it is listed.
    pub fn push(&mut self, kind: &'static str, line: impl FnOnce() -> String) {
        let n = match self.kinds.iter_mut().find(|k| k.0 == kind) {
            Some(k) => {
                k.1 += 1;
                k.1
            }
            None => {
                self.kinds.push((kind, 1));
                1
            }
        };
        if n <= PROBLEM_CAP {
            self.lines.push(line());
        }
    }

    /// An index past `len` (the sentinels are no index, not a problem).
    pub fn index(&mut self, kind: &'static str, at: impl FnOnce() -> String, i: Idx, len: usize) {
        if let Some(v) = i.get().filter(|v| *v as usize >= len) {
            self.push(kind, || {
                format!("{}: index {v} past the {len} entries", at())
            });
        }
    }

    /// A string offset past the table.
    pub fn string(&mut self, kind: &'static str, at: impl FnOnce() -> String, s: Str) {
        if s.0 as usize >= self.table && s.0 != 0 {
            self.push(kind, || {
                format!("{}: string offset {} past the table", at(), s.0)
            });
        }
    }

    fn finish(mut self) -> Vec<String> {
        for (kind, n) in self.kinds {
            if n > PROBLEM_CAP {
                self.lines.push(format!(
                    "... and {} more problems of this kind not listed: {kind}",
                    n - PROBLEM_CAP
                ));
            }
        }
        self.lines
    }
}

impl File {
    /// Every reference that points nowhere: vertex, UV, skin, bone and CMAP indices past
    /// their lists, bone parents that do not come before the bone, string offsets past the
    /// table, use-material records naming no material. m3d.h reads such files out of
    /// bounds; here they read fine (the values are kept as stored) and are listed here, one
    /// line each with its chunk path: the first 100 of each kind, then one line counting
    /// the rest of that kind. Empty for a consistent file.
    ///
    /// ```
    /// assert!(m3d_format::File::default().problems().is_empty());
    /// ```
    pub fn problems(&self) -> Vec<String> {
        let mut out = Check {
            vertices: self.vertices().len(),
            table: self.strings.len(),
            cmap_colors: matches!(self.types.ci(), 1 | 2),
            ..Check::default()
        };
        for c in &self.chunks {
            match &c.body {
                Body::Tmap(t) => out.tmap = t.items.len(),
                Body::Cmap(m) => out.cmap = m.items.len(),
                Body::Bone(s) => {
                    out.bones = s.bones.len();
                    out.skins = s.skins.len();
                }
                _ => {}
            }
        }
        // Material names and the use-material references, matched by key (one pass over
        // the string table, not a scan of the materials per record).
        let refs = self.chunks.iter().flat_map(|c| {
            let (name, records) = match &c.body {
                Body::Mtrl(m) => (Some(m.name), &[][..]),
                Body::Mesh(m) => (None, m.records.as_slice()),
                _ => (None, &[][..]),
            };
            name.into_iter()
                .chain(records.iter().filter_map(|r| match r {
                    MeshRecord::UseMaterial(s) => Some(*s),
                    _ => None,
                }))
        });
        out.names = Names::new(&self.strings, refs, None).unwrap_or_default();
        out.materials = self
            .chunks
            .iter()
            .filter_map(|c| match &c.body {
                Body::Mtrl(m) => out.names.key(m.name),
                _ => None,
            })
            .collect();
        for (ci, c) in self.chunks.iter().enumerate() {
            // Paths are only made for the lines listed.
            let at = || format!("{}[{ci}]", String::from_utf8_lossy(&c.magic()));
            match &c.body {
                Body::Vrts(v) => vertex::check::vertices(v, &at, &mut out),
                Body::Bone(s) => bones::check::skeleton(s, &at, &mut out),
                Body::Mesh(m) => mesh::check::records(m, &at, &mut out),
                Body::Actn(a) => bones::check::action(a, &at, &mut out),
                Body::Lbls(l) => label::check::labels(l, &at, &mut out),
                Body::Mtrl(m) => material::check::material(m, &at, &mut out),
                Body::Cmap(_)
                | Body::Tmap(_)
                | Body::Proc(_)
                | Body::Shpe(_)
                | Body::Voxt(_)
                | Body::Voxd(_)
                | Body::Aset { .. }
                | Body::Extra { .. } => {}
            }
        }
        out.finish()
    }
}
