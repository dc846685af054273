//! Derived data stays true on write (issue 16): bounds, ms14 spatial trees and edge
//! flags, the memory estimate and embedded-animation flag bytes are rebuilt when the
//! values they derive from were edited, kept when they were not, and a tree edited
//! into an inconsistent state is rejected. Expected values are worked out by hand in
//! the comments.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::glam::Vec3;
use meshfmt_core::{Model, Surface as CoreSurface};
use unigine_mesh::ms1x::{EmbeddedAnimation, FrameKey};
use unigine_mesh::ms14::Ms14;
use unigine_mesh::spatial::SpatialTree;
use unigine_mesh::{Bounds, MeshFile, Mi08, Ms1x, TargetVersion, WriteOptions, read};

/// A model of one surface per triangle (corners given), in UNIGINE's frame.
fn model(triangles: &[[[f32; 3]; 3]]) -> Model {
    Model {
        coordinate_system: unigine_mesh::COORDINATE_SYSTEM,
        surfaces: triangles
            .iter()
            .map(|t| CoreSurface {
                positions: t.iter().map(|p| Vec3::from_array(*p)).collect(),
                normals: vec![Vec3::Z; 3],
                indices: vec![0, 1, 2],
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn write_as(m: &Model, version: TargetVersion) -> MeshFile {
    let opts = WriteOptions {
        version,
        ..Default::default()
    };
    // Written and read back, so the value is a faithful "file that was read".
    let bytes = MeshFile::from_core_with(m, &opts)
        .unwrap()
        .value
        .write()
        .unwrap();
    read(&bytes).unwrap()
}

fn ms1x(f: MeshFile) -> Ms1x {
    match f {
        MeshFile::Ms1x(m) => m,
        other => panic!("{}", other.version()),
    }
}

fn rewritten(m: &Ms1x) -> Ms1x {
    ms1x(read(&m.write().unwrap()).unwrap())
}

fn bounds(min: [f32; 3], max: [f32; 3], center: [f32; 3], radius: f32) -> Bounds {
    Bounds {
        min,
        max,
        center,
        radius,
    }
}

#[test]
fn a_moved_vertex_rebuilds_the_surface_and_file_bounds() {
    let mut m = ms1x(write_as(
        &model(&[[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]),
        TargetVersion::Ms11,
    ));
    // Unedited: the bounds from_core wrote (tight box, centre (0.5, 0.5, 0), radius
    // half the diagonal, sqrt(0.5)) still hold every vertex and are kept.
    let before = bounds([0.0; 3], [1.0, 1.0, 0.0], [0.5, 0.5, 0.0], 0.5f32.sqrt());
    assert_eq!(m.surfaces[0].bounds, before);
    assert_eq!(rewritten(&m).surfaces[0].bounds, before);
    let v = m.surfaces[0].morph_targets[0]
        .vertices
        .iter()
        .position(|p| *p == [1.0, 0.0, 0.0])
        .unwrap();
    m.surfaces[0].morph_targets[0].vertices[v] = [4.0, 0.0, 0.0];
    // Box (0,0,0)..(4,1,0), centre (2, 0.5, 0); every vertex is sqrt(2^2 + 0.5^2) =
    // sqrt(4.25) from it: (0,0,0), (4,0,0) and (0,1,0) alike.
    let after = bounds([0.0; 3], [4.0, 1.0, 0.0], [2.0, 0.5, 0.0], 4.25f32.sqrt());
    let back = rewritten(&m);
    assert_eq!(back.surfaces[0].bounds, after);
    // One surface: the file's bounds are the surface's.
    assert_eq!(back.bounds, after);
    // What was written is no longer stale: writing again changes nothing.
    assert_eq!(back.write().unwrap(), m.write().unwrap());
}

#[test]
fn loose_bounds_are_kept_and_too_small_ones_rebuilt() {
    let m = ms1x(write_as(
        &model(&[[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]]),
        TargetVersion::Ms11,
    ));
    // A radius of 10 still holds every vertex: kept as stored.
    let mut loose = m.clone();
    loose.surfaces[0].bounds.radius = 10.0;
    loose.bounds.radius = 10.0;
    let back = rewritten(&loose);
    assert_eq!(back.surfaces[0].bounds.radius, 10.0);
    assert_eq!(back.bounds.radius, 10.0);
    // A radius of 1 leaves (0,0,0) sqrt(2) from the centre (1,1,0): rebuilt to the
    // farthest vertex, sqrt(2) (all three corners are that far).
    let mut small = m.clone();
    small.surfaces[0].bounds.radius = 1.0;
    let back = rewritten(&small);
    assert_eq!(back.surfaces[0].bounds.radius, 2f32.sqrt());
    // A centre off the box centre is stale too, even with a big radius.
    let mut off = m.clone();
    off.surfaces[0].bounds.center = [0.0; 3];
    off.surfaces[0].bounds.radius = 100.0;
    let back = rewritten(&off);
    assert_eq!(back.surfaces[0].bounds.center, [1.0, 1.0, 0.0]);
    assert_eq!(back.surfaces[0].bounds.radius, 2f32.sqrt());
}

#[test]
fn a_moved_surface_rebuilds_the_file_bounds_by_merging_spheres() {
    // Surface A on the x axis from -1 to 1, surface B from 0.5 to 1 at first.
    let mut m = ms1x(write_as(
        &model(&[
            [[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
            [[0.5, 0.0, 0.0], [1.0, 0.0, 0.0], [0.75, 0.0, 0.0]],
        ]),
        TargetVersion::Ms11,
    ));
    // Move B to 3..5.
    for p in &mut m.surfaces[1].morph_targets[0].vertices {
        p[0] = match p[0] {
            0.5 => 3.0,
            1.0 => 5.0,
            _ => 4.0,
        };
    }
    let back = rewritten(&m);
    // A unchanged: centre 0, radius 1. B rebuilt: box 3..5, centre 4, radius 1.
    assert_eq!(back.surfaces[0].bounds, m.surfaces[0].bounds);
    assert_eq!(
        back.surfaces[1].bounds,
        bounds([3.0, 0.0, 0.0], [5.0, 0.0, 0.0], [4.0, 0.0, 0.0], 1.0)
    );
    // File: union box -1..5; the two unit spheres 4 apart merge into the sphere from
    // -1 to 5: centre 2, radius 3.
    assert_eq!(
        back.bounds,
        bounds([-1.0, 0.0, 0.0], [5.0, 0.0, 0.0], [2.0, 0.0, 0.0], 3.0)
    );
}

#[test]
fn mi08_bounds_get_the_same_treatment() {
    let MeshFile::Mi08(mut m) = write_as(
        &model(&[[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]),
        TargetVersion::Mi08,
    ) else {
        panic!()
    };
    let unedited: Mi08 = m.clone();
    let bytes = unedited.write().unwrap();
    assert_eq!(read(&bytes).unwrap(), MeshFile::Mi08(unedited));
    m.surfaces[0].positions[1] = [4.0, 0.0, 0.0];
    let MeshFile::Mi08(back) = read(&m.write().unwrap()).unwrap() else {
        panic!()
    };
    let after = bounds([0.0; 3], [4.0, 1.0, 0.0], [2.0, 0.5, 0.0], 4.25f32.sqrt());
    assert_eq!(back.surfaces[0].bounds, after);
    assert_eq!(back.bounds, after);
}

#[test]
fn embedded_animation_flags_are_written_as_the_or_of_the_keys() {
    let mut m = ms1x(write_as(
        &model(&[[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]),
        TargetVersion::Ms11,
    ));
    m.bones.push(unigine_mesh::ms1x::BoneInfo {
        name: "b".into(),
        parent: -1,
    });
    m.bind_pose.push(unigine_mesh::BindTransform {
        position: [0.0; 3],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
    });
    let key = FrameKey {
        translation: [Some(1.0), None, None], // bit 0
        scale: [None, None, Some(2.0)],       // bit 6
        ..Default::default()
    };
    m.animations.push(EmbeddedAnimation {
        boxes: (),
        name: "a".into(),
        bones: vec![0],
        flags: 0x08, // stale: says rotation, the keys hold x and scale z
        num_frames: 1,
        keys: vec![key],
    });
    let back = rewritten(&m);
    assert_eq!(back.animations[0].flags, 0x01 | 0x40);
}

/// An ms14 file (written and read back, so it has original blocks and tree records)
/// with two triangles sharing an edge, in the plane z = 0.
fn ms14_quad() -> Ms14 {
    let mut quad = model(&[[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]]);
    let s = &mut quad.surfaces[0];
    s.positions.push(Vec3::new(0.0, 1.0, 0.0));
    s.normals.push(Vec3::Z);
    s.indices.extend([0, 2, 3]);
    s.uv0 = vec![meshfmt_core::glam::Vec2::ZERO; 4];
    match write_as(&quad, TargetVersion::Ms14) {
        MeshFile::Ms14(m) => m,
        other => panic!("{}", other.version()),
    }
}

fn ms14_rewritten(m: &Ms14) -> Ms14 {
    match read(&m.write().unwrap()).unwrap() {
        MeshFile::Ms14(m) => m,
        other => panic!("{}", other.version()),
    }
}

#[test]
fn an_added_triangle_rebuilds_the_ms14_tree_and_edge_flags() {
    let mut m = ms14_quad();
    // An engine-like estimate, not the decoded size our own writer starts from; kept
    // while nothing changes.
    m.memory_estimate = 10_000;
    assert_eq!(ms14_rewritten(&m).memory_estimate, 10_000);
    let mut edited = m.clone();
    let s = &mut edited.mesh.surfaces[0];
    // A third triangle (0, 1, 3) over the first two; its corners' tangent vertices
    // are the first triangle's (every corner shares one here).
    s.cindices.extend([0, 1, 3]);
    let t = s.tindices[..3].to_vec();
    s.tindices.extend(t);
    let back = ms14_rewritten(&edited);
    let tree = &back.trees[0];
    assert_eq!(tree.problems(3), Vec::new());
    assert_eq!(tree.edge_flags.len(), 3);
    // The tree the writer built is the one SpatialTree::build makes for the new
    // triangles (leaves of at most 4: one leaf holding all three, node indices 0, 3, 6).
    let s = &back.mesh.surfaces[0];
    let built = SpatialTree::build(&s.cindices, &s.morph_targets[0].vertices, 4);
    assert_eq!(tree, &built);
    assert_eq!(tree.node_indices, vec![0, 3, 6]);
    assert_eq!(tree.nodes.len(), 1);
    // The root box is the unit square.
    assert_eq!(
        (tree.nodes[0].min, tree.nodes[0].max),
        ([0.0; 3], [1.0, 1.0, 0.0])
    );
    // The memory estimate follows the decoded sizes: 10000 * new / old, rounded to
    // the nearest.
    let total = |m: &Ms14| {
        m.blocks
            .iter()
            .map(|b| (b.geometry.size + b.tree.size) as usize)
            .sum::<usize>() as i64
    };
    let (old, new) = (total(&m), total(&back));
    assert!(new > old);
    assert_eq!(back.memory_estimate, (10_000 * new + old / 2) / old);
    assert_ne!(back.memory_estimate, 10_000);
}

#[test]
fn a_moved_vertex_rebuilds_the_tree_boxes_and_a_uv_edit_does_not() {
    let m = ms14_quad();
    // UVs only: the tree block is written back as it was, and with block sizes
    // unchanged the memory estimate too.
    let mut uv = m.clone();
    uv.mesh.surfaces[0].uv0[0] = [0.25, 0.5];
    let back = ms14_rewritten(&uv);
    assert_eq!(back.blocks[0].tree, m.blocks[0].tree);
    assert_ne!(
        back.blocks[0].geometry.content().unwrap(),
        m.blocks[0].geometry.content().unwrap()
    );
    assert_eq!(back.memory_estimate, m.memory_estimate);
    // Lifting a vertex to z = 2: the root box grows to z = 2 and the shared edge is
    // now a crease, so every edge of both triangles is flagged (0b111).
    let mut moved = m.clone();
    let v = moved.mesh.surfaces[0].morph_targets[0]
        .vertices
        .iter()
        .position(|p| *p == [1.0, 1.0, 0.0])
        .unwrap();
    moved.mesh.surfaces[0].morph_targets[0].vertices[v] = [1.0, 1.0, 2.0];
    // The quad: corners (0,1,2) and (0,2,3); bit k marks the edge opposite corner k,
    // set on the boundary, clear on the shared diagonal 0-2.
    assert_eq!(m.trees[0].edge_flags, vec![0b101, 0b011]);
    let back = ms14_rewritten(&moved);
    assert_eq!(back.trees[0].nodes[0].max, [1.0, 1.0, 2.0]);
    // The ms14 header bounds follow too: box (0,0,0)..(1,1,2), centre (0.5, 0.5, 1),
    // farthest vertex sqrt(0.25 + 0.25 + 1) = sqrt(1.5) away.
    let expected = bounds([0.0; 3], [1.0, 1.0, 2.0], [0.5, 0.5, 1.0], 1.5f32.sqrt());
    assert_eq!(back.mesh.surfaces[0].bounds, expected);
    assert_eq!(back.mesh.bounds, expected);
    assert_eq!(back.trees[0].edge_flags, vec![0b111, 0b111]);
}

#[test]
fn an_inconsistent_tree_with_unchanged_geometry_is_rejected() {
    let m = ms14_quad();
    let mut bad = m.clone();
    bad.trees[0].edge_flags.push(0);
    let err = bad.write().unwrap_err().to_string();
    assert!(
        err.contains("surface 0") && err.contains("spatial tree does not fit"),
        "{err}"
    );
    assert!(err.contains("3 edge flags for 2 triangles"), "{err}");
    let mut bad = m.clone();
    bad.trees[0].node_indices = vec![0, 0];
    let problems = bad.problems();
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].message.contains("appears twice"),
        "{problems:?}"
    );
    // The same broken tree is simply replaced when the geometry changed too.
    bad.mesh.surfaces[0].morph_targets[0].vertices[0] = [0.0, 0.0, 1.0];
    let back = ms14_rewritten(&bad);
    assert_eq!(back.trees[0].problems(2), Vec::new());
}

#[test]
fn the_sk10_memory_estimate_follows_the_geometry_blocks() {
    let mut model = model(&[[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]]);
    model.surfaces[0].uv0 = vec![meshfmt_core::glam::Vec2::ZERO; 3];
    let MeshFile::Sk10(mut k) = write_as(&model, TargetVersion::Sk10) else {
        panic!()
    };
    k.memory_estimate = 5000;
    let reread = |k: &unigine_mesh::sk10::Sk10| match read(&k.write().unwrap()).unwrap() {
        MeshFile::Sk10(k) => k,
        other => panic!("{}", other.version()),
    };
    assert_eq!(reread(&k).memory_estimate, 5000);
    // A second triangle (0, 2, 1 backwards): the block grows by three one-byte
    // coordinate and tangent indices, 6 bytes; the estimate by 5000 * 6 / old.
    let old = k.blocks[0].size as i64;
    let s = &mut k.mesh.surfaces[0];
    s.cindices.extend([0, 2, 1]);
    let t = s.tindices[..3].to_vec();
    s.tindices.extend(t);
    let back = reread(&k);
    assert_eq!(back.blocks[0].size as i64, old + 6);
    assert_eq!(back.memory_estimate, (5000 * (old + 6) + old / 2) / old);
}
