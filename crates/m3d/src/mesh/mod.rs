//! MESH: polygons and use-material / use-parameter records.

pub(crate) mod ascii;
pub(crate) mod check;
pub(crate) mod core;
pub(crate) mod record;
mod skin;

use parsing_primitives::{Reader, Result as PResult};

use self::record::{Magic, Record};
use crate::error::{Result, invalid};
use crate::types::{Cur, Idx, Out, Str, Types};

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

/// A polygon's corners: up to three kept inline (real files hold triangles, and a
/// model has thousands: no allocation each), more on the heap. Reads as a slice.
///
/// ```
/// use m3d_format::{Corner, Corners, Idx};
/// let c = Corner { vertex: Idx(0), uv: Idx::UNDEF, normal: Idx::UNDEF, max: Idx::UNDEF };
/// let tri = Corners::from(vec![c, c, c]);
/// assert_eq!(tri.len(), 3);
/// assert_eq!(tri, Corners::from(vec![c, c, c]));
/// ```
#[derive(Clone)]
pub struct Corners(CornerStore);

#[derive(Clone)]
enum CornerStore {
    Inline([Corner; 3], u8),
    Heap(Vec<Corner>),
}

pub(crate) const NO_CORNER: Corner = Corner {
    vertex: Idx::UNDEF,
    uv: Idx::UNDEF,
    normal: Idx::UNDEF,
    max: Idx::UNDEF,
};

impl Corners {
    /// No corners.
    pub const fn new() -> Self {
        Corners(CornerStore::Inline([NO_CORNER; 3], 0))
    }

    /// `corners` (up to three inline; more in a list of their number).
    #[inline]
    fn from_slice(corners: &[Corner]) -> Corners {
        match corners {
            [] => Corners::new(),
            [a] => Corners(CornerStore::Inline([*a, NO_CORNER, NO_CORNER], 1)),
            [a, b] => Corners(CornerStore::Inline([*a, *b, NO_CORNER], 2)),
            [a, b, c] => Corners(CornerStore::Inline([*a, *b, *c], 3)),
            more => Corners(CornerStore::Heap(more.to_vec())),
        }
    }

    /// Adds a corner.
    #[inline]
    pub fn push(&mut self, c: Corner) {
        match &mut self.0 {
            CornerStore::Inline(a, n) if usize::from(*n) < a.len() => {
                a[usize::from(*n)] = c;
                *n += 1;
            }
            CornerStore::Inline(a, _) => {
                let mut v = a.to_vec();
                v.push(c);
                self.0 = CornerStore::Heap(v);
            }
            CornerStore::Heap(v) => v.push(c),
        }
    }
}

impl Default for Corners {
    fn default() -> Self {
        Corners::new()
    }
}

impl std::ops::Deref for Corners {
    type Target = [Corner];
    fn deref(&self) -> &[Corner] {
        match &self.0 {
            CornerStore::Inline(a, n) => a.get(..usize::from(*n)).unwrap_or_default(),
            CornerStore::Heap(v) => v,
        }
    }
}

impl std::ops::DerefMut for Corners {
    fn deref_mut(&mut self) -> &mut [Corner] {
        match &mut self.0 {
            CornerStore::Inline(a, n) => a.get_mut(..usize::from(*n)).unwrap_or_default(),
            CornerStore::Heap(v) => v,
        }
    }
}

impl From<Vec<Corner>> for Corners {
    fn from(v: Vec<Corner>) -> Self {
        let mut c = Corners::new();
        if v.len() > 3 {
            c.0 = CornerStore::Heap(v);
        } else {
            v.into_iter().for_each(|x| c.push(x));
        }
        c
    }
}

impl FromIterator<Corner> for Corners {
    fn from_iter<I: IntoIterator<Item = Corner>>(iter: I) -> Self {
        let mut c = Corners::new();
        iter.into_iter().for_each(|x| c.push(x));
        c
    }
}

impl<'a> IntoIterator for &'a Corners {
    type Item = &'a Corner;
    type IntoIter = std::slice::Iter<'a, Corner>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for Corners {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Corners {}

impl std::fmt::Debug for Corners {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
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
        corners: Corners,
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
            MeshRecord::Polygon { corners, .. } => Some((&corners[..], mat)),
        })
    }
}

/// How many records the bytes hold, and how many corners the polygons of more than three
/// hold (kept on the heap), from their magic bytes alone (a record that runs past the end
/// still counts: the reader reports it).
fn count_records(mut b: &[u8], t: Types) -> (usize, usize) {
    let (mut n, mut heap) = (0usize, 0usize);
    while let Some((&m, rest)) = b.split_first() {
        let m = Magic(m);
        if m.corners() > 3 {
            heap += m.corners();
        }
        b = rest.get(m.body_size(t)..).unwrap_or_default();
        n += 1;
    }
    (n, heap)
}

pub(crate) fn read_mesh(r: &mut Reader<'_>, t: Types) -> PResult<Mesh> {
    // Sized up front: thousands of records, no regrowth. At most one per byte; polygons of
    // more than three corners also hold their corners on the heap (up to 240 bytes from
    // 16 bytes of input).
    let (n, heap) = count_records(r.rest(), t);
    r.charge_for(
        "mesh records",
        (n as u64).saturating_mul(std::mem::size_of::<MeshRecord>() as u64),
    )?;
    r.charge_for(
        "polygon corners",
        (heap as u64).saturating_mul(std::mem::size_of::<Corner>() as u64),
    )?;
    let mut records = Vec::with_capacity(n);
    let mut corners = [NO_CORNER; 15];
    while !r.is_empty() {
        // Unchecked first; a record the bytes cut is read again, checked, to say where.
        let mut c = Cur::new(r.rest());
        let rec = match record::decode(&mut c, t, &mut corners) {
            Ok(rec) => {
                r.skip(r.remaining() - c.rest().len())?;
                rec
            }
            Err(_) => r.field("record", |r| {
                r.item(records.len(), |r| record::decode(r, t, &mut corners))
            })?,
        };
        records.push(MeshRecord::stored(rec, &corners));
    }
    Ok(Mesh { records })
}

impl MeshRecord {
    /// A decoded record as stored, its corners the first of `corners`.
    fn stored(rec: Record, corners: &[Corner; 15]) -> MeshRecord {
        match rec {
            Record::Material(name) => MeshRecord::UseMaterial(name),
            Record::Parameter { flags, name } => MeshRecord::UseParameter { flags, name },
            Record::Polygon { flags, n } => MeshRecord::Polygon {
                flags,
                corners: Corners::from_slice(corners.get(..n).unwrap_or_default()),
            },
        }
    }
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
