//! read / write / to_core / from_core on a generated clip (64 bones x 3000 frames, as
//! an10) and on every UNIGINE animation sample (when ../shared/samples is there; a
//! notice otherwise), beside a memcpy of the same bytes. Throughput is in bytes of the
//! file(s). Run with `cargo bench -p unigine-anim`; `cargo xtask bench` puts these
//! figures, as ratios to memcpy, in BENCHMARKS.md.

use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::BytesCount;
use meshfmt_core::Model;
use test_support::bench as workloads_bench;
use test_support::workloads;
use unigine_anim::{AnimFile, TargetVersion, WriteOptions};

fn main() {
    divan::main();
}

/// Files of one workload, read and converted once up front.
struct Set {
    bytes: Vec<Vec<u8>>,
    files: Vec<AnimFile>,
    models: Vec<(Model, TargetVersion)>,
}

fn version(magic: &str) -> TargetVersion {
    match magic {
        "as08" => TargetVersion::As08,
        "an11" => TargetVersion::An11,
        "an12" => TargetVersion::An12,
        _ => TargetVersion::An10,
    }
}

impl Set {
    fn new(bytes: Vec<Vec<u8>>) -> Set {
        let (bytes, files): (Vec<_>, Vec<_>) = bytes
            .into_iter()
            .filter_map(|b| {
                let f = unigine_anim::read(&b).ok()?;
                Some((b, f))
            })
            .unzip();
        let models = files
            .iter()
            .filter_map(|f| Some((f.to_core().ok()?.value, version(f.version()))))
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

static CLIP: LazyLock<Set> = LazyLock::new(|| {
    let model = workloads::animated_chain(64, 3000);
    let bytes = AnimFile::from_core_with(
        &model,
        &WriteOptions {
            version: TargetVersion::An10,
            ..WriteOptions::default()
        },
    )
    .and_then(|c| c.value.write())
    .unwrap_or_else(|e| panic!("generating the clip: {e}"));
    Set::new(vec![bytes])
});
static SAMPLES: LazyLock<Option<Set>> = LazyLock::new(|| {
    let s = workloads::samples("unigine", &["anim"], "unigine-anim benches", |_, b| {
        unigine_anim::sniff(b)
    })?;
    Some(Set::new(s.into_iter().map(|s| s.bytes).collect()))
});

/// The workloads: the generated clip, and the samples when present.
fn workloads() -> impl Iterator<Item = &'static str> {
    let samples = SAMPLES.is_some().then_some("samples");
    ["clip-64x3000"].into_iter().chain(samples)
}

fn set(name: &str) -> &'static Set {
    match name {
        "samples" => SAMPLES.as_ref().unwrap_or(&CLIP),
        _ => &CLIP,
    }
}

#[divan::bench(args = workloads(), sample_count = 20)]
fn memcpy(b: Bencher, w: &str) {
    let s = set(w);
    workloads_bench::memcpy(b, &s.bytes);
}

#[divan::bench(args = workloads(), sample_count = 20)]
fn read(b: Bencher, w: &str) {
    let s = set(w);
    workloads_bench::each(b, s.len(), &s.bytes, |bytes| {
        unigine_anim::read(bytes).is_ok()
    });
}

#[divan::bench(args = workloads(), sample_count = 20)]
fn write(b: Bencher, w: &str) {
    let s = set(w);
    workloads_bench::each(b, s.len(), &s.files, |f| f.write().map(|b| b.len()).ok());
}

#[divan::bench(args = workloads(), sample_count = 20)]
fn to_core(b: Bencher, w: &str) {
    let s = set(w);
    workloads_bench::each(b, s.len(), &s.files, |f| {
        f.to_core().map(|m| m.value.animations.len()).ok()
    });
}

#[divan::bench(args = workloads(), sample_count = 20)]
fn from_core(b: Bencher, w: &str) {
    let s = set(w);
    workloads_bench::each(b, s.len(), &s.models, |(m, v)| {
        AnimFile::from_core_with(
            m,
            &WriteOptions {
                version: *v,
                ..WriteOptions::default()
            },
        )
        .map(|c| c.losses.len())
        .ok()
    });
}
