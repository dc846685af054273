//! [`File::problems`]: the cross-references m3d.h never checks.

use std::collections::HashSet;

use crate::file::{Body, File};
use crate::mesh::MeshRecord;
use crate::types::{Idx, NameKey, Names, Str};

/// Problems of one kind listed before the rest are only counted.
const PROBLEM_CAP: usize = 100;

/// The list being built: lines of a kind past [`PROBLEM_CAP`] are counted, not made.
#[derive(Default)]
struct Problems {
    lines: Vec<String>,
    kinds: Vec<(&'static str, usize)>,
}

impl Problems {
    fn push(&mut self, kind: &'static str, line: impl FnOnce() -> String) {
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
    fn index(&mut self, kind: &'static str, at: impl FnOnce() -> String, i: Idx, len: usize) {
        if let Some(v) = i.get().filter(|v| *v as usize >= len) {
            self.push(kind, || {
                format!("{}: index {v} past the {len} entries", at())
            });
        }
    }

    /// A string offset past the table (`table` bytes long).
    fn string(&mut self, kind: &'static str, at: impl FnOnce() -> String, s: Str, table: usize) {
        if s.0 as usize >= table && s.0 != 0 {
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
        let mut out = Problems::default();
        let nv = self.vertices().len();
        let mut nt = 0;
        let mut ncmap = 0;
        let (mut nbones, mut nskins) = (0, 0);
        for c in &self.chunks {
            match &c.body {
                Body::Tmap(t) => nt = t.items.len(),
                Body::Cmap(m) => ncmap = m.items.len(),
                Body::Bone(s) => {
                    nbones = s.bones.len();
                    nskins = s.skins.len();
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
        let names = Names::new(&self.strings, refs, None).unwrap_or_default();
        let materials: HashSet<NameKey> = self
            .chunks
            .iter()
            .filter_map(|c| match &c.body {
                Body::Mtrl(m) => names.key(m.name),
                _ => None,
            })
            .collect();
        let table = self.strings.len();
        let cmap_colors = matches!(self.types.ci(), 1 | 2);
        for (ci, c) in self.chunks.iter().enumerate() {
            // Paths are only made for the lines listed.
            let at = || format!("{}[{ci}]", String::from_utf8_lossy(&c.magic()));
            match &c.body {
                Body::Vrts(v) => {
                    for (i, v) in v.items.iter().enumerate() {
                        if cmap_colors && v.color as usize >= ncmap {
                            out.push("vertex colour", || {
                                format!(
                                    "{}.vertex[{i}].color: index {} past the {ncmap} colours",
                                    at(),
                                    v.color
                                )
                            });
                        }
                        if v.skin != Idx::MAX {
                            let p = || format!("{}.vertex[{i}].skin", at());
                            out.index("vertex skin", p, v.skin, nskins);
                        }
                    }
                }
                Body::Bone(s) => {
                    for (i, b) in s.bones.iter().enumerate() {
                        let p = |f: &str| format!("{}.bone[{i}].{f}", at());
                        out.index("bone parent", || p("parent"), b.parent, i);
                        out.index("bone position", || p("pos"), b.pos, nv);
                        out.index("bone orientation", || p("ori"), b.ori, nv);
                        out.string("bone name", || p("name"), b.name, table);
                    }
                    for (i, s) in s.skins.iter().enumerate() {
                        for b in &s.bones {
                            let p = || format!("{}.skin[{i}].bone", at());
                            out.index("skin bone", p, *b, nbones);
                        }
                    }
                }
                Body::Mesh(m) => {
                    for (i, r) in m.records.iter().enumerate() {
                        match r {
                            MeshRecord::UseMaterial(s) => {
                                let known = names.key(*s).is_some_and(|k| materials.contains(&k));
                                if s.0 != 0 && !known {
                                    out.push("undefined material", || {
                                        format!("{}.record[{i}]: material not defined", at())
                                    });
                                }
                            }
                            MeshRecord::UseParameter { name, .. } => {
                                let p = || format!("{}.record[{i}]", at());
                                out.string("parameter name", p, *name, table);
                            }
                            MeshRecord::Polygon { corners, .. } => {
                                for (k, c) in corners.iter().enumerate() {
                                    let p =
                                        |f: &str| format!("{}.record[{i}].corner[{k}].{f}", at());
                                    if c.vertex.get().is_none() {
                                        out.push("undefined corner vertex", || {
                                            format!("{}: undefined", p("vertex"))
                                        });
                                    }
                                    out.index("corner vertex", || p("vertex"), c.vertex, nv);
                                    out.index("corner uv", || p("uv"), c.uv, nt);
                                    out.index("corner normal", || p("normal"), c.normal, nv);
                                    out.index("corner max", || p("max"), c.max, nv);
                                }
                            }
                        }
                    }
                }
                Body::Actn(a) => {
                    out.string("action name", || format!("{}.name", at()), a.name, table);
                    for (i, f) in a.frames.iter().enumerate() {
                        for t in &f.transforms {
                            let p = || format!("{}.frame[{i}]", at());
                            out.index("frame bone", || format!("{}.bone", p()), t.bone, nbones);
                            out.index("frame position", || format!("{}.pos", p()), t.pos, nv);
                            out.index("frame orientation", || format!("{}.ori", p()), t.ori, nv);
                        }
                    }
                }
                Body::Lbls(l) => {
                    for (i, (v, s)) in l.labels.iter().enumerate() {
                        let p = |f: &str| format!("{}.label[{i}].{f}", at());
                        out.index("label vertex", || p("vertex"), *v, nv);
                        out.string("label text", || p("text"), *s, table);
                    }
                }
                Body::Mtrl(m) => {
                    out.string("material name", || format!("{}.name", at()), m.name, table);
                    for (k, s) in m.maps() {
                        let p = || format!("{}.map {k}", at());
                        out.string("material map", p, s, table);
                    }
                }
                _ => {}
            }
        }
        out.finish()
    }
}
