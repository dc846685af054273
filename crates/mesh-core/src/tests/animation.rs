//! Unit tests of `animation`.

use super::*;
use crate::model::Surface;
use crate::skeleton::Bone;
use crate::skin::VertexInfluences;
use crate::skinning::skin_surface;
use std::f32::consts::FRAC_PI_2;

#[test]
fn sample_clamps_and_lerps() {
    let t = Track::from_keys([(0.0, Vec3::ZERO), (2.0, Vec3::new(4.0, 0.0, 0.0))]);
    assert_eq!(t.sample(-1.0), Some(Vec3::ZERO));
    assert_eq!(t.sample(0.5), Some(Vec3::new(1.0, 0.0, 0.0)));
    assert_eq!(t.sample(2.0), Some(Vec3::new(4.0, 0.0, 0.0)));
    assert_eq!(t.sample(9.0), Some(Vec3::new(4.0, 0.0, 0.0)));
    assert_eq!(t.sample(f32::NAN), Some(Vec3::ZERO));
    let mut step = t.clone();
    step.interpolation = Interpolation::Step;
    assert_eq!(step.sample(1.9), Some(Vec3::ZERO));
    assert_eq!(Track::<Vec3>::default().sample(0.0), None);
}

#[test]
fn slerp_halfway_is_45_degrees() {
    let t = Track::from_keys([
        (0.0, Quat::IDENTITY),
        (1.0, Quat::from_rotation_z(FRAC_PI_2)),
    ]);
    let expected = Quat::from_rotation_z(FRAC_PI_2 / 2.0);
    assert!(t.sample(0.5).is_some_and(|q| q.abs_diff_eq(expected, 1e-6)));
}

#[test]
fn hostile_tracks_do_not_panic() {
    let t = Track {
        times: vec![3.0, 1.0, 2.0, 0.0],
        values: vec![Vec3::X, Vec3::Y],
        interpolation: Interpolation::Linear,
    };
    for time in [-1.0, 0.0, 0.5, 1.5, 2.5, 10.0] {
        assert!(t.sample(time).is_some());
    }
    let dup = Track::from_keys([(1.0, Vec3::X), (1.0, Vec3::Y), (1.0, Vec3::Z)]);
    assert!(dup.sample(1.0).is_some());
}

#[test]
fn two_bone_lbs_by_hand() {
    // Arm along +X: shoulder at origin, elbow at x=1. A vertex at x=2 bound to the
    // elbow; rotating the shoulder 90 degrees about Z moves it to (0,2,0).
    let skeleton = Skeleton {
        bones: vec![
            Bone {
                name: "shoulder".into(),
                ..Default::default()
            },
            Bone {
                name: "elbow".into(),
                parent: Some(0),
                rest: Transform {
                    translation: Vec3::X,
                    ..Transform::IDENTITY
                },
                inverse_bind: None,
            },
        ],
    };
    let surface = Surface {
        positions: vec![Vec3::new(2.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0)],
        normals: vec![Vec3::Y, Vec3::Y],
        skin: vec![
            VertexInfluences::single(1),
            VertexInfluences::from_pairs([(0, 0.5), (1, 0.5)]),
        ],
        ..Default::default()
    };
    let clip = Clip {
        events: Vec::new(),
        name: "raise".into(),
        channels: vec![Channel {
            bone: 0,
            rotation: Track::from_keys([
                (0.0, Quat::IDENTITY),
                (1.0, Quat::from_rotation_z(FRAC_PI_2)),
            ]),
            ..Default::default()
        }],
    };
    assert_eq!(clip.duration(), 1.0);
    assert_eq!(clip.max_keys(), 2);
    let rest = skin_surface(&surface, &skeleton, &clip.sample(&skeleton, 0.0));
    assert!(rest.0[0].abs_diff_eq(Vec3::new(2.0, 0.0, 0.0), 1e-6));
    let (p, n) = skin_surface(&surface, &skeleton, &clip.sample(&skeleton, 1.0));
    assert!(
        p[0].abs_diff_eq(Vec3::new(0.0, 2.0, 0.0), 1e-5),
        "{:?}",
        p[0]
    );
    // Both joints move the elbow-point the same way.
    assert!(
        p[1].abs_diff_eq(Vec3::new(0.0, 1.0, 0.0), 1e-5),
        "{:?}",
        p[1]
    );
    assert!(n[0].abs_diff_eq(-Vec3::X, 1e-5));
}

#[test]
fn grid_and_frame_times() {
    let clip = Clip {
        events: Vec::new(),
        name: "c".into(),
        channels: vec![Channel {
            bone: 0,
            translation: Track::from_keys([
                (0.0, Vec3::ZERO),
                (1.0 / 30.0, Vec3::X),
                (0.1, Vec3::Y),
            ]),
            ..Default::default()
        }],
    };
    assert!(clip.is_on_grid(30.0));
    assert!(!clip.is_on_grid(24.0));
    let budget = crate::Budget::default();
    assert_eq!(clip.frame_times(30.0, &budget, 0).unwrap().len(), 4);
    assert_eq!(budget.used(), 16);
    // Key times the budget cannot resample are refused before anything is allocated.
    let tiny = crate::Budget::new(crate::Limits {
        max_alloc_bytes: 1000,
        ..crate::Limits::DEFAULT
    });
    let mut long = clip.clone();
    long.channels[0].rotation.times.push(1e7);
    long.channels[0].rotation.values.push(glam::Quat::IDENTITY);
    assert_eq!(long.frame_count(30.0), 300_000_001);
    assert!(long.frame_times(30.0, &tiny, 48).is_err());
    assert_eq!(tiny.used(), 0);
    for t in [1e20, f32::INFINITY] {
        long.channels[0].rotation.times[0] = t;
        assert_eq!(long.frame_count(30.0), u64::MAX);
        assert!(
            long.frame_times(30.0, &crate::Budget::new(crate::Limits::UNLIMITED), 0)
                .is_err()
        );
    }
    assert_eq!(clip.frame_count(f32::NAN), 1);
    assert_eq!(clip.frame_times(0.0, &budget, 0).unwrap(), [0.0]);
    // Sampling exactly on a key returns the key bit for bit.
    let q = Quat::from_rotation_z(0.3);
    let t = Track::from_keys([(0.0, Quat::IDENTITY), (0.5, q), (1.0, Quat::IDENTITY)]);
    assert_eq!(t.sample(0.5), Some(q));
}
