//! Drive a UNIGINE skinned mesh with an animation, matching bones by name, and print
//! the posed bounds at a few times.
//!
//! ```text
//! cargo run -p unigine-anim --example pose_mesh -- arm.mesh arm.anim
//! ```
//! unigine-anim never depends on unigine-mesh; this example (a dev-dependency) shows
//! the two meeting in meshfmt-core.

use meshfmt_core::{Bounds, Clip, Model, skin_surface};

/// Rebinds an animation's channels from its own bone list to a mesh skeleton's, by
/// bone name. Channels whose bone the mesh lacks are dropped and counted.
pub fn retarget(clip: &Clip, anim: &Model, mesh: &Model) -> (Clip, usize) {
    let mut missing = 0;
    let channels = clip
        .channels
        .iter()
        .filter_map(|c| {
            let name = &anim.skeleton.bones.get(c.bone)?.name;
            match mesh.skeleton.find(name) {
                Some(b) => Some(meshfmt_core::Channel {
                    bone: b,
                    ..c.clone()
                }),
                None => {
                    missing += 1;
                    None
                }
            }
        })
        .collect();
    (
        Clip {
            events: Vec::new(),
            name: clip.name.clone(),
            channels,
        },
        missing,
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mesh_path, anim_path] = args.as_slice() else {
        eprintln!("usage: pose_mesh MESH ANIM");
        std::process::exit(2);
    };
    let mesh = unigine_mesh::read(&std::fs::read(mesh_path)?)?
        .to_core()?
        .value;
    let anim = unigine_anim::read(&std::fs::read(anim_path)?)?
        .to_core()?
        .value;
    let clip = anim
        .animations
        .first()
        .ok_or("the animation file has no clip")?;
    let (clip, missing) = retarget(clip, &anim, &mesh);
    println!(
        "{} channels matched by name, {missing} bones not in the mesh",
        clip.channels.len()
    );
    let duration = clip.duration();
    let posed_at = |t: f32| -> Vec<meshfmt_core::glam::Vec3> {
        let pose = clip.sample(&mesh.skeleton, t);
        mesh.surfaces
            .iter()
            .flat_map(|s| skin_surface(s, &mesh.skeleton, &pose).0)
            .collect()
    };
    let first = posed_at(0.0);
    for k in 0..=4 {
        let t = duration * k as f32 / 4.0;
        let posed = posed_at(t);
        let moved = posed
            .iter()
            .zip(&first)
            .map(|(a, b)| a.distance(*b))
            .fold(0.0f32, f32::max);
        if let Some(b) = Bounds::from_points(posed.iter().copied()) {
            println!(
                "t = {t:.3} s: posed bounds {} .. {}, largest move since t = 0: {moved:.3}",
                b.aabb.min, b.aabb.max
            );
        }
    }
    Ok(())
}
