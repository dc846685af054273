//! Decode throughput: bulk `le_array` against one nom call per float.
//!
//! Run with `cargo bench -p parsing-primitives`. A plain timing harness (no extra
//! dependency): best of several runs over 16 MiB of f32 data. Each closure returns a
//! value computed from every decoded element, so no copy can be optimized away.

use std::hint::black_box;
use std::time::Instant;

use parsing_primitives::{Reader, Writer};

fn best_of<F: FnMut() -> u64>(runs: usize, mut f: F) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..runs {
        let t = Instant::now();
        black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn checksum(v: &[f32]) -> u64 {
    v.iter()
        .fold(0u64, |a, x| a.wrapping_add(u64::from(x.to_bits())))
}

fn main() {
    let n: usize = 4 << 20; // 4 Mi floats = 16 MiB
    let mut w = Writer::new("bench");
    let floats: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    w.le_slice(&floats);
    let bytes = w.into_inner();
    let mib = bytes.len() as f64 / (1024.0 * 1024.0);
    let expected = checksum(&floats);

    let bulk = best_of(10, || {
        let mut r = Reader::new("bench", black_box(&bytes));
        match r.le_array::<f32>(n as u64) {
            Ok(v) => {
                assert_eq!(v.len(), n);
                checksum(black_box(&v))
            }
            Err(e) => panic!("{e}"),
        }
    });
    let per_float = best_of(10, || {
        let mut r = Reader::new("bench", black_box(&bytes));
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            match r.f32_le() {
                Ok(x) => v.push(x),
                Err(e) => panic!("{e}"),
            }
        }
        checksum(black_box(&v))
    });
    let checksum_only = best_of(10, || checksum(black_box(&floats)));
    let encode = best_of(10, || {
        let mut w = Writer::with_capacity("bench", bytes.len());
        w.le_slice(black_box(&floats));
        let out = w.into_inner();
        u64::from(black_box(&out)[out.len() - 1])
    });
    let mut compact_bytes = Writer::new("bench");
    for i in 0..(1u32 << 20) {
        compact_bytes.compact_u32(i);
    }
    let compact_bytes = compact_bytes.into_inner();
    let compact = best_of(10, || {
        let mut r = Reader::new("bench", black_box(&compact_bytes));
        let mut sum = 0i64;
        while let Ok(v) = r.compact_int() {
            sum += v;
        }
        sum as u64
    });
    assert_eq!(black_box(expected), expected);

    // The checksum pass is timed alone and subtracted, so the figures are decode only.
    println!(
        "bulk le_array<f32> decode: {:>7.0} MiB/s",
        mib / (bulk - checksum_only).max(1e-9)
    );
    println!(
        "per-float f32_le decode:   {:>7.0} MiB/s",
        mib / (per_float - checksum_only).max(1e-9)
    );
    println!("bulk le_slice<f32> encode: {:>7.0} MiB/s", mib / encode);
    println!(
        "compact int decode:        {:>7.1} M ints/s ({} ints, {} bytes)",
        (1u64 << 20) as f64 / compact / 1e6,
        1u32 << 20,
        compact_bytes.len()
    );
}
