//! [`File::problems`]: the cross-references m3d.h never checks. Each chunk module checks
//! its own chunk ([`Check`] holds what the checks compare against).

use crate::chunk::Body;
use crate::context::problems::Check;
use crate::file::File;
use crate::mesh::MeshRecord;
use crate::types::Names;
use crate::{bones, label, material, mesh, vertex};

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
    pub fn problems(&self) -> Vec<meshfmt_core::Problem> {
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
