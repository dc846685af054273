//! Bones, rest transforms, world and inverse-bind matrices.

use glam::{Mat4, Quat, Vec3};

/// `q` scaled to unit length, or the identity when `q` has no length (zero, or NaN
/// components). Stored rotations (quantized, or written by hand) are often slightly off
/// unit length, and an all-zero one means "no rotation".
///
/// ```
/// use meshfmt_core::{glam::Quat, unit_quat_or_identity};
/// assert_eq!(unit_quat_or_identity(Quat::from_xyzw(0.0, 0.0, 0.0, 2.0)), Quat::IDENTITY);
/// assert_eq!(unit_quat_or_identity(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)), Quat::IDENTITY);
/// let q = unit_quat_or_identity(Quat::from_xyzw(0.0, 3.0, 0.0, 4.0));
/// assert!((q.length() - 1.0).abs() < 1e-6);
/// ```
pub fn unit_quat_or_identity(q: Quat) -> Quat {
    if q.length_squared() > 0.0 {
        q.normalize()
    } else {
        Quat::IDENTITY
    }
}

/// Translation, rotation and scale, applied scale first, then rotation, then translation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Offset.
    pub translation: Vec3,
    /// Unit quaternion.
    pub rotation: Quat,
    /// Per-axis scale.
    pub scale: Vec3,
}

impl Transform {
    /// No change.
    pub const IDENTITY: Transform = Transform {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// The 4x4 matrix `T * R * S`.
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Decomposes an affine matrix (shear is lost).
    pub fn from_mat4(m: &Mat4) -> Transform {
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        Transform {
            translation,
            rotation,
            scale,
        }
    }

    /// From ten floats in file order: translation xyz, rotation xyzw, scale xyz (the
    /// rotation is kept as stored, not normalized).
    pub fn from_array(a: [f32; 10]) -> Transform {
        Transform {
            translation: Vec3::new(a[0], a[1], a[2]),
            rotation: Quat::from_xyzw(a[3], a[4], a[5], a[6]),
            scale: Vec3::new(a[7], a[8], a[9]),
        }
    }

    /// The ten floats of [`Transform::from_array`], bit for bit.
    pub fn to_array(&self) -> [f32; 10] {
        let (t, q, s) = (self.translation, self.rotation, self.scale);
        [t.x, t.y, t.z, q.x, q.y, q.z, q.w, s.x, s.y, s.z]
    }

    /// Component-wise interpolation: lerp for translation and scale, shortest-path
    /// slerp for rotation.
    pub fn interpolate(&self, other: &Transform, t: f32) -> Transform {
        Transform {
            translation: self.translation.lerp(other.translation, t),
            rotation: self.rotation.slerp(other.rotation, t),
            scale: self.scale.lerp(other.scale, t),
        }
    }
}

impl Default for Transform {
    fn default() -> Self {
        Transform::IDENTITY
    }
}

/// One joint.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bone {
    /// Bone name (node names in glTF).
    pub name: String,
    /// Index of the parent bone, `None` for roots. Parents need not come first.
    pub parent: Option<usize>,
    /// Rest (bind) pose relative to the parent.
    pub rest: Transform,
    /// Inverse bind matrix when the file stores one that differs from the inverse of
    /// the rest pose's world matrix; `None` means "derive it from `rest`".
    pub inverse_bind: Option<Mat4>,
}

/// A bone hierarchy.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Skeleton {
    /// The bones; indices into this vector are the joint numbers skins use.
    pub bones: Vec<Bone>,
}

impl Skeleton {
    /// Bytes the bones and their names hold on the heap (lengths, not capacities), as
    /// [`Model::heap_bytes`](crate::Model::heap_bytes) counts them.
    ///
    /// ```
    /// use meshfmt_core::{Bone, Skeleton};
    /// let s = Skeleton { bones: vec![Bone { name: "root".into(), ..Bone::default() }] };
    /// assert_eq!(s.heap_bytes(), std::mem::size_of::<Bone>() as u64 + 4);
    /// ```
    pub fn heap_bytes(&self) -> u64 {
        let bones = (self.bones.len() as u64).saturating_mul(std::mem::size_of::<Bone>() as u64);
        (self.bones.iter()).fold(bones, |n, b| n.saturating_add(b.name.len() as u64))
    }

    /// True when there are no bones.
    pub fn is_empty(&self) -> bool {
        self.bones.is_empty()
    }

    /// Number of bones.
    pub fn len(&self) -> usize {
        self.bones.len()
    }

    /// Index of the first bone called `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.bones.iter().position(|b| b.name == name)
    }

    /// World (model-space) matrices for per-bone local transforms `locals`
    /// (`locals[i]` for bone `i`; missing entries use the rest pose).
    ///
    /// Works whatever the bone order. A parent index that is out of range or part of a
    /// cycle is treated as "no parent" (see [`crate::validate`] to report it), so this
    /// never loops or panics.
    pub fn world_matrices_for(&self, locals: &[Transform]) -> Vec<Mat4> {
        let n = self.bones.len();
        let local = |i: usize| -> Mat4 { locals.get(i).unwrap_or(&self.bones[i].rest).to_mat4() };
        let mut world: Vec<Option<Mat4>> = vec![None; n];
        // Every bone is walked once: a bone on a chain is resolved before the next walk.
        let mut walked = vec![false; n];
        let mut chain = Vec::new();
        for start in 0..n {
            if world[start].is_some() {
                continue;
            }
            // Walk up to the first resolved ancestor (or a root).
            chain.clear();
            let mut cur = Some(start);
            let mut base = Mat4::IDENTITY;
            while let Some(i) = cur {
                if let Some(m) = world[i] {
                    base = m;
                    break;
                }
                if walked[i] {
                    // Cycle: cut it here.
                    break;
                }
                walked[i] = true;
                chain.push(i);
                cur = self.bones[i].parent.filter(|&p| p < n);
            }
            for &i in chain.iter().rev() {
                base *= local(i);
                world[i] = Some(base);
            }
        }
        world
            .into_iter()
            .map(|m| m.unwrap_or(Mat4::IDENTITY))
            .collect()
    }

    /// World matrices of the rest pose.
    pub fn rest_world_matrices(&self) -> Vec<Mat4> {
        self.world_matrices_for(&[])
    }

    /// Inverse bind matrices: each bone's stored one, else the inverse of its rest world
    /// matrix.
    pub fn inverse_bind_matrices(&self) -> Vec<Mat4> {
        let world = self.rest_world_matrices();
        self.bones
            .iter()
            .zip(world)
            .map(|(b, w)| b.inverse_bind.unwrap_or_else(|| w.inverse()))
            .collect()
    }

    /// The bones in depth-first pre-order (each root, then its subtree, children in index
    /// order): the order text formats that nest bones need. `None` when some bone is not
    /// reachable from a root (a parent cycle or a parent out of range).
    ///
    /// ```
    /// use meshfmt_core::{Bone, Skeleton};
    /// let bone = |parent| Bone { parent, ..Bone::default() };
    /// // 0 <- 2, 1 <- 3: depth first is 0, 2, 1, 3.
    /// let s = Skeleton { bones: vec![bone(None), bone(None), bone(Some(0)), bone(Some(1))] };
    /// assert_eq!(s.depth_first_order(), Some(vec![0, 2, 1, 3]));
    /// ```
    pub fn depth_first_order(&self) -> Option<Vec<usize>> {
        let n = self.bones.len();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut roots = Vec::new();
        for (i, b) in self.bones.iter().enumerate() {
            match b.parent {
                None => roots.push(i),
                Some(p) => children.get_mut(p)?.push(i),
            }
        }
        let mut order = Vec::with_capacity(n);
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(i) = stack.pop() {
            order.push(i);
            if order.len() > n {
                return None;
            }
            stack.extend(children.get(i)?.iter().rev());
        }
        (order.len() == n).then_some(order)
    }

    /// Every bone's parent with the links that cannot be followed dropped: a parent out of
    /// range, the bone itself, or the link that closes a cycle (walking up from the
    /// lowest index, the last bone before the walk comes back loses it). What remains is a
    /// forest, found in linear
    /// time: what targets that need a tree (glTF nodes) use, reporting what changed.
    ///
    /// ```
    /// use meshfmt_core::{Bone, Skeleton};
    /// let bone = |parent| Bone { parent, ..Bone::default() };
    /// // 0 <- 1, 2 <-> 3 (a cycle), 4 is its own parent, 5's parent does not exist.
    /// let s = Skeleton { bones: vec![bone(None), bone(Some(0)), bone(Some(3)), bone(Some(2)), bone(Some(4)), bone(Some(9))] };
    /// assert_eq!(s.forest_parents(), [None, Some(0), Some(3), None, None, None]);
    /// ```
    pub fn forest_parents(&self) -> Vec<Option<usize>> {
        let n = self.bones.len();
        let mut parent: Vec<Option<usize>> = self
            .bones
            .iter()
            .enumerate()
            .map(|(i, b)| b.parent.filter(|&p| p < n && p != i))
            .collect();
        // 0 new, 1 on the walk in progress, 2 reaches a root.
        let mut state = vec![0u8; n];
        let mut walk = Vec::new();
        for start in 0..n {
            walk.clear();
            let mut at = start;
            loop {
                match state[at] {
                    0 => {
                        state[at] = 1;
                        walk.push(at);
                        match parent[at] {
                            Some(p) => at = p,
                            None => break,
                        }
                    }
                    1 => {
                        // `at` is on this walk: the last bone walked links back to it.
                        if let Some(&last) = walk.last() {
                            parent[last] = None;
                        }
                        break;
                    }
                    _ => break,
                }
            }
            for &b in &walk {
                state[b] = 2;
            }
        }
        parent
    }

    /// Every bone's children, in index order, built in one pass (call this rather than
    /// [`Skeleton::children`] once per bone). Parents out of range are ignored.
    ///
    /// ```
    /// use meshfmt_core::{Bone, Skeleton};
    /// let bone = |parent| Bone { parent, ..Bone::default() };
    /// let s = Skeleton { bones: vec![bone(None), bone(Some(0)), bone(Some(0)), bone(Some(9))] };
    /// assert_eq!(s.child_lists(), [vec![1, 2], vec![], vec![], vec![]]);
    /// ```
    pub fn child_lists(&self) -> Vec<Vec<usize>> {
        let mut lists = vec![Vec::new(); self.bones.len()];
        for (i, b) in self.bones.iter().enumerate() {
            if let Some(list) = b.parent.and_then(|p| lists.get_mut(p)) {
                list.push(i);
            }
        }
        lists
    }

    /// Children of bone `i` (a scan of every bone: see [`Skeleton::child_lists`]).
    pub fn children(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.bones
            .iter()
            .enumerate()
            .filter(move |(_, b)| b.parent == Some(i))
            .map(|(j, _)| j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bone(name: &str, parent: Option<usize>, t: Vec3) -> Bone {
        Bone {
            name: name.into(),
            parent,
            rest: Transform {
                translation: t,
                ..Transform::IDENTITY
            },
            inverse_bind: None,
        }
    }

    #[test]
    fn world_matrices_children_before_parents() {
        // Child listed first: world still composes parent * child.
        let s = Skeleton {
            bones: vec![
                bone("hand", Some(1), Vec3::new(0.0, 1.0, 0.0)),
                bone("arm", None, Vec3::new(2.0, 0.0, 0.0)),
            ],
        };
        let w = s.rest_world_matrices();
        assert_eq!(w[0].w_axis.truncate(), Vec3::new(2.0, 1.0, 0.0));
        assert_eq!(w[1].w_axis.truncate(), Vec3::new(2.0, 0.0, 0.0));
        let ib = s.inverse_bind_matrices();
        assert!((ib[0] * w[0]).abs_diff_eq(Mat4::IDENTITY, 1e-6));
        assert_eq!(s.find("arm"), Some(1));
        assert_eq!(s.children(1).collect::<Vec<_>>(), [0]);
    }

    #[test]
    fn cycles_and_bad_parents_do_not_hang() {
        let s = Skeleton {
            bones: vec![
                bone("a", Some(1), Vec3::X),
                bone("b", Some(0), Vec3::Y),
                bone("c", Some(99), Vec3::Z),
                bone("d", Some(3), Vec3::Z),
            ],
        };
        let w = s.rest_world_matrices();
        assert_eq!(w.len(), 4);
        assert_eq!(w[2].w_axis.truncate(), Vec3::Z);
        assert_eq!(w[3].w_axis.truncate(), Vec3::Z);
    }

    #[test]
    fn transform_order_is_trs() {
        let t = Transform {
            translation: Vec3::new(1.0, 0.0, 0.0),
            rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            scale: Vec3::splat(2.0),
        };
        // (1,0,0) scaled to (2,0,0), rotated to (0,2,0), moved to (1,2,0).
        let p = t.to_mat4().transform_point3(Vec3::X);
        assert!(p.abs_diff_eq(Vec3::new(1.0, 2.0, 0.0), 1e-6));
        let back = Transform::from_mat4(&t.to_mat4());
        assert!(back.translation.abs_diff_eq(t.translation, 1e-6));
        assert!(back.scale.abs_diff_eq(t.scale, 1e-6));
    }
}
