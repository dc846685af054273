//! CMAP (colour map), TMAP (texture coordinates) and VRTS (vertex list).

pub(crate) mod ascii;
pub(crate) mod check;
pub(crate) mod core;
pub(crate) mod record;

use parsing_primitives::{Reader, Result as PResult};

use self::record::with_vc;
use crate::error::Result;
use crate::types::{Coord, Cur, Declined, Out, Types, Vertex};

/// Records of a fixed size plus the bytes after the last whole record (kept for exact
/// rewrites; m3d.h ignores them).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Records<T> {
    /// The records.
    pub items: Vec<T>,
    /// Bytes after the last whole record.
    pub tail: Vec<u8>,
}

/// Whole records of `size` bytes up to the end of the chunk, each decoded by `f` from
/// its own bytes (no per-field bounds checks or context: the slice is exact), then the
/// tail.
fn records<T>(
    r: &mut Reader<'_>,
    size: usize,
    f: impl Fn(&mut Cur<'_>) -> Result<T, Declined>,
) -> PResult<Records<T>> {
    let size = size.max(1);
    let n = r.count((r.remaining() / size) as u64, size)?;
    r.charge((n as u64).saturating_mul(std::mem::size_of::<T>() as u64))?;
    let at = r.offset();
    let body = r.bytes(n * size)?;
    let mut items = Vec::with_capacity(n);
    for (i, chunk) in body.chunks_exact(size).enumerate() {
        // `size` covers every field f reads, so this never fails; checked all the same.
        let item = f(&mut Cur::new(chunk))
            .map_err(|_| r.invalid_at(at + (i * size) as u64, "record shorter than its fields"))?;
        items.push(item);
    }
    let tail = crate::types::rest_copy(r)?;
    Ok(Records { items, tail })
}

pub(crate) fn read_cmap(r: &mut Reader<'_>) -> PResult<Records<u32>> {
    records(r, record::COLOUR_SIZE, record::colour)
}

pub(crate) fn read_tmap(r: &mut Reader<'_>, t: Types) -> PResult<Records<[Coord; 2]>> {
    with_vc!(t, W => records(r, record::uv_size(t), record::uv::<W>))
}

pub(crate) fn read_vrts(r: &mut Reader<'_>, t: Types) -> PResult<Records<Vertex>> {
    with_vc!(t, W => records(r, record::vertex_size(t), |c| record::vertex::<W>(c, t)))
}

pub(crate) fn write_cmap(o: &mut Out, c: &Records<u32>) {
    for v in &c.items {
        o.u32(*v);
    }
    o.tail(&c.tail);
}

pub(crate) fn write_tmap(o: &mut Out, c: &Records<[Coord; 2]>) -> Result<()> {
    for uv in &c.items {
        o.uv(uv[0], "TMAP.u")?;
        o.uv(uv[1], "TMAP.v")?;
    }
    o.tail(&c.tail);
    Ok(())
}

pub(crate) fn write_vrts(o: &mut Out, c: &Records<Vertex>) -> Result<()> {
    let t = o.t;
    for v in &c.items {
        for x in v.coords {
            o.coord(x, "VRTS.coord")?;
        }
        o.raw(t.ci(), v.color, "VRTS.color")?;
        o.idx(t.sk(), v.skin, "VRTS.skin")?;
    }
    o.tail(&c.tail);
    Ok(())
}
