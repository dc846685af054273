//! `meshfmt info`: every committed fixture and every sample the tool detects answers in
//! text and JSON (their glTF and OBJ exports too); hand-checked values per family; the
//! text form of one fixture as an insta snapshot; several files at once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gltf_json::Value;
use meshfmt::formats::{self, FORMATS};
use meshfmt_core::format::{Context, Format, Written};
use meshfmt_core::side_files::SideFiles;
use meshfmt_core::{Limits, Model};

fn meshfmt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshfmt"))
        .args(args)
        .output()
        .expect("the meshfmt binary runs")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn fixture(rel: &str) -> String {
    fixtures().join(rel).to_str().unwrap().to_string()
}

fn temp_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `info --json FILE` through the binary: the raw line and its parse.
fn info_json(path: &str) -> (String, Value) {
    let out = meshfmt(&["info", "--json", path]);
    assert!(
        out.status.success(),
        "{path}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let raw = String::from_utf8(out.stdout).unwrap();
    assert_eq!(raw.lines().count(), 1, "{path}: one line: {raw}");
    let v: Value =
        gltf_json::deserialize::from_str(&raw).unwrap_or_else(|e| panic!("{path}: {e}: {raw}"));
    (raw, v)
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

const STABLE: [&str; 10] = [
    "format",
    "version",
    "surfaces",
    "vertices",
    "triangles",
    "bones",
    "animations",
    "frames",
    "materials",
    "textures",
];

/// The JSON shape `info` promises: the stable keys first and in order, then `file`,
/// `file_size` and `detail` with its six sections; the sections agree with the counts
/// (M3D's vertices and triangles count VRTS records and stored faces, which its
/// surfaces do not add up to).
fn check_shape(path: &str, raw: &str, v: &Value) {
    let mut at = 0;
    for k in STABLE.iter().chain(&["file", "file_size", "detail"]) {
        let key = format!("\"{k}\":");
        let found = raw[at..]
            .find(&key)
            .unwrap_or_else(|| panic!("{path}: {k} missing or out of order: {raw}"));
        at += found + key.len();
    }
    assert!(raw.starts_with("{\"format\":"), "{raw}");
    assert_eq!(
        u(&v["file_size"]),
        std::fs::metadata(path).unwrap().len(),
        "{path}"
    );
    assert_eq!(v["file"].as_str(), Some(path));
    let d = &v["detail"];
    for s in ["surfaces", "animations", "materials", "textures"] {
        let list = d[s].as_array().unwrap_or_else(|| panic!("{path}: {s}"));
        assert_eq!(list.len() as u64, u(&v[s]), "{path}: {s}");
    }
    let surfaces = d["surfaces"].as_array().unwrap();
    if v["format"] != "m3d" {
        let sum = |k: &str| surfaces.iter().map(|s| u(&s[k])).sum::<u64>();
        assert_eq!(sum("vertices"), u(&v["vertices"]), "{path}");
        assert_eq!(sum("triangles"), u(&v["triangles"]), "{path}");
    }
    for s in surfaces {
        let attributes = s["attributes"].as_array().unwrap();
        assert!(
            attributes.iter().any(|a| a["name"] == "position"),
            "{path}: {s}"
        );
        for a in attributes {
            assert!(!a["stored"].as_str().unwrap().is_empty(), "{path}: {a}");
        }
    }
    let keys: u64 = d["animations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| u(&c["keys"]))
        .sum();
    assert_eq!(keys, u(&v["frames"]), "{path}");
    if !d["skeleton"].is_null() {
        assert_eq!(u(&d["skeleton"]["bones"]), u(&v["bones"]), "{path}");
        assert!(u(&d["skeleton"]["depth"]) >= 1, "{path}");
    }
    if !d["bounds"].is_null() {
        assert!(d["bounds"]["stored"].is_boolean(), "{path}");
        for axis in 0..3 {
            let (lo, hi) = (&d["bounds"]["min"][axis], &d["bounds"]["max"][axis]);
            assert!(lo.as_f64().unwrap() <= hi.as_f64().unwrap(), "{path}");
        }
    }
}

/// `info` and `info --json` through the binary, both answering; the text has the
/// overview and agrees with the JSON's format.
fn check_file(path: &str) {
    let (raw, v) = info_json(path);
    check_shape(path, &raw, &v);
    let out = meshfmt(&["info", path]);
    assert!(out.status.success(), "{path}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(&format!(
            "OVERVIEW\nformat:     {}\n",
            v["format"].as_str().unwrap()
        )),
        "{path}: {text}"
    );
    assert_eq!(
        text.contains("\nSURFACES\n"),
        u(&v["surfaces"]) > 0,
        "{path}: {text}"
    );
}

/// The same checks in-process (for the many exports of the samples).
fn check_in_process(path: &str) {
    let meshfmt::info::Inspected { summary, size, .. } =
        meshfmt::info::inspect(path, None, &Limits::DEFAULT, &[])
            .unwrap_or_else(|e| panic!("{path}: {e}"));
    let raw = meshfmt::info::to_json(path, size, &summary);
    let v: Value = gltf_json::deserialize::from_str(&raw).unwrap();
    check_shape(path, &raw, &v);
    let text = meshfmt::info::to_text(size, &summary, &Default::default());
    assert!(text.starts_with("OVERVIEW\n"), "{path}");
}

/// The model of `path` (read with no side files), if the tool reads it.
fn model_of(path: &Path) -> Option<Model> {
    let data = std::fs::read(path).ok()?;
    let name = path.to_str()?;
    let f = formats::detect(&data, name).ok()?;
    let cx = Context::new(name);
    Some(f.read(&data, &cx).ok()?.to_core(&cx).ok()?.value)
}

/// `model` written as `out` (`.glb`, `.gltf` + `.bin`, `.obj` + `.mtl`) by the library,
/// side files beside it; false when the writer refuses the model.
fn export(model: &Model, out: &Path) -> bool {
    let name = out.to_str().unwrap();
    let ext = formats::extension(name);
    let f = formats::writer_for(&ext).unwrap();
    let cx = Context::new(name);
    let Ok(file) = f.from_core(model, &cx) else {
        return false;
    };
    let Ok(Written { main, side }) = file.value.write(&cx) else {
        return false;
    };
    std::fs::write(out, main).unwrap();
    for (n, bytes) in side {
        std::fs::write(out.with_file_name(n), bytes).unwrap();
    }
    true
}

/// Every readable file under `dir`, as `info` would pick it.
fn detected(files: &[PathBuf]) -> Vec<PathBuf> {
    files
        .iter()
        .filter(|p| {
            let data = std::fs::read(p).unwrap();
            formats::detect(&data, p.to_str().unwrap()).is_ok()
        })
        .cloned()
        .collect()
}

#[test]
fn every_fixture_answers_with_its_exports() {
    let files = detected(&test_support::files_under(&fixtures(), &[]))
        .into_iter()
        .filter(|p| {
            !matches!(
                formats::extension(p.to_str().unwrap()).as_str(),
                "txt" | "md"
            )
        })
        .collect::<Vec<_>>();
    // 6 of each canonical model per M3D form, MeshSerializer2 and UNIGINE animation
    // pair, 42 UNIGINE meshes, 7 Vitaboy meshes, 7 skeletons, 2 MeshSerializer2 quirk
    // files: 83 files.
    assert_eq!(files.len(), 83, "{files:?}");
    let dir = temp_dir("info-fixture-exports");
    let mut exports = 0;
    for (k, f) in files.iter().enumerate() {
        check_file(f.to_str().unwrap());
        let Some(model) = model_of(f) else { continue };
        if model.surfaces.is_empty() && model.animations.is_empty() {
            continue;
        }
        for ext in ["glb", "gltf", "obj"] {
            let out = dir.join(format!("f{k}.{ext}"));
            if export(&model, &out) {
                check_file(out.to_str().unwrap());
                exports += 1;
            }
        }
    }
    // Every fixture with geometry or clips exports to glTF (both containers); every one
    // with geometry to OBJ.
    assert!(exports >= 150, "{exports} exports checked");
}

#[test]
fn every_detected_sample_answers_with_its_exports() {
    let mut checked = 0;
    let mut exports = 0;
    let dir = temp_dir("info-sample-exports");
    for family in ["unigine", "niotso", "m3d"] {
        let Some(root) = test_support::samples_or_skip(family, "info samples") else {
            return;
        };
        for (k, f) in detected(&test_support::files_under(&root, &[]))
            .iter()
            .enumerate()
        {
            let path = f.to_str().unwrap();
            let data = std::fs::read(f).unwrap();
            let format = formats::detect(&data, path).unwrap();
            // info answers exactly for the files the library reads.
            let reads = format.read(&data, &Context::new(path)).is_ok();
            if !reads {
                let out = meshfmt(&["info", path]);
                assert_eq!(out.status.code(), Some(1), "{path}");
                continue;
            }
            check_file(path);
            checked += 1;
            let Some(model) = model_of(f) else { continue };
            if model.surfaces.is_empty() && model.animations.is_empty() {
                continue;
            }
            for ext in ["glb", "gltf", "obj"] {
                let out = dir.join(format!("{family}{k}.{ext}"));
                if export(&model, &out) {
                    let out = out.to_str().unwrap();
                    // Every export in-process; a tenth of them through the binary too.
                    if exports % 10 == 0 {
                        check_file(out);
                    } else {
                        check_in_process(out);
                    }
                    exports += 1;
                }
            }
        }
    }
    // 337 of the 338 sample files the tool detects read (one crafted M3D lacks its
    // end marker): 217 meshes, skeletons, animations and models, and the 120 Vitaboy
    // appearances (niotso-mesh reads `.apr`; the samples hold 120). Binding files are
    // no format the tool reads.
    assert_eq!(checked, 337);
    println!("{checked} samples, {exports} exports");
    assert!(exports >= 500, "{exports} exports checked");
}

fn attributes(surface: &Value) -> Vec<(String, String)> {
    surface["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["name"].as_str().unwrap().to_string(),
                a["stored"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

#[test]
fn unigine_mesh_by_hand() {
    // The canonical arm (by construction): one surface "arm" of 5 rings of 4 vertices,
    // 32 triangles, normals, UV0 and skin; bones shoulder <- elbow; clip "bend" moves
    // the elbow only, keys at 0, 0.5 and 1 s, stored as 31 frames at 30 fps. ms11
    // stores positions as f32x3, the normal and tangent as one i16x4 quaternion, UVs
    // f32x2, up to four (i16 bone, u16 weight) pairs; 20 vertices need u8 indices.
    let (_, v) = info_json(&fixture("unigine-mesh/skinned_arm.ms11.mesh"));
    let d = &v["detail"];
    let s = &d["surfaces"][0];
    assert_eq!(s["name"], "arm");
    assert_eq!((u(&s["vertices"]), u(&s["triangles"])), (20, 32));
    assert_eq!(
        attributes(s),
        pairs(&[
            ("position", "f32x3"),
            ("tangent frame", "i16x4 (quaternion)"),
            ("uv0", "f32x2"),
            ("skin", "up to 4 x (i16 bone, u16 weight)"),
            ("indices", "u8 + u8 (coordinate, tangent)"),
        ])
    );
    assert_eq!(d["skeleton"]["roots"][0], "shoulder");
    assert_eq!(u(&d["skeleton"]["depth"]), 2);
    let clip = &d["animations"][0];
    assert_eq!(clip["name"], "bend");
    assert_eq!((f(&clip["duration"]), f(&clip["fps"])), (1.0, 30.0));
    assert_eq!((u(&clip["keys"]), u(&clip["channels"])), (31, 1));
    // The tube's box: x 0..2, a side of 0.2 around the axis; ms11 stores it.
    let b = &d["bounds"];
    assert_eq!(b["stored"], true);
    let min: Vec<f64> = (0..3).map(|i| f(&b["min"][i])).collect();
    let max: Vec<f64> = (0..3).map(|i| f(&b["max"][i])).collect();
    let close = |a: &[f64], e: [f64; 3]| a.iter().zip(e).all(|(a, e)| (a - e).abs() < 1e-6);
    assert!(
        close(&min, [0.0, -0.1, -0.1]) && close(&max, [2.0, 0.1, 0.1]),
        "{b}"
    );

    // ms10 stores the quaternion's x, y, z and an i8 binormal sign; ms14 the ms13
    // content in an LZ4 block per surface.
    let (_, v) = info_json(&fixture("unigine-mesh/skinned_arm.ms10.mesh"));
    assert_eq!(
        attributes(&v["detail"]["surfaces"][0])[1],
        (
            "tangent frame".into(),
            "i16x3 + i8 sign (quaternion)".into()
        )
    );
    let path = fixture("unigine-mesh/cube.ms14.mesh");
    let (_, v) = info_json(&path);
    let block = attributes(&v["detail"]["surfaces"][0])
        .into_iter()
        .find(|(n, _)| n == "block")
        .unwrap()
        .1;
    let (stored, decoded) = block
        .strip_prefix("LZ4, ")
        .and_then(|b| b.strip_suffix(" bytes"))
        .and_then(|b| b.split_once(" -> "))
        .unwrap_or_else(|| panic!("{block}"));
    let (stored, decoded): (u64, u64) = (stored.parse().unwrap(), decoded.parse().unwrap());
    assert!(stored < decoded && stored < std::fs::metadata(&path).unwrap().len());
    // mi08 stores normals as u16 per component and u16 triangle indices.
    let (_, v) = info_json(&fixture("unigine-mesh/multi_surface.mi08.mesh"));
    let names: Vec<&str> = v["detail"]["surfaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["quad", "hexagon", "strip"]);
    assert_eq!(
        attributes(&v["detail"]["surfaces"][0])[1],
        ("normal".into(), "u16x3 (unorm, -1..1)".into())
    );
}

#[test]
fn unigine_anim_by_hand() {
    // an12 stores its frame rate: at 24 fps the arm's 31 frames last 30 / 24 s.
    let bytes = std::fs::read(fixture("unigine-anim/skinned_arm.an12.anim")).unwrap();
    let mut file = unigine_anim::read(&bytes).unwrap();
    let unigine_anim::AnimFile::An12(a) = &mut file else {
        panic!("an12 expected")
    };
    a.fps = 24;
    let dir = temp_dir("info-an12");
    let path = dir.join("slow.anim");
    std::fs::write(&path, file.write().unwrap()).unwrap();
    let (_, v) = info_json(path.to_str().unwrap());
    let clip = &v["detail"]["animations"][0];
    assert_eq!((f(&clip["fps"]), f(&clip["duration"])), (24.0, 1.25));
    assert_eq!(u(&clip["keys"]), 31);
    // an10 and as08 store none: 30 fps.
    let (_, v) = info_json(&fixture("unigine-anim/skinned_arm3.sanim"));
    let clip = &v["detail"]["animations"][0];
    assert_eq!(f(&clip["fps"]), 30.0);
    // The three-bone arm: shoulder <- elbow <- wrist.
    assert_eq!(u(&v["detail"]["skeleton"]["depth"]), 3);
}

#[test]
fn vitaboy_by_hand() {
    // The adult skeleton: ROOT, PELVIS, SPINE, SPINE1, SPINE2, NECK, then L_ARM,
    // L_ARM1, L_ARM2, L_HAND, L_FINGER0 is the longest chain (11); the legs' chain
    // (ROOT, PELVIS, L_LEG, L_LEG1, L_FOOT, L_TOE0, L_TOE01, L_TOE02) is 8.
    let (_, v) = info_json(&fixture("niotso-mesh/adult.skel"));
    let k = &v["detail"]["skeleton"];
    assert_eq!((u(&k["bones"]), u(&k["depth"])), (29, 11));
    assert_eq!(k["roots"].as_array().unwrap().len(), 1);
    assert_eq!(k["roots"][0], "ROOT");
    // A mesh stores bone-local f32 records: no bounds without its skeleton.
    let (_, v) = info_json(&fixture("niotso-mesh/skinned_arm.mesh"));
    let s = &v["detail"]["surfaces"][0];
    assert_eq!(
        attributes(s)[0],
        ("position".into(), "f32x3 (bone-local)".into())
    );
    assert_eq!(
        attributes(s).last().unwrap(),
        &("indices".into(), "u32".into())
    );
    assert!(v["detail"]["bounds"].is_null());
    // An animation of the canonical arm at 30 fps: one motion (the elbow), keys at 0,
    // 0.5 and 1 s resampled to 31 frames.
    let arm = meshfmt_core::canonical::skinned_arm();
    let anim = niotso_mesh::Anim::from_core_with(
        &arm,
        &niotso_mesh::WriteOptions {
            fps: 30.0,
            ..Default::default()
        },
    )
    .unwrap()
    .value;
    let dir = temp_dir("info-vitaboy");
    let path = dir.join("bend.anim");
    std::fs::write(&path, anim.write().unwrap()).unwrap();
    let (_, v) = info_json(path.to_str().unwrap());
    let clip = &v["detail"]["animations"][0];
    assert_eq!(clip["name"], "bend");
    assert_eq!((u(&clip["keys"]), u(&clip["channels"])), (31, 1));
    assert_eq!((f(&clip["duration"]), f(&clip["fps"])), (1.0, 30.0));
}

#[test]
fn unity_meshser_by_hand() {
    // The canonical cube: 24 vertices, 12 triangles, normals, tangents and UVs; the
    // format stores positions and UVs as 16-bit steps across stored boxes, normals and
    // tangents as biased bytes, u16 triangles, and the unit cube's box.
    let (_, v) = info_json(&fixture("unity-meshser/cube.bytes"));
    let s = &v["detail"]["surfaces"][0];
    assert_eq!(
        attributes(s),
        pairs(&[
            ("position", "u16x3 (across the stored box)"),
            ("normal", "u8x3 (biased, (b - 128) / 127)"),
            ("tangent", "u8x4 (biased, (b - 128) / 127)"),
            ("uv0", "u16x2 (across the stored box)"),
            ("indices", "u16"),
        ])
    );
    assert!(v["detail"]["skeleton"].is_null() && v["detail"]["animations"] == Value::Array(vec![]));
    let b = &v["detail"]["bounds"];
    assert_eq!(b["stored"], true);
    assert_eq!(b["min"].to_string(), "[-0.5,-0.5,-0.5]");
    assert_eq!(b["size"].to_string(), "[1,1,1]");
}

#[test]
fn m3d_by_hand() {
    // The canonical multi-surface model as M3D (f32 coordinates): material "glowing"
    // binds "gradient" (embedded 2x2) as base color and "checker" (a file) as
    // occlusion; "checker" is kept by name and looked up as checker.png.
    let path = fixture("m3d-format/multi_surface.m3d");
    let (_, v) = info_json(&path);
    let d = &v["detail"];
    assert_eq!(
        d["materials"][1]["textures"].to_string(),
        r#"["base color: gradient","occlusion: checker"]"#
    );
    assert_eq!(d["textures"][0]["source"], "file checker.png");
    let gradient = &d["textures"][1];
    assert_eq!(gradient["source"], "embedded");
    assert_eq!((u(&gradient["width"]), u(&gradient["height"])), (2, 2));
    // The ASET chunk's bytes, as the M3D reader gives them.
    let file = m3d_format::read(&std::fs::read(&path).unwrap()).unwrap();
    let aset = file
        .chunks
        .iter()
        .find_map(|c| match &c.body {
            m3d_format::Body::Aset { data, .. } => Some(data.len() as u64),
            _ => None,
        })
        .unwrap();
    assert_eq!(u(&gradient["bytes"]), aset);
    // The text form's tables of the same.
    let text = String::from_utf8(meshfmt(&["info", &path]).stdout).unwrap();
    assert!(
        text.contains("\nMATERIALS\n  name     textures\n  painted  base color: checker\n  glowing  base color: gradient, occlusion: checker\n"),
        "{text}"
    );
    assert!(
        text.contains(&format!("\nTEXTURES\n  name      source            pixels  size\n  checker   file checker.png       -     -\n  gradient  embedded             2x2  {aset} B\n")),
        "{text}"
    );
    assert_eq!(
        attributes(&d["surfaces"][0])[0],
        ("position".into(), "f32x3 (x scale)".into())
    );
    // The arm's clip: the three keys of "bend", 1000 ms stored.
    let (_, v) = info_json(&fixture("m3d-format/skinned_arm.m3d"));
    let clip = &v["detail"]["animations"][0];
    assert_eq!(clip["name"], "bend");
    assert_eq!((u(&clip["keys"]), f(&clip["duration"])), (3, 1.0));
    assert!(clip["fps"].is_null());
    // int16 coordinates when asked for.
    let arm = meshfmt_core::canonical::skinned_arm();
    let cx = Context {
        quality: Some("int16"),
        ..Context::new("arm.m3d")
    };
    let bytes = m3d_format::FORMAT
        .from_core(&arm, &cx)
        .unwrap()
        .value
        .write(&cx)
        .unwrap()
        .main;
    let dir = temp_dir("info-m3d");
    let path = dir.join("arm16.m3d");
    std::fs::write(&path, bytes).unwrap();
    let (_, v) = info_json(path.to_str().unwrap());
    assert_eq!(
        attributes(&v["detail"]["surfaces"][0])[0],
        ("position".into(), "i16x3 (/32767 x scale)".into())
    );
}

#[test]
fn m3d_sample_by_hand() {
    // CesiumMan as its MANIFEST describes it (written by the reference exporter, not
    // by us): vc=int8 vi=u16 ti=u16 nb=4 sk=u16; 19 bones; ACTN 'Anim' of 48 frames,
    // 1920 ms.
    let Some(path) = test_support::sample_file_or_skip("m3d", "CesiumMan.m3d", "m3d sample") else {
        return;
    };
    let (_, v) = info_json(path.to_str().unwrap());
    let d = &v["detail"];
    let a = attributes(&d["surfaces"][0]);
    assert_eq!(a[0], ("position".into(), "i8x3 (/127 x scale)".into()));
    assert!(
        a.contains(&("indices".into(), "u16 vertex + u16 uv".into())),
        "{a:?}"
    );
    assert!(
        a.iter()
            .any(|(n, s)| n == "skin" && s.starts_with("u16 skin -> 4 x (")),
        "{a:?}"
    );
    assert_eq!(u(&d["skeleton"]["bones"]), 19);
    let clip = &d["animations"][0];
    assert_eq!(clip["name"], "Anim");
    assert_eq!(u(&clip["keys"]), 48);
    assert!((f(&clip["duration"]) - 1.92).abs() < 1e-6);
}

#[test]
fn gltf_and_obj_by_hand() {
    let dir = temp_dir("info-hand");
    // A triangle: POSITION f32x3 (36 bytes), TEXCOORD_0 u16x2 normalized (12), u8
    // indices (3), in tri.bin beside tri.gltf.
    let mut bin = Vec::new();
    for p in [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]] {
        for c in p {
            bin.extend(c.to_le_bytes());
        }
    }
    for uv in [[0u16, 0], [65535, 0], [0, 65535]] {
        for c in uv {
            bin.extend(c.to_le_bytes());
        }
    }
    bin.extend([0u8, 1, 2, 0]);
    std::fs::write(dir.join("tri.bin"), &bin).unwrap();
    let gltf = r#"{"asset":{"version":"2.0"},
      "buffers":[{"uri":"tri.bin","byteLength":52}],
      "bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":12},{"buffer":0,"byteOffset":48,"byteLength":3}],
      "accessors":[
        {"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,2,0]},
        {"bufferView":1,"componentType":5123,"normalized":true,"count":3,"type":"VEC2"},
        {"bufferView":2,"componentType":5121,"count":3,"type":"SCALAR"}],
      "meshes":[{"name":"tri","primitives":[{"attributes":{"POSITION":0,"TEXCOORD_0":1},"indices":2}]}],
      "nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}],"scene":0}"#;
    let path = dir.join("tri.gltf");
    std::fs::write(&path, gltf).unwrap();
    let (_, v) = info_json(path.to_str().unwrap());
    let s = &v["detail"]["surfaces"][0];
    assert_eq!(s["name"], "tri");
    assert_eq!(
        attributes(s),
        pairs(&[
            ("position", "f32x3"),
            ("uv0", "u16x2 normalized"),
            ("indices", "u8"),
        ])
    );
    assert_eq!(v["detail"]["bounds"]["max"].to_string(), "[1,2,0]");
    assert_eq!(v["detail"]["bounds"]["stored"], false);

    // OBJ is text; the library names its texture file.
    std::fs::write(
        dir.join("wall.mtl"),
        "newmtl brick\nKd 1 1 1\nmap_Kd bricks.png\n",
    )
    .unwrap();
    let obj = "mtllib wall.mtl\no wall\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\nusemtl brick\nf 1/1/1 2/2/1 3/3/1\n";
    let path = dir.join("wall.obj");
    std::fs::write(&path, obj).unwrap();
    let (_, v) = info_json(path.to_str().unwrap());
    let d = &v["detail"];
    assert_eq!(
        attributes(&d["surfaces"][0]),
        pairs(&[
            ("position", "text (v x y z)"),
            ("normal", "text (vn)"),
            ("uv0", "text (vt)"),
            ("indices", "text (f, 1-based)"),
        ])
    );
    assert_eq!(d["surfaces"][0]["material"], "brick");
    assert_eq!(d["materials"][0]["textures"][0], "base color: bricks.png");
}

#[test]
fn text_snapshot_of_the_skinned_arm() {
    let out = meshfmt(&["info", &fixture("unigine-mesh/skinned_arm.ms11.mesh")]);
    assert!(out.status.success());
    insta::assert_snapshot!(String::from_utf8(out.stdout).unwrap());
}

#[test]
fn several_files_text_json_and_errors() {
    let cube = fixture("unity-meshser/cube.bytes");
    let arm = fixture("unigine-anim/skinned_arm.anim");
    // Text: a header line per file.
    let out = meshfmt(&["info", &cube, &arm]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(&format!("== {cube} ==\nOVERVIEW\n")),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "\n\n== {arm} ==\nOVERVIEW\nformat:     unigine-anim\n"
        )),
        "{text}"
    );
    // JSON: one object per line, each naming its file.
    let out = meshfmt(&["info", "--json", &cube, &arm]);
    let json = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = json.lines().collect();
    assert_eq!(lines.len(), 2);
    for (line, file) in lines.iter().zip([&cube, &arm]) {
        let v: Value = gltf_json::deserialize::from_str(line).unwrap();
        assert_eq!(v["file"].as_str(), Some(file.as_str()));
    }
    // A bad file: reported on stderr with its name, the others still printed, exit 1.
    let dir = temp_dir("info-many");
    let junk = dir.join("junk.bin");
    std::fs::write(&junk, [7u8; 64]).unwrap();
    let missing = dir.join("missing.mesh");
    let (junk, missing) = (junk.to_str().unwrap(), missing.to_str().unwrap());
    let out = meshfmt(&["info", "--json", &cube, junk, missing, &arm]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 2);
    let stderr = String::from_utf8(out.stderr).unwrap();
    let errs: Vec<&str> = stderr.lines().collect();
    assert_eq!(errs.len(), 3, "{stderr}");
    assert!(
        errs[0].starts_with(&format!("meshfmt: {junk}: unknown format")),
        "{stderr}"
    );
    assert!(
        errs[1].starts_with(&format!("meshfmt: {missing}: "))
            && !errs[1].contains(&format!("{missing}: {missing}")),
        "{stderr}"
    );
    assert_eq!(errs[2], "meshfmt: 2 of 4 files failed");
}

#[test]
fn long_tables_are_capped_unless_all() {
    // Twelve named surfaces in one ms11 file: ten rows, then "... 2 more".
    let tri = |k: usize| meshfmt_core::Surface {
        name: format!("s{k}"),
        positions: vec![
            meshfmt_core::glam::Vec3::ZERO,
            meshfmt_core::glam::Vec3::X,
            meshfmt_core::glam::Vec3::Y,
        ],
        indices: vec![0, 1, 2],
        ..Default::default()
    };
    let model = Model {
        coordinate_system: unigine_mesh::COORDINATE_SYSTEM,
        surfaces: (0..12).map(tri).collect(),
        ..Default::default()
    };
    let cx = Context::new("many.mesh");
    let bytes = unigine_mesh::FORMAT
        .from_core(&model, &cx)
        .unwrap()
        .value
        .write(&cx)
        .unwrap()
        .main;
    let dir = temp_dir("info-cap");
    let path = dir.join("many.mesh");
    std::fs::write(&path, bytes).unwrap();
    let path = path.to_str().unwrap();
    let text = String::from_utf8(meshfmt(&["info", path]).stdout).unwrap();
    assert!(
        text.contains("\n  s9 ") && !text.contains("\n  s10 "),
        "{text}"
    );
    assert!(
        text.contains("\n  ... 2 more (--all lists them)\n"),
        "{text}"
    );
    let all = String::from_utf8(meshfmt(&["info", "--all", path]).stdout).unwrap();
    assert!(
        all.contains("\n  s11 ") && !all.contains("more (--all"),
        "{all}"
    );
    // JSON always holds every surface.
    let (_, v) = info_json(path);
    assert_eq!(v["detail"]["surfaces"].as_array().unwrap().len(), 12);
}

/// The registry's formats all answer `summary` for what they write, naming themselves.
#[test]
fn every_format_summarizes_its_own_output() {
    let arm = meshfmt_core::canonical::skinned_arm();
    for f in FORMATS {
        let name = format!("arm.{}", f.info().extensions[0]);
        let cx = Context::new(&name);
        let written = f.from_core(&arm, &cx).unwrap().value.write(&cx).unwrap();
        let read_cx = Context {
            side_files: Some(&written as &dyn SideFiles),
            ..Context::new(&name)
        };
        let s = f
            .read(&written.main, &read_cx)
            .unwrap()
            .summary(&read_cx)
            .unwrap();
        assert_eq!(s.format, f.info().name);
    }
}
