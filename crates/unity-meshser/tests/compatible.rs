//! `Quantization::Compatible` against bytes computed independently from the original
//! script's arithmetic (tests/data/compatible_reference.py re-implements
//! MeshSerializer.js and Unity's `Bounds` in single precision), plus one fixture
//! assembled field by field by hand.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::Surface;
use meshfmt_core::glam::{Vec2, Vec3, Vec4};
use test_support::ByteBuilder;
use unity_meshser::{MeshFile, WriteOptions};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn triangle() -> Surface {
    Surface {
        positions: vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 2.0, -1.0),
        ],
        normals: vec![Vec3::Z, Vec3::Z, Vec3::new(0.0, -0.6, 0.8)],
        tangents: vec![
            Vec4::new(1.0, 0.0, 0.0, 1.0),
            Vec4::new(1.0, 0.0, 0.0, -1.0),
            Vec4::new(0.6, 0.8, 0.0, 1.0),
        ],
        uv0: vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.25, 0.75),
        ],
        indices: vec![0, 1, 2],
        ..Default::default()
    }
}

fn offset_quad() -> Surface {
    Surface {
        positions: vec![
            Vec3::new(10.5, -3.25, 100.0),
            Vec3::new(11.5, -3.25, 100.0),
            Vec3::new(11.5, -2.25, 100.0),
            Vec3::new(10.5, -2.25, 100.0),
        ],
        uv0: vec![
            Vec2::new(0.1, 0.2),
            Vec2::new(0.9, 0.2),
            Vec2::new(0.9, 0.8),
            Vec2::new(0.1, 0.8),
        ],
        indices: vec![0, 1, 2, 0, 2, 3],
        ..Default::default()
    }
}

/// Output of `python3 tests/data/compatible_reference.py`.
const REFERENCE: [(&str, bool, &str); 4] = [
    (
        "triangle",
        false,
        "030001000b001203ba0000803f001403ba00000040000080bf0010033a20001000deffffff1000deff2000ffff00008080ff8080ff8033e56f1283ba0000803f6f1283ba0000403f41005700ffff57003040ffff000001000200",
    ),
    (
        "triangle",
        true,
        "030001000f001203ba0000803f001403ba00000040000080bf0010033a20001000deffffff1000deff2000ffff00008080ff8080ff8033e5ff8080ffff808001cce580ff6f1283ba0000803f6f1283ba0000403f41005700ffff57003040ffff000001000200",
    ),
    (
        "offset_quad",
        false,
        "0400020009f4fd274100003841300850c0000010c0beffc7424200c84220002000ff7fffff2000ff7fffffffffff7f2000ffffff7f83c0ca3d6666663fa8c64b3ecdcc4c3f51006d00ffff6d00ffffffff5100ffff000001000200000002000300",
    ),
    (
        "offset_quad",
        true,
        "0400020009f4fd274100003841300850c0000010c0beffc7424200c84220002000ff7fffff2000ff7fffffffffff7f2000ffffff7f83c0ca3d6666663fa8c64b3ecdcc4c3f51006d00ffff6d00ffffffff5100ffff000001000200000002000300",
    ),
];

#[test]
fn compatible_matches_the_reference_arithmetic() {
    for (name, save_tangents, expected) in REFERENCE {
        let surface = match name {
            "triangle" => triangle(),
            _ => offset_quad(),
        };
        let file =
            MeshFile::from_surface(&surface, &WriteOptions::compatible(save_tangents)).unwrap();
        let bytes = file.write().unwrap();
        assert_eq!(bytes, hex(expected), "{name} save_tangents={save_tangents}");
        // And the faithful round trip.
        let back = unity_meshser::read(&bytes).unwrap();
        assert_eq!(back, file);
        assert_eq!(back.write().unwrap(), bytes);
    }
}

/// The triangle without tangents, field by field. Values worked by hand from the
/// script: bytes = clamp(v * 127 + 128) truncated; positions and UVs across the boxes.
#[test]
fn triangle_field_by_field() {
    let f = |bits: u32| f32::from_bits(bits);
    let b = ByteBuilder::new()
        .u16_le(3, "vertex count")
        .u16_le(1, "triangle count = 3 indices / 3")
        .u8(
            0x0b,
            "format: positions | normals | UVs (tangents not saved)",
        )
        // Bounds(first = (0,0,0), size 0.001) grown over the points; Unity's centre and
        // extents arithmetic leaves ends near, not at, -0.0005 and 0.0005.
        .f32_le(f(0xba03_1200), "xmin ~ -0.0005")
        .f32_le(1.0, "xmax: the point x = 1")
        .f32_le(f(0xba03_1400), "ymin ~ -0.0005")
        .f32_le(2.0, "ymax: the point y = 2")
        .f32_le(-1.0, "zmin: the point z = -1")
        .f32_le(f(0x3a03_1000), "zmax ~ 0.0005")
        // (v - min) / (max - min) * 65535, truncated: 0 - (-0.0005) over 1.0005 -> 32;
        // the maxima map to 65535.
        .bytes(
            &[0x20, 0x00, 0x10, 0x00, 0xde, 0xff],
            "v0 = (32, 16, 65502)",
        )
        .bytes(
            &[0xff, 0xff, 0x10, 0x00, 0xde, 0xff],
            "v1 = (65535, 16, 65502)",
        )
        .bytes(&[0x20, 0x00, 0xff, 0xff, 0x00, 0x00], "v2 = (32, 65535, 0)")
        .bytes(
            &[128, 128, 255],
            "n0 (0,0,1): 0*127+128 = 128, 1*127+128 = 255",
        )
        .bytes(&[128, 128, 255], "n1")
        .bytes(&[128, 51, 229], "n2 (0,-0.6,0.8): 51.8 -> 51, 229.6 -> 229")
        .f32_le(f(0xba83_126f), "umin = 0 - 0.001")
        .f32_le(1.0, "umax: the UV u = 1")
        .f32_le(f(0xba83_126f), "vmin = 0 - 0.001")
        .f32_le(0.75, "vmax: the UV v = 0.75")
        .bytes(
            &[0x41, 0x00, 0x57, 0x00],
            "uv0 (0,0): 0.001/1.001*65535 = 65.4 -> 65; 0.001/0.751*65535 = 87.3 -> 87",
        )
        .bytes(&[0xff, 0xff, 0x57, 0x00], "uv1 (1,0)")
        .bytes(
            &[0x30, 0x40, 0xff, 0xff],
            "uv2 (0.25,0.75): 0.251/1.001*65535 = 16432.7 -> 16432",
        )
        .bytes(&[0, 0, 1, 0, 2, 0], "triangle 0 1 2");
    let file = MeshFile::from_surface(&triangle(), &WriteOptions::compatible(false)).unwrap();
    let bytes = file.write().unwrap();
    assert_eq!(bytes, b.build(), "\n{}", b.listing());
}

#[test]
fn compatible_decodes_like_the_original_reader() {
    let bytes = hex(REFERENCE[0].2);
    let s = unity_meshser::read(&bytes).unwrap().to_surface();
    // x of v1: 65535 / 65535 * (1 - xmin) + xmin.
    let xmin = f32::from_bits(0xba03_1200);
    assert_eq!(s.positions[1].x, 1.0f32 / 1.0 * (1.0 - xmin) + xmin);
    // x of v0: 32 / 65535 * (1 - xmin) + xmin.
    assert_eq!(s.positions[0].x, 32.0f32 / 65535.0 * (1.0 - xmin) + xmin);
    // Normals: (b - 128) / 127.
    assert_eq!(s.normals[2], Vec3::new(0.0, -77.0 / 127.0, 101.0 / 127.0));
    assert_eq!(s.indices, [0, 1, 2]);
}
