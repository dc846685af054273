#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The hostile corpus (`fuzz_checks::hostile`) through everything the tool does with a
//! file — its family's checks (info, faithful read and rewrite, conversion to
//! meshfmt-core, validate, its own writer and back; M3D's load and poses) and the
//! cross-format check (every writer, glTF and OBJ, each read back) — with every
//! operation under a budget of [`LIMIT`], in a child process per input whose global
//! allocator is capped at `2 x LIMIT + 32 MiB + 16 x input` (a budget bounds what is
//! charged; a growing buffer's doubling can hold up to twice that for a moment). An allocation past the cap
//! aborts the child, a panic fails it, and a child that runs past [`DEADLINE`] is
//! killed: each is a failure of this test, naming the input. The table it prints (peak
//! heap and time per input) is the figure the memory contract rests on.
//!
//! One test in this binary, so no other test shares the allocation counter.

use std::alloc::System;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cap::Cap;
use meshfmt_core::Limits;

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

/// The budget of every operation in the children.
const LIMIT: u64 = 64 << 20;

/// A child still running after this has hung (every input finishes in well under a
/// second in a release build; this is a hang detector, not a speed target).
const DEADLINE: Duration = Duration::from_secs(120);

const ONE: &str = "MESHFMT_HOSTILE_ONE";

fn cap_for(input: usize) -> usize {
    2 * LIMIT as usize + (32 << 20) + 16 * input
}

/// In a child: the named input through every check, then its peak heap.
fn run_one(path: &Path, family: &str) {
    let data = std::fs::read(path).expect("hostile input written by the parent");
    let base = ALLOC.allocated();
    ALLOC
        .set_limit(base + cap_for(data.len()))
        .expect("cap above what is allocated");
    let limits = Limits {
        max_alloc_bytes: LIMIT,
        ..Limits::DEFAULT
    };
    let started = Instant::now();
    fuzz_checks::run_target_with(family, &data, limits);
    fuzz_checks::check_convert_with(&data, limits);
    let ms = started.elapsed().as_millis();
    ALLOC.set_limit(usize::MAX).ok();
    println!(
        "HOSTILE peak={} ms={ms}",
        ALLOC.max_allocated().saturating_sub(base)
    );
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile")
}

#[test]
fn hostile_corpus_stays_within_budget_and_time() {
    if let Ok(one) = std::env::var(ONE) {
        let (family, file) = one.split_once(':').expect("family:file");
        return run_one(&dir().join(file), family);
    }
    let corpus = fuzz_checks::hostile::corpus();
    std::fs::create_dir_all(dir()).unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut failures = Vec::new();
    let mut families = std::collections::BTreeSet::new();
    println!(
        "{:<24} {:>10} {:>12} {:>10}   attack",
        "input", "bytes", "peak heap", "time"
    );
    for h in &corpus {
        families.insert(h.family);
        std::fs::write(dir().join(h.file_name()), &h.bytes).unwrap();
        let started = Instant::now();
        let mut child = Command::new(&exe)
            .args([
                "hostile_corpus_stays_within_budget_and_time",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(ONE, format!("{}:{}", h.family, h.file_name()))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if started.elapsed() > DEADLINE {
                child.kill().ok();
                child.wait().ok();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let output = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let peak = stdout
            .lines()
            .find_map(|l| l.split_once("HOSTILE peak=").map(|(_, rest)| rest))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|p| p.parse::<usize>().ok());
        match (status, peak) {
            (Some(s), Some(peak)) if s.success() => println!(
                "{:<24} {:>10} {:>9} MiB {:>8} ms   {}",
                h.name,
                h.bytes.len(),
                peak >> 20,
                started.elapsed().as_millis(),
                h.attack
            ),
            (None, _) => failures.push(format!("{}: still running after {DEADLINE:?}", h.name)),
            (Some(s), _) => failures.push(format!(
                "{}: the child failed ({s}): {}",
                h.name,
                String::from_utf8_lossy(&output.stderr)
                    .lines()
                    .filter(|l| l.contains("panicked") || l.contains("memory allocation"))
                    .collect::<Vec<_>>()
                    .join(" | ")
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        families.len() >= 5 && corpus.len() >= 12,
        "the corpus covers {} families in {} inputs",
        families.len(),
        corpus.len()
    );
}
