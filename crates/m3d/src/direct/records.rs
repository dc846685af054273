//! The records the one-pass load decodes straight from the payload: vertices and
//! polygons as they stream in, bones and actions from their chunk bytes. Every function
//! gives `None` where the checked reader would fail (the load then takes that path).

use parsing_primitives::Budget;

use crate::bones::{self, record::SkeletonSink};
use crate::loaded::{IDENTITY, LoadedBone, LoadedFace, LoadedSkin, LoadedVertex, skin_of};
use crate::mesh::record::{Fixed, Magic, Record, Widths};
use crate::mesh::{self, NO_CORNER};
use crate::types::{Coord, Cur, Declined, Idx, Str, Types};
use crate::vertex::{self, record::with_vc};

/// Pushes `item`, growing the vector by doubling and charging `budget` for each growth
/// (what the one-pass load builds without knowing its final count).
pub(super) fn push_charged<T>(
    v: &mut Vec<T>,
    item: T,
    budget: &Budget,
    what: &'static str,
) -> Option<()> {
    if v.len() == v.capacity() {
        let more = v.capacity().max(64);
        budget.charge_items::<T>(what, more).ok()?;
        v.reserve_exact(more);
    }
    v.push(item);
    Some(())
}

/// ACTN straight from its bytes, as the checked reader decodes it (counts also within
/// `max` elements).
pub(super) fn action(body: &[u8], t: Types, max: u64) -> Option<bones::Action> {
    bones::record::action(&mut Cur::with_max(body, max), t).ok()
}

/// BONE straight from its bytes: the bones (names through `text`) and the skins in
/// their loaded form, without a vector per skin.
pub(super) fn bones(
    body: &[u8],
    t: Types,
    max: u64,
    budget: &Budget,
    text: &dyn Fn(Str) -> Option<String>,
) -> Option<(Vec<LoadedBone>, Vec<LoadedSkin>)> {
    let mut sink = Skeleton {
        bones: Vec::new(),
        skins: Vec::new(),
        nb: t.nb(),
        budget,
        text,
    };
    bones::record::skeleton(&mut Cur::with_max(body, max), t, &mut sink).ok()?;
    Some((sink.bones, sink.skins))
}

/// The bones and skins of a BONE chunk as the load holds them, charged as they come.
struct Skeleton<'a> {
    bones: Vec<LoadedBone>,
    skins: Vec<LoadedSkin>,
    nb: usize,
    budget: &'a Budget,
    text: &'a dyn Fn(Str) -> Option<String>,
}

impl SkeletonSink<Declined> for Skeleton<'_> {
    fn bones(&mut self, n: usize) -> Result<(), Declined> {
        self.budget
            .charge_items::<LoadedBone>("bones", n)
            .map_err(|_| Declined)?;
        self.bones.reserve_exact(n);
        Ok(())
    }

    fn bone(&mut self, b: bones::Bone) -> Result<(), Declined> {
        self.bones.push(LoadedBone {
            name: (self.text)(b.name).ok_or(Declined)?,
            parent: b.parent,
            pos: b.pos,
            ori: b.ori,
            weights: Vec::new(),
            inverse_bind: IDENTITY,
        });
        Ok(())
    }

    fn skins(&mut self, n: usize) -> Result<(), Declined> {
        self.budget
            .charge_items::<LoadedSkin>("skins", n)
            .map_err(|_| Declined)?;
        self.skins.reserve_exact(n);
        Ok(())
    }

    fn skin(&mut self, weights: &[u8], bones: &[Idx]) -> Result<(), Declined> {
        self.skins
            .push(skin_of(self.nb, weights, bones.iter().copied()));
        Ok(())
    }
}

/// VRTS records (whole ones, `size` bytes each) in their loaded form, the colour field
/// kept raw (resolved through the colour map once the payload is read), the width
/// chosen once per call.
pub(super) fn vertices(body: &[u8], size: usize, t: Types, out: &mut Vec<LoadedVertex>) {
    let records = body.chunks_exact(size.max(1));
    with_vc!(t, W => out.extend(records.map(|rec| {
        match vertex::record::vertex::<W>(&mut Cur::new(rec), t) {
            Ok(v) => LoadedVertex {
                xyzw: v.coords.map(Coord::loaded),
                color: v.color,
                skin: v.skin,
            },
            // Never: the record holds every field.
            Err(Declined) => LoadedVertex {
                xyzw: [0.0; 4],
                color: 0,
                skin: Idx::UNDEF,
            },
        }
    })))
}

/// TMAP records (whole ones, `size` bytes each) as the load holds them.
pub(super) fn uvs(body: &[u8], size: usize, t: Types, out: &mut Vec<[f32; 2]>) {
    let records = body.chunks_exact(size.max(1));
    with_vc!(t, W => out.extend(records.map(|rec| {
        vertex::record::uv::<W>(&mut Cur::new(rec)).map_or([0.0; 2], |uv| uv.map(Coord::loaded_uv))
    })))
}

/// CMAP records (whole ones).
pub(super) fn colours(body: &[u8], out: &mut Vec<u32>) {
    let records = body.chunks_exact(vertex::record::COLOUR_SIZE);
    out.extend(records.map(|rec| vertex::record::colour(&mut Cur::new(rec)).unwrap_or(0)));
}

/// Where the MESH records decoded so far put their triangles and material switches.
pub(super) struct Polygons<'b> {
    pub faces: &'b mut Vec<LoadedFace>,
    /// `(first face, use-material name)`: faces from there on take that material
    /// (`None`: none, as at the start of every MESH chunk).
    pub runs: &'b mut Vec<(usize, Option<Str>)>,
    pub budget: &'b Budget,
}

/// Whole MESH records from `data` (at most `left` bytes of the chunk): triangles
/// (larger polygons as a fan) appended, use-material names recorded. Gives the bytes
/// used: a record cut by the end of `data` waits for more; one that runs past the chunk
/// (`left`) is `None`, as in the checked reader.
pub(super) fn polygons(
    data: &[u8],
    left: usize,
    t: Types,
    out: &mut Polygons<'_>,
) -> Option<usize> {
    let si = t.si();
    match (t.vi(), t.ti()) {
        (1, 0) => polygons_in(data, left, Fixed::<1, 0> { si }, out),
        (1, 1) => polygons_in(data, left, Fixed::<1, 1> { si }, out),
        (1, 2) => polygons_in(data, left, Fixed::<1, 2> { si }, out),
        (1, _) => polygons_in(data, left, Fixed::<1, 4> { si }, out),
        (2, 0) => polygons_in(data, left, Fixed::<2, 0> { si }, out),
        (2, 1) => polygons_in(data, left, Fixed::<2, 1> { si }, out),
        (2, 2) => polygons_in(data, left, Fixed::<2, 2> { si }, out),
        (2, _) => polygons_in(data, left, Fixed::<2, 4> { si }, out),
        (_, 0) => polygons_in(data, left, Fixed::<4, 0> { si }, out),
        (_, 1) => polygons_in(data, left, Fixed::<4, 1> { si }, out),
        (_, 2) => polygons_in(data, left, Fixed::<4, 2> { si }, out),
        (_, _) => polygons_in(data, left, Fixed::<4, 4> { si }, out),
    }
}

/// [`polygons`] for one pair of index widths.
fn polygons_in(data: &[u8], left: usize, w: impl Widths, out: &mut Polygons<'_>) -> Option<usize> {
    let mut used = 0usize;
    let mut corners = [NO_CORNER; 15];
    while let Some(&m) = data.get(used) {
        let size = 1 + Magic(m).body_size(w);
        if used + size > left {
            return None;
        }
        let Some(record) = data.get(used..used + size) else {
            break;
        };
        used += size;
        match mesh::record::decode(&mut Cur::new(record), w, &mut corners).ok()? {
            Record::Material(name) => {
                push_charged(
                    out.runs,
                    (out.faces.len(), Some(name)),
                    out.budget,
                    "material runs",
                )?;
            }
            Record::Parameter { .. } => {}
            Record::Polygon { n, .. } => {
                let [first, rest @ ..] = &corners;
                for pair in rest.get(..n - 1).unwrap_or_default().windows(2) {
                    let [p, q] = [pair[0], pair[1]];
                    let face = LoadedFace {
                        material: Idx::UNDEF,
                        vertex: [first.vertex, p.vertex, q.vertex],
                        uv: [first.uv, p.uv, q.uv],
                        normal: [first.normal, p.normal, q.normal],
                    };
                    push_charged(out.faces, face, out.budget, "triangles")?;
                }
            }
        }
    }
    Some(used)
}
