//! The vertex cache and vertex fetch optimizations on a 1000x500 quad grid (1,000,000
//! triangles, 501,501 vertices), in row order and with its triangles shuffled. Each
//! iteration optimizes a fresh copy of the indices (the copy is made outside the timing).
//! Run with `cargo bench -p meshfmt-meshopt --bench optimize`.

use std::hint::black_box;
use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::ItemsCount;
use meshfmt_meshopt::{
    optimize_vertex_cache, optimize_vertex_cache_strip, optimize_vertex_fetch_remap,
    remap_index_buffer,
};

fn main() {
    divan::main();
}

const W: u32 = 1000;
const H: u32 = 500;
const VERTICES: usize = ((W + 1) * (H + 1)) as usize;

/// The grid, row by row, two triangles a quad.
static GRID: LazyLock<Vec<u32>> = LazyLock::new(|| {
    let mut indices = Vec::with_capacity((W * H * 6) as usize);
    for y in 0..H {
        for x in 0..W {
            let v00 = y * (W + 1) + x;
            let v01 = v00 + W + 1;
            indices.extend_from_slice(&[v00, v00 + 1, v01, v01, v00 + 1, v01 + 1]);
        }
    }
    indices
});

/// The grid's triangles in a pseudo-random order (an xorshift Fisher-Yates shuffle).
static SHUFFLED: LazyLock<Vec<u32>> = LazyLock::new(|| {
    let mut triangles: Vec<[u32; 3]> = GRID.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for i in (1..triangles.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        triangles.swap(i, (state % (i as u64 + 1)) as usize);
    }
    triangles.concat()
});

fn input(name: &str) -> &'static [u32] {
    if name == "grid" { &GRID } else { &SHUFFLED }
}

const INPUTS: [&str; 2] = ["grid", "shuffled"];

#[divan::bench(args = INPUTS, sample_count = 10, sample_size = 1)]
fn vertex_cache(bencher: Bencher, name: &str) {
    let indices = input(name);
    bencher
        .counter(ItemsCount::new(indices.len() / 3))
        .with_inputs(|| indices.to_vec())
        .bench_local_values(|mut indices| {
            optimize_vertex_cache(&mut indices, VERTICES).unwrap_or_else(|e| panic!("{e}"));
            indices
        });
}

#[divan::bench(args = INPUTS, sample_count = 10, sample_size = 1)]
fn vertex_cache_strip(bencher: Bencher, name: &str) {
    let indices = input(name);
    bencher
        .counter(ItemsCount::new(indices.len() / 3))
        .with_inputs(|| indices.to_vec())
        .bench_local_values(|mut indices| {
            optimize_vertex_cache_strip(&mut indices, VERTICES).unwrap_or_else(|e| panic!("{e}"));
            indices
        });
}

/// The fetch remap and its application to the indices, as after a cache optimization.
#[divan::bench(args = INPUTS, sample_count = 10, sample_size = 1)]
fn vertex_fetch_remap(bencher: Bencher, name: &str) {
    let indices = input(name);
    bencher
        .counter(ItemsCount::new(indices.len() / 3))
        .with_inputs(|| indices.to_vec())
        .bench_local_values(|mut indices| {
            let (remap, unique) =
                optimize_vertex_fetch_remap(&indices, VERTICES).unwrap_or_else(|e| panic!("{e}"));
            remap_index_buffer(&mut indices, &remap);
            black_box(unique);
            indices
        });
}
