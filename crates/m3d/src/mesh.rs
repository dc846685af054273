//! MESH: polygons and use-material / use-parameter records.

use parsing_primitives::{Reader, Result as PResult};

use crate::error::{Result, invalid};
use crate::types::{Idx, Out, Str, Types, read_idx, read_str};

/// One polygon corner. Fields the record's flags do not ask for (or whose index type is
/// absent) are [`Idx::UNDEF`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Corner {
    /// Vertex.
    pub vertex: Idx,
    /// Texture coordinate (flag 1).
    pub uv: Idx,
    /// Normal vertex (flag 2).
    pub normal: Idx,
    /// Maximum vertex (flag 4).
    pub max: Idx,
}

/// One MESH record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MeshRecord {
    /// Magic 0x00: use a material from now on (`Str(0)` = none, vertex colours).
    UseMaterial(Str),
    /// Magic 0x01..=0x0F: use a parameter (m3d.h treats any non-zero flags the same).
    UseParameter {
        /// The low nibble of the magic.
        flags: u8,
        /// Parameter name.
        name: Str,
    },
    /// A polygon of 1..=15 points (only triangles exist in practice; m3d.h stops at others).
    Polygon {
        /// The low nibble of the magic: 1 UV, 2 normal, 4 maximum vertex, 8 reserved.
        flags: u8,
        /// Corners.
        corners: Vec<Corner>,
    },
}

/// A MESH chunk.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Mesh {
    /// Records in file order.
    pub records: Vec<MeshRecord>,
}

impl Mesh {
    /// Polygons with their material (the last use-material record before them).
    pub fn polygons(&self) -> impl Iterator<Item = (&[Corner], Option<Str>)> {
        let mut mat = None;
        self.records.iter().filter_map(move |rec| match rec {
            MeshRecord::UseMaterial(s) => {
                mat = (s.0 != 0).then_some(*s);
                None
            }
            MeshRecord::UseParameter { .. } => None,
            MeshRecord::Polygon { corners, .. } => Some((corners.as_slice(), mat)),
        })
    }
}

pub(crate) fn read_mesh(r: &mut Reader<'_>, t: Types) -> PResult<Mesh> {
    let mut records = Vec::new();
    let mut i = 0;
    while !r.is_empty() {
        let rec = r.field("record", |r| {
            r.item(i, |r| {
                let m = r.u8()?;
                let (n, flags) = (usize::from(m >> 4), m & 15);
                if n == 0 {
                    let name = r.field("name", |r| read_str(r, t))?;
                    return Ok(if flags == 0 {
                        MeshRecord::UseMaterial(name)
                    } else {
                        MeshRecord::UseParameter { flags, name }
                    });
                }
                let mut corners = Vec::with_capacity(n);
                for c in 0..n {
                    corners.push(r.field("corner", |r| {
                        r.item(c, |r| {
                            let vertex = r.field("vertex", |r| read_idx(r, t.vi()))?;
                            let mut corner = Corner {
                                vertex,
                                uv: Idx::UNDEF,
                                normal: Idx::UNDEF,
                                max: Idx::UNDEF,
                            };
                            // An absent index type takes no bytes even when the flag is set
                            // (WusonBlitz files: UV flag with ti absent).
                            if flags & 1 != 0 {
                                corner.uv = r.field("uv", |r| read_idx(r, t.ti()))?;
                            }
                            if flags & 2 != 0 {
                                corner.normal = r.field("normal", |r| read_idx(r, t.vi()))?;
                            }
                            if flags & 4 != 0 {
                                corner.max = r.field("max", |r| read_idx(r, t.vi()))?;
                            }
                            Ok(corner)
                        })
                    })?);
                }
                Ok(MeshRecord::Polygon { flags, corners })
            })
        })?;
        records.push(rec);
        i += 1;
    }
    Ok(Mesh { records })
}

pub(crate) fn write_mesh(o: &mut Out, m: &Mesh) -> Result<()> {
    let t = o.t;
    for rec in &m.records {
        match rec {
            MeshRecord::UseMaterial(s) => {
                o.u8(0);
                o.str(*s, "MESH.material")?;
            }
            MeshRecord::UseParameter { flags, name } => {
                if *flags == 0 || *flags > 15 {
                    return Err(invalid("MESH: parameter flags must be 1..=15"));
                }
                o.u8(*flags);
                o.str(*name, "MESH.parameter")?;
            }
            MeshRecord::Polygon { flags, corners } => {
                let n = corners.len();
                if n == 0 || n > 15 || *flags > 15 {
                    return Err(invalid("MESH: a polygon has 1..=15 corners, flags 0..=15"));
                }
                o.u8(((n as u8) << 4) | flags);
                for c in corners {
                    o.idx(t.vi(), c.vertex, "MESH.vertex")?;
                    if flags & 1 != 0 {
                        o.idx(t.ti(), c.uv, "MESH.uv")?;
                    }
                    if flags & 2 != 0 {
                        o.idx(t.vi(), c.normal, "MESH.normal")?;
                    }
                    if flags & 4 != 0 {
                        o.idx(t.vi(), c.max, "MESH.max")?;
                    }
                }
            }
        }
    }
    Ok(())
}
