//! Skinning exactly as notes section 3, checked by hand, on real meshes (blend vertices
//! land on the real vertices they tug), and through meshfmt-core.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::glam::{Mat3, Vec3};
use meshfmt_core::{CoordinateSystem, Pose, canonical, skin_surface, validate};
use niotso_mesh::WriteOptions;
use niotso_mesh::anim::{Anim, Motion};
use niotso_mesh::mesh::{Binding, Blend, Mesh};
use niotso_mesh::skel::{Skel, SkelBone};
use niotso_mesh::skinning::{bone_worlds, deform};
use niotso_mesh::{CoreOptions, NATIVE};
use parsing_primitives::RawString;
use test_support::samples_or_skip;

fn bone(name: &str, parent: &str, t: [f32; 3], q: [f32; 4]) -> SkelBone {
    SkelBone {
        unknown: 1,
        name: name.into(),
        parent: parent.into(),
        has_props: 1,
        props: Vec::new(),
        translation: t,
        rotation: q,
        can_translate: 1,
        can_rotate: 1,
        can_blend: 1,
        wiggle_value: 0.0,
        wiggle_power: 0.0,
    }
}

/// ROOT at the origin; ARM at (1, 0, 0) whose stored quaternion is -90 degrees about Z,
/// so it applies +90 degrees (the conjugate).
fn two_bones() -> Skel {
    let s = std::f32::consts::FRAC_1_SQRT_2;
    Skel {
        version: 1,
        name: "tiny".into(),
        bones: vec![
            bone("ROOT", "NULL", [0.0; 3], [0.0, 0.0, 0.0, 1.0]),
            bone("ARM", "ROOT", [1.0, 0.0, 0.0], [0.0, 0.0, -s, s]),
        ],
    }
}

/// Real vertex 0 at (2, 0, 0) on ROOT, real vertex 1 at local (1, 0, 0) on ARM, and a
/// blend vertex on ARM tugging real vertex 0 with weight 0.5. Like in real files, the
/// blend vertex coincides with the real vertex at the rest pose: ARM-local (0, -1, 0)
/// is world (1, 0, 0) + R90 (0, -1, 0) = (2, 0, 0).
fn tiny_mesh() -> Mesh {
    Mesh {
        version: 2,
        bone_names: vec!["ROOT".into(), "ARM".into()],
        faces: vec![[0, 1, 0]],
        bindings: vec![
            Binding {
                bone_index: 0,
                first_real: 0,
                real_count: 1,
                first_blend: -1,
                blend_count: 0,
            },
            Binding {
                bone_index: 1,
                first_real: 1,
                real_count: 1,
                first_blend: 0,
                blend_count: 1,
            },
        ],
        uvs: vec![[0.0, 0.0], [1.0, 1.0]],
        blends: vec![Blend {
            weight: 0x4000,
            other_vertex: 0,
        }],
        third_count: 3,
        real_vertices: vec![
            [2.0, 0.0, 0.0, 0.0, 3.0, 0.0],
            [1.0, 0.0, 0.0, 3.0, 0.0, 0.0],
        ],
        blend_vertices: vec![[0.0, -1.0, 0.0, 3.0, 0.0, 0.0]],
    }
}

#[test]
fn hand_computed_two_bone_pose() {
    let skel = two_bones();
    let mesh = tiny_mesh();
    let worlds = bone_worlds(&skel, None);
    let (p, n) = deform(&mesh, &skel, &worlds).unwrap();
    // ARM world = T(1,0,0) R(+90 z): its local (1,0,0) lands on (1,1,0).
    assert!(p[1].abs_diff_eq(Vec3::new(1.0, 1.0, 0.0), 1e-6), "{}", p[1]);
    // Real vertex 0: 0.5 * (2,0,0) + 0.5 * (2,0,0): it stays put at rest.
    assert!(p[0].abs_diff_eq(Vec3::new(2.0, 0.0, 0.0), 1e-6), "{}", p[0]);
    // Normals: ARM's (3,0,0) rotates to (0,3,0); vertex 0 blends (0,3,0) and (0,3,0).
    assert!(n[1].abs_diff_eq(Vec3::Y, 1e-6) && n[0].abs_diff_eq(Vec3::Y, 1e-6));
    // An animation frame replaces ARM's rotation with identity: the tip goes to (2,0,0)
    // and the blend vertex to (1,0,0) + (0,-1,0), pulling vertex 0 to (1.5,-0.5,0).
    let anim = Anim {
        version: 2,
        name: "straighten".into(),
        duration: 33.0,
        distance: 0.0,
        is_moving: 0,
        translations: vec![],
        rotations: vec![[0.0, 0.0, 0.0, 1.0]],
        motions: vec![Motion {
            unknown: 0,
            bone_name: "ARM".into(),
            frame_count: 1,
            duration: 33.0,
            has_translation: 0,
            has_rotation: 1,
            first_translation: -1,
            first_rotation: 0,
            has_props: 1,
            props: vec![],
            has_time_props: 0,
            time_props: vec![],
        }],
    };
    let worlds = bone_worlds(&skel, Some((&anim, 0)));
    let (p, _) = deform(&mesh, &skel, &worlds).unwrap();
    assert!(p[1].abs_diff_eq(Vec3::new(2.0, 0.0, 0.0), 1e-6));
    assert!(
        p[0].abs_diff_eq(Vec3::new(1.5, -0.5, 0.0), 1e-6),
        "{}",
        p[0]
    );
    // The same through meshfmt-core's linear blend skinning: weights (0.5, 0.5).
    let model = mesh
        .to_core_with(&CoreOptions {
            skeleton: Some(&skel),
            ..CoreOptions::default()
        })
        .unwrap()
        .value;
    assert!(validate(&model).is_empty(), "{:?}", validate(&model));
    let s = &model.surfaces[0];
    let mut w: Vec<(u32, f32)> = s.skin[0].pairs().collect();
    w.sort_by_key(|x| x.0);
    assert_eq!(w, [(0, 0.5), (1, 0.5)]);
    let clip = &anim
        .to_core_with(&CoreOptions {
            skeleton: Some(&skel),
            fps: 30.0,
            ..CoreOptions::default()
        })
        .unwrap()
        .value
        .animations[0];
    let pose = clip.sample(&model.skeleton, 0.0);
    let (posed, _) = skin_surface(s, &model.skeleton, &pose);
    assert!(
        posed[0].abs_diff_eq(Vec3::new(1.5, -0.5, 0.0), 1e-5),
        "{}",
        posed[0]
    );
    let (rest, _) = skin_surface(s, &model.skeleton, &Pose::rest(&model.skeleton));
    assert!(rest[1].abs_diff_eq(Vec3::new(1.0, 1.0, 0.0), 1e-6));
}

/// The rigid transform taking three points `a` to `b` (Gram-Schmidt frames).
fn rigid(a: [Vec3; 3], b: [Vec3; 3]) -> Option<(Mat3, Vec3)> {
    let frame = |p: [Vec3; 3]| -> Option<Mat3> {
        let x = (p[1] - p[0]).try_normalize()?;
        let z = x.cross(p[2] - p[0]).try_normalize()?;
        Some(Mat3::from_cols(x, z.cross(x), z))
    };
    let (fa, fb) = (frame(a)?, frame(b)?);
    let r = fb * fa.transpose();
    Some((r, b[0] - r * a[0]))
}

#[test]
fn blend_vertices_land_on_the_real_vertices_they_tug() {
    let Some(dir) = samples_or_skip(
        "niotso",
        "blend_vertices_land_on_the_real_vertices_they_tug",
    ) else {
        return;
    };
    let mut worst = 0.0f32;
    let mut checked = 0usize;
    let mut files = 0;
    for path in test_support::files_under(&dir.join("Meshes"), &["mesh"]) {
        let bytes = std::fs::read(&path).unwrap();
        let mesh =
            niotso_mesh::mesh::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        files += 1;
        // Bone of every real and blend vertex.
        let mut real_bone = vec![usize::MAX; mesh.real_vertices.len()];
        let mut blend_bone = vec![usize::MAX; mesh.blend_vertices.len()];
        for (k, b) in mesh.bindings.iter().enumerate() {
            for i in b.first_real.max(0)..b.first_real.max(0) + b.real_count {
                real_bone[i as usize] = k;
            }
            for j in b.first_blend.max(0)..b.first_blend.max(0) + b.blend_count {
                blend_bone[j as usize] = k;
            }
        }
        // Group (real, blend) point pairs by (real bone, blend bone).
        let mut groups: std::collections::BTreeMap<(usize, usize), Vec<(Vec3, Vec3)>> =
            Default::default();
        for (j, bl) in mesh.blends.iter().enumerate() {
            let r = mesh.real_vertices[bl.other_vertex as usize];
            let q = mesh.blend_vertices[j];
            groups
                .entry((real_bone[bl.other_vertex as usize], blend_bone[j]))
                .or_default()
                .push((Vec3::new(r[0], r[1], r[2]), Vec3::new(q[0], q[1], q[2])));
        }
        for pairs in groups.values() {
            // Pick three well-spread pairs: first, farthest from it, farthest from the line.
            let p0 = pairs[0];
            let Some(p1) = pairs
                .iter()
                .copied()
                .max_by(|x, y| (x.0 - p0.0).length().total_cmp(&(y.0 - p0.0).length()))
            else {
                continue;
            };
            let dir = (p1.0 - p0.0).normalize_or_zero();
            let off = |p: Vec3| (p - p0.0 - dir * dir.dot(p - p0.0)).length();
            let Some(p2) = pairs
                .iter()
                .copied()
                .max_by(|x, y| off(x.0).total_cmp(&off(y.0)))
            else {
                continue;
            };
            if off(p2.0) < 1e-2 {
                continue; // too few or collinear points to pin down a rotation
            }
            let Some((r, t)) = rigid([p0.0, p1.0, p2.0], [p0.1, p1.1, p2.1]) else {
                continue;
            };
            assert!((r.determinant() - 1.0).abs() < 1e-3, "a proper rotation");
            for (a, b) in pairs {
                worst = worst.max((r * *a + t - *b).length());
                checked += 1;
            }
        }
    }
    println!("blend residual over {checked} blend vertices of {files} meshes: {worst:e}");
    assert_eq!(
        files, 61,
        "the samples hold 61 .mesh files (3 in Meshes/User)"
    );
    // Every blend vertex in a group of three or more well-spread points, measured: the
    // rest are in groups too small or too flat to pin a rotation down.
    assert_eq!(checked, 3484, "blend vertices checked");
    // Three-point fits carry float error of the frames; notes' least-squares fits: 2e-7.
    assert!(worst < 1e-4, "{worst}");
}

#[test]
fn canonical_arm_through_mesh_and_skel() {
    let model = canonical::skinned_arm();
    let mesh = Mesh::from_core(&model).unwrap();
    let skel = Skel::from_core_with(
        &model,
        &WriteOptions {
            skeleton_name: "arm".into(),
            ..WriteOptions::default()
        },
    )
    .unwrap()
    .value;
    let mesh_bytes = mesh.value.write().unwrap();
    let skel_bytes = skel.write().unwrap();
    let (mesh2, skel2) = (
        niotso_mesh::mesh::read(&mesh_bytes).unwrap(),
        niotso_mesh::skel::read(&skel_bytes).unwrap(),
    );
    assert_eq!(skel2, skel);
    assert_eq!(skel2.write().unwrap(), skel_bytes);
    let mut back = mesh2
        .to_core_with(&CoreOptions {
            skeleton: Some(&skel2),
            ..CoreOptions::default()
        })
        .unwrap()
        .value;
    back.convert_to(CoordinateSystem::GLTF);
    assert!(validate(&back).is_empty());
    // Every canonical triangle corner comes back within float error, with its weights.
    let (a, b) = (&model.surfaces[0], &back.surfaces[0]);
    assert_eq!(a.indices.len(), b.indices.len());
    let mut corners_a: Vec<[i64; 3]> = a
        .indices
        .iter()
        .map(|&i| {
            (a.positions[i as usize] * 1e4)
                .round()
                .as_i64vec3()
                .to_array()
        })
        .collect();
    let mut corners_b: Vec<[i64; 3]> = b
        .indices
        .iter()
        .map(|&i| {
            (b.positions[i as usize] * 1e4)
                .round()
                .as_i64vec3()
                .to_array()
        })
        .collect();
    corners_a.sort();
    corners_b.sort();
    assert_eq!(corners_a, corners_b);
    for (v, p) in b.positions.iter().enumerate() {
        let src = a
            .positions
            .iter()
            .position(|q| q.abs_diff_eq(*p, 1e-5))
            .unwrap();
        let mut wa: Vec<(u32, f32)> = a.skin[src].pairs().collect();
        let mut wb: Vec<(u32, f32)> = b.skin[v].pairs().collect();
        wa.sort_by_key(|x| x.0);
        wb.sort_by_key(|x| x.0);
        assert_eq!(wa.len(), wb.len());
        for (x, y) in wa.iter().zip(&wb) {
            assert_eq!(x.0, y.0);
            assert!((x.1 - y.1).abs() <= 1.0 / 32768.0 + 1e-6);
        }
    }
    // Posing through meshfmt-core agrees with the file's own skinning at the rest pose.
    let worlds = bone_worlds(&skel2, None);
    let (native, _) = deform(&mesh2, &skel2, &worlds).unwrap();
    let core_native = mesh2
        .to_core_with(&CoreOptions {
            skeleton: Some(&skel2),
            ..CoreOptions::default()
        })
        .unwrap()
        .value;
    let (lbs, _) = skin_surface(
        &core_native.surfaces[0],
        &core_native.skeleton,
        &Pose::rest(&core_native.skeleton),
    );
    for (x, y) in native.iter().zip(&lbs) {
        assert!(x.abs_diff_eq(*y, 1e-5));
    }
    assert_eq!(core_native.coordinate_system, NATIVE);
    let _ = RawString::from("");
}

#[test]
fn mirror_x_commutes_with_skinning() {
    let skel = two_bones();
    let mesh = tiny_mesh();
    let model = mesh
        .to_core_with(&CoreOptions {
            skeleton: Some(&skel),
            ..CoreOptions::default()
        })
        .unwrap()
        .value;
    let mut mirrored = model.clone();
    niotso_mesh::mirror_x(&mut mirrored);
    assert_eq!(
        mirrored.coordinate_system.handedness,
        meshfmt_core::Handedness::Right
    );
    assert_eq!(
        mirrored.surfaces[0].indices,
        [0, 0, 1],
        "faces flipped: (0,1,0) -> (0,0,1)"
    );
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let mut pose = Pose::rest(&model.skeleton);
    pose.locals[1].rotation =
        meshfmt_core::glam::Quat::from_xyzw(0.0, 0.0, s, s) * pose.locals[1].rotation;
    let mut mpose = Pose::rest(&mirrored.skeleton);
    // The same pose mirrored: a rotation about Z becomes the opposite one.
    mpose.locals[1].rotation =
        meshfmt_core::glam::Quat::from_xyzw(0.0, 0.0, -s, s) * mpose.locals[1].rotation;
    let (a, _) = skin_surface(&model.surfaces[0], &model.skeleton, &pose);
    let (b, _) = skin_surface(&mirrored.surfaces[0], &mirrored.skeleton, &mpose);
    for (x, y) in a.iter().zip(&b) {
        assert!(
            Vec3::new(-x.x, x.y, x.z).abs_diff_eq(*y, 1e-5),
            "{x} vs {y}"
        );
    }
    // UVs flip on request.
    let flipped = mesh
        .to_core_with(&CoreOptions {
            skeleton: Some(&skel),
            ..CoreOptions {
                flip_v: true,
                ..CoreOptions::default()
            }
            .clone()
        })
        .unwrap()
        .value;
    assert_eq!(flipped.surfaces[0].uv0[1].y, 0.0);
    assert_eq!(model.surfaces[0].uv0[1].y, 1.0);
}
