//! Appearances assembled from their bindings, meshes and textures: found by asset
//! reference, one surface per binding on one skeleton, everything missing reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::glam::Vec3;
use meshfmt_core::{Feature, LossKind, Model, TextureSource, canonical};
use niotso_mesh::appearance::{
    TYPE_BINDING, TYPE_MESH, TYPE_TEXTURE, loose_file_suffix, parse_loose_file_name,
};
use niotso_mesh::companions::{Appearance, AssetRef, BindingFile, TaggedRef};
use niotso_mesh::{Asset, Assets};
use niotso_mesh::{Budget, WriteOptions};
use niotso_mesh::{CoreOptions, Mesh, NATIVE, Skel};

/// Files by asset reference, as a folder of FreeSO loose files would give them.
struct Memory(Vec<Asset>);

impl Assets for Memory {
    fn find(&self, asset: AssetRef, extensions: &[&str]) -> niotso_mesh::Result<Option<Asset>> {
        Ok(self
            .0
            .iter()
            .find(|a| {
                parse_loose_file_name(&a.name)
                    .is_some_and(|n| n.asset == asset && extensions.contains(&n.extension))
            })
            .cloned())
    }
}

fn r(file_id: u32, type_id: u32) -> AssetRef {
    AssetRef { file_id, type_id }
}

fn binding(bone: &str, mesh: Option<u32>, texture: Option<u32>) -> Vec<u8> {
    let tagged = |id: Option<u32>, type_id| match id {
        Some(id) => TaggedRef {
            tag: 8,
            asset: Some((0, r(id, type_id))),
        },
        None => TaggedRef {
            tag: 0,
            asset: None,
        },
    };
    BindingFile {
        version: 1,
        bone: bone.into(),
        mesh: tagged(mesh, TYPE_MESH),
        texture: tagged(texture, TYPE_TEXTURE),
    }
    .write()
    .unwrap()
}

fn file(name: &str, id: AssetRef, ext: &str, bytes: Vec<u8>) -> Asset {
    Asset {
        name: format!("{name}{}", loose_file_suffix(id, ext)),
        bytes,
    }
}

/// The canonical arm (bones "shoulder" and "elbow") as a Vitaboy mesh and skeleton.
fn arm() -> (Model, Vec<u8>, Skel) {
    let arm = canonical::skinned_arm();
    let mesh = Mesh::from_core(&arm).unwrap().value.write().unwrap();
    let skel = Skel::from_core_with(
        &arm,
        &WriteOptions {
            skeleton_name: "arm".into(),
            ..WriteOptions::default()
        },
    )
    .unwrap()
    .value;
    (arm, mesh, skel)
}

fn png() -> Vec<u8> {
    // A 1x1 RGBA PNG (one opaque red pixel) made with Python's zlib: signature, IHDR,
    // IDAT (a stored zlib block of filter byte 0 and the pixel), IEND.
    vec![
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f,
        0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x10, 0x49, 0x44, 0x41, 0x54, 0x78, 0x01, 0x01, 0x05,
        0x00, 0xfa, 0xff, 0x00, 0xff, 0x00, 0x00, 0xff, 0x05, 0x00, 0x01, 0xff, 0xfa, 0x5c, 0x88,
        0xd1, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ]
}

#[test]
fn one_surface_per_binding_and_everything_missing_named() {
    let (model, mesh, skel) = arm();
    let mut winged = Mesh::from_core(&model).unwrap().value;
    winged.bone_names[1] = "WING".into();
    let files = Memory(vec![
        file(
            "sleeve",
            r(1, TYPE_BINDING),
            "bnd",
            binding("shoulder", Some(10), Some(20)),
        ),
        file(
            "glove",
            r(2, TYPE_BINDING),
            "bnd",
            binding("elbow", Some(11), Some(21)),
        ),
        file(
            "wing",
            r(4, TYPE_BINDING),
            "bnd",
            binding("WING", Some(12), None),
        ),
        file(
            "bare",
            r(6, TYPE_BINDING),
            "bnd",
            binding("elbow", None, None),
        ),
        file("sleeve-mesh", r(10, TYPE_MESH), "mesh", mesh.clone()),
        file("glove-mesh", r(11, TYPE_MESH), "mesh", mesh),
        file(
            "wing-mesh",
            r(12, TYPE_MESH),
            "mesh",
            winged.write().unwrap(),
        ),
        file("sleeve-tex", r(20, TYPE_TEXTURE), "png", png()),
        file(
            "glove-tex",
            r(21, TYPE_TEXTURE),
            "jpg",
            b"\xff\xd8\xff\xe0 not decoded".to_vec(),
        ),
    ]);
    let apr = Appearance {
        version: 1,
        thumbnail: AssetRef::default(),
        bindings: vec![
            r(1, TYPE_BINDING),
            r(2, TYPE_BINDING),
            r(3, TYPE_BINDING), // no such file
            r(4, TYPE_BINDING), // its mesh names a bone the skeleton lacks
            r(5, TYPE_MESH),    // not a binding
            r(6, TYPE_BINDING), // names no mesh
        ],
    };
    let out = apr
        .to_core_with(&CoreOptions {
            skeleton: Some(&skel),
            assets: Some(&files),
            ..CoreOptions::default()
        })
        .unwrap();
    let m = &out.value;
    assert_eq!(m.coordinate_system, NATIVE);
    let names: Vec<&str> = m.surfaces.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["sleeve-mesh", "glove-mesh"]);
    assert_eq!(m.skeleton.len(), 2);
    // Each surface is the arm posed by its skeleton: the canonical positions, in the
    // Vitaboy frame.
    let mut native = canonical::skinned_arm();
    native.convert_to(NATIVE);
    for s in &m.surfaces {
        assert_eq!(s.positions.len(), native.surfaces[0].positions.len());
        for (a, b) in s.positions.iter().zip(&native.surfaces[0].positions) {
            assert!(a.abs_diff_eq(*b, 1e-5), "{a} {b}");
        }
        assert_eq!(s.skin.len(), s.positions.len());
    }
    // Materials: the PNG's pixels when this crate decodes PNG, else a path; the JPEG
    // always a path, reported.
    assert_eq!(m.materials.len(), 2);
    assert_eq!(m.surfaces[0].material, Some(0));
    assert_eq!(m.surfaces[1].material, Some(1));
    assert_eq!(m.materials[0].textures[0].texture, 0);
    assert_eq!(m.materials[0].metallic, 0.0);
    if cfg!(feature = "png") {
        let TextureSource::Embedded(img) = &m.textures[0].source else {
            panic!("{:?}", m.textures[0].source)
        };
        assert_eq!((img.width, img.height), (1, 1));
        assert_eq!(img.pixels, [255, 0, 0, 255]);
    } else {
        assert_eq!(
            m.textures[0].source,
            TextureSource::Path(format!("sleeve-tex{}", loose_file_suffix(r(20, 20), "png")))
        );
    }
    assert_eq!(
        m.textures[1].source,
        TextureSource::Path("glove-tex.0000001500000014.jpg".into())
    );
    let loss = |path: &str| {
        out.losses
            .iter()
            .filter(|l| l.path == path)
            .map(|l| (l.feature, l.kind.clone(), l.reason.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        loss("bindings[1]"),
        [(
            Feature::Textures,
            LossKind::Reduced,
            "'glove-tex.0000001500000014.jpg' is kept as a path texture: JPEG pixels are not decoded"
                .to_string()
        )]
    );
    assert_eq!(
        loss("bindings[2]"),
        [(
            Feature::Geometry,
            LossKind::Dropped,
            "binding not found (a file named *.000000030000000b.bnd)".to_string()
        )]
    );
    let wing = loss("bindings[3]");
    assert_eq!(wing.len(), 2, "{wing:?}");
    assert!(
        wing[0]
            .2
            .contains("the binding's bone 'WING' is not in skeleton 'arm'")
    );
    assert_eq!(wing[1].0, Feature::Geometry);
    assert!(
        wing[1].2.starts_with("wing-mesh.0000000c00000009.mesh: ")
            && wing[1].2.contains("bone 'WING' is not in skeleton 'arm'"),
        "{}",
        wing[1].2
    );
    assert!(
        loss("bindings[4]")[0]
            .2
            .contains("has type 9 where a binding (11) belongs")
    );
    assert_eq!(loss("bindings[5]")[0].2, "the binding names no mesh");
    let sleeve = loss("bindings[0]");
    if cfg!(feature = "png") {
        assert!(sleeve.is_empty(), "{sleeve:?}");
    } else {
        assert!(
            sleeve[0]
                .2
                .ends_with("is kept as a path texture: its PNG does not decode here")
        );
    }
}

#[test]
fn without_a_skeleton_bones_sit_at_the_origin() {
    let (_, mesh, _) = arm();
    let files = Memory(vec![
        file(
            "a",
            r(1, TYPE_BINDING),
            "bnd",
            binding("shoulder", Some(10), None),
        ),
        file("m", r(10, TYPE_MESH), "mesh", mesh),
    ]);
    let apr = Appearance {
        version: 1,
        thumbnail: AssetRef::default(),
        bindings: vec![r(1, TYPE_BINDING), r(1, TYPE_BINDING)],
    };
    let out = apr
        .to_core_with(&CoreOptions {
            skeleton: None,
            assets: Some(&files),
            ..CoreOptions::default()
        })
        .unwrap();
    // Both surfaces on one skeleton of the mesh's two bone names, roots at the origin.
    assert_eq!(out.value.surfaces.len(), 2);
    let names: Vec<&str> = out
        .value
        .skeleton
        .bones
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    assert_eq!(names, ["shoulder", "elbow"]);
    assert!(
        out.value
            .skeleton
            .bones
            .iter()
            .all(|b| b.parent.is_none() && b.rest.translation == Vec3::ZERO)
    );
    assert_eq!(out.losses.len(), 1);
    assert_eq!(out.losses[0].feature, Feature::Skeleton);
    assert!(out.losses[0].reason.starts_with("no .skel given"));
}

#[test]
fn appearances_draw_on_the_options_budget() {
    let (_, mesh, skel) = arm();
    let files = Memory(vec![
        file(
            "a",
            r(1, TYPE_BINDING),
            "bnd",
            binding("shoulder", Some(10), None),
        ),
        file("m", r(10, TYPE_MESH), "mesh", mesh),
    ]);
    let apr = Appearance {
        version: 1,
        thumbnail: AssetRef::default(),
        bindings: vec![r(1, TYPE_BINDING)],
    };
    let budget = meshfmt_core::Budget::default();
    let opts = CoreOptions {
        budget: budget.clone(),
        ..CoreOptions::default()
    };
    apr.to_core_with(&CoreOptions {
        skeleton: Some(&skel),
        assets: Some(&files),
        ..opts.clone()
    })
    .unwrap();
    let needed = budget.used();
    // The mesh's 20 vertices of positions and normals at least.
    assert!(needed > 20 * 24, "{needed}");
    let tight = CoreOptions {
        budget: Budget::new(meshfmt_core::Limits {
            max_alloc_bytes: needed / 2,
            ..meshfmt_core::Limits::DEFAULT
        }),
        ..CoreOptions::default()
    };
    let err = apr
        .to_core_with(&CoreOptions {
            skeleton: Some(&skel),
            assets: Some(&files),
            ..tight.clone()
        })
        .unwrap_err();
    assert!(matches!(err, niotso_mesh::Error::OverBudget(_)), "{err}");
}

#[test]
fn a_companion_that_does_not_decode_is_an_error_naming_it() {
    let files = Memory(vec![file(
        "bad",
        r(1, TYPE_BINDING),
        "bnd",
        vec![0, 0, 0, 1, 9],
    )]);
    let apr = Appearance {
        version: 1,
        thumbnail: AssetRef::default(),
        bindings: vec![r(1, TYPE_BINDING)],
    };
    let err = apr
        .to_core_with(&CoreOptions {
            skeleton: None,
            assets: Some(&files),
            ..CoreOptions::default()
        })
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("niotso-mesh: bad.000000010000000b.bnd: "),
        "{err}"
    );
}

#[test]
fn loose_names() {
    assert_eq!(
        parse_loose_file_name("FSO-Accessory-CapeBlack.883209D300000009.mesh").map(|n| n.asset),
        Some(r(0x8832_09d3, 9))
    );
    // Sixteen characters, all hex, or it is not a loose name.
    assert_eq!(parse_loose_file_name("x.883209d30000000.mesh"), None);
    assert_eq!(parse_loose_file_name("x.883209d30000000g.mesh"), None);
    assert_eq!(parse_loose_file_name("883209d300000009.mesh"), None);
    assert_eq!(
        parse_loose_file_name("a.b.0000000100000002.bnd").map(|n| n.name),
        Some("a.b")
    );
}
