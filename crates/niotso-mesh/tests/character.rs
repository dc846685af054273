//! A character written from a model (.skel, a .mesh and .bnd per part, the .apr)
//! assembles back into the same character.

use meshfmt_core::{Budget, canonical};
use niotso_mesh::appearance::{TYPE_BINDING, TYPE_MESH, parse_loose_file_name};
use niotso_mesh::character::Character;
use niotso_mesh::companions::{Appearance, BindingFile};
use niotso_mesh::loose::LooseFiles;
use niotso_mesh::{CoreOptions, Skel};

#[test]
fn two_parts_write_and_assemble_back() -> Result<(), Box<dyn std::error::Error>> {
    let mut model = canonical::skinned_arm3();
    let again = model.surfaces[0].clone();
    model.surfaces.push(again);
    let c = Character::from_core(&model)?;
    // The clips are not part of the character (they go to .anim files).
    assert!(
        c.losses
            .iter()
            .any(|l| l.reason.contains(".anim files of their own"))
    );
    let c = c.value;
    let names: Vec<&str> = c.parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["arm3", "arm3_"]);
    // Summed weights per bone: shoulder 4 x (1 + 0.75 + 0.25) = 8, elbow
    // 4 x (0.25 + 0.5 + 0.75 + 0.25) = 7, wrist 4 x (0.25 + 0.25 + 0.75 + 1 + 1) = 13.
    for p in &c.parts {
        assert_eq!(p.binding.1.bone.to_string(), "wrist");
        assert_eq!(p.binding.1.mesh.asset.map(|a| a.1), Some(p.mesh.0));
        assert_eq!(
            (p.mesh.0.type_id, p.binding.0.type_id),
            (TYPE_MESH, TYPE_BINDING)
        );
    }
    let mut ids: Vec<u32> = c
        .parts
        .iter()
        .flat_map(|p| [p.mesh.0.file_id, p.binding.0.file_id])
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 4);
    let files = c.files("arm")?;
    assert_eq!(files.len(), 5);
    assert_eq!(files[0].0, "arm.skel");
    for (name, bytes) in &files[1..] {
        let loose = parse_loose_file_name(name).ok_or("not a loose name")?;
        assert!(["mesh", "bnd"].contains(&loose.extension), "{name}");
        if loose.extension == "bnd" {
            assert_eq!(BindingFile::read(bytes)?.bone.to_string(), "wrist");
        }
    }
    // Read back as a user's tool would: the .apr, its loose files, the .skel.
    let apr = Appearance::read(&c.write()?)?;
    assert_eq!(apr.bindings.len(), 2);
    let skel = niotso_mesh::skel::read(&files[0].1)?;
    let loose = LooseFiles::around(&files, Budget::default());
    let back = apr.to_core_with(&CoreOptions {
        skeleton: Some(&skel),
        assets: Some(&loose),
        ..CoreOptions::default()
    })?;
    assert!(back.losses.is_empty(), "{:?}", back.losses);
    let m = back.value;
    assert_eq!(m.surfaces.len(), 2);
    for s in &m.surfaces {
        assert_eq!((s.positions.len(), s.triangle_count()), (28, 48));
    }
    assert_eq!(m.skeleton.bones.len(), 3);
    let _: &Skel = &c.skel;
    Ok(())
}

#[test]
fn a_model_without_a_skeleton_makes_no_character() {
    let e = Character::from_core(&canonical::cube())
        .err()
        .map(|e| e.to_string());
    assert!(e.is_some_and(|e| e.contains("needs a skeleton")));
}
