//! Real Vitaboy files from the samples' niotso folder (../shared/samples/niotso, never
//! copied here): 61 .mesh (3 of them in Meshes/User) and 25 .anim. Missing samples skip,
//! or fail under MESHFMT_REQUIRE_SAMPLES (see test-support).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use test_support::samples_or_skip;

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    test_support::files_under(dir, &[ext])
}

#[test]
fn every_sample_mesh_and_anim_round_trips() {
    let Some(dir) = samples_or_skip("niotso", "every_sample_mesh_and_anim_round_trips") else {
        return;
    };
    let mut counts = Vec::new();
    for (sub, ext, want) in [("Meshes", "mesh", 61), ("Animations", "anim", 25)] {
        let mut identical = 0;
        for path in files(&dir.join(sub), ext) {
            let bytes = std::fs::read(&path).unwrap();
            let out = match ext {
                "mesh" => {
                    let m = niotso_mesh::mesh::read(&bytes)
                        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    m.write().unwrap()
                }
                _ => {
                    let a = niotso_mesh::anim::read(&bytes)
                        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    a.write().unwrap()
                }
            };
            assert!(out == bytes, "{}: rewrite differs", path.display());
            identical += 1;
            // Every truncation fails cleanly.
            for len in 0..bytes.len() {
                let cut = &bytes[..len];
                let failed = match ext {
                    "mesh" => niotso_mesh::mesh::read(cut).is_err(),
                    _ => niotso_mesh::anim::read(cut).is_err(),
                };
                assert!(failed, "{} cut at {len} decoded", path.display());
            }
        }
        assert_eq!(
            identical, want,
            "the samples hold {want} .{ext} files under niotso/{sub}"
        );
        counts.push(format!("{identical} .{ext}"));
    }
    println!(
        "niotso samples byte-identical after rewrite: {}",
        counts.join(", ")
    );
}
