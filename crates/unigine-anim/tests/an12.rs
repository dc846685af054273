//! an12 from the official page (specs/unigine-current/animations_formats.md): a file
//! assembled field by field, read, checked value by value, rewritten byte for byte;
//! conversion both ways; truncations.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use unigine_anim::{AnimFile, TargetVersion, read};

fn hand_made() -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(b"an12"); // 1. magic
    b.extend_from_slice(&2i32.to_le_bytes()); // 2. num source joints (int32)
    b.extend_from_slice(&[5, b'r', b'o', b'o', b't', 0]); // 3. name: compact length 5 incl. NUL
    b.extend_from_slice(&(-1i16).to_le_bytes()); //    parent -1
    b.extend_from_slice(&[4, b'a', b'r', b'm', 0]); //    "arm"
    b.extend_from_slice(&0i16.to_le_bytes()); //    parent 0
    b.extend_from_slice(&5i32.to_le_bytes()); // 4. GUID: int32 length 5 incl. NUL
    b.extend_from_slice(b"abcd\0");
    b.extend_from_slice(&7i32.to_le_bytes()); //    path: int32 length 7
    b.extend_from_slice(b"a.skel\0");
    b.push(1); // 5. num animated joints (compact int)
    b.extend_from_slice(&1i16.to_le_bytes()); // 6. joint index 1 ("arm")
    b.extend_from_slice(&24i32.to_le_bytes()); // 7. fps (int32)
    b.push(1); // 8. root motion (bool)
    b.extend_from_slice(b"an12"); // 9. magic
    b.push(2); // 10. num frames (compact int)
    // 11. frame 0: position only (flag 1); frame 1: rotation only (flag 2).
    b.push(1);
    for v in [1.0f32, 2.0, 3.0] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.push(2);
    for v in [
        0.0f32,
        0.0,
        std::f32::consts::FRAC_1_SQRT_2,
        std::f32::consts::FRAC_1_SQRT_2,
    ] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(b"an12"); // 12. magic
    b
}

#[test]
fn hand_made_file_reads_and_rewrites() {
    let bytes = hand_made();
    let AnimFile::An12(a) = read(&bytes).unwrap() else {
        panic!("not an12")
    };
    assert_eq!(a.bones.len(), 2);
    assert_eq!(a.bones[1].name.as_bytes(), b"arm");
    assert_eq!(a.bones[1].parent, 0);
    assert_eq!(a.skeleton_guid.as_bytes(), b"abcd");
    assert_eq!(a.skeleton_path.as_bytes(), b"a.skel");
    assert_eq!(a.anim_bones, [1]);
    assert_eq!((a.fps, a.root_motion, a.num_frames), (24, 1, 2));
    assert_eq!(a.keys[0].position, Some([1.0, 2.0, 3.0]));
    assert_eq!(a.keys[0].rotation, None);
    assert_eq!(a.keys[1].position, None);
    assert_eq!(AnimFile::An12(a.clone()).write().unwrap(), bytes);
    // to_core: the stored 24 fps wins over the 30 asked for; frame 1 is at 1/24 s, and
    // the unflagged position of frame 1 is the default zero (as in an11).
    let core = AnimFile::An12(a).to_core(30.0).unwrap();
    assert!(
        core.losses
            .iter()
            .any(|l| l.to_string().contains("no bind pose"))
    );
    let clip = &core.value.animations[0];
    let ch = &clip.channels[0];
    assert_eq!(ch.bone, 1);
    assert_eq!(ch.translation.times, [0.0, 1.0 / 24.0]);
    assert_eq!(ch.translation.values[1].to_array(), [0.0, 0.0, 0.0]);
    assert!((ch.rotation.values[1].z - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-7);
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = hand_made();
    for n in 0..bytes.len() {
        assert!(read(&bytes[..n]).is_err(), "{n}");
    }
    // A hostile joint count fails before allocating.
    let mut b = b"an12".to_vec();
    b.extend_from_slice(&0x7fff_ffffi32.to_le_bytes());
    b.extend_from_slice(&[0; 12]);
    assert!(read(&b).is_err());
}

#[test]
fn core_round_trip_through_an12() {
    let model = meshfmt_core::canonical::skinned_arm3();
    let c = AnimFile::from_core(&model, TargetVersion::An12, 30.0).unwrap();
    let bytes = c.value.write().unwrap();
    assert_eq!(&bytes[..4], b"an12");
    let back = read(&bytes).unwrap();
    assert_eq!(back.write().unwrap(), bytes);
    let AnimFile::An12(a) = back else { panic!() };
    assert_eq!(a.fps, 30);
    assert_eq!(a.bones.len(), 3);
    // Same keys as an11 from the same model.
    let AnimFile::An11(b) = AnimFile::from_core(&model, TargetVersion::An11, 30.0)
        .unwrap()
        .value
    else {
        panic!()
    };
    assert_eq!(a.keys, b.keys);
    assert_eq!(a.anim_bones, b.anim_bones);
}
