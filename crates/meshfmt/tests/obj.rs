//! OBJ export, against text written out by hand.
#![allow(clippy::unwrap_used)]

use meshfmt::obj::export;
use meshfmt_core::glam::{Vec2, Vec3, Vec4};
use meshfmt_core::{
    CoordinateSystem, Material, Model, Surface, Texture, TextureBinding, TextureRole, TextureSource,
};

#[test]
fn two_surfaces_by_hand() {
    // UNIGINE frame (+Z up): (0, 1, 0) is glTF/OBJ (0, 0, -1), (0, 0, 2) is (0, 2, 0).
    let model = Model {
        coordinate_system: CoordinateSystem::Z_UP_RIGHT,
        surfaces: vec![
            Surface {
                name: "a b".into(),
                positions: vec![Vec3::ZERO, Vec3::Y, Vec3::new(0.0, 0.0, 2.0)],
                uv0: vec![Vec2::new(0.25, 0.75), Vec2::ZERO, Vec2::ONE],
                indices: vec![0, 1, 2],
                material: Some(0),
                ..Default::default()
            },
            Surface {
                name: String::new(),
                positions: vec![Vec3::X, Vec3::ZERO, Vec3::Z],
                normals: vec![Vec3::Y; 3],
                indices: vec![2, 1, 0],
                ..Default::default()
            },
        ],
        materials: vec![Material {
            name: "red paint".into(),
            base_color: Vec4::new(1.0, 0.0, 0.0, 0.5),
            metallic: 0.0,
            roughness: 0.5,
            emissive: Vec3::ZERO,
            textures: vec![TextureBinding {
                role: TextureRole::BaseColor,
                texture: 0,
                uv_set: 0,
            }],
        }],
        textures: vec![Texture {
            name: "t".into(),
            source: TextureSource::Path("tex/red.png".into()),
        }],
        ..Default::default()
    };
    let out = export(&model, "m.mtl");
    assert!(out.losses.is_empty(), "{:?}", out.losses);
    let want = "# meshfmt 0.1.0\nmtllib m.mtl\n\
        o a_b\nv 0 0 0\nv 0 0 -1\nv 0 2 0\nvt 0.25 0.25\nvt 0 1\nvt 1 0\nusemtl red_paint\nf 1/1 2/2 3/3\n\
        o surface1\nv 1 0 0\nv 0 0 0\nv 0 1 0\nvn 0 0 -1\nvn 0 0 -1\nvn 0 0 -1\nf 6//3 5//2 4//1\n";
    assert_eq!(
        out.value.obj,
        want.replace("0.1.0", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(
        out.value.mtl,
        "newmtl red_paint\nKd 1 0 0\nd 0.5\nKe 0 0 0\nPr 0.5\nPm 0\nmap_Kd tex/red.png\n\n"
    );
}
