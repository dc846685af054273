//! [`File::problems`]: the cross-references m3d.h never checks.

use crate::file::{Body, File};
use crate::mesh::MeshRecord;
use crate::types::{Idx, Str};

impl File {
    /// Every reference that points nowhere: vertex, UV, skin, bone and CMAP indices past
    /// their lists, bone parents that do not come before the bone, string offsets past the
    /// table, use-material records naming no material. m3d.h reads such files out of
    /// bounds; here they read fine (the values are kept as stored) and are listed here, one
    /// line each with its chunk path. Empty for a consistent file.
    ///
    /// ```
    /// assert!(m3d_format::File::default().problems().is_empty());
    /// ```
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let nv = self.vertices().len();
        let mut nt = 0;
        let mut ncmap = 0;
        let (mut nbones, mut nskins) = (0, 0);
        let mut materials: Vec<&[u8]> = Vec::new();
        for c in &self.chunks {
            match &c.body {
                Body::Tmap(t) => nt = t.items.len(),
                Body::Cmap(m) => ncmap = m.items.len(),
                Body::Bone(s) => {
                    nbones = s.bones.len();
                    nskins = s.skins.len();
                }
                Body::Mtrl(m) => materials.extend(self.string(m.name)),
                _ => {}
            }
        }
        let check = |out: &mut Vec<String>, what: String, i: Idx, len: usize| {
            if let Some(v) = i.get() {
                if v as usize >= len {
                    out.push(format!("{what}: index {v} past the {len} entries"));
                }
            }
        };
        let check_str = |out: &mut Vec<String>, what: String, s: Str| {
            if s.0 as usize >= self.strings.len() && s.0 != 0 {
                out.push(format!("{what}: string offset {} past the table", s.0));
            }
        };
        let cmap_colors = matches!(self.types.ci(), 1 | 2);
        for (ci, c) in self.chunks.iter().enumerate() {
            let at = format!("{}[{ci}]", String::from_utf8_lossy(&c.magic()));
            match &c.body {
                Body::Vrts(v) => {
                    for (i, v) in v.items.iter().enumerate() {
                        if cmap_colors && v.color as usize >= ncmap {
                            out.push(format!(
                                "{at}.vertex[{i}].color: index {} past the {ncmap} colours",
                                v.color
                            ));
                        }
                        if v.skin != Idx::MAX {
                            check(&mut out, format!("{at}.vertex[{i}].skin"), v.skin, nskins);
                        }
                    }
                }
                Body::Bone(s) => {
                    for (i, b) in s.bones.iter().enumerate() {
                        check(&mut out, format!("{at}.bone[{i}].parent"), b.parent, i);
                        check(&mut out, format!("{at}.bone[{i}].pos"), b.pos, nv);
                        check(&mut out, format!("{at}.bone[{i}].ori"), b.ori, nv);
                        check_str(&mut out, format!("{at}.bone[{i}].name"), b.name);
                    }
                    for (i, s) in s.skins.iter().enumerate() {
                        for b in &s.bones {
                            check(&mut out, format!("{at}.skin[{i}].bone"), *b, nbones);
                        }
                    }
                }
                Body::Mesh(m) => {
                    for (i, r) in m.records.iter().enumerate() {
                        match r {
                            MeshRecord::UseMaterial(s) => {
                                let name = self.string(*s);
                                if s.0 != 0 && !name.is_some_and(|n| materials.contains(&n)) {
                                    out.push(format!("{at}.record[{i}]: material not defined"));
                                }
                            }
                            MeshRecord::UseParameter { name, .. } => {
                                check_str(&mut out, format!("{at}.record[{i}]"), *name)
                            }
                            MeshRecord::Polygon { corners, .. } => {
                                for (k, c) in corners.iter().enumerate() {
                                    let p = format!("{at}.record[{i}].corner[{k}]");
                                    if c.vertex.get().is_none() {
                                        out.push(format!("{p}.vertex: undefined"));
                                    }
                                    check(&mut out, format!("{p}.vertex"), c.vertex, nv);
                                    check(&mut out, format!("{p}.uv"), c.uv, nt);
                                    check(&mut out, format!("{p}.normal"), c.normal, nv);
                                    check(&mut out, format!("{p}.max"), c.max, nv);
                                }
                            }
                        }
                    }
                }
                Body::Actn(a) => {
                    check_str(&mut out, format!("{at}.name"), a.name);
                    for (i, f) in a.frames.iter().enumerate() {
                        for t in &f.transforms {
                            check(&mut out, format!("{at}.frame[{i}].bone"), t.bone, nbones);
                            check(&mut out, format!("{at}.frame[{i}].pos"), t.pos, nv);
                            check(&mut out, format!("{at}.frame[{i}].ori"), t.ori, nv);
                        }
                    }
                }
                Body::Lbls(l) => {
                    for (i, (v, s)) in l.labels.iter().enumerate() {
                        check(&mut out, format!("{at}.label[{i}].vertex"), *v, nv);
                        check_str(&mut out, format!("{at}.label[{i}].text"), *s);
                    }
                }
                Body::Mtrl(m) => {
                    check_str(&mut out, format!("{at}.name"), m.name);
                    for (k, s) in m.maps() {
                        check_str(&mut out, format!("{at}.map {k}"), s);
                    }
                }
                _ => {}
            }
        }
        out
    }
}
