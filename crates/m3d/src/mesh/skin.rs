//! A vertex's skin between meshfmt-core and M3D: core's influences as the skin bytes a
//! MESH surface's vertices are stored with, and back.

use meshfmt_core::skin::VertexInfluences;

use crate::types::{Idx, Skin};

/// A skin as core's influences: weight bytes / 255, renormalised (one bone at weight 1
/// when `nb` is 1).
pub(crate) fn influences(s: &Skin, nb: usize) -> VertexInfluences {
    if nb == 1 {
        return VertexInfluences::single(s.bones.first().and_then(|b| b.get()).unwrap_or(0));
    }
    let ws = s.weights.iter().filter(|w| **w != 0);
    let mut vi = VertexInfluences::from_pairs_strongest(
        s.bones
            .iter()
            .zip(ws)
            .filter_map(|(b, w)| Some((b.get()?, f32::from(*w) / 255.0))),
    );
    vi.normalize();
    vi
}

/// A vertex's influences as M3D skin bytes, and the worst difference they make to a
/// weight once read back. The format wants the bytes of a point to sum to 255 and readers
/// (m3d.h, ours) divide by 255 and renormalise, so the weights (normalised) are shared
/// out by largest remainder: each byte is within one step of its share, and the sum is
/// exactly 255 (rounding each alone can miss it by several steps, which renormalising
/// then spreads over every weight). A weight whose share rounds to no byte is not
/// stored (the format keeps no bone for a zero weight).
pub(crate) fn skin_of(inf: &VertexInfluences) -> (Skin, f32) {
    let pairs: Vec<(u32, f32)> = inf.pairs().collect();
    // Negative or non-finite weights count as nothing; all nothing shares equally.
    let usable = |w: f32| {
        if w.is_finite() && w > 0.0 {
            f64::from(w)
        } else {
            0.0
        }
    };
    let total: f64 = pairs.iter().map(|p| usable(p.1)).sum();
    let share = |w: f32| -> f64 {
        if total > 0.0 && total.is_finite() {
            usable(w) / total * 255.0
        } else {
            255.0 / pairs.len() as f64
        }
    };
    let shares: Vec<f64> = pairs.iter().map(|p| share(p.1)).collect();
    let mut bytes: Vec<u8> = shares
        .iter()
        .map(|s| s.floor().clamp(0.0, 255.0) as u8)
        .collect();
    // The steps left go to the largest remainders (ties to the earlier pair).
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| {
        let rem = |i: usize| shares.get(i).copied().unwrap_or(0.0) - bytes_at(&bytes, i);
        rem(b).total_cmp(&rem(a)).then(a.cmp(&b))
    });
    let sum: u32 = bytes.iter().map(|b| u32::from(*b)).sum();
    let left = 255u32.saturating_sub(sum) as usize;
    for &i in order.iter().cycle().take(left) {
        if let Some(b) = bytes.get_mut(i) {
            *b = b.saturating_add(1);
        }
    }
    let mut weights = vec![0u8; 8];
    let mut bones = Vec::new();
    for ((j, _), b) in pairs.iter().zip(&bytes).filter(|(_, b)| **b != 0) {
        if let Some(slot) = weights.get_mut(bones.len()) {
            *slot = *b;
            bones.push(Idx(*j));
        }
    }
    // What the reader makes of them (convert.rs): byte / 255, renormalised.
    let mut back = VertexInfluences::from_pairs_strongest(
        bones
            .iter()
            .zip(weights.iter().filter(|w| **w != 0))
            .map(|(b, w)| (b.0, f32::from(*w) / 255.0)),
    );
    back.normalize();
    // Compared joint by joint, a joint missing on one side weighing 0.
    let weight_of =
        |v: &[(u32, f32)], j: u32| -> f32 { v.iter().filter(|p| p.0 == j).map(|p| p.1).sum() };
    let read: Vec<(u32, f32)> = back.pairs().collect();
    let kept = pairs.iter().map(|&(j, w)| (w - weight_of(&read, j)).abs());
    let added = read
        .iter()
        .filter(|r| !pairs.iter().any(|p| p.0 == r.0))
        .map(|&(j, _)| weight_of(&read, j));
    let error = kept.chain(added).fold(0.0f32, f32::max);
    (Skin { weights, bones }, error)
}

fn bytes_at(bytes: &[u8], i: usize) -> f64 {
    bytes.get(i).map_or(0.0, |b| f64::from(*b))
}
