//! Vertex cache optimization: reorders the triangles of a triangle list so that a GPU's
//! post-transform vertex cache hits more often, and so that the index codec sees the
//! small, repetitive deltas it compresses best.
//!
//! This follows meshoptimizer's `meshopt_optimizeVertexCache` and
//! `meshopt_optimizeVertexCacheStrip` (`src/vcacheoptimizer.cpp`, MIT licence, (c) Arseny
//! Kapoulkine), which is Tom Forsyth's "Linear-Speed Vertex Cache Optimisation" (2006)
//! with meshoptimizer's tuned score tables: every vertex scores by its position in a
//! simulated 16-entry LRU cache and by how many triangles it still has to emit, every
//! triangle by the sum of its vertices' scores, and the next triangle is the best-scoring
//! one among the triangles of the vertices in the cache. When none is left (a dead end)
//! the walk resumes at the first triangle not yet emitted, in input order. The
//! arithmetic (single-precision, in the same order) and the tie-breaking are the
//! reference's, so the output is the same triangle order as meshoptimizer's, triangle
//! for triangle.
//!
//! Triangles are moved, never rotated or dropped; degenerate triangles are kept.

use std::fmt;

/// An index list that a vertex cache or vertex fetch optimization cannot take: an index
/// at or past the vertex count, or a triangle list that ends mid-triangle.
///
/// When the list ends mid-triangle, `position` is `indices.len()` (where the missing
/// index would be) and `index` is `u32::MAX`.
///
/// ```
/// use meshfmt_meshopt::{InvalidIndex, optimize_vertex_cache};
///
/// let mut indices = [0, 1, 2, 2, 1, 7];
/// let err = optimize_vertex_cache(&mut indices, 4);
/// assert_eq!(err, Err(InvalidIndex { position: 5, index: 7, vertex_count: 4 }));
/// assert_eq!(indices, [0, 1, 2, 2, 1, 7]); // untouched on error
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InvalidIndex {
    /// Where in the index list the offending index is (or, for a list that ends
    /// mid-triangle, would be).
    pub position: usize,
    /// The offending index (`u32::MAX` for a missing one).
    pub index: u32,
    /// The vertex count the index was checked against.
    pub vertex_count: usize,
}

impl InvalidIndex {
    /// Whether this reports a list that ends mid-triangle (an index is missing) rather
    /// than an index out of range, given the length of the list that was checked.
    ///
    /// ```
    /// use meshfmt_meshopt::optimize_vertex_cache;
    ///
    /// let mut indices = [0, 1, 2, 2];
    /// let Err(err) = optimize_vertex_cache(&mut indices, 3) else {
    ///     panic!("a list of 4 indices ends mid-triangle");
    /// };
    /// assert!(err.is_incomplete_triangle(indices.len()));
    /// assert_eq!(err.position, 4);
    /// ```
    #[must_use]
    pub fn is_incomplete_triangle(&self, index_count: usize) -> bool {
        self.position >= index_count
    }
}

impl fmt::Display for InvalidIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.index == u32::MAX && self.position % 3 != 0 {
            // An out-of-range u32::MAX can sit anywhere; a missing index never sits at the
            // start of a triangle, so this reads right in both cases.
            write!(
                f,
                "the index at position {} is missing (the triangle list ends mid-triangle) \
                 or is {}, out of range for {} vertices",
                self.position, self.index, self.vertex_count
            )
        } else {
            write!(
                f,
                "index {} at position {} is out of range for {} vertices",
                self.index, self.position, self.vertex_count
            )
        }
    }
}

impl std::error::Error for InvalidIndex {}

/// Checks that every index is below `vertex_count`; returns one past the largest index
/// (0 for an empty list), which is how many vertices the optimizers need to track.
pub(crate) fn check_indices(indices: &[u32], vertex_count: usize) -> Result<usize, InvalidIndex> {
    let mut max = 0u32;
    for (position, &index) in indices.iter().enumerate() {
        if index as usize >= vertex_count {
            return Err(InvalidIndex {
                position,
                index,
                vertex_count,
            });
        }
        max = max.max(index);
    }
    Ok(if indices.is_empty() {
        0
    } else {
        max as usize + 1
    })
}

/// Checks a triangle list: whole triangles and every index below `vertex_count`.
fn check_triangles(indices: &[u32], vertex_count: usize) -> Result<usize, InvalidIndex> {
    let used = check_indices(indices, vertex_count)?;
    if indices.len() % 3 != 0 {
        return Err(InvalidIndex {
            position: indices.len(),
            index: u32::MAX,
            vertex_count,
        });
    }
    Ok(used)
}

/// The simulated cache size and the largest cache size the score tables cover.
const CACHE_SIZE: usize = 16;
/// Live triangle counts at or past this score the same.
const VALENCE_MAX: usize = 8;

/// Vertex scores: by cache position (index 0 for "not in the cache", then positions 0 to
/// 15) and by live triangle count (clamped to [`VALENCE_MAX`]).
struct ScoreTable {
    cache: [f32; 1 + CACHE_SIZE],
    live: [f32; 1 + VALENCE_MAX],
}

impl ScoreTable {
    /// `cache_position` is `None` for a vertex out of the cache.
    #[inline]
    fn score(&self, cache_position: Option<usize>, live_triangles: u32) -> f32 {
        let slot = cache_position.map_or(0, |p| p + 1);
        let live = (live_triangles as usize).min(VALENCE_MAX);
        self.cache[slot] + self.live[live]
    }
}

/// meshoptimizer's `kVertexScoreTable`: tuned to minimize the ACMR of a GPU with a cache
/// profile like NVidia's and AMD's.
static SCORE_TABLE: ScoreTable = ScoreTable {
    cache: [
        0.0, 0.779, 0.791, 0.789, 0.981, 0.843, 0.726, 0.847, 0.882, 0.867, 0.799, 0.642, 0.613,
        0.600, 0.568, 0.372, 0.234,
    ],
    live: [0.0, 0.995, 0.713, 0.450, 0.404, 0.059, 0.005, 0.147, 0.006],
};

/// meshoptimizer's `kVertexScoreTableStrip`: tuned to minimize the encoded index buffer
/// size.
static SCORE_TABLE_STRIP: ScoreTable = ScoreTable {
    cache: [
        0.0, 1.000, 1.000, 1.000, 0.453, 0.561, 0.490, 0.459, 0.179, 0.526, 0.000, 0.227, 0.184,
        0.490, 0.112, 0.050, 0.131,
    ],
    live: [0.0, 0.956, 0.786, 0.577, 0.558, 0.618, 0.549, 0.499, 0.489],
};

/// Reorders the triangles of a triangle list, in place, for the post-transform vertex
/// cache (meshoptimizer's `meshopt_optimizeVertexCache`).
///
/// Every index must be below `vertex_count` and the list must hold whole triangles;
/// otherwise the list is left as it is and the error says where it went wrong. The
/// triangles are the same afterwards, in another order; each keeps its own vertex order.
///
/// ```
/// use meshfmt_meshopt::{analyze_vertex_cache, optimize_vertex_cache};
///
/// // A 2x2-quad grid whose triangles come in a scattered order.
/// let mut indices = vec![0, 3, 1, 4, 8, 5, 4, 7, 8, 1, 4, 2, 3, 7, 4, 4, 5, 2, 1, 3, 4, 6, 7, 3];
/// let before = analyze_vertex_cache(&indices, 9, 16);
/// optimize_vertex_cache(&mut indices, 9)?;
/// assert!(analyze_vertex_cache(&indices, 9, 16) <= before);
/// assert_eq!(analyze_vertex_cache(&indices, 9, 16), 9.0 / 8.0); // each vertex once
/// # Ok::<(), meshfmt_meshopt::InvalidIndex>(())
/// ```
pub fn optimize_vertex_cache(indices: &mut [u32], vertex_count: usize) -> Result<(), InvalidIndex> {
    optimize_with_table(indices, vertex_count, &SCORE_TABLE)
}

/// Reorders the triangles of a triangle list, in place, favouring a strip-like order that
/// the index codec compresses better, at a small cost in vertex cache hits
/// (meshoptimizer's `meshopt_optimizeVertexCacheStrip`, which gltfpack's `-cc` uses).
///
/// The contract is [`optimize_vertex_cache`]'s: whole triangles, every index below
/// `vertex_count`, the list untouched on error.
///
/// ```
/// use meshfmt_meshopt::optimize_vertex_cache_strip;
///
/// let mut indices = vec![0, 1, 2, 2, 3, 4, 1, 3, 2];
/// optimize_vertex_cache_strip(&mut indices, 5)?;
/// assert_eq!(indices, [0, 1, 2, 1, 3, 2, 2, 3, 4]);
/// # Ok::<(), meshfmt_meshopt::InvalidIndex>(())
/// ```
pub fn optimize_vertex_cache_strip(
    indices: &mut [u32],
    vertex_count: usize,
) -> Result<(), InvalidIndex> {
    optimize_with_table(indices, vertex_count, &SCORE_TABLE_STRIP)
}

/// What the walk keeps of a vertex, in one record so that one cache line serves a visit.
#[derive(Clone, Copy)]
struct Vertex {
    /// Where the vertex's triangles start in [`Adjacency::data`].
    start: u32,
    /// How many of them are live (not emitted yet): emitted triangles are swapped out of
    /// their vertices' lists, so the live ones are `data[start..start + live]`.
    live: u32,
    /// The vertex's current score.
    score: f32,
}

/// Triangles adjacent to each vertex.
struct Adjacency {
    vertices: Vec<Vertex>,
    data: Vec<u32>,
}

impl Adjacency {
    /// `indices` are checked: all below `vertex_count`, whole triangles, fewer than
    /// 2^32 indices.
    fn new(indices: &[u32], vertex_count: usize, table: &ScoreTable) -> Adjacency {
        let mut vertices = vec![
            Vertex {
                start: 0,
                live: 0,
                score: 0.0,
            };
            vertex_count
        ];
        for &index in indices {
            vertices[index as usize].live += 1;
        }
        // `start` is first the end of the vertex's range: it walks back as the triangles
        // go in, and ends at the start.
        let mut end = 0u32;
        for vertex in &mut vertices {
            end += vertex.live;
            vertex.start = end;
            vertex.score = table.score(None, vertex.live);
        }
        let mut data = vec![0u32; indices.len()];
        for (triangle, corners) in (0..(indices.len() / 3) as u32)
            .zip(indices.chunks_exact(3))
            .rev()
        {
            for &index in corners.iter().rev() {
                let start = &mut vertices[index as usize].start;
                *start -= 1;
                data[*start as usize] = triangle;
            }
        }
        Adjacency { vertices, data }
    }

    /// Takes `triangle` out of `vertex`'s live triangles (the last one takes its place).
    #[inline]
    fn remove(&mut self, vertex: usize, triangle: u32) {
        let Vertex { start, live, .. } = &mut self.vertices[vertex];
        let list = &mut self.data[*start as usize..(*start + *live) as usize];
        if let Some(at) = list.iter().position(|&t| t == triangle) {
            list[at] = list[list.len() - 1];
            *live -= 1;
        }
    }
}

/// The optimization proper, with one of the score tables.
fn optimize_with_table(
    indices: &mut [u32],
    vertex_count: usize,
    table: &ScoreTable,
) -> Result<(), InvalidIndex> {
    // Vertices past the largest index have no triangles: tracking them would change
    // nothing but the memory used.
    let vertex_count = check_triangles(indices, vertex_count)?;
    let face_count = indices.len() / 3;
    if face_count == 0 {
        return Ok(());
    }
    // Positions in the adjacency lists are u32; a list of 2^32 indices or more (16 GiB)
    // is left as it is.
    if u32::try_from(indices.len()).is_err() {
        return Ok(());
    }

    let input = indices.to_vec();
    let mut adjacency = Adjacency::new(&input, vertex_count, table);

    let mut emitted = vec![false; face_count];

    let mut triangle_scores: Vec<f32> = input
        .chunks_exact(3)
        .map(|t| {
            let score = |i: u32| adjacency.vertices[i as usize].score;
            score(t[0]) + score(t[1]) + score(t[2])
        })
        .collect();

    // The simulated cache: the last emitted triangle's corners, then what was in the
    // cache before, without those; at most 3 + CACHE_SIZE entries before the cut.
    let mut cache_holder = [[0u32; CACHE_SIZE + 4]; 2];
    let mut flip = false;
    let mut cache_count = 0usize;

    let mut current = 0usize;
    let mut input_cursor = 1usize;

    for output in indices.chunks_exact_mut(3) {
        let corners = [
            input[current * 3],
            input[current * 3 + 1],
            input[current * 3 + 2],
        ];
        let [a, b, c] = corners;
        output.copy_from_slice(&corners);

        emitted[current] = true;
        triangle_scores[current] = 0.0;

        let [first, second] = &mut cache_holder;
        let (cache_old, cache) = if flip {
            (second, first)
        } else {
            (first, second)
        };
        flip = !flip;

        cache[0] = a;
        cache[1] = b;
        cache[2] = c;
        let mut cache_write = 3usize;
        for &index in &cache_old[..cache_count] {
            cache[cache_write] = index;
            cache_write += usize::from((index != a) & (index != b) & (index != c));
        }
        cache_count = cache_write.min(CACHE_SIZE);

        // Emitted triangles leave the adjacency lists: later walks are shorter and the
        // live triangle counts follow.
        let current_u32 = current as u32;
        for &index in &corners {
            adjacency.remove(index as usize, current_u32);
        }

        let mut best_triangle = None;
        let mut best_score = 0.0f32;

        for (position, &index) in cache[..cache_write].iter().enumerate() {
            let vertex = &mut adjacency.vertices[index as usize];
            // A vertex with nothing left to emit never matters again.
            if vertex.live == 0 {
                continue;
            }
            let cache_position = (position < CACHE_SIZE).then_some(position);
            let score = table.score(cache_position, vertex.live);
            let score_diff = score - vertex.score;
            vertex.score = score;

            let (start, live) = (vertex.start as usize, vertex.live as usize);
            for &triangle in &adjacency.data[start..start + live] {
                let slot = &mut triangle_scores[triangle as usize];
                let triangle_score = *slot + score_diff;
                if best_score < triangle_score {
                    best_triangle = Some(triangle as usize);
                    best_score = triangle_score;
                }
                *slot = triangle_score;
            }
        }

        current = match best_triangle {
            Some(triangle) => triangle,
            None => {
                // Dead end: the first triangle not yet emitted, in input order.
                while input_cursor < face_count && emitted[input_cursor] {
                    input_cursor += 1;
                }
                if input_cursor == face_count {
                    // Everything is out (this was the last triangle).
                    break;
                }
                input_cursor
            }
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_single() {
        let mut none: [u32; 0] = [];
        assert_eq!(optimize_vertex_cache(&mut none, 0), Ok(()));
        let mut one = [2, 1, 0];
        assert_eq!(optimize_vertex_cache(&mut one, 3), Ok(()));
        assert_eq!(one, [2, 1, 0]);
    }

    #[test]
    fn incomplete_triangle() {
        let mut indices = [0, 1, 2, 0];
        let err = optimize_vertex_cache_strip(&mut indices, 3).unwrap_err();
        assert_eq!(
            err,
            InvalidIndex {
                position: 4,
                index: u32::MAX,
                vertex_count: 3
            }
        );
        assert!(err.to_string().contains("mid-triangle"));
    }

    #[test]
    fn out_of_range_first() {
        let mut indices = [0, 1];
        let err = optimize_vertex_cache(&mut indices, 1).unwrap_err();
        assert_eq!(err.position, 1);
        assert!(!err.is_incomplete_triangle(2));
        assert_eq!(
            err.to_string(),
            "index 1 at position 1 is out of range for 1 vertices"
        );
    }

    #[test]
    fn degenerate_triangles_kept() -> Result<(), InvalidIndex> {
        let mut indices = [0, 0, 0, 0, 1, 1, 1, 2, 3, 3, 3, 3];
        let mut sorted_before: Vec<[u32; 3]> = indices
            .chunks_exact(3)
            .map(|t| [t[0], t[1], t[2]])
            .collect();
        optimize_vertex_cache(&mut indices, 4)?;
        let mut sorted_after: Vec<[u32; 3]> = indices
            .chunks_exact(3)
            .map(|t| [t[0], t[1], t[2]])
            .collect();
        sorted_before.sort_unstable();
        sorted_after.sort_unstable();
        assert_eq!(sorted_before, sorted_after);
        Ok(())
    }
}
