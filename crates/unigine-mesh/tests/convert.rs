//! mesh -> meshfmt-core -> mesh keeps every attribute value of every triangle corner,
//! for every real ms10/ms11/ms13 file (80 samples) and for the canonical models in every
//! version.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use meshfmt_core::glam::{Vec3, Vec4};
use meshfmt_core::{Feature, LossKind, canonical};
use test_support::samples_or_skip;
use unigine_mesh::ms1x::{Ms1x, Surface};
use unigine_mesh::{MeshFile, TargetVersion, WriteOptions, read, tangent};

fn files(dir: &Path) -> Vec<PathBuf> {
    test_support::files_under(dir, &["mesh"])
}

/// Every attribute of one triangle corner, decoded independently of the converter.
struct Corner {
    position: [f32; 3],
    normal: Vec3,
    tangent: Vec4,
    uv0: Option<[f32; 2]>,
    uv1: Option<[f32; 2]>,
    color: Option<[u8; 4]>,
    weights: Vec<(i16, f32)>,
}

fn corners(m: &Ms1x, s: &Surface) -> Vec<Corner> {
    s.cindices
        .iter()
        .zip(&s.tindices)
        .map(|(&c, &t)| {
            let (c, t) = (c as usize, t as usize);
            let (normal, tangent) =
                tangent::to_normal_tangent(m.version, s.morph_targets[0].tangents[t]);
            let weights = s.weights.get(c).map_or(Vec::new(), |w| {
                let n = usize::from(w.count);
                let sum: f32 = w.weights[..n].iter().map(|&x| f32::from(x)).sum();
                // Zero weights carry nothing (meshfmt-core drops them).
                let mut v: Vec<(i16, f32)> = (0..n)
                    .filter(|&k| w.weights[k] != 0)
                    .map(|k| (w.bones[k], f32::from(w.weights[k]) / sum))
                    .collect();
                v.sort_by_key(|p| p.0);
                v
            });
            Corner {
                position: s.morph_targets[0].vertices[c],
                normal,
                tangent,
                uv0: s.uv0.get(t).copied(),
                uv1: s.uv1.get(t).copied(),
                color: s.colors.get(t).copied(),
                weights,
            }
        })
        .collect()
}

fn assert_same_corners(name: &str, a: &Ms1x, b: &Ms1x) {
    assert_eq!(a.surfaces.len(), b.surfaces.len());
    // A re-encoded quaternion moves each component by at most ~one step.
    let frame_bound = 4.0 / 32767.0;
    for (sa, sb) in a.surfaces.iter().zip(&b.surfaces) {
        let (ca, cb) = (corners(a, sa), corners(b, sb));
        assert_eq!(ca.len(), cb.len(), "{name}");
        for (i, (x, y)) in ca.iter().zip(&cb).enumerate() {
            let at = format!("{name} surface '{}' corner {i}", sa.name);
            assert_eq!(x.position, y.position, "{at}");
            assert_eq!((x.uv0, x.uv1, x.color), (y.uv0, y.uv1, y.color), "{at}");
            assert!(
                x.normal.abs_diff_eq(y.normal, frame_bound),
                "{at}: normal {} vs {}",
                x.normal,
                y.normal
            );
            assert!(
                x.tangent
                    .truncate()
                    .abs_diff_eq(y.tangent.truncate(), frame_bound),
                "{at}: tangent"
            );
            assert_eq!(x.tangent.w, y.tangent.w, "{at}: binormal sign");
            assert_eq!(x.weights.len(), y.weights.len(), "{at}");
            for (p, q) in x.weights.iter().zip(&y.weights) {
                assert_eq!(p.0, q.0, "{at}");
                // Renormalized, then truncated to u16: within a few 1/65535 steps.
                assert!(
                    (p.1 - q.1).abs() <= 4.0 / 65535.0,
                    "{at}: weight {} vs {}",
                    p.1,
                    q.1
                );
            }
        }
    }
    assert_eq!(a.bones, b.bones, "{name}: bones");
    assert_eq!(a.bind_pose.len(), b.bind_pose.len());
    for (p, q) in a.bind_pose.iter().zip(&b.bind_pose) {
        assert_eq!(p.position, q.position, "{name}: bind position");
        assert_eq!(p.scale, q.scale, "{name}: bind scale");
        let (qa, qb) = (
            meshfmt_core::glam::Quat::from_array(p.rotation),
            meshfmt_core::glam::Quat::from_array(q.rotation),
        );
        assert!(
            qa.normalize().dot(qb).abs() > 1.0 - 1e-6,
            "{name}: bind rotation"
        );
    }
}

#[test]
fn every_sample_keeps_every_corner_through_core() {
    let Some(dir) = samples_or_skip("unigine", "every_sample_keeps_every_corner_through_core")
    else {
        return;
    };
    let mut checked = 0;
    for path in files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        // Every sample reads; only the 15 ms14 ones are not Ms1x.
        let MeshFile::Ms1x(original) =
            read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        else {
            continue;
        };
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let core = original.to_core().unwrap();
        let same = WriteOptions {
            version: original.version.into(),
            ..WriteOptions::default()
        };
        let back = Ms1x::from_core_with(&core.value, &same).unwrap().value;
        // What we write reads back as written.
        let written = back.write().unwrap();
        let MeshFile::Ms1x(reread) = read(&written).unwrap() else {
            panic!()
        };
        assert!(reread == back, "{name}: our output reads back differently");
        assert_same_corners(&name, &original, &back);
        // Animations: every resolved frame value survives (rotations to an i16 step).
        let clips_a = core.value.animations;
        let clips_b = back.to_core().unwrap().value.animations;
        assert_eq!(clips_a.len(), clips_b.len(), "{name}");
        for (ca, cb) in clips_a.iter().zip(&clips_b) {
            for (x, y) in ca.channels.iter().zip(&cb.channels) {
                assert_eq!(x.translation.values, y.translation.values, "{name}");
                assert_eq!(x.scale.values, y.scale.values, "{name}");
                for (p, q) in x.rotation.values.iter().zip(&y.rotation.values) {
                    // One i16 step per component: 1 - cos stays far below 1e-6 (f32 dot).
                    assert!(p.dot(*q).abs() > 1.0 - 1e-6, "{name}: frame rotation");
                }
            }
        }
        // A second trip does not drift past the bounds (renormalized, truncated weights
        // and re-derived quaternions may move by a step, never accumulate).
        let again = Ms1x::from_core_with(&back.to_core().unwrap().value, &same)
            .unwrap()
            .value;
        assert_same_corners(&name, &original, &again);
        checked += 1;
    }
    println!("{checked} sample meshes kept every corner through meshfmt-core");
    assert_eq!(
        checked, 80,
        "the samples hold 80 ms10/ms11/ms13 meshes (1 ms10, 76 ms11, 3 ms13)"
    );
}

#[test]
fn canonical_models_in_every_version() {
    for c in canonical::ALL.iter().filter(|c| !c.large) {
        let model = (c.build)();
        for version in [
            TargetVersion::Mi08,
            TargetVersion::Ms08,
            TargetVersion::Ms10,
            TargetVersion::Ms11,
        ] {
            let conv = MeshFile::from_core_with(
                &model,
                &WriteOptions {
                    version,
                    ..Default::default()
                },
            )
            .unwrap();
            let bytes = conv.value.write().unwrap();
            let file = read(&bytes).unwrap();
            assert_eq!(file, conv.value, "{} {version:?}", c.name);
            let mut back = file.to_core().unwrap().value;
            back.convert_to(model.coordinate_system);
            // Positions are stored as f32 in every version: exact after the frame change
            // (Y-up <-> Z-up swaps and negates axes, which is exact).
            let a: Vec<Vec3> = model
                .surfaces
                .iter()
                .flat_map(|s| s.positions.clone())
                .collect();
            let b: Vec<Vec3> = back
                .surfaces
                .iter()
                .flat_map(|s| {
                    // Undo the corner expansion: positions by triangle corner.
                    s.indices
                        .iter()
                        .map(|&i| s.positions[i as usize])
                        .collect::<Vec<_>>()
                })
                .collect();
            let a_corners: Vec<Vec3> = model
                .surfaces
                .iter()
                .flat_map(|s| {
                    s.indices
                        .iter()
                        .map(|&i| s.positions[i as usize])
                        .collect::<Vec<_>>()
                })
                .collect();
            assert_eq!(a_corners, b, "{} {version:?}", c.name);
            assert!(!a.is_empty() || b.is_empty());
            let dropped: Vec<Feature> = conv
                .losses
                .iter()
                .filter(|l| l.kind == LossKind::Dropped)
                .map(|l| l.feature)
                .collect();
            if !model.skeleton.is_empty() && version == TargetVersion::Mi08 {
                assert!(dropped.contains(&Feature::Skeleton) && dropped.contains(&Feature::Skin));
            }
            if !model.materials.is_empty() {
                assert!(dropped.contains(&Feature::Materials));
            }
        }
    }
}

#[test]
fn the_big_surface_uses_wide_indices() {
    let model = canonical::big_surface();
    let conv = MeshFile::from_core_with(&model, &WriteOptions::default()).unwrap();
    let bytes = conv.value.write().unwrap();
    let MeshFile::Ms1x(m) = read(&bytes).unwrap() else {
        panic!()
    };
    assert_eq!(m.surfaces[0].num_cvertices(), 65_792);
    assert_eq!(m.surfaces[0].cindices.len(), 3 * 130_560);
    let mi = MeshFile::from_core_with(
        &model,
        &WriteOptions {
            version: TargetVersion::Mi08,
            ..Default::default()
        },
    )
    .unwrap();
    let bytes = mi.value.write().unwrap();
    assert_eq!(read(&bytes).unwrap(), mi.value);
}

/// A model already in UNIGINE's frame is encoded as it is: a -0.0 coordinate stays
/// -0.0 (the identity conversion of a copy made it +0.0), so +0.0 and -0.0 stay two
/// positions, as two corners at different bit patterns are.
#[test]
fn a_model_in_unigine_frame_keeps_its_values_bit_for_bit() {
    let model = meshfmt_core::Model {
        coordinate_system: unigine_mesh::COORDINATE_SYSTEM,
        surfaces: vec![meshfmt_core::Surface {
            positions: vec![
                Vec3::new(-0.0, 0.0, 0.0),
                Vec3::X,
                Vec3::Y,
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::X,
                Vec3::Y,
            ],
            normals: vec![Vec3::Z; 6],
            indices: vec![0, 1, 2, 3, 4, 5],
            ..Default::default()
        }],
        ..Default::default()
    };
    let opts = WriteOptions {
        version: TargetVersion::Ms11,
        ..Default::default()
    };
    let file = MeshFile::from_core_with(&model, &opts).unwrap().value;
    let MeshFile::Ms1x(m) = &file else {
        panic!("{file:?}")
    };
    let v = &m.surfaces[0].morph_targets[0].vertices;
    let bits: Vec<u32> = v.iter().map(|p| p[0].to_bits()).collect();
    // Two distinct first corners, then the shared X and Y corners.
    assert_eq!(v.len(), 4, "{v:?}");
    assert_eq!(bits[0], (-0.0f32).to_bits());
    assert_eq!(bits.iter().filter(|b| **b == 0).count(), 2, "{v:?}");
    // Read back, the -0.0 is still there.
    let back = read(&file.write().unwrap()).unwrap();
    let MeshFile::Ms1x(b) = &back else {
        panic!("{back:?}")
    };
    assert_eq!(b.surfaces[0].morph_targets[0].vertices, *v);
}
