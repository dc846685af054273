//! Memory and time (issue 16): every operation draws on one budget; dense values made
//! from one-byte keys and resampled frames are refused under a small limit with an
//! OverBudget error naming what was being built; frame counts without bones cost
//! nothing; the clip's bone list is built in linear time. Inputs are hand-built faithful
//! values or models, written to bytes where a read is tested.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use meshfmt_core::glam::{Quat, Vec3};
use meshfmt_core::{Bone, Budget, Channel, Clip, Limits, Model, Skeleton, Track, Transform};
use parsing_primitives::ErrorKind;
use unigine_anim::an10::{Animation, BoneInfo, EMPTY_BOUNDS, EMPTY_BOX, Key};
use unigine_anim::an11::{An11, An11Key};
use unigine_anim::as08::{As08Bone, As08Key};
use unigine_anim::{
    An10, An12, AnimFile, As08, CoreOptions, Error, Frames, ReadOptions, TargetVersion,
    WriteOptions, read, read_with,
};

const MIB: u64 = 1 << 20;

fn limits(bytes: u64) -> Limits {
    Limits {
        max_alloc_bytes: bytes,
        ..Limits::DEFAULT
    }
}

/// What an OverBudget error (from a read or a conversion) was building.
fn over_budget(e: &Error) -> Option<&'static str> {
    match e {
        Error::OverBudget(b) => Some(b.what),
        Error::Decode(d) => match d.kind() {
            ErrorKind::OverBudget(b) => Some(b.what),
            _ => None,
        },
        _ => None,
    }
}

fn read_under(bytes: &[u8], budget: &Budget) -> Result<AnimFile, Error> {
    read_with(
        bytes,
        &ReadOptions {
            budget: budget.clone(),
        },
    )
}

/// Reads and converts `bytes` under one budget of what the read alone uses plus
/// `slack`: the conversion's own allocations must be refused.
fn to_core_after_read(bytes: &[u8], slack: u64) -> Error {
    let probe = Budget::default();
    read_under(bytes, &probe).unwrap();
    let budget = Budget::new(limits(probe.used() + slack));
    let file = read_under(bytes, &budget).unwrap();
    file.to_core_with(&CoreOptions {
        budget,
        ..Default::default()
    })
    .unwrap_err()
}

fn bones(n: usize) -> Vec<BoneInfo> {
    (0..n)
        .map(|i| BoneInfo {
            name: format!("b{i}").as_str().into(),
            parent: -1,
        })
        .collect()
}

fn an10(nb: usize, animations: Vec<Animation>) -> An10 {
    An10 {
        bounds: EMPTY_BOUNDS,
        bones: bones(nb),
        bind_pose: vec![Transform::IDENTITY; nb],
        animations,
    }
}

fn animation(bones: usize, frames: u32, keys: Vec<Key>) -> Animation {
    Animation {
        name: "a".into(),
        bones: (0..bones as i16).collect(),
        boxes: unigine_anim::an10::Boxes {
            translation: EMPTY_BOX,
            scale: EMPTY_BOX,
        },
        flags: keys.iter().fold(0, |f, k| f | k.flags()),
        num_frames: frames,
        keys,
    }
}

fn as08_bones(n: usize) -> Vec<As08Bone> {
    (0..n)
        .map(|i| As08Bone {
            name: format!("b{i}").as_str().into(),
            parent: -1,
        })
        .collect()
}

#[test]
fn frame_counts_without_bones_cost_nothing() {
    // A thousand an10 animations of 2^28 frames and no bones: decoding looped over
    // every frame of each (2.7e11 empty steps).
    let anims = (0..1000).map(|_| animation(0, 1 << 28, vec![])).collect();
    let bytes = an10(1, anims).write().unwrap();
    let start = Instant::now();
    let budget = Budget::new(limits(MIB));
    let file = read_under(&bytes, &budget).unwrap();
    let model = file
        .to_core_with(&CoreOptions {
            budget,
            ..Default::default()
        })
        .unwrap()
        .value;
    assert_eq!(model.animations.len(), 1000);
    assert!(model.animations.iter().all(|c| c.channels.is_empty()));
    // as08: i32::MAX frames of an empty skeleton (2^31 empty steps before).
    let as08 = As08 {
        bones: vec![],
        min: [0.0; 4],
        size: [0.0; 4],
        num_frames: i32::MAX as u32,
        keys: vec![],
    };
    let model = read(&as08.write().unwrap())
        .unwrap()
        .to_core()
        .unwrap()
        .value;
    assert!(model.animations[0].channels.is_empty());
    // an11: 2^28 frames, no animated bones.
    let an11 = An11 {
        bones: bones(1),
        bind_pose: vec![Transform::IDENTITY],
        anim_bones: vec![],
        num_frames: 1 << 28,
        keys: vec![],
    };
    let model = read(&an11.write().unwrap())
        .unwrap()
        .to_core()
        .unwrap()
        .value;
    assert!(model.animations[0].channels.is_empty());
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn values_built_in_memory_decode_and_encode_only_what_they_hold() {
    // A frame count far past the keys (no file reads like this): decode stops at the
    // keys, encode at the values, and neither loops over the count.
    let a = animation(1, u32::MAX, vec![Key::default(); 2]);
    let frames = Frames::decode(&a, &[]);
    assert_eq!((frames.num_frames, frames.translation.len()), (2, 2));
    let no_bones = Frames {
        bones: vec![],
        num_frames: usize::MAX,
        translation: vec![],
        rotation: vec![],
        scale: vec![],
    };
    assert_eq!(no_bones.encode("a".into()).num_frames, u32::MAX);
    assert!(no_bones.try_encode("a".into()).is_err());
    // Frame lookups past the end: empty, no overflow.
    assert!(a.frame(usize::MAX).is_empty());
}

#[test]
fn decoded_an10_frames_are_charged() {
    // 10 bones x 20,000 frames of one-byte keys decode to 40 bytes each (8 MB).
    let anim = animation(10, 20_000, vec![Key::default(); 200_000]);
    let bytes = an10(10, vec![anim]).write().unwrap();
    let err = to_core_after_read(&bytes, MIB);
    assert_eq!(over_budget(&err), Some("decoded frames"), "{err}");
    // Reading alone decodes the 200,000 one-byte keys into key records (several MB).
    let err = read_under(&bytes, &Budget::new(limits(MIB))).unwrap_err();
    assert_eq!(over_budget(&err), Some("decoded data"), "{err}");
}

#[test]
fn copies_of_the_model_are_charged() {
    // A skeleton of 100,000 bones is some 10 MB of model; every writer copies a model in
    // another frame (glTF's here) to change its frame, and charges that first.
    let versions = [
        TargetVersion::An10,
        TargetVersion::An11,
        TargetVersion::An12,
        TargetVersion::As08,
    ];
    let model = Model {
        coordinate_system: meshfmt_core::CoordinateSystem::GLTF,
        ..animated(100_000, 0.0)
    };
    for version in versions {
        let err = AnimFile::from_core_with(&model, &write_opts(version, 30.0, MIB)).unwrap_err();
        assert_eq!(over_budget(&err), Some("model copy"), "{version:?}: {err}");
    }
    // Already in UNIGINE's frame, the model is encoded as it is: no copy to charge (what
    // fails is what is built from it: the bone count past an i16, as08's frames).
    let model = animated(100_000, 0.0);
    for version in versions {
        let err = AnimFile::from_core_with(&model, &write_opts(version, 30.0, MIB)).unwrap_err();
        match version {
            TargetVersion::As08 => {
                assert_eq!(over_budget(&err), Some("resampled frames"), "{err}");
            }
            _ => assert!(
                err.to_string().contains("exceed the i16 bone index range"),
                "{version:?}: {err}"
            ),
        }
    }
}

#[test]
fn dense_tracks_from_one_byte_keys_are_charged() {
    // an10: a rotation in frame 0 of each bone, nothing later: the decoded values (8
    // MB) fit in 9 MB of slack, the dense rotation tracks (4 MB more) do not.
    let mut keys = vec![Key::default(); 200_000];
    for k in &mut keys[..10] {
        k.rotation = Some([0, 0, 0, 32767]);
    }
    let bytes = an10(10, vec![animation(10, 20_000, keys)]).write().unwrap();
    let err = to_core_after_read(&bytes, 9 * MIB);
    assert_eq!(over_budget(&err), Some("animation tracks"), "{err}");
    // an11: a position in frame 0 of each bone makes a translation track of every frame.
    let mut keys = vec![An11Key::default(); 200_000];
    for k in &mut keys[..10] {
        k.position = Some([1.0, 0.0, 0.0]);
    }
    let an11 = An11 {
        bones: bones(10),
        bind_pose: vec![Transform::IDENTITY; 10],
        anim_bones: (0..10).collect(),
        num_frames: 20_000,
        keys,
    };
    let err = to_core_after_read(&an11.write().unwrap(), MIB);
    assert_eq!(over_budget(&err), Some("animation tracks"), "{err}");
    // as08: one-byte keys become three dense tracks.
    let as08 = As08 {
        bones: as08_bones(10),
        min: [0.0; 4],
        size: [1.0; 4],
        num_frames: 20_000,
        keys: vec![As08Key::default(); 200_000],
    };
    let err = to_core_after_read(&as08.write().unwrap(), MIB);
    assert_eq!(over_budget(&err), Some("animation tracks"), "{err}");
}

fn skeleton(n: usize) -> Skeleton {
    Skeleton {
        bones: (0..n)
            .map(|i| Bone {
                name: format!("b{i}"),
                parent: None,
                rest: Transform::IDENTITY,
                inverse_bind: None,
            })
            .collect(),
    }
}

fn animated(bones: usize, seconds: f32) -> Model {
    Model {
        coordinate_system: unigine_anim::COORDINATE_SYSTEM,
        skeleton: skeleton(bones),
        animations: vec![Clip {
            events: Vec::new(),
            name: "long".into(),
            channels: (0..bones)
                .map(|b| Channel {
                    bone: b,
                    translation: Track::from_keys([(0.0, Vec3::ZERO), (seconds, Vec3::X)]),
                    ..Default::default()
                })
                .collect(),
        }],
        ..Default::default()
    }
}

fn write_opts(version: TargetVersion, fps: f32, max: u64) -> WriteOptions {
    WriteOptions {
        version,
        fps,
        budget: Budget::new(limits(max)),
    }
}

#[test]
fn resampling_draws_on_the_callers_budget() {
    // 100 bones for 1000 s at 30 fps: 30,001 frames of 100 bones, some 250 MB. The
    // resampler used a default 1 GiB budget of its own; now the caller's 16 MiB.
    let model = animated(100, 1000.0);
    for version in [
        TargetVersion::An10,
        TargetVersion::An11,
        TargetVersion::An12,
        TargetVersion::As08,
    ] {
        let err =
            AnimFile::from_core_with(&model, &write_opts(version, 30.0, 16 * MIB)).unwrap_err();
        assert_eq!(
            over_budget(&err),
            Some("resampled frames"),
            "{version:?}: {err}"
        );
    }
    let short = animated(100, 1.0);
    assert!(
        AnimFile::from_core_with(&short, &write_opts(TargetVersion::An10, 30.0, 16 * MIB)).is_ok()
    );
}

#[test]
fn a_low_stored_an12_fps_stretches_the_clip_and_resampling_pays_for_it() {
    // 100 frames of 10 joints stored at 1 fps last 99 s: resampled at 30 fps that is
    // 2971 frames (some 2.3 MB as an10); stored at 30 fps, 100 frames.
    let an12 = |fps| An12 {
        joints: bones(10),
        skeleton_guid: Default::default(),
        skeleton_path: Default::default(),
        anim_bones: (0..10).collect(),
        fps,
        root_motion: false,
        num_frames: 100,
        keys: (0..1000)
            .map(|i| An11Key {
                position: Some([i as f32, 0.0, 0.0]),
                ..Default::default()
            })
            .collect(),
    };
    let opts = write_opts(TargetVersion::An10, 30.0, MIB);
    let model = AnimFile::An12(an12(30)).to_core().unwrap().value;
    assert_eq!(model.animations[0].duration(), 99.0 / 30.0);
    assert!(AnimFile::from_core_with(&model, &opts).is_ok());
    let model = AnimFile::An12(an12(1)).to_core().unwrap().value;
    assert_eq!(model.animations[0].duration(), 99.0);
    let err = AnimFile::from_core_with(&model, &opts).unwrap_err();
    assert_eq!(over_budget(&err), Some("resampled frames"), "{err}");
}

#[test]
fn the_bone_list_of_a_clip_is_built_in_linear_time() {
    // 32,767 bones with a channel each, then 100,000 more (empty) channels for bone 0:
    // finding each channel's bone in the list so far took some 4e9 steps.
    let n = i16::MAX as usize;
    let mut model = animated(n, 0.0);
    let ch = &mut model.animations[0].channels;
    ch.iter_mut()
        .for_each(|c| c.rotation = Track::from_keys([(0.0, Quat::IDENTITY)]));
    ch.extend((0..100_000).map(|_| Channel::default()));
    let start = Instant::now();
    let file = AnimFile::from_core_with(
        &model,
        &unigine_anim::WriteOptions {
            version: TargetVersion::An10,
            fps: 30.0,
            ..Default::default()
        },
    )
    .unwrap()
    .value;
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    let AnimFile::An10(a) = file else { panic!() };
    assert_eq!(a.animations[0].bones.len(), n);
}

#[test]
fn one_budget_runs_through_read_to_core_and_from_core() {
    let model = meshfmt_core::canonical::skinned_arm();
    let bytes = AnimFile::from_core_with(
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
    .unwrap();
    let budget = Budget::default();
    let file = read_under(&bytes, &budget).unwrap();
    let after_read = budget.used();
    assert!(after_read > 0);
    let core = file
        .to_core_with(&CoreOptions {
            budget: budget.clone(),
            ..Default::default()
        })
        .unwrap()
        .value;
    assert!(budget.used() > after_read);
    for version in [
        TargetVersion::An10,
        TargetVersion::An11,
        TargetVersion::An12,
        TargetVersion::As08,
    ] {
        let before = budget.used();
        AnimFile::from_core_with(
            &core,
            &WriteOptions {
                version,
                budget: budget.clone(),
                ..Default::default()
            },
        )
        .unwrap();
        assert!(budget.used() > before, "{version:?}");
    }
    // Without a shared budget each step starts from zero: the caller's is untouched.
    let used = budget.used();
    file.to_core().unwrap();
    assert_eq!(budget.used(), used);
}

#[test]
fn normal_files_convert_under_the_default_budget() {
    for model in [
        meshfmt_core::canonical::skinned_arm(),
        meshfmt_core::canonical::skinned_arm3(),
    ] {
        for version in [
            TargetVersion::An10,
            TargetVersion::An11,
            TargetVersion::An12,
            TargetVersion::As08,
        ] {
            let bytes = AnimFile::from_core_with(
                &model,
                &unigine_anim::WriteOptions {
                    version,
                    fps: 30.0,
                    ..Default::default()
                },
            )
            .unwrap()
            .value
            .write()
            .unwrap();
            let back = read(&bytes).unwrap();
            assert!(!back.to_core().unwrap().value.animations.is_empty());
            assert_eq!(back.write().unwrap(), bytes, "{version:?}");
        }
    }
}
