//! Decode every real an10 file to values and re-encode from the values alone: what the
//! encoder gets the same as the exporter (flags, which components each key stores, box
//! minima, file size, rotations, every integer, box sizes to the ulp), and the
//! decode -> encode -> decode error (none). The exporter sized its boxes from the
//! unquantized values, which decoding no longer has; it truncates, so the largest
//! decoded value sits on a step, which gives its box size back (to an ulp where no key
//! tells sizes apart).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use test_support::samples_or_skip;
use unigine_anim::an10::{EMPTY_BOX, Key, QuantBox};
use unigine_anim::{AnimFile, Frames, read};

/// The samples hold 12 an10 files (and 3 an11), one animation each, 23,901 keys.
const AN10_FILES: usize = 12;
const AN10_KEYS: usize = 23_901;
/// Files whose re-encode is byte for byte the original, measured: the other two
/// differ in a scale box size by one ulp (QBZ95_long.anim: 1.4 for 1.4000001) or by
/// scales that all store 0 (arm.anim: 1.0 for 1.0000029), which no key can show.
const FILES_IDENTICAL: usize = 10;

fn anim_files(dir: &Path) -> Vec<PathBuf> {
    test_support::files_under(dir, &["anim"])
}

/// Which components a key stores (what the flag byte and the file layout follow).
fn stored(k: &Key) -> ([bool; 3], bool, [bool; 3]) {
    (
        k.translation.map(|v| v.is_some()),
        k.rotation.is_some(),
        k.scale.map(|v| v.is_some()),
    )
}

/// Largest difference between two keys' stored u16 values (same layout assumed).
fn unit_distance(a: &Key, b: &Key) -> u16 {
    let pairs = a
        .translation
        .iter()
        .zip(&b.translation)
        .chain(a.scale.iter().zip(&b.scale));
    pairs
        .filter_map(|(x, y)| Some(x.as_ref()?.abs_diff(*y.as_ref()?)))
        .max()
        .unwrap_or(0)
}

/// The exporter's box comes from the unquantized values, ours from the decoded ones: the
/// same minimum (the minimum is stored exactly as integer 0) and the same size to a few
/// ulps, or smaller by under one step where every key stores 0 (arm.anim's scales).
fn assert_box_from_decoded_values(what: &str, ours: &QuantBox, theirs: &QuantBox) {
    if *theirs == EMPTY_BOX {
        assert_eq!(ours, theirs, "{what}: kind not animated");
        return;
    }
    assert_eq!(ours.min, theirs.min, "{what}: box minimum");
    for i in 0..3 {
        let step = theirs.size[i] / 65535.0;
        let short = theirs.size[i] - ours.size[i];
        let ulps = 4.0 * f32::EPSILON * theirs.size[i];
        assert!(
            short.abs() <= ulps || (0.0..=step).contains(&short),
            "{what}: box size {} vs {} (step {step})",
            ours.size[i],
            theirs.size[i]
        );
    }
}

#[test]
fn values_alone_reencode_to_the_same_layout_and_keys_within_one_unit() {
    let Some(dir) = samples_or_skip(
        "unigine",
        "values_alone_reencode_to_the_same_layout_and_keys_within_one_unit",
    ) else {
        return;
    };
    let (mut files, mut identical, mut keys_total, mut keys_differ) = (0, 0, 0, 0);
    let (mut worst_t, mut worst_r, mut worst_s) = (0.0f32, 0.0f32, 0.0f32);
    let mut report = Vec::new();
    for path in anim_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.display();
        // Every sample reads; the an11 ones have no an10 encoder to compare with.
        let AnimFile::An10(original) = read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
        else {
            continue;
        };
        files += 1;
        assert!(!original.animations.is_empty(), "{name}");
        let mut rebuilt = original.clone();
        for (a, anim) in original.animations.iter().enumerate() {
            let values = Frames::decode(anim, &original.bind_pose);
            let encoded = values.encode(anim.name.clone());
            // decode -> encode -> decode stays within half a step of the new boxes
            // (plus f32 rounding of the decode); measured: no error at all.
            let again = Frames::decode(&encoded, &original.bind_pose);
            let half_step = |b: &QuantBox, i: usize| {
                b.size[i].abs() / 65535.0 * 0.5
                    + 4.0 * f32::EPSILON * (b.min[i].abs() + b.size[i].abs())
            };
            for (x, y) in values.translation.iter().zip(&again.translation) {
                for i in 0..3 {
                    let e = (x[i] - y[i]).abs();
                    assert!(
                        e <= half_step(&encoded.boxes.translation, i),
                        "{name}: translation error {e}"
                    );
                    worst_t = worst_t.max(e);
                }
            }
            for (x, y) in values.scale.iter().zip(&again.scale) {
                for i in 0..3 {
                    let e = (x[i] - y[i]).abs();
                    assert!(
                        e <= half_step(&encoded.boxes.scale, i),
                        "{name}: scale error {e}"
                    );
                    worst_s = worst_s.max(e);
                }
            }
            for (x, y) in values.rotation.iter().zip(&again.rotation) {
                for i in 0..4 {
                    worst_r = worst_r.max((x[i] - y[i]).abs());
                }
            }
            // What the encoder derives from values alone matches the exporter: which kinds
            // are animated (the flag byte), which components every key stores, the exact
            // rotations, the box minima, and every translation and scale integer.
            assert_eq!(encoded.flags, anim.flags, "{name}: flags");
            assert_eq!(encoded.bones, anim.bones, "{name}: bones");
            assert_eq!(encoded.num_frames, anim.num_frames, "{name}: frames");
            assert_eq!(encoded.keys.len(), anim.keys.len(), "{name}: keys");
            let mut differing_keys = 0;
            for (k, (x, y)) in anim.keys.iter().zip(&encoded.keys).enumerate() {
                assert_eq!(stored(x), stored(y), "{name}: key {k} layout");
                assert_eq!(x.rotation, y.rotation, "{name}: key {k} rotation");
                assert!(unit_distance(x, y) <= 1, "{name}: key {k}: {x:?} vs {y:?}");
                differing_keys += usize::from(x != y);
            }
            assert_box_from_decoded_values(
                &format!("{name}: translation"),
                &encoded.boxes.translation,
                &anim.boxes.translation,
            );
            assert_box_from_decoded_values(
                &format!("{name}: scale"),
                &encoded.boxes.scale,
                &anim.boxes.scale,
            );
            keys_total += anim.keys.len();
            keys_differ += differing_keys;
            report.push(format!(
                "{} animation {a}: {differing_keys} of {} keys differ",
                path.file_name().unwrap().to_string_lossy(),
                anim.keys.len()
            ));
            rebuilt.animations[a] = encoded;
        }
        // Same layout, so the same size; the bytes are the same but for ulps of boxes.
        let out = rebuilt.write().unwrap();
        assert_eq!(out.len(), bytes.len(), "{name}: re-encoded size");
        identical += usize::from(out == bytes);
    }
    println!(
        "value-only re-encode: {identical} of {files} an10 files byte-identical; {keys_differ} of {keys_total} keys differ"
    );
    println!(
        "decode->encode->decode worst error: translation {worst_t:e}, rotation {worst_r:e} (i16 units {:.3}), scale {worst_s:e}",
        worst_r * 32767.0
    );
    for r in &report {
        println!("  {r}");
    }
    assert_eq!(
        (files, keys_total),
        (AN10_FILES, AN10_KEYS),
        "the samples hold {AN10_FILES} an10 files with {AN10_KEYS} keys"
    );
    assert_eq!(keys_differ, 0, "keys differ");
    assert_eq!(identical, FILES_IDENTICAL, "byte-identical re-encodes");
    assert_eq!((worst_t, worst_s), (0.0, 0.0), "decode -> encode -> decode");
    // Rotations re-encode exactly: i16 / 32767 * 32767 rounds back to the same integer.
    assert_eq!(worst_r, 0.0);
}
