//! Linear-blend skinning on the CPU (a model's surface posed by a clip's [`Pose`]).

use glam::{Mat4, Vec3};

use crate::animation::Pose;
use crate::model::Surface;
use crate::skeleton::Skeleton;

/// Linear-blend skinning on the CPU: the surface's positions and normals deformed by
/// `pose`. Vertices without influences (or a surface without a skin) are left as they
/// are; joints outside the skeleton are ignored; weights are used as stored (normalize
/// them first if they may not sum to 1).
///
/// ```
/// use meshfmt_core::{glam::{Quat, Vec3}, *};
/// let skeleton = Skeleton { bones: vec![Bone { name: "root".into(), ..Default::default() }] };
/// let surface = Surface {
///     positions: vec![Vec3::X],
///     skin: vec![VertexInfluences::single(0)],
///     ..Default::default()
/// };
/// let mut pose = Pose::rest(&skeleton);
/// pose.locals[0].rotation = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
/// let (positions, _) = skin_surface(&surface, &skeleton, &pose);
/// assert!(positions[0].abs_diff_eq(Vec3::Y, 1e-6));
/// ```
pub fn skin_surface(surface: &Surface, skeleton: &Skeleton, pose: &Pose) -> (Vec<Vec3>, Vec<Vec3>) {
    let joints = pose.joint_matrices(skeleton);
    let blend = |i: usize| -> Option<Mat4> {
        let inf = surface.skin.get(i)?;
        let mut m = Mat4::ZERO;
        let mut any = false;
        for (j, w) in inf.pairs() {
            if let Some(jm) = joints.get(j as usize) {
                m += *jm * w;
                any = true;
            }
        }
        any.then_some(m)
    };
    let mut positions = Vec::with_capacity(surface.positions.len());
    let mut normals = Vec::with_capacity(surface.normals.len());
    for (i, p) in surface.positions.iter().enumerate() {
        match blend(i) {
            Some(m) => {
                positions.push(m.transform_point3(*p));
                if let Some(n) = surface.normals.get(i) {
                    normals.push(m.transform_vector3(*n).normalize_or_zero());
                }
            }
            None => {
                positions.push(*p);
                if let Some(n) = surface.normals.get(i) {
                    normals.push(*n);
                }
            }
        }
    }
    (positions, normals)
}
