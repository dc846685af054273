//! Decode every real an10 file to values, re-encode from the values alone, compare
//! bytes; and the decode -> encode -> decode error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use test_support::samples_or_skip;
use unigine_anim::an10::Animation;
use unigine_anim::{AnimFile, read};

fn anim_files(dir: &Path) -> Vec<PathBuf> {
    test_support::files_under(dir, &["anim"])
}

#[test]
fn values_alone_reencode_to_the_original_bytes() {
    let Some(dir) = samples_or_skip("unigine", "values_alone_reencode_to_the_original_bytes")
    else {
        return;
    };
    let (mut files, mut identical, mut keys_total, mut keys_differ) = (0, 0, 0, 0);
    let (mut worst_t, mut worst_r, mut worst_s) = (0.0f32, 0.0f32, 0.0f32);
    let mut report = Vec::new();
    for path in anim_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(AnimFile::An10(original)) = read(&bytes) else {
            continue;
        };
        files += 1;
        let mut rebuilt = original.clone();
        for (a, anim) in original.animations.iter().enumerate() {
            let values = anim.decode(&original.bind_pose);
            let encoded = Animation::encode(anim.name.clone(), &values);
            // decode -> encode -> decode stays within half a step of the new boxes
            // (plus f32 rounding of the decode).
            let again = encoded.decode(&original.bind_pose);
            let half_step = |b: &unigine_anim::an10::QuantBox, i: usize| {
                b.size[i].abs() / 65535.0 * 0.5
                    + 4.0 * f32::EPSILON * (b.min[i].abs() + b.size[i].abs())
            };
            for (x, y) in values.translation.iter().zip(&again.translation) {
                for i in 0..3 {
                    let e = (x[i] - y[i]).abs();
                    assert!(
                        e <= half_step(&encoded.translation_box, i),
                        "{}: translation error {e}",
                        path.display()
                    );
                    worst_t = worst_t.max(e);
                }
            }
            for (x, y) in values.scale.iter().zip(&again.scale) {
                for i in 0..3 {
                    let e = (x[i] - y[i]).abs();
                    assert!(
                        e <= half_step(&encoded.scale_box, i),
                        "{}: scale error {e}",
                        path.display()
                    );
                    worst_s = worst_s.max(e);
                }
            }
            for (x, y) in values.rotation.iter().zip(&again.rotation) {
                for i in 0..4 {
                    worst_r = worst_r.max((x[i] - y[i]).abs());
                }
            }
            let differing_keys = anim
                .keys
                .iter()
                .zip(&encoded.keys)
                .filter(|(x, y)| x != y)
                .count();
            keys_total += anim.keys.len();
            keys_differ += differing_keys;
            // What the encoder can derive from values alone matches the exporter:
            // which kinds are animated (the flag byte), and the box minima.
            assert_eq!(encoded.flags, anim.flags, "{}", path.display());
            assert_eq!(encoded.keys.len(), anim.keys.len());
            if anim.flags & 0x07 != 0 {
                assert_eq!(
                    encoded.translation_box.min,
                    anim.translation_box.min,
                    "{}",
                    path.display()
                );
            }
            if encoded != *anim {
                report.push(format!(
                    "{} animation {a}: boxes {} / {}, flags {}, {differing_keys} of {} keys differ",
                    path.file_name().unwrap().to_string_lossy(),
                    if encoded.translation_box == anim.translation_box {
                        "same"
                    } else {
                        "differ"
                    },
                    if encoded.scale_box == anim.scale_box {
                        "same"
                    } else {
                        "differ"
                    },
                    if encoded.flags == anim.flags {
                        "same"
                    } else {
                        "differ"
                    },
                    anim.keys.len()
                ));
            }
            rebuilt.animations[a] = encoded;
        }
        if rebuilt.write().unwrap() == bytes {
            identical += 1;
        }
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
    // Rotations re-encode exactly: i16 / 32767 * 32767 rounds back to the same integer.
    assert_eq!(worst_r, 0.0);
}
