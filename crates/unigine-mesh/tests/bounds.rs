//! What a conversion reports covers what it changes: embedded rotations that are
//! renormalized when read, ms08 weights, uniform scales and clip names, and the tangent
//! handedness riding on the sign of w. Expected values come from the formats'
//! arithmetic, worked out in the comments.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::glam::{Quat, Vec3, Vec4};
use meshfmt_core::{
    Bone, Channel, Clip, CoordinateSystem, Feature, Loss, LossKind, Model, Skeleton, Surface,
    Track, Transform, VertexInfluences,
};
use test_support::Rng;
use unigine_mesh::{MeshFile, TargetVersion, WriteOptions, read};

/// The embedded animations' frame rate.
const FPS: f32 = unigine_mesh::DEFAULT_FPS;

fn skeleton(n: usize) -> Skeleton {
    Skeleton {
        bones: (0..n)
            .map(|i| Bone {
                name: format!("b{i}"),
                parent: i.checked_sub(1),
                rest: Transform::IDENTITY,
                inverse_bind: None,
            })
            .collect(),
    }
}

fn model(skeleton: Skeleton, surfaces: Vec<Surface>, animations: Vec<Clip>) -> Model {
    Model {
        coordinate_system: CoordinateSystem::Z_UP_RIGHT,
        skeleton,
        surfaces,
        animations,
        ..Model::default()
    }
}

/// Key `f` at `f / FPS`.
fn track<T: meshfmt_core::animation::Keyframe>(values: &[T]) -> Track<T> {
    Track::from_keys(values.iter().enumerate().map(|(f, &v)| (f as f32 / FPS, v)))
}

fn clip(name: &str, channel: Channel) -> Clip {
    Clip {
        events: Vec::new(),
        name: name.into(),
        channels: vec![channel],
    }
}

fn write(m: &Model, version: TargetVersion) -> (MeshFile, Vec<Loss>) {
    let conv = MeshFile::from_core_with(
        m,
        &WriteOptions {
            version,
            ..WriteOptions::default()
        },
    )
    .unwrap();
    (conv.value, conv.losses)
}

/// Writes and reads back; the losses the write reported.
fn round_trip(m: &Model, version: TargetVersion) -> (Model, Vec<Loss>) {
    let (file, losses) = write(m, version);
    let back = read(&file.write().unwrap())
        .unwrap()
        .to_core()
        .unwrap()
        .value;
    (back, losses)
}

fn quantized(losses: &[Loss], feature: Feature) -> Vec<f32> {
    losses
        .iter()
        .filter_map(|l| match l.kind {
            LossKind::Quantized { max_error } if l.feature == feature => Some(max_error),
            _ => None,
        })
        .collect()
}

fn has(losses: &[Loss], feature: Feature, kind: LossKind) -> bool {
    losses
        .iter()
        .any(|l| l.feature == feature && l.kind == kind)
}

/// Largest component difference, q and -q being the same rotation.
fn rotation_error(a: Quat, b: Quat) -> f32 {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    (a - b).to_array().iter().fold(0.0, |m, c| m.max(c.abs()))
}

#[test]
fn embedded_rotation_bound_allows_for_renormalization() {
    // i16 / 32767: half a step is h = 0.5 / 32767 per stored component; the reader
    // renormalizes, which can move a component by up to 2h more (|q'| within 2h of 1).
    let h = 0.5 / 32767.0;
    let mut rng = Rng::new(16);
    let rotations: Vec<Quat> = (0..3000)
        .map(|_| {
            let mut c = || rng.range(-1.0, 1.0);
            Quat::from_xyzw(c(), c(), c(), c()).normalize()
        })
        .collect();
    let m = model(
        skeleton(1),
        Vec::new(),
        vec![clip(
            "turn",
            Channel {
                bone: 0,
                rotation: track(&rotations),
                ..Channel::default()
            },
        )],
    );
    for version in [TargetVersion::Ms10, TargetVersion::Ms11] {
        let (back, losses) = round_trip(&m, version);
        let bound = quantized(&losses, Feature::Animation);
        assert_eq!(bound.len(), 1, "{version:?}: {losses:?}");
        let bound = bound[0];
        assert!(
            (bound - 3.0 * h).abs() < 1e-4 * h * 3.0,
            "{version:?}: {bound}"
        );
        let clip = &back.animations[0];
        let worst = rotations
            .iter()
            .enumerate()
            .map(|(f, &q)| {
                let got = clip.sample(&back.skeleton, f as f32 / FPS).locals[0].rotation;
                rotation_error(q, got)
            })
            .fold(0.0f32, f32::max);
        assert!(worst <= bound, "{version:?}: error {worst} > bound {bound}");
        // The bound is plain rounding's; the writer picks the i16 vector nearest in
        // direction (snorm16::encode_direction), which keeps these within half a step.
        assert!(
            worst <= 1.05 * h,
            "{version:?}: direction search: {worst} > {h}"
        );
    }
}

/// One triangle skinned to `weights` (bone, weight) at every corner.
fn skinned_triangle(weights: &[(u32, f32)]) -> Surface {
    Surface {
        name: "skin".into(),
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        indices: vec![0, 1, 2],
        skin: vec![VertexInfluences::from_pairs(weights.iter().copied()); 3],
        ..Surface::default()
    }
}

#[test]
fn ms08_weights_sum_to_255_and_the_bound_is_what_reading_makes() {
    // actor_00's weights 0.7265, 0.2194, 0.0541 (sum 1) are 185.2575, 55.947 and 13.7955
    // of 255: truncated, 185 + 55 + 13 = 253, which the reader renormalized to
    // 185 / 253 = 0.7312 (4.7e-3 off). The 2 units left go to the largest remainders
    // (.947 and .7955): 185, 56, 14. Read back 185/255, 56/255, 14/255: the worst is
    // 0.7265 - 185/255 = 1.0098e-3.
    let weights = [(0, 0.7265), (1, 0.2194), (2, 0.0541)];
    let m = model(skeleton(3), vec![skinned_triangle(&weights)], Vec::new());
    let (file, losses) = write(&m, TargetVersion::Ms08);
    let MeshFile::Ms08(ms08) = &file else {
        panic!("{}", file.version())
    };
    let bytes: Vec<u8> = ms08.surfaces[0].weights.iter().map(|w| w.weight).collect();
    assert_eq!(bytes, [185, 56, 14].repeat(3));
    let bound = quantized(&losses, Feature::Skin);
    assert_eq!(bound.len(), 1, "{losses:?}");
    assert!(
        (bound[0] - (0.7265 - 185.0 / 255.0)).abs() < 1e-6,
        "{bound:?}"
    );
    let (back, _) = round_trip(&m, TargetVersion::Ms08);
    for v in &back.surfaces[0].skin {
        let mut got: Vec<(u32, f32)> = v.pairs().collect();
        got.sort_by_key(|p| p.0);
        for ((j, w), (gj, gw)) in [(0, 185.0 / 255.0), (1, 56.0 / 255.0), (2, 14.0 / 255.0)]
            .into_iter()
            .zip(got)
        {
            assert_eq!(j, gj);
            assert!((w - gw).abs() < 1e-6, "joint {j}: {gw} vs {w}");
            let original = weights[j as usize].1;
            assert!((original - gw).abs() <= bound[0] + 1e-7);
        }
    }
}

fn scaled(rest_scale: Vec3, frames: &[Vec3], name: &str) -> Model {
    let mut sk = skeleton(1);
    sk.bones[0].rest.scale = rest_scale;
    model(
        sk,
        Vec::new(),
        vec![clip(
            name,
            Channel {
                bone: 0,
                scale: track(frames),
                ..Channel::default()
            },
        )],
    )
}

#[test]
fn ms08_non_uniform_animated_scales_are_reported_on_the_animation() {
    // ms08 stores x: (100, 99.99999, 99.99983) reads back as 100 on every axis, z off by
    // 100 - 99.99983 (1.68e-4 in f32).
    let s = Vec3::new(100.0, 99.99999, 99.99983);
    let m = scaled(Vec3::ONE, &[s, s], "animation");
    let (back, losses) = round_trip(&m, TargetVersion::Ms08);
    let bound = quantized(&losses, Feature::Animation);
    assert_eq!(bound, [100.0f32 - 99.99983f32], "{losses:?}");
    let got = back.animations[0].sample(&back.skeleton, 1.0 / FPS).locals[0].scale;
    assert_eq!(got, Vec3::splat(100.0));
    // The rest scale is uniform: the skeleton loses nothing.
    assert!(
        !has(&losses, Feature::Skeleton, LossKind::Reduced),
        "{losses:?}"
    );

    // Differences under 1e-6 are differences too: 1 + 2^-23 on y comes back as 1.
    let tiny = Vec3::new(1.0, 1.0 + f32::EPSILON, 1.0);
    let (_, losses) = round_trip(
        &scaled(Vec3::ONE, &[tiny], "animation"),
        TargetVersion::Ms08,
    );
    assert_eq!(quantized(&losses, Feature::Animation), [f32::EPSILON]);
    // A non-uniform rest scale is still the skeleton's loss.
    let (_, losses) = round_trip(
        &scaled(tiny, &[Vec3::ONE], "animation"),
        TargetVersion::Ms08,
    );
    assert!(
        has(&losses, Feature::Skeleton, LossKind::Reduced),
        "{losses:?}"
    );
    assert!(
        quantized(&losses, Feature::Animation).is_empty(),
        "{losses:?}"
    );
}

#[test]
fn ms08_clip_names_other_than_animation_are_reported() {
    // The reader names the clip "animation": an empty name changes too.
    for (name, lost) in [("", true), ("walk", true), ("animation", false)] {
        let m = scaled(Vec3::ONE, &[Vec3::ONE, Vec3::splat(2.0)], name);
        let (back, losses) = round_trip(&m, TargetVersion::Ms08);
        assert_eq!(back.animations[0].name, "animation");
        assert_eq!(
            has(&losses, Feature::Names, LossKind::Dropped),
            lost,
            "{name:?}: {losses:?}"
        );
    }
}

fn tangent_triangle(tangent: Vec4) -> Surface {
    Surface {
        name: "t".into(),
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        normals: vec![Vec3::Z; 3],
        tangents: vec![tangent; 3],
        indices: vec![0, 1, 2],
        ..Surface::default()
    }
}

#[test]
fn a_negative_tangent_sign_survives_a_w_that_rounds_to_zero() {
    // box.mesh: normal +Z, tangent -X, handedness -1. The frame (t, b, n) = (-X, -Y, Z)
    // is half a turn about Z: q = (0, 0, +-1, 0), whose w rounds to 0, and a stored 0
    // reads as +1. Stored as -1 instead: the rotation moves by under 1.5 steps in w.
    let t = Vec4::new(-1.0, 0.0, 0.0, -1.0);
    let m = model(Skeleton::default(), vec![tangent_triangle(t)], Vec::new());
    for version in [
        TargetVersion::Ms11,
        TargetVersion::Ms13,
        TargetVersion::Ms14,
    ] {
        let (back, losses) = round_trip(&m, version);
        let bound = quantized(&losses, Feature::Tangents);
        assert_eq!(bound.len(), 1, "{version:?}: {losses:?}");
        for (got, n) in back.surfaces[0]
            .tangents
            .iter()
            .zip(&back.surfaces[0].normals)
        {
            assert_eq!(got.w, -1.0, "{version:?}");
            let err = (*got - t).abs().max_element();
            // Rotating by 1.5 / 32767 in w moves a vector by about twice that.
            assert!(err < 3.0 * 1.5 / 32767.0, "{version:?}: {got}");
            assert!(err <= bound[0], "{version:?}: {err} > {bound:?}");
            assert!(
                n.abs_diff_eq(Vec3::Z, 3.0 * 1.5 / 32767.0),
                "{version:?}: {n}"
            );
        }
    }
}

#[test]
fn a_tangent_sign_that_does_not_come_back_is_reported() {
    // A handedness of 0 has no sign to store: it reads back as +1, one unit off, and
    // the reported bound says so.
    let m = model(
        Skeleton::default(),
        vec![tangent_triangle(Vec4::new(1.0, 0.0, 0.0, 0.0))],
        Vec::new(),
    );
    for version in [TargetVersion::Ms10, TargetVersion::Ms11] {
        let (back, losses) = round_trip(&m, version);
        assert!(back.surfaces[0].tangents.iter().all(|t| t.w == 1.0));
        let bound = quantized(&losses, Feature::Tangents);
        assert_eq!(bound.len(), 1, "{version:?}: {losses:?}");
        assert!(bound[0] >= 1.0, "{version:?}: {bound:?}");
    }
}
