//! Blocks shared by every version: bounds, bind transforms, index widths, names.

use parsing_primitives::{Reader, Result};

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

    /// Bounds as the observed writers compute them: the tight box, centred sphere with
    /// radius = half the diagonal; [`Bounds::EMPTY`] for no points.
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
}

/// Reads a 10-float bounds block.
pub fn read_bounds(r: &mut Reader<'_>) -> Result<Bounds> {
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

/// Reads `n` indices of `width` bytes in bulk.
pub fn read_indices(r: &mut Reader<'_>, n: usize, width: usize) -> Result<Vec<u32>> {
    let at = r.offset();
    Ok(match width {
        1 => r
            .le_array::<u8>(n as u64)?
            .into_iter()
            .map(u32::from)
            .collect(),
        2 => r
            .le_array::<u16>(n as u64)?
            .into_iter()
            .map(u32::from)
            .collect(),
        _ => {
            let raw = r.le_array::<i32>(n as u64)?;
            if let Some(k) = raw.iter().position(|&i| i < 0) {
                return Err(r.invalid_at(at + 4 * k as u64, format!("negative index {}", raw[k])));
            }
            raw.into_iter().map(|i| i as u32).collect()
        }
    })
}

/// Writes indices at `width` bytes each (the caller checked they fit).
pub fn write_indices(w: &mut parsing_primitives::Writer, indices: &[u32], width: usize) {
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
    indices
        .iter()
        .position(|&i| i as usize >= limit)
        .map(|k| (k, indices[k]))
}
