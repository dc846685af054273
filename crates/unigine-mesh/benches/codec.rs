//! Decode and encode throughput: the largest ms10/ms11 sample (when ../shared/samples is
//! there) and a generated 1,000,000-triangle surface. Run with
//! `cargo bench -p unigine-mesh`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use meshfmt_core::glam::{Vec2, Vec3};
use meshfmt_core::{Model, Surface};
use unigine_mesh::{MeshFile, WriteOptions};

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..runs {
        let t = Instant::now();
        black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn largest_sample(magics: &[&[u8]]) -> Option<PathBuf> {
    let root = std::env::var_os("MESHFMT_SAMPLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/samples"));
    let mut stack = vec![root.join("unigine")];
    let mut best: Option<(u64, PathBuf)> = None;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "mesh") {
                let head = std::fs::read(&p).ok()?;
                let size = head.len() as u64;
                if magics.iter().any(|m| head.starts_with(m))
                    && best.as_ref().is_none_or(|b| size > b.0)
                {
                    best = Some((size, p));
                }
            }
        }
    }
    best.map(|b| b.1)
}

fn grid(triangles: u32) -> Model {
    let w = 708u32; // 707 x 707 quads = 999,698 triangles; one more row makes it past 1M
    let h = triangles / (2 * (w - 1)) + 1;
    let mut s = Surface {
        name: "grid".into(),
        ..Surface::default()
    };
    for j in 0..=h {
        for i in 0..w {
            let (x, y) = (i as f32 * 0.01, j as f32 * 0.01);
            s.positions
                .push(Vec3::new(x, y, (x * 3.0).sin() * (y * 2.0).cos() * 0.1));
            s.normals
                .push(Vec3::new(-0.3 * (x * 3.0).cos(), 0.2 * (y * 2.0).sin(), 1.0).normalize());
            s.uv0.push(Vec2::new(x, y));
        }
    }
    for j in 0..h {
        for i in 0..w - 1 {
            let a = j * w + i;
            s.indices.extend([a, a + 1, a + w + 1, a, a + w + 1, a + w]);
        }
    }
    s.indices.truncate(3 * triangles as usize);
    Model {
        surfaces: vec![s],
        coordinate_system: unigine_mesh::COORDINATE_SYSTEM,
        ..Model::default()
    }
}

fn report(name: &str, bytes: &[u8]) {
    let mb = bytes.len() as f64 / 1e6;
    let read = best_of(5, || unigine_mesh::read(bytes).map(|f| f.version()));
    let file = match unigine_mesh::read(bytes) {
        Ok(f) => f,
        Err(e) => panic!("{name}: {e}"),
    };
    let write = best_of(5, || file.write().map(|b| b.len()));
    let to_core = best_of(3, || file.to_core().map(|m| m.value.vertex_count()));
    let model = match file.to_core() {
        Ok(m) => m.value,
        Err(e) => panic!("{e}"),
    };
    let from_core = best_of(3, || {
        MeshFile::from_core(&model, &WriteOptions::default()).map(|m| m.losses.len())
    });
    println!(
        "{name}: {:.2} MB; read {:.0} MB/s ({:.1} ms), write {:.0} MB/s ({:.1} ms), to_core {:.1} ms, from_core {:.1} ms",
        mb,
        mb / read,
        read * 1e3,
        mb / write,
        write * 1e3,
        to_core * 1e3,
        from_core * 1e3
    );
}

fn main() {
    match largest_sample(&[b"ms14"]) {
        Some(p) => {
            let bytes = std::fs::read(&p).unwrap_or_default();
            report(
                &format!(
                    "largest ms14 sample {}",
                    p.file_name().unwrap_or_default().to_string_lossy()
                ),
                &bytes,
            );
        }
        None => println!("samples not found: skipping the largest-ms14 figures"),
    }
    match largest_sample(&[b"ms10", b"ms11"]) {
        Some(p) => {
            let bytes = std::fs::read(&p).unwrap_or_default();
            report(
                &format!(
                    "largest sample {}",
                    p.file_name().unwrap_or_default().to_string_lossy()
                ),
                &bytes,
            );
        }
        None => println!("samples not found: skipping the largest-sample figures"),
    }
    let model = grid(1_000_000);
    let bytes =
        match MeshFile::from_core(&model, &WriteOptions::default()).and_then(|c| c.value.write()) {
            Ok(b) => b,
            Err(e) => panic!("{e}"),
        };
    report(
        &format!("generated {} triangles ms11", model.triangle_count()),
        &bytes,
    );
    // ms14 from meshfmt-core builds a spatial tree and edge flags, then compresses.
    let ms14 = WriteOptions {
        version: unigine_mesh::TargetVersion::Ms14,
        ..Default::default()
    };
    let encode = || MeshFile::from_core(&model, &ms14).and_then(|c| c.value.write());
    let bytes = match encode() {
        Ok(b) => b,
        Err(e) => panic!("{e}"),
    };
    let t = best_of(3, encode);
    println!(
        "generated {} triangles ms14: from_core + write {:.1} ms (spatial tree, edge flags, LZ4)",
        model.triangle_count(),
        t * 1e3
    );
    report(
        &format!("generated {} triangles ms14", model.triangle_count()),
        &bytes,
    );
}
