//! Decode and encode throughput over 16 MiB of f32 data: bulk `le_array` against one
//! `f32_le` call per float, bulk `le_slice` encoding, and compact ints, beside a
//! memcpy of the same bytes. Each decode sums what it decoded, so no copy can be
//! optimized away; `checksum` times that sum alone. Run with
//! `cargo bench -p parsing-primitives`.

use std::hint::black_box;
use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::{BytesCount, ItemsCount};
use parsing_primitives::{Reader, Writer};

fn main() {
    divan::main();
}

/// Floats in the buffer: 4 Mi, 16 MiB.
const N: usize = 4 << 20;
/// Compact ints in their buffer: 1 Mi.
const COMPACT: u32 = 1 << 20;

static FLOATS: LazyLock<Vec<f32>> = LazyLock::new(|| (0..N).map(|i| i as f32 * 0.5).collect());
static BYTES: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let mut w = Writer::new("bench");
    w.le_slice(&FLOATS);
    w.into_inner()
});
static COMPACT_BYTES: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let mut w = Writer::new("bench");
    for i in 0..COMPACT {
        w.compact_u32(i);
    }
    w.into_inner()
});

fn checksum(v: &[f32]) -> u64 {
    v.iter()
        .fold(0u64, |a, x| a.wrapping_add(u64::from(x.to_bits())))
}

#[divan::bench(sample_count = 20)]
fn memcpy(b: Bencher) {
    let mut dst = vec![1u8; BYTES.len()];
    b.counter(BytesCount::new(BYTES.len()))
        .bench_local(|| black_box(&mut dst).copy_from_slice(black_box(&BYTES)));
}

#[divan::bench(sample_count = 20)]
fn checksum_only(b: Bencher) {
    b.counter(BytesCount::new(BYTES.len()))
        .bench_local(|| checksum(black_box(&FLOATS)));
}

#[divan::bench(sample_count = 20)]
fn bulk_le_array_decode(b: Bencher) {
    b.counter(BytesCount::new(BYTES.len())).bench_local(|| {
        let mut r = Reader::new("bench", black_box(&BYTES));
        r.le_array::<f32>(N as u64).map(|v| checksum(&v)).ok()
    });
}

#[divan::bench(sample_count = 20)]
fn per_float_decode(b: Bencher) {
    b.counter(BytesCount::new(BYTES.len())).bench_local(|| {
        let mut r = Reader::new("bench", black_box(&BYTES));
        let mut v = Vec::with_capacity(N);
        while let Ok(x) = r.f32_le() {
            v.push(x);
        }
        checksum(&v)
    });
}

#[divan::bench(sample_count = 20)]
fn bulk_le_slice_encode(b: Bencher) {
    b.counter(BytesCount::new(BYTES.len())).bench_local(|| {
        let mut w = Writer::with_capacity("bench", BYTES.len());
        w.le_slice(black_box(&FLOATS));
        w.into_inner().len()
    });
}

#[divan::bench(sample_count = 20)]
fn compact_int_decode(b: Bencher) {
    b.counter(ItemsCount::new(COMPACT)).bench_local(|| {
        let mut r = Reader::new("bench", black_box(&COMPACT_BYTES));
        let mut sum = 0i64;
        while let Ok(v) = r.compact_int() {
            sum += v;
        }
        sum
    });
}
