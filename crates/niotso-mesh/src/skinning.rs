//! Posing and deforming in native file coordinates, exactly as notes/niotso.md
//! section 3: `L = T(t) Rot(q)^T`, `W = W_parent L`; real vertices by their bone's `W`,
//! blend vertices by theirs, then blended into the real vertices they tug, in file
//! order: `P[o] = w Q + (1 - w) P[o]` with `w = raw / 32768`.

use std::collections::HashMap;

use meshfmt_core::glam::{Mat3, Mat4, Quat, Vec3};

use crate::anim::{Anim, Motion};
use crate::error::{Result, invalid};
use crate::index::last_cover;
use crate::mesh::Mesh;
use crate::skel::{BoneNames, Skel};

/// The rotation a stored quaternion applies: its conjugate (`Rot(q)^T`).
pub fn stored_rotation(q: [f32; 4]) -> Quat {
    meshfmt_core::unit_quat_or_identity(Quat::from_xyzw(q[0], q[1], q[2], q[3])).conjugate()
}

/// The quaternion to store for a rotation (inverse of [`stored_rotation`]).
pub fn rotation_to_stored(r: Quat) -> [f32; 4] {
    r.conjugate().to_array()
}

/// World matrices of every skeleton bone, at rest or at frame `frame` of `anim`
/// (an animated bone's translation and rotation *replace* its rest values; a bone
/// several motions name takes the first).
pub fn bone_worlds(skel: &Skel, frame: Option<(&Anim, usize)>) -> Vec<Mat4> {
    bone_worlds_with(skel, &skel.parent_indices(), frame)
}

/// [`bone_worlds`] with the parents already found ([`Skel::parent_indices`]).
pub(crate) fn bone_worlds_with(
    skel: &Skel,
    parents: &[Option<usize>],
    frame: Option<(&Anim, usize)>,
) -> Vec<Mat4> {
    // Each bone's motion (the first naming it), by a map instead of a scan per bone.
    let motions: HashMap<&[u8], &Motion> = match frame {
        Some((anim, _)) => {
            let mut map = HashMap::with_capacity(anim.motions.len());
            for m in &anim.motions {
                map.entry(m.bone_name.as_bytes()).or_insert(m);
            }
            map
        }
        None => HashMap::new(),
    };
    let mut worlds: Vec<Mat4> = Vec::with_capacity(skel.bones.len());
    for (i, b) in skel.bones.iter().enumerate() {
        let (mut t, mut q) = (b.translation, b.rotation);
        if let Some((anim, f)) = frame {
            if let Some(m) = motions.get(b.name.as_bytes()) {
                let f = f.min(m.frame_count.saturating_sub(1) as usize);
                let key = |has: u8, first: i32| {
                    (has != 0)
                        .then(|| usize::try_from(first).ok()?.checked_add(f))
                        .flatten()
                };
                if let Some(v) = key(m.has_translation, m.first_translation)
                    .and_then(|k| anim.translations.get(k))
                {
                    t = *v;
                }
                if let Some(v) =
                    key(m.has_rotation, m.first_rotation).and_then(|k| anim.rotations.get(k))
                {
                    q = *v;
                }
            }
        }
        let local = Mat4::from_rotation_translation(stored_rotation(q), Vec3::from_array(t));
        // Parents come first (parent_indices only finds earlier bones).
        let world = match parents
            .get(i)
            .copied()
            .flatten()
            .and_then(|p| worlds.get(p))
        {
            Some(parent) => *parent * local,
            None => local,
        };
        worlds.push(world);
    }
    worlds
}

/// For each binding, the skeleton bone it names (by exact name, then ignoring ASCII
/// case); an error names the first bone the skeleton lacks.
pub fn binding_bones(mesh: &Mesh, skel: &Skel) -> Result<Vec<usize>> {
    binding_bones_with(mesh, skel, &skel.name_index())
}

/// [`binding_bones`] with the skeleton's name map already built.
pub(crate) fn binding_bones_with(
    mesh: &Mesh,
    skel: &Skel,
    names: &BoneNames<'_>,
) -> Result<Vec<usize>> {
    mesh.bindings
        .iter()
        .map(|b| {
            let (name, _) = mesh
                .binding_bone(b)
                .ok_or_else(|| invalid("the mesh has no bone names"))?;
            names
                .find(name.as_bytes())
                .ok_or_else(|| invalid(format!("bone '{name}' is not in skeleton '{}'", skel.name)))
        })
        .collect()
}

/// Which bone moves each real and each blend vertex: the bone of the last binding whose
/// range covers it (real files' ranges partition the vertices, so that is the only
/// one); `None` for a vertex no binding covers. One pass, whatever the overlaps.
pub(crate) fn vertex_bones(
    mesh: &Mesh,
    bones: &[usize],
) -> (Vec<Option<usize>>, Vec<Option<usize>>) {
    let real = last_cover(
        mesh.real_vertices.len(),
        mesh.bindings
            .iter()
            .zip(bones)
            .map(|(b, &bone)| (range(b.first_real, b.real_count), bone)),
    );
    let blend = last_cover(
        mesh.blend_vertices.len(),
        mesh.bindings
            .iter()
            .zip(bones)
            .map(|(b, &bone)| (range(b.first_blend, b.blend_count), bone)),
    );
    (real, blend)
}

/// A binding's range as indices (empty for a count of 0 or less or a negative start).
pub(crate) fn range(first: i32, count: i32) -> std::ops::Range<usize> {
    match (usize::try_from(first), usize::try_from(count)) {
        (Ok(first), Ok(count)) => first..first.saturating_add(count),
        _ => 0..0,
    }
}

/// Posed positions and normals of the real vertices (normals renormalized; a zero
/// normal stays zero). `worlds` come from [`bone_worlds`] of the same skeleton. A
/// vertex in several bindings' ranges (never in real files) follows the last.
pub fn deform(mesh: &Mesh, skel: &Skel, worlds: &[Mat4]) -> Result<(Vec<Vec3>, Vec<Vec3>)> {
    mesh.check()?;
    let bones = binding_bones(mesh, skel)?;
    let (real_bones, blend_bones) = vertex_bones(mesh, &bones);
    let world =
        |bone: Option<usize>| bone.map(|b| worlds.get(b).copied().unwrap_or(Mat4::IDENTITY));
    let mut positions = Vec::with_capacity(mesh.real_vertices.len());
    let mut normals = Vec::with_capacity(mesh.real_vertices.len());
    for (v, &bone) in mesh.real_vertices.iter().zip(&real_bones) {
        let (p, n) = (Vec3::new(v[0], v[1], v[2]), Vec3::new(v[3], v[4], v[5]));
        match world(bone) {
            Some(w) => {
                positions.push(w.transform_point3(p));
                normals.push(Mat3::from_mat4(w) * n);
            }
            None => {
                positions.push(p);
                normals.push(n);
            }
        }
    }
    let mut blend_pos = vec![Vec3::ZERO; mesh.blend_vertices.len()];
    let mut blend_nrm = vec![Vec3::ZERO; mesh.blend_vertices.len()];
    for (j, (v, &bone)) in mesh.blend_vertices.iter().zip(&blend_bones).enumerate() {
        if let Some(w) = world(bone) {
            blend_pos[j] = w.transform_point3(Vec3::new(v[0], v[1], v[2]));
            blend_nrm[j] = Mat3::from_mat4(w) * Vec3::new(v[3], v[4], v[5]);
        }
    }
    for (j, blend) in mesh.blends.iter().enumerate() {
        // check() keeps other_vertex within the real vertices.
        let o = blend.other_vertex as usize;
        let w = blend.weight_f32();
        positions[o] = blend_pos[j] * w + positions[o] * (1.0 - w);
        normals[o] = blend_nrm[j] * w + normals[o] * (1.0 - w);
    }
    Ok((
        positions,
        normals.into_iter().map(|n| n.normalize_or_zero()).collect(),
    ))
}
