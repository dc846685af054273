//! Assembling a model from companions: clips attached by bone name, a skeleton given by
//! another file, and what does not match reported by name.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::glam::{Mat4, Quat, Vec3};
use meshfmt_core::{
    Bone, Budget, Channel, Clip, CoordinateSystem, Feature, Limits, LossKind, Model, Skeleton,
    Surface, Track, Transform, VertexInfluences, skin_surface,
};

fn bone(name: &str, parent: Option<usize>, t: Vec3) -> Bone {
    Bone {
        name: name.into(),
        parent,
        rest: Transform {
            translation: t,
            ..Transform::IDENTITY
        },
        inverse_bind: None,
    }
}

/// hip <- knee <- foot, Y up, one skinned vertex per bone.
fn body() -> Model {
    Model {
        skeleton: Skeleton {
            bones: vec![
                bone("hip", None, Vec3::new(0.0, 1.0, 0.0)),
                bone("knee", Some(0), Vec3::new(0.0, -0.5, 0.0)),
                bone("foot", Some(1), Vec3::new(0.0, -0.5, 0.0)),
            ],
        },
        surfaces: vec![Surface {
            positions: vec![
                Vec3::new(0.0, 1.0, 0.0),
                Vec3::new(0.0, 0.5, 0.0),
                Vec3::ZERO,
            ],
            indices: vec![0, 1, 2],
            skin: (0..3).map(VertexInfluences::single).collect(),
            ..Surface::default()
        }],
        ..Model::default()
    }
}

fn channel(bone: usize, t: Vec3, q: Quat) -> Channel {
    Channel {
        bone,
        translation: Track::from_keys([(0.0, t), (1.0, t * 2.0)]),
        rotation: Track::from_keys([(0.0, q), (1.0, Quat::IDENTITY)]),
        scale: Track::from_keys([(0.0, Vec3::new(1.0, 2.0, 3.0))]),
    }
}

#[test]
fn clips_follow_bone_names_and_change_frames() {
    let mut model = body();
    // An animation file in UNIGINE's frame (Z up, right-handed) whose bones are in
    // another order, with a bone the body lacks.
    let mut anim = Model {
        coordinate_system: CoordinateSystem::Z_UP_RIGHT,
        skeleton: Skeleton {
            bones: vec![
                bone("tail", None, Vec3::ZERO),
                bone("knee", None, Vec3::ZERO),
                bone("hip", None, Vec3::ZERO),
            ],
        },
        ..Model::default()
    };
    let q = Quat::from_rotation_z(0.5);
    anim.animations.push(Clip {
        events: Vec::new(),
        name: "walk".into(),
        channels: vec![
            channel(1, Vec3::new(1.0, 2.0, 3.0), q),
            channel(0, Vec3::X, Quat::IDENTITY),
            channel(2, Vec3::Z, Quat::IDENTITY),
        ],
    });
    let losses = model.attach_clips(&anim, &Budget::default()).unwrap();
    let clip = &model.animations[0];
    assert_eq!(clip.name, "walk");
    // knee is bone 1 of the body, hip bone 0.
    assert_eq!(
        clip.channels.iter().map(|c| c.bone).collect::<Vec<_>>(),
        [1, 0]
    );
    // Z-up (x, y, z) is Y-up (x, z, -y): by hand.
    let knee = &clip.channels[0];
    assert_eq!(knee.translation.values[0], Vec3::new(1.0, 3.0, -2.0));
    assert_eq!(knee.translation.values[1], Vec3::new(2.0, 6.0, -4.0));
    assert_eq!(knee.translation.times, [0.0, 1.0]);
    // A rotation about Z (up there) is a rotation about Y (up here) by the same angle.
    assert!(
        knee.rotation.values[0].abs_diff_eq(Quat::from_rotation_y(0.5), 1e-6),
        "{:?}",
        knee.rotation.values[0]
    );
    // Scale (sx, sy, sz) there is (sx, sz, sy) here.
    assert_eq!(knee.scale.values[0], Vec3::new(1.0, 3.0, 2.0));
    // The tail is named, at the clip's place in the model.
    assert_eq!(losses.len(), 2, "{losses:?}");
    let tail = losses
        .iter()
        .find(|l| l.reason.contains("'tail'"))
        .expect("the tail is reported");
    assert_eq!(tail.feature, Feature::Animation);
    assert_eq!(tail.kind, LossKind::Dropped);
    assert_eq!(tail.path, "animations[0]");
    assert!(
        tail.reason.contains("clip 'walk': 1 of 3 channels"),
        "{}",
        tail.reason
    );
    // knee and hip have no parent there but hip and none here: knee is reported moved.
    let moved = losses
        .iter()
        .find(|l| l.kind == LossKind::Reduced)
        .expect("parents reported");
    assert!(
        moved.reason.starts_with("1 bones have another parent")
            && moved
                .reason
                .contains("knee (parent (none) there, hip here)"),
        "{}",
        moved.reason
    );
}

#[test]
fn attached_clips_pose_the_body() {
    // The clip bends the knee 90 degrees about X: the foot vertex swings from (0, 0, 0)
    // to (0, 0.5, 0.5) - knee at (0, 0.5, 0), foot half a unit down its rotated -Y axis,
    // which is +Z after a quarter turn about X.
    let mut model = body();
    let mut anim = Model {
        skeleton: Skeleton {
            bones: vec![bone("knee", None, Vec3::ZERO)],
        },
        ..Model::default()
    };
    anim.animations.push(Clip {
        events: Vec::new(),
        name: "bend".into(),
        channels: vec![Channel {
            bone: 0,
            rotation: Track::from_keys([(
                0.0,
                Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
            )]),
            ..Channel::default()
        }],
    });
    model.attach_clips(&anim, &Budget::default()).unwrap();
    let pose = model.animations[0].sample(&model.skeleton, 0.0);
    let (p, _) = skin_surface(&model.surfaces[0], &model.skeleton, &pose);
    assert!(p[0].abs_diff_eq(Vec3::new(0.0, 1.0, 0.0), 1e-6));
    assert!(p[1].abs_diff_eq(Vec3::new(0.0, 0.5, 0.0), 1e-6));
    assert!(
        p[2].abs_diff_eq(Vec3::new(0.0, 0.5, 0.5), 1e-6),
        "{:?}",
        p[2]
    );
}

#[test]
fn unmatched_clips_and_skeletonless_models() {
    let mut anim = Model {
        skeleton: Skeleton {
            bones: vec![
                bone("wing", None, Vec3::ZERO),
                bone("hip", None, Vec3::ZERO),
            ],
        },
        ..Model::default()
    };
    anim.animations.push(Clip {
        events: Vec::new(),
        name: "flap".into(),
        channels: vec![channel(0, Vec3::X, Quat::IDENTITY)],
    });
    // Two channels on one bone: the second is reported.
    anim.animations.push(Clip {
        events: Vec::new(),
        name: "twice".into(),
        channels: vec![
            channel(1, Vec3::X, Quat::IDENTITY),
            channel(1, Vec3::Y, Quat::IDENTITY),
        ],
    });
    let mut model = body();
    let losses = model.attach_clips(&anim, &Budget::default()).unwrap();
    // "flap" matches nothing: not added, named.
    assert_eq!(model.animations.len(), 1);
    assert_eq!(model.animations[0].name, "twice");
    assert_eq!(model.animations[0].channels.len(), 1);
    assert_eq!(
        model.animations[0].channels[0].translation.values[0],
        Vec3::X
    );
    assert!(losses.iter().any(|l| l.path.is_empty()
        && l.reason == "clip 'flap': none of its 1 channels names a bone of the model: 'wing'"));
    assert!(losses.iter().any(|l| {
        l.path == "animations[0]"
            && l.reason
                .contains("clip 'twice': 1 channels name a bone another channel")
            && l.reason.contains("'hip'")
    }));

    // Surfaces but no skeleton: nothing to play the clips on.
    let mut statue = body();
    statue.skeleton = Skeleton::default();
    let losses = statue.attach_clips(&anim, &Budget::default()).unwrap();
    assert!(statue.animations.is_empty());
    assert_eq!(losses.len(), 2);
    assert!(losses[0].reason.contains("no skeleton to play it on"));

    // Neither (an animation file itself): it takes the other's skeleton.
    let mut empty = Model::default();
    empty.attach_clips(&anim, &Budget::default()).unwrap();
    assert_eq!(empty.skeleton.len(), 2);
    assert_eq!(empty.animations.len(), 2);
}

#[test]
fn attaching_is_charged_and_linear() {
    let anim = {
        let mut m = Model {
            skeleton: Skeleton {
                bones: vec![bone("knee", None, Vec3::ZERO)],
            },
            ..Model::default()
        };
        m.animations.push(Clip {
            events: Vec::new(),
            name: "long".into(),
            channels: vec![Channel {
                bone: 0,
                translation: Track::from_keys((0..10_000).map(|i| (i as f32, Vec3::X))),
                ..Channel::default()
            }],
        });
        m
    };
    let tight = Budget::new(Limits {
        max_alloc_bytes: 64 * 1024,
        ..Limits::DEFAULT
    });
    let err = body().attach_clips(&anim, &tight).unwrap_err();
    assert_eq!(err.what, "attached clips");
    let budget = Budget::default();
    body().attach_clips(&anim, &budget).unwrap();
    // 10 000 keys of a time and a Vec3.
    assert!(budget.used() >= 10_000 * 16, "{}", budget.used());

    // Many bones and channels: one pass through a name map, instant.
    let n = 50_000;
    let bones: Vec<Bone> = (0..n)
        .map(|i| bone(&format!("b{i}"), None, Vec3::ZERO))
        .collect();
    let mut big = Model {
        skeleton: Skeleton {
            bones: bones.iter().rev().cloned().collect(),
        },
        ..Model::default()
    };
    big.surfaces.push(Surface::default());
    let mut other = Model {
        skeleton: Skeleton { bones },
        ..Model::default()
    };
    other.animations.push(Clip {
        events: Vec::new(),
        name: "all".into(),
        channels: (0..n)
            .map(|b| Channel {
                bone: b,
                ..Channel::default()
            })
            .collect(),
    });
    let start = std::time::Instant::now();
    big.attach_clips(&other, &Budget::default()).unwrap();
    assert!(start.elapsed().as_secs() < 5);
    assert_eq!(big.animations[0].channels[0].bone, n - 1);
}

#[test]
fn a_given_skeleton_keeps_the_binding() {
    let mut model = body();
    model.animations.push(Clip {
        events: Vec::new(),
        name: "c".into(),
        channels: vec![channel(2, Vec3::ZERO, Quat::IDENTITY)],
    });
    let rest_positions = model.surfaces[0].positions.clone();
    // The given skeleton (Z up) names hip and knee, has a root, lacks the foot, and puts
    // the knee elsewhere.
    let given = Skeleton {
        bones: vec![
            bone("root", None, Vec3::ZERO),
            bone("hip", Some(0), Vec3::new(0.0, 0.0, 1.0)),
            bone("knee", Some(1), Vec3::new(0.0, 0.0, -0.4)),
        ],
    };
    let losses = model
        .with_skeleton(&given, CoordinateSystem::Z_UP_RIGHT, &Budget::default())
        .unwrap();
    let names: Vec<&str> = model
        .skeleton
        .bones
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    assert_eq!(names, ["root", "hip", "knee", "foot"]);
    // The foot keeps its parent (the knee, now bone 2) and rest pose.
    assert_eq!(model.skeleton.bones[3].parent, Some(2));
    assert_eq!(
        model.skeleton.bones[3].rest.translation,
        Vec3::new(0.0, -0.5, 0.0)
    );
    // Z-up (0, 0, -0.4) is Y-up (0, -0.4, 0).
    assert_eq!(
        model.skeleton.bones[2].rest.translation,
        Vec3::new(0.0, -0.4, 0.0)
    );
    // Joints and channels follow: hip 0 -> 1, knee 1 -> 2, foot 2 -> 3.
    let joints: Vec<u32> = model.surfaces[0].skin.iter().map(|v| v.joints[0]).collect();
    assert_eq!(joints, [1, 2, 3]);
    assert_eq!(model.animations[0].channels[0].bone, 3);
    // The knee moved up by 0.1: its inverse bind is the old one (the mesh keeps its
    // binding), so at rest the knee vertex moves with it, and the hip vertex stays.
    let knee_ib = model.skeleton.bones[2].inverse_bind.expect("stored");
    assert!(knee_ib.abs_diff_eq(Mat4::from_translation(Vec3::new(0.0, -0.5, 0.0)), 1e-6));
    assert_eq!(model.skeleton.bones[1].inverse_bind, None);
    let pose = meshfmt_core::Pose::rest(&model.skeleton);
    let (p, _) = skin_surface(&model.surfaces[0], &model.skeleton, &pose);
    assert!(p[0].abs_diff_eq(rest_positions[0], 1e-6));
    assert!(
        p[1].abs_diff_eq(Vec3::new(0.0, 0.6, 0.0), 1e-6),
        "{:?}",
        p[1]
    );
    assert_eq!(losses.len(), 1);
    assert_eq!(losses[0].feature, Feature::Skeleton);
    assert_eq!(losses[0].path, "skeleton");
    assert!(
        losses[0]
            .reason
            .contains("1 bones of the model are not in the given skeleton")
    );
    assert!(losses[0].reason.contains("'foot'"));

    // A model without bones takes the skeleton as given (converted).
    let mut plain = Model::default();
    assert!(
        plain
            .with_skeleton(&given, CoordinateSystem::Z_UP_RIGHT, &Budget::default())
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        plain.skeleton.bones[1].rest.translation,
        Vec3::new(0.0, 1.0, 0.0)
    );
    let tight = Budget::new(Limits {
        max_alloc_bytes: 100,
        ..Limits::DEFAULT
    });
    let err = body()
        .with_skeleton(&given, CoordinateSystem::GLTF, &tight)
        .unwrap_err();
    assert_eq!(err.what, "given skeleton");
}
