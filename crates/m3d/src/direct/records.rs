//! The records the one-pass load decodes straight from the payload: vertices and
//! polygons as they stream in, bones and actions from their chunk bytes. Every function
//! gives `None` where the checked reader would fail (the load then takes that path).

use parsing_primitives::Budget;

use crate::bones;
use crate::load::{IDENTITY, LoadedBone, LoadedFace, LoadedSkin, LoadedVertex, skin_of};
use crate::types::{Cur, Idx, Str, Types};

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

/// A count read at the cursor as the checked reader takes it: at most `max`, and its
/// elements of `min` bytes fit the bytes after the `width`-byte count field.
fn counted(c: &Cur<'_>, n: u32, width: usize, min: usize, max: u64) -> Option<usize> {
    let left = c.0.len().checked_sub(width)?;
    let n = n as usize;
    (n as u64 <= max && n.checked_mul(min)? <= left).then_some(n)
}

/// ACTN straight from its bytes: name, frame count, duration, then per frame its time
/// and the changed bones (each count checked against the bytes left first).
pub(super) fn action(body: &[u8], t: Types, max: u64) -> Option<bones::Action> {
    let mut c = Cur(body);
    let name = Str(c.raw(t.si())?);
    let nframe = c.raw(2)? as usize;
    let duration_msec = c.raw(4)?;
    let tsize = (t.bi() + 2 * t.vi()).max(1);
    (nframe as u64 <= max && nframe * (4 + t.fc()) <= c.0.len()).then_some(())?;
    let mut frames = Vec::with_capacity(nframe);
    for _ in 0..nframe {
        let msec = c.raw(4)?;
        let n = counted(&c, Cur(c.0).raw(t.fc())?, t.fc(), tsize, max)?;
        c.raw(t.fc())?;
        let mut transforms = Vec::with_capacity(n);
        for _ in 0..n {
            transforms.push(bones::Transform {
                bone: c.idx(t.bi())?,
                pos: c.idx(t.vi())?,
                ori: c.idx(t.vi())?,
            });
        }
        frames.push(bones::Frame { msec, transforms });
    }
    Some(bones::Action {
        name,
        duration_msec,
        frames,
    })
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
    let mut c = Cur(body);
    let bone_size = (t.bi() + t.si() + 2 * t.vi()).max(1);
    let nbone = counted(&c, Cur(c.0).raw(t.bi())?, t.bi(), bone_size, max)?;
    c.raw(t.bi())?;
    let nskin = c.raw(t.sk())? as usize;
    budget.charge_items::<LoadedBone>("bones", nbone).ok()?;
    let mut bones = Vec::with_capacity(nbone);
    for _ in 0..nbone {
        let parent = c.idx(t.bi())?;
        let name = Str(c.raw(t.si())?);
        let (pos, ori) = (c.idx(t.vi())?, c.idx(t.vi())?);
        bones.push(LoadedBone {
            name: text(name)?,
            parent,
            pos,
            ori,
            weights: Vec::new(),
            inverse_bind: IDENTITY,
        });
    }
    let nb = t.nb();
    let skin_min = if nb == 1 { t.bi() } else { nb }.max(1);
    (nskin as u64 <= max && nskin.checked_mul(skin_min)? <= c.0.len()).then_some(())?;
    budget.charge_items::<LoadedSkin>("skins", nskin).ok()?;
    let mut skins = Vec::with_capacity(nskin);
    for _ in 0..nskin {
        if nb == 1 {
            let b = c.idx(t.bi())?;
            skins.push(skin_of(1, &[], std::iter::once(b)));
            continue;
        }
        let mut weights = [0u8; 8];
        for slot in weights.iter_mut().take(nb) {
            *slot = c.u8()?;
        }
        let (mut ids, mut n) = ([Idx::UNDEF; 8], 0);
        for w in weights.iter().take(nb) {
            if *w != 0 {
                *ids.get_mut(n)? = c.idx(t.bi())?;
                n += 1;
            }
        }
        let stored = weights.get(..nb)?;
        skins.push(skin_of(nb, stored, ids.into_iter().take(n)));
    }
    Some((bones, skins))
}

/// VRTS records (whole ones, `size` bytes each) in their loaded form, the colour field
/// kept raw (resolved through the colour map once the payload is read), one width
/// dispatch per call, not per field.
pub(super) fn vertices(body: &[u8], size: usize, t: Types, out: &mut Vec<LoadedVertex>) {
    let (ci, sk) = (t.ci(), t.sk());
    let records = body.chunks_exact(size.max(1));
    macro_rules! each {
        ($w:literal, $conv:expr) => {
            out.extend(records.map(|rec| {
                let (xyz, tail) = rec.split_at_checked(4 * $w).unwrap_or((rec, &[]));
                let mut c = Cur(tail);
                let color = c.raw(ci).unwrap_or(0);
                let skin = c.idx(sk).unwrap_or(Idx::UNDEF);
                let v = |k: usize| {
                    let b = xyz.get(k * $w..(k + 1) * $w).and_then(|b| b.try_into().ok());
                    $conv(b.unwrap_or([0; $w]))
                };
                LoadedVertex {
                    xyzw: [v(0), v(1), v(2), v(3)],
                    color,
                    skin,
                }
            }))
        };
    }
    match t.vc() {
        1 => each!(1, |b: [u8; 1]| f32::from(i8::from_le_bytes(b)) / 127.0),
        2 => each!(2, |b: [u8; 2]| f32::from(i16::from_le_bytes(b)) / 32767.0),
        4 => each!(4, f32::from_le_bytes),
        _ => each!(8, |b: [u8; 8]| f64::from_le_bytes(b) as f32),
    }
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
    match (t.vi(), t.ti()) {
        (1, 0) => polygons_in::<1, 0>(data, left, t, out),
        (1, 1) => polygons_in::<1, 1>(data, left, t, out),
        (1, 2) => polygons_in::<1, 2>(data, left, t, out),
        (1, _) => polygons_in::<1, 4>(data, left, t, out),
        (2, 0) => polygons_in::<2, 0>(data, left, t, out),
        (2, 1) => polygons_in::<2, 1>(data, left, t, out),
        (2, 2) => polygons_in::<2, 2>(data, left, t, out),
        (2, _) => polygons_in::<2, 4>(data, left, t, out),
        (_, 0) => polygons_in::<4, 0>(data, left, t, out),
        (_, 1) => polygons_in::<4, 1>(data, left, t, out),
        (_, 2) => polygons_in::<4, 2>(data, left, t, out),
        (_, _) => polygons_in::<4, 4>(data, left, t, out),
    }
}

/// An index of `W` bytes at `at` (as [`Cur::idx`]); `W` = 0 is absent (-1).
#[inline(always)]
fn idx_at<const W: usize>(b: &[u8], at: usize) -> Idx {
    let byte = |k: usize| b.get(at + k).copied().unwrap_or(0);
    match W {
        1 => match byte(0) {
            255 => Idx::UNDEF,
            254 => Idx::MAX,
            v => Idx(u32::from(v)),
        },
        2 => match u16::from_le_bytes([byte(0), byte(1)]) {
            0xFFFF => Idx::UNDEF,
            0xFFFE => Idx::MAX,
            v => Idx(u32::from(v)),
        },
        4 => Idx(u32::from_le_bytes([byte(0), byte(1), byte(2), byte(3)])),
        _ => Idx::UNDEF,
    }
}

/// [`polygons`] for one pair of index widths: the corner fields at fixed offsets.
fn polygons_in<const VI: usize, const TI: usize>(
    data: &[u8],
    left: usize,
    t: Types,
    out: &mut Polygons<'_>,
) -> Option<usize> {
    let si = t.si();
    let mut used = 0usize;
    let mut corners = [[Idx::UNDEF; 3]; 15];
    while let Some(&m) = data.get(used) {
        let (n, flags) = (usize::from(m >> 4), m & 15);
        let (uv, normal, max) = (flags & 1 != 0, flags & 2 != 0, flags & 4 != 0);
        let stride = VI + usize::from(uv) * TI + usize::from(normal) * VI + usize::from(max) * VI;
        let size = 1 + if n == 0 { si } else { n * stride };
        if used + size > left {
            return None;
        }
        let Some(record) = data.get(used + 1..used + size) else {
            break;
        };
        used += size;
        if n == 0 {
            if flags == 0 {
                let name = Str(Cur(record).raw(si)?);
                push_charged(
                    out.runs,
                    (out.faces.len(), Some(name)),
                    out.budget,
                    "material runs",
                )?;
            }
            continue;
        }
        for (k, corner) in corners.iter_mut().take(n).enumerate() {
            let at = k * stride;
            corner[0] = idx_at::<VI>(record, at);
            corner[1] = if uv {
                idx_at::<TI>(record, at + VI)
            } else {
                Idx::UNDEF
            };
            corner[2] = if normal {
                idx_at::<VI>(record, at + VI + usize::from(uv) * TI)
            } else {
                Idx::UNDEF
            };
        }
        let first = corners[0];
        for pair in corners.get(1..n).unwrap_or_default().windows(2) {
            let [p, q] = [pair[0], pair[1]];
            let face = LoadedFace {
                material: Idx::UNDEF,
                vertex: [first[0], p[0], q[0]],
                uv: [first[1], p[1], q[1]],
                normal: [first[2], p[2], q[2]],
            };
            push_charged(out.faces, face, out.budget, "triangles")?;
        }
    }
    Some(used)
}
