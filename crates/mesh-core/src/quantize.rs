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
            Rounding::Nearest => x.round(),
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
mod tests {
    use super::*;

    /// f32 evaluation slack for magnitudes up to 1 (the module docs' "few ULPs").
    const ULPS: f32 = 2.0 * f32::EPSILON;

    /// Deterministic values over a range, including both ends and many in between.
    fn samples(lo: f32, hi: f32) -> impl Iterator<Item = f32> {
        let n = 200_003u32;
        (0..=n).map(move |i| lo + (hi - lo) * (i as f32 / n as f32))
    }

    #[test]
    fn unorm_bounds_hold_and_are_tight() {
        for rounding in [Rounding::Truncate, Rounding::Nearest] {
            let mut worst8 = 0.0f32;
            let mut worst16 = 0.0f32;
            for v in samples(0.0, 1.0) {
                worst8 = worst8.max((unorm8::decode(unorm8::encode(v, rounding)) - v).abs());
                worst16 = worst16.max((unorm16::decode(unorm16::encode(v, rounding)) - v).abs());
            }
            let b8 = unorm8::max_error(rounding);
            let b16 = unorm16::max_error(rounding);
            assert!(worst8 <= b8 + ULPS, "{rounding:?} {worst8} > {b8}");
            assert!(worst16 <= b16 + ULPS, "{rounding:?} {worst16} > {b16}");
            // Tight: the worst seen is at least 90% of the bound.
            assert!(worst8 > b8 * 0.9 && worst16 > b16 * 0.9);
        }
    }

    #[test]
    fn snorm_bounds_hold() {
        for rounding in [Rounding::Truncate, Rounding::Nearest] {
            let mut worst8 = 0.0f32;
            let mut worst16 = 0.0f32;
            for v in samples(-1.0, 1.0) {
                worst8 = worst8.max((snorm8::decode(snorm8::encode(v, rounding)) - v).abs());
                worst16 = worst16.max((snorm16::decode(snorm16::encode(v, rounding)) - v).abs());
            }
            assert!(worst8 <= snorm8::max_error(rounding) + ULPS);
            assert!(worst16 <= snorm16::max_error(rounding) + ULPS);
            assert!(worst16 > snorm16::max_error(rounding) * 0.9);
        }
    }

    #[test]
    fn known_codes() {
        assert_eq!(unorm8::encode(1.0, Rounding::Truncate), 255);
        assert_eq!(unorm8::encode(0.999, Rounding::Truncate), 254);
        assert_eq!(unorm8::encode(0.999, Rounding::Nearest), 255);
        assert_eq!(unorm8::encode(2.0, Rounding::Nearest), 255);
        assert_eq!(unorm8::encode(f32::NAN, Rounding::Nearest), 0);
        assert_eq!(unorm16::encode(0.5, Rounding::Nearest), 32768);
        assert_eq!(unorm16::encode(0.5, Rounding::Truncate), 32767);
        assert_eq!(snorm16::encode(-1.0, Rounding::Nearest), -32767);
        assert_eq!(snorm16::decode(i16::MIN), -1.0);
        assert_eq!(snorm8::encode(-0.5, Rounding::Truncate), -63);
        assert_eq!(snorm8::encode(-0.5, Rounding::Nearest), -64);
        assert_eq!(snorm8::decode(-128), -1.0);
    }

    #[test]
    fn box_bound_holds_for_odd_boxes() {
        let boxes = [
            (Vec3::new(-1.0, 0.0, 100.0), Vec3::new(1.0, 0.001, 1100.0)),
            (Vec3::new(-12.5, -0.3, 7.0), Vec3::new(3.25, 0.3, 7.0)),
        ];
        for (min, max) in boxes {
            let q = BoxQuantizer::from_min_max(min, max);
            for rounding in [Rounding::Truncate, Rounding::Nearest] {
                let bound = q.max_error(rounding);
                for i in 0..=20_000 {
                    let t = i as f32 / 20_000.0;
                    let v = min + (max - min) * Vec3::new(t, (t * 7.3).fract(), (t * 3.1).fract());
                    let err = (q.decode(q.encode(v, rounding)) - v).abs();
                    // Slack: f32 rounding of the decode, a few ULPs of the magnitudes.
                    let slack = (min.abs().max(max.abs())) * 4.0 * f32::EPSILON;
                    assert!(
                        err.cmple(bound + slack).all(),
                        "{rounding:?} v={v} err={err} bound={bound}"
                    );
                }
            }
        }
        // Zero-size axis: always min.
        let q = BoxQuantizer::from_min_max(Vec3::ONE, Vec3::ONE);
        assert_eq!(q.encode(Vec3::splat(5.0), Rounding::Nearest), [0, 0, 0]);
        assert_eq!(q.decode([9, 9, 9]), Vec3::ONE);
        assert_eq!(
            BoxQuantizer::enclosing(&[Vec3::ZERO, Vec3::ONE])
                .unwrap()
                .size,
            Vec3::ONE
        );
    }
}
