//! Unit tests of `quantize`.

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
        BoxQuantizer::enclosing(&[Vec3::ZERO, Vec3::ONE]).map(|q| q.size),
        Some(Vec3::ONE)
    );
}

/// Unit quaternions spread over the sphere, deterministically (a 64-bit LCG).
fn unit_quats(n: usize) -> Vec<[f32; 4]> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    (0..n)
        .map(|_| {
            let q = [next(), next(), next(), next()];
            let len = q.iter().map(|x| x * x).sum::<f64>().sqrt();
            q.map(|x| (x / len) as f32)
        })
        .collect()
}

fn direction_error(c: [i16; 4], q: [f32; 4]) -> f64 {
    let c = c.map(f64::from);
    let n = c.iter().map(|x| x * x).sum::<f64>().sqrt();
    let l = q.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
    c.iter()
        .zip(q)
        .map(|(a, b)| (a / n - f64::from(b) / l).powi(2))
        .sum::<f64>()
        .sqrt()
}

#[test]
fn a_normalized_i16_quaternion_encodes_back_to_its_integers() {
    let mut plain_misses = 0;
    let mut nudged_exact = 0;
    for q in unit_quats(50_000) {
        // What a writer stored, and what a reader that normalizes hands on.
        let stored = q.map(|x| snorm16::encode(x, Rounding::Nearest));
        let s = stored.map(|v| f32::from(v) / 32767.0);
        let len = s.iter().map(|x| x * x).sum::<f32>().sqrt();
        let unit = s.map(|x| x / len);
        assert_eq!(snorm16::encode_direction(unit), stored, "{q:?}");
        // f32 noise of a trip through other tools (1e-6 on three components, 1.7e-6
        // in all: a twentieth of a step): the direction comes back to within the noise
        // and the rounding of the search (a lattice vector nearly parallel to `stored`
        // may win), far inside half a step.
        let nudged = [unit[0] + 1e-6, unit[1] - 1e-6, unit[2], unit[3] + 1e-6];
        let again = snorm16::encode_direction(nudged);
        assert!(
            direction_error(again, unit) <= 3.5e-6,
            "{q:?} nudged: {again:?}"
        );
        if again == stored {
            nudged_exact += 1;
        }
        // The raw decoded value, not normalized, also comes back.
        assert_eq!(snorm16::encode_direction(s), stored);
        if unit.map(|x| snorm16::encode(x, Rounding::Nearest)) != stored {
            plain_misses += 1;
        }
    }
    // The case this is for: plain rounding of the normalized value misses about 1 in
    // 100 (463 of these 50,000).
    assert!(plain_misses > 200, "{plain_misses}");
    assert!(nudged_exact > 49_000, "{nudged_exact}");
}

#[test]
fn direction_encoding_is_never_worse_than_plain_rounding() {
    // Worst component error after normalizing, in steps of 1/32767.
    let steps = |c: [i16; 4], q: [f32; 4]| {
        let c = c.map(f64::from);
        let n = c.iter().map(|x| x * x).sum::<f64>().sqrt();
        (0..4)
            .map(|i| (c[i] / n - f64::from(q[i])).abs() * 32767.0)
            .fold(0.0f64, f64::max)
    };
    let (mut worst_plain, mut worst_best) = (0.0f64, 0.0f64);
    for q in unit_quats(200_000) {
        let plain = q.map(|x| snorm16::encode(x, Rounding::Nearest));
        let best = snorm16::encode_direction(q);
        assert!(direction_error(best, q) <= direction_error(plain, q) + 1e-12);
        assert!(best.iter().all(|&v| v != i16::MIN));
        worst_plain = worst_plain.max(steps(plain, q));
        worst_best = worst_best.max(steps(best, q));
    }
    // Measured on these 200,000: plain rounding then normalizing is up to 0.71 of a
    // step off, the search about half a step (0.53), as if rounding on the sphere.
    assert!(worst_plain > 0.7, "{worst_plain}");
    assert!(worst_best < 0.55, "{worst_best}");
    // Degenerate input rounds per component and never panics.
    assert_eq!(snorm16::encode_direction([0.0f32; 4]), [0; 4]);
    assert_eq!(
        snorm16::encode_direction([f32::NAN, 1.0, 0.0, 0.0]),
        [0, 32767, 0, 0]
    );
    assert_eq!(
        snorm16::encode_direction([f32::INFINITY, 0.0, 0.0, 0.0]),
        [32767, 0, 0, 0]
    );
    assert_eq!(snorm16::encode_direction([0.0, 0.0, 1.0]), [0, 0, 32767]);
}
