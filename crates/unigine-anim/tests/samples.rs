//! Real an10 files from ../shared/samples/unigine (never copied here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use test_support::samples_or_skip;
use unigine_anim::{AnimFile, Error, read};

fn anim_files(dir: &Path) -> Vec<PathBuf> {
    test_support::files_under(dir, &["anim", "sanim"])
}

#[test]
fn every_an10_sample_round_trips_byte_for_byte() {
    let Some(dir) = samples_or_skip("unigine", "every_an10_sample_round_trips_byte_for_byte")
    else {
        return;
    };
    let (mut identical, mut newer) = (0, 0);
    let mut failures = Vec::new();
    for path in anim_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        match read(&bytes) {
            Ok(file) => match file.write() {
                Ok(out) if out == bytes => identical += 1,
                Ok(_) => failures.push(format!("{}: rewrite differs", path.display())),
                Err(e) => failures.push(format!("{}: {e}", path.display())),
            },
            Err(Error::UnsupportedVersion(v)) => {
                assert_eq!(v, "an13");
                newer += 1;
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    println!(
        "unigine animations: {identical} an10/an11 identical after rewrite, {newer} newer rejected"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // 12 an10 and 3 an11 samples.
    assert!(identical >= 15, "{identical}");
}

#[test]
fn every_truncation_of_every_sample_fails() {
    let Some(dir) = samples_or_skip("unigine", "every_truncation_of_every_sample_fails") else {
        return;
    };
    for path in anim_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        if !matches!(read(&bytes), Ok(AnimFile::An10(_) | AnimFile::An11(_))) {
            continue;
        }
        for len in 0..bytes.len() {
            assert!(
                read(&bytes[..len]).is_err(),
                "{} cut at {len}",
                path.display()
            );
        }
    }
}
