//! glTF compressed as it stands (`gltf::recompress`, the way `convert --compress`
//! takes first) against the model's way (import, then the compressed export): the
//! same bytes wherever the model's way changes nothing but the compression, the same
//! model read back everywhere, on every real sample; and hand-made documents that must
//! not take it (they need a repair the model's way makes) or that keep what the model
//! has no place for.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use meshfmt::convert::{ConvertOptions, convert, read_model};
use meshfmt::gltf::{Compression, Container, export, export_with, import, recompress};
use meshfmt_core::glam::Vec3;
use meshfmt_core::{Budget, Model};

const CODINGS: [(&str, Compression); 2] = [
    ("meshopt", Compression::MESHOPT),
    ("quantized", Compression::QUANTIZED),
];

fn read(bytes: &[u8]) -> Model {
    import(bytes, None, &Budget::default()).unwrap().value
}

/// The model's way: imported, then exported compressed.
fn model_way(glb: &[u8], c: Compression) -> Vec<u8> {
    let b = Budget::default();
    let m = import(glb, None, &b).unwrap().value;
    export_with(&m, Container::Glb, Some(c), &b)
        .unwrap()
        .value
        .main
}

fn direct(glb: &[u8], c: Compression) -> Option<Vec<u8>> {
    recompress(glb, None, Container::Glb, c, &Budget::default())
        .unwrap()
        .map(|e| e.value.main)
}

/// What `meshfmt convert in.glb out.glb --quality QUALITY` writes.
fn converted(input: &[u8], name: &str, quality: &str) -> Vec<u8> {
    let opts = ConvertOptions {
        quality: Some(quality.into()),
        ..ConvertOptions::default()
    };
    let out = convert(Path::new(name), input, Path::new("out.glb"), &opts).unwrap();
    out.outputs[0].1.clone()
}

#[test]
fn every_sample_compresses_as_its_model_does() {
    let Some(dir) = test_support::samples_or_skip("", "every_sample_compresses_as_its_model_does")
    else {
        return;
    };
    let extensions: Vec<&str> = meshfmt::formats::FORMATS
        .iter()
        .flat_map(|f| f.info().extensions.iter().copied())
        .filter(|e| !["apr", "bnd", "glb", "gltf"].contains(e))
        .collect();
    let (mut same_bytes, mut same_model) = (0, 0);
    for path in test_support::files_under(&dir, &extensions) {
        if path.to_string_lossy().contains("MANIFEST") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let Ok(r) = read_model(&path, &bytes, &ConvertOptions::default()) else {
            continue;
        };
        let b = Budget::default();
        let glb = export(&r.model.value, Container::Glb, &b)
            .unwrap()
            .value
            .main;
        // Whether the model's way gives back the same document before compressing.
        let fixed_point = export(&read(&glb), Container::Glb, &b).unwrap().value.main == glb;
        for (quality, c) in CODINGS {
            let what = format!("{} ({quality})", path.display());
            let ours = direct(&glb, c).unwrap_or_else(|| panic!("{what}: not taken"));
            assert_eq!(converted(&glb, "in.glb", quality), ours, "{what}: convert");
            let theirs = model_way(&glb, c);
            if fixed_point {
                assert!(ours == theirs, "{what}: bytes differ from the model's way");
                same_bytes += 1;
            } else {
                assert_eq!(read(&ours), read(&theirs), "{what}: models differ");
                same_model += 1;
            }
        }
    }
    eprintln!("{same_bytes} compressions byte-identical, {same_model} read back identical");
    assert!(
        same_bytes > 100,
        "only {same_bytes} byte-identical compressions"
    );
}

/// A `.glb` of `json` and `bin` (padded as the container asks).
fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    fuzz_checks::attacks::glb(json, bin)
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// One triangle: positions, normals (`normal` at every corner), u16 indices; `extra`
/// is spliced into the document's top level.
fn triangle(normal: [f32; 3], extra: &str) -> Vec<u8> {
    let mut bin = f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    bin.extend(f32s(&[normal, normal, normal].concat()));
    bin.extend([0u8, 0, 1, 0, 2, 0, 0, 0]);
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scenes":[{{"nodes":[0]}}],"scene":0,
        "nodes":[{{"mesh":0}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"NORMAL":1}},"indices":2}}]}}],
        "accessors":[
          {{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
          {{"bufferView":1,"componentType":5126,"count":3,"type":"VEC3"}},
          {{"bufferView":2,"componentType":5123,"count":3,"type":"SCALAR"}}],
        "bufferViews":[{{"buffer":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":36}},
          {{"buffer":0,"byteOffset":72,"byteLength":6}}],
        "buffers":[{{"byteLength":80}}]{extra}}}"#
    );
    glb(&json, &bin)
}

#[test]
fn a_document_needing_a_repair_takes_the_models_way() {
    // A normal of length 2: the export normalizes it (and says so).
    let long = triangle([0.0, 0.0, 2.0], "");
    assert!(direct(&long, Compression::MESHOPT).is_none());
    let out = read(&converted(&long, "in.glb", "quantized"));
    for n in &out.surfaces[0].normals {
        assert!((n.length() - 1.0).abs() < 0.01, "{n}");
        assert!((*n - Vec3::Z).length() < 0.02, "{n}");
    }
    // The same with a unit normal qualifies.
    assert!(direct(&triangle([0.0, 0.0, 1.0], ""), Compression::MESHOPT).is_some());
    // An extension the compressor would have to declare again.
    let unlit = triangle(
        [0.0, 0.0, 1.0],
        r#","extensionsUsed":["KHR_materials_unlit"]"#,
    );
    assert!(direct(&unlit, Compression::MESHOPT).is_none());
    // An image URI that leads out of the folder; one inside is kept as written.
    let image = |uri: &str| {
        triangle(
            [0.0, 0.0, 1.0],
            &format!(r#","images":[{{"uri":"{uri}"}}],"textures":[{{"source":0}}]"#),
        )
    };
    assert!(direct(&image("../secret.png"), Compression::MESHOPT).is_none());
    let kept = direct(&image("tex/a.png"), Compression::MESHOPT).unwrap();
    assert!(String::from_utf8_lossy(&kept).contains(r#""uri":"tex/a.png""#));
}

#[test]
fn key_times_that_do_not_increase_take_the_models_way() {
    let mut bin = f32s(&[0.0, 1.0, 1.0]);
    bin.extend(f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 2.0, 3.0, 0.0]));
    let json = r#"{"asset":{"version":"2.0"},"nodes":[{}],
        "animations":[{"channels":[{"sampler":0,"target":{"node":0,"path":"translation"}}],
          "samplers":[{"input":0,"output":1}]}],
        "accessors":[
          {"bufferView":0,"componentType":5126,"count":3,"type":"SCALAR","min":[0],"max":[1]},
          {"bufferView":1,"componentType":5126,"count":3,"type":"VEC3"}],
        "bufferViews":[{"buffer":0,"byteLength":12},{"buffer":0,"byteOffset":12,"byteLength":36}],
        "buffers":[{"byteLength":48}]}"#;
    let g = glb(json, &bin);
    assert!(direct(&g, Compression::MESHOPT).is_none());
    // Strictly increasing, it qualifies.
    let mut ok = bin.clone();
    ok[8..12].copy_from_slice(&2.0f32.to_le_bytes());
    assert!(direct(&glb(json, &ok), Compression::MESHOPT).is_some());
}

#[test]
fn a_jpeg_and_the_scene_name_are_kept() {
    // Not a whole JPEG: its bytes are carried, never decoded.
    let jpeg = b"\xFF\xD8\xFF\xE0\x00\x10JFIF\x00-meshfmt-test-jpeg-\xFF\xD9".to_vec();
    let mut bin = f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    bin.extend(f32s(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0]));
    bin.extend([0u8, 0, 1, 0, 2, 0, 0, 0]);
    let at = bin.len();
    bin.extend(&jpeg);
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scenes":[{{"name":"the scene","nodes":[0]}}],"scene":0,
        "nodes":[{{"mesh":0}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"TEXCOORD_0":1}},"indices":2,"material":0}}]}}],
        "materials":[{{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":0}}}}}}],
        "textures":[{{"source":0}}],
        "images":[{{"bufferView":3,"mimeType":"image/jpeg"}}],
        "accessors":[
          {{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
          {{"bufferView":1,"componentType":5126,"count":3,"type":"VEC2"}},
          {{"bufferView":2,"componentType":5123,"count":3,"type":"SCALAR"}}],
        "bufferViews":[{{"buffer":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":24}},
          {{"buffer":0,"byteOffset":60,"byteLength":6}},{{"buffer":0,"byteOffset":{at},"byteLength":{}}}],
        "buffers":[{{"byteLength":{}}}]}}"#,
        jpeg.len(),
        bin.len().next_multiple_of(4)
    );
    let g = glb(&json, &bin);
    let contains = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    for (_, c) in CODINGS {
        let out = direct(&g, c).unwrap();
        assert!(contains(&out, &jpeg), "the JPEG's bytes are carried");
        assert!(contains(&out, br#""name":"the scene""#));
        // The model's way has no place for either.
        let theirs = model_way(&g, c);
        assert!(!contains(&theirs, &jpeg) && !contains(&theirs, b"the scene"));
    }
}

#[test]
fn buffers_are_joined() {
    // Positions in a data-URI buffer, indices in a second one: one buffer out.
    let b64 = |bytes: &[u8]| {
        const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut s = String::new();
        for c in bytes.chunks(3) {
            let n = (u32::from(c[0]) << 16)
                | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
                | u32::from(*c.get(2).unwrap_or(&0));
            for k in 0..4 {
                if k <= c.len() {
                    s.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
                } else {
                    s.push('=');
                }
            }
        }
        s
    };
    let positions = f32s(&[0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 2.0, 0.0]);
    let indices = [2u8, 0, 1, 0, 0, 0];
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1}}]}}],
        "accessors":[
          {{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[4,2,0]}},
          {{"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"}}],
        "bufferViews":[{{"buffer":0,"byteLength":36}},{{"buffer":1,"byteLength":6}}],
        "buffers":[{{"byteLength":36,"uri":"data:application/octet-stream;base64,{}"}},
          {{"byteLength":6,"uri":"data:application/octet-stream;base64,{}"}}]}}"#,
        b64(&positions),
        b64(&indices)
    );
    let out = direct(json.as_bytes(), Compression::QUANTIZED).unwrap();
    let m = read(&out);
    let s = &m.surfaces[0];
    let corners: Vec<Vec3> = s.indices.iter().map(|&i| s.positions[i as usize]).collect();
    // The triangle's corners (0,2,0), (0,0,0), (4,0,0), each within half a 14-bit step
    // of the 4-unit box, facing as the importer faces the input.
    let want = [
        Vec3::new(0.0, 2.0, 0.0),
        Vec3::ZERO,
        Vec3::new(4.0, 0.0, 0.0),
    ];
    assert_eq!(corners.len(), 3);
    for w in want {
        let d = corners
            .iter()
            .map(|c| (*c - w).abs().max_element())
            .fold(f32::INFINITY, f32::min);
        assert!(d <= 0.5 * 4.0 / 16383.0 + 1e-6, "corner {w}: {d}");
    }
    let facing = |c: &[Vec3]| (c[1] - c[0]).cross(c[2] - c[0]).normalize();
    let input = read(json.as_bytes());
    let s0 = &input.surfaces[0];
    let original: Vec<Vec3> = s0
        .indices
        .iter()
        .map(|&i| s0.positions[i as usize])
        .collect();
    assert!(facing(&corners).dot(facing(&original)) > 0.999);
}
