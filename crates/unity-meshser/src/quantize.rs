//! Floats to the file's integers and back: the original script's arithmetic
//! ([`Quantization::Compatible`]) and a rounding encoder ([`Quantization::Rounded`]).
//!
//! All arithmetic is single precision, as in the UnityScript original (whose decimal
//! literals are `float`).
//!
//! # Worst-case errors of `decode(encode(x))`
//!
//! For positions and UVs, `S` is an axis's stored box size (`max - min`); "ulp" is one
//! unit in the last place of the largest magnitude among the box's ends, the slack f32
//! arithmetic adds on top of the quantization step.
//!
//! | values | `Compatible` (truncate) | `Rounded` (default) |
//! |---|---|---|
//! | positions | `< S / 65535 + 4 ulp`; box = data box grown by 0.0005 on every side | `<= S / 131070 + 4 ulp`; box = tight data box |
//! | UVs | `< S / 65535 + 4 ulp`; box = data box grown by 0.001 on every side | `<= S / 131070 + 4 ulp`; tight box |
//! | normal, tangent components in -1..=1 | `< 1 / 127` (always rounds down) | `<= 1 / 254` |
//!
//! Components outside -1..=1 are clamped to -128/127..=1. `Rounded` picks, for every
//! value, the integer whose *decoded* value (with the reader's own arithmetic) is
//! nearest, so it never does worse than rounding the scaled value.

use meshfmt_core::glam::{Vec2, Vec3, Vec4};

use crate::file::{PositionBounds, UvBounds};

/// How floats become the file's integers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Quantization {
    /// Byte for byte what the original script writes: padded boxes (Unity's `Bounds`
    /// arithmetic for positions), truncation, positions clamped, UVs not.
    Compatible,
    /// The same layout, readable by any reader, with tight boxes and nearest rounding:
    /// half the error of `Compatible` or better.
    #[default]
    Rounded,
}

/// Decodes a 16-bit box-relative component exactly as the original reader:
/// `u / 65535.0 * (max - min) + min` in single precision.
pub fn decode_u16(u: u16, min: f32, max: f32) -> f32 {
    f32::from(u) / 65535.0 * (max - min) + min
}

/// Decodes a biased byte exactly as the original reader: `(b - 128.0) / 127.0`.
pub fn decode_byte(b: u8) -> f32 {
    (f32::from(b) - 128.0) / 127.0
}

/// The original's `Mathf.Clamp`: NaN passes through (and later casts to 0).
fn clamp(v: f32, lo: f32, hi: f32) -> f32 {
    if v < lo {
        lo
    } else if v > hi {
        hi
    } else {
        v
    }
}

/// `Mathf.Min` / `Mathf.Max`, whose NaN behaviour differs from `f32::min`.
fn unity_min(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

fn unity_max(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

/// The original's position box: `Bounds(first, (0.001, 0.001, 0.001))`, then
/// `Encapsulate` of every position, with Unity's `Bounds` arithmetic (centre and
/// extents, recomputed on every step).
pub fn compatible_position_bounds(positions: &[Vec3]) -> PositionBounds {
    let Some(&first) = positions.first() else {
        return [0.0; 6];
    };
    let mut center = first;
    let mut extents = Vec3::splat(0.001) * 0.5;
    for &p in positions {
        let min = center - extents;
        let max = center + extents;
        let new_min = Vec3::new(
            unity_min(min.x, p.x),
            unity_min(min.y, p.y),
            unity_min(min.z, p.z),
        );
        let new_max = Vec3::new(
            unity_max(max.x, p.x),
            unity_max(max.y, p.y),
            unity_max(max.z, p.z),
        );
        // SetMinMax
        extents = (new_max - new_min) * 0.5;
        center = new_min + extents;
    }
    let min = center - extents;
    let max = center + extents;
    [min.x, max.x, min.y, max.y, min.z, max.z]
}

/// The original's UV box: first UV -/+ 0.001, grown with `Mathf.Min`/`Max`.
pub fn compatible_uv_bounds(uvs: &[Vec2]) -> UvBounds {
    let Some(&first) = uvs.first() else {
        return [0.0; 4];
    };
    let mut min = first - Vec2::splat(0.001);
    let mut max = first + Vec2::splat(0.001);
    for &v in uvs {
        min.x = unity_min(min.x, v.x);
        min.y = unity_min(min.y, v.y);
        max.x = unity_max(max.x, v.x);
        max.y = unity_max(max.y, v.y);
    }
    [min.x, max.x, min.y, max.y]
}

/// Tight bounds for [`Quantization::Rounded`] (NaN components are ignored).
fn tight<const N: usize>(values: impl Iterator<Item = [f32; N]>) -> [(f32, f32); N] {
    let mut out = [(f32::INFINITY, f32::NEG_INFINITY); N];
    for v in values {
        for (o, x) in out.iter_mut().zip(v) {
            if !x.is_nan() {
                o.0 = o.0.min(x);
                o.1 = o.1.max(x);
            }
        }
    }
    out.map(|(lo, hi)| if lo <= hi { (lo, hi) } else { (0.0, 0.0) })
}

/// One box-relative component.
fn encode_u16(v: f32, min: f32, max: f32, mode: Quantization, clamp_first: bool) -> u16 {
    let scaled = (v - min) / (max - min) * 65535.0;
    match mode {
        Quantization::Compatible => {
            // A float-to-UInt16 cast truncates; NaN becomes 0 like .NET's conversion.
            let s = if clamp_first {
                clamp(scaled, 0.0, 65535.0)
            } else {
                scaled
            };
            s as u16
        }
        Quantization::Rounded => {
            let guess = if scaled.is_nan() {
                0
            } else {
                scaled.round().clamp(0.0, 65535.0) as i32
            };
            nearest(guess, 65535, v, |u| decode_u16(u as u16, min, max)) as u16
        }
    }
}

/// One biased-byte component.
fn encode_byte(v: f32, mode: Quantization) -> u8 {
    let scaled = v * 127.0 + 128.0;
    match mode {
        Quantization::Compatible => clamp(scaled, 0.0, 255.0) as u8,
        Quantization::Rounded => {
            let guess = if scaled.is_nan() {
                128
            } else {
                scaled.round().clamp(0.0, 255.0) as i32
            };
            nearest(guess, 255, v, |b| decode_byte(b as u8)) as u8
        }
    }
}

/// Of `guess - 1 ..= guess + 1` (within `0..=max`), the code whose decoded value is
/// nearest to `v`.
fn nearest(guess: i32, max: i32, v: f32, decode: impl Fn(i32) -> f32) -> i32 {
    let mut best = guess;
    let mut best_err = (decode(guess) - v).abs();
    for c in [guess - 1, guess + 1] {
        if (0..=max).contains(&c) {
            let e = (decode(c) - v).abs();
            if e < best_err {
                best = c;
                best_err = e;
            }
        }
    }
    best
}

/// Quantized positions and their box.
pub fn encode_positions(positions: &[Vec3], mode: Quantization) -> (PositionBounds, Vec<[u16; 3]>) {
    if positions.is_empty() {
        return ([0.0; 6], Vec::new());
    }
    let b = match mode {
        Quantization::Compatible => compatible_position_bounds(positions),
        Quantization::Rounded => {
            let t = tight(positions.iter().map(|p| p.to_array()));
            [t[0].0, t[0].1, t[1].0, t[1].1, t[2].0, t[2].1]
        }
    };
    let q = positions
        .iter()
        .map(|p| {
            [
                encode_u16(p.x, b[0], b[1], mode, true),
                encode_u16(p.y, b[2], b[3], mode, true),
                encode_u16(p.z, b[4], b[5], mode, true),
            ]
        })
        .collect();
    (b, q)
}

/// Quantized UVs and their box.
pub fn encode_uvs(uvs: &[Vec2], mode: Quantization) -> (UvBounds, Vec<[u16; 2]>) {
    if uvs.is_empty() {
        return ([0.0; 4], Vec::new());
    }
    let b = match mode {
        Quantization::Compatible => compatible_uv_bounds(uvs),
        Quantization::Rounded => {
            let t = tight(uvs.iter().map(|p| p.to_array()));
            [t[0].0, t[0].1, t[1].0, t[1].1]
        }
    };
    // The original does not clamp UVs (its box always encloses them anyway).
    let q = uvs
        .iter()
        .map(|v| {
            [
                encode_u16(v.x, b[0], b[1], mode, false),
                encode_u16(v.y, b[2], b[3], mode, false),
            ]
        })
        .collect();
    (b, q)
}

/// Quantized normals.
pub fn encode_normals(normals: &[Vec3], mode: Quantization) -> Vec<[u8; 3]> {
    normals
        .iter()
        .map(|n| n.to_array().map(|c| encode_byte(c, mode)))
        .collect()
}

/// Quantized tangents (w, the handedness, included).
pub fn encode_tangents(tangents: &[Vec4], mode: Quantization) -> Vec<[u8; 4]> {
    tangents
        .iter()
        .map(|t| t.to_array().map(|c| encode_byte(c, mode)))
        .collect()
}

/// Decoded positions.
pub fn decode_positions(b: &PositionBounds, q: &[[u16; 3]]) -> Vec<Vec3> {
    q.iter()
        .map(|u| {
            Vec3::new(
                decode_u16(u[0], b[0], b[1]),
                decode_u16(u[1], b[2], b[3]),
                decode_u16(u[2], b[4], b[5]),
            )
        })
        .collect()
}

/// Decoded UVs.
pub fn decode_uvs(b: &UvBounds, q: &[[u16; 2]]) -> Vec<Vec2> {
    q.iter()
        .map(|u| Vec2::new(decode_u16(u[0], b[0], b[1]), decode_u16(u[1], b[2], b[3])))
        .collect()
}

/// Decoded normals.
pub fn decode_normals(q: &[[u8; 3]]) -> Vec<Vec3> {
    q.iter()
        .map(|b| Vec3::from_array(b.map(decode_byte)))
        .collect()
}

/// Decoded tangents.
pub fn decode_tangents(q: &[[u8; 4]]) -> Vec<Vec4> {
    q.iter()
        .map(|b| Vec4::from_array(b.map(decode_byte)))
        .collect()
}

/// The worst-case error bound for one box axis, as documented above.
pub fn box_error_bound(min: f32, max: f32, mode: Quantization) -> f32 {
    let steps = match mode {
        Quantization::Compatible => 1.0,
        Quantization::Rounded => 0.5,
    };
    let ulp = 4.0 * f32::EPSILON * min.abs().max(max.abs()).max((max - min).abs());
    (max - min).abs() / 65535.0 * steps + ulp
}

/// The worst-case error bound for a normal or tangent component in -1..=1.
pub fn byte_error_bound(mode: Quantization) -> f32 {
    match mode {
        Quantization::Compatible => 1.0 / 127.0,
        Quantization::Rounded => 0.5 / 127.0,
    }
}
