//! Coordinate systems and conversion between them.
//!
//! A system is an up axis, a handedness and a unit. Conversions keep +X fixed, map up
//! to up, and pick the third axis by handedness, so every conversion is a signed axis
//! permutation (times a unit scale). The canonical frame is glTF's: +Y up, right-handed,
//! meters.
//!
//! | system | +X | +Y | +Z | examples |
//! |---|---|---|---|---|
//! | Y-up right-handed | right | up | toward the viewer | glTF, OpenGL, Vitaboy as drawn |
//! | Y-up left-handed | right | up | away from the viewer | Unity, Direct3D |
//! | Z-up right-handed | right | away (forward) | up | UNIGINE, Blender, M3D |
//! | Z-up left-handed | right | toward the viewer | up | |

use glam::{Mat3, Mat4, Quat, Vec3, Vec4};

/// Which axis points up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum UpAxis {
    /// +Y is up.
    #[default]
    Y,
    /// +Z is up.
    Z,
}

/// Handedness of the axes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Handedness {
    /// X cross Y = Z with the right hand.
    #[default]
    Right,
    /// X cross Y = Z with the left hand.
    Left,
}

/// The frame positions, directions and transforms are expressed in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoordinateSystem {
    /// Up axis.
    pub up: UpAxis,
    /// Handedness.
    pub handedness: Handedness,
    /// Length of one unit in meters (1.0 = meters, 0.01 = centimeters).
    pub meters_per_unit: f32,
}

impl CoordinateSystem {
    /// glTF: +Y up, right-handed, meters.
    pub const GLTF: CoordinateSystem = CoordinateSystem {
        up: UpAxis::Y,
        handedness: Handedness::Right,
        meters_per_unit: 1.0,
    };

    /// UNIGINE (and Blender): +Z up, right-handed, meters.
    pub const Z_UP_RIGHT: CoordinateSystem = CoordinateSystem {
        up: UpAxis::Z,
        handedness: Handedness::Right,
        meters_per_unit: 1.0,
    };

    /// Unity: +Y up, left-handed, meters.
    pub const Y_UP_LEFT: CoordinateSystem = CoordinateSystem {
        up: UpAxis::Y,
        handedness: Handedness::Left,
        meters_per_unit: 1.0,
    };

    /// Maps this system's coordinates into the canonical (glTF) axes, unit scale aside.
    fn to_canonical(self) -> Mat3 {
        match (self.up, self.handedness) {
            (UpAxis::Y, Handedness::Right) => Mat3::IDENTITY,
            // (x, y, z) -> (x, y, -z)
            (UpAxis::Y, Handedness::Left) => Mat3::from_diagonal(Vec3::new(1.0, 1.0, -1.0)),
            // (x, y, z) -> (x, z, -y): forward (+Y) becomes -Z, up (+Z) becomes +Y.
            (UpAxis::Z, Handedness::Right) => {
                Mat3::from_cols(Vec3::X, Vec3::new(0.0, 0.0, -1.0), Vec3::Y)
            }
            // (x, y, z) -> (x, z, y)
            (UpAxis::Z, Handedness::Left) => Mat3::from_cols(Vec3::X, Vec3::Z, Vec3::Y),
        }
    }

    /// The conversion from `self` to `target`.
    ///
    /// ```
    /// use meshfmt_core::{glam::Vec3, CoordinateSystem};
    /// let c = CoordinateSystem::Z_UP_RIGHT.conversion_to(&CoordinateSystem::GLTF);
    /// // UNIGINE's up (+Z) is glTF's up (+Y); its forward (+Y) is glTF's -Z.
    /// assert_eq!(c.point(Vec3::Z), Vec3::Y);
    /// assert_eq!(c.point(Vec3::Y), -Vec3::Z);
    /// assert!(!c.flips_winding());
    /// ```
    pub fn conversion_to(&self, target: &CoordinateSystem) -> Conversion {
        let basis = target.to_canonical().transpose() * self.to_canonical();
        let scale = if target.meters_per_unit > 0.0 && self.meters_per_unit > 0.0 {
            self.meters_per_unit / target.meters_per_unit
        } else {
            1.0
        };
        Conversion { basis, scale }
    }
}

impl Default for CoordinateSystem {
    fn default() -> Self {
        CoordinateSystem::GLTF
    }
}

/// A change of frame: an orthonormal basis change (a signed axis permutation) and a
/// uniform unit scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Conversion {
    /// Orthonormal, determinant +1 or -1.
    pub basis: Mat3,
    /// Unit scale applied to lengths (positions, translations), not to directions.
    pub scale: f32,
}

impl Conversion {
    /// True when the basis is a reflection (handedness changes): triangle winding and
    /// tangent handedness must flip to keep faces and bitangents right.
    pub fn flips_winding(&self) -> bool {
        self.basis.determinant() < 0.0
    }

    /// Appends a surface's triangle `indices` to `merged`, offset by `base` (the
    /// vertices already merged; saturating) and with each whole triangle's winding
    /// reversed when this conversion [flips it](Conversion::flips_winding): the index
    /// step of merging surfaces into one mesh in another frame.
    ///
    /// ```
    /// use meshfmt_core::CoordinateSystem;
    /// let mirror = CoordinateSystem::Y_UP_LEFT.conversion_to(&CoordinateSystem::GLTF);
    /// let mut merged = vec![0, 1, 2];
    /// mirror.append_indices(&mut merged, &[0, 1, 2], 3);
    /// assert_eq!(merged, [0, 1, 2, 3, 5, 4]);
    /// ```
    pub fn append_indices(&self, merged: &mut Vec<u32>, indices: &[u32], base: u32) {
        let from = merged.len();
        merged.extend(indices.iter().map(|i| i.saturating_add(base)));
        if self.flips_winding() {
            for tri in merged[from..].chunks_exact_mut(3) {
                tri.swap(1, 2);
            }
        }
    }

    /// A position or translation.
    pub fn point(&self, p: Vec3) -> Vec3 {
        self.basis * p * self.scale
    }

    /// A direction (normal, tangent xyz): rotated or reflected, not scaled.
    pub fn direction(&self, d: Vec3) -> Vec3 {
        self.basis * d
    }

    /// A tangent with handedness in w; w flips under a reflection because
    /// `cross(M n, M t) = det(M) M cross(n, t)`.
    pub fn tangent(&self, t: Vec4) -> Vec4 {
        let w = if self.flips_winding() { -t.w } else { t.w };
        self.direction(t.truncate()).extend(w)
    }

    /// A rotation: `M R M^-1`, which is a proper rotation even when `M` reflects. The
    /// rotation about axis `a` by `t` becomes the rotation about `M a` by `det(M) t`, so
    /// the quaternion is `(det(M) M q.xyz, q.w)`: exact (bit for bit) for the signed axis
    /// permutations between coordinate systems.
    pub fn rotation(&self, q: Quat) -> Quat {
        let v = self.basis * Vec3::new(q.x, q.y, q.z);
        let v = if self.flips_winding() { -v } else { v };
        Quat::from_xyzw(v.x, v.y, v.z, q.w)
    }

    /// A per-axis scale: permuted with the axes (signs dropped).
    pub fn scale_vector(&self, s: Vec3) -> Vec3 {
        let b = self.basis;
        // Row i of a signed permutation has one non-zero entry, at the source axis.
        Vec3::new(
            b.row(0).abs().dot(s),
            b.row(1).abs().dot(s),
            b.row(2).abs().dot(s),
        )
    }

    /// An affine matrix expressed in the source frame (a bone's world or inverse bind
    /// matrix): `A X A^-1` with `A = scale * basis`.
    pub fn matrix(&self, m: Mat4) -> Mat4 {
        let a = Mat4::from_mat3(self.basis * self.scale);
        let a_inv = Mat4::from_mat3(self.basis.transpose() / self.scale);
        a * m * a_inv
    }
}

impl crate::Model {
    /// Re-expresses everything in `target`: positions, normals, tangents (handedness
    /// flipped under a reflection), morph targets, bone rest transforms and inverse
    /// binds, animation keys; triangle winding is reversed under a reflection so front
    /// faces stay front faces. A model already in `target` is left as it is, bit for bit.
    ///
    /// ```
    /// use meshfmt_core::{glam::Vec3, CoordinateSystem, Model, Surface};
    /// let mut m = Model {
    ///     coordinate_system: CoordinateSystem::Y_UP_LEFT,
    ///     surfaces: vec![Surface { positions: vec![Vec3::Z; 3], indices: vec![0, 1, 2], ..Default::default() }],
    ///     ..Default::default()
    /// };
    /// m.convert_to(CoordinateSystem::GLTF);
    /// assert_eq!(m.surfaces[0].positions[0], -Vec3::Z);
    /// assert_eq!(m.surfaces[0].indices, [0, 2, 1]);
    /// ```
    pub fn convert_to(&mut self, target: CoordinateSystem) {
        self.convert_in_place(target);
    }

    /// A copy of the model in `target`'s coordinate system, the copy charged to `budget`
    /// first (what a writer does before encoding a borrowed model).
    ///
    /// ```
    /// use meshfmt_core::{Budget, CoordinateSystem, Limits, Model};
    /// let m = Model::default();
    /// let copy = m.copy_in(CoordinateSystem::GLTF, &Budget::new(Limits::DEFAULT))?;
    /// assert_eq!(copy.coordinate_system, CoordinateSystem::GLTF);
    /// # Ok::<(), meshfmt_core::BudgetExceeded>(())
    /// ```
    pub fn copy_in(
        &self,
        target: CoordinateSystem,
        budget: &parsing_primitives::Budget,
    ) -> Result<Self, parsing_primitives::BudgetExceeded> {
        budget.charge("model copy", self.heap_bytes())?;
        let mut m = self.clone();
        m.convert_in_place(target);
        Ok(m)
    }

    /// The model in `target`'s coordinate system: the model itself when it is already
    /// in it (values untouched bit for bit, -0.0 and NaN included, nothing charged),
    /// else a copy, charged to `budget` first ([`copy_in`](Self::copy_in)). A writer
    /// whose format shares the model's frame then encodes it without a second copy of
    /// every array.
    ///
    /// ```
    /// use std::borrow::Cow;
    /// use meshfmt_core::{Budget, CoordinateSystem, Limits, Model};
    /// let m = Model { coordinate_system: CoordinateSystem::Z_UP_RIGHT, ..Default::default() };
    /// let budget = Budget::new(Limits::DEFAULT);
    /// assert!(matches!(m.in_system(CoordinateSystem::Z_UP_RIGHT, &budget)?, Cow::Borrowed(_)));
    /// let gltf = m.in_system(CoordinateSystem::GLTF, &budget)?;
    /// assert!(matches!(gltf, Cow::Owned(_)));
    /// assert_eq!(gltf.coordinate_system, CoordinateSystem::GLTF);
    /// # Ok::<(), meshfmt_core::BudgetExceeded>(())
    /// ```
    pub fn in_system(
        &self,
        target: CoordinateSystem,
        budget: &parsing_primitives::Budget,
    ) -> Result<std::borrow::Cow<'_, Self>, parsing_primitives::BudgetExceeded> {
        if self.coordinate_system == target {
            return Ok(std::borrow::Cow::Borrowed(self));
        }
        self.copy_in(target, budget).map(std::borrow::Cow::Owned)
    }

    fn convert_in_place(&mut self, target: CoordinateSystem) {
        // Already there: nothing to rewrite (the identity conversion would still turn
        // -0.0 into +0.0 and spread a NaN into the other components).
        if self.coordinate_system == target {
            return;
        }
        let c = self.coordinate_system.conversion_to(&target);
        self.coordinate_system = target;
        for s in &mut self.surfaces {
            s.positions.iter_mut().for_each(|p| *p = c.point(*p));
            s.normals.iter_mut().for_each(|n| *n = c.direction(*n));
            s.tangents.iter_mut().for_each(|t| *t = c.tangent(*t));
            for m in &mut s.morph_targets {
                m.positions.iter_mut().for_each(|p| *p = c.point(*p));
                m.normals.iter_mut().for_each(|n| *n = c.direction(*n));
            }
            if c.flips_winding() {
                for tri in s.indices.chunks_exact_mut(3) {
                    tri.swap(1, 2);
                }
            }
        }
        for b in &mut self.skeleton.bones {
            b.rest.translation = c.point(b.rest.translation);
            b.rest.rotation = c.rotation(b.rest.rotation);
            b.rest.scale = c.scale_vector(b.rest.scale);
            if let Some(ib) = &mut b.inverse_bind {
                *ib = c.matrix(*ib);
            }
        }
        for clip in &mut self.animations {
            for ch in &mut clip.channels {
                ch.translation
                    .values
                    .iter_mut()
                    .for_each(|t| *t = c.point(*t));
                ch.rotation
                    .values
                    .iter_mut()
                    .for_each(|q| *q = c.rotation(*q));
                ch.scale
                    .values
                    .iter_mut()
                    .for_each(|s| *s = c.scale_vector(*s));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [CoordinateSystem; 4] = [
        CoordinateSystem::GLTF,
        CoordinateSystem::Y_UP_LEFT,
        CoordinateSystem::Z_UP_RIGHT,
        CoordinateSystem {
            up: UpAxis::Z,
            handedness: Handedness::Left,
            meters_per_unit: 0.01,
        },
    ];

    #[test]
    fn handedness_matches_determinant() {
        for a in ALL {
            let det = a.to_canonical().determinant();
            let expected = if a.handedness == Handedness::Right {
                1.0
            } else {
                -1.0
            };
            assert_eq!(det, expected, "{a:?}");
        }
    }

    #[test]
    fn up_maps_to_up_and_x_is_fixed() {
        for a in ALL {
            for b in ALL {
                let c = a.conversion_to(&b);
                let up = |s: &CoordinateSystem| match s.up {
                    UpAxis::Y => Vec3::Y,
                    UpAxis::Z => Vec3::Z,
                };
                assert!(c.direction(up(&a)).abs_diff_eq(up(&b), 1e-6), "{a:?} {b:?}");
                assert!(c.direction(Vec3::X).abs_diff_eq(Vec3::X, 1e-6));
                assert_eq!(c.flips_winding(), a.handedness != b.handedness);
            }
        }
    }

    #[test]
    fn round_trip_is_identity() {
        let p = Vec3::new(1.0, 2.0, 3.0);
        let q = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
        for a in ALL {
            for b in ALL {
                let there = a.conversion_to(&b);
                let back = b.conversion_to(&a);
                assert!(back.point(there.point(p)).abs_diff_eq(p, 1e-5));
                let q2 = back.rotation(there.rotation(q));
                assert!(q2.dot(q).abs() > 1.0 - 1e-6);
            }
        }
    }

    #[test]
    fn rotation_conjugation_agrees_with_points() {
        // Rotating then converting equals converting then rotating with the converted
        // rotation, including across a reflection.
        let q = Quat::from_rotation_x(0.9) * Quat::from_rotation_z(0.4);
        let p = Vec3::new(0.2, -1.0, 3.0);
        for a in ALL {
            let c = a.conversion_to(&CoordinateSystem::GLTF);
            let lhs = c.direction(q * p);
            let rhs = c.rotation(q) * c.direction(p);
            assert!(lhs.abs_diff_eq(rhs, 1e-5), "{a:?}");
        }
    }

    #[test]
    fn units_and_matrices() {
        let cm = CoordinateSystem {
            meters_per_unit: 0.01,
            ..CoordinateSystem::GLTF
        };
        let c = cm.conversion_to(&CoordinateSystem::GLTF);
        assert_eq!(c.point(Vec3::new(100.0, 0.0, 0.0)), Vec3::X);
        assert_eq!(c.direction(Vec3::Y), Vec3::Y);
        let m = Mat4::from_translation(Vec3::new(0.0, 200.0, 0.0));
        assert!(
            c.matrix(m)
                .abs_diff_eq(Mat4::from_translation(Vec3::new(0.0, 2.0, 0.0)), 1e-6)
        );
        let z = CoordinateSystem::Z_UP_RIGHT.conversion_to(&CoordinateSystem::GLTF);
        assert_eq!(
            z.scale_vector(Vec3::new(1.0, 2.0, 3.0)),
            Vec3::new(1.0, 3.0, 2.0)
        );
        let l = CoordinateSystem::Y_UP_LEFT.conversion_to(&CoordinateSystem::GLTF);
        assert_eq!(
            l.tangent(Vec4::new(0.0, 0.0, 1.0, 1.0)),
            Vec4::new(0.0, 0.0, -1.0, -1.0)
        );
    }
}
