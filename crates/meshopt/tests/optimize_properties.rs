//! Properties of the vertex cache and vertex fetch optimizations on arbitrary index
//! lists: the triangles survive (moved, not rotated), the remap is a bijection onto the
//! used vertices in first-use order, and bad input is an error, never a panic.

use std::collections::HashSet;

use meshfmt_meshopt::{
    InvalidIndex, analyze_vertex_cache, optimize_vertex_cache, optimize_vertex_cache_strip,
    optimize_vertex_fetch_remap, remap_index_buffer, remap_vertex_buffer,
};
use proptest::prelude::*;

/// A vertex count and a triangle list whose indices are all below it.
fn mesh() -> impl Strategy<Value = (usize, Vec<u32>)> {
    (1usize..80).prop_flat_map(|vertex_count| {
        let triangle = prop::array::uniform3(0..vertex_count as u32);
        (
            Just(vertex_count),
            prop::collection::vec(triangle, 0..120).prop_map(|t| t.concat()),
        )
    })
}

fn sorted_triangles(indices: &[u32]) -> Vec<[u32; 3]> {
    let mut triangles: Vec<[u32; 3]> = indices
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    triangles.sort_unstable();
    triangles
}

type Optimizer = fn(&mut [u32], usize) -> Result<(), InvalidIndex>;

const OPTIMIZERS: [(&str, Optimizer); 2] = [
    ("vcache", optimize_vertex_cache),
    ("strip", optimize_vertex_cache_strip),
];

/// Where the first bad index is, as the optimizers report it.
fn expected_error(indices: &[u32], vertex_count: usize, triangles: bool) -> Option<InvalidIndex> {
    if let Some(position) = indices.iter().position(|&i| i as usize >= vertex_count) {
        return Some(InvalidIndex {
            position,
            index: indices[position],
            vertex_count,
        });
    }
    (triangles && indices.len() % 3 != 0).then_some(InvalidIndex {
        position: indices.len(),
        index: u32::MAX,
        vertex_count,
    })
}

proptest! {
    #[test]
    fn optimized_lists_hold_the_same_triangles((vertex_count, indices) in mesh()) {
        for (name, optimize) in OPTIMIZERS {
            let mut out = indices.clone();
            prop_assert_eq!(optimize(&mut out, vertex_count), Ok(()), "{}", name);
            prop_assert_eq!(sorted_triangles(&out), sorted_triangles(&indices), "{}", name);
            // Never worse than 3 misses a triangle, and the first triangle stays first.
            prop_assert!(analyze_vertex_cache(&out, vertex_count, 16) <= 3.0);
            prop_assert_eq!(out.get(..3), indices.get(..3));
        }
    }

    #[test]
    fn fetch_remap_is_a_first_use_bijection((vertex_count, indices) in mesh()) {
        let (remap, unique) = optimize_vertex_fetch_remap(&indices, vertex_count).unwrap();
        prop_assert_eq!(remap.len(), vertex_count);
        let used: HashSet<u32> = indices.iter().copied().collect();
        prop_assert_eq!(unique, used.len());
        let mut seen = HashSet::new();
        for (old, &new) in remap.iter().enumerate() {
            if used.contains(&(old as u32)) {
                prop_assert!((new as usize) < unique);
                prop_assert!(seen.insert(new), "{} taken twice", new);
            } else {
                prop_assert_eq!(new, u32::MAX);
            }
        }
        // First use order: the remapped list introduces 0, 1, 2, ... in turn.
        let mut remapped = indices.clone();
        remap_index_buffer(&mut remapped, &remap);
        let mut next = 0;
        for &index in &remapped {
            prop_assert!(index <= next);
            if index == next {
                next += 1;
            }
        }
        // The vertices follow their indices.
        let vertices: Vec<usize> = (0..vertex_count).collect();
        let moved = remap_vertex_buffer(&vertices, &remap, unique);
        prop_assert_eq!(moved.len(), unique);
        for (&old, &new) in indices.iter().zip(&remapped) {
            prop_assert_eq!(moved[new as usize], old as usize);
        }
    }

    #[test]
    fn bad_indices_are_errors(
        vertex_count in 0usize..40,
        indices in prop::collection::vec(prop_oneof![0u32..45, any::<u32>()], 0..60),
    ) {
        for (name, optimize) in OPTIMIZERS {
            let mut out = indices.clone();
            let result = optimize(&mut out, vertex_count);
            match expected_error(&indices, vertex_count, true) {
                Some(err) => {
                    prop_assert_eq!(result, Err(err), "{}", name);
                    prop_assert_eq!(&out, &indices, "{}: changed on error", name);
                    prop_assert!(!err.to_string().is_empty());
                }
                None => prop_assert_eq!(result, Ok(()), "{}", name),
            }
        }
        let fetch = optimize_vertex_fetch_remap(&indices, vertex_count);
        match expected_error(&indices, vertex_count, false) {
            Some(err) => prop_assert_eq!(fetch, Err(err)),
            None => prop_assert!(fetch.is_ok()),
        }
        let acmr = analyze_vertex_cache(&indices, vertex_count, 16);
        prop_assert!((0.0..=3.0).contains(&acmr));
    }

    #[test]
    fn remaps_of_any_shape_never_panic(
        indices in prop::collection::vec(0u32..50, 0..40),
        remap in prop::collection::vec(prop_oneof![0u32..50, Just(u32::MAX), any::<u32>()], 0..40),
        vertices in prop::collection::vec(any::<u16>(), 0..40),
        unique in 0usize..60,
    ) {
        let mut out = indices.clone();
        remap_index_buffer(&mut out, &remap);
        for (&old, &new) in indices.iter().zip(&out) {
            prop_assert_eq!(new, remap.get(old as usize).copied().unwrap_or(u32::MAX));
        }
        let moved = remap_vertex_buffer(&vertices, &remap, unique);
        prop_assert_eq!(moved.len(), if vertices.is_empty() { 0 } else { unique });
    }
}
