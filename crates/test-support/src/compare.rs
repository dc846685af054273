//! Float comparison with a stated bound.

use meshfmt_core::glam::{Vec2, Vec3, Vec4};

/// Asserts `|a[i] - b[i]| <= bound` for all `i` (and equal lengths), naming the first
/// offending index (NaN never passes).
pub fn assert_close(what: &str, a: &[f32], b: &[f32], bound: f32) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let e = (x - y).abs();
        assert!(
            e <= bound,
            "{what}[{i}]: {x} vs {y}, error {e} > bound {bound}"
        );
    }
}

macro_rules! close_vec {
    ($name:ident, $t:ty) => {
        /// Component-wise [`assert_close`] for glam vectors.
        pub fn $name(what: &str, a: &[$t], b: &[$t], bound: f32) {
            let fa: Vec<f32> = a.iter().flat_map(|v| v.to_array()).collect();
            let fb: Vec<f32> = b.iter().flat_map(|v| v.to_array()).collect();
            assert_close(what, &fa, &fb, bound);
        }
    };
}
close_vec!(assert_close_vec2, Vec2);
close_vec!(assert_close_vec3, Vec3);
close_vec!(assert_close_vec4, Vec4);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_and_outside() {
        assert_close("x", &[1.0, 2.0], &[1.0005, 2.0], 1e-3);
        let r = std::panic::catch_unwind(|| assert_close("x", &[1.0], &[1.1], 1e-3));
        assert!(r.is_err());
        let r = std::panic::catch_unwind(|| assert_close("x", &[f32::NAN], &[1.0], 1e-3));
        assert!(r.is_err());
        assert_close_vec3("v", &[Vec3::ONE], &[Vec3::ONE], 0.0);
    }
}
