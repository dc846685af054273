//! The binary's contract: clean one-line errors with exit code 1, never a panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::{Command, Output};

fn meshfmt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshfmt"))
        .args(args)
        .output()
        .expect("the meshfmt binary runs")
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("meshfmt-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// xorshift64*: deterministic bytes without a dependency.
fn random_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.max(1);
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
        })
        .collect()
}

fn assert_clean_failure(out: &Output, expected: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(out.stdout.is_empty());
    assert!(stderr.starts_with("meshfmt: "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("backtrace"),
        "{stderr}"
    );
    assert!(
        stderr.contains(expected),
        "expected '{expected}' in: {stderr}"
    );
}

#[test]
fn random_kibibytes_are_rejected_cleanly() {
    for seed in 1..=16 {
        let path = temp_file(&format!("random{seed}.bin"), &random_bytes(seed, 1024));
        let out = meshfmt(&["info", path.to_str().unwrap()]);
        assert_clean_failure(&out, "unknown format");
        let out = meshfmt(&["info", "--json", path.to_str().unwrap()]);
        assert_clean_failure(&out, "unknown format");
    }
}

#[test]
fn ambiguous_and_missing_files() {
    let path = temp_file("noise.mesh", &random_bytes(99, 1024));
    let out = meshfmt(&["info", path.to_str().unwrap()]);
    assert_clean_failure(&out, "used by unigine-mesh and niotso-mesh");
    let out = meshfmt(&["info", "/nonexistent/file.mesh"]);
    assert_clean_failure(&out, "/nonexistent/file.mesh");
    let out = meshfmt(&["info", "--format", "nope", path.to_str().unwrap()]);
    assert_clean_failure(&out, "unknown format name 'nope'");
}

#[test]
fn formats_lists_every_crate() {
    let out = meshfmt(&["formats"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for name in [
        "unigine-mesh",
        "unigine-anim",
        "niotso-mesh",
        "unity-meshser",
        "m3d",
    ] {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
}
