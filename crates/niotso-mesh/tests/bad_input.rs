//! Strict where the format is strict, lenient where real readers are.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use niotso_mesh::mesh::{self, Binding, Blend, Mesh, ReadOptions};
use niotso_mesh::{CoreOptions, read_with};
use niotso_mesh::{Error, Kind, VitaboyFile};
use parsing_primitives::ErrorKind;
use test_support::{ByteBuilder, Rng, assert_flips_never_panic, assert_truncations_fail};

fn one_bone_mesh(bone_index: i32) -> Mesh {
    Mesh {
        version: 2,
        bone_names: vec!["HEAD".into()],
        faces: vec![[0, 1, 2]],
        bindings: vec![Binding {
            bone_index,
            first_real: 0,
            real_count: 3,
            first_blend: -1,
            blend_count: 0,
        }],
        uvs: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
        blends: vec![],
        third_count: 3,
        real_vertices: vec![
            [0.0, 0.0, 0.0, 0.0, 3.0, 0.0],
            [1.0, 0.0, 0.0, 0.0, 3.0, 0.0],
            [0.0, 0.0, 1.0, 0.0, 3.0, 0.0],
        ],
        blend_vertices: vec![],
    }
}

fn err(bytes: &[u8]) -> parsing_primitives::Error {
    match mesh::read(bytes) {
        Err(Error::Decode(e)) => e,
        other => panic!("expected a decode error, got {other:?}"),
    }
}

#[test]
fn hostile_count_in_twenty_bytes() {
    // version 2, bone_count 0x7fffffff, then 12 bytes.
    let b = ByteBuilder::new()
        .u32_be(2, "version")
        .u32_be(0x7fff_ffff, "bone_count")
        .bytes(&[0; 12], "rest");
    let e = err(&b.build());
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountTooLarge {
                count: 0x7fff_ffff,
                remaining: 12,
                ..
            }
        ),
        "{e}"
    );
    // Same for faces and vertices.
    let b = ByteBuilder::new()
        .u32_be(2, "version")
        .u32_be(0, "bones")
        .u32_be(0x7fff_ffff, "face_count")
        .bytes(&[0; 8], "rest");
    assert!(matches!(
        err(&b.build()).kind(),
        ErrorKind::CountTooLarge { .. }
    ));
}

#[test]
fn out_of_range_bone_index_is_resolved_with_a_diagnostic() {
    // Like the original costume mesh that names bone 108 of 1.
    let m = one_bone_mesh(108);
    let bytes = m.write().unwrap();
    let back = mesh::read(&bytes).unwrap();
    assert_eq!(back.bindings[0].bone_index, 108, "kept as stored");
    let (name, clamped) = back.binding_bone(&back.bindings[0]).unwrap();
    assert_eq!((name.as_str(), clamped), (Some("HEAD"), true));
    assert_eq!(
        back.diagnostics(),
        ["binding 0: bone index 108 out of range (1 names), resolved to 'HEAD'"]
    );
    let core = back
        .to_core_with(&CoreOptions {
            skeleton: None,
            ..CoreOptions::default()
        })
        .unwrap();
    assert!(
        core.losses
            .iter()
            .any(|l| l.reason.contains("bone index 108"))
    );
    assert_eq!(
        core.value.surfaces[0].skin[0].pairs().collect::<Vec<_>>(),
        [(0, 1.0)]
    );
}

#[test]
fn strict_checks_name_the_offset() {
    let good = one_bone_mesh(0);
    let bytes = good.write().unwrap();
    assert_truncations_fail(&bytes, mesh::read);
    assert_flips_never_panic(&bytes, 1000, mesh::read);
    // Face index past the real vertices: faces start after version, count, 'HEAD', count.
    let faces_at = 4 + 4 + 5 + 4;
    let mut bad = bytes.clone();
    bad[faces_at + 11] = 3;
    let e = err(&bad);
    assert_eq!((e.offset(), e.path()), (faces_at as u64, "faces[0]"));
    // A binding range past the end.
    let binding_at = faces_at + 12 + 4;
    let mut bad = bytes.clone();
    bad[binding_at + 11] = 4; // real_count 4 of 3
    let e = err(&bad);
    assert_eq!(e.path(), "bindings[0]");
    // Empty blend ranges may start anywhere (-1 here); a version other than 2 fails
    // unless asked; trailing bytes fail unless allowed.
    let mut bad = bytes.clone();
    bad[3] = 3;
    assert!(mesh::read(&bad).is_err());
    let lenient = ReadOptions {
        any_version: true,
        ..ReadOptions::default()
    };
    assert!(mesh::read_with(&bad, &lenient).is_ok());
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        err(&long).kind(),
        ErrorKind::TrailingBytes { count: 1 }
    ));
    let lenient = ReadOptions {
        allow_trailing_bytes: true,
        ..ReadOptions::default()
    };
    assert_eq!(mesh::read_with(&long, &lenient).unwrap(), good);
    // A blend tugging a vertex that does not exist.
    let mut m = one_bone_mesh(0);
    m.blends.push(Blend {
        weight: 0x4000,
        other_vertex: 9,
    });
    m.blend_vertices.push([0.0; 6]);
    assert!(m.write().is_err());
}

#[test]
fn kinds_and_random_bytes() {
    let bytes = one_bone_mesh(0).write().unwrap();
    assert!(matches!(
        read_with(
            &bytes,
            &ReadOptions {
                kind: None,
                ..Default::default()
            }
        )
        .unwrap(),
        VitaboyFile::Mesh(_)
    ));
    assert!(
        read_with(
            &bytes,
            &ReadOptions {
                kind: Some(Kind::Anim),
                ..Default::default()
            }
        )
        .is_err()
    );
    let mut rng = Rng::new(17);
    for i in 0..3000 {
        let mut b = vec![0, 0, 0, [1u8, 2][i % 2]];
        let n = rng.below(100) as usize;
        b.extend(rng.bytes(n));
        for kind in [None, Some(Kind::Mesh), Some(Kind::Skel), Some(Kind::Anim)] {
            let _ = read_with(
                &b,
                &ReadOptions {
                    kind,
                    ..Default::default()
                },
            );
        }
    }
}
