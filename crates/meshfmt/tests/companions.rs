//! `convert` with companion inputs (`--anim`, `--skeleton`, Vitaboy appearances), split
//! outputs (`--anims-dir`) and the loss report (`--report`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use meshfmt_core::glam::{Quat, Vec3};
use meshfmt_core::{Budget, Channel, Clip, Model, TextureSource, Track, canonical};
use serde_json::Value;

fn meshfmt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshfmt"))
        .args(args)
        .output()
        .expect("the meshfmt binary runs")
}

#[track_caller]
fn ok(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    stderr
}

/// A fresh folder for one test.
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("meshfmt-comp-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A glTF (or any) file read into meshfmt-core.
fn read_model(path: &Path) -> Model {
    let bytes = std::fs::read(path).unwrap();
    let name = path.to_string_lossy();
    let f = meshfmt::formats::detect(&bytes, &name).unwrap();
    meshfmt::formats::to_core(f, &bytes, &name, &Budget::default())
        .unwrap()
        .value
}

fn report(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

fn find_channel<'a>(m: &'a Model, clip: &str, bone: &str) -> &'a Channel {
    let c = m.animations.iter().find(|c| c.name == clip).unwrap();
    let b = m.skeleton.find(bone).unwrap();
    c.channels.iter().find(|ch| ch.bone == b).unwrap()
}

/// The canonical arm's skeleton and "bend" clip under another clip name, with an extra
/// root bone "tail" animated too when `tail`.
fn arm_clip(name: &str, tail: bool) -> Model {
    let mut m = canonical::skinned_arm();
    m.surfaces.clear();
    m.name.clear();
    m.animations[0].name = name.into();
    if tail {
        m.skeleton.bones.push(meshfmt_core::Bone {
            name: "tail".into(),
            ..Default::default()
        });
        m.animations[0].channels.push(Channel {
            bone: 2,
            translation: Track::from_keys([(0.0, Vec3::X), (1.0, Vec3::Y)]),
            ..Channel::default()
        });
    }
    m
}

fn an10(model: &Model) -> Vec<u8> {
    unigine_anim::AnimFile::from_core_with(
        model,
        &unigine_anim::WriteOptions {
            version: unigine_anim::TargetVersion::An10,
            fps: 30.0,
            ..Default::default()
        },
    )
    .unwrap()
    .value
    .write()
    .unwrap()
}

/// Within an10's quantization of the canonical arm's clip: rotations in steps of
/// 1/32767 renormalized, translations in boxes of the arm's size.
const AN10_TOLERANCE: f32 = 2e-4;

#[test]
fn anim_patterns_attach_clips_by_bone_name() {
    let d = dir("patterns");
    let arm = fixture("unigine-mesh/skinned_arm.ms11.mesh");
    std::fs::create_dir_all(d.join("anims")).unwrap();
    std::fs::write(d.join("anims/run_a.anim"), an10(&arm_clip("run_a", true))).unwrap();
    // Bones in the other order: channels still find them by name.
    let mut reversed = arm_clip("run_b", false);
    reversed.skeleton.bones.reverse();
    reversed.skeleton.bones[0].parent = None;
    reversed.skeleton.bones[1].parent = Some(0);
    for ch in &mut reversed.animations[0].channels {
        ch.bone = 1 - ch.bone;
    }
    std::fs::write(d.join("anims/run_b.anim"), an10(&reversed)).unwrap();
    std::fs::write(d.join("anims/walk.anim"), an10(&arm_clip("walk", false))).unwrap();
    let glb = d.join("arm.glb");
    let json = d.join("report.json");
    let pattern = d.join("anims/run_*.anim");
    let out = meshfmt(&[
        "convert",
        s(&arm),
        "--anim",
        s(&pattern),
        s(&glb),
        "--report",
        s(&json),
    ]);
    let stderr = ok(&out);
    // The fixture's own clip, then the two the pattern matched (sorted), not "walk".
    let m = read_model(&glb);
    let names: Vec<&str> = m.animations.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["bend", "run_a", "run_b"]);
    // Keys: the canonical clip's, through an10 and glTF (same frame as the canonical).
    let bend = canonical::skinned_arm();
    for clip in ["run_a", "run_b"] {
        // Resampled at 30 frames per second: 31 keys, each the canonical clip's value
        // at its time.
        let got = find_channel(&m, clip, "elbow");
        let want = &bend.animations[0].channels[0];
        assert_eq!(got.rotation.values.len(), 31);
        for (t, a) in got.rotation.times.iter().zip(&got.rotation.values) {
            let b = want.rotation.sample(*t).unwrap();
            assert!(
                a.dot(b).abs() > 1.0 - AN10_TOLERANCE,
                "{clip} t={t}: {a} {b}"
            );
        }
    }
    // The tail is named in the note and in the report, at run_a's place.
    assert!(
        stderr.contains("meshfmt: note: animation dropped at animations[1]: clip 'run_a': 1 of 2 channels name bones not in the model's skeleton: 'tail'"),
        "{stderr}"
    );
    let r = report(&json);
    assert_eq!(r["input"], s(&arm));
    assert_eq!(r["output"], s(&glb));
    assert_eq!(r["written"], true);
    assert_eq!(strings(&r["files"]), [s(&glb)]);
    let losses = r["losses"].as_array().unwrap();
    let tail: Vec<&Value> = losses
        .iter()
        .filter(|l| l["reason"].as_str().unwrap().contains("'tail'"))
        .collect();
    assert_eq!(tail.len(), 1);
    assert_eq!(tail[0]["feature"], "animation");
    assert_eq!(tail[0]["kind"], "dropped");
    assert_eq!(tail[0]["path"], "animations[1]");
    assert!(tail[0].get("bound").is_none());
    assert_eq!(r["warnings"].as_array().unwrap().len(), 0);

    // A pattern that matches nothing, or wildcards in a folder: usage errors.
    let none = d.join("anims/jump_*.anim");
    let out = meshfmt(&["convert", s(&arm), "--anim", s(&none), s(&glb)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("matches no file"));
    let folder = d.join("an*/run_a.anim");
    let out = meshfmt(&["convert", s(&arm), "--anim", s(&folder), s(&glb)]);
    assert_eq!(out.status.code(), Some(2));
    // A file holding no animation is a warning (an error under --strict).
    let cube = fixture("unity-meshser/cube.bytes");
    let out = meshfmt(&["convert", s(&arm), "--anim", s(&cube), s(&glb)]);
    assert!(ok(&out).contains(
        "meshfmt: warning: --anim cube.bytes: this unity-meshser file holds no animation"
    ));
    let out = meshfmt(&["convert", "--strict", s(&arm), "--anim", s(&cube), s(&glb)]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn split_outputs_one_an10_per_clip_with_safe_names() {
    let d = dir("split-unigine");
    let arm = fixture("unigine-mesh/skinned_arm.ms11.mesh");
    // Two clips whose names make the same file name (ignoring case).
    let mut two = arm_clip("Run Fast", false);
    let mut second = two.animations[0].clone();
    second.name = "run_fast".into();
    // The second clip holds the elbow straight.
    second.channels[0].rotation = Track::from_keys([(0.0, Quat::IDENTITY), (1.0, Quat::IDENTITY)]);
    two.animations.push(second);
    std::fs::write(d.join("two.anim"), an10(&two)).unwrap();
    let mesh = d.join("out/arm.mesh");
    let clips = d.join("out/clips");
    let json = d.join("report.json");
    let out = meshfmt(&[
        "convert",
        s(&arm),
        "--anim",
        s(&d.join("two.anim")),
        "--to",
        "unigine-mesh",
        s(&mesh),
        "--anims-dir",
        s(&clips),
        "--report",
        s(&json),
    ]);
    ok(&out);
    let files = [
        mesh.clone(),
        clips.join("bend.anim"),
        clips.join("Run_Fast.anim"),
        clips.join("run_fast-2.anim"),
    ];
    let r = report(&json);
    assert_eq!(
        strings(&r["files"]),
        files.iter().map(|f| s(f).to_string()).collect::<Vec<_>>()
    );
    // The mesh keeps no clip; each file holds one, named as the clip, on the mesh's
    // two bones.
    let info = meshfmt(&["info", "--json", s(&mesh)]);
    assert!(String::from_utf8_lossy(&info.stdout).contains("\"bones\":2,\"animations\":0"));
    for (file, name) in files[1..].iter().zip(["bend", "Run Fast", "run_fast"]) {
        let unigine_anim::AnimFile::An10(a) =
            unigine_anim::read(&std::fs::read(file).unwrap()).unwrap()
        else {
            panic!("{} is not an10", file.display())
        };
        assert_eq!(a.animations.len(), 1);
        assert_eq!(a.animations[0].name.to_string(), name);
        assert_eq!(a.bones.len(), 2);
    }
    // Keys re-read within the bound the report gives for each clip.
    let canonical = canonical::skinned_arm();
    let quantized: Vec<&Value> = r["losses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["kind"] == "quantized" && l["feature"] == "animation")
        .collect();
    assert_eq!(
        quantized
            .iter()
            .map(|l| l["path"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["animations[0]", "animations[1]", "animations[2]"]
    );
    let bound = quantized[2]["bound"].as_f64().unwrap() as f32;
    assert!(bound > 0.0 && bound < 1e-3, "{bound}");
    let back = read_model(&clips.join("run_fast-2.anim"));
    let elbow = find_channel(&back, "run_fast", "elbow");
    for q in &elbow.rotation.values {
        // Identity within the bound (sign free).
        assert!(
            (q.w.abs() - 1.0).abs() <= bound && q.x.abs() <= bound,
            "{q}"
        );
    }
    let back = read_model(&clips.join("Run_Fast.anim"));
    let elbow = find_channel(&back, "Run Fast", "elbow");
    // The canonical elbow keys, converted to UNIGINE's frame.
    let c = canonical
        .coordinate_system
        .conversion_to(&meshfmt_core::CoordinateSystem::Z_UP_RIGHT);
    assert_eq!(elbow.rotation.values.len(), 31);
    for (t, a) in elbow.rotation.times.iter().zip(&elbow.rotation.values) {
        let b = c.rotation(
            canonical.animations[0].channels[0]
                .rotation
                .sample(*t)
                .unwrap(),
        );
        assert!(a.dot(b).abs() > 1.0 - AN10_TOLERANCE, "t={t}: {a} {b}");
    }

    // Formats that keep their clips (or have no animation files) refuse --anims-dir.
    let out = meshfmt(&[
        "convert",
        s(&arm),
        s(&d.join("x.glb")),
        "--anims-dir",
        s(&clips),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("split outputs are for unigine-mesh (ms11, mi08, ms08, ms10, ms13, ms14, ms15, sk10), niotso-mesh (mesh, apr)")
    );
    // Without --anims-dir, a clip-less target says how to keep the clips.
    let out = meshfmt(&[
        "convert",
        s(&arm),
        "--version",
        "ms14",
        s(&d.join("x.mesh")),
    ]);
    assert!(
        ok(&out).contains("meshfmt: warning: unigine-mesh holds no clips: --anims-dir DIR writes the 1 clips as animation files")
    );
    // Batch mode takes neither --anims-dir nor --report.
    let out = meshfmt(&[
        "convert",
        "--out-dir",
        s(&d),
        "--to",
        "glb",
        s(&arm),
        "--report",
        s(&json),
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// The canonical arm's bones renamed to the adult skeleton's left arm.
fn vitaboy_arm() -> Model {
    let mut m = canonical::skinned_arm();
    m.skeleton.bones[0].name = "L_ARM".into();
    m.skeleton.bones[1].name = "L_ARM1".into();
    m
}

#[test]
fn vitaboy_mesh_skeleton_and_anim_into_glb_and_back() {
    let d = dir("vitaboy");
    let skel = fixture("niotso-mesh/adult.skel");
    let arm = vitaboy_arm();
    let mesh = d.join("body.mesh");
    std::fs::write(
        &mesh,
        niotso_mesh::Mesh::from_core(&arm)
            .unwrap()
            .value
            .write()
            .unwrap(),
    )
    .unwrap();
    // A clip on the two arm bones and a tail the adult has not, under a name that is
    // no file name.
    let mut clip = arm.clone();
    clip.surfaces.clear();
    clip.animations[0].name = "wave/slow 2".into();
    clip.skeleton.bones.push(meshfmt_core::Bone {
        name: "TAIL".into(),
        ..Default::default()
    });
    clip.animations[0].channels.push(Channel {
        bone: 2,
        rotation: Track::from_keys([(0.0, Quat::IDENTITY), (1.0, Quat::from_rotation_y(1.0))]),
        ..Channel::default()
    });
    let anim = d.join("wave.anim");
    let anim_file = niotso_mesh::Anim::from_core_with(
        &clip,
        &niotso_mesh::WriteOptions {
            fps: 30.0,
            ..Default::default()
        },
    )
    .unwrap()
    .value;
    std::fs::write(&anim, anim_file.write().unwrap()).unwrap();

    let glb = d.join("body.glb");
    let json = d.join("report.json");
    let out = meshfmt(&[
        "convert",
        s(&mesh),
        "--skeleton",
        s(&skel),
        "--anim",
        s(&anim),
        s(&glb),
        "--report",
        s(&json),
    ]);
    let stderr = ok(&out);
    assert!(!stderr.contains("warning"), "{stderr}");
    let m = read_model(&glb);
    assert_eq!(m.skeleton.len(), 29);
    // The adult's L_ARM sits (0, 0, 0.5) from NECK in Vitaboy units (1/3 m, left-handed,
    // Y up): (0, 0, -1/6) m in glTF.
    let l_arm = &m.skeleton.bones[m.skeleton.find("L_ARM").unwrap()];
    assert!(
        l_arm
            .rest
            .translation
            .abs_diff_eq(Vec3::new(0.0, 0.0, -0.5 / 3.0), 1e-6),
        "{}",
        l_arm.rest.translation
    );
    // The elbow's channel (now L_ARM1's); the tail's is reported.
    assert_eq!(m.animations.len(), 1);
    assert_eq!(m.animations[0].channels.len(), 1);
    assert_eq!(
        m.animations[0].channels[0].bone,
        m.skeleton.find("L_ARM1").unwrap()
    );
    let r = report(&json);
    let tail: Vec<&Value> = r["losses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["reason"].as_str().unwrap().contains("'TAIL'"))
        .collect();
    assert_eq!(tail.len(), 1, "{r}");
    assert_eq!(tail[0]["path"], "animations[0]");

    // No skeleton: a warning naming the option; --strict refuses.
    let loose = d.join("loose.glb");
    let stderr = ok(&meshfmt(&["convert", s(&mesh), s(&loose)]));
    assert!(
        stderr.contains("meshfmt: warning: niotso-mesh .mesh converted without its skeleton: bones at the origin, parts left in bone space; give the .skel with --skeleton FILE"),
        "{stderr}"
    );
    let out = meshfmt(&["convert", "--strict", s(&mesh), s(&d.join("strict.glb"))]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--strict") && stderr.contains("--skeleton FILE"),
        "{stderr}"
    );
    assert!(!d.join("strict.glb").exists());
    // A skeleton of another format is refused, naming the file.
    let wrong = fixture("unigine-mesh/skinned_arm.ms11.mesh");
    let out = meshfmt(&["convert", s(&mesh), "--skeleton", s(&wrong), s(&loose)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(
        "skinned_arm.ms11.mesh: --skeleton: this is a unigine-mesh file; niotso-mesh takes its own skeleton files"
    ));

    // And back: .mesh + .skel + one .anim per clip.
    let back = d.join("back/body.mesh");
    let clips = d.join("back/anims");
    let out = meshfmt(&[
        "convert",
        s(&glb),
        "--to",
        "niotso-mesh",
        s(&back),
        "--anims-dir",
        s(&clips),
    ]);
    ok(&out);
    let skel_back =
        niotso_mesh::skel::read(&std::fs::read(d.join("back/body.skel")).unwrap()).unwrap();
    let adult = niotso_mesh::skel::read(&std::fs::read(&skel).unwrap()).unwrap();
    assert_eq!(
        skel_back
            .bones
            .iter()
            .map(|b| b.name.to_string())
            .collect::<Vec<_>>(),
        adult
            .bones
            .iter()
            .map(|b| b.name.to_string())
            .collect::<Vec<_>>()
    );
    for (a, b) in skel_back.bones.iter().zip(&adult.bones) {
        for k in 0..3 {
            assert!(
                (a.translation[k] - b.translation[k]).abs() < 1e-5,
                "{}",
                a.name
            );
        }
    }
    let files: Vec<String> = std::fs::read_dir(&clips)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, ["wave_slow_2.anim"]);
    let wave =
        niotso_mesh::anim::read(&std::fs::read(clips.join("wave_slow_2.anim")).unwrap()).unwrap();
    assert_eq!(wave.name.to_string(), "wave/slow 2");
    // The elbow's (L_ARM1's) motion, with the original's frames: Vitaboy stores floats,
    // so within float rounding of the unit and frame changes. The tail's is gone.
    assert_eq!(
        wave.motions
            .iter()
            .map(|m| m.bone_name.to_string())
            .collect::<Vec<_>>(),
        ["L_ARM1"]
    );
    assert_eq!(anim_file.motions[0].bone_name.to_string(), "L_ARM1");
    for (a, b) in wave.motions.iter().zip(&anim_file.motions) {
        assert_eq!(a.frame_count, b.frame_count);
        let rot = |anim: &niotso_mesh::Anim, m: &niotso_mesh::anim::Motion, f: usize| {
            let q = anim.rotations[m.first_rotation as usize + f];
            Quat::from_array(q)
        };
        for f in 0..a.frame_count as usize {
            let (x, y) = (rot(&wave, a, f), rot(&anim_file, b, f));
            assert!(
                x.dot(y).abs() > 1.0 - 1e-5,
                "{} frame {f}: {x} {y}",
                a.bone_name
            );
        }
    }
    let back_mesh = niotso_mesh::mesh::read(&std::fs::read(&back).unwrap()).unwrap();
    assert_eq!(back_mesh.real_vertices.len(), 20);
}

#[test]
fn a_given_skeleton_for_other_formats() {
    let d = dir("given-skeleton");
    let arm = fixture("unigine-mesh/skinned_arm.ms11.mesh");
    // A skeleton file (an an10 animation) with a root above the shoulder, and no elbow.
    let mut given = arm_clip("pose", false);
    given.skeleton.bones.truncate(1);
    given.skeleton.bones.insert(
        0,
        meshfmt_core::Bone {
            name: "root".into(),
            ..Default::default()
        },
    );
    given.skeleton.bones[1].parent = Some(0);
    given.animations = vec![Clip {
        events: Vec::new(),
        name: "pose".into(),
        channels: vec![Channel {
            bone: 1,
            rotation: Track::from_keys([(0.0, Quat::IDENTITY)]),
            ..Channel::default()
        }],
    }];
    std::fs::write(d.join("given.anim"), an10(&given)).unwrap();
    let glb = d.join("arm.glb");
    let json = d.join("report.json");
    let out = meshfmt(&[
        "convert",
        s(&arm),
        "--skeleton",
        s(&d.join("given.anim")),
        s(&glb),
        "--report",
        s(&json),
    ]);
    ok(&out);
    let m = read_model(&glb);
    let names: Vec<&str> = m.skeleton.bones.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names.len(), 3);
    assert!(names.contains(&"root") && names.contains(&"shoulder") && names.contains(&"elbow"));
    let shoulder = m.skeleton.find("shoulder").unwrap();
    assert_eq!(m.skeleton.bones[shoulder].parent, m.skeleton.find("root"));
    let r = report(&json);
    let skeleton: Vec<&Value> = r["losses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["feature"] == "skeleton")
        .collect();
    assert_eq!(skeleton.len(), 1, "{r}");
    assert_eq!(skeleton[0]["kind"], "reduced");
    assert!(skeleton[0]["reason"].as_str().unwrap().contains("'elbow'"));
    // A file without a skeleton is refused.
    let cube = fixture("unity-meshser/cube.bytes");
    let out = meshfmt(&["convert", s(&arm), "--skeleton", s(&cube), s(&glb)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no skeleton"));
}

#[test]
fn strict_refusals_still_write_the_report() {
    let d = dir("strict-report");
    let arm = fixture("unigine-mesh/skinned_arm.ms11.mesh");
    let out_path = d.join("arm.bytes");
    let json = d.join("report.json");
    let out = meshfmt(&[
        "convert",
        "--strict",
        s(&arm),
        s(&out_path),
        "--report",
        s(&json),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!out_path.exists());
    let r = report(&json);
    assert_eq!(r["written"], false);
    assert_eq!(strings(&r["files"]).len(), 0);
    // MeshSerializer2 has no skin, skeleton or clips.
    let features: Vec<&str> = r["losses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["feature"].as_str().unwrap())
        .collect();
    for f in ["skin", "skeleton", "animation"] {
        assert!(features.contains(&f), "{features:?}");
    }
}

#[test]
fn validate_prints_problems_not_conversion_notes() {
    let d = dir("validate");
    let mesh = d.join("arm.mesh");
    std::fs::write(
        &mesh,
        niotso_mesh::Mesh::from_core(&vitaboy_arm())
            .unwrap()
            .value
            .write()
            .unwrap(),
    )
    .unwrap();
    // Converting it without a skeleton loses something (dump shows the note) ...
    let dump = meshfmt(&["dump", s(&mesh)]);
    assert!(String::from_utf8_lossy(&dump.stderr).contains("meshfmt: note: skeleton reduced"));
    // ... which is no problem of the file: validate is silent about it.
    let out = meshfmt(&["validate", s(&mesh)]);
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{}: valid niotso-mesh file\n", s(&mesh))
    );
}

/// A 2x1 PNG (made by meshfmt-core's encoder).
fn png() -> (meshfmt_core::RgbaImage, Vec<u8>) {
    let img = meshfmt_core::RgbaImage {
        width: 2,
        height: 1,
        pixels: vec![10, 20, 30, 255, 40, 50, 60, 255],
    };
    let bytes = img.encode_png().unwrap();
    (img, bytes)
}

#[test]
fn a_freeso_appearance_in_its_folders() {
    use niotso_mesh::companions::{Appearance, AssetRef, BindingFile, TaggedRef};
    let d = dir("appearance");
    for sub in ["Appearances/User", "Bindings/User", "Meshes", "Textures"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    let r = |file_id, type_id| AssetRef { file_id, type_id };
    let tagged = |id, type_id| TaggedRef {
        tag: 8,
        asset: Some((0, r(id, type_id))),
    };
    let bnd = |mesh, tex| BindingFile {
        version: 1,
        bone: "L_ARM".into(),
        mesh: tagged(mesh, 9),
        texture: tagged(tex, 20),
    };
    let arm = niotso_mesh::Mesh::from_core(&vitaboy_arm())
        .unwrap()
        .value
        .write()
        .unwrap();
    let w = |p: &str, b: &[u8]| std::fs::write(d.join(p), b).unwrap();
    // An appearance in a User/ sub-folder finds Bindings/User/; meshes and textures are
    // in Meshes/ and Textures/ (upper-case hex here: names are matched by value).
    w(
        "Appearances/User/outfit.0000000A0000000C.apr",
        &Appearance {
            version: 1,
            thumbnail: AssetRef::default(),
            bindings: vec![r(1, 11), r(2, 11), r(3, 11)],
        }
        .write()
        .unwrap(),
    );
    w(
        "Bindings/User/sleeve.000000010000000b.bnd",
        &bnd(0x10, 0x20).write().unwrap(),
    );
    w(
        "Bindings/User/glove.000000020000000b.bnd",
        &bnd(0x11, 0x21).write().unwrap(),
    );
    w("Meshes/sleeve.0000001000000009.mesh", &arm);
    w("Meshes/glove.0000001100000009.mesh", &arm);
    let (img, png) = png();
    w("Textures/sleeve.0000002000000014.png", &png);
    w("Textures/glove.0000002100000014.jpg", b"\xff\xd8\xff\xe0");
    let apr = d.join("Appearances/User/outfit.0000000A0000000C.apr");
    let glb = d.join("outfit.glb");
    let json = d.join("report.json");
    let skel = fixture("niotso-mesh/adult.skel");
    // The sibling folders are outside the appearance's own: not searched until the
    // content folder is allowed, and a warning says how.
    let stderr = ok(&meshfmt(&[
        "convert",
        s(&apr),
        "--skeleton",
        s(&skel),
        s(&glb),
    ]));
    assert!(
        stderr.contains("warning: folders beside the input (../Bindings, ../../Bindings/User, ../../Bindings) are outside the folders side files may come from: --side-files DIR allows them"),
        "{stderr}"
    );
    assert!(read_model(&glb).surfaces.is_empty());
    let out = meshfmt(&[
        "convert",
        s(&apr),
        "--skeleton",
        s(&skel),
        s(&glb),
        "--report",
        s(&json),
        "--side-files",
        s(&d),
    ]);
    ok(&out);
    let m = read_model(&glb);
    assert_eq!(m.skeleton.len(), 29);
    let names: Vec<&str> = m.surfaces.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["sleeve", "glove"]);
    assert!(m.surfaces.iter().all(|s| s.skin.len() == 20));
    // The PNG's pixels travel in the .glb; the JPEG is named by path.
    let sources: Vec<&TextureSource> = m.textures.iter().map(|t| &t.source).collect();
    assert_eq!(sources.len(), 2);
    assert_eq!(sources[0], &TextureSource::Embedded(img));
    assert_eq!(
        sources[1],
        &TextureSource::Path("glove.0000002100000014.jpg".into())
    );
    let r = report(&json);
    let losses = r["losses"].as_array().unwrap();
    let reasons: Vec<(&str, &str)> = losses
        .iter()
        .map(|l| (l["path"].as_str().unwrap(), l["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        reasons,
        // Files not found while gathering the bindings, then what converting each said.
        [
            (
                "bindings[2]",
                "binding not found (a file named *.000000030000000b.bnd)"
            ),
            (
                "bindings[1]",
                "'glove.0000002100000014.jpg' is kept as a path texture: JPEG pixels are not decoded"
            ),
        ]
    );
    // Without the skeleton: converted, with the warning; refused under --strict.
    let stderr = ok(&meshfmt(&[
        "convert",
        s(&apr),
        s(&glb),
        "--side-files",
        s(&d),
    ]));
    assert!(
        stderr.contains("warning: niotso-mesh appearance converted without its skeleton: bones at the origin, parts left in bone space; give the .skel with --skeleton FILE"),
        "{stderr}"
    );
    let strict = d.join("strict.glb");
    let out = meshfmt(&[
        "convert",
        "--strict",
        s(&apr),
        s(&strict),
        "--side-files",
        s(&d),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--skeleton FILE"));
    assert!(!strict.exists());
}

/// Decoded an10 frames of a file's first animation, by bone name: per frame,
/// translation, rotation (normalized, as meshfmt-core holds it) and scale.
type Keys = std::collections::HashMap<String, Vec<([f32; 3], Quat, [f32; 3])>>;

fn an10_keys(path: &Path) -> (Keys, unigine_anim::an10::Animation) {
    let unigine_anim::AnimFile::An10(a) =
        unigine_anim::read(&std::fs::read(path).unwrap()).unwrap()
    else {
        panic!("{} is not an10", path.display())
    };
    let anim = a.animations[0].clone();
    let frames = unigine_anim::Frames::decode(&anim, &a.bind_pose);
    let nb = frames.bones.len();
    let mut keys = Keys::new();
    for (slot, &bone) in frames.bones.iter().enumerate() {
        let name = a.bones[bone as usize].name.to_string();
        let k = (0..frames.num_frames)
            .map(|f| {
                let at = f * nb + slot;
                (
                    frames.translation[at],
                    Quat::from_array(frames.rotation[at]).normalize(),
                    frames.scale[at],
                )
            })
            .collect();
        keys.insert(name, k);
    }
    (keys, anim)
}

/// Half a quantization step of each box axis (an10: `min + size * u / 65535`).
fn half_steps(b: &unigine_anim::an10::QuantBox) -> [f32; 3] {
    b.size
        .map(|s| if s > 0.0 { s / 65535.0 * 0.5 } else { 0.0 })
}

/// A real mesh and its clips into one .glb, then split back: every key of every
/// original clip re-read within an10's quantization of the new file.
fn real_round_trip(test: &str, mesh: &Path, anims: &[PathBuf], expected_clips: &[&str]) {
    let d = dir(test);
    let glb = d.join("model.glb");
    let mut args = vec!["convert".to_string(), s(mesh).to_string()];
    for a in anims {
        args.extend(["--anim".to_string(), s(a).to_string()]);
    }
    args.push(s(&glb).to_string());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&meshfmt(&args));
    let m = read_model(&glb);
    let names: Vec<&str> = m.animations.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, expected_clips);
    let back = d.join("split/model.mesh");
    let clips = d.join("split/anims");
    ok(&meshfmt(&[
        "convert",
        s(&glb),
        "--to",
        "unigine-mesh",
        s(&back),
        "--anims-dir",
        s(&clips),
    ]));
    let info = meshfmt(&["info", "--json", s(&back)]);
    let original = meshfmt(&["info", "--json", s(mesh)]);
    let counts = |o: &Output| {
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        (
            v["surfaces"].clone(),
            v["triangles"].clone(),
            v["bones"].clone(),
        )
    };
    assert_eq!(counts(&info), counts(&original));
    for (a, name) in anims.iter().zip(expected_clips) {
        // The original keys and the new file's, rotations normalized as meshfmt-core
        // holds them: the writer stores the i16 vector nearest in direction, which for a
        // normalized stored vector is that vector again (snorm16::encode_direction).
        let (want, _) = an10_keys(a);
        let split = clips.join(format!("{name}.anim"));
        let (got, anim) = an10_keys(&split);
        let t_step = half_steps(&anim.boxes.translation);
        let s_step = half_steps(&anim.boxes.scale);
        // The stored integers come back: f32 noise only (a nearly parallel i16 vector,
        // 3e-8 away in direction, may stand in for one).
        let r_step = 1e-6;
        let mut compared = 0;
        for (bone, keys) in &want {
            // Bones the model lacks are not in the split file (reported when attached).
            let Some(back) = got.get(bone) else {
                assert!(bone.ends_with("Nub"), "{name}: {bone} missing");
                continue;
            };
            assert_eq!(back.len(), keys.len(), "{name} {bone}");
            for (f, (k, b)) in keys.iter().zip(back).enumerate() {
                for i in 0..3 {
                    let tol = t_step[i] + 1e-5 * k.0[i].abs().max(1e-2);
                    assert!(
                        (k.0[i] - b.0[i]).abs() <= tol,
                        "{name} {bone} f{f} t{i}: {k:?} {b:?}"
                    );
                    let tol = s_step[i] + 1e-5 * k.2[i].abs().max(1e-2);
                    assert!(
                        (k.2[i] - b.2[i]).abs() <= tol,
                        "{name} {bone} f{f} s{i}: {k:?} {b:?}"
                    );
                }
                let q = if k.1.dot(b.1) < 0.0 { -b.1 } else { b.1 };
                for (x, y) in k.1.to_array().iter().zip(q.to_array()) {
                    assert!(
                        (x - y).abs() <= r_step,
                        "{name} {bone} f{f} r: {} {}",
                        k.1,
                        b.1
                    );
                }
                compared += 1;
            }
        }
        assert!(compared > 0, "{name}");
    }
}

#[test]
fn actor_00_and_its_six_clips_round_trip() {
    let Some(mesh) = test_support::sample_file_or_skip(
        "unigine/wakqaz4__Unigine_FPS_Demo1/source/meshes",
        "actor_00.mesh",
        "actor_00_and_its_six_clips_round_trip",
    ) else {
        return;
    };
    let dir = mesh.with_file_name("actor_00");
    let anims = meshfmt::companions::expand(&dir.join("*.anim").to_string_lossy()).unwrap();
    assert_eq!(anims.len(), 6);
    real_round_trip(
        "actor",
        &mesh,
        &anims,
        &["idle", "jump", "run_fwd", "run_lt", "walk_fwd", "walk_lt"],
    );
    // The one thing that does not match: jump's twelve finger and toe "Nub" bones.
    let d = std::env::temp_dir().join(format!("meshfmt-comp-actor-report-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let json = d.join("r.json");
    let pattern = dir.join("*.anim");
    ok(&meshfmt(&[
        "convert",
        s(&mesh),
        "--anim",
        s(&pattern),
        s(&d.join("a.glb")),
        "--report",
        s(&json),
    ]));
    let r = report(&json);
    let losses = r["losses"].as_array().unwrap();
    assert_eq!(losses.len(), 1, "{r}");
    assert_eq!(losses[0]["path"], "animations[1]");
    assert!(losses[0]["reason"].as_str().unwrap().starts_with(
        "clip 'jump': 12 of 65 channels name bones not in the model's skeleton: 'Bip01 L Finger0Nub'"
    ));
}

#[test]
fn agent_and_its_two_clips_round_trip() {
    let Some(mesh) = test_support::sample_file_or_skip(
        "unigine/trinet-fasie__unigine-mockup/data/vr_sample/props/animation/meshes",
        "agent.mesh",
        "agent_and_its_two_clips_round_trip",
    ) else {
        return;
    };
    let anims = mesh.parent().unwrap().parent().unwrap().join("animations");
    real_round_trip(
        "agent",
        &mesh,
        &[
            anims.join("agent_walk.anim"),
            anims.join("agent_punch.anim"),
        ],
        &["agent_walk", "agent_punch"],
    );
}

#[test]
fn freeso_sample_appearances_with_the_adult_skeleton() {
    let Some(dir) = test_support::samples_or_skip(
        "niotso/Appearances",
        "freeso_sample_appearances_with_the_adult_skeleton",
    ) else {
        return;
    };
    let skel = fixture("niotso-mesh/adult.skel");
    let d = std::env::temp_dir().join(format!("meshfmt-comp-freeso-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let aprs = test_support::files_under(&dir, &["apr"]);
    let (mut with_geometry, mut checked) = (0, 0);
    for apr in &aprs {
        let glb = d.join("a.glb");
        let json = d.join("r.json");
        // The FreeSO content folder (Appearances/, Bindings/, Meshes/) allowed.
        ok(&meshfmt(&[
            "convert",
            s(apr),
            "--skeleton",
            s(&skel),
            s(&glb),
            "--report",
            s(&json),
            "--side-files",
            s(dir.parent().unwrap()),
        ]));
        let m = read_model(&glb);
        let r = report(&json);
        let losses = r["losses"].as_array().unwrap();
        // Each sample appearance has one binding: either its mesh is among the samples
        // (one skinned surface) or it is reported missing.
        let missing = losses
            .iter()
            .any(|l| l["reason"].as_str().unwrap().starts_with("mesh not found"));
        assert_eq!(m.surfaces.len(), usize::from(!missing), "{}", apr.display());
        if !missing {
            with_geometry += 1;
            assert_eq!(m.skeleton.len(), 29);
            assert!(m.surfaces[0].skin.len() == m.surfaces[0].positions.len());
        }
        checked += 1;
    }
    assert_eq!(checked, 120);
    assert_eq!(with_geometry, 60);
}
