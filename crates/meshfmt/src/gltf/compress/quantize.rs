//! The quantizers glTF compression needs beyond `meshfmt_core::quantize` (whose
//! 8- and 16-bit forms it uses where the width is fixed): any bit width (12-bit UVs,
//! 14-bit positions, the normals' chosen width), the position grid and 8-bit weights,
//! each with the error bound it guarantees. The meshopt filters are in
//! `meshfmt_meshopt`.

/// `v` in [0, 1] to an unsigned `bits`-bit integer, rounded to nearest.
pub fn unorm(v: f32, bits: u32) -> u32 {
    let top = ((1u64 << bits) - 1) as f32;
    // NaN stays NaN through clamp and casts to 0.
    (v.clamp(0.0, 1.0) * top + 0.5) as u32
}

/// `v` in [-1, 1] to a signed `bits`-bit integer, rounded to nearest (half away from 0).
pub fn snorm(v: f32, bits: u32) -> i32 {
    let top = ((1i64 << (bits - 1)) - 1) as f32;
    let v = v.clamp(-1.0, 1.0) * top;
    (v + if v >= 0.0 { 0.5 } else { -0.5 }) as i32
}

/// A grid of `bits` bits over a box: `value = offset + q * step`, with one step for all
/// three axes (a uniform dequantizing scale keeps normals right under the node's
/// transform, which renderers apply through its inverse transpose).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    /// The box's minimum corner.
    pub offset: [f32; 3],
    /// The grid step (the dequantizing scale).
    pub step: f32,
    /// The largest integer: `2^bits - 1`.
    pub top: u32,
}

impl Grid {
    /// The grid over `min..=max` with `bits` bits (at most 16).
    pub fn new(min: [f32; 3], max: [f32; 3], bits: u32) -> Grid {
        let top = (1u32 << bits) - 1;
        let extent = (0..3).map(|k| max[k] - min[k]).fold(0.0f32, f32::max);
        let step = if extent > 0.0 && extent.is_finite() {
            extent / top as f32
        } else {
            1.0
        };
        Grid {
            offset: min,
            step,
            top,
        }
    }

    /// A position's grid coordinates.
    pub fn quantize(&self, p: [f32; 3]) -> [u16; 3] {
        [0, 1, 2].map(|k| {
            // Clamped first, the truncation is the floor (and no libm call).
            let q = (p[k] - self.offset[k]) / self.step + 0.5;
            q.max(0.0).min(self.top as f32) as u16
        })
    }

    /// The position grid coordinates stand for, as a renderer computes it in f32.
    pub fn dequantize(&self, q: [u16; 3]) -> [f32; 3] {
        [0, 1, 2].map(|k| self.offset[k] + f32::from(q[k]) * self.step)
    }

    /// The worst error per axis: half a step, plus the f32 rounding of the product and
    /// the sum (an ulp of the largest coordinate).
    pub fn bound(&self) -> f32 {
        let largest = self
            .offset
            .iter()
            .map(|o| o.abs() + self.step * self.top as f32)
            .fold(0.0f32, f32::max);
        self.step * 0.5 + 2.0 * largest * f32::EPSILON
    }
}

/// A vertex's skin weights as 8-bit unsigned normalized integers summing to exactly 255
/// (largest remainders get the leftover units), so readers see weights summing to one.
/// Each differs from `w * 255` by less than 1.
pub fn weights_u8(w: [f32; 4]) -> [u8; 4] {
    let sum: f32 = w.iter().map(|x| x.max(0.0)).sum();
    if sum.is_nan() || sum <= 0.0 {
        return [255, 0, 0, 0];
    }
    let scaled = w.map(|x| x.max(0.0) / sum * 255.0);
    let mut q = scaled.map(|x| x.floor() as i32);
    let mut left = 255 - q.iter().sum::<i32>();
    let mut order = [0usize, 1, 2, 3];
    order.sort_by(|&a, &b| {
        let fa = scaled[a] - q[a] as f32;
        let fb = scaled[b] - q[b] as f32;
        fb.total_cmp(&fa)
    });
    for &k in order.iter().cycle().take(8) {
        if left == 0 {
            break;
        }
        if left > 0 && q[k] < 255 {
            q[k] += 1;
            left -= 1;
        } else if left < 0 && q[k] > 0 {
            q[k] -= 1;
            left += 1;
        }
    }
    q.map(|x| x.clamp(0, 255) as u8)
}

/// Angle between two directions, in degrees (0 for a zero vector).
pub fn angle_deg(a: [f32; 3], b: [f32; 3]) -> f32 {
    let la = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    let lb = (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]).sqrt();
    if la == 0.0 || lb == 0.0 {
        return 0.0;
    }
    let d = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (la * lb);
    d.clamp(-1.0, 1.0).acos().to_degrees()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_forms_by_hand() {
        assert_eq!(unorm(0.0, 12), 0);
        assert_eq!(unorm(1.0, 12), 4095);
        assert_eq!(unorm(0.5, 8), 128); // 127.5 rounds up
        assert_eq!(unorm(-3.0, 8), 0);
        assert_eq!(unorm(f32::NAN, 8), 0);
        assert_eq!(snorm(1.0, 8), 127);
        assert_eq!(snorm(-1.0, 8), -127);
        assert_eq!(snorm(0.5, 8), 64); // 63.5 away from zero
        assert_eq!(snorm(-0.5, 8), -64);
        assert_eq!(snorm(1.0, 16), 32767);
    }

    #[test]
    fn grid_error_within_half_a_step() {
        // A 2 m box at 14 bits: step 2/16383, error at most 1/16383 m + rounding.
        let g = Grid::new([-1.0, 0.0, 5.0], [1.0, 0.5, 5.25], 14);
        assert_eq!(g.step, 2.0 / 16383.0);
        let bound = g.bound();
        assert!(bound < 1.0 / 16383.0 + 1e-5);
        let mut worst = 0.0f32;
        for i in 0..=1000 {
            let t = i as f32 / 1000.0;
            let p = [-1.0 + 2.0 * t, 0.5 * t * t, 5.0 + 0.25 * (1.0 - t)];
            let d = g.dequantize(g.quantize(p));
            for k in 0..3 {
                worst = worst.max((d[k] - p[k]).abs());
            }
        }
        assert!(worst <= bound, "{worst} > {bound}");
        assert!(worst > 0.2 * g.step, "the test must exercise rounding");
        // A flat box still quantizes (every point on its minimum).
        let flat = Grid::new([1.0; 3], [1.0; 3], 14);
        assert_eq!(flat.quantize([1.0; 3]), [0; 3]);
        assert_eq!(flat.dequantize([0; 3]), [1.0; 3]);
    }

    #[test]
    fn weights_sum_to_255() {
        assert_eq!(weights_u8([1.0, 0.0, 0.0, 0.0]), [255, 0, 0, 0]);
        assert_eq!(weights_u8([0.5, 0.5, 0.0, 0.0]), [128, 127, 0, 0]);
        for w in [
            [0.3, 0.3, 0.4, 0.0],
            [0.1, 0.2, 0.3, 0.4],
            [1.0 / 3.0; 4],
            [0.25; 4],
            [0.9, 0.05, 0.05, 0.0],
        ] {
            let q = weights_u8(w);
            assert_eq!(q.iter().map(|&x| u32::from(x)).sum::<u32>(), 255, "{w:?}");
            let sum: f32 = w.iter().sum();
            for k in 0..4 {
                assert!(
                    (f32::from(q[k]) - w[k] / sum * 255.0).abs() < 1.0,
                    "{w:?} {q:?}"
                );
            }
        }
        assert_eq!(weights_u8([0.0; 4]), [255, 0, 0, 0]);
    }
}
