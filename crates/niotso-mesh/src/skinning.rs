//! Posing and deforming in native file coordinates, exactly as notes/niotso.md
//! section 3: `L = T(t) Rot(q)^T`, `W = W_parent L`; real vertices by their bone's `W`,
//! blend vertices by theirs, then blended into the real vertices they tug, in file
//! order: `P[o] = w Q + (1 - w) P[o]` with `w = raw / 32768`.

use meshfmt_core::glam::{Mat3, Mat4, Quat, Vec3};

use crate::anim::Anim;
use crate::error::{Result, invalid};
use crate::mesh::Mesh;
use crate::skel::Skel;

/// The rotation a stored quaternion applies: its conjugate (`Rot(q)^T`).
pub fn stored_rotation(q: [f32; 4]) -> Quat {
    let q = Quat::from_xyzw(q[0], q[1], q[2], q[3]);
    let q = if q.length_squared() > 0.0 {
        q.normalize()
    } else {
        Quat::IDENTITY
    };
    q.conjugate()
}

/// The quaternion to store for a rotation (inverse of [`stored_rotation`]).
pub fn rotation_to_stored(r: Quat) -> [f32; 4] {
    r.conjugate().to_array()
}

/// World matrices of every skeleton bone, at rest or at frame `frame` of `anim`
/// (an animated bone's translation and rotation *replace* its rest values).
pub fn bone_worlds(skel: &Skel, frame: Option<(&Anim, usize)>) -> Vec<Mat4> {
    let mut worlds: Vec<Mat4> = Vec::with_capacity(skel.bones.len());
    for (i, b) in skel.bones.iter().enumerate() {
        let (mut t, mut q) = (b.translation, b.rotation);
        if let Some((anim, f)) = frame {
            if let Some(m) = anim.motions.iter().find(|m| m.bone_name == b.name) {
                let f = f.min(m.frame_count.saturating_sub(1) as usize);
                if m.has_translation != 0 {
                    if let Some(v) = usize::try_from(m.first_translation)
                        .ok()
                        .and_then(|s| anim.translations.get(s + f))
                    {
                        t = *v;
                    }
                }
                if m.has_rotation != 0 {
                    if let Some(v) = usize::try_from(m.first_rotation)
                        .ok()
                        .and_then(|s| anim.rotations.get(s + f))
                    {
                        q = *v;
                    }
                }
            }
        }
        let local = Mat4::from_rotation_translation(stored_rotation(q), Vec3::from_array(t));
        let world = match skel.parent_index(i) {
            Some(p) => worlds[p] * local,
            None => local,
        };
        worlds.push(world);
    }
    worlds
}

/// For each binding, the skeleton bone it names (by exact name, then ignoring ASCII
/// case); an error names the first bone the skeleton lacks.
pub fn binding_bones(mesh: &Mesh, skel: &Skel) -> Result<Vec<usize>> {
    mesh.bindings
        .iter()
        .map(|b| {
            let (name, _) = mesh
                .binding_bone(b)
                .ok_or_else(|| invalid("the mesh has no bone names"))?;
            skel.find(name.as_bytes())
                .ok_or_else(|| invalid(format!("bone '{name}' is not in skeleton '{}'", skel.name)))
        })
        .collect()
}

/// Posed positions and normals of the real vertices (normals renormalized; a zero
/// normal stays zero). `worlds` come from [`bone_worlds`] of the same skeleton.
pub fn deform(mesh: &Mesh, skel: &Skel, worlds: &[Mat4]) -> Result<(Vec<Vec3>, Vec<Vec3>)> {
    mesh.check()?;
    let bones = binding_bones(mesh, skel)?;
    let mut positions: Vec<Vec3> = mesh
        .real_vertices
        .iter()
        .map(|v| Vec3::new(v[0], v[1], v[2]))
        .collect();
    let mut normals: Vec<Vec3> = mesh
        .real_vertices
        .iter()
        .map(|v| Vec3::new(v[3], v[4], v[5]))
        .collect();
    let mut blend_pos = vec![Vec3::ZERO; mesh.blend_vertices.len()];
    let mut blend_nrm = vec![Vec3::ZERO; mesh.blend_vertices.len()];
    for (b, &bone) in mesh.bindings.iter().zip(&bones) {
        let w = worlds.get(bone).copied().unwrap_or(Mat4::IDENTITY);
        let r = Mat3::from_mat4(w);
        if b.real_count > 0 {
            let s = b.first_real as usize;
            for i in s..s + b.real_count as usize {
                positions[i] = w.transform_point3(positions[i]);
                normals[i] = r * normals[i];
            }
        }
        if b.blend_count > 0 {
            let s = b.first_blend as usize;
            for j in s..s + b.blend_count as usize {
                let v = mesh.blend_vertices[j];
                blend_pos[j] = w.transform_point3(Vec3::new(v[0], v[1], v[2]));
                blend_nrm[j] = r * Vec3::new(v[3], v[4], v[5]);
            }
        }
    }
    for (j, blend) in mesh.blends.iter().enumerate() {
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
