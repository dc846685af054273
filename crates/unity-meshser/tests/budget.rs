//! Memory and time: one budget per operation, charged before anything is built, and a
//! model the format cannot hold refused before anything is copied. Expected sizes come
//! from the layout in the crate docs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use meshfmt_core::glam::Vec3;
use meshfmt_core::{Model, Surface, canonical};
use parsing_primitives::ErrorKind;
use unity_meshser::{
    Budget, CoreOptions, Error, Limits, MeshFile, ReadOptions, WriteOptions, read, read_with,
};

fn limits(max_alloc_bytes: u64) -> Limits {
    Limits {
        max_alloc_bytes,
        ..Limits::DEFAULT
    }
}

fn write_opts(budget: &Budget) -> WriteOptions {
    WriteOptions {
        budget: budget.clone(),
        ..WriteOptions::default()
    }
}

fn over_budget<T: std::fmt::Debug>(r: Result<T, Error>) -> meshfmt_core::BudgetExceeded {
    match r {
        Err(Error::OverBudget(e)) => e,
        other => panic!("expected OverBudget, got {other:?}"),
    }
}

/// The canonical cube: 24 vertices with normals, tangents and UVs, 12 triangles.
fn cube_bytes() -> Vec<u8> {
    let file = MeshFile::from_core_with(&canonical::cube(), &WriteOptions::default())
        .unwrap()
        .value;
    file.write().unwrap()
}

// The cube's stored arrays: 24 x (6 position + 3 normal + 4 tangent + 4 UV bytes) and
// 12 x 6 triangle bytes.
const CUBE_ARRAYS: u64 = 24 * (6 + 3 + 4 + 4) + 12 * 6;
// Decoded: 24 x (12 position + 12 normal + 16 tangent + 8 UV bytes), 12 x 3 u32 indices.
const CUBE_DECODED: u64 = 24 * (12 + 12 + 16 + 8) + 12 * 12;

#[test]
fn one_budget_accumulates_across_read_to_core_and_from_core() {
    let bytes = cube_bytes();
    assert_eq!(bytes.len() as u64, 5 + 24 + 16 + CUBE_ARRAYS);
    let budget = Budget::default();
    let read_opts = ReadOptions {
        budget: budget.clone(),
        ..ReadOptions::default()
    };
    let file = read_with(&bytes, &read_opts).unwrap();
    assert_eq!(budget.used(), CUBE_ARRAYS);
    let core = CoreOptions {
        budget: budget.clone(),
    };
    let model = file.to_core_with(&core).unwrap().value;
    assert_eq!(budget.used(), CUBE_ARRAYS + CUBE_DECODED);
    // from_core: the merged surface (as decoded) and the quantized arrays.
    let back = MeshFile::from_core_with(&model, &write_opts(&budget))
        .unwrap()
        .value;
    assert_eq!(budget.used(), 2 * CUBE_ARRAYS + 2 * CUBE_DECODED);
    assert_eq!(back.vertex_count(), 24);

    // A shared budget that pays for the first two steps refuses the third, which a
    // fresh default budget pays for.
    let budget = Budget::new(limits(CUBE_ARRAYS + CUBE_DECODED + 100));
    let file = read_with(
        &bytes,
        &ReadOptions {
            budget: budget.clone(),
            ..ReadOptions::default()
        },
    )
    .unwrap();
    let model = file
        .to_core_with(&CoreOptions {
            budget: budget.clone(),
        })
        .unwrap()
        .value;
    let e = over_budget(MeshFile::from_core_with(&model, &write_opts(&budget)));
    assert_eq!(e.what, "merged surface");
    assert!(MeshFile::from_core_with(&model, &WriteOptions::default()).is_ok());
}

#[test]
fn each_step_names_what_it_could_not_pay_for() {
    let bytes = cube_bytes();
    // Reading: the first array (positions, 144 bytes) does not fit in 100.
    let small = ReadOptions {
        budget: Budget::new(limits(100)),
        ..ReadOptions::default()
    };
    match read_with(&bytes, &small) {
        Err(Error::Decode(e)) => assert!(matches!(e.kind(), ErrorKind::OverBudget(_)), "{e}"),
        other => panic!("{other:?}"),
    }
    let file = read(&bytes).unwrap();
    let tight = CoreOptions {
        budget: Budget::new(limits(CUBE_DECODED - 1)),
    };
    let e = over_budget(file.to_core_with(&tight));
    assert_eq!((e.what, e.requested), ("decoded surface", CUBE_DECODED));
    let surface = file.to_surface();
    let opts = WriteOptions {
        budget: Budget::new(limits(CUBE_ARRAYS - 1)),
        ..WriteOptions::default()
    };
    let e = over_budget(MeshFile::from_surface(&surface, &opts));
    assert_eq!((e.what, e.requested), ("quantized mesh", CUBE_ARRAYS));
}

/// A model of `surfaces` surfaces of `vertices` vertices (positions only) each.
fn big(surfaces: usize, vertices: usize) -> Model {
    Model {
        surfaces: vec![
            Surface {
                positions: vec![Vec3::ZERO; vertices],
                ..Surface::default()
            };
            surfaces
        ],
        ..Model::default()
    }
}

#[test]
fn models_the_format_cannot_hold_are_refused_before_anything_is_copied() {
    let budget = Budget::default();
    let opts = write_opts(&budget);
    // Ten million vertices (120 MB of positions): refused at once; the merge that used
    // to copy the model twice never starts, and nothing is charged.
    let model = big(1, 10_000_000);
    let start = Instant::now();
    let e = MeshFile::from_core_with(&model, &opts).unwrap_err();
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    assert!(
        matches!(
            e,
            Error::TooManyVertices {
                count: 10_000_000,
                max: 64000
            }
        ),
        "{e}"
    );
    // Surfaces that fit one by one but not merged: 2 x 40,000 vertices.
    assert!(matches!(
        MeshFile::from_core_with(&big(2, 40_000), &opts),
        Err(Error::TooManyVertices { count: 80_000, .. })
    ));
    // Triangles: 64,001 of them over 3 vertices, and an index list of 4.
    let mut tris = big(1, 3);
    tris.surfaces[0].indices = vec![0; 3 * 64_001];
    assert!(matches!(
        MeshFile::from_core_with(&tris, &opts),
        Err(Error::TooManyTriangles { count: 64_001, .. })
    ));
    tris.surfaces[0].indices = vec![0; 4];
    assert!(matches!(
        MeshFile::from_core_with(&tris, &opts),
        Err(Error::NotTriangles { len: 4 })
    ));
    assert_eq!(budget.used(), 0);
}

#[test]
fn the_largest_mesh_the_format_holds_converts_under_the_default_budget() {
    // 64,000 vertices and triangles: within the format and far within 1 GiB.
    let mut model = big(1, 64_000);
    model.surfaces[0].indices = (0..64_000u32)
        .flat_map(|i| [i, (i + 1) % 64_000, (i + 2) % 64_000])
        .collect();
    let budget = Budget::default();
    let file = MeshFile::from_core_with(&model, &write_opts(&budget))
        .unwrap()
        .value;
    // Merged: 64,000 x 12 position bytes + 192,000 x 4 index bytes; quantized:
    // 64,000 x 6 + 64,000 x 6.
    assert_eq!(budget.used(), 64_000 * 12 + 192_000 * 4 + 64_000 * 6 * 2);
    let bytes = file.write().unwrap();
    assert_eq!(bytes.len(), 5 + 24 + 64_000 * 6 + 64_000 * 6);
    assert_eq!(read(&bytes).unwrap().triangle_count(), 64_000);
}
