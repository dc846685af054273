//! decode(encode(x)) stays within the documented worst-case error for random meshes,
//! in both quantization modes; the measured worst errors are printed for the notes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::Surface;
use meshfmt_core::glam::{Vec2, Vec3, Vec4};
use test_support::Rng;
use unity_meshser::quantize::{box_error_bound, byte_error_bound};
use unity_meshser::{MeshFile, Quantization, WriteOptions};

fn random_mesh(rng: &mut Rng, n: usize, scale: f32, offset: f32) -> Surface {
    let mut s = Surface::default();
    for _ in 0..n {
        s.positions.push(Vec3::new(
            rng.range(-scale, scale) + offset,
            rng.range(-scale, scale) * 0.5,
            rng.range(-scale, scale) * 2.0 - offset,
        ));
        let nrm = Vec3::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        )
        .normalize_or(Vec3::Y);
        s.normals.push(nrm);
        let t = nrm.any_orthonormal_vector();
        s.tangents
            .push(t.extend(if rng.below(2) == 0 { 1.0 } else { -1.0 }));
        s.uv0
            .push(Vec2::new(rng.range(-0.5, 1.5), rng.range(0.0, 1.0)));
    }
    for _ in 0..n {
        for _ in 0..3 {
            s.indices.push(rng.below(n as u64) as u32);
        }
    }
    s
}

struct Worst {
    position: f32,
    position_ratio: f32,
    uv: f32,
    uv_ratio: f32,
    normal: f32,
    tangent: f32,
}

fn check(s: &Surface, mode: Quantization) -> Worst {
    let opts = WriteOptions {
        quantization: mode,
        tangents: true,
        ..WriteOptions::default()
    };
    let file = MeshFile::from_surface(s, &opts).unwrap();
    let bytes = file.write().unwrap();
    let back = unity_meshser::read(&bytes).unwrap().to_surface();
    assert_eq!(back.indices, s.indices);
    let pb = file.position_bounds;
    let ub = file.uv_bounds;
    let mut w = Worst {
        position: 0.0,
        position_ratio: 0.0,
        uv: 0.0,
        uv_ratio: 0.0,
        normal: 0.0,
        tangent: 0.0,
    };
    for (i, (a, b)) in s.positions.iter().zip(&back.positions).enumerate() {
        for axis in 0..3 {
            let bound = box_error_bound(pb[2 * axis], pb[2 * axis + 1], mode);
            let e = (a[axis] - b[axis]).abs();
            assert!(
                e <= bound,
                "{mode:?} position {i} axis {axis}: {e} > {bound}"
            );
            w.position = w.position.max(e);
            let step = (pb[2 * axis + 1] - pb[2 * axis]) / 65535.0;
            w.position_ratio = w.position_ratio.max(e / step);
        }
    }
    for (i, (a, b)) in s.uv0.iter().zip(&back.uv0).enumerate() {
        for axis in 0..2 {
            let bound = box_error_bound(ub[2 * axis], ub[2 * axis + 1], mode);
            let e = (a[axis] - b[axis]).abs();
            assert!(e <= bound, "{mode:?} uv {i} axis {axis}: {e} > {bound}");
            w.uv = w.uv.max(e);
            w.uv_ratio = w
                .uv_ratio
                .max(e / ((ub[2 * axis + 1] - ub[2 * axis]) / 65535.0));
        }
    }
    let bb = byte_error_bound(mode);
    for (a, b) in s.normals.iter().zip(&back.normals) {
        let e = (*a - *b).abs().max_element();
        assert!(e <= bb, "{mode:?} normal error {e} > {bb}");
        w.normal = w.normal.max(e);
    }
    for (a, b) in s.tangents.iter().zip(&back.tangents) {
        let e: Vec4 = (*a - *b).abs();
        assert!(e.max_element() <= bb);
        w.tangent = w.tangent.max(e.max_element());
        assert_eq!(a.w, b.w, "handedness +-1 is exact in both modes");
    }
    w
}

#[test]
fn ten_thousand_vertices_within_bounds() {
    let mut rng = Rng::new(2026);
    let s = random_mesh(&mut rng, 10_000, 5.0, 0.0);
    for mode in [Quantization::Compatible, Quantization::Rounded] {
        let w = check(&s, mode);
        println!(
            "{mode:?}: position {:.3e} ({:.3} steps), uv {:.3e} ({:.3} steps), normal {:.3e} (x127 = {:.3}), tangent {:.3e}",
            w.position,
            w.position_ratio,
            w.uv,
            w.uv_ratio,
            w.normal,
            w.normal * 127.0,
            w.tangent
        );
        match mode {
            // Truncation: close to one full step; rounding: about half.
            Quantization::Compatible => assert!(w.position_ratio > 0.9 && w.normal * 127.0 > 0.9),
            Quantization::Rounded => {
                assert!(w.position_ratio <= 0.5 + 1e-3 && w.normal * 127.0 <= 0.5 + 1e-4)
            }
        }
    }
}

#[test]
fn many_small_random_meshes_far_from_the_origin() {
    let mut rng = Rng::new(99);
    for case in 0..200 {
        let n = 1 + rng.below(40) as usize;
        let scale = [1e-3, 0.5, 20.0, 1000.0][case % 4];
        let offset = [0.0, 3.0, -250.0, 1e4][(case / 4) % 4];
        let s = random_mesh(&mut rng, n, scale, offset);
        for mode in [Quantization::Compatible, Quantization::Rounded] {
            check(&s, mode);
        }
    }
}
