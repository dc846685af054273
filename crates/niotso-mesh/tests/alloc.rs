//! Conversions from meshfmt-core copy only what they need: the allocations they make
//! are counted by a global allocator. One test in this binary, so no other test's
//! allocations share the counter.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use niotso_mesh::WriteOptions;
use std::alloc::System;

use cap::Cap;
use meshfmt_core::glam::Vec3;
use meshfmt_core::{Budget, Limits, Surface, canonical};
use niotso_mesh::{Anim, Error, Mesh, Skel};

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

/// Bytes allocated (freed or not) while `f` runs.
fn allocated_by<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOC.total_allocated();
    let out = f();
    (out, ALLOC.total_allocated() - before)
}

#[test]
fn conversions_from_core_copy_only_what_they_need() {
    // A 10-million-vertex surface (240 MB) on the skinned arm's skeleton (shoulder,
    // elbow) and clip (the elbow bends over 1 s: 31 frames at 30 fps).
    let mut model = canonical::skinned_arm();
    model.surfaces = vec![Surface {
        positions: vec![Vec3::ZERO; 10_000_000],
        normals: vec![Vec3::Y; 10_000_000],
        ..Surface::default()
    }];
    // A mesh under 16 MiB: refused before the surface is merged (it was cloned, then
    // merged, before).
    let opts = WriteOptions {
        budget: Budget::new(Limits {
            max_alloc_bytes: 16 << 20,
            ..Limits::DEFAULT
        }),
        ..WriteOptions::default()
    };
    let (r, bytes) = allocated_by(|| Mesh::from_core_with(&model, &opts));
    assert!(matches!(r, Err(Error::OverBudget(ref e)) if e.what == "merged surface"));
    assert!(bytes < 1 << 20, "{bytes} bytes allocated");
    // The skeleton and the animation copy the skeleton and the clip, not the surface.
    let (r, bytes) = allocated_by(|| {
        Skel::from_core_with(
            &model,
            &WriteOptions {
                skeleton_name: "arm".into(),
                ..WriteOptions::default()
            },
        )
    });
    let names: Vec<_> = r
        .unwrap()
        .value
        .bones
        .into_iter()
        .map(|b| b.name.to_string_lossy())
        .collect();
    assert_eq!(names, ["shoulder", "elbow"]);
    assert!(bytes < 1 << 20, "{bytes} bytes allocated");
    let (r, bytes) = allocated_by(|| {
        Anim::from_core_with(
            &model,
            &WriteOptions {
                fps: 30.0,
                ..WriteOptions::default()
            },
        )
    });
    let motions = r.unwrap().value.motions;
    assert_eq!(motions.len(), 1);
    assert_eq!(
        (motions[0].bone_name.as_str(), motions[0].frame_count),
        (Some("elbow"), 31)
    );
    assert!(bytes < 1 << 20, "{bytes} bytes allocated");
}
