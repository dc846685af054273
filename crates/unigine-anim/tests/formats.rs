//! as08 by hand (no public sample), an10 bad input, and meshfmt-core round trips of the
//! canonical skinned arm.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::glam::Quat;
use meshfmt_core::{Feature, LossKind, canonical};
use parsing_primitives::ErrorKind;
use test_support::{ByteBuilder, Rng, assert_flips_never_panic, assert_truncations_fail};
use unigine_anim::as08::{As08Key, FLAG_BITS};
use unigine_anim::{AnimFile, Error, TargetVersion, read};

#[test]
fn as08_flag_bits_are_the_documented_assumption() {
    // Bit i marks the i-th listed component: Tx, Ty, Tz, S, Qx, Qy, Qz, Qw.
    assert_eq!(FLAG_BITS, [1, 2, 4, 8, 16, 32, 64, 128]);
    let mut k = As08Key::default();
    k.values[3] = Some(7); // scale
    k.values[7] = Some(9); // Qw
    assert_eq!(k.flags(), 0x88);
}

fn as08() -> ByteBuilder {
    ByteBuilder::new()
        .bytes(b"as08", "magic")
        .i32_le(2, "num_bones")
        .i32_le(5, "name length incl. NUL")
        .bytes(b"root\0", "bone 0")
        .i32_le(-1, "parent: root")
        .i32_le(5, "name length")
        .bytes(b"hand\0", "bone 1")
        .i32_le(0, "parent")
        .f32s_le(&[-1.0, 0.0, 0.0, 1.0], "min: translation xyz, scale")
        .f32s_le(&[2.0, 1.0, 0.0, 0.0], "size")
        .i32_le(2, "num_frames")
        .u8(0xff, "frame 0, bone 0: all 8 components")
        .bytes(
            &[
                0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x7f, 0x80, 0x7f, 0x80, 0x7f, 0xff, 0xff,
            ],
            "Tx=-1, Ty=0, Tz=0, S=1, Q=(~0,~0,~0,1)",
        )
        .u8(0xff, "frame 0, bone 1")
        .bytes(
            &[
                0xff, 0xff, 0, 0, 0, 0, 0, 0, 0x80, 0x7f, 0x80, 0x7f, 0x80, 0x7f, 0xff, 0xff,
            ],
            "Tx=+1",
        )
        .u8(0x00, "frame 1, bone 0: nothing changes")
        .u8(0x02, "frame 1, bone 1: Ty only")
        .u16_le(65535, "Ty = 0 + 1 * 65535/65535 = 1")
}

#[test]
fn as08_by_hand() {
    let b = as08();
    let bytes = b.build();
    let AnimFile::As08(a) = read(&bytes).unwrap() else {
        panic!()
    };
    assert_eq!(a.num_frames, 2);
    assert_eq!(a.frame(1)[1].values[1], Some(65535));
    assert_eq!(a.decode(0, 65535), 1.0); // -1 + 2 * 1
    assert_eq!(a.decode(7, 65535), 1.0); // quaternion: u / 65535 * 2 - 1
    assert_eq!(
        AnimFile::As08(a.clone()).write().unwrap(),
        bytes,
        "\n{}",
        b.listing()
    );
    assert_truncations_fail(&bytes, read);
    // Through meshfmt-core: frame 1 moves the hand to (1, 1, 0); the root stays.
    let m = a.to_core().unwrap().value; // 30 frames per second by default
    let clip = &m.animations[0];
    let pose = clip.sample(&m.skeleton, 1.0 / 30.0);
    assert_eq!(pose.locals[1].translation.to_array(), [1.0, 1.0, 0.0]);
    assert_eq!(pose.locals[0].translation.to_array(), [-1.0, 0.0, 0.0]);
    assert!(pose.locals[1].rotation.dot(Quat::IDENTITY) > 0.9999);
}

fn an10_arm() -> Vec<u8> {
    let model = canonical::skinned_arm();
    AnimFile::from_core_with(
        &model,
        &unigine_anim::WriteOptions {
            version: TargetVersion::An10,
            fps: 30.0,
            ..Default::default()
        },
    )
    .unwrap()
    .value
    .write()
    .unwrap()
}

fn decode_err(bytes: &[u8]) -> parsing_primitives::Error {
    match read(bytes) {
        Err(Error::Decode(e)) => e,
        other => panic!("expected a decode error, got {other:?}"),
    }
}

#[test]
fn an10_bad_input() {
    let bytes = an10_arm();
    assert_truncations_fail(&bytes, read);
    assert_flips_never_panic(&bytes, 2000, read);
    // Layout of this file: magic, bounds (40), num_bones 2, "shoulder" and "elbow" with
    // parents, 1 animation "bend", marker 2.
    let marker2 = 4 + 40 + 1 + (1 + 9 + 2) + (1 + 6 + 2) + 1 + (1 + 5);
    assert_eq!(&bytes[marker2..marker2 + 4], b"an10");
    let mut bad = bytes.clone();
    bad[marker2 + 1] = b'x';
    let e = decode_err(&bad);
    assert_eq!((e.offset(), e.path()), (marker2 as u64, "marker2"));
    // A parent out of range.
    let parent_of_elbow = 4 + 40 + 1 + 12 + 1 + 6;
    let mut bad = bytes.clone();
    bad[parent_of_elbow] = 5;
    let e = decode_err(&bad);
    assert!(
        e.to_string().contains("parent 5 out of range (2 bones)"),
        "{e}"
    );
    // An animated bone index out of range.
    let anim = marker2 + 4 + 2 * 40;
    assert_eq!(bytes[anim], 1, "one animated bone (the elbow)");
    let mut bad = bytes.clone();
    bad[anim + 1] = 2;
    let e = decode_err(&bad);
    assert_eq!(e.offset(), anim as u64 + 1);
    assert!(e.to_string().contains("bone 2 out of range"), "{e}");
    // A rotation component of -32768 (outside -32767..=32767).
    let first_key = anim + 1 + 2 + 48 + 1 + 1;
    let flags = bytes[first_key];
    assert_eq!(flags & 0x08, 0x08, "frame 0 stores the rotation");
    let rot = first_key + 1 + 2 * (flags & 7).count_ones() as usize;
    let mut bad = bytes.clone();
    bad[rot..rot + 2].copy_from_slice(&i16::MIN.to_le_bytes());
    let e = decode_err(&bad);
    assert_eq!(e.offset(), rot as u64);
    // A hostile frame count.
    let mut bad = bytes.clone();
    bad.splice(first_key - 1..first_key, [0xbf, 0xff, 0xff, 0x7f]);
    let e = decode_err(&bad);
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountTooLarge { .. } | ErrorKind::InvalidValue { .. }
        ),
        "{e}"
    );
    // Newer versions are named.
    assert_eq!(
        read(b"an13\x01\x02\x03").unwrap_err().to_string(),
        "unigine-anim: unsupported UNIGINE animation version an13"
    );
    let mut rng = Rng::new(3);
    for i in 0..2000 {
        let mut b = [b"an10", b"as08"][i % 2].to_vec();
        let n = rng.below(120) as usize;
        b.extend(rng.bytes(n));
        let _ = read(&b);
    }
}

#[test]
fn canonical_arm_through_both_versions() {
    let model = canonical::skinned_arm();
    for version in [TargetVersion::An10, TargetVersion::As08] {
        let conv = AnimFile::from_core_with(
            &model,
            &unigine_anim::WriteOptions {
                version,
                fps: 30.0,
                ..Default::default()
            },
        )
        .unwrap();
        let bound = conv
            .losses
            .iter()
            .find_map(|l| match l.kind {
                LossKind::Quantized { max_error } if l.feature == Feature::Animation => {
                    Some(max_error)
                }
                _ => None,
            })
            .unwrap();
        assert!(
            conv.losses
                .iter()
                .any(|l| l.feature == Feature::Geometry && l.kind == LossKind::Dropped)
        );
        let bytes = conv.value.write().unwrap();
        let mut back = read(&bytes).unwrap().to_core().unwrap().value;
        back.convert_to(model.coordinate_system);
        let (a, b) = (&model.animations[0], &back.animations[0]);
        // Compare poses at every frame time: within the reported bound.
        for f in 0..=30 {
            let t = f as f32 / 30.0;
            let (pa, pb) = (a.sample(&model.skeleton, t), b.sample(&back.skeleton, t));
            for (x, y) in pa.locals.iter().zip(&pb.locals) {
                assert!(
                    (x.translation - y.translation).abs().max_element() <= bound + 1e-6,
                    "{version:?} t={t}"
                );
                let q = if x.rotation.dot(y.rotation) < 0.0 {
                    -y.rotation
                } else {
                    y.rotation
                };
                let e = (x.rotation - q).length();
                assert!(e <= 4.0 * bound + 1e-4, "{version:?} t={t}: rotation {e}");
            }
        }
    }
}
