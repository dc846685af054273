//! [`File::counts`]: how many of each thing a file holds, as stored.

use std::collections::HashSet;

use crate::chunk::Body;
use crate::file::File;
use crate::material::PropValue;
use crate::mesh::MeshRecord;
use crate::types::{NameKey, Names};

/// How many of each thing a file holds, as stored (m3d.h's "raw" counts, without its
/// post-processing: no generated normals, no voxel meshing).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Counts {
    /// VRTS records (positions, normals and quaternions together).
    pub vertices: usize,
    /// Polygons in all MESH chunks.
    pub faces: usize,
    /// Triangles those polygons make (a polygon of n corners makes n - 2).
    pub triangles: usize,
    /// TMAP records.
    pub tmap: usize,
    /// CMAP colours.
    pub cmap: usize,
    /// Bones.
    pub bones: usize,
    /// Skins.
    pub skins: usize,
    /// MTRL chunks.
    pub materials: usize,
    /// Distinct non-empty texture names the materials use.
    pub textures: usize,
    /// SHPE chunks.
    pub shapes: usize,
    /// Labels in all LBLS chunks.
    pub labels: usize,
    /// ACTN chunks.
    pub actions: usize,
    /// Frames in all actions.
    pub frames: usize,
    /// Voxel types.
    pub voxel_types: usize,
    /// VOXD blocks.
    pub voxel_blocks: usize,
    /// PROC chunks.
    pub procedurals: usize,
    /// ASET chunks.
    pub inlined: usize,
    /// Unknown chunks (m3d.h also counts ASET here; this does not).
    pub extra: usize,
}

impl File {
    /// Counts of everything, as stored.
    ///
    /// ```
    /// let f = m3d_format::File::default();
    /// assert_eq!(f.counts().vertices, 0);
    /// ```
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        // Texture names compared by key: one pass over the string table, not a comparison
        // per pair of maps.
        let maps = self.chunks.iter().flat_map(|ch| match &ch.body {
            Body::Mtrl(m) => m.props.as_slice(),
            _ => &[],
        });
        let names = Names::new(
            &self.strings,
            maps.filter_map(|p| match p.value {
                PropValue::Map(s) => Some(s),
                _ => None,
            }),
            None,
        )
        .unwrap_or_default();
        let mut textures: HashSet<NameKey> = Default::default();
        for ch in &self.chunks {
            match &ch.body {
                Body::Cmap(v) => c.cmap += v.items.len(),
                Body::Tmap(v) => c.tmap += v.items.len(),
                Body::Vrts(v) => c.vertices += v.items.len(),
                Body::Bone(s) => {
                    c.bones += s.bones.len();
                    c.skins += s.skins.len();
                }
                Body::Mtrl(m) => {
                    c.materials += 1;
                    for (_, s) in m.maps() {
                        // m3d.h drops a map whose name is empty (real files have them).
                        if let Some(k) = names.key(s).filter(|k| !k.is_empty()) {
                            textures.insert(k);
                        }
                    }
                }
                Body::Proc(_) => c.procedurals += 1,
                Body::Mesh(m) => {
                    for r in &m.records {
                        if let MeshRecord::Polygon { corners, .. } = r {
                            c.faces += 1;
                            c.triangles += corners.len().saturating_sub(2);
                        }
                    }
                }
                Body::Shpe(_) => c.shapes += 1,
                Body::Voxt(v) => c.voxel_types += v.len(),
                Body::Voxd(_) => c.voxel_blocks += 1,
                Body::Lbls(l) => c.labels += l.labels.len(),
                Body::Actn(a) => {
                    c.actions += 1;
                    c.frames += a.frames.len();
                }
                Body::Aset { .. } => c.inlined += 1,
                Body::Extra { .. } => c.extra += 1,
            }
        }
        c.textures = textures.len();
        c
    }
}
