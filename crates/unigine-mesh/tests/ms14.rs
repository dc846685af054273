//! ms14: recompression, corrupt and hostile blocks, over the real files (tests/spatial.rs
//! builds ms14 files from scratch).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

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
        "ms14 recompressed: {files} files decode identically; {same_bytes} also byte-identical; {original_total} bytes as shipped, {ours_total} with lz4_flex"
    );
    assert_eq!(files, MS14_FILES);
    // The README's claim: byte identity rests on keeping the engine's LZ4 blocks; lz4_flex
    // compresses differently, so no recompressed sample is byte-identical.
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
