//! Unit tests of `validate`.

use super::*;
use crate::*;
use glam::{Quat, Vec3};

fn messages(m: &Model) -> Vec<String> {
    validate(m).iter().map(|p| p.to_string()).collect()
}

#[test]
fn every_problem_is_reported() {
    let mut m = Model::default();
    m.skeleton.bones = vec![
        Bone {
            name: "a".into(),
            parent: Some(1),
            ..Default::default()
        },
        Bone {
            name: "b".into(),
            parent: Some(2),
            ..Default::default()
        },
        Bone {
            name: "c".into(),
            parent: Some(0),
            ..Default::default()
        },
        Bone {
            name: "d".into(),
            parent: Some(9),
            ..Default::default()
        },
        Bone {
            name: "e".into(),
            parent: Some(4),
            ..Default::default()
        },
    ];
    m.skeleton.bones[3].rest.rotation = Quat::from_xyzw(0.0, 0.0, 0.0, 2.0);
    m.surfaces.push(Surface {
        positions: vec![Vec3::ZERO; 3],
        normals: vec![Vec3::Y; 2],
        indices: vec![0, 1, 2, 3],
        material: Some(0),
        skin: vec![
            VertexInfluences::from_pairs([(0, 0.5), (7, 0.25)]),
            VertexInfluences::single(1),
            VertexInfluences::single(1),
        ],
        ..Default::default()
    });
    m.animations.push(Clip {
        events: Vec::new(),
        name: "x".into(),
        channels: vec![Channel {
            bone: 5,
            translation: Track {
                times: vec![0.0, 2.0, 1.0],
                values: vec![Vec3::ZERO; 2],
                ..Default::default()
            },
            ..Default::default()
        }],
    });
    assert_eq!(
        messages(&m),
        [
            "surfaces[0].normals: has 2 entries but the surface has 3 vertices",
            "surfaces[0].indices: length 4 is not a multiple of 3",
            "surfaces[0].indices[3]: index 3 out of range (3 vertices)",
            "surfaces[0].material: material 0 out of range (0 materials)",
            "surfaces[0].skin[0]: joint 7 out of range (5 bones); weights sum to 0.75, not 1",
            "skeleton.bones[3].parent: parent 9 out of range (5 bones)",
            "skeleton.bones[3].rest.rotation: quaternion length 2 is not 1",
            "skeleton.bones[4].parent: bone is its own parent",
            "skeleton.bones[0].parent: parent cycle through bones [0, 1, 2]",
            "animations[0].channels[0].bone: bone 5 out of range (5 bones)",
            "animations[0].channels[0].translation: 3 times but 2 values",
            "animations[0].channels[0].translation.times[2]: time 1 is before 2",
        ]
    );
}

#[test]
fn many_bad_indices_are_summarized() {
    let m = Model {
        surfaces: vec![Surface {
            indices: vec![9; 300],
            positions: vec![Vec3::ZERO],
            ..Default::default()
        }],
        ..Default::default()
    };
    let p = validate(&m);
    assert_eq!(p.len(), MAX_PER_ARRAY + 1);
    assert_eq!(
        p.last().map(|p| p.message.as_str()),
        Some("280 more problems like the above")
    );
}

#[test]
fn long_chains_and_several_cycles_are_checked_in_linear_time() {
    // 200,000 bones in one chain, then cycles 3 -> 4 -> 3 and 7 -> 6 -> 5 -> 7 hung on
    // the end: a walk per bone up the whole chain would take 2e10 steps.
    let n: usize = 200_000;
    let mut bones: Vec<crate::Bone> = (0..n)
        .map(|i| crate::Bone {
            parent: i.checked_sub(1),
            ..Default::default()
        })
        .collect();
    for (b, p) in [(3, 4), (4, 3), (5, 7), (6, 5), (7, 6), (8, 7)] {
        bones[n - 10 + b].parent = Some(n - 10 + p);
    }
    let m = Model {
        skeleton: crate::Skeleton { bones },
        ..Default::default()
    };
    let (a, b) = (n - 7, n - 5);
    assert_eq!(
        messages(&m),
        [
            format!(
                "skeleton.bones[{a}].parent: parent cycle through bones [{a}, {}]",
                a + 1
            ),
            format!(
                "skeleton.bones[{b}].parent: parent cycle through bones [{b}, {}, {}]",
                b + 1,
                b + 2
            ),
        ]
    );
    let world = m.skeleton.rest_world_matrices();
    assert_eq!(world.len(), n);
}
