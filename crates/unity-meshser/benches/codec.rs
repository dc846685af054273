//! read / write / to_core / from_core on a generated 64,000-triangle grid (the format's
//! maximum; written with both quantizations), beside a memcpy of the same bytes.
//! Throughput is in bytes of the file. No public MeshSerializer2 samples exist. Run with
//! `cargo bench -p unity-meshser`; `cargo xtask bench` puts these figures, as ratios to
//! memcpy, in BENCHMARKS.md.

use std::hint::black_box;
use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::BytesCount;
use meshfmt_core::Model;
use test_support::workloads;
use unity_meshser::{MAX_COUNT, MeshFile, Quantization, WriteOptions};

fn main() {
    divan::main();
}

/// The grid written with `quantization`, read back and converted once up front.
struct Set {
    bytes: Vec<u8>,
    file: MeshFile,
    model: Model,
    options: WriteOptions,
}

fn generated(quantization: Quantization) -> Set {
    let options = WriteOptions {
        quantization,
        ..WriteOptions::default()
    };
    let model = workloads::grid(u32::from(MAX_COUNT));
    let bytes = MeshFile::from_core_with(&model, &options)
        .and_then(|c| c.value.write())
        .unwrap_or_else(|e| panic!("generating the grid: {e}"));
    let file = unity_meshser::read(&bytes).unwrap_or_else(|e| panic!("{e}"));
    let model = file.to_core().unwrap_or_else(|e| panic!("{e}")).value;
    Set {
        bytes,
        file,
        model,
        options,
    }
}

static ROUNDED: LazyLock<Set> = LazyLock::new(|| generated(Quantization::Rounded));
static COMPATIBLE: LazyLock<Set> = LazyLock::new(|| generated(Quantization::Compatible));

const WORKLOADS: [&str; 2] = ["grid-64k-rounded", "grid-64k-compatible"];

fn set(name: &str) -> &'static Set {
    if name == WORKLOADS[1] {
        &COMPATIBLE
    } else {
        &ROUNDED
    }
}

#[divan::bench(args = WORKLOADS)]
fn memcpy(b: Bencher, w: &str) {
    let s = set(w);
    let mut dst = vec![1u8; s.bytes.len()];
    b.counter(BytesCount::new(s.bytes.len()))
        .bench_local(|| black_box(&mut dst).copy_from_slice(black_box(&s.bytes)));
}

#[divan::bench(args = WORKLOADS)]
fn read(b: Bencher, w: &str) {
    let s = set(w);
    b.counter(BytesCount::new(s.bytes.len()))
        .bench_local(|| unity_meshser::read(black_box(&s.bytes)).is_ok());
}

#[divan::bench(args = WORKLOADS)]
fn write(b: Bencher, w: &str) {
    let s = set(w);
    b.counter(BytesCount::new(s.bytes.len()))
        .bench_local(|| s.file.write().map(|b| b.len()).ok());
}

#[divan::bench(args = WORKLOADS)]
fn to_core(b: Bencher, w: &str) {
    let s = set(w);
    b.counter(BytesCount::new(s.bytes.len()))
        .bench_local(|| s.file.to_core().map(|m| m.value.vertex_count()).ok());
}

#[divan::bench(args = WORKLOADS)]
fn from_core(b: Bencher, w: &str) {
    let s = set(w);
    b.counter(BytesCount::new(s.bytes.len())).bench_local(|| {
        MeshFile::from_core_with(&s.model, &s.options)
            .map(|c| c.losses.len())
            .ok()
    });
}
