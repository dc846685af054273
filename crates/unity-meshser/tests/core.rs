//! meshfmt-core round trips of the canonical models: kept features come back within
//! the reported bounds, and every feature the format lacks is reported, never dropped
//! silently.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::glam::Vec3;
use meshfmt_core::{CoordinateSystem, Feature, LossKind, Model, Surface, canonical};
use test_support::{assert_close_vec2, assert_close_vec3};
use unity_meshser::{MeshFile, Quantization, WriteOptions};

fn bound(losses: &[meshfmt_core::Loss], feature: Feature) -> f32 {
    losses
        .iter()
        .find_map(|l| match l.kind {
            LossKind::Quantized { max_error } if l.feature == feature => Some(max_error),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no quantization reported for {feature}"))
}

fn dropped(losses: &[meshfmt_core::Loss]) -> Vec<Feature> {
    losses
        .iter()
        .filter(|l| l.kind == LossKind::Dropped)
        .map(|l| l.feature)
        .collect()
}

fn round_trip(model: &Model, mode: Quantization) -> (Model, Vec<meshfmt_core::Loss>) {
    let opts = WriteOptions {
        quantization: mode,
        tangents: true,
        ..WriteOptions::default()
    };
    let conv = MeshFile::from_core_with(model, &opts).unwrap();
    let bytes = conv.value.write().unwrap();
    let mut back = unity_meshser::read(&bytes).unwrap().to_core().unwrap();
    assert!(back.is_lossless(), "reading loses nothing");
    assert_eq!(back.value.coordinate_system, CoordinateSystem::Y_UP_LEFT);
    back.value.convert_to(model.coordinate_system);
    (back.value, conv.losses)
}

#[test]
fn kept_features_within_reported_bounds() {
    for c in canonical::ALL.iter().filter(|c| !c.large) {
        let model = (c.build)();
        for mode in [Quantization::Compatible, Quantization::Rounded] {
            let (back, losses) = round_trip(&model, mode);
            let s = &back.surfaces[0];
            let positions: Vec<_> = model
                .surfaces
                .iter()
                .flat_map(|s| s.positions.clone())
                .collect();
            let mut indices = Vec::new();
            let mut base = 0;
            for src in &model.surfaces {
                indices.extend(src.indices.iter().map(|i| i + base));
                base += src.positions.len() as u32;
            }
            assert_eq!(s.indices, indices, "{}: triangles exact", c.name);
            if positions.is_empty() {
                continue;
            }
            assert_close_vec3(
                c.name,
                &s.positions,
                &positions,
                bound(&losses, Feature::Geometry),
            );
            if model
                .surfaces
                .iter()
                .all(|s| s.positions.is_empty() || !s.normals.is_empty())
            {
                let normals: Vec<_> = model
                    .surfaces
                    .iter()
                    .flat_map(|s| s.normals.clone())
                    .collect();
                assert_close_vec3(
                    c.name,
                    &s.normals,
                    &normals,
                    bound(&losses, Feature::Normals),
                );
            }
            if model
                .surfaces
                .iter()
                .all(|s| s.positions.is_empty() || !s.uv0.is_empty())
            {
                let uv: Vec<_> = model.surfaces.iter().flat_map(|s| s.uv0.clone()).collect();
                assert_close_vec2(c.name, &s.uv0, &uv, bound(&losses, Feature::Uv0));
            }
        }
    }
}

#[test]
fn missing_features_are_reported() {
    let (_, losses) = round_trip(&canonical::skinned_arm(), Quantization::Rounded);
    let d = dropped(&losses);
    for f in [Feature::Skin, Feature::Skeleton, Feature::Animation] {
        assert!(d.contains(&f), "{f} not reported: {losses:?}");
    }
    let (_, losses) = round_trip(&canonical::multi_surface(), Quantization::Rounded);
    let d = dropped(&losses);
    for f in [
        Feature::Uv1,
        Feature::Colors,
        Feature::Materials,
        Feature::Textures,
    ] {
        assert!(d.contains(&f), "{f} not reported");
    }
    let text: Vec<String> = losses.iter().map(ToString::to_string).collect();
    assert!(
        text.contains(&"uv1 dropped: unity-meshser has no second UV set".to_string()),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|t| t.contains("3 surfaces merged into one mesh"))
    );
    let (_, losses) = round_trip(&canonical::morph(), Quantization::Rounded);
    assert!(dropped(&losses).contains(&Feature::MorphTargets));
    // The cube keeps everything it has but its material and names.
    let (_, losses) = round_trip(&canonical::cube(), Quantization::Rounded);
    assert_eq!(dropped(&losses), [Feature::Materials, Feature::Names]);
}

#[test]
fn tangents_can_be_left_out_and_say_so() {
    let opts = WriteOptions {
        quantization: Quantization::Rounded,
        tangents: false,
        ..WriteOptions::default()
    };
    let conv = MeshFile::from_core_with(&canonical::cube(), &opts).unwrap();
    assert!(conv.value.tangents.is_empty());
    assert!(
        conv.losses
            .iter()
            .any(|l| l.feature == Feature::Tangents && l.kind == LossKind::Dropped)
    );
}

#[test]
fn v_is_flipped_between_unity_and_meshfmt_core() {
    // Unity's UV origin is bottom-left, meshfmt-core's (glTF's) top-left.
    use meshfmt_core::Surface;
    use meshfmt_core::glam::{Vec2, Vec3};
    let s = Surface {
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        uv0: vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.25),
            Vec2::new(0.5, 1.0),
        ],
        indices: vec![0, 1, 2],
        ..Default::default()
    };
    let file = MeshFile::from_surface(&s, &WriteOptions::default()).unwrap();
    // As Unity stores it (to_surface) ...
    let unity = file.to_surface();
    assert_close_vec2("unity uv", &unity.uv0, &s.uv0, 2e-5);
    // ... and in meshfmt-core: v' = 1 - v.
    let core = file.to_core().unwrap().value;
    let flipped = [
        Vec2::new(0.0, 1.0),
        Vec2::new(1.0, 0.75),
        Vec2::new(0.5, 0.0),
    ];
    assert_close_vec2("core uv", &core.surfaces[0].uv0, &flipped, 2e-5);
    // from_core flips back.
    let again = MeshFile::from_core_with(&core, &WriteOptions::default())
        .unwrap()
        .value;
    assert_close_vec2("again", &again.to_surface().uv0, &s.uv0, 4e-5);
}

#[test]
fn position_bound_is_reported_in_the_models_units() {
    // A model in centimeters: the file stores meters, so an error of e meters is 100 e
    // in the model's units, and the reported bound must say so.
    let mut rng = test_support::Rng::new(7);
    let positions: Vec<Vec3> = (0..500)
        .map(|_| {
            Vec3::new(
                rng.range(0.0, 300.0),
                rng.range(0.0, 300.0),
                rng.range(0.0, 300.0),
            )
        })
        .collect();
    let model = Model {
        coordinate_system: CoordinateSystem {
            meters_per_unit: 0.01,
            ..CoordinateSystem::Y_UP_LEFT
        },
        surfaces: vec![Surface {
            indices: (0..498).collect(),
            positions: positions.clone(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let c = MeshFile::from_core_with(&model, &WriteOptions::default()).unwrap();
    let bound = c
        .losses
        .iter()
        .find_map(|l| match l.kind {
            LossKind::Quantized { max_error } if l.feature == Feature::Geometry => Some(max_error),
            _ => None,
        })
        .unwrap();
    let mut back = c.value.to_core().unwrap().value;
    back.convert_to(model.coordinate_system);
    let worst = positions
        .iter()
        .zip(&back.surfaces[0].positions)
        .map(|(a, b)| (*a - *b).abs().max_element())
        .fold(0.0f32, f32::max);
    // Half a step of a 3-unit box over 65535 steps, in centimeters: about 2.3e-3.
    assert!(worst > 1e-3, "{worst}");
    assert!(worst <= bound * 1.0001, "error {worst} > reported {bound}");
    assert!(bound < 3e-3, "{bound}");
}
