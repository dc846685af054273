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
