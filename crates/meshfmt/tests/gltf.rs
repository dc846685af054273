//! glTF export, checked against values worked out by hand from the canonical models
//! (never against our own output): the GLB layout, accessors and their bounds, the
//! frame change, the skin and the animation.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use gltf_json as json;
use meshfmt::gltf::{Container, export};
use meshfmt_core::Budget;
use meshfmt_core::glam::Vec3;
use meshfmt_core::{CoordinateSystem, Model, Surface, canonical};

/// Splits a GLB into its JSON document and BIN chunk, checking the container rules.
fn parse_glb(glb: &[u8]) -> (json::Root, Vec<u8>) {
    let u32_at = |o: usize| u32::from_le_bytes(glb[o..o + 4].try_into().unwrap()) as usize;
    assert_eq!(&glb[..4], b"glTF");
    assert_eq!(u32_at(4), 2);
    assert_eq!(u32_at(8), glb.len());
    let json_len = u32_at(12);
    assert_eq!(&glb[16..20], b"JSON");
    assert_eq!(json_len % 4, 0);
    let root = json::deserialize::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin = if glb.len() > 20 + json_len {
        let at = 20 + json_len;
        assert_eq!(&glb[at + 4..at + 8], b"BIN\0");
        let n = u32_at(at);
        assert_eq!(n % 4, 0);
        glb[at + 8..at + 8 + n].to_vec()
    } else {
        Vec::new()
    };
    (root, bin)
}

fn floats(root: &json::Root, bin: &[u8], accessor: usize) -> Vec<f32> {
    let a = &root.accessors[accessor];
    let view = &root.buffer_views[a.buffer_view.unwrap().value()];
    let start = view.byte_offset.map_or(0, |o| o.0 as usize);
    bin[start..start + view.byte_length.0 as usize]
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn z_up_triangle_becomes_y_up() {
    // A triangle in UNIGINE's frame (+Z up, right-handed): glTF's +Y is its +Z and
    // glTF's -Z its +Y, so (0, 1, 0) -> (0, 0, -1) and (0, 0, 1) -> (0, 1, 0).
    let model = Model {
        coordinate_system: CoordinateSystem::Z_UP_RIGHT,
        surfaces: vec![Surface {
            name: "tri".into(),
            positions: vec![Vec3::ZERO, Vec3::Y, Vec3::Z],
            normals: vec![Vec3::X; 3],
            indices: vec![0, 1, 2],
            ..Default::default()
        }],
        ..Default::default()
    };
    let out = export(&model, Container::Glb, &Budget::default()).unwrap();
    assert!(out.losses.is_empty(), "{:?}", out.losses);
    let (root, bin) = parse_glb(&out.value.main);
    assert_eq!(root.asset.version, "2.0");
    assert_eq!(root.meshes.len(), 1);
    let prim = &root.meshes[0].primitives[0];
    let pos =
        prim.attributes[&json::validation::Checked::Valid(json::mesh::Semantic::Positions)].value();
    assert_eq!(
        floats(&root, &bin, pos),
        [0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0]
    );
    let a = &root.accessors[pos];
    assert_eq!(a.min.as_ref().unwrap().to_string(), "[0.0,0.0,-1.0]");
    assert_eq!(a.max.as_ref().unwrap().to_string(), "[0.0,1.0,0.0]");
    // Three vertices fit u16 indices: 0, 1, 2 and two bytes of padding before the next view.
    let idx = &root.accessors[prim.indices.unwrap().value()];
    assert_eq!(idx.count.0, 3);
    assert!(matches!(
        idx.component_type,
        json::validation::Checked::Valid(json::accessor::GenericComponentType(
            json::accessor::ComponentType::U16
        ))
    ));
    assert_eq!(root.meshes[0].name.as_deref(), Some("tri"));
}

#[test]
fn skinned_arm_skin_and_animation() {
    let model = canonical::skinned_arm();
    let out = export(&model, Container::Glb, &Budget::default()).unwrap();
    let (root, bin) = parse_glb(&out.value.main);
    // Two bone nodes (shoulder -> elbow) and one mesh node.
    assert_eq!(root.nodes.len(), 3);
    assert_eq!(root.nodes[0].name.as_deref(), Some("shoulder"));
    assert_eq!(root.nodes[1].name.as_deref(), Some("elbow"));
    assert_eq!(root.nodes[0].children.as_ref().unwrap()[0].value(), 1);
    assert_eq!(root.nodes[1].translation, Some([1.0, 0.0, 0.0]));
    let skin = &root.skins[0];
    assert_eq!(skin.joints.len(), 2);
    // Inverse bind matrices: identity for the shoulder; translate(-1, 0, 0) for the
    // elbow at x = 1 (column-major, translation in elements 12..15).
    let ibm = floats(&root, &bin, skin.inverse_bind_matrices.unwrap().value());
    let mut elbow = [0.0f32; 16];
    (elbow[0], elbow[5], elbow[10], elbow[15], elbow[12]) = (1.0, 1.0, 1.0, 1.0, -1.0);
    assert_eq!(&ibm[16..], elbow);
    // The 4 vertices of ring x = 1 have weights 0.5 / 0.5 on joints 0 and 1.
    let prim = &root.meshes[0].primitives[0];
    let w = prim.attributes[&json::validation::Checked::Valid(json::mesh::Semantic::Weights(0))]
        .value();
    let weights = floats(&root, &bin, w);
    assert_eq!(&weights[8 * 4..8 * 4 + 4], [0.5, 0.5, 0.0, 0.0]);
    assert_eq!(&weights[..4], [1.0, 0.0, 0.0, 0.0]);
    // Clip "bend": elbow translation and rotation, keys at 0, 0.5, 1 s; the rotation at
    // 1 s is 90 degrees about +Z = (0, 0, sin 45, cos 45).
    let anim = &root.animations[0];
    assert_eq!(anim.name.as_deref(), Some("bend"));
    assert_eq!(anim.channels.len(), 2);
    let rot = anim
        .channels
        .iter()
        .find(|c| {
            c.target.path == json::validation::Checked::Valid(json::animation::Property::Rotation)
        })
        .unwrap();
    assert_eq!(rot.target.node.value(), 1);
    let sampler = &anim.samplers[rot.sampler.value()];
    assert_eq!(floats(&root, &bin, sampler.input.value()), [0.0, 0.5, 1.0]);
    let input = &root.accessors[sampler.input.value()];
    assert_eq!(input.max.as_ref().unwrap().to_string(), "[1.0]");
    let q = floats(&root, &bin, sampler.output.value());
    let s = std::f32::consts::FRAC_1_SQRT_2;
    assert!((q[8] - 0.0).abs() < 1e-6 && (q[10] - s).abs() < 1e-6 && (q[11] - s).abs() < 1e-6);
}

#[test]
fn containers_and_repairs() {
    let model = canonical::multi_surface();
    let sep = export(
        &model,
        Container::Separate("m.bin".into()),
        &Budget::default(),
    )
    .unwrap()
    .value;
    let root: json::Root = json::deserialize::from_slice(&sep.main).unwrap();
    let bin = sep.buffer.unwrap();
    assert_eq!(root.buffers[0].uri.as_deref(), Some("m.bin"));
    assert_eq!(root.buffers[0].byte_length.0 as usize, bin.len());
    assert_eq!(root.materials.len(), model.materials.len());
    let emb = export(&model, Container::Embedded, &Budget::default())
        .unwrap()
        .value;
    let root: json::Root = json::deserialize::from_slice(&emb.main).unwrap();
    let uri = root.buffers[0].uri.as_deref().unwrap();
    assert!(uri.starts_with("data:application/octet-stream;base64,"));
    // base64 is 4 characters per 3 bytes.
    assert_eq!(uri.len() - 37, bin.len().div_ceil(3) * 4);

    // Things glTF cannot take as given are repaired or left out, and reported.
    let mut bad = canonical::skinned_arm();
    bad.surfaces[0].normals[0] = Vec3::ZERO;
    bad.surfaces[0].skin[0].weights[0] = 0.25;
    bad.animations[0].channels[0].rotation.times[2] = 0.5; // repeats the previous time
    bad.surfaces.push(Surface::default());
    let out = export(&bad, Container::Glb, &Budget::default()).unwrap();
    let text: Vec<String> = out.losses.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 4, "{text:#?}");
    assert!(text[0].contains("normals"), "{text:#?}");
    let (root, _) = parse_glb(&out.value.main);
    assert_eq!(root.meshes.len(), 1, "the empty surface is left out");
}

#[test]
fn canonical_models_come_back_from_gltf() {
    // read(write(model)) == model for everything glTF holds as given: the canonical
    // models are already in glTF's frame with unit normals and normalized weights.
    for name in [
        "cube",
        "multi_surface",
        "skinned_arm",
        "skinned_arm3",
        "morph",
    ] {
        let model = (canonical::by_name(name).unwrap().build)();
        for container in [Container::Glb, Container::Embedded] {
            let out = export(&model, container.clone(), &Budget::default()).unwrap();
            assert!(out.losses.is_empty(), "{name}: {:?}", out.losses);
            let back = meshfmt::gltf::import(&out.value.main, None, &Budget::default()).unwrap();
            assert!(back.losses.is_empty(), "{name}: {:?}", back.losses);
            let back = back.value;
            assert_eq!(back.surfaces.len(), model.surfaces.len(), "{name}");
            for (a, b) in model.surfaces.iter().zip(&back.surfaces) {
                assert_eq!(a.positions, b.positions, "{name}");
                assert_eq!(a.normals, b.normals, "{name}");
                assert_eq!(a.tangents, b.tangents, "{name}");
                assert_eq!(a.uv0, b.uv0, "{name}");
                assert_eq!(a.uv1, b.uv1, "{name}");
                assert_eq!(a.colors, b.colors, "{name}");
                assert_eq!(a.indices, b.indices, "{name}");
                assert_eq!(a.material, b.material, "{name}");
                assert_eq!(a.skin, b.skin, "{name}");
                assert_eq!(a.morph_targets.len(), b.morph_targets.len(), "{name}");
                for (m, n) in a.morph_targets.iter().zip(&b.morph_targets) {
                    assert_eq!(m.position_deltas(&a.positions), n.positions, "{name}");
                }
            }
            assert_eq!(back.skeleton.bones.len(), model.skeleton.bones.len());
            for (a, b) in model.skeleton.bones.iter().zip(&back.skeleton.bones) {
                assert_eq!(
                    (&a.name, a.parent, a.rest),
                    (&b.name, b.parent, b.rest),
                    "{name}"
                );
            }
            assert_eq!(back.animations, model.animations, "{name}");
            assert_eq!(back.materials, model.materials, "{name}");
            assert_eq!(back.textures, model.textures, "{name}");
        }
    }
}

#[test]
fn hostile_gltf_is_refused_cleanly() {
    let model = canonical::skinned_arm();
    let glb = export(&model, Container::Glb, &Budget::default())
        .unwrap()
        .value
        .main;
    // Every truncation: an error, never a panic.
    for n in 0..glb.len() {
        let _ = meshfmt::gltf::import(&glb[..n], None, &Budget::default());
    }
    // Every byte flipped: an error or a model, never a panic.
    for at in 0..glb.len() {
        let mut b = glb.clone();
        b[at] ^= 0x41;
        let _ = meshfmt::gltf::import(&b, None, &Budget::default());
    }
    // An accessor claiming far more elements than its view holds.
    let text = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":12,"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAA"}],
        "bufferViews":[{"buffer":0,"byteLength":12}],
        "accessors":[{"bufferView":0,"componentType":5126,"count":2147483647,"type":"VEC3"}],
        "meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}]}"#;
    let e = meshfmt::gltf::import(text.as_bytes(), None, &Budget::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("do not fit"), "{e}");
    // A node that is its own ancestor.
    let text = r#"{"asset":{"version":"2.0"},"nodes":[{"children":[1]},{"children":[0]}]}"#;
    let e = meshfmt::gltf::import(text.as_bytes(), None, &Budget::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("cycle") || e.contains("two parents"), "{e}");
}

/// Corner positions, in the model's own frame converted to glTF's.
fn corner_positions(m: &Model) -> Vec<Vec3> {
    let mut m = m.clone();
    m.convert_to(CoordinateSystem::GLTF);
    m.surfaces
        .iter()
        .flat_map(|s| {
            s.indices
                .iter()
                .map(|&i| s.positions[i as usize])
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn gltf_to_every_format_and_back_keeps_what_the_format_holds() {
    // glTF -> format -> glTF: the second glTF holds exactly what the format decoded to
    // (positions, bone names, clip count), so nothing the format kept is lost on the way
    // back out.
    let source = export(
        &canonical::skinned_arm3(),
        Container::Glb,
        &Budget::default(),
    )
    .unwrap()
    .value
    .main;
    let model = meshfmt::gltf::import(&source, None, &Budget::default())
        .unwrap()
        .value;
    let mut checked = 0;
    for f in meshfmt::formats::FORMATS {
        if matches!(f.info().name, "gltf" | "obj") {
            continue;
        }
        let name = format!("x.{}", f.info().extensions[0]);
        let Ok(bytes) = meshfmt::formats::encode(*f, &model, &name, &Budget::default()) else {
            continue;
        };
        let decoded = meshfmt::formats::to_core(*f, &bytes.value, &name, &Budget::default())
            .unwrap()
            .value;
        let again = export(&decoded, Container::Glb, &Budget::default())
            .unwrap()
            .value
            .main;
        let back = meshfmt::gltf::import(&again, None, &Budget::default())
            .unwrap()
            .value;
        assert_eq!(
            corner_positions(&decoded),
            corner_positions(&back),
            "{}",
            f.info().name
        );
        let names = |m: &Model| {
            m.skeleton
                .bones
                .iter()
                .map(|b| b.name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&decoded), names(&back), "{}", f.info().name);
        assert_eq!(
            decoded.animations.len(),
            back.animations.len(),
            "{}",
            f.info().name
        );
        checked += 1;
    }
    assert!(checked >= 4, "{checked}");
}

#[test]
fn an_empty_model_exports_and_imports() {
    // Found by fuzzing: an empty scene list was written and could not be read back.
    let out = export(&Model::default(), Container::Glb, &Budget::default())
        .unwrap()
        .value
        .main;
    let back = meshfmt::gltf::import(&out, None, &Budget::default())
        .unwrap()
        .value;
    assert!(back.surfaces.is_empty() && back.skeleton.bones.is_empty());
}

/// Clip events travel in the animation's extras (`meshfmt_events`), bones by name; a
/// format without events says it drops them.
#[test]
fn clip_events_survive_gltf_and_are_reported_where_dropped() {
    use meshfmt_core::ClipEvent;
    let mut model = canonical::skinned_arm();
    let events = vec![
        ClipEvent {
            time: 0.25,
            bone: Some(1),
            props: vec![("sound".into(), "creak \"door\"".into())],
        },
        ClipEvent {
            time: 0.5,
            bone: None,
            props: vec![("xevt".into(), "1".into()), ("xevt".into(), "2".into())],
        },
    ];
    model.animations[0].events = events.clone();
    let glb = meshfmt::formats::by_name("gltf").unwrap();
    let bytes = meshfmt::formats::encode(glb, &model, "arm.glb", &Budget::default()).unwrap();
    let (root, _) = parse_glb(&bytes.value);
    let extras = root.animations[0]
        .extras
        .as_ref()
        .unwrap()
        .get()
        .to_string();
    assert!(extras.contains(r#""bone":"elbow""#), "{extras}");
    let back = meshfmt::formats::to_core(glb, &bytes.value, "arm.glb", &Budget::default()).unwrap();
    assert!(back.losses.is_empty(), "{:?}", back.losses);
    let names: Vec<&str> = back
        .value
        .skeleton
        .bones
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    // (time, bone name, props): bones compared by name, since import may renumber them.
    type Named<'a> = (f32, Option<&'a str>, Vec<(String, String)>);
    let got: Vec<Named> = back.value.animations[0]
        .events
        .iter()
        .map(|e| (e.time, e.bone.map(|b| names[b]), e.props.clone()))
        .collect();
    let want: Vec<Named> = events
        .iter()
        .map(|e| {
            (
                e.time,
                e.bone.map(|b| model.skeleton.bones[b].name.as_str()),
                e.props.clone(),
            )
        })
        .collect();
    assert_eq!(got, want);
    let anim = meshfmt::formats::by_name("unigine-anim").unwrap();
    let an10 = meshfmt::formats::encode(anim, &model, "arm.anim", &Budget::default()).unwrap();
    assert!(
        an10.losses.iter().any(|l| l.reason
            == "2 events (timed properties) dropped: a UNIGINE animation file stores none"),
        "{:?}",
        an10.losses
    );
}

/// Every writer but glTF's and Vitaboy's (which store clip events) says where events
/// went: dropped with their clip, or dropped alone (docs/ARCHITECTURE.md, mesh-core).
#[test]
fn every_writer_without_events_reports_them() {
    use meshfmt_core::ClipEvent;
    let mut model = canonical::skinned_arm();
    model.animations[0].events = vec![ClipEvent {
        time: 0.25,
        bone: Some(1),
        props: vec![("sound".into(), "creak".into())],
    }];
    for f in meshfmt::formats::FORMATS {
        let info = f.info();
        if !info.can_write || ["gltf", "niotso-mesh"].contains(&info.name) {
            continue;
        }
        let name = format!("arm.{}", info.extensions[0]);
        let out = meshfmt::formats::encode(*f, &model, &name, &Budget::default()).unwrap();
        // Events named, or every clip dropped (a format with no animation at all).
        assert!(
            out.losses.iter().any(|l| l.reason.contains("events")
                || (l.feature == meshfmt_core::Feature::Animation
                    && l.kind == meshfmt_core::LossKind::Dropped
                    && l.path.is_empty())),
            "{}: events not reported: {:?}",
            info.name,
            out.losses
        );
    }
}
