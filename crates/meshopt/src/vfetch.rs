//! Vertex fetch optimization: renumbers vertices in the order the index list first uses
//! them, so that vertex fetches walk memory forward and the index codec sees small,
//! mostly increasing indices; and vertex cache analysis, to measure the result.
//!
//! This follows meshoptimizer (MIT licence, (c) Arseny Kapoulkine):
//! [`optimize_vertex_fetch_remap`] is `meshopt_optimizeVertexFetchRemap`
//! (`src/vfetchoptimizer.cpp`), [`remap_index_buffer`] and [`remap_vertex_buffer`] are
//! `meshopt_remapIndexBuffer` and `meshopt_remapVertexBuffer` (`src/indexgenerator.cpp`)
//! and [`analyze_vertex_cache`] is the ACMR of `meshopt_analyzeVertexCache`
//! (`src/vcacheanalyzer.cpp`, `src/indexanalyzer.cpp` in later versions) without warp or
//! primitive group limits.

use crate::vcache::InvalidIndex;

/// The vertex renumbering that puts vertices in the order `indices` first uses them
/// (meshoptimizer's `meshopt_optimizeVertexFetchRemap`).
///
/// Returns `remap`, with `remap[old] == new` for each of the `vertex_count` vertices
/// (`u32::MAX` for a vertex no index uses), and the number of vertices used, which are
/// numbered `0..used`. Apply it with [`remap_index_buffer`] and [`remap_vertex_buffer`].
/// `indices` may be any index list (triangles or not); an index at or past
/// `vertex_count` is an error.
///
/// ```
/// use meshfmt_meshopt::{optimize_vertex_fetch_remap, remap_index_buffer, remap_vertex_buffer};
///
/// let positions = ["a", "b", "c", "unused", "d"];
/// let mut indices = vec![4, 2, 0, 0, 2, 1];
/// let (remap, used) = optimize_vertex_fetch_remap(&indices, positions.len())?;
/// assert_eq!(remap, [2, 3, 1, u32::MAX, 0]);
/// assert_eq!(used, 4);
/// remap_index_buffer(&mut indices, &remap);
/// assert_eq!(indices, [0, 1, 2, 2, 1, 3]);
/// assert_eq!(remap_vertex_buffer(&positions, &remap, used), ["d", "c", "a", "b"]);
/// # Ok::<(), meshfmt_meshopt::InvalidIndex>(())
/// ```
pub fn optimize_vertex_fetch_remap(
    indices: &[u32],
    vertex_count: usize,
) -> Result<(Vec<u32>, usize), InvalidIndex> {
    let mut remap = vec![u32::MAX; vertex_count];
    let mut next = 0u32;
    for (position, &index) in indices.iter().enumerate() {
        let Some(slot) = remap.get_mut(index as usize) else {
            return Err(InvalidIndex {
                position,
                index,
                vertex_count,
            });
        };
        if *slot == u32::MAX {
            *slot = next;
            next = next.wrapping_add(1);
        }
    }
    Ok((remap, next as usize))
}

/// Renumbers `indices` in place through `remap` (`index` becomes `remap[index]`), as
/// meshoptimizer's `meshopt_remapIndexBuffer` does.
///
/// An index with no entry in `remap` (at or past `remap.len()`) becomes `u32::MAX`, which
/// no vertex buffer holds, rather than being kept under a numbering it does not belong to.
///
/// ```
/// use meshfmt_meshopt::remap_index_buffer;
///
/// let mut indices = [2, 0, 1, 9];
/// remap_index_buffer(&mut indices, &[1, 2, 0]);
/// assert_eq!(indices, [0, 1, 2, u32::MAX]);
/// ```
pub fn remap_index_buffer(indices: &mut [u32], remap: &[u32]) {
    for index in indices {
        *index = remap.get(*index as usize).copied().unwrap_or(u32::MAX);
    }
}

/// The vertices in their new order: element `remap[old]` of the result is
/// `vertices[old]`, and the result has `unique` elements (meshoptimizer's
/// `meshopt_remapVertexBuffer`). Vertices whose `remap` entry is `u32::MAX` (unused), or
/// is at or past `unique`, or that have no `remap` entry are dropped.
///
/// With a remap from [`optimize_vertex_fetch_remap`] every one of the `unique` slots
/// gets its vertex. With another remap, a slot that no vertex maps to gets a copy of
/// `vertices[0]`, so later slots keep their places; from an empty `vertices` the result
/// is empty.
///
/// ```
/// use meshfmt_meshopt::remap_vertex_buffer;
///
/// let normals = [[0.0f32, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
/// let out = remap_vertex_buffer(&normals, &[1, u32::MAX, 0], 2);
/// assert_eq!(out, [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
/// ```
pub fn remap_vertex_buffer<T: Copy>(vertices: &[T], remap: &[u32], unique: usize) -> Vec<T> {
    let Some(&filler) = vertices.first() else {
        return Vec::new();
    };
    let mut out = vec![filler; unique];
    for (vertex, &new) in vertices.iter().zip(remap) {
        if let Some(slot) = out.get_mut(new as usize) {
            *slot = *vertex;
        }
    }
    out
}

/// The average cache miss ratio (ACMR): vertices transformed per triangle through a
/// simulated FIFO post-transform cache of `cache_size` entries, as meshoptimizer's
/// `meshopt_analyzeVertexCache` reports it (with no warp or primitive group limits).
///
/// 3.0 is the worst (no reuse at all); a regular grid in a good order approaches 0.5
/// (each vertex transformed once, two triangles per vertex). An empty list gives 0.0.
/// An index at or past `vertex_count` counts as a miss every time it is used; a trailing
/// partial triangle is not counted.
///
/// ```
/// use meshfmt_meshopt::analyze_vertex_cache;
///
/// // Two triangles sharing an edge: 4 vertices transformed for 2 triangles.
/// assert_eq!(analyze_vertex_cache(&[0, 1, 2, 2, 1, 3], 4, 16), 2.0);
/// // A cache of 3 still holds the shared edge.
/// assert_eq!(analyze_vertex_cache(&[0, 1, 2, 2, 1, 3], 4, 3), 2.0);
/// ```
#[must_use]
pub fn analyze_vertex_cache(indices: &[u32], vertex_count: usize, cache_size: u32) -> f32 {
    let triangles = indices.len() / 3;
    if triangles == 0 {
        return 0.0;
    }
    let indices = &indices[..triangles * 3];
    // Only the vertices the list uses need a timestamp.
    let tracked = indices
        .iter()
        .filter(|&&i| (i as usize) < vertex_count)
        .max()
        .map_or(0, |&max| max as usize + 1);
    // 0 is "never in the cache"; 64 bits so that no cache size or list length wraps.
    let cache_size = u64::from(cache_size);
    let mut timestamps = vec![0u64; tracked];
    let mut timestamp = cache_size + 1;
    let mut transformed = 0u64;
    for &index in indices {
        match timestamps.get_mut(index as usize) {
            Some(stamp) => {
                if timestamp - *stamp > cache_size {
                    *stamp = timestamp;
                    timestamp += 1;
                    transformed += 1;
                }
            }
            None => transformed += 1,
        }
    }
    (transformed as f64 / triangles as f64) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remap_out_of_range() {
        let err = optimize_vertex_fetch_remap(&[0, 3], 3).unwrap_err();
        assert_eq!(
            err,
            InvalidIndex {
                position: 1,
                index: 3,
                vertex_count: 3
            }
        );
    }

    #[test]
    fn remap_empty() -> Result<(), crate::InvalidIndex> {
        let (remap, used) = optimize_vertex_fetch_remap(&[], 2)?;
        assert_eq!(remap, [u32::MAX, u32::MAX]);
        assert_eq!(used, 0);
        Ok(())
    }

    #[test]
    fn analyze_edge_cases() {
        assert_eq!(analyze_vertex_cache(&[], 0, 16), 0.0);
        assert_eq!(analyze_vertex_cache(&[0, 1], 2, 16), 0.0);
        assert_eq!(analyze_vertex_cache(&[0, 1, 9, 0, 1, 9], 2, 16), 4.0 / 2.0);
        assert_eq!(analyze_vertex_cache(&[0, 1, 2, 0, 1, 2], 3, 0), 3.0);
        assert_eq!(analyze_vertex_cache(&[0, 1, 2, 0, 1, 2], 3, u32::MAX), 1.5);
    }

    #[test]
    fn vertex_buffer_gaps() {
        assert_eq!(remap_vertex_buffer(&[1u8, 2, 3], &[2, 0], 3), [2, 1, 1]);
        assert_eq!(remap_vertex_buffer::<u8>(&[], &[0], 1), Vec::<u8>::new());
    }
}
