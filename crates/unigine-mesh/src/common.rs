//! Blocks shared by every version: bounds, bind transforms, index widths, names.

use parsing_primitives::{Reader, Result};

use crate::input::Input;

/// Longest name the docs allow (1024 characters, including the NUL).
pub const MAX_NAME: usize = 1024;

/// The 10-float bounds block: box min, box max, sphere centre, sphere radius.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// Box minimum.
    pub min: [f32; 3],
    /// Box maximum.
    pub max: [f32; 3],
    /// Sphere centre.
    pub center: [f32; 3],
    /// Sphere radius.
    pub radius: f32,
}

impl Bounds {
    /// The "empty" sentinel real writers use when there is nothing to bound:
    /// min 1e9, max -1e9, centre 0, radius -1.
    pub const EMPTY: Bounds = Bounds {
        min: [1e9; 3],
        max: [-1e9; 3],
        center: [0.0; 3],
        radius: -1.0,
    };

    /// From the stored floats.
    pub fn from_array(a: [f32; 10]) -> Self {
        Bounds {
            min: [a[0], a[1], a[2]],
            max: [a[3], a[4], a[5]],
            center: [a[6], a[7], a[8]],
            radius: a[9],
        }
    }

    /// The stored floats.
    pub fn to_array(&self) -> [f32; 10] {
        let (a, b, c) = (self.min, self.max, self.center);
        [
            a[0],
            a[1],
            a[2],
            b[0],
            b[1],
            b[2],
            c[0],
            c[1],
            c[2],
            self.radius,
        ]
    }

    /// Bounds as this crate's [`from_core`](crate::MeshFile::from_core) writes them: the
    /// tight box, centred sphere with radius = half the diagonal (which contains every
    /// point, so the writer never sees it as stale); [`Bounds::EMPTY`] for no points.
    /// [`Bounds::of_vertices`] is the engine's own formula.
    pub fn of_points<'a>(points: impl IntoIterator<Item = &'a [f32; 3]>) -> Bounds {
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        let mut any = false;
        for p in points {
            for k in 0..3 {
                if !p[k].is_nan() {
                    min[k] = min[k].min(p[k]);
                    max[k] = max[k].max(p[k]);
                    any = true;
                }
            }
        }
        if !any {
            return Bounds::EMPTY;
        }
        let center = [0, 1, 2].map(|k| (min[k] + max[k]) * 0.5);
        let half = [0, 1, 2].map(|k| (max[k] - min[k]) * 0.5);
        let radius = (half[0] * half[0] + half[1] * half[1] + half[2] * half[2]).sqrt();
        Bounds {
            min,
            max,
            center,
            radius,
        }
    }

    /// A surface's bounds as the engine computes them (reproduced bit for bit on all 170
    /// surfaces of the real samples): the tight box of the points, the sphere centred
    /// on the box (`(min + max) * 0.5` in `f32`) with radius
    /// `sqrt(max((dx * dx + dy * dy) + dz * dz))` over the points, in `f32`. Points with
    /// a non-finite coordinate are left out; [`Bounds::EMPTY`] when none is left.
    ///
    /// ```
    /// use unigine_mesh::Bounds;
    /// // Box (0,0,0)..(2,2,0), centre (1,1,0); the farthest point is a corner, at
    /// // sqrt(2) (half the diagonal would say the same here) ...
    /// let b = Bounds::of_vertices(&[[0.0, 0.0, 0.0], [2.0, 2.0, 0.0], [1.0, 1.0, 0.0]]);
    /// assert_eq!((b.min, b.max, b.center), ([0.0; 3], [2.0, 2.0, 0.0], [1.0, 1.0, 0.0]));
    /// assert_eq!(b.radius, 2f32.sqrt());
    /// // ... but a diamond reaches no corner of its box: every point is 1 from the
    /// // centre, where half the diagonal would say sqrt(2).
    /// let d = Bounds::of_vertices(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [2.0, 1.0, 0.0], [1.0, 2.0, 0.0]]);
    /// assert_eq!((d.center, d.radius), ([1.0, 1.0, 0.0], 1.0));
    /// assert_eq!(Bounds::of_vertices(&[]), Bounds::EMPTY);
    /// ```
    pub fn of_vertices(points: &[[f32; 3]]) -> Bounds {
        let Some((min, max)) = finite_box(points) else {
            return Bounds::EMPTY;
        };
        let center = [0, 1, 2].map(|k| (min[k] + max[k]) * 0.5);
        let mut r2 = 0.0f32;
        for p in points.iter().filter(|p| is_finite(p)) {
            let d = [0, 1, 2].map(|k| p[k] - center[k]);
            r2 = r2.max((d[0] * d[0] + d[1] * d[1]) + d[2] * d[2]);
        }
        Bounds {
            min,
            max,
            center,
            radius: r2.sqrt(),
        }
    }

    /// True when these bounds no longer describe a surface's `points` (its morph-target-0
    /// vertices), so a writer must rebuild them: the box is not the tight box of the
    /// finite points, the centre is not the box's centre, or some point lies outside the
    /// sphere (by more than a relative 1e-6, for rounding). Anything is accepted when no
    /// point is finite. Every real sample passes, whatever radius formula wrote it.
    pub fn is_stale_for(&self, points: &[[f32; 3]]) -> bool {
        let Some((min, max)) = finite_box(points) else {
            return false;
        };
        let center = [0, 1, 2].map(|k| (min[k] + max[k]) * 0.5);
        self.min != min || self.max != max || self.center != center || !self.holds(points)
    }

    /// True when every finite point is inside the sphere (relative tolerance 1e-6).
    fn holds(&self, points: &[[f32; 3]]) -> bool {
        let c = self.center.map(f64::from);
        let r = f64::from(self.radius) * (1.0 + 1e-6);
        points.iter().filter(|p| is_finite(p)).all(|p| {
            let d = [0, 1, 2].map(|k| f64::from(p[k]) - c[k]);
            // `<=` is false for a NaN centre or radius: stale.
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() <= r
        })
    }

    /// True when these whole-mesh bounds no longer describe the surfaces' `points`: the
    /// box is not the tight box of every finite point, or some finite point lies outside
    /// the sphere (relative tolerance 1e-6). The engine's file sphere is a merge of
    /// the surface spheres, not centred on the box, so the centre is not compared.
    /// Anything is accepted when no point is finite.
    pub fn is_stale_for_mesh<'a>(
        &self,
        surfaces: impl Iterator<Item = &'a [[f32; 3]]> + Clone,
    ) -> bool {
        let mut whole: Option<([f32; 3], [f32; 3])> = None;
        for s in surfaces.clone() {
            if let Some((lo, hi)) = finite_box(s) {
                whole = Some(match whole {
                    None => (lo, hi),
                    Some((a, b)) => (
                        [0, 1, 2].map(|k| a[k].min(lo[k])),
                        [0, 1, 2].map(|k| b[k].max(hi[k])),
                    ),
                });
            }
        }
        let Some((min, max)) = whole else {
            return false;
        };
        self.min != min || self.max != max || !surfaces.into_iter().all(|s| self.holds(s))
    }

    /// The bounds a writer stores for a mesh with these whole-mesh bounds and `surfaces`
    /// (each surface's stored bounds and its vertices): each surface's bounds as stored
    /// unless stale for its vertices, then rebuilt ([`Bounds::of_vertices`]); the mesh
    /// bounds as stored unless stale ([`Bounds::is_stale_for_mesh`]), then merged from the
    /// bounds of the surfaces that have a finite vertex ([`Bounds::merged`]).
    pub(crate) fn for_writing<'a>(
        &self,
        surfaces: impl Iterator<Item = (&'a Bounds, &'a [[f32; 3]])> + Clone,
    ) -> (Bounds, Vec<Bounds>) {
        let bounds: Vec<Bounds> = surfaces
            .clone()
            .map(|(b, v)| {
                if b.is_stale_for(v) {
                    Bounds::of_vertices(v)
                } else {
                    *b
                }
            })
            .collect();
        let whole = if self.is_stale_for_mesh(surfaces.clone().map(|(_, v)| v)) {
            // Only surfaces with something to bound take part in the merge.
            let parts: Vec<Bounds> = surfaces
                .zip(&bounds)
                .filter(|((_, v), _)| v.iter().any(|p| p.iter().all(|c| c.is_finite())))
                .map(|(_, b)| *b)
                .collect();
            Bounds::merged(&parts)
        } else {
            *self
        };
        (whole, bounds)
    }

    /// Whole-mesh bounds from the surfaces' bounds, as the engine builds them: one
    /// surface's bounds are copied; several give the union of the boxes and the spheres
    /// merged one after the other (each step the smallest sphere holding the sphere so
    /// far and the next one, in `f32`). Surfaces with empty bounds (negative radius or
    /// an inverted box) are skipped; [`Bounds::EMPTY`] when none is left.
    ///
    /// ```
    /// use unigine_mesh::Bounds;
    /// let a = Bounds::of_vertices(&[[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]);  // centre 0, r 1
    /// let b = Bounds::of_vertices(&[[3.0, 0.0, 0.0], [5.0, 0.0, 0.0]]);   // centre 4, r 1
    /// let m = Bounds::merged(&[a, b, Bounds::EMPTY]);
    /// assert_eq!((m.min, m.max), ([-1.0, 0.0, 0.0], [5.0, 0.0, 0.0]));
    /// // The smallest sphere holding both: from -1 to 5, centre 2, radius 3.
    /// assert_eq!((m.center, m.radius), ([2.0, 0.0, 0.0], 3.0));
    /// assert_eq!(Bounds::merged(&[a]), a);
    /// ```
    pub fn merged(parts: &[Bounds]) -> Bounds {
        let mut it = parts.iter().filter(|b| !b.is_empty());
        let Some(first) = it.next() else {
            return Bounds::EMPTY;
        };
        let mut out = *first;
        for b in it {
            for k in 0..3 {
                out.min[k] = out.min[k].min(b.min[k]);
                out.max[k] = out.max[k].max(b.max[k]);
            }
            let d = [0, 1, 2].map(|k| b.center[k] - out.center[k]);
            let dist = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            if dist + b.radius <= out.radius {
                continue;
            }
            if dist + out.radius <= b.radius {
                out.center = b.center;
                out.radius = b.radius;
                continue;
            }
            let radius = (dist + out.radius + b.radius) * 0.5;
            let t = (radius - out.radius) / dist;
            out.center = [0, 1, 2].map(|k| out.center[k] + d[k] * t);
            out.radius = radius;
        }
        out
    }

    /// True for bounds that hold nothing: a negative (or NaN) radius or an inverted box,
    /// like [`Bounds::EMPTY`].
    pub fn is_empty(&self) -> bool {
        let holds = self.radius >= 0.0 && (0..3).all(|k| self.min[k] <= self.max[k]);
        !holds
    }
}

fn is_finite(p: &[f32; 3]) -> bool {
    p.iter().all(|v| v.is_finite())
}

/// Tight box of the points whose coordinates are all finite; `None` when there are none.
fn finite_box(points: &[[f32; 3]]) -> Option<([f32; 3], [f32; 3])> {
    let mut out: Option<([f32; 3], [f32; 3])> = None;
    for p in points.iter().filter(|p| is_finite(p)) {
        let (min, max) = out.get_or_insert((*p, *p));
        for k in 0..3 {
            min[k] = min[k].min(p[k]);
            max[k] = max[k].max(p[k]);
        }
    }
    out
}

/// Reads a 10-float bounds block.
pub(crate) fn read_bounds(r: &mut Reader<'_>) -> Result<Bounds> {
    Ok(Bounds::from_array(r.le::<[f32; 10]>()?))
}

/// A bone's local transform as stored (ms10/ms11 bind pose): position, rotation
/// quaternion (x, y, z, w), scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BindTransform {
    /// Position relative to the parent.
    pub position: [f32; 3],
    /// Rotation quaternion x, y, z, w.
    pub rotation: [f32; 4],
    /// Per-axis scale.
    pub scale: [f32; 3],
}

impl BindTransform {
    /// From the 10 stored floats.
    pub fn from_array(a: [f32; 10]) -> Self {
        BindTransform {
            position: [a[0], a[1], a[2]],
            rotation: [a[3], a[4], a[5], a[6]],
            scale: [a[7], a[8], a[9]],
        }
    }

    /// The 10 stored floats.
    pub fn to_array(&self) -> [f32; 10] {
        let (p, q, s) = (self.position, self.rotation, self.scale);
        [p[0], p[1], p[2], q[0], q[1], q[2], q[3], s[0], s[1], s[2]]
    }
}

/// Bytes per index for an array addressing `count` elements: u8 below 256, u16 below
/// 65536, else a plain 4-byte int (notes 5: keyed on morph-target-0 counts).
pub fn index_width(count: usize) -> usize {
    if count < 256 {
        1
    } else if count < 65536 {
        2
    } else {
        4
    }
}

/// Reads `n` indices of `width` bytes (1, 2 or 4, as [`index_width`] gives) in bulk
/// (the unit tests' entry to [`read_indices_below`]).
#[cfg(test)]
fn read_indices(r: &mut Reader<'_>, n: usize, width: usize) -> Result<Vec<u32>> {
    read_indices_below(r, n, width, usize::MAX).map(|(indices, _)| indices)
}

/// Indices and the first one at or past a limit: its position and value.
pub(crate) type IndicesBelow = (Vec<u32>, Option<(usize, u32)>);

/// Reads `n` indices of `width` bytes from any [`Input`], also giving the first index at or past `limit`
/// (its position and value): looked for in each piece as it is widened (from a decoded
/// block, a window at a time, while it is in cache) rather than in passes over the whole
/// array after.
pub(crate) fn read_indices_below(
    r: &mut impl Input,
    n: usize,
    width: usize,
    limit: usize,
) -> Result<IndicesBelow> {
    let at = r.offset();
    if !matches!(width, 1 | 2 | 4) {
        return Err(r.invalid_at(at, format!("indices of {width} bytes")));
    }
    // The u32 output is four bytes per index whatever the stored width.
    let n = r.count(n as u64, width)?;
    r.charge_for("indices", (n as u64).saturating_mul(4))?;
    // Stored as i32: one at or past 2^31 (a set top bit) is a negative index.
    let negative = if width == 4 { 1u32 << 31 } else { u32::MAX };
    let flag = u32::try_from(limit).unwrap_or(u32::MAX).min(negative);
    // Widened straight from the stored bytes: one pass, no array at the stored width.
    let mut out = Vec::with_capacity(n);
    let mut flagged = false;
    r.pieces(n.saturating_mul(width), width, |bytes| {
        let start = out.len();
        match width {
            1 => out.extend(bytes.iter().map(|&b| u32::from(b))),
            2 => out.extend(
                bytes
                    .chunks_exact(2)
                    .map(|c| u32::from(u16::from_le_bytes([c[0], c[1]]))),
            ),
            _ => out.extend(
                bytes
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            ),
        }
        // Until one is found; where it is, is found again over the whole list after.
        let piece = out.get(start..).unwrap_or_default();
        flagged = flagged || first_out_of_range(piece, flag as usize).is_some();
    })?;
    if !flagged {
        return Ok((out, None));
    }
    if width == 4
        && let Some((k, i)) = first_out_of_range(&out, 1 << 31)
    {
        return Err(r.invalid_at(at + 4 * k as u64, format!("negative index {}", i as i32)));
    }
    let over = first_out_of_range(&out, limit);
    Ok((out, over))
}

/// Writes indices at `width` bytes each (the caller checked they fit).
pub(crate) fn write_indices(w: &mut parsing_primitives::Writer, indices: &[u32], width: usize) {
    match width {
        1 => {
            let v: Vec<u8> = indices.iter().map(|&i| i as u8).collect();
            w.bytes(&v);
        }
        2 => {
            let v: Vec<u16> = indices.iter().map(|&i| i as u16).collect();
            w.le_slice(&v);
        }
        _ => {
            let v: Vec<i32> = indices.iter().map(|&i| i as i32).collect();
            w.le_slice(&v);
        }
    }
}

/// The first index at or past `limit`, with its position.
pub fn first_out_of_range(indices: &[u32], limit: usize) -> Option<(usize, u32)> {
    // A branch-free pass first (vectorised); the position only when one is out of
    // range.
    let Ok(limit32) = u32::try_from(limit) else {
        return None;
    };
    if !indices.iter().fold(false, |a, &i| a | (i >= limit32)) {
        return None;
    }
    indices
        .iter()
        .position(|&i| i as usize >= limit)
        .map(|k| (k, indices[k]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_widen_from_every_width() {
        let bytes = [1u8, 0, 2, 0, 0, 0];
        let read = |width, n| read_indices(&mut Reader::new("t", &bytes), n, width);
        assert_eq!(read(1, 3).ok(), Some(vec![1, 0, 2]));
        assert_eq!(read(2, 3).ok(), Some(vec![1, 2, 0]));
        assert_eq!(read(4, 1).ok(), Some(vec![0x0002_0001]));
        // More than the bytes hold; a width no version stores.
        assert!(read(4, 2).is_err());
        assert!(read(3, 1).is_err() && read(8, 0).is_err());
    }

    #[test]
    fn a_negative_index_names_its_offset() {
        // 7, then -2 at byte 4, then -1.
        let bytes: Vec<u8> = [7i32, -2, -1]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect();
        let e = read_indices(&mut Reader::new("t", &bytes), 3, 4);
        assert!(
            matches!(&e, Err(e) if e.offset() == 4 && e.to_string().contains("negative index -2")),
            "{e:?}"
        );
    }

    #[test]
    fn the_first_index_out_of_range_is_found() {
        assert_eq!(first_out_of_range(&[0, 5, 2, 9], 5), Some((1, 5)));
        assert_eq!(first_out_of_range(&[0, 4, 2], 5), None);
        assert_eq!(first_out_of_range(&[], 0), None);
    }
}
