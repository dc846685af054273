//! Per-vertex joint influences.

/// Most joint/weight pairs one vertex can hold here; formats with fewer truncate on
/// write and report it as a loss.
pub const MAX_INFLUENCES: usize = 8;

/// Up to [`MAX_INFLUENCES`] (joint, weight) pairs for one vertex. Unused slots have
/// weight 0 (and joint 0).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct VertexInfluences {
    /// Joint (bone) indices.
    pub joints: [u32; MAX_INFLUENCES],
    /// Weights; normally summing to 1.
    pub weights: [f32; MAX_INFLUENCES],
}

impl VertexInfluences {
    /// Builds from pairs; pairs past [`MAX_INFLUENCES`] are dropped (keep the heaviest
    /// with [`VertexInfluences::from_pairs_strongest`]).
    pub fn from_pairs(pairs: impl IntoIterator<Item = (u32, f32)>) -> Self {
        let mut v = VertexInfluences::default();
        for (slot, (j, w)) in pairs.into_iter().take(MAX_INFLUENCES).enumerate() {
            v.joints[slot] = j;
            v.weights[slot] = w;
        }
        v
    }

    /// Builds from any number of pairs, keeping the [`MAX_INFLUENCES`] heaviest, sorted
    /// by descending weight (ties keep input order).
    pub fn from_pairs_strongest(pairs: impl IntoIterator<Item = (u32, f32)>) -> Self {
        let mut all: Vec<(u32, f32)> = pairs.into_iter().collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1));
        Self::from_pairs(all)
    }

    /// A vertex bound rigidly to one joint.
    pub fn single(joint: u32) -> Self {
        Self::from_pairs([(joint, 1.0)])
    }

    /// The pairs with non-zero weight.
    pub fn pairs(&self) -> impl Iterator<Item = (u32, f32)> + '_ {
        self.joints
            .iter()
            .copied()
            .zip(self.weights.iter().copied())
            .filter(|&(_, w)| w != 0.0)
    }

    /// Number of pairs with non-zero weight.
    pub fn count(&self) -> usize {
        self.pairs().count()
    }

    /// Sum of the weights.
    pub fn weight_sum(&self) -> f32 {
        self.weights.iter().sum()
    }

    /// Scales the weights to sum to 1. Returns `false` (and changes nothing) when the
    /// sum is zero or not finite.
    pub fn normalize(&mut self) -> bool {
        let sum = self.weight_sum();
        if !(sum.is_finite() && sum > 0.0) {
            return false;
        }
        for w in &mut self.weights {
            *w /= sum;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strongest_and_normalize() {
        let pairs = (0..10).map(|j| (j, j as f32));
        let mut v = VertexInfluences::from_pairs_strongest(pairs);
        assert_eq!(v.joints[..3], [9, 8, 7]);
        assert_eq!(v.count(), 8);
        assert_eq!(v.weight_sum(), 44.0); // 9+8+...+2
        assert!(v.normalize());
        assert!((v.weight_sum() - 1.0).abs() < 1e-6);
        assert!((v.weights[0] - 9.0 / 44.0).abs() < 1e-7);
        let mut zero = VertexInfluences::default();
        assert!(!zero.normalize());
        assert_eq!(
            VertexInfluences::single(3).pairs().collect::<Vec<_>>(),
            [(3, 1.0)]
        );
    }
}
