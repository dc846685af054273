//! Real files from ../shared/samples/unigine (never copied here): every ms10/ms11 file
//! rewrites byte for byte; newer versions are rejected cleanly; truncations fail.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use test_support::samples_or_skip;
use unigine_mesh::{Error, MeshFile, read};

fn mesh_files(dir: &Path) -> Vec<PathBuf> {
    test_support::files_under(dir, &["mesh", "smesh"])
}

#[test]
fn every_ms10_ms11_sample_round_trips_byte_for_byte() {
    let Some(dir) = samples_or_skip(
        "unigine",
        "every_ms10_ms11_sample_round_trips_byte_for_byte",
    ) else {
        return;
    };
    let (mut identical, mut unsupported) = (0, 0);
    let mut failures = Vec::new();
    for path in mesh_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        match read(&bytes) {
            Ok(file) => match file.write() {
                Ok(out) if out == bytes => identical += 1,
                Ok(out) => failures.push(format!(
                    "{}: rewrite differs ({} vs {} bytes)",
                    path.display(),
                    out.len(),
                    bytes.len()
                )),
                Err(e) => failures.push(format!("{}: write failed: {e}", path.display())),
            },
            Err(Error::UnsupportedVersion(v)) => {
                assert!(["ms16"].contains(&v.as_str()), "{v}");
                unsupported += 1;
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    println!(
        "unigine samples: {identical} ms10/ms11/ms13/ms14 files identical after rewrite, {unsupported} newer files rejected"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        identical >= 95,
        "expected at least the 77 ms10/ms11 samples, got {identical}"
    );
}

#[test]
fn truncated_samples_fail_cleanly() {
    let Some(dir) = samples_or_skip("unigine", "truncated_samples_fail_cleanly") else {
        return;
    };
    for path in mesh_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        if !matches!(read(&bytes), Ok(MeshFile::Ms1x(_) | MeshFile::Ms14(_))) {
            continue;
        }
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
        for len in lengths {
            assert!(
                read(&bytes[..len]).is_err(),
                "{} cut at {len} decoded",
                path.display()
            );
        }
    }
}
