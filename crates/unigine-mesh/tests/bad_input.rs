//! A hand-assembled ms11 file (field by field, notes 5), then every check the notes
//! list: markers, counts against the bytes left, index ranges, weight counts, at most 4
//! weights, end of file. Each failure names the surface, the field and the offset.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use parsing_primitives::ErrorKind;
use test_support::{ByteBuilder, Rng, assert_flips_never_panic, assert_truncations_fail};
use unigine_mesh::{Error, MeshFile, read};

fn ms11() -> ByteBuilder {
    ByteBuilder::new()
        .bytes(b"ms11", "magic")
        .f32s_le(
            &[0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.5, 0.0, 0.70710677],
            "bounds",
        )
        .u8(1, "num_bones (compact)")
        .bytes(b"\x05root\0", "bone name: compact length 5 incl. NUL")
        .i16_le(-1, "parent: root")
        .u8(0, "num_animations")
        .u8(1, "num_surfaces")
        .bytes(b"\x05body\0", "surface name")
        .f32s_le(
            &[0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.5, 0.0, 0.70710677],
            "surface bounds",
        )
        .u8(1, "num_morph_targets")
        .bytes(b"\x01\0", "morph target 0 name: empty")
        .bytes(b"ms11", "marker 2")
        .f32s_le(
            &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0],
            "bind pose: position, quaternion, scale",
        )
        .u8(3, "num_vertices")
        .f32s_le(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "vertices")
        .u8(3, "num_tangents")
        .bytes(
            &[0, 0, 0, 0, 0, 0, 0xff, 0x7f],
            "tangent 0: identity quaternion (0,0,0,32767)",
        )
        .bytes(&[0, 0, 0, 0, 0, 0, 0xff, 0x7f], "tangent 1")
        .bytes(
            &[0, 0, 0, 0, 0, 0, 0x01, 0x80],
            "tangent 2: w = -32767, binormal flipped",
        )
        .u8(3, "num_weights = num_vertices")
        .bytes(&[1, 0, 0, 0xff, 0xff], "v0: 1 weight, bone 0, 65535")
        .bytes(&[1, 0, 0, 0xff, 0xff], "v1")
        .bytes(&[1, 0, 0, 0xff, 0xff], "v2")
        .u8(3, "num_uv0")
        .f32s_le(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "uv0")
        .u8(0, "num_uv1")
        .u8(0, "num_colors")
        .u8(3, "num_cindices")
        .bytes(&[0, 1, 2], "cindices: u8 (3 vertices < 256)")
        .u8(3, "num_tindices")
        .bytes(&[0, 1, 2], "tindices: u8")
        .bytes(b"ms11", "marker 3")
}

/// Offsets of fields in `ms11()`, counted from the listing above.
const MARKER2: usize = 4 + 40 + 1 + 6 + 2 + 1 + 1 + 6 + 40 + 1 + 2;
const NUM_WEIGHTS: usize = MARKER2 + 4 + 40 + 1 + 36 + 1 + 24;
const NUM_CINDICES: usize = NUM_WEIGHTS + 1 + 15 + 1 + 24 + 1 + 1;

fn decode_err(bytes: &[u8]) -> parsing_primitives::Error {
    match read(bytes) {
        Err(Error::Decode(e)) => e,
        other => panic!("expected a decode error, got {other:?}"),
    }
}

#[test]
fn hand_assembled_ms11_reads_and_rewrites() {
    let b = ms11();
    let bytes = b.build();
    assert_eq!(&bytes[MARKER2..MARKER2 + 4], b"ms11");
    assert_eq!(bytes[NUM_WEIGHTS], 3);
    assert_eq!(bytes[NUM_CINDICES], 3);
    let MeshFile::Ms1x(m) = read(&bytes).unwrap() else {
        panic!()
    };
    let s = &m.surfaces[0];
    assert_eq!(s.name.as_str(), Some("body"));
    assert_eq!(s.morph_targets[0].tangents[2], [0, 0, 0, -32767]);
    assert_eq!(s.weights[1].weights[0], 65535);
    assert_eq!(
        (s.cindices.clone(), s.tindices.clone()),
        (vec![0, 1, 2], vec![0, 1, 2])
    );
    assert_eq!(
        MeshFile::Ms1x(m.clone()).write().unwrap(),
        bytes,
        "\n{}",
        b.listing()
    );
    // Through meshfmt-core: identity quaternion = normal +Z, tangent +X; w < 0 flips.
    let core = m.to_core().unwrap().value;
    let cs = &core.surfaces[0];
    assert_eq!(cs.normals[0].to_array(), [0.0, 0.0, 1.0]);
    assert_eq!(cs.tangents[0].to_array(), [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(cs.tangents[2].w, -1.0);
    assert_eq!(cs.skin[0].pairs().collect::<Vec<_>>(), [(0, 1.0)]);
    assert_truncations_fail(&bytes, read);
    assert_flips_never_panic(&bytes, 1000, read);
}

#[test]
fn markers_are_checked() {
    let mut bytes = ms11().build();
    bytes[MARKER2] = b'x';
    let e = decode_err(&bytes);
    assert_eq!((e.offset(), e.path()), (MARKER2 as u64, "marker2"));
    assert!(matches!(e.kind(), ErrorKind::BadMagic { .. }));
    let mut bytes = ms11().build();
    let n = bytes.len();
    bytes[n - 1] = b'0';
    let e = decode_err(&bytes);
    assert_eq!((e.offset(), e.path()), (n as u64 - 4, "marker3"));
    // ms10 content under an ms11 magic fails at a named place, not with a panic.
    let mut bytes = ms11().build();
    bytes[3] = b'0';
    assert!(read(&bytes).is_err());
}

#[test]
fn counts_and_ranges() {
    // Weights must be 0 or the vertex count.
    let mut bytes = ms11().build();
    bytes[NUM_WEIGHTS] = 2;
    let e = decode_err(&bytes);
    assert_eq!(e.offset(), NUM_WEIGHTS as u64);
    assert_eq!(e.path(), "surfaces[0] 'body'.num_weights");
    assert!(
        e.to_string()
            .contains("2 weights, but the surface has 3 coordinate vertices"),
        "{e}"
    );
    // More than 4 weights on a vertex.
    let mut bytes = ms11().build();
    bytes[NUM_WEIGHTS + 1] = 5;
    let e = decode_err(&bytes);
    assert_eq!(e.path(), "surfaces[0] 'body'.weights[0]");
    assert!(
        e.to_string()
            .contains("5 weights for one vertex (at most 4)")
    );
    // A weight naming a bone that does not exist.
    let mut bytes = ms11().build();
    bytes[NUM_WEIGHTS + 2] = 1;
    let e = decode_err(&bytes);
    assert!(
        e.to_string()
            .contains("weight bone 1 out of range (1 bones)"),
        "{e}"
    );
    // A coordinate index past the vertices.
    let mut bytes = ms11().build();
    bytes[NUM_CINDICES + 3] = 3;
    let e = decode_err(&bytes);
    assert_eq!(e.offset(), NUM_CINDICES as u64 + 3);
    assert_eq!(e.path(), "surfaces[0] 'body'");
    assert!(
        e.to_string()
            .contains("cindex 3 out of range (3 coordinate vertices)")
    );
    // Index counts that are not whole triangles, or differ.
    let mut bytes = ms11().build();
    bytes[NUM_CINDICES] = 2;
    assert!(
        decode_err(&bytes)
            .to_string()
            .contains("not a whole number of triangles")
    );
    // A hostile vertex count.
    let mut bytes = ms11().build();
    let nv = MARKER2 + 4 + 40;
    bytes.splice(nv..nv + 1, [0xbf, 0xff, 0xff, 0x7f]); // 2^34 - 1 (5 bytes would be needed)
    let e = decode_err(&bytes);
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountTooLarge { .. } | ErrorKind::UnexpectedEnd { .. }
        ),
        "{e}"
    );
    // Trailing bytes after the last marker.
    let mut bytes = ms11().build();
    bytes.push(0);
    assert!(matches!(
        decode_err(&bytes).kind(),
        ErrorKind::TrailingBytes { count: 1 }
    ));
}

#[test]
fn newer_versions_are_rejected_by_name() {
    let mut bytes = b"ms16".to_vec();
    bytes.extend_from_slice(&[0; 64]);
    let e = read(&bytes).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unigine-mesh: unsupported UNIGINE mesh version ms16"
    );
    assert!(matches!(read(b"abcd"), Err(Error::NotAMesh(_))));
    assert!(read(b"ms").is_err());
}

#[test]
fn random_bytes_after_a_magic_never_panic() {
    let mut rng = Rng::new(11);
    for i in 0..3000 {
        let magic: &[u8] = [b"ms10", b"ms11", b"mi08", b"ms08"][i % 4];
        let mut b = magic.to_vec();
        let n = rng.below(200) as usize;
        b.extend(rng.bytes(n));
        let _ = read(&b);
    }
}
