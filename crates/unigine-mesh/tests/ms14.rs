//! ms14: recompression, corrupt and hostile blocks, over the real files (tests/spatial.rs
//! builds ms14 files from scratch).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

mod common;

use test_support::samples_or_skip;
use unigine_mesh::{Error, MeshFile, read};

/// The samples hold 15 ms14 meshes.
const MS14_FILES: usize = 15;

/// The ms14 samples; `None` (skipped) without the samples folder, a failure under
/// MESHFMT_REQUIRE_SAMPLES.
fn ms14_samples(test: &str) -> Option<Vec<PathBuf>> {
    let dir = samples_or_skip("unigine", test)?;
    let files: Vec<PathBuf> = test_support::files_under(&dir, &["mesh"])
        .into_iter()
        .filter(|p| std::fs::read(p).unwrap().starts_with(b"ms14"))
        .collect();
    assert_eq!(
        files.len(),
        MS14_FILES,
        "the samples hold {MS14_FILES} ms14 meshes"
    );
    Some(files)
}

#[test]
fn recompressed_files_decode_to_the_same_content() {
    let Some(paths) = ms14_samples("recompressed_files_decode_to_the_same_content") else {
        return;
    };
    let (mut files, mut same_bytes, mut original_total, mut ours_total) = (0, 0, 0usize, 0usize);
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        let MeshFile::Ms14(m) = read(&bytes).unwrap() else {
            panic!()
        };
        // With the engine's blocks kept, the rewrite is the file.
        assert!(m.write().unwrap() == bytes, "{}", path.display());
        assert_eq!(m.blocks.len(), m.mesh.surfaces.len(), "{}", path.display());
        let mut fresh = m.clone();
        fresh.blocks.clear(); // forget the engine's compressed bytes
        let out = fresh.write().unwrap();
        let MeshFile::Ms14(back) = read(&out).unwrap() else {
            panic!()
        };
        assert!(
            back.mesh == m.mesh,
            "{}: decoded geometry differs",
            path.display()
        );
        assert_eq!(back.trees, m.trees);
        assert_eq!(back.blocks.len(), m.blocks.len());
        for (a, b) in back.blocks.iter().zip(&m.blocks) {
            assert_eq!(a.geometry.content().unwrap(), b.geometry.content().unwrap());
            assert_eq!(a.tree.content().unwrap(), b.tree.content().unwrap());
        }
        files += 1;
        same_bytes += usize::from(out == bytes);
        original_total += bytes.len();
        ours_total += out.len();
    }
    println!(
        "ms14 recompressed: {files} files decode identically; {same_bytes} also byte-identical; {original_total} bytes as shipped, {ours_total} with our LZ4 encoder"
    );
    assert_eq!(files, MS14_FILES);
    // The README's claim: byte identity rests on keeping the engine's LZ4 blocks; our
    // encoder compresses differently, so no recompressed sample is byte-identical.
    assert_eq!(
        same_bytes, 0,
        "recompressed files byte-identical to the engine's"
    );
}

#[test]
fn corrupt_and_hostile_blocks_fail_cleanly() {
    let Some(paths) = ms14_samples("corrupt_and_hostile_blocks_fail_cleanly") else {
        return;
    };
    let path = &paths[0];
    let bytes = std::fs::read(path).unwrap();
    let MeshFile::Ms14(m) = read(&bytes).unwrap() else {
        panic!()
    };
    // The first geometry block starts after the second marker and the bind pose.
    let marker2 = bytes
        .windows(4)
        .enumerate()
        .skip(4)
        .find(|(_, w)| *w == b"ms14")
        .unwrap()
        .0;
    let block = marker2 + 4 + 40 * m.mesh.bones.len();
    let size = u64::from_le_bytes(bytes[block..block + 8].try_into().unwrap());
    let csize = u64::from_le_bytes(bytes[block + 8..block + 16].try_into().unwrap());
    assert_eq!(size, m.blocks[0].geometry.size);
    // A block claiming a decoded size far beyond what its bytes can give.
    let mut bad = bytes.clone();
    bad[block..block + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    match read(&bad) {
        Err(Error::Decode(e)) => assert!(e.to_string().contains("cannot decode to"), "{e}"),
        other => panic!("{other:?}"),
    }
    // Compressed larger than decoded.
    let mut bad = bytes.clone();
    bad[block + 8..block + 16].copy_from_slice(&(size + 1).to_le_bytes());
    assert!(read(&bad).is_err());
    // Corrupt LZ4 bytes: flip every byte of the block in turn; never a panic, and a
    // change that breaks the stream is a typed error. (The first sample's first block is
    // compressed, so there is a stream to break.)
    assert!(csize < size, "{}: {csize} vs {size}", path.display());
    let mut errors = 0;
    for i in 0..csize as usize {
        let mut bad = bytes.clone();
        bad[block + 16 + i] ^= 0xff;
        if read(&bad).is_err() {
            errors += 1;
        }
    }
    assert!(errors > 0);
}

/// A grid of `side` x `side` quads, positions jittered so LZ4 has work to do, written
/// as ms14 with trees we build (`Ms14::from_ms13`).
fn big_ms14(side: u32) -> unigine_mesh::ms14::Ms14 {
    use unigine_mesh::{Bounds, Ms1x, Ms1xVersion};
    let n = side + 1;
    let vertices: Vec<[f32; 3]> = (0..n * n)
        .map(|i| {
            let (x, y) = ((i % n) as f32, (i / n) as f32);
            [x, y, ((x * 0.37).sin() * (y * 0.11).cos()).abs()]
        })
        .collect();
    let mut cindices = Vec::new();
    for y in 0..side {
        for x in 0..side {
            let i = y * n + x;
            cindices.extend([i, i + 1, i + n, i + 1, i + n + 1, i + n]);
        }
    }
    let tindices = vec![0; cindices.len()];
    let surface = common::surface(vertices, 1, cindices, tindices);
    let mesh = Ms1x {
        version: Ms1xVersion::Ms13,
        bounds: Bounds::EMPTY,
        bones: Vec::new(),
        bind_pose: Vec::new(),
        animations: Vec::new(),
        surfaces: vec![surface],
    };
    unigine_mesh::ms14::Ms14::from_ms13(mesh).unwrap()
}

/// Where no thread can start (`wasm32-unknown-unknown`: a browser page), a big mesh's
/// spatial trees are built, written and read on the caller's thread: the same trees,
/// the same bytes, the same model, and the same error for a damaged file, as with two.
#[test]
fn big_files_build_write_and_read_alike_on_one_thread() {
    use parsing_primitives::threads::one_thread;
    // 80,000 triangles: past the size from which trees are built beside the geometry.
    let two = big_ms14(200);
    let one = one_thread(|| big_ms14(200));
    assert_eq!(one.trees, two.trees);
    let bytes = two.write().unwrap();
    assert_eq!(one_thread(|| one.write().unwrap()), bytes);
    let (MeshFile::Ms14(a), MeshFile::Ms14(b)) =
        (read(&bytes).unwrap(), one_thread(|| read(&bytes).unwrap()))
    else {
        panic!("read as ms14")
    };
    assert!(a.mesh.surfaces == b.mesh.surfaces && a.trees == b.trees);
    let mut bad = bytes.clone();
    let mid = bad.len() / 2;
    bad[mid..mid + 64].fill(0xff);
    let refusal = |r: Result<MeshFile, Error>| r.err().map(|e| e.to_string());
    assert_eq!(refusal(one_thread(|| read(&bad))), refusal(read(&bad)));
}

// Corrupts LZ4 streams (the `lz4` feature compresses; raw blocks have none).
#[cfg(feature = "lz4")]
#[test]
fn big_files_decode_their_trees_beside_the_geometry() {
    // 180,000 triangles: the tree block stores more than the 1 MiB from which trees
    // are decoded on a second thread.
    let built = big_ms14(300);
    let bytes = built.write().unwrap();
    let MeshFile::Ms14(m) = read(&bytes).unwrap() else {
        panic!()
    };
    assert!(
        m.blocks[0].tree.stored.len() > 1 << 20,
        "{}",
        m.blocks[0].tree.stored.len()
    );
    // What was built comes back: the geometry and the tree, node for node.
    assert!(m.mesh.surfaces == built.mesh.surfaces);
    assert_eq!(m.trees, built.trees);
    assert_eq!(m.write().unwrap(), bytes);

    // A corrupt tree block: the error names the tree block and its offset.
    let tree_at = bytes.len() - (4 + 8 + 4) - (16 + m.blocks[0].tree.stored.len());
    let mut bad = bytes.clone();
    let mid = tree_at + 16 + m.blocks[0].tree.stored.len() / 2;
    bad[mid..mid + 64].fill(0xff);
    let Err(Error::Decode(e)) = read(&bad) else {
        panic!("read a corrupt tree block")
    };
    assert!(e.to_string().contains("tree_blocks[0].block"), "{e}");
    assert!(e.to_string().contains("corrupt LZ4 block"), "{e}");
    assert_eq!(e.offset(), (tree_at + 16) as u64);
    // Both blocks corrupt: the geometry's error, as a read in order would give.
    let geometry_at = usize::try_from(i64::from_le_bytes(
        bytes[bytes.len() - 12..bytes.len() - 4].try_into().unwrap(),
    ))
    .unwrap();
    let gmid = geometry_at + 16 + m.blocks[0].geometry.stored.len() / 2;
    bad[gmid..gmid + 64].fill(0xff);
    let Err(Error::Decode(e)) = read(&bad) else {
        panic!("read two corrupt blocks")
    };
    assert!(e.to_string().contains("geometry_blocks[0].block"), "{e}");
    assert_eq!(e.offset(), (geometry_at + 16) as u64);

    // Room for the stored blocks but not for decoding them: whichever side runs out
    // names its own block.
    let stored = (m.blocks[0].geometry.stored.len() + m.blocks[0].tree.stored.len()) as u64;
    let budget = meshfmt_core::Budget::new(meshfmt_core::Limits {
        max_alloc_bytes: stored + 4096,
        ..meshfmt_core::Limits::DEFAULT
    });
    let opts = unigine_mesh::ReadOptions { budget };
    let Err(Error::Decode(e)) = unigine_mesh::read_with(&bytes, &opts) else {
        panic!("read under a small budget")
    };
    assert!(e.to_string().contains("decompressed block"), "{e}");
    assert!(
        [geometry_at + 16, tree_at + 16].contains(&(e.offset() as usize)),
        "{e}"
    );
}

/// The stored blocks of a file of the block layouts, in file order.
fn stored_blocks(file: &MeshFile) -> Vec<&unigine_mesh::ms14::StoredBlock> {
    fn ms14(m: &unigine_mesh::ms14::Ms14) -> Vec<&unigine_mesh::ms14::StoredBlock> {
        let geometry = m.blocks.iter().map(|b| &b.geometry);
        geometry.chain(m.blocks.iter().map(|b| &b.tree)).collect()
    }
    match file {
        MeshFile::Ms14(m) => ms14(m),
        MeshFile::Ms15(m) => ms14(&m.0),
        MeshFile::Sk10(k) => k.blocks.iter().collect(),
        other => panic!("{} has no stored blocks", other.version()),
    }
}

#[test]
fn shared_reads_keep_ranges_of_the_input_not_copies() {
    use meshfmt_core::canonical;
    use unigine_mesh::{SharedBytes, TargetVersion, WriteOptions};
    let written = |model: meshfmt_core::Model, version| {
        let options = WriteOptions {
            version,
            ..Default::default()
        };
        MeshFile::from_core_with(&model, &options)
            .unwrap()
            .value
            .write()
            .unwrap()
    };
    // ms14 past the threading threshold, sk10, ms15, and the real ms14 files.
    let mut inputs = vec![
        ("big ms14".to_string(), big_ms14(300).write().unwrap()),
        (
            "sk10".into(),
            written(canonical::skinned_arm(), TargetVersion::Sk10),
        ),
        (
            "ms15".into(),
            written(canonical::cube(), TargetVersion::Ms15),
        ),
    ];
    for p in ms14_samples("shared_reads_keep_ranges_of_the_input_not_copies").unwrap_or_default() {
        inputs.push((p.display().to_string(), std::fs::read(&p).unwrap()));
    }
    let mut tight_budget_cases = 0;
    for (name, bytes) in inputs {
        let input = SharedBytes::from(bytes.clone());
        let budget = |b: &meshfmt_core::Budget| unigine_mesh::ReadOptions { budget: b.clone() };
        let (for_shared, for_borrowed) = (meshfmt_core::Budget::default(), Default::default());
        let shared = unigine_mesh::read_shared_with(&input, &budget(&for_shared)).unwrap();
        let borrowed = unigine_mesh::read_with(&bytes, &budget(&for_borrowed)).unwrap();
        assert!(shared == borrowed, "{name}");
        let blocks = stored_blocks(&shared);
        assert!(!blocks.is_empty(), "{name}");
        let whole = input.as_ptr_range();
        let mut stored = 0;
        for b in &blocks {
            let at = b.stored.as_ptr_range();
            assert!(
                whole.start <= at.start && at.end <= whole.end,
                "{name}: a block's stored bytes are a copy"
            );
            stored += b.stored.len() as u64;
        }
        // The borrowed read charged its copies; the shared one made none.
        assert_eq!(for_borrowed.used() - for_shared.used(), stored, "{name}");
        assert!(shared.write().unwrap() == bytes, "{name}");
        // Dropping the input leaves the file whole.
        drop(input);
        assert!(shared.write().unwrap() == bytes, "{name}");
        // Errors are the same, offsets included: a cut file, and (past the header) a
        // corrupt block content.
        let mut bad = bytes.clone();
        let mid = bytes.len() / 2;
        bad[mid..mid + 32].fill(0xff);
        let cases = [
            bytes[..bytes.len() / 3].to_vec(),
            bytes[..bytes.len() - 1].to_vec(),
            bad,
        ];
        for case in cases {
            let shared = unigine_mesh::read_shared(&SharedBytes::from(&case[..]));
            match (shared, read(&case)) {
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{name}"),
                // Compared by rewrite: corrupt floats may be NaN, never equal.
                (Ok(a), Ok(b)) => assert!(a.write().ok() == b.write().ok(), "{name}"),
                (a, b) => panic!("{name}: {a:?} but {b:?}"),
            }
        }
        // The stored blocks are the caller's bytes, not charged: a budget that holds the
        // shared read's charges (and the decode windows, 512 KiB a thread, in slack)
        // cannot also pay for copies of them.
        if stored > 3 << 20 {
            let tight = meshfmt_core::Budget::new(meshfmt_core::Limits {
                max_alloc_bytes: for_shared.used() + stored / 2,
                ..meshfmt_core::Limits::DEFAULT
            });
            let input = SharedBytes::from(bytes.clone());
            assert!(
                unigine_mesh::read_shared_with(&input, &budget(&tight)).is_ok(),
                "{name}"
            );
            let fresh = meshfmt_core::Budget::new(tight.limits());
            match unigine_mesh::read_with(&bytes, &budget(&fresh)) {
                Err(Error::Decode(e)) => assert!(
                    matches!(e.kind(), parsing_primitives::ErrorKind::OverBudget(_)),
                    "{name}: {e}"
                ),
                other => panic!("{name}: the borrowed read under a tight budget: {other:?}"),
            }
            tight_budget_cases += 1;
        }
    }
    // The big ms14 stores more than 3 MiB.
    assert!(tight_budget_cases >= 1);
}

/// Without the `lz4` feature new blocks are stored raw (decoded size = stored size) and
/// read back as they were built.
#[cfg(not(feature = "lz4"))]
#[test]
fn without_the_lz4_feature_new_blocks_are_stored_raw() {
    let built = big_ms14(40);
    let file = read(&built.write().unwrap()).unwrap();
    for b in stored_blocks(&file) {
        assert!(b.is_raw(), "{} of {} bytes", b.stored.len(), b.size);
    }
    let MeshFile::Ms14(m) = file else { panic!() };
    assert!(m.mesh.surfaces == built.mesh.surfaces);
    assert_eq!(m.trees, built.trees);
}
