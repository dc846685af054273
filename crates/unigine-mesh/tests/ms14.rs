//! ms14: recompression, corrupt and hostile blocks, over the real files (tests/spatial.rs
//! builds ms14 files from scratch).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use test_support::samples_or_skip;
use unigine_mesh::{Error, MeshFile, read};

fn ms14_samples() -> Vec<PathBuf> {
    let Some(dir) = samples_or_skip("unigine", "ms14 tests") else {
        return Vec::new();
    };
    test_support::files_under(&dir, &["mesh"])
        .into_iter()
        .filter(|p| {
            std::fs::read(p)
                .map(|b| b.starts_with(b"ms14"))
                .unwrap_or(false)
        })
        .collect()
}

#[test]
fn recompressed_files_decode_to_the_same_content() {
    let (mut files, mut same_bytes, mut original_total, mut ours_total) = (0, 0, 0usize, 0usize);
    for path in ms14_samples() {
        let bytes = std::fs::read(&path).unwrap();
        let MeshFile::Ms14(m) = read(&bytes).unwrap() else {
            panic!()
        };
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
        for (a, b) in back.blocks.iter().zip(&m.blocks) {
            assert_eq!(a.geometry.content, b.geometry.content);
        }
        files += 1;
        same_bytes += usize::from(out == bytes);
        original_total += bytes.len();
        ours_total += out.len();
    }
    println!(
        "ms14 recompressed: {files} files decode identically; {same_bytes} also byte-identical; {original_total} bytes as shipped, {ours_total} with lz4_flex"
    );
}

#[test]
fn corrupt_and_hostile_blocks_fail_cleanly() {
    let Some(path) = ms14_samples().into_iter().next() else {
        return;
    };
    let bytes = std::fs::read(&path).unwrap();
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
    assert_eq!(size as usize, m.blocks[0].geometry.content.len());
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
    // change that breaks the stream is a typed error.
    if csize < size {
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
}
