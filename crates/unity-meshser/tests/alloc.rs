//! A model too big for the format is refused without copying it: the allocations
//! `from_core` makes are counted by a global allocator. One test in this binary, so no
//! other test's allocations share the counter.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::alloc::System;

use cap::Cap;
use meshfmt_core::glam::Vec3;
use meshfmt_core::{Model, Surface};
use unity_meshser::{Error, MeshFile, WriteOptions};

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

#[test]
fn a_ten_million_vertex_model_is_refused_without_a_copy() {
    let model = Model {
        surfaces: vec![Surface {
            positions: vec![Vec3::ZERO; 10_000_000],
            normals: vec![Vec3::Y; 10_000_000],
            ..Surface::default()
        }],
        ..Model::default()
    };
    let before = ALLOC.total_allocated();
    let result = MeshFile::from_core_with(&model, &WriteOptions::default());
    let allocated = ALLOC.total_allocated() - before;
    assert!(matches!(
        result,
        Err(Error::TooManyVertices {
            count: 10_000_000,
            ..
        })
    ));
    // The model holds 240 MB; copying it (as from_core once did, twice) would show here.
    assert!(allocated < 1 << 20, "{allocated} bytes allocated");
}
