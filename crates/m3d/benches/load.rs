//! read / load / write / to_core / from_core on a generated 1,000,000-triangle grid and
//! on the M3D samples (binary and ASCII, not the crafted ones; when ../shared/samples is
//! there, a notice otherwise), beside a memcpy of the same bytes. Throughput is in bytes
//! of the file(s). `load` is `m3d_format::load`, the work of m3d.h's m3d_load (parse,
//! inflate, post-process, decode inlined textures) in one pass. Run with `cargo bench -p m3d-format`; `cargo xtask bench` puts
//! these figures in BENCHMARKS.md, as ratios to memcpy and beside the reference m3d.h.

use std::hint::black_box;
use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::BytesCount;
use m3d_format::{File, LoadOptions, WriteOptions};
use meshfmt_core::Model;
use test_support::bench as workloads_bench;
use test_support::workloads::{self, MILLION};

fn main() {
    divan::main();
}

/// Files of one workload, read and converted once up front.
struct Set {
    bytes: Vec<Vec<u8>>,
    files: Vec<File>,
    models: Vec<Model>,
}

impl Set {
    fn new(bytes: Vec<Vec<u8>>) -> Set {
        let (bytes, files): (Vec<_>, Vec<_>) = bytes
            .into_iter()
            .filter_map(|b| {
                let f = m3d_format::read(&b).ok()?;
                Some((b, f))
            })
            .unzip();
        let models = files
            .iter()
            .filter_map(|f| f.to_core().ok().map(|c| c.value))
            .collect();
        Set {
            bytes,
            files,
            models,
        }
    }

    fn len(&self) -> BytesCount {
        workloads_bench::bytes_of(&self.bytes)
    }
}

static GRID: LazyLock<Set> = LazyLock::new(|| {
    let bytes = File::from_core_with(&workloads::grid(MILLION), &WriteOptions::default())
        .and_then(|c| c.value.write())
        .unwrap_or_else(|e| panic!("generating the grid: {e}"));
    Set::new(vec![bytes])
});
static SAMPLES: LazyLock<Option<Set>> = LazyLock::new(|| {
    let s = workloads::samples("m3d", &["m3d", "a3d"], "m3d-format benches", |p, _| {
        !p.components().any(|c| c.as_os_str() == "crafted")
    })?;
    Some(Set::new(s.into_iter().map(|s| s.bytes).collect()))
});

/// The workloads: the generated grid, and the samples when present.
fn workloads() -> impl Iterator<Item = &'static str> {
    let samples = SAMPLES.is_some().then_some("samples");
    ["grid-1M"].into_iter().chain(samples)
}

fn set(name: &str) -> &'static Set {
    match name {
        "samples" => SAMPLES.as_ref().unwrap_or(&GRID),
        _ => &GRID,
    }
}

#[divan::bench(args = workloads(), sample_count = 10)]
fn memcpy(b: Bencher, w: &str) {
    let s = set(w);
    workloads_bench::memcpy(b, &s.bytes);
}

#[divan::bench(args = workloads(), sample_count = 10)]
fn read(b: Bencher, w: &str) {
    let s = set(w);
    workloads_bench::each(b, s.len(), &s.bytes, |bytes| {
        m3d_format::read(bytes).is_ok()
    });
}

#[divan::bench(args = workloads(), sample_count = 10)]
fn load(b: Bencher, w: &str) {
    let s = set(w);
    workloads_bench::each(b, s.len(), &s.bytes, |bytes| {
        let l = m3d_format::load(bytes, &LoadOptions::default());
        black_box(l.map(|l| l.vertices.len()).ok());
    });
}

#[divan::bench(args = workloads(), sample_count = 10)]
fn write(b: Bencher, w: &str) {
    let s = set(w);
    workloads_bench::each(b, s.len(), &s.files, |f| f.write().map(|b| b.len()).ok());
}

#[divan::bench(args = workloads(), sample_count = 10)]
fn to_core(b: Bencher, w: &str) {
    let s = set(w);
    workloads_bench::each(b, s.len(), &s.files, |f| {
        f.to_core().map(|m| m.value.vertex_count()).ok()
    });
}

#[divan::bench(args = workloads(), sample_count = 10)]
fn from_core(b: Bencher, w: &str) {
    let s = set(w);
    workloads_bench::each(b, s.len(), &s.models, |m| {
        File::from_core_with(m, &WriteOptions::default())
            .map(|c| c.losses.len())
            .ok()
    });
}
