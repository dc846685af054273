//! What the text's blocks build: the chunks in text order, and the lists the binary form
//! keeps in one chunk each, which become the file's first chunks.

use crate::bones::{Bone, Skeleton};
use crate::chunk::{Body, Chunk};
use crate::file::File;
use crate::types::{Coord, Idx, SkinList, Types, Vertex};
use crate::vertex::Records;

/// What the blocks build: the chunks in text order, and the lists the binary form keeps
/// in one chunk each (TMAP, VRTS, BONE), which go first.
pub(crate) struct Blocks {
    pub chunks: Vec<Chunk>,
    pub vertices: Vec<Vertex>,
    pub tmap: Vec<[Coord; 2]>,
    /// The skins the vertices name.
    pub skins: SkinList,
    pub bones: Vec<Bone>,
    /// How large a grid a block may still declare, from the text's size (the grid itself
    /// is never built: only the voxels written are kept, and meshed).
    pub text_voxels: usize,
}

impl Blocks {
    /// Appends a chunk in text order.
    pub fn push(&mut self, body: Body) {
        self.chunks.push(Chunk {
            body,
            tail: Vec::new(),
        });
    }

    pub(crate) fn finish(mut self, scale: f32, strings: Vec<u8>) -> File {
        // Bone orientation vertices are quaternions (skin -2), as m3d.h marks them.
        for b in &self.bones {
            if let Some(v) = b.ori.get().and_then(|i| self.vertices.get_mut(i as usize)) {
                v.skin = Idx::MAX;
            }
        }
        let chunk = |body| Chunk {
            body,
            tail: Vec::new(),
        };
        let tmap = (!self.tmap.is_empty()).then(|| {
            chunk(Body::Tmap(Records {
                items: self.tmap,
                tail: Vec::new(),
            }))
        });
        let vrts = (!self.vertices.is_empty()).then(|| {
            chunk(Body::Vrts(Records {
                items: self.vertices,
                tail: Vec::new(),
            }))
        });
        let bone = (!self.bones.is_empty() || !self.skins.skins.is_empty()).then(|| {
            chunk(Body::Bone(Skeleton {
                bones: self.bones,
                skins: self.skins.skins,
            }))
        });
        // In front of the text's chunks, in the list they are already in (at most three
        // inserts, not a second list).
        let mut chunks = self.chunks;
        for (i, c) in [tmap, vrts, bone].into_iter().flatten().enumerate() {
            chunks.insert(i, c);
        }
        File {
            preview: None,
            compressed: true,
            scale,
            types: Types(TYPES),
            strings,
            chunks,
        }
    }
}

/// vc f64, vi/si/ci/ti/bi/sk/fc/hi/fi/vd u32, vp u16, nb 8.
pub(crate) const TYPES: u32 = 3
    | (2 << 2)
    | (2 << 4)
    | (2 << 6)
    | (2 << 8)
    | (2 << 10)
    | (3 << 12)
    | (2 << 14)
    | (2 << 16)
    | (2 << 18)
    | (2 << 20)
    | (2 << 22)
    | (1 << 24);
