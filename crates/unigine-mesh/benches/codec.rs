//! read / write / to_core / from_core on a generated 1,000,000-triangle grid (as ms11
//! and as ms14) and on every UNIGINE mesh sample (when ../shared/samples is there; a
//! notice otherwise), beside a memcpy of the same bytes. Throughput is in bytes of the
//! file(s). Run with `cargo bench -p unigine-mesh`; `cargo xtask bench` puts these
//! figures, as ratios to memcpy, in BENCHMARKS.md.

use std::hint::black_box;
use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::BytesCount;
use meshfmt_core::Model;
use test_support::bench as workloads_bench;
use test_support::workloads::{self, MILLION};
use unigine_mesh::{MeshFile, TargetVersion, WriteOptions};

fn main() {
    divan::main();
}

/// Files of one workload, read and converted once up front.
struct Set {
    bytes: Vec<Vec<u8>>,
    files: Vec<MeshFile>,
    models: Vec<Model>,
    options: Vec<WriteOptions>,
}

impl Set {
    fn new(bytes: Vec<Vec<u8>>) -> Set {
        let files: Vec<MeshFile> = bytes
            .iter()
            .filter_map(|b| unigine_mesh::read(b).ok())
            .collect();
        let bytes = bytes
            .into_iter()
            .filter(|b| unigine_mesh::read(b).is_ok())
            .collect();
        let (models, options) = files
            .iter()
            .filter_map(|f| {
                let opts = WriteOptions {
                    version: version(f.version()),
                    ..WriteOptions::default()
                };
                Some((f.to_core().ok()?.value, opts))
            })
            .unzip();
        Set {
            bytes,
            files,
            models,
            options,
        }
    }

    fn len(&self) -> BytesCount {
        workloads_bench::bytes_of(&self.bytes)
    }
}

fn version(magic: &str) -> TargetVersion {
    match magic {
        "ms10" => TargetVersion::Ms10,
        "ms13" => TargetVersion::Ms13,
        "ms14" => TargetVersion::Ms14,
        "mi08" => TargetVersion::Mi08,
        "ms08" => TargetVersion::Ms08,
        _ => TargetVersion::Ms11,
    }
}

fn generated(version: TargetVersion) -> Set {
    let opts = WriteOptions {
        version,
        ..WriteOptions::default()
    };
    let bytes = MeshFile::from_core_with(&workloads::grid(MILLION), &opts)
        .and_then(|c| c.value.write())
        .unwrap_or_else(|e| panic!("generating the grid: {e}"));
    Set::new(vec![bytes])
}

static MS11: LazyLock<Set> = LazyLock::new(|| generated(TargetVersion::Ms11));
static MS14: LazyLock<Set> = LazyLock::new(|| generated(TargetVersion::Ms14));
static SAMPLES: LazyLock<Option<Set>> = LazyLock::new(|| {
    let s = workloads::samples("unigine", &["mesh"], "unigine-mesh benches", |_, b| {
        unigine_mesh::sniff(b)
    })?;
    Some(Set::new(s.into_iter().map(|s| s.bytes).collect()))
});

/// The workloads: the generated grid as ms11 and ms14, and the samples when present.
fn workloads() -> impl Iterator<Item = &'static str> {
    let samples = SAMPLES.is_some().then_some("samples");
    ["grid-1M-ms11", "grid-1M-ms14"].into_iter().chain(samples)
}

fn set(name: &str) -> &'static Set {
    match name {
        "grid-1M-ms11" => &MS11,
        "grid-1M-ms14" => &MS14,
        _ => SAMPLES.as_ref().unwrap_or(&MS11),
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
        unigine_mesh::read(bytes).is_ok()
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
    b.counter(s.len()).bench_local(|| {
        for (m, o) in s.models.iter().zip(&s.options) {
            black_box(MeshFile::from_core_with(m, o).map(|c| c.losses.len()).ok());
        }
    });
}
