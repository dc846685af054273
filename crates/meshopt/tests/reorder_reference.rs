//! Our vertex cache and vertex fetch optimizations against meshoptimizer's own, case by
//! case: `MeshoptEncoder.reorderMesh(indices, true, optsize)` from the npm package
//! (its WebAssembly build of `meshopt_optimizeVertexCache`, or
//! `meshopt_optimizeVertexCacheStrip` when `optsize`, then
//! `meshopt_optimizeVertexFetchRemap` and the index remap) must give the same indices,
//! remap and used vertex count as ours, for both orders.
//!
//! The package is the CI one, `.ci/node_modules/meshoptimizer` (`npm ci` in `.ci`). When
//! it or node is missing the test prints a notice and passes, unless
//! `MESHFMT_REQUIRE_MESHOPT_REF=1`. Run with `--nocapture` for the ACMR figures.

use std::path::{Path, PathBuf};
use std::process::Command;

use meshfmt_meshopt::{
    analyze_vertex_cache, optimize_vertex_cache, optimize_vertex_cache_strip,
    optimize_vertex_fetch_remap, remap_index_buffer,
};

/// A deterministic pseudo-random sequence (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

struct Case {
    name: String,
    indices: Vec<u32>,
    vertex_count: usize,
}

/// A `w` x `h` quad grid, row by row, two triangles a quad.
fn grid(w: u32, h: u32) -> (Vec<u32>, usize) {
    let mut indices = Vec::with_capacity((w * h * 6) as usize);
    for y in 0..h {
        for x in 0..w {
            let v00 = y * (w + 1) + x;
            let v10 = v00 + 1;
            let v01 = v00 + w + 1;
            let v11 = v01 + 1;
            indices.extend_from_slice(&[v00, v10, v01, v01, v10, v11]);
        }
    }
    (indices, ((w + 1) * (h + 1)) as usize)
}

/// A grid with its triangles in a random order, rotated at random, and its vertices
/// renumbered at random.
fn shuffled_grid(w: u32, h: u32, seed: u64) -> (Vec<u32>, usize) {
    let (indices, vertex_count) = grid(w, h);
    let mut rng = Rng(seed);
    let mut numbering: Vec<u32> = (0..vertex_count as u32).collect();
    rng.shuffle(&mut numbering);
    let mut triangles: Vec<[u32; 3]> = indices
        .chunks_exact(3)
        .map(|t| {
            let t = [t[0], t[1], t[2]].map(|v| numbering[v as usize]);
            let r = rng.below(3);
            [t[r], t[(r + 1) % 3], t[(r + 2) % 3]]
        })
        .collect();
    rng.shuffle(&mut triangles);
    (triangles.concat(), vertex_count)
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let mut add = |name: &str, (indices, vertex_count): (Vec<u32>, usize)| {
        cases.push(Case {
            name: name.to_owned(),
            indices,
            vertex_count,
        });
    };
    add("grid_1x1", grid(1, 1));
    add("grid_4x4", grid(4, 4));
    add("grid_17x9", grid(17, 9));
    add("grid_64x64", grid(64, 64));
    add("grid_300x7", grid(300, 7));
    add("shuffled_grid_5x3", shuffled_grid(5, 3, 1));
    add("shuffled_grid_64x48", shuffled_grid(64, 48, 2));
    add("shuffled_grid_250x200", shuffled_grid(250, 200, 3));

    // Triangle soup: random corners, so many dead ends and many ties.
    let mut rng = Rng(4);
    let soup: Vec<u32> = (0..3 * 3000).map(|_| rng.below(500) as u32).collect();
    add("soup_3000_over_500", (soup, 500));
    let mut rng = Rng(5);
    let dense: Vec<u32> = (0..3 * 2000).map(|_| rng.below(40) as u32).collect();
    add("soup_2000_over_40", (dense, 40));

    // Degenerate triangles (two or three equal corners) among a grid's, and vertices
    // that no triangle uses (every third grid vertex number is skipped, and the vertex
    // count runs past the largest index).
    let (mut indices, _) = shuffled_grid(20, 20, 6);
    for index in &mut indices {
        *index *= 3;
    }
    let mut rng = Rng(7);
    let mut with_degenerate = Vec::new();
    for t in indices.chunks_exact(3) {
        with_degenerate.extend_from_slice(t);
        match rng.below(8) {
            0 => with_degenerate.extend_from_slice(&[t[0], t[0], t[1]]),
            1 => with_degenerate.extend_from_slice(&[t[2], t[1], t[2]]),
            2 => with_degenerate.extend_from_slice(&[t[1], t[1], t[1]]),
            _ => {}
        }
    }
    with_degenerate.extend_from_slice(&[0, 0, 0, 3, 3, 6]);
    add(
        "degenerate_unreferenced",
        (with_degenerate, 21 * 21 * 3 + 50),
    );

    add("grid_1000x500", grid(1000, 500));
    add("shuffled_grid_1000x500", shuffled_grid(1000, 500, 8));
    cases
}

fn write_u32s(path: &Path, values: &[u32]) {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

fn read_u32s(path: &Path) -> Vec<u32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Where the reference is, or why it cannot run.
fn reference() -> Result<PathBuf, String> {
    let module =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/node_modules/meshoptimizer/index.js");
    if !module.is_file() {
        return Err(format!(
            "{} is missing (run `npm ci` in .ci)",
            module.display()
        ));
    }
    match Command::new("node").arg("--version").output() {
        Ok(out) if out.status.success() => Ok(module),
        Ok(out) => Err(format!("`node --version` failed: {}", out.status)),
        Err(e) => Err(format!("node is not runnable: {e}")),
    }
}

/// Ours, as reorderMesh does it: the cache order, then the fetch remap applied to the
/// indices. Returns the indices, the remap and the used vertex count.
fn ours(case: &Case, optsize: bool) -> (Vec<u32>, Vec<u32>, usize) {
    let mut indices = case.indices.clone();
    if optsize {
        optimize_vertex_cache_strip(&mut indices, case.vertex_count)
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    } else {
        optimize_vertex_cache(&mut indices, case.vertex_count)
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    }
    let (remap, unique) = optimize_vertex_fetch_remap(&indices, case.vertex_count)
        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    remap_index_buffer(&mut indices, &remap);
    (indices, remap, unique)
}

#[test]
fn reorder_matches_meshoptimizer() {
    let module = match reference() {
        Ok(module) => module,
        Err(why) => {
            assert!(
                std::env::var_os("MESHFMT_REQUIRE_MESHOPT_REF").is_none_or(|v| v != "1"),
                "MESHFMT_REQUIRE_MESHOPT_REF=1 but the reference cannot run: {why}"
            );
            eprintln!("notice: reorder_matches_meshoptimizer skipped: {why}");
            return;
        }
    };

    let cases = cases();
    let dir = std::env::temp_dir().join(format!("meshfmt-meshopt-reorder-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    std::fs::write(dir.join("cases.txt"), names.join("\n") + "\n").unwrap();
    for case in &cases {
        write_u32s(&dir.join(format!("{}.in", case.name)), &case.indices);
    }

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reorder_reference.mjs");
    let out = Command::new("node")
        .arg(&script)
        .arg(&module)
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the reference failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );

    let mut mismatches = Vec::new();
    println!(
        "{:<26} {:>9} {:>8} {:>10} {:>10}",
        "case", "triangles", "input", "vcache", "strip"
    );
    for case in &cases {
        let mut acmr = [0.0f32; 2];
        for (optsize, acmr) in [false, true].into_iter().zip(&mut acmr) {
            let (indices, remap, unique) = ours(case, optsize);
            let tag = format!("{}.ref{}", case.name, u8::from(optsize));
            let ref_indices = read_u32s(&dir.join(format!("{tag}.idx")));
            let ref_remap = read_u32s(&dir.join(format!("{tag}.remap")));
            let ref_unique: usize = std::fs::read_to_string(dir.join(format!("{tag}.unique")))
                .unwrap()
                .trim()
                .parse()
                .unwrap();

            // The reference's remap covers vertices 0..=max index; past that all are unused.
            let covered = ref_remap.len().min(remap.len());
            let same_indices = indices == ref_indices;
            let same_remap = remap[..covered] == ref_remap[..]
                && remap[covered..].iter().all(|&r| r == u32::MAX);
            if !(same_indices && same_remap && unique == ref_unique) {
                let first = indices.iter().zip(&ref_indices).position(|(a, b)| a != b);
                mismatches.push(format!(
                    "{} optsize={optsize}: indices {} (first difference at {first:?}), remap {}, unique {unique} vs {ref_unique}",
                    case.name,
                    if same_indices { "same" } else { "differ" },
                    if same_remap { "same" } else { "differ" },
                ));
            }
            *acmr = analyze_vertex_cache(&indices, unique, 16);
        }
        println!(
            "{:<26} {:>9} {:>8.3} {:>10.3} {:>10.3}",
            case.name,
            case.indices.len() / 3,
            analyze_vertex_cache(&case.indices, case.vertex_count, 16),
            acmr[0],
            acmr[1]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        mismatches.is_empty(),
        "differences from meshoptimizer:\n{}",
        mismatches.join("\n")
    );
}
