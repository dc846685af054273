//! The loaded model's records (vertices, faces, skins, bones, voxel types, posed bones),
//! as m3d_load holds them: what the checked load, the one-pass load and the voxel
//! meshing build.

use crate::error::{Result, invalid};
use crate::types::Idx;

/// One vertex as m3d_load holds it: normalised coordinates (not multiplied by the
/// header scale), the colour resolved to RGBA (R in the low byte) and the skin index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadedVertex {
    /// x, y, z, w (w: 1 for positions, 0 for normals, the scalar part of quaternions).
    pub xyzw: [f32; 4],
    /// RGBA, R in the low byte; 0 when there is none.
    pub color: u32,
    /// Skin index; [`Idx::UNDEF`] for none, [`Idx::MAX`] (-2) marks a quaternion.
    pub skin: Idx,
}

/// One triangle as m3d_load holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadedFace {
    /// Index into [`Loaded::materials`](crate::Loaded::materials), or [`Idx::UNDEF`].
    pub material: Idx,
    /// Position vertices.
    pub vertex: [Idx; 3],
    /// Texture coordinates (into [`Loaded::tmap`](crate::Loaded::tmap)), or [`Idx::UNDEF`].
    pub uv: [Idx; 3],
    /// Normal vertices, or [`Idx::UNDEF`].
    pub normal: [Idx; 3],
}

/// One skin: up to 8 bone ids with weights, in the file's slot order; a slot whose
/// weight byte was 0 has [`Idx::UNDEF`] and weight 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadedSkin {
    /// Bone ids.
    pub bones: [Idx; 8],
    /// Weights, normalised to sum to 1 as m3d_load does.
    pub weights: [f32; 8],
}

/// One bone after loading.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedBone {
    /// Name.
    pub name: String,
    /// Parent bone or [`Idx::UNDEF`].
    pub parent: Idx,
    /// Position vertex.
    pub pos: Idx,
    /// Orientation vertex.
    pub ori: Idx,
    /// `(vertex, weight)` of every vertex this bone moves ([`Loaded::cross_reference_weights`](crate::Loaded::cross_reference_weights)).
    pub weights: Vec<(u32, f32)>,
    /// The inverse bind matrix, row-major ([`Loaded::bind_matrices`](crate::Loaded::bind_matrices)); identity before.
    pub inverse_bind: [f32; 16],
}

/// What a voxel type contributes to the meshed voxels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadedVoxelType {
    /// RGBA.
    pub color: u32,
    /// Skin index or [`Idx::UNDEF`].
    pub skin: Idx,
    /// The material of the same name, or [`Idx::UNDEF`].
    pub material: Idx,
}

/// One bone of an interpolated pose ([`Loaded::pose`](crate::Loaded::pose)(crate::Loaded::pose)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoseBone {
    /// Position relative to the parent (normalised units).
    pub pos: [f32; 3],
    /// Orientation quaternion x, y, z, w.
    pub ori: [f32; 4],
    /// Model-space pose matrix, row-major (skinning matrix = this times the inverse bind
    /// matrix).
    pub matrix: [f32; 16],
}

/// `n` as a vertex index, or an error naming `what` (indices are u32 below the
/// sentinels).
pub(crate) fn vertex_idx(n: usize, what: &str) -> Result<Idx> {
    u32::try_from(n)
        .ok()
        .filter(|v| *v < Idx::MAX.0)
        .map(Idx)
        .ok_or_else(|| invalid(format!("{what}: vertex {n} past what an index holds")))
}

/// The identity matrix, row-major (a bone's inverse bind matrix before it is made).
pub(crate) const IDENTITY: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

/// A skin from its stored weight bytes and the bone ids of its non-zero weights (one id
/// and no weights when `nb` is 1).
pub(crate) fn skin_of(nb: usize, weights: &[u8], mut ids: impl Iterator<Item = Idx>) -> LoadedSkin {
    let mut out = LoadedSkin {
        bones: [Idx::UNDEF; 8],
        weights: [0.0; 8],
    };
    if nb <= 1 || weights.is_empty() {
        out.bones[0] = ids.next().unwrap_or(Idx::UNDEF);
        out.weights[0] = 1.0;
        return out;
    }
    for (slot, w) in weights.iter().enumerate().take(8) {
        if *w != 0 {
            out.bones[slot] = ids.next().unwrap_or(Idx::UNDEF);
            out.weights[slot] = f32::from(*w) / 255.0;
        }
    }
    let sum: f32 = out.weights.iter().sum();
    if sum != 1.0 && sum != 0.0 {
        for w in &mut out.weights {
            *w /= sum;
        }
    }
    out
}
