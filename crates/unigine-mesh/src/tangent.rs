//! Tangent frames as unit quaternions (notes 5): normal = q * Z, tangent = q * X,
//! binormal = sign * (q * Y).
//!
//! ms11 stores `q` as `i16[4] / 32767` and the sign as the sign of `w`; ms10 stores
//! `x, y, z` (with `w >= 0` implied) and the sign as an `i8` of +-127.
//! In meshfmt-core terms, `bitangent = w * normal.cross(tangent)` with `w = sign`,
//! because `cross(q Z, q X) = q Y`.

use meshfmt_core::glam::{Mat3, Quat, Vec3, Vec4};

use crate::ms1x::Ms1xVersion;

/// Worst-case error of one decoded quaternion component (`round(q * 32767)`): half a
/// step. Normals and tangents rotate by at most about twice that per component.
pub const COMPONENT_MAX_ERROR: f32 = 0.5 / 32767.0;

/// Worst-case error of one component of an `i16 / 32767` quaternion that is
/// renormalized when read. The stored q' = q + e has |e_i| <= h (h = half a step), so
/// | |q'| - 1 | <= |e| <= 2h over four components, and
/// |q'_i / |q'| - q_i| <= |q'_i| * |1 - 1/|q'|| + |e_i| <= (1 + h) * 2h / (1 - 2h) + h:
/// about three half-steps, the renormalization moving a component by twice the rounding.
pub const RENORMALIZED_COMPONENT_MAX_ERROR: f32 = {
    let h = COMPONENT_MAX_ERROR;
    (1.0 + h) * 2.0 * h / (1.0 - 2.0 * h) + h
};

/// The stored tangent decoded: `(rotation, sign)`.
pub fn decode(version: Ms1xVersion, t: [i16; 4]) -> (Quat, f32) {
    let c = |v: i16| f32::from(v) / 32767.0;
    let (x, y, z) = (c(t[0]), c(t[1]), c(t[2]));
    let (w, sign) = match version {
        Ms1xVersion::Ms11 | Ms1xVersion::Ms13 => (c(t[3]), if t[3] < 0 { -1.0 } else { 1.0 }),
        Ms1xVersion::Ms10 => (
            (1.0 - x * x - y * y - z * z).max(0.0).sqrt(),
            if t[3] < 0 { -1.0 } else { 1.0 },
        ),
    };
    let q = Quat::from_xyzw(x, y, z, w);
    let q = meshfmt_core::unit_quat_or_identity(q);
    (q, sign)
}

/// The normal and the core tangent (xyz, handedness in w) of a stored tangent.
pub fn to_normal_tangent(version: Ms1xVersion, t: [i16; 4]) -> (Vec3, Vec4) {
    let (q, sign) = decode(version, t);
    (q * Vec3::Z, (q * Vec3::X).extend(sign))
}

/// Encodes a normal and a core tangent. The tangent is made orthogonal to the normal
/// first; a missing or degenerate one is replaced by any perpendicular vector.
pub fn encode(version: Ms1xVersion, normal: Vec3, tangent: Vec4) -> [i16; 4] {
    let n = normal.normalize_or(Vec3::Z);
    let t = (tangent.truncate() - n * n.dot(tangent.truncate())).normalize_or_zero();
    let t = if t == Vec3::ZERO {
        n.any_orthonormal_vector()
    } else {
        t
    };
    let b = n.cross(t);
    let mut q = Quat::from_mat3(&Mat3::from_cols(t, b, n)).normalize();
    if q.w < 0.0 {
        q = -q;
    }
    let negative = tangent.w < 0.0;
    let s = |v: f32| (v.clamp(-1.0, 1.0) * 32767.0).round() as i16;
    match version {
        Ms1xVersion::Ms11 | Ms1xVersion::Ms13 => {
            // The sign rides on w: the same rotation as -q. A w that rounds to 0 would
            // lose the sign (0 reads as +1): store -1 instead, a rotation error of at
            // most 1.5 steps in w.
            let q = if negative { -q } else { q };
            let w = match s(q.w) {
                0 if negative => -1,
                w => w,
            };
            [s(q.x), s(q.y), s(q.z), w]
        }
        Ms1xVersion::Ms10 => [s(q.x), s(q.y), s(q.z), if negative { -127 } else { 127 }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_is_z_normal_x_tangent() {
        let (n, t) = to_normal_tangent(Ms1xVersion::Ms11, [0, 0, 0, 32767]);
        assert_eq!((n, t), (Vec3::Z, Vec4::new(1.0, 0.0, 0.0, 1.0)));
        let (n, t) = to_normal_tangent(Ms1xVersion::Ms11, [0, 0, 0, -32767]);
        assert_eq!((n, t), (Vec3::Z, Vec4::new(1.0, 0.0, 0.0, -1.0)));
        let (n, t) = to_normal_tangent(Ms1xVersion::Ms10, [0, 0, 0, -127]);
        assert_eq!((n, t.w), (Vec3::Z, -1.0));
    }

    #[test]
    fn a_negative_sign_survives_a_w_that_rounds_to_zero() {
        // Normal +Z, tangent -X: the frame (-X, -Y, Z) is half a turn about Z, q = (0, 0,
        // +-1, 0). With the sign on w, w = -0 would be stored as 0 and read as +1.
        let negative = Vec4::new(-1.0, 0.0, 0.0, -1.0);
        for v in [Ms1xVersion::Ms11, Ms1xVersion::Ms13] {
            let stored = encode(v, Vec3::Z, negative);
            assert_eq!(
                (stored[0], stored[1], stored[2].abs(), stored[3]),
                (0, 0, 32767, -1)
            );
            // w = -1/32767 turns the frame by about 2/32767 rad: vectors move ~6e-5.
            let (n, t) = to_normal_tangent(v, stored);
            assert_eq!(t.w, -1.0);
            assert!(n.abs_diff_eq(Vec3::Z, 1e-4), "{n}");
            assert!(t.truncate().abs_diff_eq(-Vec3::X, 1e-4), "{t}");
            // The same frame with a positive sign keeps its w of 0 (read as +1).
            assert_eq!(encode(v, Vec3::Z, negative.with_w(1.0))[3], 0);
        }
    }

    #[test]
    fn encode_decode_round_trip() {
        let frames = [
            (Vec3::Y, Vec4::new(1.0, 0.0, 0.0, 1.0)),
            (Vec3::new(0.0, -0.6, 0.8), Vec4::new(1.0, 0.0, 0.0, -1.0)),
            (-Vec3::Z, Vec4::new(0.0, 1.0, 0.0, 1.0)),
            (
                Vec3::new(0.3, 0.4, -0.866).normalize(),
                Vec4::new(0.8, -0.6, 0.0, -1.0),
            ),
        ];
        for v in [Ms1xVersion::Ms10, Ms1xVersion::Ms11] {
            for (n, t) in frames {
                let stored = encode(v, n, t);
                let (n2, t2) = to_normal_tangent(v, stored);
                assert!(n2.abs_diff_eq(n, 1e-4), "{v:?} {n} -> {n2}");
                let t_orth = (t.truncate() - n * n.dot(t.truncate())).normalize();
                assert!(t2.truncate().abs_diff_eq(t_orth, 1e-4), "{v:?} {t} -> {t2}");
                assert_eq!(t2.w, t.w);
                // Re-encoding the decoded frame gives the same shorts.
                assert_eq!(encode(v, n2, t2), stored, "{v:?}");
            }
        }
    }
}
