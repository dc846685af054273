//! sn10 `.skeleton` by hand (documented only, no real file exists): a field-by-field
//! fixture, its values, byte-identical rewrite, bad input, meshfmt-core round trips.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::glam::Vec3;
use meshfmt_core::{CoordinateSystem, Feature, canonical};
use test_support::{ByteBuilder, assert_flips_never_panic, assert_truncations_fail};
use unigine_mesh::sn10::{JointProfile, RetargetEntry};
use unigine_mesh::{MeshFile, TargetVersion, WriteOptions, read, sniff};

const IDENTITY: [f32; 10] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];
const HAND: [f32; 10] = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];

fn fixture() -> ByteBuilder {
    ByteBuilder::new()
        .bytes(b"sn10", "0x00 magic")
        .i32_le(2, "0x04 num_joints (int32)")
        .bytes(b"\x05root\0", "0x08 joint 0 name (compact length 5)")
        .i16_le(-1, "0x0e joint 0 parent")
        .bytes(b"\x05hand\0", "0x10 joint 1 name")
        .i16_le(0, "0x16 joint 1 parent")
        .f32s_le(&IDENTITY, "0x18 bind pose joint 0: identity")
        .f32s_le(&HAND, "0x40 bind pose joint 1: position (1,0,0)")
        .bytes(b"sn10", "0x68 marker 2")
        .i32_le(1, "0x6c num_blend_masks")
        .i32_le(6, "0x70 name length (int32) 6 incl. NUL")
        .bytes(b"upper\0", "0x74 mask name")
        .i32_le(2, "0x7a num influences")
        .f32s_le(&[0.0, 1.0], "0x7e influences")
        .i32_le(0, "0x86 num_blend_time_profiles")
        .i32_le(1, "0x8a num_blend_weight_profiles")
        .i32_le(2, "0x8e name length 2")
        .bytes(b"w\0", "0x92 profile name")
        .i32_le(1, "0x94 num scales")
        .f32_le(0.5, "0x98 scale")
        .i32_le(2, "0x9c num_retarget_entries")
        .i32_le(1, "0xa0 entry 0 mode: bind")
        .f32_le(-1.0, "0xa4 entry 0 length: default")
        .i32_le(2, "0xa8 entry 1 mode: proportion")
        .f32_le(0.5, "0xac entry 1 length")
        .bytes(b"sn10", "0xb0 marker 3")
}

#[test]
fn fixture_reads_by_hand_and_rewrites_identically() {
    let bytes = fixture().build();
    assert_eq!(bytes.len(), 0xb4);
    assert!(sniff(&bytes));
    let file = read(&bytes).unwrap_or_else(|e| panic!("{e}\n{}", fixture().listing()));
    assert_eq!(file.version(), "sn10");
    let MeshFile::Sn10(s) = &file else {
        panic!("not sn10")
    };
    assert_eq!(s.joints.len(), 2);
    assert_eq!(s.joints[0].name.as_bytes(), b"root");
    assert_eq!(s.joints[0].parent, -1);
    assert_eq!(s.joints[1].name.as_bytes(), b"hand");
    assert_eq!(s.joints[1].parent, 0);
    assert_eq!(s.bind_pose[0].to_array(), IDENTITY);
    assert_eq!(s.bind_pose[1].to_array(), HAND);
    assert_eq!(
        s.blend_masks,
        vec![JointProfile {
            name: "upper".into(),
            values: vec![0.0, 1.0]
        }]
    );
    assert!(s.blend_time_profiles.is_empty());
    assert_eq!(s.blend_weight_profiles[0].name.as_bytes(), b"w");
    assert_eq!(s.blend_weight_profiles[0].values, vec![0.5]);
    assert_eq!(
        s.retarget,
        vec![
            RetargetEntry {
                mode: 1,
                length: -1.0
            },
            RetargetEntry {
                mode: 2,
                length: 0.5
            }
        ]
    );
    assert_eq!(file.write().unwrap(), bytes);

    let c = file.to_core().unwrap();
    let m = &c.value;
    assert!(m.surfaces.is_empty());
    assert_eq!(m.skeleton.len(), 2);
    assert_eq!(m.skeleton.bones[1].name, "hand");
    assert_eq!(m.skeleton.bones[1].parent, Some(0));
    assert_eq!(m.skeleton.bones[1].rest.translation, Vec3::X);
    assert!(c.losses.iter().any(|l| l.feature == Feature::Animation));
    assert!(c.losses.iter().any(|l| l.feature == Feature::Skeleton));
}

#[test]
fn every_truncation_fails_and_flips_never_panic() {
    let bytes = fixture().build();
    assert_truncations_fail(&bytes, read);
    assert_flips_never_panic(&bytes, 200, read);
}

#[test]
fn hostile_counts_fail_without_allocating() {
    let bytes = fixture().build();
    for at in [0x04, 0x6c, 0x70, 0x7a, 0x86, 0x8a, 0x94, 0x9c] {
        let mut b = bytes.clone();
        b[at..at + 4].copy_from_slice(&0x7fff_ffffi32.to_le_bytes());
        assert!(read(&b).is_err(), "count at {at:#x}");
    }
    // Negative counts are errors too.
    let mut b = bytes.clone();
    b[0x6c..0x70].copy_from_slice(&(-1i32).to_le_bytes());
    assert!(read(&b).unwrap_err().to_string().contains("negative"));
    // A parent out of range.
    let mut b = bytes;
    b[0x16] = 2;
    assert!(read(&b).unwrap_err().to_string().contains("parent"));
}

#[test]
fn core_round_trip_through_sn10() {
    let model = canonical::skinned_arm();
    let c = MeshFile::from_core_with(
        &model,
        &WriteOptions {
            version: TargetVersion::Sn10,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(c.losses.iter().any(|l| l.feature == Feature::Geometry));
    let bytes = c.value.write().unwrap();
    assert_eq!(&bytes[..4], b"sn10");
    let file = read(&bytes).unwrap();
    assert_eq!(file.write().unwrap(), bytes);
    let MeshFile::Sn10(s) = &file else {
        panic!("not sn10")
    };
    // One default retarget entry per joint (mode 0, length -1).
    assert_eq!(
        s.retarget,
        vec![
            RetargetEntry {
                mode: 0,
                length: -1.0
            };
            2
        ]
    );
    let mut back = file.to_core().unwrap().value;
    back.convert_to(CoordinateSystem::GLTF);
    assert_eq!(back.skeleton.bones[0].name, "shoulder");
    assert_eq!(back.skeleton.bones[1].name, "elbow");
    assert_eq!(back.skeleton.bones[1].parent, Some(0));
    let t = back.skeleton.bones[1].rest.translation;
    assert!((t - Vec3::X).length() < 1e-6, "{t}");
}
