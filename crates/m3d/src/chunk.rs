//! The chunks between HEAD and OMD3: their magics by name, what each holds ([`Body`]),
//! and [`CHUNKS`], the table the binary reader dispatches through (magic, name in
//! error paths, reader).

use parsing_primitives::{Reader, Result as PResult};

use crate::bones::{self, Action, Skeleton};
use crate::label::{self, Labels};
use crate::material::{self, Material};
use crate::mesh::{self, Mesh};
use crate::shape::{self, Shape};
use crate::types::{Coord, Str, Types, Vertex, read_str, rest_copy};
use crate::vertex::{self, Records};
use crate::voxel::{self, VoxelBlock, VoxelType};

/// The file's first four bytes (the text form starts `3dmodel`).
pub(crate) const MODEL: [u8; 4] = *b"3DMO";
/// The preview image, outside the payload.
pub(crate) const PRVW: [u8; 4] = *b"PRVW";
/// The payload's header: scale, type bits, string table.
pub(crate) const HEAD: [u8; 4] = *b"HEAD";
/// The payload's end.
pub(crate) const OMD3: [u8; 4] = *b"OMD3";
/// Colour map.
pub(crate) const CMAP: [u8; 4] = *b"CMAP";
/// Texture coordinates.
pub(crate) const TMAP: [u8; 4] = *b"TMAP";
/// The vertex list.
pub(crate) const VRTS: [u8; 4] = *b"VRTS";
/// Bones and skins.
pub(crate) const BONE: [u8; 4] = *b"BONE";
/// A material.
pub(crate) const MTRL: [u8; 4] = *b"MTRL";
/// A procedural script name.
pub(crate) const PROC: [u8; 4] = *b"PROC";
/// Polygons.
pub(crate) const MESH: [u8; 4] = *b"MESH";
/// A parametric shape.
pub(crate) const SHPE: [u8; 4] = *b"SHPE";
/// Voxel types.
pub(crate) const VOXT: [u8; 4] = *b"VOXT";
/// A voxel block.
pub(crate) const VOXD: [u8; 4] = *b"VOXD";
/// A label group.
pub(crate) const LBLS: [u8; 4] = *b"LBLS";
/// An animation.
pub(crate) const ACTN: [u8; 4] = *b"ACTN";
/// An inlined asset.
pub(crate) const ASET: [u8; 4] = *b"ASET";

/// What a chunk holds.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Body {
    /// CMAP: RGBA colours, R in the low byte.
    Cmap(Records<u32>),
    /// TMAP: u, v pairs.
    Tmap(Records<[Coord; 2]>),
    /// VRTS: the one vertex list (positions, normals, quaternions).
    Vrts(Records<Vertex>),
    /// BONE: bones and skins.
    Bone(Skeleton),
    /// MTRL: one material.
    Mtrl(Material),
    /// PROC: a procedural script name.
    Proc(Str),
    /// MESH: polygons.
    Mesh(Mesh),
    /// SHPE: one parametric shape.
    Shpe(Shape),
    /// VOXT: voxel types.
    Voxt(Vec<VoxelType>),
    /// VOXD: one voxel block.
    Voxd(VoxelBlock),
    /// LBLS: one label group.
    Lbls(Labels),
    /// ACTN: one animation.
    Actn(Action),
    /// ASET: one inlined asset (a PNG texture, a script...).
    Aset {
        /// Asset name (textures: without extension).
        name: Str,
        /// The asset bytes.
        data: Vec<u8>,
    },
    /// Any other chunk (application specific, or a VOXD the type bits make unreadable),
    /// kept verbatim.
    Extra {
        /// The magic.
        magic: [u8; 4],
        /// The chunk bytes after the 8-byte header.
        data: Vec<u8>,
    },
}

/// One chunk between HEAD and OMD3.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// What it holds.
    pub body: Body,
    /// Bytes after what the body decoded (m3d.h ignores them; kept for exact rewrites).
    pub tail: Vec<u8>,
}

impl Chunk {
    /// The four-byte magic.
    pub fn magic(&self) -> [u8; 4] {
        match &self.body {
            Body::Cmap(_) => CMAP,
            Body::Tmap(_) => TMAP,
            Body::Vrts(_) => VRTS,
            Body::Bone(_) => BONE,
            Body::Mtrl(_) => MTRL,
            Body::Proc(_) => PROC,
            Body::Mesh(_) => MESH,
            Body::Shpe(_) => SHPE,
            Body::Voxt(_) => VOXT,
            Body::Voxd(_) => VOXD,
            Body::Lbls(_) => LBLS,
            Body::Actn(_) => ACTN,
            Body::Aset { .. } => ASET,
            Body::Extra { magic, .. } => *magic,
        }
    }
}

/// One kind of chunk the binary reader knows: its magic, its name in error paths
/// (`MESH[0].record[3]`), and how its bytes after the header read.
pub(crate) struct Kind {
    /// The four-byte magic.
    pub magic: [u8; 4],
    /// The name error paths give it.
    pub name: &'static str,
    /// Reads the chunk's bytes (after its 8-byte header) with the type bits.
    pub read: fn(&mut Reader<'_>, Types) -> PResult<Body>,
}

/// Every chunk kind this crate reads; any other magic is kept as [`Body::Extra`].
pub(crate) const CHUNKS: [Kind; 13] = [
    Kind {
        magic: CMAP,
        name: "CMAP",
        read: |r, _| Ok(Body::Cmap(vertex::read_cmap(r)?)),
    },
    Kind {
        magic: TMAP,
        name: "TMAP",
        read: |r, t| Ok(Body::Tmap(vertex::read_tmap(r, t)?)),
    },
    Kind {
        magic: VRTS,
        name: "VRTS",
        read: |r, t| Ok(Body::Vrts(vertex::read_vrts(r, t)?)),
    },
    Kind {
        magic: BONE,
        name: "BONE",
        read: |r, t| Ok(Body::Bone(bones::read_bone(r, t)?)),
    },
    Kind {
        magic: MTRL,
        name: "MTRL",
        read: |r, t| Ok(Body::Mtrl(material::read_mtrl(r, t)?)),
    },
    Kind {
        magic: PROC,
        name: "PROC",
        read: |r, t| Ok(Body::Proc(r.field("name", |r| read_str(r, t))?)),
    },
    Kind {
        magic: MESH,
        name: "MESH",
        read: |r, t| Ok(Body::Mesh(mesh::read_mesh(r, t)?)),
    },
    Kind {
        magic: SHPE,
        name: "SHPE",
        read: |r, t| Ok(Body::Shpe(shape::read_shpe(r, t)?)),
    },
    Kind {
        magic: VOXT,
        name: "VOXT",
        read: |r, t| Ok(Body::Voxt(voxel::read_voxt(r, t)?)),
    },
    Kind {
        magic: VOXD,
        name: "VOXD",
        // Without its position and voxel type widths, a block cannot be read: kept as
        // it is.
        read: |r, t| match t.vd() != 0 && t.vp() != 0 {
            true => Ok(Body::Voxd(voxel::read_voxd(r, t)?)),
            false => Ok(Body::Extra {
                magic: VOXD,
                data: rest_copy(r)?,
            }),
        },
    },
    Kind {
        magic: LBLS,
        name: "LBLS",
        read: |r, t| Ok(Body::Lbls(label::read_lbls(r, t)?)),
    },
    Kind {
        magic: ACTN,
        name: "ACTN",
        read: |r, t| Ok(Body::Actn(bones::read_actn(r, t)?)),
    },
    Kind {
        magic: ASET,
        name: "ASET",
        read: |r, t| {
            let name = r.field("name", |r| read_str(r, t))?;
            let data = rest_copy(r)?;
            Ok(Body::Aset { name, data })
        },
    },
];

/// The kind of chunk `magic` names, if this crate reads it.
pub(crate) fn kind(magic: [u8; 4]) -> Option<&'static Kind> {
    CHUNKS.iter().find(|k| k.magic == magic)
}
