//! What `Mesh::from_core` stores comes back where the model had it, read with the .skel
//! `Skel::from_core` writes beside it; what it cannot keep is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::glam::{Quat, Vec3};
use meshfmt_core::{
    Bone, Feature, LossKind, Model, Skeleton, Surface, Transform, VertexInfluences,
};
use niotso_mesh::WriteOptions;
use niotso_mesh::{CoreOptions, Mesh, Skel};

fn model(scale: Vec3, skinned: usize) -> Model {
    let positions = vec![
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(1.0, 2.0, 0.5),
        Vec3::new(-1.0, 3.0, 0.25),
    ];
    Model {
        coordinate_system: niotso_mesh::NATIVE,
        skeleton: Skeleton {
            bones: vec![
                Bone {
                    name: "ROOT".into(),
                    rest: Transform {
                        translation: Vec3::new(0.0, 1.0, 0.0),
                        rotation: Quat::from_rotation_y(0.3),
                        scale,
                    },
                    ..Default::default()
                },
                Bone {
                    name: "SPINE".into(),
                    parent: Some(0),
                    rest: Transform {
                        translation: Vec3::new(0.0, 0.5, 0.0),
                        ..Transform::IDENTITY
                    },
                    ..Default::default()
                },
            ],
        },
        surfaces: vec![Surface {
            positions: positions.clone(),
            normals: vec![Vec3::Y; 3],
            indices: vec![0, 1, 2],
            skin: (0..3)
                .map(|i| {
                    if i < skinned {
                        VertexInfluences::single(1)
                    } else {
                        VertexInfluences::default()
                    }
                })
                .collect(),
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn round_trip(m: &Model) -> (Vec<Vec3>, Vec<meshfmt_core::Loss>) {
    let c = Mesh::from_core(m).unwrap();
    let skel = Skel::from_core_with(
        m,
        &WriteOptions {
            skeleton_name: "skeleton".into(),
            ..WriteOptions::default()
        },
    )
    .unwrap()
    .value;
    let back = c
        .value
        .to_core_with(&CoreOptions {
            skeleton: Some(&skel),
            ..CoreOptions::default()
        })
        .unwrap()
        .value;
    // Corners in the model's order (the writer groups vertices by bone).
    let s = &back.surfaces[0];
    let corners = s.indices.iter().map(|&i| s.positions[i as usize]).collect();
    (corners, c.losses)
}

#[test]
fn scaled_bones_do_not_move_the_vertices() {
    // A .skel has no bone scale: vertices stored in the space of a scaled bone came back
    // scaled (by 1.0000058 on a real sample; by 2 here).
    let m = model(Vec3::splat(2.0), 3);
    let (corners, _) = round_trip(&m);
    for (a, b) in corners.iter().zip(&m.surfaces[0].positions) {
        assert!(a.abs_diff_eq(*b, 1e-5), "{a} vs {b}");
    }
}

#[test]
fn vertices_without_influences_are_reported_bound_to_bone_0() {
    let (_, losses) = round_trip(&model(Vec3::ONE, 1));
    let loss = losses
        .iter()
        .find(|l| l.feature == Feature::Skin && l.kind == LossKind::Reduced)
        .expect("a skin loss");
    assert!(
        loss.to_string().contains("2 vertices without influences"),
        "{loss}"
    );
    let (_, losses) = round_trip(&model(Vec3::ONE, 3));
    assert!(
        !losses
            .iter()
            .any(|l| l.feature == Feature::Skin && l.kind == LossKind::Reduced)
    );
}
