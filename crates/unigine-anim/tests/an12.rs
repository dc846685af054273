//! an12 by hand (documented only, no real file exists): a field-by-field fixture, its
//! values, byte-identical rewrite, bad input, and meshfmt-core round trips.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::glam::{Quat, Vec3};
use meshfmt_core::{CoordinateSystem, Feature, LossKind, canonical};
use test_support::{ByteBuilder, assert_flips_never_panic, assert_truncations_fail};
use unigine_anim::an11::An11Key;
use unigine_anim::{AnimFile, TargetVersion, read, sniff};

/// Two joints, one animated (joint 1), 24 fps, root motion on, two frames.
fn fixture() -> ByteBuilder {
    ByteBuilder::new()
        .bytes(b"an12", "magic")
        .i32_le(2, "num_joints (int32)")
        .u8(5, "compact name length 5 incl. NUL")
        .bytes(b"root\0", "joint 0 name")
        .i16_le(-1, "joint 0 parent: none")
        .u8(5, "compact name length 5")
        .bytes(b"hand\0", "joint 1 name")
        .i16_le(0, "joint 1 parent: root")
        .i32_le(2, "skeleton GUID length (int32) 2 incl. NUL")
        .bytes(b"g\0", "skeleton GUID")
        .i32_le(11, "skeleton path length (int32) 11 incl. NUL")
        .bytes(b"a.skeleton\0", "skeleton path")
        .u8(1, "compact num_animated = 1")
        .i16_le(1, "animated joint 0 = joint 1")
        .i32_le(24, "fps (int32)")
        .u8(1, "root motion: true")
        .bytes(b"an12", "marker 2")
        .u8(2, "compact num_frames = 2")
        .u8(3, "frame 0 joint 1 flags: position + rotation")
        .f32s_le(&[1.0, 2.0, 3.0], "position")
        .f32s_le(&[0.0, 0.0, 0.0, 1.0], "rotation")
        .u8(4, "frame 1 joint 1 flags: scale")
        .f32s_le(&[2.0, 2.0, 2.0], "scale")
        .bytes(b"an12", "marker 3")
}

#[test]
fn fixture_reads_by_hand_and_rewrites_identically() {
    let bytes = fixture().build();
    assert!(sniff(&bytes));
    let file = read(&bytes).unwrap_or_else(|e| panic!("{e}\n{}", fixture().listing()));
    assert_eq!(file.version(), "an12");
    let AnimFile::An12(a) = &file else {
        panic!("not an12")
    };
    assert_eq!(a.joints.len(), 2);
    assert_eq!(a.joints[0].name.as_bytes(), b"root");
    assert_eq!(a.joints[0].parent, -1);
    assert_eq!(a.joints[1].name.as_bytes(), b"hand");
    assert_eq!(a.joints[1].parent, 0);
    assert_eq!(a.skeleton_guid.as_bytes(), b"g");
    assert_eq!(a.skeleton_path.as_bytes(), b"a.skeleton");
    assert_eq!(a.anim_bones, vec![1]);
    assert_eq!(a.fps, 24);
    assert!(a.root_motion);
    assert_eq!(a.num_frames, 2);
    assert_eq!(
        a.frame(0),
        &[An11Key {
            position: Some([1.0, 2.0, 3.0]),
            rotation: Some([0.0, 0.0, 0.0, 1.0]),
            scale: None,
        }]
    );
    assert_eq!(
        a.frame(1),
        &[An11Key {
            position: None,
            rotation: None,
            scale: Some([2.0, 2.0, 2.0]),
        }]
    );
    assert_eq!(file.write().unwrap(), bytes);

    // to_core uses the stored 24 fps whatever the caller passes; unflagged = defaults.
    let conv = file.to_core().unwrap();
    let m = &conv.value;
    assert_eq!(m.skeleton.len(), 2);
    assert_eq!(m.skeleton.bones[1].parent, Some(0));
    let c = &m.animations[0].channels[0];
    assert_eq!(c.bone, 1);
    assert_eq!(c.translation.times, vec![0.0, 1.0 / 24.0]);
    assert_eq!(
        c.translation.values,
        vec![Vec3::new(1.0, 2.0, 3.0), Vec3::ZERO]
    );
    assert_eq!(c.scale.values, vec![Vec3::ONE, Vec3::splat(2.0)]);
    assert_eq!(c.rotation.values, vec![Quat::IDENTITY, Quat::IDENTITY]);
    // The skeleton reference and root motion have no place in the core model.
    assert!(conv.losses.iter().any(|l| l.feature == Feature::Skeleton));
    assert!(conv.losses.iter().any(|l| l.feature == Feature::Animation));
}

#[test]
fn every_truncation_fails_and_flips_never_panic() {
    let bytes = fixture().build();
    assert_truncations_fail(&bytes, read);
    assert_flips_never_panic(&bytes, 200, read);
}

#[test]
fn hostile_counts_fail_without_allocating() {
    // num_joints = 0x7fffffff (int32) in a 12-byte file.
    let b = ByteBuilder::new()
        .bytes(b"an12", "magic")
        .i32_le(0x7fff_ffff, "num_joints")
        .bytes(b"an12", "junk")
        .build();
    assert!(read(&b).is_err());
    // A skeleton GUID length of 0x7fffffff.
    let b = ByteBuilder::new()
        .bytes(b"an12", "magic")
        .i32_le(0, "num_joints")
        .i32_le(0x7fff_ffff, "skeleton GUID length")
        .build();
    assert!(read(&b).is_err());
    // num_frames = 0x7fffffff as a compact int (ff ff ff ff 07) with one animated joint.
    let mut b = fixture().build();
    let at = b.len() - 4 - (1 + 28) - (1 + 12) - 1;
    assert_eq!(b[at], 2, "num_frames byte");
    b.splice(at..at + 1, [0xbf, 0xff, 0xff, 0xff, 0x0f]);
    assert!(read(&b).is_err());
}

#[test]
fn bad_values_are_errors() {
    // root motion byte 2
    let mut b = fixture().build();
    // magic, num_joints, 2 joints, GUID (4+2), path (4+11), num_animated, index, fps
    let rm = 4 + 4 + 8 + 8 + 4 + 2 + 4 + 11 + 1 + 2 + 4;
    assert_eq!(b[rm], 1);
    b[rm] = 2;
    assert!(read(&b).unwrap_err().to_string().contains("root motion"));
    // animated joint 2 of 2
    let mut b = fixture().build();
    let ai = rm - 4 - 2;
    b[ai] = 2;
    assert!(read(&b).is_err());
    // unknown version
    assert_eq!(
        read(b"an13\x00").unwrap_err().to_string(),
        "unigine-anim: unsupported UNIGINE animation version an13"
    );
}

#[test]
fn core_round_trip_through_an12() {
    let model = canonical::skinned_arm();
    let conv = AnimFile::from_core_with(
        &model,
        &unigine_anim::WriteOptions {
            version: TargetVersion::An12,
            fps: 30.0,
            ..Default::default()
        },
    )
    .unwrap();
    // The elbow's rest translation cannot be stored (no bind pose in an12).
    assert!(
        conv.losses
            .iter()
            .any(|l| l.feature == Feature::Skeleton && l.kind == LossKind::Dropped)
    );
    let bytes = conv.value.write().unwrap();
    assert_eq!(&bytes[..4], b"an12");
    let file = read(&bytes).unwrap();
    assert_eq!(file.write().unwrap(), bytes);
    let AnimFile::An12(a) = &file else {
        panic!("not an12")
    };
    assert_eq!(a.fps, 30);
    assert_eq!(a.joints.len(), 2);
    // 0..=1 s at 30 fps = 31 frames.
    assert_eq!(a.num_frames, 31);
    // to_core with a different fallback still uses the stored 30.
    let mut back = file
        .to_core_with(&unigine_anim::CoreOptions {
            fps: 5.0,
            ..Default::default()
        })
        .unwrap()
        .value;
    back.convert_to(CoordinateSystem::GLTF);
    assert_eq!(back.skeleton.bones[0].name, "shoulder");
    assert_eq!(back.skeleton.bones[1].name, "elbow");
    assert_eq!(back.skeleton.bones[1].parent, Some(0));
    let c = back.animations[0]
        .channels
        .iter()
        .find(|c| c.bone == 1)
        .unwrap();
    assert_eq!(c.rotation.times.len(), 31);
    assert!((c.rotation.times[30] - 1.0).abs() < 1e-6);
    let last = c.rotation.values[30];
    let want = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    assert!(last.dot(want).abs() > 0.9999, "{last:?}");
    assert!((c.translation.values[15] - Vec3::X).length() < 1e-5);

    // A fractional rate is stored rounded and reported.
    let conv = AnimFile::from_core_with(
        &model,
        &unigine_anim::WriteOptions {
            version: TargetVersion::An12,
            fps: 29.97,
            ..Default::default()
        },
    )
    .unwrap();
    let AnimFile::An12(a) = &conv.value else {
        panic!("not an12")
    };
    assert_eq!(a.fps, 30);
    assert!(
        conv.losses
            .iter()
            .any(|l| l.feature == Feature::Animation && l.kind == LossKind::Reduced)
    );
    assert!(
        AnimFile::from_core_with(
            &model,
            &unigine_anim::WriteOptions {
                version: TargetVersion::An12,
                fps: 0.0,
                ..Default::default()
            }
        )
        .is_err()
    );
}
