//! OBJ export, against text written out by hand.
#![allow(clippy::unwrap_used)]

use meshfmt::obj::export;
use meshfmt_core::Budget;
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
    let out = export(&model, "m.mtl", &Budget::default()).unwrap();
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

/// The one material library the hand-written OBJ names.
fn mtl_files() -> Vec<(String, Vec<u8>)> {
    vec![(
        "m.mtl".into(),
        b"newmtl red\nKd 1 0 0\nd 0.5\nPr 0.25\nmap_Kd -bm 1 tex/red.png\nnewmtl broken\nKd 1 2\n"
            .to_vec(),
    )]
}

#[test]
fn import_by_hand() {
    let text = "# a quad and a triangle\nmtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n\
        vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\n\
        o quad\nusemtl red\nf 1/1/1 2/2/1 3/3/1 4/4/1\n\
        o tri\nusemtl broken\nf -4//1 -3//1 -1//1\nl 1 2\n";
    let mtl = mtl_files();
    let out = meshfmt::obj::import(text.as_bytes(), Some(&mtl), &Budget::default()).unwrap();
    let m = &out.value;
    assert_eq!(m.surfaces.len(), 2);
    let quad = &m.surfaces[0];
    assert_eq!(quad.name, "quad");
    // Fan triangulation of 1 2 3 4: (1 2 3), (1 3 4).
    assert_eq!(quad.indices, [0, 1, 2, 0, 2, 3]);
    assert_eq!(quad.positions[2], Vec3::new(1.0, 1.0, 0.0));
    // vt (1, 1) is glTF's (1, 0): OBJ's origin is bottom-left.
    assert_eq!(quad.uv0[2], Vec2::new(1.0, 0.0));
    assert_eq!(quad.normals, vec![Vec3::Z; 4]);
    assert_eq!(quad.material, Some(0));
    // Negative indices count back from the 4 positions: -4 -3 -1 = 1 2 4.
    let tri = &m.surfaces[1];
    assert_eq!(tri.positions, [Vec3::ZERO, Vec3::X, Vec3::Y]);
    assert!(tri.uv0.is_empty(), "no corner named a texture coordinate");
    assert_eq!(tri.material, Some(1));
    let red = &m.materials[0];
    assert_eq!(
        (red.base_color, red.roughness, red.metallic),
        (Vec4::new(1.0, 0.0, 0.0, 0.5), 0.25, 0.0)
    );
    assert_eq!(
        m.textures[red.textures[0].texture].source,
        TextureSource::Path("tex/red.png".into())
    );
    // The malformed `Kd 1 2` and the `l` statement are reported, not fatal.
    let text: Vec<String> = out.losses.iter().map(ToString::to_string).collect();
    assert!(
        text.iter().any(|l| l.contains("1 malformed mtllib lines")),
        "{text:?}"
    );
    assert!(
        text.iter().any(|l| l.contains("1 'l' statements")),
        "{text:?}"
    );
    // Bad references are errors with the line number.
    for (bad, want) in [
        ("v 0 0 0\nf 1 2 3\n", "line 2: index 2 out of range"),
        ("v 0 0\n", "line 1: 2 numbers where 3 are needed"),
        (
            "v 0 0 0\nf 1 1\n",
            "line 2: a face needs at least three corners",
        ),
        ("v a 0 0\n", "line 1: 'a' is not a number"),
    ] {
        let e = meshfmt::obj::import(bad.as_bytes(), None, &Budget::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{e}");
    }
}

#[test]
fn export_then_import_keeps_positions_exactly() {
    let model = meshfmt_core::canonical::multi_surface();
    let files = export(&model, "m.mtl", &Budget::default()).unwrap().value;
    let mtl = vec![("m.mtl".to_string(), files.mtl.clone().into_bytes())];
    let back = meshfmt::obj::import(files.obj.as_bytes(), Some(&mtl), &Budget::default())
        .unwrap()
        .value;
    assert_eq!(back.surfaces.len(), model.surfaces.len());
    for (a, b) in model.surfaces.iter().zip(&back.surfaces) {
        let corners = |s: &Surface| {
            s.indices
                .iter()
                .map(|&i| s.positions[i as usize])
                .collect::<Vec<_>>()
        };
        assert_eq!(corners(a), corners(b));
        let uvs = |s: &Surface| {
            s.indices
                .iter()
                .map(|&i| s.uv0[i as usize])
                .collect::<Vec<_>>()
        };
        for (p, q) in uvs(a).iter().zip(uvs(b)) {
            assert!((*p - q).abs().max_element() <= 6e-8, "{p} vs {q}");
        }
    }
    assert_eq!(back.materials.len(), model.materials.len());
}
