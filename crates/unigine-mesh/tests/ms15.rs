//! ms15 by hand (documented only, no real file exists): a field-by-field fixture with
//! raw-stored blocks, its values, byte-identical rewrite, bad input, corrupt LZ4, and
//! meshfmt-core round trips.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::{Feature, canonical};
use test_support::{ByteBuilder, assert_flips_never_panic, assert_truncations_fail};
use unigine_mesh::{Error, MeshFile, TargetVersion, WriteOptions, read, sniff};

const R: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// Decoded geometry payload (94 bytes): one triangle.
fn geometry() -> ByteBuilder {
    ByteBuilder::new()
        .f32s_le(&[0.0, 0.0, 0.0], "vertex 0 (count 3 from the header)")
        .f32s_le(&[1.0, 0.0, 0.0], "vertex 1")
        .f32s_le(&[0.0, 1.0, 0.0], "vertex 2")
        .u8(3, "ci num_tangents = 3")
        .bytes(&[0, 0, 0, 0, 0, 0, 0xff, 0x7f], "tangent 0 = (0,0,0,32767)")
        .bytes(&[0, 0, 0, 0, 0, 0, 0xff, 0x7f], "tangent 1")
        .bytes(&[0, 0, 0, 0, 0, 0, 0xff, 0x7f], "tangent 2")
        // no weights count in ms15
        .u8(3, "ci num_uv0 = 3")
        .f32s_le(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "uv0 x 3")
        .u8(0, "ci num_uv1 = 0")
        .u8(0, "ci num_colors = 0")
        .bytes(
            &[0, 1, 2],
            "cindices, u8 (3 vertices), count from the header",
        )
        .bytes(&[0, 1, 2], "tindices, u8 (3 tangents)")
}

/// Decoded edges + spatial tree payload (38 bytes): one leaf.
fn tree() -> ByteBuilder {
    ByteBuilder::new()
        .bytes(&[1, 7], "ci num_edges = 1; flags 7")
        .bytes(&[1, 0], "ci num_node_indices = 1; index 0")
        .u8(1, "ci num_nodes = 1")
        .bytes(
            &[0, 0x41, 0x41, 0, 1],
            "axis 0, left -1, right -1, start 0, end 1",
        )
        .f32s_le(&[0.0, 0.0, 0.0, 1.0, 1.0, 0.0], "node box")
        .f32_le(0.0, "split")
}

fn fixture() -> ByteBuilder {
    let g = geometry().build();
    let t = tree().build();
    assert_eq!((g.len(), t.len()), (94, 38));
    let bounds = [0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.5, 0.0, R];
    ByteBuilder::new()
        .bytes(b"ms15", "0x000 magic")
        .u8(4, "0x004 ci spatial tree triangles = 4")
        .f32s_le(&bounds, "0x005 mesh bounds")
        .u8(1, "0x02d ci num_surfaces = 1 (no bone list)")
        .bytes(b"\x02q\0", "0x02e surface name 'q'")
        .bytes(&[0, 0], "0x031 lightmap channel, resolution")
        .bytes(&[3, 3], "0x033 ci num_cindices, num_tindices")
        .f32s_le(&bounds, "0x035 surface bounds")
        .u8(3, "0x05d ci num_vertices = 3 (no morph-target list)")
        .bytes(&100i64.to_le_bytes(), "0x05e memory estimate 100")
        .bytes(b"ms15", "0x066 marker 2")
        .bytes(&94u64.to_le_bytes(), "0x06a geometry block: decoded size")
        .bytes(&94u64.to_le_bytes(), "0x072 stored size (= decoded: raw)")
        .bytes(&g, "0x07a geometry payload")
        .bytes(b"ms15", "0x0d8 marker 3")
        .bytes(&38u64.to_le_bytes(), "0x0dc tree block: decoded size")
        .bytes(&38u64.to_le_bytes(), "stored size (raw)")
        .bytes(&t, "tree payload")
        .bytes(b"ms15", "marker 4")
        .bytes(&0x6ai64.to_le_bytes(), "offset of the geometry block")
        .bytes(b"ms15", "marker 5")
}

#[test]
fn fixture_reads_by_hand_and_rewrites_identically() {
    let bytes = fixture().build();
    assert_eq!(bytes.len(), 0x122);
    assert!(sniff(&bytes));
    let file = read(&bytes).unwrap_or_else(|e| panic!("{e}\n{}", fixture().listing()));
    assert_eq!(file.version(), "ms15");
    let MeshFile::Ms15(m) = &file else {
        panic!("not ms15")
    };
    let m = &m.0;
    assert_eq!(m.spatial_tree_triangles, 4);
    assert_eq!(m.memory_estimate, 100);
    assert!(m.mesh.bones.is_empty());
    assert_eq!(m.mesh.bounds.to_array()[9], R);
    let s = &m.mesh.surfaces[0];
    assert_eq!(s.name.as_bytes(), b"q");
    assert_eq!(s.lightmap, [0, 0]);
    assert_eq!(s.morph_targets.len(), 1);
    assert!(s.morph_targets[0].name.is_empty());
    assert_eq!(
        s.morph_targets[0].vertices,
        vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    );
    assert_eq!(s.morph_targets[0].tangents, vec![[0, 0, 0, 32767]; 3]);
    assert!(s.weights.is_empty());
    assert_eq!(s.uv0, vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]);
    assert!(s.uv1.is_empty() && s.colors.is_empty());
    assert_eq!(s.cindices, vec![0, 1, 2]);
    assert_eq!(s.tindices, vec![0, 1, 2]);
    let t = &m.trees[0];
    assert_eq!(t.edge_flags, vec![7]);
    assert_eq!(t.node_indices, vec![0]);
    assert_eq!(
        (t.nodes[0].left, t.nodes[0].right, t.nodes[0].end),
        (-1, -1, 1)
    );
    assert_eq!(t.nodes[0].max, [1.0, 1.0, 0.0]);
    assert_eq!(file.write().unwrap(), bytes);

    let model = file.to_core().unwrap().value;
    assert_eq!(model.surfaces.len(), 1);
    assert_eq!(model.surfaces[0].indices.len(), 3);
    assert_eq!(model.surfaces[0].positions.len(), 3);
    assert!(model.skeleton.is_empty());
}

#[test]
fn every_truncation_fails_and_flips_never_panic() {
    let bytes = fixture().build();
    assert_truncations_fail(&bytes, read);
    assert_flips_never_panic(&bytes, 400, read);
}

#[test]
fn hostile_counts_fail_without_allocating() {
    let bytes = fixture().build();
    // num_surfaces (0x2d) = 0x7fffffff as a compact int.
    let mut b = bytes.clone();
    b.splice(0x2d..0x2e, [0xbf, 0xff, 0xff, 0xff, 0x0f]);
    assert!(read(&b).is_err());
    // num_vertices (0x5d) = 0x7fffffff: the geometry block cannot hold them.
    let mut b = bytes.clone();
    b.splice(0x5d..0x5e, [0xbf, 0xff, 0xff, 0xff, 0x0f]);
    assert!(read(&b).is_err());
    // A geometry block claiming a decoded size of 2^40 from 94 bytes.
    let mut b = bytes.clone();
    b[0x6a..0x72].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let e = read(&b).unwrap_err().to_string();
    assert!(e.contains("cannot decode to"), "{e}");
    // Stored size larger than the decoded size.
    let mut b = bytes.clone();
    b[0x72..0x7a].copy_from_slice(&95u64.to_le_bytes());
    assert!(read(&b).is_err());
    // A wrong geometry offset.
    let mut b = bytes;
    let at = b.len() - 12;
    b[at] = 0x6b;
    assert!(read(&b).unwrap_err().to_string().contains("offset"));
}

#[test]
fn corrupt_lz4_blocks_fail_cleanly() {
    // Replace the geometry block with an LZ4 block: 30 x 'a' is literal 'a', a match
    // of 24 at offset 1 (token 0x1f, extra length byte 5), then 5 literals (token
    // 0x50) = 11 bytes. It decodes, but is no geometry payload.
    let lz4: [u8; 11] = [0x1f, b'a', 1, 0, 5, 0x50, b'a', b'a', b'a', b'a', b'a'];
    let splice = |block: &[u8]| {
        let bytes = fixture().build();
        let mut b = bytes[..0x6a].to_vec();
        b.extend_from_slice(&30u64.to_le_bytes());
        b.extend_from_slice(&(block.len() as u64).to_le_bytes());
        b.extend_from_slice(block);
        b.extend_from_slice(&bytes[0x7a + 94..]);
        b
    };
    let e = read(&splice(&lz4)).unwrap_err().to_string();
    assert!(!e.contains("corrupt LZ4"), "{e}");
    // Offset 0 is invalid LZ4.
    let mut bad = lz4;
    bad[2] = 0;
    let e = read(&splice(&bad)).unwrap_err();
    assert!(matches!(e, Error::Decode(_)));
    assert!(e.to_string().contains("corrupt LZ4 block"), "{e}");
    // A stream that ends early.
    let e = read(&splice(&lz4[..6])).unwrap_err().to_string();
    assert!(e.contains("corrupt LZ4 block"), "{e}");
}

#[test]
fn core_round_trips_through_ms15() {
    // A static model converts without loss of geometry.
    let cube = canonical::cube();
    let c = MeshFile::from_core_with(
        &cube,
        &WriteOptions {
            version: TargetVersion::Ms15,
            ..Default::default()
        },
    )
    .unwrap();
    let bytes = c.value.write().unwrap();
    assert_eq!(&bytes[..4], b"ms15");
    let file = read(&bytes).unwrap();
    assert_eq!(file.write().unwrap(), bytes);
    let mut back = file.to_core().unwrap().value;
    back.convert_to(cube.coordinate_system);
    assert_eq!(back.surfaces.len(), cube.surfaces.len());
    let tris = |m: &meshfmt_core::Model| m.surfaces.iter().map(|s| s.indices.len()).sum::<usize>();
    assert_eq!(tris(&back), tris(&cube));
    for (a, b) in back.surfaces.iter().zip(&cube.surfaces) {
        for (i, j) in a.indices.iter().zip(&b.indices) {
            let (p, q) = (a.positions[*i as usize], b.positions[*j as usize]);
            assert!((p - q).length() < 1e-6, "{p} vs {q}");
        }
    }

    // A skinned, morphing model loses bones, weights and morph targets, reported.
    for (model, lost) in [
        (canonical::skinned_arm(), [Feature::Skeleton, Feature::Skin]),
        (
            canonical::morph(),
            [Feature::MorphTargets, Feature::MorphTargets],
        ),
    ] {
        let c = MeshFile::from_core_with(
            &model,
            &WriteOptions {
                version: TargetVersion::Ms15,
                ..Default::default()
            },
        )
        .unwrap();
        for f in lost {
            assert!(
                c.losses.iter().any(|l| l.feature == f),
                "{f:?} {:?}",
                c.losses
            );
        }
        let bytes = c.value.write().unwrap();
        let back = read(&bytes).unwrap().to_core().unwrap().value;
        assert!(back.skeleton.is_empty());
        assert!(
            back.surfaces
                .iter()
                .all(|s| s.skin.is_empty() && s.morph_targets.is_empty())
        );
    }
}

#[test]
fn unknown_versions_are_still_named() {
    assert_eq!(
        read(b"ms16\0\0\0\0").unwrap_err().to_string(),
        "unigine-mesh: unsupported UNIGINE mesh version ms16"
    );
}
