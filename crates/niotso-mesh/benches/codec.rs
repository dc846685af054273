//! read / write / to_core / from_core on a generated 1,000,000-triangle grid (.mesh), a
//! generated clip (64 bones x 3000 frames, .anim) and the Vitaboy samples (.mesh and
//! .anim, when ../shared/samples is there; a notice otherwise), beside a memcpy of the
//! same bytes. Throughput is in bytes of the file(s). Run with
//! `cargo bench -p niotso-mesh`; `cargo xtask bench` puts these figures, as ratios to
//! memcpy, in BENCHMARKS.md.

use niotso_mesh::WriteOptions;
use std::hint::black_box;
use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::BytesCount;
use meshfmt_core::Model;
use niotso_mesh::{CoreOptions, Kind, VitaboyFile};
use test_support::bench as workloads_bench;
use test_support::workloads::{self, MILLION};

fn main() {
    divan::main();
}

/// Files of one kind, read and converted once up front.
struct Set {
    kind: Kind,
    bytes: Vec<Vec<u8>>,
    files: Vec<VitaboyFile>,
    models: Vec<Model>,
}

impl Set {
    fn new(kind: Kind, bytes: Vec<Vec<u8>>) -> Set {
        let (bytes, files): (Vec<_>, Vec<_>) = bytes
            .into_iter()
            .filter_map(|b| {
                let f = niotso_mesh::read_with(
                    &b,
                    &niotso_mesh::ReadOptions {
                        kind: Some(kind),
                        ..Default::default()
                    },
                )
                .ok()?;
                Some((b, f))
            })
            .unzip();
        let models = files
            .iter()
            .filter_map(|f| {
                Some(
                    f.to_core_with(&CoreOptions {
                        skeleton: None,
                        ..CoreOptions::default()
                    })
                    .ok()?
                    .value,
                )
            })
            .collect();
        Set {
            kind,
            bytes,
            files,
            models,
        }
    }

    fn generated(kind: Kind, model: &Model) -> Set {
        let bytes = VitaboyFile::from_core_with(
            model,
            &WriteOptions {
                kind,
                ..WriteOptions::default()
            },
        )
        .and_then(|c| c.value.write())
        .unwrap_or_else(|e| panic!("generating the {kind:?}: {e}"));
        Set::new(kind, vec![bytes])
    }

    fn len(&self) -> BytesCount {
        workloads_bench::bytes_of(&self.bytes)
    }
}

fn samples(kind: Kind, ext: &str) -> Option<Set> {
    let s = workloads::samples("niotso", &[ext], "niotso-mesh benches", |_, _| true)?;
    Some(Set::new(kind, s.into_iter().map(|s| s.bytes).collect()))
}

static GRID: LazyLock<Set> =
    LazyLock::new(|| Set::generated(Kind::Mesh, &workloads::grid(MILLION)));
static CLIP: LazyLock<Set> =
    LazyLock::new(|| Set::generated(Kind::Anim, &workloads::animated_chain(64, 3000)));
static MESHES: LazyLock<Option<Set>> = LazyLock::new(|| samples(Kind::Mesh, "mesh"));
static ANIMS: LazyLock<Option<Set>> = LazyLock::new(|| samples(Kind::Anim, "anim"));

/// The workloads: the generated grid and clip, and the samples when present.
fn workloads() -> impl Iterator<Item = &'static str> {
    let samples = MESHES.is_some().then_some(["mesh-samples", "anim-samples"]);
    ["grid-1M", "clip-64x3000"]
        .into_iter()
        .chain(samples.into_iter().flatten())
}

fn set(name: &str) -> &'static Set {
    match name {
        "clip-64x3000" => &CLIP,
        "mesh-samples" => MESHES.as_ref().unwrap_or(&GRID),
        "anim-samples" => ANIMS.as_ref().unwrap_or(&CLIP),
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
        niotso_mesh::read_with(
            bytes,
            &niotso_mesh::ReadOptions {
                kind: Some(s.kind),
                ..Default::default()
            },
        )
        .is_ok()
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
        let m = f.to_core_with(&CoreOptions {
            skeleton: None,
            ..CoreOptions::default()
        });
        black_box(m.map(|m| m.value.vertex_count()).ok());
    });
}

#[divan::bench(args = workloads(), sample_count = 10)]
fn from_core(b: Bencher, w: &str) {
    let s = set(w);
    workloads_bench::each(b, s.len(), &s.models, |m| {
        let f = VitaboyFile::from_core_with(
            m,
            &WriteOptions {
                kind: s.kind,
                ..WriteOptions::default()
            },
        );
        black_box(f.map(|c| c.losses.len()).ok());
    });
}
