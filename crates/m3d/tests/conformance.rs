//! What `from_core` and the ASCII writer change, and that they say so truly: skin bytes
//! that sum to 255 with the real worst difference reported, and names the text form
//! rewrites reported as losses. Expected values are worked out by hand in the comments.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use m3d_format::{Body, File, Skin, WriteOptions};
use meshfmt_core::glam::{Vec2, Vec3};
use meshfmt_core::skin::VertexInfluences;
use meshfmt_core::{
    Bone, Clip, Feature, Loss, LossKind, Material, Model, Surface, Texture, TextureBinding,
    TextureRole, TextureSource, Transform,
};
use test_support::sample_file_or_skip;

/// One triangle whose three vertices all have `weights` on bones 0, 1, 2...
fn skinned(weights: &[f32]) -> Model {
    let mut m = Model::default();
    for i in 0..weights.len() {
        m.skeleton.bones.push(Bone {
            name: format!("b{i}"),
            parent: None,
            rest: Transform::IDENTITY,
            inverse_bind: None,
        });
    }
    let inf = VertexInfluences::from_pairs(weights.iter().enumerate().map(|(j, w)| (j as u32, *w)));
    m.surfaces.push(Surface {
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        indices: vec![0, 1, 2],
        skin: vec![inf; 3],
        ..Surface::default()
    });
    m
}

fn skins(f: &File) -> Vec<Skin> {
    f.chunks
        .iter()
        .find_map(|c| match &c.body {
            Body::Bone(s) => Some(s.skins.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// The reported skin bound (the sum of the Skin quantization losses), 0 when none.
fn skin_bound(losses: &[Loss]) -> f32 {
    losses
        .iter()
        .filter(|l| l.feature == Feature::Skin)
        .map(|l| match l.kind {
            LossKind::Quantized { max_error } => max_error,
            _ => panic!("skin loss not a quantization: {l:?}"),
        })
        .sum()
}

/// Worst weight difference per corner, joint by joint (a joint missing on one side
/// weighs 0), decoded joints matched to canonical bones by name.
fn skin_error(a: &Model, b: &Model) -> f32 {
    let corners = |m: &Model| -> Vec<VertexInfluences> {
        m.surfaces
            .iter()
            .flat_map(|s| s.indices.iter().map(|&i| s.skin[i as usize]))
            .collect()
    };
    let (ca, cb) = (corners(a), corners(b));
    assert_eq!(ca.len(), cb.len());
    let to_a = |j: u32| -> u32 {
        let name = &b.skeleton.bones[j as usize].name;
        a.skeleton
            .bones
            .iter()
            .position(|x| &x.name == name)
            .unwrap() as u32
    };
    let mut worst = 0.0f32;
    for (x, y) in ca.iter().zip(&cb) {
        let y: Vec<(u32, f32)> = y.pairs().map(|(j, w)| (to_a(j), w)).collect();
        let sum =
            |v: &[(u32, f32)], j: u32| v.iter().filter(|p| p.0 == j).map(|p| p.1).sum::<f32>();
        let x: Vec<(u32, f32)> = x.pairs().collect();
        for &(j, _) in x.iter().chain(&y) {
            worst = worst.max((sum(&x, j) - sum(&y, j)).abs());
        }
    }
    worst
}

/// The model back from `f` written in binary and as text: both must agree.
fn both_forms_back(f: &File) -> Model {
    let binary = m3d_format::read(&f.write().unwrap())
        .unwrap()
        .to_core()
        .unwrap()
        .value;
    let text = f.write_ascii().unwrap();
    let ascii = m3d_format::read(text.as_bytes())
        .unwrap()
        .to_core()
        .unwrap()
        .value;
    assert_eq!(
        binary.surfaces.iter().map(|s| &s.skin).collect::<Vec<_>>(),
        ascii.surfaces.iter().map(|s| &s.skin).collect::<Vec<_>>()
    );
    binary
}

#[test]
fn skin_bytes_sum_to_255_by_largest_remainder() {
    // CesiumMan's corner 2023. Shares of 255: 35.4195, 166.974, 40.4685, 12.138; floors
    // 35 + 166 + 40 + 12 = 253; the 2 steps left go to the largest remainders (.974 and
    // .4685): 35/167/41/12 = 255. (Rounding each gives 35/167/40/12 = 254, which the
    // reader renormalises: 167/254 = 0.6575, 2.7e-3 off.)
    let weights = [0.1389, 0.6548, 0.1587, 0.0476];
    let c = File::from_core_with(&skinned(&weights), &WriteOptions::default()).unwrap();
    let s = skins(&c.value);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].weights, [35, 167, 41, 12, 0, 0, 0, 0]);
    assert_eq!(s[0].weights.iter().map(|w| u32::from(*w)).sum::<u32>(), 255);
    // Read back as 35/255, 167/255, 41/255, 12/255: the worst is 41/255 - 0.1587 =
    // 0.0020843 (more than half a step, 0.00196: the sum forces one share of .4685 up).
    let worst = 41.0 / 255.0 - 0.1587;
    let bound = skin_bound(&c.losses);
    assert!(
        (bound - worst).abs() < 1e-6,
        "reported {bound}, by hand {worst}"
    );
    let back = both_forms_back(&c.value);
    let err = skin_error(&skinned(&weights), &back);
    assert!(
        (err - worst).abs() < 1e-6,
        "came back {err} off, by hand {worst}"
    );
    assert!(err <= bound, "error {err} > reported bound {bound}");
}

#[test]
fn a_weight_too_small_for_a_byte_is_not_stored() {
    // Shares 254.745 and 0.255: floors 254 and 0, the step left to .745: 255 and 0. The
    // format keeps no bone for a zero weight; read back as 1.0 and (missing) 0: 0.001 off
    // each. (A byte of 1 would make it 254/255 and 1/255: 2.9e-3 off.)
    let c = File::from_core_with(&skinned(&[0.999, 0.001]), &WriteOptions::default()).unwrap();
    let s = skins(&c.value);
    assert_eq!(s[0].weights, [255, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(s[0].bones, [m3d_format::Idx(0)]);
    let bound = skin_bound(&c.losses);
    assert!((bound - 0.001).abs() < 1e-6, "reported {bound}");
    let err = skin_error(&skinned(&[0.999, 0.001]), &both_forms_back(&c.value));
    assert!(
        (err - 0.001).abs() < 1e-6 && err <= bound,
        "{err} vs {bound}"
    );
}

#[test]
fn weights_bytes_hold_exactly_report_no_skin_loss() {
    // 1.0 is the byte 255, read back as 1.0: nothing changes, nothing to report.
    let c = File::from_core_with(&skinned(&[1.0]), &WriteOptions::default()).unwrap();
    assert_eq!(skins(&c.value)[0].weights, [255, 0, 0, 0, 0, 0, 0, 0]);
    assert!(
        c.losses.iter().all(|l| l.feature != Feature::Skin),
        "{:?}",
        c.losses
    );
    assert_eq!(
        skin_error(&skinned(&[1.0]), &both_forms_back(&c.value)),
        0.0
    );
}

#[test]
fn sample_skins_come_back_within_the_reported_bound() {
    let Some(path) = sample_file_or_skip(
        "m3d",
        "CesiumMan.m3d",
        "sample_skins_come_back_within_the_reported_bound",
    ) else {
        return;
    };
    let model = m3d_format::read(&std::fs::read(path).unwrap())
        .unwrap()
        .to_core()
        .unwrap()
        .value;
    let c = File::from_core_with(&model, &WriteOptions::default()).unwrap();
    for (s, sk) in skins(&c.value).iter().enumerate() {
        let sum: u32 = sk.weights.iter().map(|w| u32::from(*w)).sum();
        assert_eq!(sum, 255, "skin {s}: {:?}", sk.weights);
    }
    let bound = skin_bound(&c.losses);
    let err = skin_error(&model, &both_forms_back(&c.value));
    // Some weight moves (CesiumMan's are not all multiples of 1/255), by at most a step.
    assert!(
        err > 0.0 && err <= bound && bound < 1.0 / 255.0,
        "{err} vs {bound}"
    );
}

/// Bones, an action, a used material with a texture map, an unused material, and the
/// model's name, some with whitespace in their names.
fn named() -> Model {
    let mut m = Model {
        name: "line one\nline two".into(),
        ..Model::default()
    };
    for (i, name) in ["Bip01", "Bip01 Pelvis", "Bip01\tSpine"].iter().enumerate() {
        m.skeleton.bones.push(Bone {
            name: (*name).into(),
            parent: i.checked_sub(1),
            rest: Transform::IDENTITY,
            inverse_bind: None,
        });
    }
    m.animations.push(Clip {
        events: Vec::new(),
        name: "Walk Cycle".into(),
        channels: Vec::new(),
    });
    m.textures.push(Texture {
        name: "my tex".into(),
        source: TextureSource::Path("my tex.png".into()),
    });
    m.materials.push(Material {
        name: "Red Paint".into(),
        textures: vec![TextureBinding {
            role: TextureRole::BaseColor,
            texture: 0,
            uv_set: 0,
        }],
        ..Material::default()
    });
    m.materials.push(Material {
        name: "Spare Paint".into(),
        ..Material::default()
    });
    m.surfaces.push(Surface {
        name: "Red Paint".into(),
        material: Some(0),
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        uv0: vec![Vec2::ZERO; 3],
        indices: vec![0, 1, 2],
        ..Surface::default()
    });
    m
}

fn summary(losses: &[Loss]) -> Vec<(Feature, LossKind, String)> {
    let mut v: Vec<_> = losses
        .iter()
        .map(|l| (l.feature, l.kind.clone(), l.path.clone()))
        .collect();
    v.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    v
}

#[test]
fn names_the_text_form_rewrites_are_reported() {
    let c = File::from_core_with(&named(), &WriteOptions::default()).unwrap();
    assert!(
        c.losses
            .iter()
            .all(|l| l.feature != Feature::Names && l.feature != Feature::Materials),
        "the binary form keeps these names: {:?}",
        c.losses
    );
    let r = LossKind::Reduced;
    let mut want = vec![
        (
            Feature::Names,
            r.clone(),
            "name 'line one\nline two'".to_owned(),
        ),
        (Feature::Names, r.clone(), "BONE 'Bip01 Pelvis'".to_owned()),
        (Feature::Names, r.clone(), "BONE 'Bip01\tSpine'".to_owned()),
        (Feature::Names, r.clone(), "ACTN 'Walk Cycle'".to_owned()),
        // Surfaces are named after their material: the used one changes a surface name.
        (Feature::Names, r.clone(), "MTRL 'Red Paint'".to_owned()),
        (Feature::Materials, r.clone(), "MTRL 'Red Paint'".to_owned()),
        (
            Feature::Materials,
            r.clone(),
            "MTRL 'Spare Paint'".to_owned(),
        ),
        (
            Feature::Textures,
            r.clone(),
            "MTRL 'Red Paint' map 'my tex'".to_owned(),
        ),
    ];
    want.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    assert_eq!(summary(&c.value.ascii_losses()), want);

    // And they do change: read back from the text.
    let text = c.value.write_ascii().unwrap();
    let back = m3d_format::read(text.as_bytes())
        .unwrap()
        .to_core()
        .unwrap()
        .value;
    assert_eq!(back.name, "line one line two");
    let bones: Vec<&str> = back
        .skeleton
        .bones
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    assert_eq!(bones, ["Bip01", "Bip01_Pelvis", "Bip01_Spine"]);
    assert_eq!(back.animations[0].name, "Walk_Cycle");
    let materials: Vec<&str> = back.materials.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(materials, ["Red_Paint", "Spare_Paint"]);
    assert_eq!(back.surfaces[0].name, "Red_Paint");
    assert_eq!(back.textures[0].name, "my_tex");
}

#[test]
fn name_losses_are_listed_up_to_100_then_counted() {
    let mut m = Model::default();
    for i in 0..150 {
        m.skeleton.bones.push(Bone {
            name: format!("bone {i}"),
            parent: None,
            rest: Transform::IDENTITY,
            inverse_bind: None,
        });
    }
    let f = File::from_core_with(&m, &WriteOptions::default())
        .unwrap()
        .value;
    let losses = f.ascii_losses();
    assert_eq!(losses.len(), 101);
    assert!(
        losses
            .iter()
            .all(|l| l.feature == Feature::Names && l.kind == LossKind::Reduced)
    );
    assert_eq!(losses[0].path, "BONE 'bone 0'");
    assert_eq!(losses[99].path, "BONE 'bone 99'");
    assert_eq!(losses[100].path, "");
    assert!(
        losses[100]
            .reason
            .starts_with("50 more like this not listed: "),
        "{}",
        losses[100].reason
    );
}

#[test]
fn a_material_without_a_name_is_named_and_says_so() {
    // M3D finds materials by name: an unnamed one is written as "material0", and the
    // surface using it (unnamed too) comes back named after it.
    let mut m = Model::default();
    m.materials.push(Material {
        name: String::new(),
        ..Material::default()
    });
    m.surfaces.push(Surface {
        material: Some(0),
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        indices: vec![0, 1, 2],
        ..Surface::default()
    });
    let c = File::from_core_with(&m, &WriteOptions::default()).unwrap();
    let got: Vec<_> = summary(&c.losses)
        .into_iter()
        .filter(|l| matches!(l.0, Feature::Names | Feature::Materials))
        .collect();
    assert_eq!(
        got,
        [
            (
                Feature::Materials,
                LossKind::Reduced,
                "materials[0]".to_owned()
            ),
            (Feature::Names, LossKind::Dropped, "surfaces[0]".to_owned()),
        ]
    );
    let back = m3d_format::read(&c.value.write().unwrap())
        .unwrap()
        .to_core()
        .unwrap()
        .value;
    assert_eq!(back.materials[0].name, "material0");
    assert_eq!(back.surfaces[0].name, "material0");
}
