//! Properties of every animation and skeleton writer, on random skeletons and clips
//! (proptest): the output reads back, its faithful rewrite is the identity, every
//! truncation is an error, every byte flip is safe, and the bones' model-space
//! transforms at every key time come back within the formats' quantization (UNIGINE
//! stores rotations as i16/32767 and translations as u16 across a box; Vitaboy as f32).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt::formats::{self, FORMATS};
use meshfmt_core::Budget;
use meshfmt_core::glam::{Quat, Vec3};
use meshfmt_core::{Bone, Channel, Clip, Model, Skeleton, Track, Transform};
use proptest::prelude::*;

const FPS: f32 = 30.0;

fn quat() -> impl Strategy<Value = Quat> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
        .prop_filter("non-zero", |(x, y, z, w)| {
            x * x + y * y + z * z + w * w > 0.05
        })
        .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize())
}

fn vec3() -> impl Strategy<Value = Vec3> {
    (-2.0f32..2.0, -2.0f32..2.0, -2.0f32..2.0).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

/// 1-5 bones (each parented to an earlier one or a root), one clip of 2-6 keys on the
/// 30 fps grid that the UNIGINE formats store.
fn model() -> impl Strategy<Value = Model> {
    (1usize..6, 2usize..7).prop_flat_map(|(bones, keys)| {
        let rest = prop::collection::vec((vec3(), quat()), bones);
        let parents = prop::collection::vec(any::<prop::sample::Index>(), bones);
        let anim = prop::collection::vec(prop::collection::vec((vec3(), quat()), keys), bones);
        (rest, parents, anim).prop_map(move |(rest, parents, anim)| {
            let bones_v = rest
                .iter()
                .zip(&parents)
                .enumerate()
                .map(|(i, ((t, r), p))| Bone {
                    name: format!("bone{i}"),
                    parent: (i > 0).then(|| p.index(i)),
                    rest: Transform {
                        translation: *t,
                        rotation: *r,
                        scale: Vec3::ONE,
                    },
                    inverse_bind: None,
                })
                .collect();
            let channels = anim
                .iter()
                .enumerate()
                .map(|(bone, keys)| Channel {
                    bone,
                    translation: Track::from_keys(
                        keys.iter()
                            .enumerate()
                            .map(|(k, (t, _))| (k as f32 / FPS, *t)),
                    ),
                    rotation: Track::from_keys(
                        keys.iter()
                            .enumerate()
                            .map(|(k, (_, r))| (k as f32 / FPS, *r)),
                    ),
                    scale: Track::default(),
                })
                .collect();
            Model {
                skeleton: Skeleton { bones: bones_v },
                animations: vec![Clip {
                    events: Vec::new(),
                    name: "clip".into(),
                    channels,
                }],
                ..Default::default()
            }
        })
    })
}

fn world_at(m: &Model, t: f32) -> Vec<meshfmt_core::glam::Mat4> {
    match m.animations.first() {
        Some(clip) => clip.sample(&m.skeleton, t).world_matrices(&m.skeleton),
        None => m.skeleton.rest_world_matrices(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn animation_writers_round_trip(model in model()) {
        let keys = model.animations[0].channels[0].translation.times.clone();
        let mut checked = 0;
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
            for ext in f.info().extensions {
                let name = format!("x.{ext}");
                let Ok(out) = from_core(&model, &name) else { continue };
                let bytes = out.value;
                let back = match to_core(&bytes, &name) {
                    Ok(b) => b,
                    Err(e) => {
                        prop_assert!(false, "{} .{}: our output does not read back: {}", f.info().name, ext, e);
                        unreachable!()
                    }
                };
                let mut back = back.value;
                prop_assert_eq!(rewrite(&bytes, &name).unwrap(), bytes.clone(), "{} .{}: rewrite", f.info().name, ext);
                // Text forms (M3D's .a3d) end where the text ends: a prefix can be a
                // valid file, so only binary forms must reject every truncation.
                let binary = *ext != "a3d";
                for n in (0..bytes.len()).filter(|_| binary) {
                    prop_assert!(to_core(&bytes[..n], &name).is_err(), "{} .{}: a prefix of {} of {} bytes reads", f.info().name, ext, n, bytes.len());
                }
                for at in (0..bytes.len()).step_by(3) {
                    let mut flipped = bytes.clone();
                    flipped[at] ^= 0xa5;
                    fuzz_checks::check(f.info().name, &flipped);
                }
                // Compare model-space bone transforms where the format kept the skeleton.
                back.convert_to(model.coordinate_system);
                let names = |m: &Model| m.skeleton.bones.iter().map(|b| b.name.clone()).collect::<Vec<_>>();
                if names(&back) != names(&model) || back.animations.is_empty() {
                    continue;
                }
                let parents = |m: &Model| m.skeleton.bones.iter().map(|b| b.parent).collect::<Vec<_>>();
                if parents(&back) != parents(&model) {
                    // An animation alone (Vitaboy .anim without its .skel) has no
                    // hierarchy: compare the animated local transforms instead.
                    for &t in &keys {
                        let (pa, pb) = (model.animations[0].sample(&model.skeleton, t), back.animations[0].sample(&back.skeleton, t));
                        for (i, (a, b)) in pa.locals.iter().zip(&pb.locals).enumerate() {
                            let dt = (a.translation - b.translation).abs().max_element();
                            let dr = 1.0 - a.rotation.dot(b.rotation).abs();
                            prop_assert!(dt < 2e-3 && dr < 1e-6, "{} .{}: bone {} at t={}: translation error {}, rotation 1-|dot| {}", f.info().name, ext, i, t, dt, dr);
                        }
                    }
                    checked += 1;
                    continue;
                }
                // Formats store key times quantized (M3D: whole milliseconds): sample the
                // decoded clip at its own key nearest each original key.
                let back_keys: Vec<f32> = back.animations[0]
                    .channels
                    .iter()
                    .flat_map(|c| c.translation.times.iter().chain(&c.rotation.times))
                    .copied()
                    .collect();
                let near = |t: f32| {
                    back_keys
                        .iter()
                        .copied()
                        .filter(|k| (k - t).abs() <= 1e-3)
                        .min_by(|a, b| (a - t).abs().total_cmp(&(b - t).abs()))
                        .unwrap_or(t)
                };
                for &t in &keys {
                    for (i, (a, b)) in world_at(&model, t).iter().zip(world_at(&back, near(t))).enumerate() {
                        let err = (*a - b).to_cols_array().iter().fold(0.0f32, |m, x| m.max(x.abs()));
                        // Five bones deep, each i16 rotation (3e-5) and u16 translation
                        // (4 / 65535) error compounding through the chain.
                        prop_assert!(err < 5e-3, "{} .{}: bone {} at t={}: error {}", f.info().name, ext, i, t, err);
                    }
                }
                checked += 1;
            }
        }
        prop_assert!(checked >= 2, "only {} animation writers compared", checked);
    }
}
