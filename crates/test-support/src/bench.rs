//! The loops every format's divan bench runs, written once: a memcpy of the workload's
//! bytes (the baseline the operations sit beside) and one operation over every item.

use std::hint::black_box;

use divan::Bencher;
use divan::counter::BytesCount;

/// The throughput counter for `buffers`: their total size.
pub fn bytes_of(buffers: &[Vec<u8>]) -> BytesCount {
    BytesCount::new(buffers.iter().map(Vec::len).sum::<usize>())
}

/// The memcpy baseline: each pass copies every buffer into a preallocated, already
/// touched destination.
pub fn memcpy(b: Bencher, buffers: &[Vec<u8>]) {
    let mut dst: Vec<Vec<u8>> = buffers.iter().map(|b| vec![1; b.len()]).collect();
    b.counter(bytes_of(buffers)).bench_local(|| {
        for (d, src) in dst.iter_mut().zip(buffers) {
            black_box(&mut *d).copy_from_slice(black_box(src));
        }
    });
}

/// Each pass runs `f` on every item (its input and result kept from the optimizer),
/// counted as `bytes` of throughput.
pub fn each<T, R>(b: Bencher, bytes: BytesCount, items: &[T], f: impl Fn(&T) -> R) {
    b.counter(bytes).bench_local(|| {
        for item in items {
            black_box(f(black_box(item)));
        }
    });
}
