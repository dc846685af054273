//! Encode and decode throughput on a 64,000-vertex mesh (the format's maximum).
//! Run with `cargo bench -p unity-meshser`.

use std::hint::black_box;
use std::time::Instant;

use meshfmt_core::Surface;
use meshfmt_core::glam::{Vec2, Vec3, Vec4};
use unity_meshser::{MeshFile, Quantization, WriteOptions};

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..runs {
        let t = Instant::now();
        black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn mesh() -> Surface {
    let (w, h) = (256u32, 250u32);
    let mut s = Surface::default();
    for j in 0..h {
        for i in 0..w {
            let (x, z) = (i as f32 * 0.1, j as f32 * 0.1);
            s.positions
                .push(Vec3::new(x, (x * 0.7).sin() * (z * 0.3).cos(), z));
            s.normals
                .push(Vec3::new(0.1 * x.cos(), 1.0, 0.1 * z.sin()).normalize());
            s.tangents.push(Vec4::new(1.0, 0.0, 0.0, 1.0));
            s.uv0.push(Vec2::new(i as f32 / 255.0, j as f32 / 249.0));
        }
    }
    for j in 0..h - 1 {
        for i in 0..w - 1 {
            let a = j * w + i;
            if s.indices.len() / 3 + 2 <= 64000 {
                s.indices.extend([a, a + w, a + 1, a + 1, a + w, a + w + 1]);
            }
        }
    }
    s
}

fn main() {
    let s = mesh();
    for (name, q) in [
        ("rounded", Quantization::Rounded),
        ("compatible", Quantization::Compatible),
    ] {
        let opts = WriteOptions {
            quantization: q,
            tangents: true,
            ..WriteOptions::default()
        };
        let encode = best_of(10, || {
            MeshFile::from_surface(black_box(&s), &opts).map(|f| f.write())
        });
        let bytes = match MeshFile::from_surface(&s, &opts).and_then(|f| f.write()) {
            Ok(b) => b,
            Err(e) => panic!("{e}"),
        };
        let mib = bytes.len() as f64 / (1024.0 * 1024.0);
        let read = best_of(20, || {
            unity_meshser::read(black_box(&bytes)).map(|f| f.triangles.len())
        });
        let decode = best_of(20, || {
            unity_meshser::read(black_box(&bytes)).map(|f| f.to_surface().positions.len())
        });
        println!(
            "{name:>10}: {} vertices, {} bytes; encode {:.2} ms, read {:.3} ms ({:.0} MiB/s), read+decode to floats {:.2} ms",
            s.positions.len(),
            bytes.len(),
            encode * 1e3,
            read * 1e3,
            mib / read,
            decode * 1e3
        );
    }
}
