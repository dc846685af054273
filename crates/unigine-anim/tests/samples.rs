//! Real an10/an11 files from the samples' unigine folder (../shared/samples/unigine,
//! never copied here): each rewrites byte for byte and every truncation fails. Missing
//! samples skip, or fail under MESHFMT_REQUIRE_SAMPLES (see test-support).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use test_support::samples_or_skip;
use unigine_anim::read;

/// What the samples hold, by magic: 15 .anim files (no .sanim).
const BY_VERSION: [(&str, usize); 2] = [("an10", 12), ("an11", 3)];
const ALL: usize = 15;

fn anim_files(dir: &Path) -> Vec<PathBuf> {
    test_support::files_under(dir, &["anim", "sanim"])
}

#[test]
fn every_an10_an11_sample_round_trips_byte_for_byte() {
    let Some(dir) = samples_or_skip(
        "unigine",
        "every_an10_an11_sample_round_trips_byte_for_byte",
    ) else {
        return;
    };
    let mut identical: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for path in anim_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        match read(&bytes) {
            Ok(file) => match file.write() {
                Ok(out) if out == bytes => {
                    // Counted by the magic as stored, not by what the reader made of it.
                    let magic = String::from_utf8_lossy(&bytes[..4]).into_owned();
                    assert_eq!(magic, file.version(), "{}", path.display());
                    *identical.entry(magic).or_default() += 1;
                }
                Ok(_) => failures.push(format!("{}: rewrite differs", path.display())),
                Err(e) => failures.push(format!("{}: {e}", path.display())),
            },
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    println!("unigine animations identical after rewrite: {identical:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let want: BTreeMap<String, usize> = BY_VERSION
        .iter()
        .map(|(v, n)| (v.to_string(), *n))
        .collect();
    assert_eq!(
        identical, want,
        "the samples hold {ALL} animations (12 an10, 3 an11), each identical after rewrite"
    );
}

#[test]
fn every_truncation_of_every_sample_fails() {
    let Some(dir) = samples_or_skip("unigine", "every_truncation_of_every_sample_fails") else {
        return;
    };
    let mut checked = 0;
    for path in anim_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        // Every sample reads (the test above), so every one is cut here.
        read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!bytes.is_empty(), "{}", path.display());
        for len in 0..bytes.len() {
            assert!(
                read(&bytes[..len]).is_err(),
                "{} cut at {len}",
                path.display()
            );
        }
        checked += 1;
    }
    assert_eq!(
        checked, ALL,
        "the samples hold {ALL} animations (12 an10, 3 an11)"
    );
}
