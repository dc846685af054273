//! Encode and decode throughput of the codecs on a generated mesh the size of a
//! 1,000,000-triangle model (a 708 x 708 quad grid: 502,681 vertices, 1,002,528
//! triangles): its vertex buffer (quantized position, u16 x 4, stride 8) beside a
//! memcpy of the same bytes, and its index buffer. Throughput is in bytes of the
//! uncompressed buffer. Run with `cargo bench -p meshfmt-meshopt`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::BytesCount;
use meshfmt_meshopt::{
    decode_index_buffer, decode_vertex_buffer, encode_index_buffer, encode_vertex_buffer,
};

fn main() {
    divan::main();
}

const SIDE: u32 = 708;
const STRIDE: usize = 8;

struct Mesh {
    vertices: Vec<u8>,
    count: usize,
    encoded_vertices: Vec<u8>,
    indices: Vec<u32>,
    encoded_indices: Vec<u8>,
}

static MESH: LazyLock<Mesh> = LazyLock::new(|| {
    let n = SIDE + 1;
    let mut vertices = Vec::with_capacity((n * n) as usize * STRIDE);
    for y in 0..n {
        for x in 0..n {
            let h = ((x as f32 * 0.05).sin() * (y as f32 * 0.07).cos() * 3000.0 + 32768.0) as u16;
            for v in [(x * 90) as u16, (y * 90) as u16, h, 0] {
                vertices.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    let mut indices = Vec::with_capacity((SIDE * SIDE * 6) as usize);
    for y in 0..SIDE {
        for x in 0..SIDE {
            let v = y * n + x;
            indices.extend_from_slice(&[v, v + 1, v + n, v + 1, v + n + 1, v + n]);
        }
    }
    let count = vertices.len() / STRIDE;
    Mesh {
        encoded_vertices: encode_vertex_buffer(&vertices, count, STRIDE).unwrap(),
        encoded_indices: encode_index_buffer(&indices).unwrap(),
        vertices,
        count,
        indices,
    }
});

#[divan::bench]
fn vertex_memcpy(bencher: Bencher) {
    let mesh = &*MESH;
    let mut out = vec![0u8; mesh.vertices.len()];
    bencher
        .counter(BytesCount::new(mesh.vertices.len()))
        .bench_local(|| out.copy_from_slice(black_box(&mesh.vertices)));
}

#[divan::bench]
fn vertex_encode(bencher: Bencher) {
    let mesh = &*MESH;
    bencher
        .counter(BytesCount::new(mesh.vertices.len()))
        .bench(|| encode_vertex_buffer(black_box(&mesh.vertices), mesh.count, STRIDE).unwrap());
}

#[divan::bench]
fn vertex_decode(bencher: Bencher) {
    let mesh = &*MESH;
    let mut out = vec![0u8; mesh.vertices.len()];
    bencher
        .counter(BytesCount::new(mesh.vertices.len()))
        .bench_local(|| {
            decode_vertex_buffer(
                &mut out,
                mesh.count,
                STRIDE,
                black_box(&mesh.encoded_vertices),
            )
            .unwrap()
        });
}

#[divan::bench]
fn index_encode(bencher: Bencher) {
    let mesh = &*MESH;
    bencher
        .counter(BytesCount::new(mesh.indices.len() * 4))
        .bench(|| encode_index_buffer(black_box(&mesh.indices)).unwrap());
}

#[divan::bench]
fn index_decode(bencher: Bencher) {
    let mesh = &*MESH;
    let mut out = vec![0u32; mesh.indices.len()];
    bencher
        .counter(BytesCount::new(mesh.indices.len() * 4))
        .bench_local(|| decode_index_buffer(&mut out, black_box(&mesh.encoded_indices)).unwrap());
}
