//! Derived data stays true on write (issue 16): the an10 animation flag byte is the OR
//! of its keys' flags. A key storing a component the byte does not announce still
//! reaches meshfmt-core (the disagreement is a reported loss, never a silent drop) and
//! the writer stores the OR; keys on a box that cannot decode them are rejected.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::glam::Vec3;
use meshfmt_core::{Feature, LossKind, canonical};
use unigine_anim::an10::{EMPTY_BOX, QuantBox};
use unigine_anim::{An10, AnimFile, TargetVersion, read};

fn an10() -> An10 {
    let model = canonical::skinned_arm();
    match AnimFile::from_core_with(
        &model,
        &unigine_anim::WriteOptions {
            version: TargetVersion::An10,
            fps: 30.0,
            ..Default::default()
        },
    )
    .unwrap()
    .value
    {
        AnimFile::An10(a) => a,
        other => panic!("{}", other.version()),
    }
}

#[test]
fn a_scale_key_the_flag_byte_does_not_announce_still_converts_and_is_written() {
    let mut file = an10();
    let a = &mut file.animations[0];
    let stored = a.flags;
    assert_eq!(stored, a.key_flags(), "from_core writes the OR");
    assert_eq!(stored & 0x70, 0, "the arm's clip does not scale");
    // Scale box 1..2 on every axis; frame 0 of the first bone stores u = 65535 on
    // each: 1 + 1 * 65535 / 65535 = 2. The flag byte is left as it was.
    a.boxes.scale = QuantBox {
        min: [1.0; 3],
        size: [1.0; 3],
    };
    a.keys[0].scale = [Some(65535); 3];
    let bone = a.bones[0] as usize;
    let frames = a.num_frames as usize;

    let conv = AnimFile::An10(file.clone()).to_core().unwrap();
    let clip = &conv.value.animations[0];
    let ch = clip.channels.iter().find(|c| c.bone == bone).unwrap();
    // Present, one key per frame, every value carried forward from frame 0.
    assert_eq!(ch.scale.values.len(), frames);
    assert!(ch.scale.values.iter().all(|s| *s == Vec3::splat(2.0)));
    // The disagreement is reported, naming both values.
    let keys = stored | 0x70;
    let loss = conv
        .losses
        .iter()
        .find(|l| l.path == "animations[0].flags")
        .unwrap();
    assert_eq!(
        (loss.feature, &loss.kind),
        (Feature::Animation, &LossKind::Dropped)
    );
    assert!(
        loss.reason.contains(&format!("{stored:#04x}"))
            && loss.reason.contains(&format!("{keys:#04x}")),
        "{}",
        loss.reason
    );

    // The writer stores the OR of the keys' flags.
    let AnimFile::An10(back) = read(&file.write().unwrap()).unwrap() else {
        panic!()
    };
    assert_eq!(back.animations[0].flags, keys);
    // An agreeing byte is no loss.
    let again = AnimFile::An10(back).to_core().unwrap();
    assert!(again.losses.iter().all(|l| !l.path.ends_with(".flags")));
}

#[test]
fn a_flag_byte_announcing_more_than_the_keys_is_reported_and_rewritten() {
    let mut file = an10();
    let keys = file.animations[0].key_flags();
    assert_eq!(keys & 0x70, 0);
    file.animations[0].flags = keys | 0x70; // claims scale the keys never store
    let conv = AnimFile::An10(file.clone()).to_core().unwrap();
    assert!(conv.losses.iter().any(|l| l.path == "animations[0].flags"));
    let AnimFile::An10(back) = read(&file.write().unwrap()).unwrap() else {
        panic!()
    };
    assert_eq!(back.animations[0].flags, keys);
}

#[test]
fn keys_on_a_box_that_cannot_decode_them_are_rejected() {
    let file = an10();
    // The arm does not scale: its scale box is the empty sentinel (min 1e9, size
    // -2e9), fine while no key stores a scale ...
    assert_eq!(file.animations[0].boxes.scale, EMPTY_BOX);
    assert!(file.problems().is_empty());
    // ... but a scale key there would decode to about 1e9.
    let mut bad = file.clone();
    bad.animations[0].keys[1].scale[2] = Some(0);
    let problems = bad.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].path, "animations[0]");
    let err = problems[0].to_string();
    assert!(err.contains("scale keys on axis 2"), "{err}");
    assert!(bad.write().is_err());
    // A NaN size on a translation axis the keys use is refused the same way.
    let mut bad = file.clone();
    assert!(
        bad.animations[0]
            .keys
            .iter()
            .any(|k| k.translation[1].is_some())
    );
    bad.animations[0].boxes.translation.size[1] = f32::NAN;
    let err = bad.write().unwrap_err().to_string();
    assert!(
        err.contains("animations[0]: translation keys on axis 1"),
        "{err}"
    );
}
