//! Real files from the samples' unigine folder (../shared/samples/unigine, never copied
//! here): every mesh (1 ms10, 76 ms11, 3 ms13, 15 ms14) rewrites byte for byte, and every
//! truncation of each fails cleanly. Missing samples skip, or fail under
//! MESHFMT_REQUIRE_SAMPLES (see test-support).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use test_support::samples_or_skip;
use unigine_mesh::read;

/// What the samples hold, by magic: 95 .mesh files (no .smesh).
const BY_VERSION: [(&str, usize); 4] = [("ms10", 1), ("ms11", 76), ("ms13", 3), ("ms14", 15)];
const ALL: usize = 95;

fn mesh_files(dir: &Path) -> Vec<PathBuf> {
    test_support::files_under(dir, &["mesh", "smesh"])
}

#[test]
fn every_mesh_sample_round_trips_byte_for_byte() {
    let Some(dir) = samples_or_skip("unigine", "every_mesh_sample_round_trips_byte_for_byte")
    else {
        return;
    };
    let mut identical: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let files = mesh_files(&dir);
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        match read(&bytes) {
            Ok(file) => match file.write() {
                Ok(out) if out == bytes => {
                    // Counted by the magic as stored, not by what the reader made of it.
                    let magic = String::from_utf8_lossy(&bytes[..4]).into_owned();
                    assert_eq!(magic, file.version(), "{}", path.display());
                    *identical.entry(magic).or_default() += 1;
                }
                Ok(out) => failures.push(format!(
                    "{}: rewrite differs ({} vs {} bytes)",
                    path.display(),
                    out.len(),
                    bytes.len()
                )),
                Err(e) => failures.push(format!("{}: write failed: {e}", path.display())),
            },
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    println!("unigine samples identical after rewrite: {identical:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let want: BTreeMap<String, usize> = BY_VERSION
        .iter()
        .map(|(v, n)| (v.to_string(), *n))
        .collect();
    assert_eq!(
        identical, want,
        "the samples hold {ALL} meshes (1 ms10, 76 ms11, 3 ms13, 15 ms14), each identical after rewrite"
    );
    assert_eq!(files.len(), ALL);
}

#[test]
fn truncated_samples_fail_cleanly() {
    let Some(dir) = samples_or_skip("unigine", "truncated_samples_fail_cleanly") else {
        return;
    };
    let mut checked = 0;
    for path in mesh_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        // Every sample reads (the test above), so every one is cut here.
        read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // Every length for files up to 16 KiB; for larger ones (every length would be
        // quadratic) the first and last 256 bytes and 200 lengths spread evenly.
        let n = bytes.len();
        let lengths: Vec<usize> = if n <= 16 * 1024 {
            (0..n).collect()
        } else {
            let mut v: Vec<usize> = (0..256).chain(n - 256..n).collect();
            v.extend((0..200).map(|k| k * n / 200));
            v
        };
        assert!(!lengths.is_empty(), "{}: empty file", path.display());
        for len in lengths {
            assert!(
                read(&bytes[..len]).is_err(),
                "{} cut at {len} decoded",
                path.display()
            );
        }
        checked += 1;
    }
    assert_eq!(
        checked, ALL,
        "the samples hold {ALL} meshes (1 ms10, 76 ms11, 3 ms13, 15 ms14)"
    );
}
