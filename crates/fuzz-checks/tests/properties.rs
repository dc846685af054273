//! Properties of every writer, on random static meshes (proptest):
//! - our output reads back and its faithful rewrite is the identity:
//!   `write(read(write(x))) == write(x)`;
//! - corner positions come back exactly (UNIGINE, Vitaboy: f32 storage; Vitaboy within
//!   the f32 rounding of its bone-local transform) or within the quantization bound
//!   (MeshSerializer2: half a step of the position box, Rounded mode);
//! - every truncation of the output is an error;
//! - flipping any single byte gives an error or a value, never a panic (the fuzz checks).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt::formats::{self, FORMATS};
use meshfmt_core::Budget;
use meshfmt_core::glam::{Vec2, Vec3};
use meshfmt_core::{Model, Surface};
use proptest::prelude::*;

fn surface() -> impl Strategy<Value = Surface> {
    (3usize..12).prop_flat_map(|n| {
        let coord = -100.0f32..100.0;
        let positions = prop::collection::vec((coord.clone(), coord.clone(), coord), n);
        let uvs = prop::collection::vec((-2.0f32..2.0, -2.0f32..2.0), n);
        let tris = prop::collection::vec((0..n as u32, 0..n as u32, 0..n as u32), 1..8);
        (positions, uvs, tris, any::<bool>()).prop_map(|(p, uv, tris, with_uv)| Surface {
            name: "s".into(),
            positions: p.into_iter().map(|(x, y, z)| Vec3::new(x, y, z)).collect(),
            normals: Vec::new(),
            uv0: if with_uv {
                uv.into_iter().map(|(u, v)| Vec2::new(u, v)).collect()
            } else {
                Vec::new()
            },
            indices: tris.into_iter().flat_map(|(a, b, c)| [a, b, c]).collect(),
            ..Default::default()
        })
    })
}

/// The position at every triangle corner, in the given model's frame.
fn corners(m: &Model) -> Vec<Vec3> {
    m.surfaces
        .iter()
        .flat_map(|s| s.indices.iter().map(|&i| s.positions[i as usize]))
        .collect()
}

/// Largest per-axis error a format may add to positions within `[-100, 100]`.
fn position_bound(format: &str, original: &[Vec3]) -> f32 {
    match format {
        "unity-meshser" => {
            // Rounded: half a step of the box (the writer's box encloses the positions
            // and adds the script's 0.001 start size), plus f32 decode arithmetic.
            let (lo, hi) = original.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| {
                (lo.min(*p), hi.max(*p))
            });
            ((hi - lo).max_element() + 0.002) / 65535.0 * 0.5 + 1e-4
        }
        // Bone-local storage: one rotation and translation each way in f32.
        "niotso-mesh" => 1e-4,
        // Coordinates stored normalized by the largest one (the header scale) and
        // multiplied back: an ulp or two of 100.
        "m3d" => 1e-4,
        _ => 0.0,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_writer_round_trips(surface in surface()) {
        let model = Model { surfaces: vec![surface], ..Default::default() };
        for f in FORMATS {
            // glTF and OBJ have no faithful bytes of their own to keep (and OBJ is text:
            // a prefix of it is a file); the format crates' writers are what is checked.
            if matches!(f.info().name, "gltf" | "obj") {
                continue;
            }
            let f = *f;
            let from_core = |m: &Model, name: &str| formats::encode(f, m, name, &Budget::default());
            let to_core = |b: &[u8], name: &str| formats::to_core(f, b, name, &Budget::default());
            let rewrite = |b: &[u8], name: &str| formats::rewrite(f, b, name, &Budget::default());
            let name = format!("x.{}", f.info().extensions.first().copied().unwrap_or_default());
            let Ok(out) = from_core(&model, &name) else { continue };
            let bytes = out.value;
            prop_assert_eq!(rewrite(&bytes, &name).unwrap(), bytes.clone(), "{}: rewrite", f.info().name);
            let mut back = to_core(&bytes, &name).unwrap().value;
            // Animation formats hold no geometry (their from_core says so in its losses).
            if f.info().name != "unigine-anim" {
                back.convert_to(model.coordinate_system);
                let (want, got) = (corners(&model), corners(&back));
                prop_assert_eq!(want.len(), got.len(), "{}: corners", f.info().name);
                let bound = position_bound(f.info().name, &model.surfaces[0].positions);
                for (a, b) in want.iter().zip(&got) {
                    prop_assert!((*a - *b).abs().max_element() <= bound, "{}: {a} vs {b} (bound {bound})", f.info().name);
                }
            }
            for n in 0..bytes.len() {
                prop_assert!(to_core(&bytes[..n], &name).is_err(), "{}: prefix of {n} of {} bytes read", f.info().name, bytes.len());
            }
            for at in 0..bytes.len() {
                let mut flipped = bytes.clone();
                flipped[at] ^= 0x5a;
                fuzz_checks::check(f.info().name, &flipped);
            }
        }
    }
}
