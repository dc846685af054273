//! What a conversion reports covers what it changes: quantization bounds in the model's
//! units (not UNIGINE's meters), rotation bounds that allow for renormalization, and an11
//! tracks that stay the default instead of falling back to the bind pose. Expected
//! values come from the formats' arithmetic, worked out in the comments.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::glam::{Quat, Vec3};
use meshfmt_core::{
    Bone, Channel, Clip, CoordinateSystem, Feature, Handedness, Loss, LossKind, Model, Skeleton,
    Track, Transform, UpAxis,
};
use test_support::Rng;
use unigine_anim::{AnimFile, TargetVersion, read};

const FPS: f32 = 30.0;

/// UNIGINE's axes in units of 1/3 m: a length of 1 m is 3 units.
const THIRD_METERS: CoordinateSystem = CoordinateSystem {
    up: UpAxis::Z,
    handedness: Handedness::Right,
    meters_per_unit: 1.0 / 3.0,
};

fn one_bone(rest: Transform, coordinate_system: CoordinateSystem, channel: Channel) -> Model {
    Model {
        coordinate_system,
        skeleton: Skeleton {
            bones: vec![Bone {
                name: "root".into(),
                parent: None,
                rest,
                inverse_bind: None,
            }],
        },
        animations: vec![Clip {
            events: Vec::new(),
            name: String::new(),
            channels: vec![channel],
        }],
        ..Model::default()
    }
}

/// Key `f` at `f / FPS`.
fn track<T: meshfmt_core::animation::Keyframe>(values: &[T]) -> Track<T> {
    Track::from_keys(values.iter().enumerate().map(|(f, &v)| (f as f32 / FPS, v)))
}

/// Writes, reads back and converts to the model's own frame and units; the losses the
/// write reported.
fn round_trip(model: &Model, version: TargetVersion) -> (Model, Vec<Loss>) {
    let conv = AnimFile::from_core_with(
        model,
        &unigine_anim::WriteOptions {
            version,
            fps: FPS,
            ..Default::default()
        },
    )
    .unwrap();
    let bytes = conv.value.write().unwrap();
    let mut back = read(&bytes).unwrap().to_core().unwrap().value;
    back.convert_to(model.coordinate_system);
    (back, conv.losses)
}

/// The one quantization bound reported for the animation.
fn animation_bound(losses: &[Loss]) -> f32 {
    let bounds: Vec<f32> = losses
        .iter()
        .filter_map(|l| match l.kind {
            LossKind::Quantized { max_error } if l.feature == Feature::Animation => Some(max_error),
            _ => None,
        })
        .collect();
    assert_eq!(bounds.len(), 1, "{losses:?}");
    bounds[0]
}

/// The bone's local pose in frame `f` of the first clip.
fn pose(m: &Model, f: usize) -> Transform {
    m.animations[0].sample(&m.skeleton, f as f32 / FPS).locals[0]
}

/// Largest component difference, q and -q being the same rotation.
fn rotation_error(a: Quat, b: Quat) -> f32 {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    (a - b).to_array().iter().fold(0.0, |m, c| m.max(c.abs()))
}

fn close(a: f32, b: f32, rel: f32) -> bool {
    (a - b).abs() <= rel * b.abs()
}

#[test]
fn an10_translation_bound_is_in_the_models_units() {
    // x = 0, 3 * 3 * 20000.4 / 65535 and 6 units: 0, 3 * 20000.4 / 65535 and 2 m. The an10
    // box is min 0, size 2 - 0 + 1 = 3 m: the middle key is u = round(20000.4) = 20000,
    // read as 3 * 20000 / 65535 m, 9 * 0.4 / 65535 units short. Half a step is
    // 1.5 / 65535 m = 4.5 / 65535 units (the rotation bound, ~1.5 / 32767, is less).
    let mid = 9.0 * 20000.4 / 65535.0;
    let model = one_bone(
        Transform::IDENTITY,
        THIRD_METERS,
        Channel {
            bone: 0,
            translation: track(&[Vec3::ZERO, Vec3::new(mid, 0.0, 0.0), Vec3::X * 6.0]),
            ..Channel::default()
        },
    );
    let (back, losses) = round_trip(&model, TargetVersion::An10);
    let bound = animation_bound(&losses);
    assert!(close(bound, 4.5 / 65535.0, 1e-5), "bound {bound}");
    let err = (pose(&back, 1).translation.x - mid).abs();
    assert!((err - 3.6 / 65535.0).abs() < 2e-6, "error {err}");
    assert!(err <= bound, "error {err} > bound {bound}");
}

#[test]
fn as08_translation_bound_is_in_the_models_units() {
    // x = 0, 3 * 4 * 20000.4 / 65535 and 12 units: 0, 4 * 20000.4 / 65535 and 4 m. The
    // as08 box is min 0, size 4 m (no padding): the middle key is u = 20000, read
    // 12 * 0.4 / 65535 units short. Half a step is 2 / 65535 m = 6 / 65535 units; the
    // scale box is empty (size 0) and rotations allow ~3 / 65535.
    let mid = 12.0 * 20000.4 / 65535.0;
    let model = one_bone(
        Transform::IDENTITY,
        THIRD_METERS,
        Channel {
            bone: 0,
            translation: track(&[Vec3::ZERO, Vec3::new(mid, 0.0, 0.0), Vec3::X * 12.0]),
            ..Channel::default()
        },
    );
    let (back, losses) = round_trip(&model, TargetVersion::As08);
    let bound = animation_bound(&losses);
    assert!(close(bound, 6.0 / 65535.0, 1e-5), "bound {bound}");
    let err = (pose(&back, 1).translation.x - mid).abs();
    assert!((err - 4.8 / 65535.0).abs() < 2e-6, "error {err}");
    assert!(err <= bound, "error {err} > bound {bound}");
}

/// 3000 rotations spread over the sphere, one per frame.
fn random_rotations() -> Vec<Quat> {
    let mut rng = Rng::new(16);
    (0..3000)
        .map(|_| {
            Quat::from_xyzw(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            )
            .normalize()
        })
        .collect()
}

fn worst_rotation_error(version: TargetVersion) -> (f32, f32) {
    let rotations = random_rotations();
    let model = one_bone(
        Transform::IDENTITY,
        CoordinateSystem::Z_UP_RIGHT,
        Channel {
            bone: 0,
            rotation: track(&rotations),
            ..Channel::default()
        },
    );
    let (back, losses) = round_trip(&model, version);
    let worst = rotations
        .iter()
        .enumerate()
        .map(|(f, &q)| rotation_error(q, pose(&back, f).rotation))
        .fold(0.0f32, f32::max);
    (worst, animation_bound(&losses))
}

#[test]
fn an10_rotation_bound_allows_for_renormalization() {
    // i16 / 32767: half a step is h = 0.5 / 32767 per stored component; renormalizing
    // can move a component by up to 2h more (|q'| is within 2h of 1).
    let h = 0.5 / 32767.0;
    let (worst, bound) = worst_rotation_error(TargetVersion::An10);
    assert!(close(bound, 3.0 * h, 1e-4), "bound {bound}");
    assert!(worst <= bound, "error {worst} > bound {bound}");
    // The bound is that of plain rounding; the writer picks the i16 vector nearest in
    // direction (snorm16::encode_direction), which on these 3000 rotations stays
    // within half a step (0.998 h), where plain rounding went past it.
    assert!(worst <= 1.05 * h, "direction search: {worst} > {h}");
}

#[test]
fn as08_rotation_bound_allows_for_renormalization() {
    // u / 65535 * 2 - 1: half a step is h = 1 / 65535; renormalized, up to 3h.
    let h = 1.0 / 65535.0;
    let (worst, bound) = worst_rotation_error(TargetVersion::As08);
    assert!(close(bound, 3.0 * h, 1e-4), "bound {bound}");
    assert!(
        worst > h,
        "renormalized rotations exceed half a step: {worst}"
    );
    assert!(worst <= bound, "error {worst} > bound {bound}");
}

#[test]
fn an11_default_tracks_stay_the_default_not_the_bind_pose() {
    // Every frame holds the defaults (no translation, no rotation, unit scale) while the
    // bind pose holds none of them: omitting them all would leave no track to read, and
    // the bone would rest in its bind pose.
    let rest = Transform {
        translation: Vec3::new(1.0, 2.0, 3.0),
        rotation: Quat::from_rotation_z(0.5),
        scale: Vec3::splat(2.0),
    };
    let model = one_bone(
        rest,
        CoordinateSystem::Z_UP_RIGHT,
        Channel {
            bone: 0,
            translation: track(&[Vec3::ZERO; 3]),
            rotation: track(&[Quat::IDENTITY; 3]),
            scale: track(&[Vec3::ONE; 3]),
        },
    );
    let conv = AnimFile::from_core_with(
        &model,
        &unigine_anim::WriteOptions {
            version: TargetVersion::An11,
            fps: FPS,
            ..Default::default()
        },
    )
    .unwrap();
    let AnimFile::An11(file) = &conv.value else {
        panic!("{}", conv.value.version())
    };
    // Frame 0 keeps each component (the defaults, stored); later frames omit them.
    assert_eq!(file.keys.len(), 3);
    assert_eq!(file.keys[0].position, Some([0.0; 3]));
    assert_eq!(file.keys[0].rotation, Some([0.0, 0.0, 0.0, 1.0]));
    assert_eq!(file.keys[0].scale, Some([1.0; 3]));
    assert!(file.keys[1..].iter().all(|k| k.flags() == 0));
    let (back, _) = round_trip(&model, TargetVersion::An11);
    for f in 0..3 {
        assert_eq!(pose(&back, f), Transform::IDENTITY, "frame {f}");
    }
}

#[test]
fn an11_default_tracks_over_a_default_bind_pose_are_still_omitted() {
    // The bind pose is the default too: the reader's fallback is already right.
    let model = one_bone(
        Transform::IDENTITY,
        CoordinateSystem::Z_UP_RIGHT,
        Channel {
            bone: 0,
            rotation: track(&[Quat::IDENTITY; 3]),
            ..Channel::default()
        },
    );
    let conv = AnimFile::from_core_with(
        &model,
        &unigine_anim::WriteOptions {
            version: TargetVersion::An11,
            fps: FPS,
            ..Default::default()
        },
    )
    .unwrap();
    let AnimFile::An11(file) = &conv.value else {
        panic!("{}", conv.value.version())
    };
    assert!(file.keys.iter().all(|k| k.flags() == 0));
    let (back, _) = round_trip(&model, TargetVersion::An11);
    assert_eq!(pose(&back, 2), Transform::IDENTITY);
}
