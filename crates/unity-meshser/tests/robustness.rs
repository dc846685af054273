//! Bad input: every truncation is an error, flips and random bytes never panic, and
//! each check names the offset and the field.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::canonical;
use parsing_primitives::ErrorKind;
use test_support::{ByteBuilder, Rng, assert_flips_never_panic, assert_truncations_fail};
use unity_meshser::{Error, MeshFile, ReadOptions, WriteOptions, read, read_with, sniff};

fn cube_bytes(tangents: bool) -> Vec<u8> {
    let model = canonical::cube();
    let opts = WriteOptions {
        tangents,
        ..WriteOptions::default()
    };
    MeshFile::from_core_with(&model, &opts)
        .unwrap()
        .value
        .write()
        .unwrap()
}

fn decode_error(bytes: &[u8]) -> parsing_primitives::Error {
    match read(bytes) {
        Err(Error::Decode(e)) => e,
        other => panic!("expected a decode error, got {other:?}"),
    }
}

#[test]
fn every_truncation_fails() {
    for tangents in [false, true] {
        let bytes = cube_bytes(tangents);
        assert!(sniff(&bytes));
        assert_truncations_fail(&bytes, read);
    }
}

#[test]
fn flips_and_random_bytes_never_panic() {
    let bytes = cube_bytes(true);
    assert_flips_never_panic(&bytes, 10_000, read);
    let mut rng = Rng::new(5);
    for _ in 0..2000 {
        let n = rng.below(300) as usize;
        let b = rng.bytes(n);
        let _ = read(&b);
        let _ = sniff(&b);
    }
}

#[test]
fn counts_over_64000_are_rejected_with_their_offset() {
    let b = ByteBuilder::new()
        .u16_le(64001, "vertex count")
        .u16_le(0, "triangles")
        .u8(1, "format");
    let e = decode_error(&b.build());
    assert_eq!(e.offset(), 0);
    assert_eq!(e.path(), "vertex_count");
    assert!(
        e.to_string()
            .contains("64001 exceeds the format's limit of 64000"),
        "{e}"
    );
    let b = ByteBuilder::new()
        .u16_le(0, "vertices")
        .u16_le(65535, "triangle count")
        .u8(1, "format");
    let e = decode_error(&b.build());
    assert_eq!((e.offset(), e.path()), (2, "triangle_count"));
}

#[test]
fn bad_format_bytes() {
    for format in [0u8, 2, 14, 16, 0xff] {
        let b = ByteBuilder::new()
            .u16_le(0, "vertices")
            .u16_le(0, "triangles")
            .u8(format, "format");
        let e = decode_error(&b.build());
        assert_eq!((e.offset(), e.path()), (4, "format"), "{format}");
    }
}

#[test]
fn arrays_longer_than_the_input_fail_before_allocating() {
    // 64000 vertices claimed, 10 bytes of data.
    let b = ByteBuilder::new()
        .u16_le(64000, "vertices")
        .u16_le(0, "triangles")
        .u8(15, "format")
        .f32s_le(&[0.0, 1.0, 0.0, 1.0, 0.0, 1.0], "bounds")
        .bytes(&[0; 10], "too little");
    let e = decode_error(&b.build());
    assert_eq!(e.path(), "positions");
    assert_eq!(
        e.kind(),
        &ErrorKind::CountTooLarge {
            count: 64000,
            needed: 384_000,
            remaining: 10
        }
    );
    assert_eq!(e.offset(), 29);
}

#[test]
fn index_out_of_range_names_triangle_and_offset() {
    let b = ByteBuilder::new()
        .u16_le(1, "vertices")
        .u16_le(2, "triangles")
        .u8(1, "format")
        .f32s_le(&[0.0; 6], "bounds")
        .bytes(&[0; 6], "position")
        .bytes(&[0, 0, 0, 0, 0, 0], "triangle 0")
        .bytes(&[0, 0, 1, 0, 0, 0], "triangle 1: index 1 of 1 vertex");
    let bytes = b.build();
    let e = decode_error(&bytes);
    assert_eq!(e.path(), "triangles[1]");
    assert_eq!(e.offset(), 5 + 24 + 6 + 6 + 2);
    assert_eq!(
        e.to_string(),
        "unity-meshser: triangles[1]: index 1 out of range (1 vertices) (at offset 0x2b)"
    );
}

#[test]
fn trailing_bytes_are_reported_unless_allowed() {
    let mut bytes = cube_bytes(false);
    let len = bytes.len();
    bytes.extend_from_slice(b"junk");
    assert!(!sniff(&bytes));
    let e = decode_error(&bytes);
    assert_eq!(e.kind(), &ErrorKind::TrailingBytes { count: 4 });
    assert_eq!(e.offset(), len as u64);
    let opts = ReadOptions {
        allow_trailing_bytes: true,
        ..ReadOptions::default()
    };
    let file = read_with(&bytes, &opts).unwrap();
    assert_eq!(file.write().unwrap(), &bytes[..len]);
}

#[test]
fn empty_meshes_keep_their_format_byte() {
    // No vertices: the original writes no bounds, whatever the format bits say.
    for format in [1u8, 3, 9, 15] {
        let b = ByteBuilder::new()
            .u16_le(0, "vertices")
            .u16_le(0, "triangles")
            .u8(format, "format");
        let bytes = b.build();
        assert!(sniff(&bytes));
        let file = read(&bytes).unwrap();
        assert_eq!(file.format.0, format);
        assert_eq!(file.write().unwrap(), bytes);
    }
}

#[test]
fn unwritable_meshes_get_clear_errors() {
    let big = canonical::big_surface();
    let e = MeshFile::from_core_with(&big, &WriteOptions::default()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::TooManyVertices {
                count: 65_792,
                max: 64000
            }
        ),
        "{e}"
    );
    let mut s = canonical::degenerate().surfaces[1].clone();
    s.indices.push(0);
    let e = MeshFile::from_surface(&s, &WriteOptions::default()).unwrap_err();
    assert!(matches!(e, Error::NotTriangles { len: 4 }));
    s.indices = vec![0, 1, 3];
    let e = MeshFile::from_surface(&s, &WriteOptions::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unity-meshser: triangle 0 uses vertex 3 but there are 3 vertices"
    );
    s.indices = vec![0, 1, 2];
    s.uv0 = vec![Default::default(); 2];
    assert!(matches!(
        MeshFile::from_surface(&s, &WriteOptions::default()),
        Err(Error::Inconsistent(_))
    ));
    // A faithful file whose arrays disagree with its format byte.
    let mut file = read(&cube_bytes(false)).unwrap();
    file.normals.clear();
    assert!(matches!(file.write(), Err(Error::Inconsistent(_))));
}
