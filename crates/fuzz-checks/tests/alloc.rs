//! Allocation bound: every count field of every small fixture is turned hostile (the
//! largest i32 in either byte order, the largest compact int) and the file decoded under a
//! global allocator capped at a multiple of the input size. A decoder that allocates
//! from a count before checking it against the bytes left hits the cap, the allocation
//! fails and the process aborts, failing this test.
//!
//! The bound is `1 MiB + 300 x input`: decoded arrays are a few times their stored size
//! (a 1-byte compact index becomes an `i64`, a 2-byte quantized value an `f32`), and an
//! LZ4 block (ms14) may inflate 255 times, within `Limits::max_alloc_bytes`.
//! One test in this binary, so no other test's allocations share the counter.
//! Set MESHFMT_ALLOC_TRACE=1 to print each case before it runs (to find the culprit
//! after an abort).

use std::alloc::System;

use cap::Cap;
use meshfmt_core::Budget;

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

const PATTERNS: &[&[u8]] = &[
    &[0xff, 0xff, 0xff, 0x7f],       // i32::MAX, little-endian
    &[0x7f, 0xff, 0xff, 0xff],       // i32::MAX, big-endian (Vitaboy)
    &[0xbf, 0xff, 0xff, 0xff, 0x0f], // largest 5-byte compact int (UNIGINE)
    &[0xff, 0xff],                   // u16::MAX (MeshSerializer2 counts)
];

#[test]
fn hostile_counts_stay_within_the_bound() {
    let trace = std::env::var_os("MESHFMT_ALLOC_TRACE").is_some();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let (mut files, mut cases) = (0, 0u64);
    for path in test_support::files_under(&root, &[]) {
        let Ok(data) = std::fs::read(&path) else {
            continue;
        };
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        if ext == "txt" || ext == "md" || data.len() > 16 * 1024 {
            continue;
        }
        let Ok(format) = meshfmt::formats::detect(&data, &format!("x.{ext}")) else {
            continue;
        };
        let name = format!("x.{ext}");
        files += 1;
        let bound = (1 << 20) + 300 * data.len();
        for pattern in PATTERNS {
            for at in 0..data.len() {
                let mut bytes = data.clone();
                let end = (at + pattern.len()).min(bytes.len());
                bytes[at..end].copy_from_slice(&pattern[..end - at]);
                if trace {
                    eprintln!("{} at {at} {pattern:02x?}", path.display());
                }
                let base = ALLOC.allocated();
                ALLOC.set_limit(base + bound).ok();
                let _ = meshfmt::formats::summary(format, &bytes, &name, &Budget::default());
                let _ = meshfmt::formats::to_core(format, &bytes, &name, &Budget::default());
                ALLOC.set_limit(usize::MAX).ok();
                cases += 1;
            }
        }
    }
    assert!(files >= 20, "only {files} fixtures");
    println!("{cases} hostile variants of {files} fixtures decoded within 1 MiB + 300 x input");
}
