//! mi08 and ms08 have no public sample: hand-assembled files, field by field from the
//! 1.x docs, read, checked value by value, rewritten byte for byte.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use parsing_primitives::ErrorKind;
use test_support::{ByteBuilder, assert_truncations_fail};
use unigine_mesh::old::{compress_normal, decompress_normal};
use unigine_mesh::{Error, MeshFile, read};

/// One triangle with normals +Z, two UV sets; the bounds are a unit box.
fn mi08() -> ByteBuilder {
    ByteBuilder::new()
        .bytes(b"mi08", "magic")
        .f32s_le(
            &[0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.5, 0.0, 0.70710677],
            "mesh bounds: min, max, centre, radius",
        )
        .i32_le(1, "num_surfaces")
        .i32_le(4, "name length incl. NUL")
        .bytes(b"tri\0", "name")
        .f32s_le(
            &[0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.5, 0.0, 0.70710677],
            "surface bounds",
        )
        .i32_le(3, "num_vertices")
        .f32s_le(&[0.0, 0.0, 0.0], "v0 position")
        // normal (0, 0, 1): x = y = (0 * 0.5 + 0.5) * 65535 = 32767.5 -> 32767; z = 65535
        .u16_le(32767, "v0 normal x")
        .u16_le(32767, "v0 normal y")
        .u16_le(65535, "v0 normal z")
        .f32s_le(&[1.0, 0.0, 0.0], "v1 position")
        .u16_le(32767, "v1 nx")
        .u16_le(32767, "v1 ny")
        .u16_le(65535, "v1 nz")
        .f32s_le(&[0.0, 1.0, 0.0], "v2 position")
        // normal (-1, 0, 0): x = 0
        .u16_le(0, "v2 nx")
        .u16_le(32767, "v2 ny")
        .u16_le(32767, "v2 nz")
        .i32_le(3, "num_uv0")
        .f32s_le(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "uv0")
        .i32_le(0, "num_uv1: none")
        .i32_le(1, "num_triangles")
        .bytes(&[0, 0, 1, 0, 2, 0], "u16 indices (3 vertices < 65536)")
}

#[test]
fn mi08_by_hand() {
    let b = mi08();
    let bytes = b.build();
    let MeshFile::Mi08(m) = read(&bytes).unwrap() else {
        panic!("not mi08")
    };
    let s = &m.surfaces[0];
    assert_eq!(s.name.as_str(), Some("tri"));
    assert_eq!(
        s.positions,
        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    );
    assert_eq!(s.normals[2], [0, 32767, 32767]);
    assert_eq!(s.uv0.len(), 3);
    assert!(s.uv1.is_empty());
    assert_eq!(s.triangles, [[0, 1, 2]]);
    assert_eq!(m.bounds.radius, 0.70710677);
    assert_eq!(
        MeshFile::Mi08(m).write().unwrap(),
        bytes,
        "\n{}",
        b.listing()
    );
    assert_truncations_fail(&bytes, read);
}

#[test]
fn normal_compression_as_documented() {
    // (n * 0.5 + 0.5) * 65535, truncated, clamped.
    assert_eq!(compress_normal(1.0), 65535);
    assert_eq!(compress_normal(0.0), 32767);
    assert_eq!(compress_normal(-1.0), 0);
    assert_eq!(compress_normal(-2.0), 0);
    assert_eq!(compress_normal(2.0), 65535);
    assert_eq!(compress_normal(0.5), 49151); // 0.75 * 65535 = 49151.25
    assert_eq!(decompress_normal(65535), 1.0);
    assert_eq!(decompress_normal(0), -1.0);
    let mut worst = 0.0f32;
    for i in 0..=20000 {
        let n = -1.0 + i as f32 / 10000.0;
        worst = worst.max((decompress_normal(compress_normal(n)) - n).abs());
    }
    assert!(worst <= unigine_mesh::old::NORMAL_MAX_ERROR, "{worst}");
}

/// Two bones, two frames (bind pose + one), one surface with two weighted vertices and
/// a third bound to one bone, no UVs.
fn ms08() -> ByteBuilder {
    ByteBuilder::new()
        .bytes(b"ms08", "magic")
        .i32_le(2, "num_bones")
        .i32_le(5, "name length")
        .bytes(b"root\0", "bone 0 name")
        .i32_le(-1, "bone 0 parent: root")
        .i32_le(5, "name length")
        .bytes(b"hand\0", "bone 1 name")
        .i32_le(0, "bone 1 parent")
        .i32_le(2, "num_frames (frame 0 = bind pose)")
        .f32s_le(
            &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            "frame 0 bone 0: pos, scale, quat",
        )
        .f32s_le(&[1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], "frame 0 bone 1")
        .f32s_le(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], "frame 1 bone 0")
        .f32s_le(
            &[1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.70710677, 0.70710677],
            "frame 1 bone 1: scale 2, 90 deg about z",
        )
        .i32_le(1, "num_surfaces")
        .i32_le(4, "name length")
        .bytes(b"arm\0", "surface name")
        .i32_le(3, "num_vertices")
        .f32s_le(&[0.0, 0.0, 0.0], "v0 position")
        .u16_le(32767, "nx")
        .u16_le(65535, "ny")
        .u16_le(32767, "nz")
        .u8(1, "v0: one weight")
        .u16_le(0, "bone 0")
        .u8(255, "weight 1.0")
        .f32s_le(&[1.0, 0.0, 0.0], "v1 position")
        .u16_le(32767, "nx")
        .u16_le(65535, "ny")
        .u16_le(32767, "nz")
        .u8(2, "v1: two weights")
        .u16_le(0, "bone 0")
        .u8(128, "~0.5")
        .u16_le(1, "bone 1")
        .u8(127, "~0.5")
        .f32s_le(&[2.0, 0.0, 0.0], "v2 position")
        .u16_le(32767, "nx")
        .u16_le(65535, "ny")
        .u16_le(32767, "nz")
        .u8(1, "v2: one weight")
        .u16_le(1, "bone 1")
        .u8(255, "1.0")
        .i32_le(0, "num_uv0")
        .i32_le(0, "num_uv1")
        .i32_le(1, "num_triangles")
        .bytes(&[0, 0, 2, 0, 1, 0], "triangle 0 2 1")
}

#[test]
fn ms08_by_hand() {
    let b = ms08();
    let bytes = b.build();
    let MeshFile::Ms08(m) = read(&bytes).unwrap() else {
        panic!("not ms08")
    };
    assert_eq!(m.bones[1].name.as_str(), Some("hand"));
    assert_eq!(m.bones[0].parent, -1);
    assert_eq!(m.num_frames, 2);
    assert_eq!(m.frame(1)[1].scale, 2.0);
    let s = &m.surfaces[0];
    assert_eq!(s.weight_counts, [1, 2, 1]);
    assert_eq!(
        s.vertex_weights(1)
            .iter()
            .map(|w| (w.bone, w.weight))
            .collect::<Vec<_>>(),
        [(0, 128), (1, 127)]
    );
    assert_eq!(s.triangles, [[0, 2, 1]]);
    assert_eq!(
        MeshFile::Ms08(m).write().unwrap(),
        bytes,
        "\n{}",
        b.listing()
    );
    assert_truncations_fail(&bytes, read);
}

#[test]
fn old_format_checks() {
    // A weight naming bone 2 of 2.
    let mut bytes = ms08().build();
    // From the end: indices 6, three counts 12, the weight byte 1, then the bone u16.
    let at = bytes.len() - 6 - 12 - 1 - 2;
    bytes[at] = 2;
    let Err(Error::Decode(e)) = read(&bytes) else {
        panic!("accepted a bad bone")
    };
    assert_eq!(e.offset(), at as u64);
    assert!(
        e.to_string()
            .contains("weight bone 2 out of range (2 bones)"),
        "{e}"
    );
    // An index past the vertices.
    let mut bytes = mi08().build();
    let n = bytes.len();
    bytes[n - 2] = 3;
    let Err(Error::Decode(e)) = read(&bytes) else {
        panic!()
    };
    assert_eq!(e.offset(), n as u64 - 2);
    assert_eq!(e.path(), "surfaces[0].triangles");
    // A UV count that is neither 0 nor the vertex count.
    let b = mi08();
    let mut bytes = b.build();
    let uv0_at = 4 + 40 + 4 + 4 + 4 + 40 + 4 + 3 * 18;
    assert_eq!(bytes[uv0_at], 3);
    bytes[uv0_at] = 2;
    let Err(Error::Decode(e)) = read(&bytes) else {
        panic!()
    };
    assert!(e.to_string().contains("2 UVs for 3 vertices"), "{e}");
    // A hostile surface count.
    let mut bytes = mi08().build();
    bytes[44..48].copy_from_slice(&0x7fff_ffffi32.to_le_bytes());
    let Err(Error::Decode(e)) = read(&bytes) else {
        panic!()
    };
    assert!(matches!(e.kind(), ErrorKind::CountTooLarge { .. }));
    assert_eq!(e.offset(), 44);
}
