//! ms15 from the official page (specs/unigine-current/file_formats.md): a file assembled
//! field by field (blocks stored raw, as the engine does when LZ4 does not shrink
//! them), read, checked value by value, rewritten byte for byte; conversions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::glam::Vec3;
use meshfmt_core::{Model, Surface};
use unigine_mesh::{MeshFile, TargetVersion, WriteOptions, read};

/// A stored block: u64 size, u64 compressed size (equal: raw), the bytes.
fn block(content: &[u8]) -> Vec<u8> {
    let mut b = (content.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(&(content.len() as u64).to_le_bytes());
    b.extend_from_slice(content);
    b
}

fn bounds() -> Vec<u8> {
    // box min (0,0,0), max (1,1,0), sphere center (0.5,0.5,0), radius 0.75
    [0.0f32, 0.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.5, 0.0, 0.75]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect()
}

fn hand_made() -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(b"ms15"); // 1. magic
    b.push(4); // 2. spatial tree triangles (compact int)
    b.extend(bounds()); // 3. mesh bounds
    b.push(1); // 4. one surface
    b.extend_from_slice(&[4, b't', b'r', b'i', 0]); // 5. name "tri" (compact length incl. NUL)
    b.extend_from_slice(&[1, 3]); //    lightmap channel 1, resolution 3
    b.push(3); //    3 coordinate indices
    b.push(3); //    3 triangle indices
    b.extend(bounds()); //    surface bounds
    b.push(3); //    3 vertices (no morph-target list in ms15)
    b.extend_from_slice(&96i64.to_le_bytes()); // 6. memory estimate
    b.extend_from_slice(b"ms15"); // 7. magic
    // 8. geometry: 3 vertices, 3 tangents, no weights section, 0 UV0/UV1/colours, and
    //    u8 indices (fewer than 256 vertices, notes/unigine.md).
    let mut g = Vec::new();
    for v in [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
        for f in v {
            g.extend_from_slice(&f.to_le_bytes());
        }
    }
    g.push(3);
    for _ in 0..3 {
        for c in [0i16, 0, 0, 32767] {
            g.extend_from_slice(&c.to_le_bytes());
        }
    }
    g.extend_from_slice(&[0, 0, 0]); // uv0, uv1, colours: none
    g.extend_from_slice(&[0, 1, 2, 0, 1, 2]);
    b.extend(block(&g));
    b.extend_from_slice(b"ms15"); // 9. magic
    // 10. edges + tree: 1 edge flag (7), 1 node index (0), one leaf over [0, 1).
    let mut t = vec![1, 7, 1, 0, 1, 0, 0x41, 0x41, 0, 1];
    for f in [0.0f32, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0] {
        t.extend_from_slice(&f.to_le_bytes());
    }
    b.extend(block(&t));
    b.extend_from_slice(b"ms15"); // 11. magic
    let geometry_offset = 4 + 1 + 40 + 1 + 5 + 2 + 1 + 1 + 40 + 1 + 8 + 4;
    b.extend_from_slice(&(geometry_offset as i64).to_le_bytes()); // 12. block offsets
    b.extend_from_slice(b"ms15"); // 13. magic
    b
}

#[test]
fn hand_made_file_reads_and_rewrites() {
    let bytes = hand_made();
    let file = read(&bytes).unwrap();
    assert_eq!(file.version(), "ms15");
    let MeshFile::Ms14(m) = &file else { panic!() };
    assert_eq!(m.memory_estimate, 96);
    let s = &m.mesh.surfaces[0];
    assert_eq!(s.name.as_bytes(), b"tri");
    assert_eq!(s.lightmap, [1, 3]);
    assert_eq!(s.morph_targets[0].vertices[1], [1.0, 0.0, 0.0]);
    assert_eq!(s.cindices, [0, 1, 2]);
    assert!(s.weights.is_empty());
    assert_eq!(m.trees[0].edge_flags, [7]);
    assert_eq!(file.write().unwrap(), bytes);
    let core = file.to_core().unwrap().value;
    assert_eq!(core.surfaces[0].positions.len(), 3);
    // Every truncation is an error.
    for n in 0..bytes.len() {
        assert!(read(&bytes[..n]).is_err(), "{n}");
    }
}

#[test]
fn any_static_mesh_becomes_ms15_and_skinned_parts_are_reported() {
    let model = Model {
        coordinate_system: unigine_mesh::COORDINATE_SYSTEM,
        surfaces: vec![Surface {
            name: "quad".into(),
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y],
            normals: vec![Vec3::Z; 4],
            indices: vec![0, 1, 2, 0, 2, 3],
            ..Default::default()
        }],
        ..Default::default()
    };
    let opts = WriteOptions {
        version: TargetVersion::Ms15,
    };
    let c = MeshFile::from_core(&model, &opts).unwrap();
    let bytes = c.value.write().unwrap();
    assert_eq!(&bytes[..4], b"ms15");
    let back = read(&bytes).unwrap();
    assert_eq!(back.version(), "ms15");
    assert_eq!(back.write().unwrap(), bytes);
    let core = back.to_core().unwrap().value;
    assert_eq!(core.surfaces[0].indices.len(), 6);
    // A skinned, animated arm loses its skeleton, weights and clip, and says so.
    let arm = meshfmt_core::canonical::skinned_arm();
    let c = MeshFile::from_core(&arm, &opts).unwrap();
    let text: Vec<String> = c.losses.iter().map(ToString::to_string).collect();
    assert!(text.iter().any(|l| l.contains("no bones")), "{text:?}");
    assert!(text.iter().any(|l| l.contains("no weights")), "{text:?}");
    assert_eq!(read(&c.value.write().unwrap()).unwrap().version(), "ms15");
}
