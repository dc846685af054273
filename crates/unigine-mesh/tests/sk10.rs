//! sk10 `.mesh_skinned` by hand (documented only, no real file exists): a field-by-field
//! fixture with a raw-stored geometry block, its values, byte-identical rewrite, bad
//! input, corrupt LZ4, and meshfmt-core round trips.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::glam::Vec3;
use meshfmt_core::{CoordinateSystem, Feature, canonical};
use test_support::{ByteBuilder, assert_flips_never_panic, assert_truncations_fail};
use unigine_mesh::ms1x::VertexWeights;
use unigine_mesh::{Error, MeshFile, TargetVersion, WriteOptions, read, sniff};

const R: f32 = std::f32::consts::FRAC_1_SQRT_2;
const BOUNDS: [f32; 10] = [0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.5, 0.0, R];
const IDENTITY: [f32; 10] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];
const BIND_HAND: [f32; 10] = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];
const REST_HAND: [f32; 10] = [2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];
const TANGENT: [u8; 8] = [0, 0, 0, 0, 0, 0, 0xff, 0x7f];

/// Decoded geometry payload (151 bytes: 2 x (36 + 1 + 24) + 20 + 3 + 6): one triangle, two morph targets, weights.
fn geometry() -> ByteBuilder {
    ByteBuilder::new()
        .f32s_le(
            &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            "morph 0: 3 vertices",
        )
        .u8(3, "morph 0: ci num_tangents")
        .bytes(
            &[TANGENT, TANGENT, TANGENT].concat(),
            "3 tangents (0,0,0,32767)",
        )
        .f32s_le(
            &[0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0],
            "morph 1: z + 1",
        )
        .u8(3, "morph 1: ci num_tangents")
        .bytes(&[TANGENT, TANGENT, TANGENT].concat(), "3 tangents")
        .u8(3, "ci num_weights = 3")
        .bytes(&[1, 0, 0, 0xff, 0xff], "v0: 1 pair: joint 0, 65535")
        .bytes(
            &[2, 0, 0, 0, 0x80, 1, 0, 0xff, 0x7f],
            "v1: joint 0 32768, joint 1 32767",
        )
        .bytes(&[1, 1, 0, 0xff, 0xff], "v2: joint 1, 65535")
        .bytes(&[0, 0, 0], "ci num_uv0, num_uv1, num_colors = 0")
        .bytes(&[0, 1, 2], "cindices (u8)")
        .bytes(&[0, 1, 2], "tindices (u8)")
}

fn fixture() -> ByteBuilder {
    let g = geometry().build();
    assert_eq!(g.len(), 151);
    ByteBuilder::new()
        .bytes(b"sk10", "0x000 magic")
        .u8(4, "0x004 ci spatial tree triangles")
        .f32s_le(&BOUNDS, "0x005 mesh bounds")
        .i32_le(2, "0x02d num_joints (int32)")
        .bytes(b"\x05root\0\xff\xff", "0x031 joint 0 'root', parent -1")
        .bytes(b"\x05hand\0\x00\x00", "0x039 joint 1 'hand', parent 0")
        .i32_le(2, "0x041 num bind transforms (int32)")
        .f32s_le(&IDENTITY, "0x045 bind 0")
        .f32s_le(&BIND_HAND, "0x06d bind 1: position (1,0,0)")
        .i32_le(2, "0x095 num rest transforms (int32)")
        .f32s_le(&IDENTITY, "0x099 rest 0")
        .f32s_le(&REST_HAND, "0x0c1 rest 1: position (2,0,0)")
        .bytes(b"\x02\0\0\0g\0", "0x0e9 skeleton GUID (int32 length 2)")
        .bytes(
            b"\x0b\0\0\0a.skeleton\0",
            "0x0ef skeleton path (int32 length 11)",
        )
        .u8(1, "0x0fe ci num_surfaces")
        .bytes(b"\x02s\0", "0x0ff surface name 's' (no lightmap bytes)")
        .bytes(&[3, 3], "0x102 ci num_cindices, num_tindices")
        .f32s_le(&BOUNDS, "0x104 surface bounds")
        .u8(2, "0x12c ci num_morph_targets")
        .bytes(&[1, 0, 3], "0x12d morph 0: name '', 3 vertices")
        .bytes(b"\x03up\0\x03", "0x130 morph 1: name 'up', 3 vertices")
        .bytes(&500i64.to_le_bytes(), "0x135 memory estimate 500")
        .bytes(b"sk10", "0x13d marker 2")
        .bytes(&151u64.to_le_bytes(), "0x141 geometry block: decoded size")
        .bytes(&151u64.to_le_bytes(), "0x149 stored size (raw)")
        .bytes(&g, "0x151 geometry payload")
        .bytes(b"sk10", "0x1e8 marker 3 (no tree section)")
        .bytes(
            &0x141i64.to_le_bytes(),
            "0x1ec offset of the geometry block",
        )
        .bytes(b"sk10", "0x1f4 marker 4")
}

#[test]
fn fixture_reads_by_hand_and_rewrites_identically() {
    let bytes = fixture().build();
    assert_eq!(bytes.len(), 0x1f8);
    assert!(sniff(&bytes));
    let file = read(&bytes).unwrap_or_else(|e| panic!("{e}\n{}", fixture().listing()));
    assert_eq!(file.version(), "sk10");
    let MeshFile::Sk10(k) = &file else {
        panic!("not sk10")
    };
    assert_eq!(k.spatial_tree_triangles, 4);
    assert_eq!(k.memory_estimate, 500);
    assert_eq!(k.skeleton_guid.as_bytes(), b"g");
    assert_eq!(k.skeleton_path.as_bytes(), b"a.skeleton");
    let m = &k.mesh;
    assert_eq!(m.bones.len(), 2);
    assert_eq!(m.bones[1].name.as_bytes(), b"hand");
    assert_eq!(m.bones[1].parent, 0);
    assert_eq!(m.bind_pose[1].to_array(), BIND_HAND);
    assert_eq!(k.rest_pose[0].to_array(), IDENTITY);
    assert_eq!(k.rest_pose[1].to_array(), REST_HAND);
    let s = &m.surfaces[0];
    assert_eq!(s.name.as_bytes(), b"s");
    assert_eq!(s.lightmap, [0, 0]);
    assert_eq!(s.morph_targets.len(), 2);
    assert_eq!(s.morph_targets[1].name.as_bytes(), b"up");
    assert_eq!(s.morph_targets[1].vertices[2], [0.0, 1.0, 1.0]);
    assert_eq!(
        s.weights[1],
        VertexWeights {
            count: 2,
            bones: [0, 1, 0, 0],
            weights: [32768, 32767, 0, 0]
        }
    );
    assert_eq!(s.weights[2].bones[0], 1);
    assert!(s.uv0.is_empty());
    assert_eq!(s.cindices, vec![0, 1, 2]);
    assert_eq!(file.write().unwrap(), bytes);

    let c = file.to_core().unwrap();
    let model = &c.value;
    let hand = &model.skeleton.bones[1];
    // rest = rest transform; inverse bind = inverse of the world bind (1,0,0).
    assert_eq!(hand.rest.translation, Vec3::new(2.0, 0.0, 0.0));
    let ib = hand.inverse_bind.unwrap();
    assert!(ib.transform_point3(Vec3::X).length() < 1e-6);
    let surf = &model.surfaces[0];
    assert_eq!(surf.morph_targets.len(), 1);
    assert!(!surf.skin.is_empty());
    assert!(c.losses.iter().any(|l| l.feature == Feature::Skeleton));
}

#[test]
fn every_truncation_fails_and_flips_never_panic() {
    let bytes = fixture().build();
    assert_truncations_fail(&bytes, read);
    assert_flips_never_panic(&bytes, 500, read);
}

#[test]
fn hostile_counts_fail_without_allocating() {
    let bytes = fixture().build();
    for at in [0x2d, 0x41, 0x95, 0xe9, 0xef] {
        let mut b = bytes.clone();
        b[at..at + 4].copy_from_slice(&0x7fff_ffffi32.to_le_bytes());
        assert!(read(&b).is_err(), "int32 count at {at:#x}");
    }
    for at in [0xfe, 0x12c, 0x12f] {
        let mut b = bytes.clone();
        b.splice(at..at + 1, [0xbf, 0xff, 0xff, 0xff, 0x0f]);
        assert!(read(&b).is_err(), "compact count at {at:#x}");
    }
    // Rest count differing from the joint count.
    let mut b = bytes.clone();
    b[0x95] = 1;
    assert!(
        read(&b)
            .unwrap_err()
            .to_string()
            .contains("rest_transforms")
    );
    // A decoded size of 2^40 from 151 bytes.
    let mut b = bytes.clone();
    b[0x141..0x149].copy_from_slice(&(1u64 << 40).to_le_bytes());
    assert!(
        read(&b)
            .unwrap_err()
            .to_string()
            .contains("cannot decode to")
    );
    // A weight naming joint 2 of 2 (v2's joint, in the decoded block).
    let mut b = bytes;
    b[0x151 + 122 + 1 + 5 + 9 + 1] = 2;
    assert!(read(&b).unwrap_err().to_string().contains("weight bone 2"));
}

#[test]
fn corrupt_lz4_blocks_fail_cleanly() {
    let bytes = fixture().build();
    let splice = |block: &[u8]| {
        let mut b = bytes[..0x141].to_vec();
        b.extend_from_slice(&151u64.to_le_bytes());
        b.extend_from_slice(&(block.len() as u64).to_le_bytes());
        b.extend_from_slice(block);
        b.extend_from_slice(b"sk10");
        b.extend_from_slice(&0x141i64.to_le_bytes());
        b.extend_from_slice(b"sk10");
        b
    };
    // Literals only, announcing 15 literals (token 0xf0, then 0x00) but ending early.
    let e = read(&splice(&[0xf0, 0x00, 1, 2, 3])).unwrap_err();
    assert!(matches!(e, Error::Decode(_)));
    assert!(e.to_string().contains("corrupt LZ4 block"), "{e}");
    // A match reaching before the start (offset 9 after 1 literal).
    let e = read(&splice(&[0x1f, 0, 9, 0, 0x7f, 0x50, 1, 2, 3, 4, 5]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("corrupt LZ4 block"), "{e}");
}

#[test]
fn core_round_trip_through_sk10() {
    let model = canonical::skinned_arm();
    let c = MeshFile::from_core_with(
        &model,
        &WriteOptions {
            version: TargetVersion::Sk10,
            ..Default::default()
        },
    )
    .unwrap();
    // The clip cannot be stored in a mesh.
    assert!(c.losses.iter().any(|l| l.feature == Feature::Animation));
    let bytes = c.value.write().unwrap();
    assert_eq!(&bytes[..4], b"sk10");
    let file = read(&bytes).unwrap();
    assert_eq!(file.write().unwrap(), bytes);
    let mut back = file.to_core().unwrap().value;
    back.convert_to(CoordinateSystem::GLTF);
    assert_eq!(back.skeleton.len(), 2);
    assert_eq!(back.skeleton.bones[1].name, "elbow");
    let t = back.skeleton.bones[1].rest.translation;
    assert!((t - Vec3::X).length() < 1e-6, "{t}");
    // Rest = bind in the canonical arm, so no explicit inverse bind comes back.
    assert!(back.skeleton.bones.iter().all(|b| b.inverse_bind.is_none()));
    let (a, b) = (&back.surfaces[0], &model.surfaces[0]);
    assert_eq!(a.indices.len(), b.indices.len());
    assert_eq!(a.skin.len(), a.positions.len());
    for (i, j) in a.indices.iter().zip(&b.indices) {
        let (p, q) = (a.positions[*i as usize], b.positions[*j as usize]);
        assert!((p - q).length() < 1e-6, "{p} vs {q}");
        let (wa, wb) = (a.skin[*i as usize], b.skin[*j as usize]);
        for k in 0..4 {
            if wb.weights[k] > 0.0 {
                let at = wa.joints.iter().position(|&j| j == wb.joints[k]).unwrap();
                assert!((wa.weights[at] - wb.weights[k]).abs() < 1e-4);
            }
        }
    }

    // A model whose explicit inverse bind differs from its rest pose keeps both.
    let mut posed = canonical::skinned_arm();
    posed.convert_to(unigine_mesh::COORDINATE_SYSTEM);
    let bind_world = posed.skeleton.rest_world_matrices();
    for (b, w) in posed.skeleton.bones.iter_mut().zip(&bind_world) {
        b.inverse_bind = Some(w.inverse());
    }
    posed.skeleton.bones[1].rest.translation = Vec3::new(3.0, 0.0, 0.0);
    let c = MeshFile::from_core_with(
        &posed,
        &WriteOptions {
            version: TargetVersion::Sk10,
            ..Default::default()
        },
    )
    .unwrap();
    let MeshFile::Sk10(k) = &c.value else {
        panic!("not sk10")
    };
    let bind1 = k.mesh.bind_pose[1].to_array();
    let rest1 = k.rest_pose[1].to_array();
    // The bind comes from the inverse bind matrices ((1,0,0)), the rest from `rest`.
    assert!((bind1[0] - 1.0).abs() < 1e-5, "{bind1:?}");
    assert_eq!(rest1[0], 3.0);
    let back = read(&c.value.write().unwrap())
        .unwrap()
        .to_core()
        .unwrap()
        .value;
    let ib = back.skeleton.bones[1].inverse_bind.unwrap();
    let want = bind_world[1].inverse();
    assert!(ib.abs_diff_eq(want, 1e-5), "{ib} vs {want}");
}
