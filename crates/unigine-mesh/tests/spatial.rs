//! ms14 edges + spatial tree blocks: the engine's trees decode, check and re-encode
//! exactly; trees we build have the same structure; meshes from any version become
//! ms14 files and come back.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::{Model, Surface, glam::Vec3};
use test_support::samples_or_skip;
use unigine_mesh::spatial::{SpatialTree, TreeNode};
use unigine_mesh::{MeshFile, TargetVersion, WriteOptions, read};

/// The samples hold 15 ms14 meshes with 40 surfaces (one tree each) and 6408 tree nodes
/// between them.
const MS14_FILES: usize = 15;
const MS14_SURFACES: usize = 40;
const MS14_TREE_NODES: usize = 6408;

/// The ms14 samples, read; `None` (skipped) without the samples folder, a failure under
/// MESHFMT_REQUIRE_SAMPLES.
fn ms14_files(test: &str) -> Option<Vec<(String, unigine_mesh::ms14::Ms14)>> {
    let dir = samples_or_skip("unigine", test)?;
    let mut out = Vec::new();
    for p in test_support::files_under(&dir, &["mesh"]) {
        let bytes = std::fs::read(&p).unwrap();
        if bytes.starts_with(b"ms14") {
            let MeshFile::Ms14(m) = read(&bytes).unwrap() else {
                panic!()
            };
            out.push((p.display().to_string(), m));
        }
    }
    assert_eq!(
        out.len(),
        MS14_FILES,
        "the samples hold {MS14_FILES} ms14 meshes"
    );
    Some(out)
}

/// Tight box of the given triangles, computed here independently of the crate.
fn tight_box(cind: &[u32], pos: &[[f32; 3]], tris: &[i32]) -> ([f32; 3], [f32; 3]) {
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for &t in tris {
        for k in 0..3 {
            let p = pos[cind[t as usize + k] as usize];
            for a in 0..3 {
                min[a] = min[a].min(p[a]);
                max[a] = max[a].max(p[a]);
            }
        }
    }
    (min, max)
}

/// The triangles under a node, by walking the pre-order tree.
fn leaf_range(nodes: &[TreeNode], id: usize) -> (i32, i32) {
    let n = &nodes[id];
    if n.is_leaf() {
        return (n.start, n.end);
    }
    let (a, _) = leaf_range(nodes, n.left as usize);
    let (_, b) = leaf_range(nodes, n.right as usize);
    (a, b)
}

/// What notes/unigine-current.md 4.4 observed on every engine tree, checked on any tree.
fn assert_engine_shape(what: &str, tree: &SpatialTree, cind: &[u32], pos: &[[f32; 3]]) {
    assert!(
        tree.problems(cind.len() / 3).is_empty(),
        "{what}: {:?}",
        tree.problems(cind.len() / 3)
    );
    for (id, n) in tree.nodes.iter().enumerate() {
        let (a, b) = leaf_range(&tree.nodes, id);
        let tris = &tree.node_indices[a as usize..b as usize];
        let (min, max) = tight_box(cind, pos, tris);
        assert_eq!(
            (n.min, n.max),
            (min, max),
            "{what}: node {id} box is not tight"
        );
        if n.is_leaf() {
            assert_eq!((n.axis, n.split), (0, 0.0), "{what}: leaf {id}");
        } else {
            let ax = n.axis as usize;
            assert_eq!((n.start, n.end), (0, 0), "{what}: inner node {id}");
            assert_eq!(
                n.split,
                (n.min[ax] + n.max[ax]) * 0.5,
                "{what}: node {id} split"
            );
        }
    }
}

#[test]
fn engine_trees_decode_check_and_reencode_exactly() {
    let Some(files) = ms14_files("engine_trees_decode_check_and_reencode_exactly") else {
        return;
    };
    let (mut surfaces, mut nodes) = (0, 0);
    for (name, m) in files {
        assert_eq!(
            m.trees.len(),
            m.mesh.surfaces.len(),
            "{name}: one tree per surface"
        );
        for (i, (tree, s)) in m.trees.iter().zip(&m.mesh.surfaces).enumerate() {
            assert_eq!(
                tree.write().unwrap(),
                m.blocks[i].tree.content().unwrap(),
                "{name}"
            );
            let pos = &s.morph_targets[0].vertices;
            assert_engine_shape(&format!("{name} surface {i}"), tree, &s.cindices, pos);
            surfaces += 1;
            nodes += tree.nodes.len();
        }
    }
    println!("engine spatial trees: {surfaces} surfaces, {nodes} nodes decoded and checked");
    assert_eq!(
        (surfaces, nodes),
        (MS14_SURFACES, MS14_TREE_NODES),
        "the ms14 samples hold {MS14_SURFACES} surfaces with {MS14_TREE_NODES} tree nodes"
    );
}

#[test]
fn built_trees_have_the_engine_shape_and_edge_rule() {
    let Some(files) = ms14_files("built_trees_have_the_engine_shape_and_edge_rule") else {
        return;
    };
    let (mut surfaces, mut same_flags, mut flags, mut same_trees) = (0, 0usize, 0usize, 0);
    for (name, m) in files {
        for (i, (engine, s)) in m.trees.iter().zip(&m.mesh.surfaces).enumerate() {
            let pos = &s.morph_targets[0].vertices;
            let ours = SpatialTree::build(&s.cindices, pos, 4);
            // No spare room is kept (or charged): three arrays of exactly their length.
            let exact = ours.edge_flags.len() + 4 * ours.node_indices.len() + 48 * ours.nodes.len();
            assert_eq!(ours.heap_bytes(), exact as u64);
            assert_engine_shape(
                &format!("{name} surface {i} (built)"),
                &ours,
                &s.cindices,
                pos,
            );
            assert!(
                ours.nodes.iter().all(|n| n.end - n.start <= 4),
                "{name}: leaf size"
            );
            // The root box is the surface's box either way.
            assert_eq!(
                (ours.nodes[0].min, ours.nodes[0].max),
                (engine.nodes[0].min, engine.nodes[0].max)
            );
            surfaces += 1;
            same_trees += usize::from(ours.nodes == engine.nodes);
            flags += engine.edge_flags.len() * 3;
            for (a, b) in ours.edge_flags.iter().zip(&engine.edge_flags) {
                same_flags += (0..3).filter(|k| (a >> k) & 1 == (b >> k) & 1).count();
            }
        }
    }
    println!(
        "built trees: {surfaces} surfaces, {same_trees} with the engine's exact nodes; edge bits agree {same_flags}/{flags} ({:.2}%)",
        100.0 * same_flags as f64 / flags as f64
    );
    assert_eq!(
        surfaces, MS14_SURFACES,
        "the ms14 samples hold {MS14_SURFACES} surfaces"
    );
    assert!(flags > 0);
    // Measured on the 40 sample surfaces: every boundary edge set and every exactly
    // coplanar pair clear, as in the engine; the engine also clears about 14% of the
    // creases (source-polygon diagonals, which triangles alone cannot reveal), so the
    // rule agrees on 94.6% of the bits (28085 of 29697). Guard that figure.
    assert!(
        same_flags as f64 >= 0.94 * flags as f64,
        "{same_flags} of {flags} edge bits agree"
    );
}

#[test]
fn a_quad_by_hand() {
    // Two triangles of the unit square in z = 0, sharing the diagonal 0-2.
    let pos = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
    ];
    let cind = [0, 1, 2, 0, 2, 3];
    let t = SpatialTree::build(&cind, &pos, 4);
    // Triangle 0 (0,1,2): the diagonal 2-0 is opposite corner 1 -> bits 0 and 2 set = 5.
    // Triangle 1 (0,2,3): the diagonal 0-2 is opposite corner 2 -> bits 0 and 1 set = 3.
    assert_eq!(t.edge_flags, [5, 3]);
    assert_eq!(t.node_indices, [0, 3]);
    let leaf = TreeNode {
        axis: 0,
        left: -1,
        right: -1,
        start: 0,
        end: 2,
        min: [0.0; 3],
        max: [1.0, 1.0, 0.0],
        split: 0.0,
    };
    assert_eq!(t.nodes, [leaf]);
    // 02 05 03 | 02 00 03 | 01 | 00 41 41 00 02 | 6 x f32 | f32
    let bytes = t.write().unwrap();
    assert_eq!(&bytes[..11], [2, 5, 3, 2, 0, 3, 1, 0, 0x41, 0x41, 0]);
    assert_eq!(bytes[11], 2);
    assert_eq!(bytes.len(), 12 + 28);
    assert_eq!(SpatialTree::read(&bytes).unwrap(), t);

    // Five triangles split once along x: a fan of thin slivers at x = 0..5.
    let mut pos = Vec::new();
    let mut cind = Vec::new();
    for i in 0..5u32 {
        let x = i as f32;
        pos.extend([[x, 0.0, 0.0], [x + 0.5, 0.0, 0.0], [x, 1.0, 0.0]]);
        cind.extend([3 * i, 3 * i + 1, 3 * i + 2]);
    }
    let t = SpatialTree::build(&cind, &pos, 4);
    // Root box x 0..4.5, y 0..1: split at x = 2.25; centroids x + 1/6: 0.17, 1.17, 2.17
    // go left, 3.17 and 4.17 right.
    assert_eq!(t.nodes.len(), 3);
    assert_eq!(
        (t.nodes[0].axis, t.nodes[0].left, t.nodes[0].right),
        (0, 1, 2)
    );
    assert_eq!(t.nodes[0].split, 2.25);
    assert_eq!((t.nodes[1].start, t.nodes[1].end), (0, 3));
    assert_eq!((t.nodes[2].start, t.nodes[2].end), (3, 5));
    assert_eq!(t.nodes[2].min, [3.0, 0.0, 0.0]);
    assert_eq!(t.node_indices, [0, 3, 6, 9, 12]);
}

/// The engine reads tree numbers into 32-bit ints: a compact int past `i32` (which a
/// five-byte compact int can hold) is an error at its offset, in the node indices and
/// in a node's links alike.
#[test]
fn tree_numbers_past_a_32_bit_int_are_errors_at_their_offset() {
    // The one-leaf tree of a triangle: 01 00 | 01 00 | 01 | 00 41 41 00 01 | 7 x f32.
    let tree = |index: &[u8], end: &[u8]| {
        let mut b = vec![1, 0, 1];
        b.extend_from_slice(index);
        b.extend_from_slice(&[1, 0, 0x41, 0x41, 0]);
        b.extend_from_slice(end);
        // Box and split: with them the node has 16 bytes after it, so the one-load
        // node decoder is tried first.
        b.extend_from_slice(&[0; 28]);
        b
    };
    assert_eq!(
        SpatialTree::read(&tree(&[0], &[1])).unwrap().nodes[0].end,
        1
    );
    // 2^31: low six bits 0 in the first byte, then 7-bit groups 0, 0, 0, 16.
    let big = [0x80, 0x80, 0x80, 0x80, 0x10];
    // 2^31 - 1 = i32::MAX still reads: the first byte holds 0x3f, every group 0x7f, the
    // last 2^31 >> 27 - 1 = 15.
    let max = [0xbf, 0xff, 0xff, 0xff, 0x0f];
    assert_eq!(
        SpatialTree::read(&tree(&[0], &max)).unwrap().nodes[0].end,
        i32::MAX
    );
    assert_eq!(
        SpatialTree::read(&tree(&max, &[1])).unwrap().node_indices,
        [i32::MAX]
    );
    let e = SpatialTree::read(&tree(&big, &[1])).unwrap_err();
    assert_eq!(e.offset(), 3, "{e}");
    assert!(
        e.to_string()
            .contains("2147483648 does not fit a 32-bit int"),
        "{e}"
    );
    assert!(e.path().contains("node_indices"), "{e}");
    // The node starts at 5: axis, left, right, start, then end at 9.
    let e = SpatialTree::read(&tree(&[0], &big)).unwrap_err();
    assert_eq!(e.offset(), 9, "{e}");
    assert!(e.path().contains("nodes"), "{e}");
}

#[test]
fn malformed_trees_are_reported() {
    let pos = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let good = SpatialTree::build(&[0, 1, 2], &pos, 4);
    assert!(good.problems(1).is_empty());
    let mut bad = good.clone();
    bad.node_indices = vec![4];
    bad.edge_flags = vec![9];
    let problems = bad.problems(1);
    assert_eq!(problems.len(), 2, "{problems:?}");
    let mut bad = good.clone();
    bad.nodes[0].left = 0;
    bad.nodes[0].right = 5;
    assert!(!bad.problems(1).is_empty());
    // Truncated or padded content is a decode error.
    let bytes = good.write().unwrap();
    for n in 0..bytes.len() {
        assert!(SpatialTree::read(&bytes[..n]).is_err(), "{n}");
    }
    let mut padded = bytes.clone();
    padded.push(0);
    assert!(SpatialTree::read(&padded).is_err());
    // A hostile node count fails before allocating.
    assert!(SpatialTree::read(&[0, 0, 0xbf, 0xff, 0xff, 0xff, 0x0f]).is_err());
}

fn quad_model() -> Model {
    Model {
        coordinate_system: unigine_mesh::COORDINATE_SYSTEM,
        surfaces: vec![Surface {
            name: "quad".into(),
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y],
            normals: vec![Vec3::Z; 4],
            indices: vec![0, 1, 2, 0, 2, 3],
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn any_mesh_becomes_ms14_and_back() {
    let model = quad_model();
    let opts = |version| WriteOptions {
        version,
        ..Default::default()
    };
    let ms14 = MeshFile::from_core_with(&model, &opts(TargetVersion::Ms14))
        .unwrap()
        .value;
    let ms13 = MeshFile::from_core_with(&model, &opts(TargetVersion::Ms13))
        .unwrap()
        .value;
    let bytes = ms14.write().unwrap();
    assert_eq!(&bytes[..5], b"ms14\x04");
    let MeshFile::Ms14(back) = read(&bytes).unwrap() else {
        panic!()
    };
    let MeshFile::Ms1x(ms13) = ms13 else { panic!() };
    assert_eq!(back.mesh, ms13);
    assert_eq!(back.trees[0].edge_flags, [5, 3]);
    assert!(back.memory_estimate > 0);
    assert_eq!(back.write().unwrap(), bytes);
    let core = read(&bytes).unwrap().to_core().unwrap().value;
    assert_eq!(core.surfaces[0].positions, model.surfaces[0].positions);
    assert_eq!(core.surfaces[0].indices, model.surfaces[0].indices);

    // Every ms11 sample as ms14, and back to the same ms13 content.
    let Some(dir) = samples_or_skip("unigine", "any_mesh_becomes_ms14_and_back (ms11 samples)")
    else {
        return;
    };
    let mut n = 0;
    for p in test_support::files_under(&dir, &["mesh"]) {
        let bytes = std::fs::read(&p).unwrap();
        if !bytes.starts_with(b"ms11") {
            continue;
        }
        let core = read(&bytes).unwrap().to_core().unwrap().value;
        let a = MeshFile::from_core_with(&core, &opts(TargetVersion::Ms14))
            .unwrap()
            .value;
        let b = MeshFile::from_core_with(&core, &opts(TargetVersion::Ms13))
            .unwrap()
            .value;
        let (MeshFile::Ms14(a), MeshFile::Ms1x(b)) = (a, b) else {
            panic!()
        };
        let MeshFile::Ms14(back) = read(&a.write().unwrap()).unwrap() else {
            panic!()
        };
        assert_eq!(back.mesh, b, "{}", p.display());
        n += 1;
    }
    println!("{n} ms11 samples written as ms14 and read back");
    assert_eq!(n, 76, "the samples hold 76 ms11 meshes");
}
