//! An an10 clip drives an ms11 skinned mesh from the samples, bones matched by name:
//! the two crates meet in meshfmt-core (unigine-mesh is a dev-dependency only).
//! actor_00.mesh is a 1.74 m character; walk_fwd.anim walks it in place.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::{Bounds, Channel, Clip, Pose, skin_surface};
use test_support::sample_file_or_skip;

#[test]
fn walk_anim_poses_actor_mesh() {
    const TEST: &str = "walk_anim_poses_actor_mesh";
    let base = "unigine/wakqaz4__Unigine_FPS_Demo1/source/meshes";
    let Some(mesh_path) = sample_file_or_skip(base, "actor_00.mesh", TEST) else {
        return;
    };
    let Some(anim_path) = sample_file_or_skip(base, "actor_00/walk_fwd.anim", TEST) else {
        return;
    };
    let mesh = unigine_mesh::read(&std::fs::read(mesh_path).unwrap())
        .unwrap()
        .to_core()
        .unwrap()
        .value;
    let anim = unigine_anim::read(&std::fs::read(anim_path).unwrap())
        .unwrap()
        .to_core()
        .unwrap()
        .value;
    let clip = &anim.animations[0];
    // Every animated bone exists in the mesh, by name.
    let channels: Vec<Channel> = clip
        .channels
        .iter()
        .map(|c| {
            let name = &anim.skeleton.bones[c.bone].name;
            let b = mesh
                .skeleton
                .find(name)
                .unwrap_or_else(|| panic!("bone {name} not in the mesh"));
            Channel {
                bone: b,
                ..c.clone()
            }
        })
        .collect();
    assert_eq!(channels.len(), 53);
    let clip = Clip {
        events: Vec::new(),
        name: clip.name.clone(),
        channels,
    };
    assert!(
        (clip.duration() - 25.0 / 30.0).abs() < 1e-5,
        "26 frames at 30 fps"
    );

    // Skinning with the mesh's own rest pose reproduces its stored vertices.
    let rest = Pose::rest(&mesh.skeleton);
    for s in &mesh.surfaces {
        let (p, _) = skin_surface(s, &mesh.skeleton, &rest);
        for (a, b) in p.iter().zip(&s.positions) {
            assert!(a.abs_diff_eq(*b, 1e-4), "rest skinning moved {b} to {a}");
        }
    }
    // Posed through the walk: a standing 1.7 m figure whose feet stay on the ground,
    // moving by a stride (tens of centimeters) between frames a quarter cycle apart.
    let posed_at = |t: f32| -> Vec<meshfmt_core::glam::Vec3> {
        let pose = clip.sample(&mesh.skeleton, t);
        mesh.surfaces
            .iter()
            .flat_map(|s| skin_surface(s, &mesh.skeleton, &pose).0)
            .collect()
    };
    let start = posed_at(0.0);
    let mut largest_move = 0.0f32;
    for k in 0..=25 {
        let t = k as f32 / 30.0;
        let p = posed_at(t);
        let b = Bounds::from_points(p.iter().copied()).unwrap();
        assert!(
            b.aabb.min.z > -0.05 && b.aabb.min.z < 0.05,
            "feet on the ground at {t}: {}",
            b.aabb.min
        );
        assert!(
            b.aabb.max.z > 1.6 && b.aabb.max.z < 1.8,
            "standing height at {t}: {}",
            b.aabb.max
        );
        largest_move = p
            .iter()
            .zip(&start)
            .map(|(a, b)| a.distance(*b))
            .fold(largest_move, f32::max);
    }
    assert!(
        largest_move > 0.3 && largest_move < 1.0,
        "stride {largest_move}"
    );
}
