//! Decode throughput: bulk `le_array` against one nom call per float.
//!
//! Run with `cargo bench -p parsing-primitives`. A plain timing harness (no extra
//! dependency): best of several runs over 16 MiB of f32 data.

use std::hint::black_box;
use std::time::Instant;

use parsing_primitives::{Reader, Writer};

fn best_of<F: FnMut() -> usize>(runs: usize, mut f: F) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..runs {
        let t = Instant::now();
        black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn main() {
    let n: usize = 4 << 20; // 4 Mi floats = 16 MiB
    let mut w = Writer::new("bench");
    let floats: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    w.le_slice(&floats);
    let bytes = w.into_inner();
    let mib = bytes.len() as f64 / (1024.0 * 1024.0);

    let bulk = best_of(10, || {
        let mut r = Reader::new("bench", &bytes);
        r.le_array::<[f32; 3]>((n / 3) as u64)
            .map(|v| v.len())
            .unwrap_or(0)
    });
    let per_float = best_of(10, || {
        let mut r = Reader::new("bench", &bytes);
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            match r.f32_le() {
                Ok(x) => v.push(x),
                Err(_) => break,
            }
        }
        v.len()
    });
    let encode = best_of(10, || {
        let mut w = Writer::with_capacity("bench", bytes.len());
        w.le_slice(&floats);
        w.len()
    });
    let mut compact_bytes = Writer::new("bench");
    for i in 0..(1u32 << 20) {
        compact_bytes.compact_u32(i);
    }
    let compact_bytes = compact_bytes.into_inner();
    let compact = best_of(10, || {
        let mut r = Reader::new("bench", &compact_bytes);
        let mut sum = 0i64;
        while let Ok(v) = r.compact_int() {
            sum += v;
        }
        sum as usize
    });

    println!("bulk le_array<[f32;3]> decode: {:>8.0} MiB/s", mib / bulk);
    println!(
        "per-float f32_le decode:       {:>8.0} MiB/s",
        mib / per_float
    );
    println!("bulk le_slice<f32> encode:     {:>8.0} MiB/s", mib / encode);
    println!(
        "compact int decode:            {:>8.1} M ints/s ({} ints, {} bytes)",
        (1u64 << 20) as f64 / compact / 1e6,
        1u32 << 20,
        compact_bytes.len()
    );
}
