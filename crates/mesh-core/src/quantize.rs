//! Quantization helpers every format needs, with their worst-case errors.
//!
//! Each encoder takes a [`Rounding`]: [`Rounding::Truncate`] reproduces writers that
//! cast with `(int)` (the error is then below one step), [`Rounding::Nearest`] halves
//! the bound. Errors below are for inputs inside the encodable range, in exact
//! arithmetic; f32 evaluation adds at most a few ULPs of the largest magnitude involved.
//! Inputs outside the range are clamped, and NaN encodes as 0.
//!
//! | helper | step | truncate error | nearest error |
//! |---|---|---|---|
//! | [`unorm8`] (0..=1 -> 0..=255) | 1/255 | < 1/255 | <= 1/510 |
//! | [`unorm16`] (0..=1 -> 0..=65535) | 1/65535 | < 1/65535 | <= 1/131070 |
//! | [`snorm8`] (-1..=1 -> -127..=127) | 1/127 | < 1/127 | <= 1/254 |
//! | [`snorm16`] (-1..=1 -> -32767..=32767) | 1/32767 | < 1/32767 | <= 1/65534 |
//! | [`BoxQuantizer`] (min..=max -> 0..=65535) | size/65535 | < size/65535 | <= size/131070 |
//!
//! Truncation of a signed value rounds toward zero, so its error is below one step on
//! either side.

use glam::Vec3;

/// How a real value becomes an integer step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Rounding {
    /// Toward zero, like a C cast. Error below one step.
    Truncate,
    /// To the nearest step (ties away from zero). Error at most half a step.
    #[default]
    Nearest,
}

impl Rounding {
    /// Applies the rounding to an already scaled value.
    pub fn apply(self, x: f32) -> f32 {
        match self {
            Rounding::Truncate => x.trunc(),
            Rounding::Nearest => round_half_away(x),
        }
    }

    /// Worst-case error in steps: 1 for truncation (exclusive), 0.5 for nearest.
    pub fn max_error_steps(self) -> f32 {
        match self {
            Rounding::Truncate => 1.0,
            Rounding::Nearest => 0.5,
        }
    }
}

/// `x.round()` (halves away from zero), bit for bit, without the libm call x86-64's
/// baseline needs for it: every quantizer's hot loop rounds.
fn round_half_away(x: f32) -> f32 {
    let a = x.abs();
    // From 2^23 on every f32 is whole (and NaN and the infinities stay as they are).
    if a >= 8_388_608.0 || a.is_nan() {
        return x;
    }
    // Both exact below 2^23: the truncation and the fraction.
    let t = a as u32 as f32;
    let r = if a - t >= 0.5 { t + 1.0 } else { t };
    r.copysign(x)
}

/// `x.ceil()` as an integer for |x| well inside i64, without a libm call (x86-64's
/// baseline has no rounding instruction).
fn ceil(x: f64) -> i64 {
    let t = x as i64;
    if (t as f64) < x { t + 1 } else { t }
}

fn finite_or_zero(v: f32) -> f32 {
    if v.is_nan() { 0.0 } else { v }
}

/// Unsigned normalized 8-bit: `v` in 0..=1 to 0..=255.
pub mod unorm8 {
    use super::*;
    /// Encodes (clamped).
    pub fn encode(v: f32, rounding: Rounding) -> u8 {
        rounding.apply(finite_or_zero(v).clamp(0.0, 1.0) * 255.0) as u8
    }
    /// Decodes: `u / 255`.
    pub fn decode(u: u8) -> f32 {
        f32::from(u) / 255.0
    }
    /// Worst-case absolute error of `decode(encode(v))` for `v` in range.
    pub fn max_error(rounding: Rounding) -> f32 {
        rounding.max_error_steps() / 255.0
    }
}

/// Unsigned normalized 16-bit: `v` in 0..=1 to 0..=65535.
pub mod unorm16 {
    use super::*;
    /// Encodes (clamped).
    pub fn encode(v: f32, rounding: Rounding) -> u16 {
        rounding.apply(finite_or_zero(v).clamp(0.0, 1.0) * 65535.0) as u16
    }
    /// Decodes: `u / 65535`.
    pub fn decode(u: u16) -> f32 {
        f32::from(u) / 65535.0
    }
    /// Worst-case absolute error of `decode(encode(v))` for `v` in range.
    pub fn max_error(rounding: Rounding) -> f32 {
        rounding.max_error_steps() / 65535.0
    }
}

/// Signed normalized 8-bit: `v` in -1..=1 to -127..=127 (-128 decodes as -1).
pub mod snorm8 {
    use super::*;
    /// Encodes (clamped).
    pub fn encode(v: f32, rounding: Rounding) -> i8 {
        rounding.apply(finite_or_zero(v).clamp(-1.0, 1.0) * 127.0) as i8
    }
    /// Decodes: `max(i / 127, -1)`.
    pub fn decode(i: i8) -> f32 {
        (f32::from(i) / 127.0).max(-1.0)
    }
    /// Worst-case absolute error of `decode(encode(v))` for `v` in range.
    pub fn max_error(rounding: Rounding) -> f32 {
        rounding.max_error_steps() / 127.0
    }
}

/// Signed normalized 16-bit: `v` in -1..=1 to -32767..=32767 (-32768 decodes as -1).
pub mod snorm16 {
    use super::*;
    /// Encodes (clamped).
    pub fn encode(v: f32, rounding: Rounding) -> i16 {
        rounding.apply(finite_or_zero(v).clamp(-1.0, 1.0) * 32767.0) as i16
    }
    /// Decodes: `max(i / 32767, -1)`.
    pub fn decode(i: i16) -> f32 {
        (f32::from(i) / 32767.0).max(-1.0)
    }
    /// Worst-case absolute error of `decode(encode(v))` for `v` in range.
    pub fn max_error(rounding: Rounding) -> f32 {
        rounding.max_error_steps() / 32767.0
    }

    /// Encodes a direction (a rotation quaternion, a unit vector) as the `i16` vector
    /// whose direction is nearest `v`'s, for formats whose readers normalize what they
    /// decode. Rounding each component of `v * 32767` is one candidate; the others
    /// round `v / |v| * L` for every length `L` in 32767 +- sqrt(N) / 2 (where a
    /// rounded unit vector's length lies) at which a component crosses a half step (at
    /// most 3 per component), and the one that normalizes closest to `v / |v|` wins
    /// (ties keep the plain rounding).
    ///
    /// Why: a value that was read from `i16`s and normalized does not round back to
    /// them (`round(normalize(s) * 32767)` can be a step off `s`), but `s` itself is a
    /// candidate at `L = |s|`, with no direction error, so re-encoding it gives `s` back
    /// bit for bit. After noise far below a step (a trip through f32 matrices), the
    /// result normalizes to within that noise of `s`'s direction: `s`, or a vector whose
    /// direction is as close (integer vectors nearly parallel to `s` exist). Never worse
    /// in direction than plain rounding. Plain rounding within f32 noise of `v` is kept
    /// as it is. Non-finite or zero vectors round per component.
    ///
    /// ```
    /// use meshfmt_core::quantize::snorm16;
    /// let stored: [i16; 4] = [10963, -25105, -6322, -16829]; // |s| = 32766.3
    /// let q = stored.map(|v| f32::from(v) / 32767.0);
    /// let len = q.iter().map(|v| v * v).sum::<f32>().sqrt();
    /// let unit = q.map(|v| v / len);
    /// assert_ne!(unit.map(|v| (v * 32767.0).round() as i16), stored);
    /// assert_eq!(snorm16::encode_direction(unit), stored);
    /// ```
    pub fn encode_direction<const N: usize>(v: [f32; N]) -> [i16; N] {
        let plain = v.map(|x| encode(x, Rounding::Nearest));
        let u = v.map(f64::from);
        let len = u.iter().map(|x| x * x).sum::<f64>().sqrt();
        if !len.is_finite() || len == 0.0 {
            return plain;
        }
        let u = u.map(|x| x / len);
        // Cosine between a candidate and `u`: the larger, the nearer in direction.
        let cosine = |c: &[i16; N]| -> f64 {
            let (mut dot, mut nn) = (0.0, 0.0);
            for (&ci, ui) in c.iter().zip(&u) {
                let ci = f64::from(ci);
                dot += ci * ui;
                nn += ci * ci;
            }
            if nn == 0.0 {
                f64::NEG_INFINITY
            } else {
                dot / nn.sqrt()
            }
        };
        let mut best = (cosine(&plain), plain);
        // Plain rounding within f32 noise of `v` (a distance under 3e-7, a hundredth of
        // a step: 1 - cos under 5e-14) is a decoded value: keep its integers, even where
        // a lattice vector nearly parallel to them (3e-8 apart, say) comes out a hair
        // closer.
        if best.0 >= 1.0 - 5e-14 {
            return plain;
        }
        // Lengths where some component's rounding changes bound the intervals on which
        // the rounded vector is constant: |s| of a rounded unit vector lies within
        // 32767 +- sqrt(N) / 2 (32766..=32768 for a quaternion). Walking the crossings in
        // order, each moves one component a step away from zero, so the dot product
        // and squared length are updated, not recomputed.
        let reach = (N as f64).sqrt() / 2.0;
        let (lo, hi) = (32767.0 - reach, 32767.0 + reach);
        let a = u.map(f64::abs);
        // Magnitudes at `lo`: component i rounds to k on [(k - 0.5) / a, (k + 0.5) / a).
        let mut mag = a.map(|ai| ceil(ai * lo - 0.5).max(0));
        let mut cuts = [(0.0f64, 0usize); 24];
        let mut count = 0;
        for (i, (&ai, &first)) in a.iter().zip(&mag).enumerate() {
            let mut k = first as f64;
            while ai > 0.0 && k + 0.5 <= ai * hi && count < cuts.len() {
                cuts[count] = ((k + 0.5) / ai, i);
                count += 1;
                k += 1.0;
            }
        }
        let cuts = &mut cuts[..count];
        cuts.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
        let mut dot: f64 = mag.iter().zip(&a).map(|(&m, ai)| m as f64 * ai).sum();
        let mut nn: f64 = mag.iter().map(|&m| (m as f64) * (m as f64)).sum();
        let mut chosen: Option<[i64; N]> = None;
        let mut consider = |mag: &[i64; N], dot: f64, nn: f64| {
            if nn > 0.0 && mag.iter().all(|&m| m <= 32767) && dot / nn.sqrt() > best.0 {
                best.0 = dot / nn.sqrt();
                chosen = Some(*mag);
            }
        };
        consider(&mag, dot, nn);
        for &(_, i) in cuts.iter() {
            nn += 2.0 * mag[i] as f64 + 1.0;
            dot += a[i];
            mag[i] += 1;
            consider(&mag, dot, nn);
        }
        if let Some(m) = chosen {
            let mut out = [0i16; N];
            for (o, (&m, &ui)) in out.iter_mut().zip(m.iter().zip(&u)) {
                // m <= 32767 was checked.
                let m = m as i16;
                *o = if ui < 0.0 { -m } else { m };
            }
            best.1 = out;
        }
        best.1
    }
}

/// Box-relative 16-bit quantization: `u = (v - min) / size * 65535`, decoded as
/// `min + u / 65535 * size`. Used by UNIGINE animations (min + size boxes) and
/// MeshSerializer2 (min/max bounds).
///
/// ```
/// use meshfmt_core::quantize::{BoxQuantizer, Rounding};
/// use meshfmt_core::glam::Vec3;
/// let q = BoxQuantizer::from_min_max(Vec3::splat(-1.0), Vec3::splat(3.0));
/// let u = q.encode(Vec3::new(-1.0, 1.0, 3.0), Rounding::Nearest);
/// assert_eq!(u, [0, 32768, 65535]);
/// let err = (q.decode(u) - Vec3::new(-1.0, 1.0, 3.0)).abs().max_element();
/// assert!(err <= q.max_error(Rounding::Nearest).max_element() * 1.0001);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxQuantizer {
    /// Smallest representable value per axis.
    pub min: Vec3,
    /// Extent per axis (`max - min`); an axis of size 0 always decodes to `min`.
    pub size: Vec3,
}

impl BoxQuantizer {
    /// From corners.
    pub fn from_min_max(min: Vec3, max: Vec3) -> Self {
        BoxQuantizer {
            min,
            size: max - min,
        }
    }

    /// The tight box around `points`, or `None` when there are none.
    pub fn enclosing(points: &[Vec3]) -> Option<Self> {
        let b = crate::Bounds::from_points(points.iter().copied())?;
        Some(Self::from_min_max(b.aabb.min, b.aabb.max))
    }

    /// Encodes one axis value.
    pub fn encode_axis(v: f32, min: f32, size: f32, rounding: Rounding) -> u16 {
        if size.is_nan() || size <= 0.0 {
            return 0;
        }
        let t = finite_or_zero((v - min) / size).clamp(0.0, 1.0);
        rounding.apply(t * 65535.0) as u16
    }

    /// Decodes one axis value.
    pub fn decode_axis(u: u16, min: f32, size: f32) -> f32 {
        min + f32::from(u) / 65535.0 * size
    }

    /// Encodes a point (clamped to the box).
    pub fn encode(&self, v: Vec3, rounding: Rounding) -> [u16; 3] {
        [
            Self::encode_axis(v.x, self.min.x, self.size.x, rounding),
            Self::encode_axis(v.y, self.min.y, self.size.y, rounding),
            Self::encode_axis(v.z, self.min.z, self.size.z, rounding),
        ]
    }

    /// Decodes a point.
    pub fn decode(&self, u: [u16; 3]) -> Vec3 {
        Vec3::new(
            Self::decode_axis(u[0], self.min.x, self.size.x),
            Self::decode_axis(u[1], self.min.y, self.size.y),
            Self::decode_axis(u[2], self.min.z, self.size.z),
        )
    }

    /// Worst-case per-axis error for points inside the box: `size / 65535` steps times
    /// the rounding's bound.
    pub fn max_error(&self, rounding: Rounding) -> Vec3 {
        self.size.abs() / 65535.0 * rounding.max_error_steps()
    }
}

#[cfg(test)]
#[path = "tests/quantize.rs"]
mod tests;

/// How far making `directions` unit length moves them: the largest component difference
/// between a vector and `v.normalize_or(zero_to)` (the fallback a format gives a zero
/// vector), and how many moved more than f32 noise (1e-6). Formats that store or read
/// back normals as directions only report it as their bound, so a mesh whose normals
/// are not unit length (8-bit normals of MeshSerializer2, hand-edited files) does not
/// come back changed without a word.
///
/// ```
/// use meshfmt_core::{glam::Vec3, quantize::renormalization_error};
/// let n = [Vec3::Z, Vec3::new(0.0, 0.0, 0.99), Vec3::ZERO];
/// let (worst, moved) = renormalization_error(&n, Vec3::ZERO);
/// assert!((worst - 0.01).abs() < 1e-6 && moved == 1);
/// // A format that turns a zero normal into +Z moves it by 1.
/// assert_eq!(renormalization_error(&n, Vec3::Z).1, 2);
/// ```
pub fn renormalization_error(directions: &[glam::Vec3], zero_to: glam::Vec3) -> (f32, usize) {
    let mut worst = 0.0f32;
    let mut moved = 0;
    for &v in directions {
        let e = (v.normalize_or(zero_to) - v).abs().max_element();
        if e > 1e-6 {
            moved += 1;
            worst = worst.max(e);
        }
    }
    (worst, moved)
}

#[cfg(test)]
mod round_tests {
    /// Against libm's `roundf` on every f32 from -2^24 to 2^24 in steps that reach every
    /// fraction of small values, the halves, and bit patterns across the whole range.
    #[test]
    fn round_half_away_is_f32_round() {
        let check = |x: f32| {
            let (a, b) = (super::round_half_away(x), x.round());
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{x:e}: {a:e} vs {b:e}"
            );
        };
        for i in -300_000i32..=300_000 {
            check(i as f32 / 1024.0);
            check(i as f32 * 0.5);
            check(i as f32 * 64.0 + 0.5);
        }
        for x in [
            0.49999997f32,
            -0.49999997,
            0.5,
            -0.5,
            1.5,
            2.5,
            -2.5,
            8_388_607.5,
        ] {
            check(x);
        }
        // Bit patterns over all exponents and signs (a fixed-step walk of u32).
        let mut bits = 0u32;
        for _ in 0..2_000_000 {
            check(f32::from_bits(bits));
            bits = bits.wrapping_add(2_147_483_629);
            bits = bits.rotate_left(7);
        }
    }
}
