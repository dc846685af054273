//! What the integration tests share.

use unigine_mesh::Bounds;
use unigine_mesh::ms1x::{MorphTarget, Surface};

/// A surface named `s` with one unnamed morph target of `vertices` and `tangents`
/// identity tangents, bounds fitting the vertices, no weights, UVs or colours.
pub fn surface(
    vertices: Vec<[f32; 3]>,
    tangents: usize,
    cindices: Vec<u32>,
    tindices: Vec<u32>,
) -> Surface {
    Surface {
        name: "s".into(),
        bounds: Bounds::of_vertices(&vertices),
        lightmap: [0, 0],
        morph_targets: vec![MorphTarget {
            name: Default::default(),
            vertices,
            tangents: vec![[0, 0, 0, 32767]; tangents],
        }],
        weights: Vec::new(),
        uv0: Vec::new(),
        uv1: Vec::new(),
        colors: Vec::new(),
        cindices,
        tindices,
    }
}
