//! The binary's contract: clean one-line errors with exit code 1, never a panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::{Command, Output};

fn meshfmt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshfmt"))
        .args(args)
        .output()
        .expect("the meshfmt binary runs")
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("meshfmt-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// xorshift64*: deterministic bytes without a dependency.
fn random_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.max(1);
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
        })
        .collect()
}

/// The stable keys of `info --json`'s one-line object (everything before `"file"`),
/// closed: the part whose keys and values never change meaning.
fn stable_keys(out: &Output) -> String {
    let json = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(json.ends_with("}\n") && json.lines().count() == 1, "{json}");
    let (stable, _) = json
        .split_once(",\"file\":")
        .expect("the file key follows the counts");
    format!("{stable}}}")
}

fn assert_clean_failure(out: &Output, expected: &str) {
    assert_clean_exit(out, 1, expected);
}

/// A one-line error with exit code `code`: 1 for a bad or unconvertible file, 2 for
/// arguments that make no command, 3 for a file that cannot be read or written.
fn assert_clean_exit(out: &Output, code: i32, expected: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {stderr}");
    assert!(out.stdout.is_empty());
    assert!(stderr.starts_with("meshfmt: "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("backtrace"),
        "{stderr}"
    );
    assert!(
        stderr.contains(expected),
        "expected '{expected}' in: {stderr}"
    );
}

#[test]
fn random_kibibytes_are_rejected_cleanly() {
    for seed in 1..=16 {
        let path = temp_file(&format!("random{seed}.bin"), &random_bytes(seed, 1024));
        let out = meshfmt(&["info", path.to_str().unwrap()]);
        assert_clean_failure(&out, "unknown format");
        let out = meshfmt(&["info", "--json", path.to_str().unwrap()]);
        assert_clean_failure(&out, "unknown format");
    }
}

#[test]
fn ambiguous_and_missing_files() {
    let path = temp_file("noise.mesh", &random_bytes(99, 1024));
    let out = meshfmt(&["info", path.to_str().unwrap()]);
    assert_clean_failure(&out, "used by unigine-mesh and niotso-mesh");
    let out = meshfmt(&["info", "/nonexistent/file.mesh"]);
    assert_clean_exit(&out, 3, "/nonexistent/file.mesh");
    let out = meshfmt(&["info", "--format", "nope", path.to_str().unwrap()]);
    assert_clean_exit(&out, 2, "unknown format name 'nope'");
}

#[test]
fn formats_lists_every_crate() {
    let out = meshfmt(&["formats"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for name in [
        "unigine-mesh",
        "unigine-anim",
        "niotso-mesh",
        "unity-meshser",
        "m3d",
    ] {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
}

fn fixture(rel: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel);
    p.to_str().unwrap().to_string()
}

#[test]
fn info_json_for_a_meshserializer_fixture() {
    // The canonical cube: 24 vertices (4 per face), 12 triangles, by construction.
    let out = meshfmt(&["info", "--json", &fixture("unity-meshser/cube.bytes")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stable_keys(&out),
        "{\"format\":\"unity-meshser\",\"version\":\"MeshSerializer2\",\"surfaces\":1,\"vertices\":24,\"triangles\":12,\"bones\":0,\"animations\":0,\"frames\":0,\"materials\":0,\"textures\":0}"
    );
    let out = meshfmt(&["info", &fixture("unity-meshser/skinned_arm.bytes")]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("vertices:   20\n") && text.contains("triangles:  32\n"),
        "{text}"
    );
}

#[test]
fn same_format_convert_is_byte_identical() {
    let input = fixture("unity-meshser/multi_surface.bytes");
    let original = std::fs::read(&input).unwrap();
    let dir = std::env::temp_dir().join(format!("meshfmt-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_path = dir.join("copy.bytes");
    let out = meshfmt(&["convert", &input, out_path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&out_path).unwrap(), original);
    // Asking for a quality re-encodes through meshfmt-core and reports what it did.
    let out = meshfmt(&[
        "convert",
        "--quality",
        "compatible",
        &input,
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let notes = String::from_utf8_lossy(&out.stderr);
    assert!(notes.contains("geometry quantized"), "{notes}");
    let out = meshfmt(&["info", "--json", out_path.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"vertices\":19"));
    // To Model 3D, binary and ASCII: the same triangle count as the input (14).
    for ext in ["m3d", "a3d"] {
        let path = dir.join(format!("x.{ext}"));
        let out = meshfmt(&["convert", &input, path.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = meshfmt(&["info", "--json", path.to_str().unwrap()]);
        let json = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            json.contains("\"format\":\"m3d\"") && json.contains("\"triangles\":14"),
            "{json}"
        );
    }
}

#[test]
fn dump_and_validate() {
    let input = fixture("unity-meshser/cube.bytes");
    let out = meshfmt(&["dump", "--max-items", "2", &input]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("counts surfaces=1 vertices=24 triangles=12"),
        "{text}"
    );
    assert!(text.contains("... 22 more"), "{text}");
    let out = meshfmt(&["validate", &input]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("valid unity-meshser file"));
}

#[test]
fn truncated_file_error_names_the_offset() {
    let bytes = std::fs::read(fixture("unity-meshser/cube.bytes")).unwrap();
    let path = temp_file("cut.bytes", &bytes[..100]);
    let out = meshfmt(&["info", path.to_str().unwrap()]);
    // Detection by extension, then the reader says where it stopped.
    // 5 header bytes + 24 of bounds = offset 29; 24 positions need 144 of the 71 left.
    assert_clean_failure(
        &out,
        "unity-meshser: positions: count 24 needs 144 bytes but 71 remain (at offset 0x1d)",
    );
}

#[test]
fn unigine_mesh_info_and_version_conversion() {
    // The canonical skinned arm: 20 vertices (5 rings of 4), 32 triangles, 2 bones, one
    // 1-second clip = 31 frames at 30 fps; by construction, not from our output.
    let arm = fixture("unigine-mesh/skinned_arm.ms11.mesh");
    let out = meshfmt(&["info", "--json", &arm]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stable_keys(&out),
        "{\"format\":\"unigine-mesh\",\"version\":\"ms11\",\"surfaces\":1,\"vertices\":20,\"triangles\":32,\"bones\":2,\"animations\":1,\"frames\":31,\"materials\":0,\"textures\":0}"
    );
    let dir = std::env::temp_dir().join(format!("meshfmt-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Same version: byte-identical rewrite.
    let same = dir.join("same.mesh");
    let out = meshfmt(&["convert", &arm, same.to_str().unwrap()]);
    assert!(out.status.success());
    assert_eq!(std::fs::read(&same).unwrap(), std::fs::read(&arm).unwrap());
    // Another version through meshfmt-core.
    let old = dir.join("arm.smesh");
    let out = meshfmt(&["convert", &arm, old.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = meshfmt(&["info", "--json", old.to_str().unwrap()]);
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(
        json.contains("\"version\":\"ms08\"") && json.contains("\"bones\":2"),
        "{json}"
    );
    let ms10 = dir.join("arm10.mesh");
    let out = meshfmt(&["convert", "--version", "ms10", &arm, ms10.to_str().unwrap()]);
    assert!(out.status.success());
    let out = meshfmt(&["info", "--json", ms10.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"version\":\"ms10\""));
    // The newest version, and back to ms11: the geometry counts survive (animations go:
    // ms13/ms14 keep them in .anim files, which the loss notes say).
    let ms14 = dir.join("arm14.mesh");
    let out = meshfmt(&["convert", "--version", "ms14", &arm, ms14.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("animation"));
    let out = meshfmt(&["info", "--json", ms14.to_str().unwrap()]);
    assert_eq!(
        stable_keys(&out),
        "{\"format\":\"unigine-mesh\",\"version\":\"ms14\",\"surfaces\":1,\"vertices\":20,\"triangles\":32,\"bones\":2,\"animations\":0,\"frames\":0,\"materials\":0,\"textures\":0}"
    );
    let back = dir.join("arm14to11.mesh");
    let out = meshfmt(&[
        "convert",
        "--version",
        "ms11",
        ms14.to_str().unwrap(),
        back.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = meshfmt(&["validate", back.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = meshfmt(&["convert", "--version", "ms99", &arm, ms10.to_str().unwrap()]);
    assert_clean_failure(&out, "cannot write version 'ms99'");
    // A truncated ms15 names the field.
    let path = temp_file("new.mesh", b"ms15\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00");
    let out = meshfmt(&["info", path.to_str().unwrap()]);
    assert_clean_failure(&out, "unigine-mesh: bounds: unexpected end of input");
    // A truncated ms14 file names the field.
    let path = temp_file(
        "cut14.mesh",
        b"ms14\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00",
    );
    let out = meshfmt(&["info", path.to_str().unwrap()]);
    assert_clean_failure(&out, "unigine-mesh: bounds: unexpected end of input");
}

#[test]
fn unigine_anim_info_and_conversion() {
    // The canonical arm's clip: 2 bones, one clip of 1 s = 31 frames at 30 fps.
    let anim = fixture("unigine-anim/skinned_arm.anim");
    let out = meshfmt(&["info", "--json", &anim]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stable_keys(&out),
        "{\"format\":\"unigine-anim\",\"version\":\"an10\",\"surfaces\":0,\"vertices\":0,\"triangles\":0,\"bones\":2,\"animations\":1,\"frames\":31,\"materials\":0,\"textures\":0}"
    );
    let dir = std::env::temp_dir().join(format!("meshfmt-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let same = dir.join("same.anim");
    assert!(
        meshfmt(&["convert", &anim, same.to_str().unwrap()])
            .status
            .success()
    );
    assert_eq!(std::fs::read(&same).unwrap(), std::fs::read(&anim).unwrap());
    let old = dir.join("arm.sanim");
    let out = meshfmt(&["convert", &anim, old.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = meshfmt(&["info", "--json", old.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"version\":\"as08\""));
    let out = meshfmt(&["validate", &anim]);
    assert!(out.status.success());
}

#[test]
fn vitaboy_info_and_rewrite() {
    // The canonical arm as a Vitaboy mesh: 20 real vertices, 32 faces, 2 bone names.
    let mesh = fixture("niotso-mesh/skinned_arm.mesh");
    let out = meshfmt(&["info", "--json", &mesh]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stable_keys(&out),
        "{\"format\":\"niotso-mesh\",\"version\":\"mesh v2\",\"surfaces\":1,\"vertices\":20,\"triangles\":32,\"bones\":2,\"animations\":0,\"frames\":0,\"materials\":0,\"textures\":0}"
    );
    let skel = fixture("niotso-mesh/adult.skel");
    let out = meshfmt(&["info", "--json", &skel]);
    assert!(String::from_utf8_lossy(&out.stdout).contains(
        "\"version\":\"skel v1\",\"surfaces\":0,\"vertices\":0,\"triangles\":0,\"bones\":29"
    ));
    let dir = std::env::temp_dir().join(format!("meshfmt-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("copy.mesh");
    assert!(
        meshfmt(&["convert", &mesh, copy.to_str().unwrap()])
            .status
            .success()
    );
    assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read(&mesh).unwrap());
}

#[test]
fn convert_to_gltf_and_glb() {
    let arm = fixture("unigine-mesh/skinned_arm.ms11.mesh");
    let dir = std::env::temp_dir().join(format!("meshfmt-cli-gltf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let glb = dir.join("arm.glb");
    let out = meshfmt(&["convert", &arm, glb.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&glb).unwrap();
    assert_eq!(&bytes[..4], b"glTF");
    assert_eq!(bytes.len() % 4, 0);
    // .gltf writes its buffer beside it, named after the file.
    let gltf = dir.join("arm.gltf");
    let out = meshfmt(&["convert", &arm, gltf.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&gltf).unwrap();
    assert!(text.contains("\"uri\": \"arm.bin\""), "{text}");
    assert!(dir.join("arm.bin").is_file());
    let embedded = dir.join("arm-embedded.gltf");
    let out = meshfmt(&["convert", "--embed", &arm, embedded.to_str().unwrap()]);
    assert!(out.status.success());
    let text = std::fs::read_to_string(&embedded).unwrap();
    assert!(text.contains("data:application/octet-stream;base64,"));
    // And back: the canonical arm's counts (20 vertices, 32 triangles, 2 bones, one
    // 31-frame clip) survive .glb -> ms11 and .gltf + .bin -> ms11.
    for src in [&glb, &gltf] {
        let back = dir.join("back.mesh");
        // .mesh is UNIGINE's and Vitaboy's: the tool asks which.
        let out = meshfmt(&["convert", src.to_str().unwrap(), back.to_str().unwrap()]);
        assert_clean_failure(&out, "'.mesh' is written by unigine-mesh, niotso-mesh");
        let (s, b) = (src.to_str().unwrap(), back.to_str().unwrap());
        let out = meshfmt(&["convert", "--to", "unigine-mesh", s, b]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = meshfmt(&["info", "--json", back.to_str().unwrap()]);
        assert_eq!(
            stable_keys(&out),
            "{\"format\":\"unigine-mesh\",\"version\":\"ms11\",\"surfaces\":1,\"vertices\":20,\"triangles\":32,\"bones\":2,\"animations\":1,\"frames\":31,\"materials\":0,\"textures\":0}"
        );
    }
    // Formats without a reader say so.
    let m3d = temp_file("x.m3d", b"3DMO\x08\x00\x00\x00");
    let out = meshfmt(&["convert", m3d.to_str().unwrap(), glb.to_str().unwrap()]);
    assert!(!out.status.success());
}

#[test]
fn strict_turns_losses_into_errors() {
    let arm = fixture("unigine-mesh/skinned_arm.ms11.mesh");
    let dir = std::env::temp_dir().join(format!("meshfmt-cli-strict-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // MeshSerializer2 has no skin: with --strict that is an error and nothing is written.
    let out_path = dir.join("arm.bytes");
    let out = meshfmt(&["convert", "--strict", &arm, out_path.to_str().unwrap()]);
    assert_clean_failure(&out, "--strict: the conversion would lose: ");
    assert!(String::from_utf8_lossy(&out.stderr).contains("skin dropped"));
    assert!(!out_path.exists());
    // A faithful rewrite loses nothing.
    let same = dir.join("same.mesh");
    let out = meshfmt(&["convert", "--strict", &arm, same.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// In batch mode each file has its own `--max-memory` budget: a budget just above what one
/// conversion needs (found by bisection) still converts four files at once, where one
/// budget shared by the four would need about four times it.
#[test]
fn batch_files_each_get_their_own_budget() {
    let dir = std::env::temp_dir().join(format!("meshfmt-cli-budgets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let arm = fixture("unigine-mesh/skinned_arm.ms11.mesh");
    let single = dir.join("one.glb");
    let fits = |max: u64| {
        let max = max.to_string();
        let out = meshfmt(&[
            "--max-memory",
            &max,
            "convert",
            &arm,
            single.to_str().unwrap(),
        ]);
        out.status.success()
    };
    let hi = test_support::smallest_fitting(1, 1 << 30, fits);
    let max = (hi + hi / 4).to_string();
    let out_dir = dir.join("out");
    let out = meshfmt(&[
        "--max-memory",
        &max,
        "convert",
        "--out-dir",
        out_dir.to_str().unwrap(),
        "--to",
        "glb",
        &arm,
        &arm,
        &arm,
        &arm,
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{hi} bytes for one: {stderr}");
    assert!(stderr.contains("converted 4 of 4 files"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn batch_converts_good_files_and_reports_bad_ones() {
    let dir = std::env::temp_dir().join(format!("meshfmt-cli-batch-{}", std::process::id()));
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.mesh");
    std::fs::write(&bad, random_bytes(7, 300)).unwrap();
    let missing = dir.join("missing.mesh");
    let cube = fixture("unity-meshser/cube.bytes");
    let arm = fixture("unigine-mesh/skinned_arm.ms11.mesh");
    let out = meshfmt(&[
        "convert",
        "--out-dir",
        out_dir.to_str().unwrap(),
        "--to",
        "glb",
        &cube,
        bad.to_str().unwrap(),
        &arm,
        missing.to_str().unwrap(),
        &arm,
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("converted 3 of 5 files"), "{stderr}");
    assert!(
        stderr.contains("bad.mesh: ") && stderr.contains("missing.mesh: "),
        "{stderr}"
    );
    assert!(stderr.contains("2 of 5 files failed"), "{stderr}");
    // The arm is given twice: the second output gets "-2" instead of overwriting.
    for name in ["cube.glb", "skinned_arm.ms11.glb", "skinned_arm.ms11-2.glb"] {
        let bytes = std::fs::read(out_dir.join(name)).unwrap();
        assert_eq!(&bytes[..4], b"glTF", "{name}");
    }
    // All good: exit 0; --to is required.
    let out = meshfmt(&[
        "convert",
        "--out-dir",
        out_dir.to_str().unwrap(),
        "--to",
        "unigine-mesh",
        &cube,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out_dir.join("cube.mesh").is_file());
    let out = meshfmt(&["convert", "--out-dir", out_dir.to_str().unwrap(), &cube]);
    assert_clean_exit(&out, 2, "batch mode needs --to");
}

#[test]
fn validate_many_files() {
    let cube = fixture("unity-meshser/cube.bytes");
    let arm = fixture("unigine-mesh/skinned_arm.ms11.mesh");
    let junk = temp_file("junk.bin", &random_bytes(3, 100));
    let out = meshfmt(&["validate", &cube, &arm]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("cube.bytes: valid unity-meshser file"),
        "{stdout}"
    );
    assert!(
        stdout.contains("skinned_arm.ms11.mesh: valid unigine-mesh file"),
        "{stdout}"
    );
    let out = meshfmt(&["validate", &cube, junk.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("junk.bin: unknown format") && stderr.contains("1 of 2 files failed"),
        "{stderr}"
    );
}

#[test]
fn m3d_textures_are_read_from_beside_the_model() {
    use meshfmt_core::RgbaImage;
    let model = test_support::textured_triangle();
    let dir = std::env::temp_dir().join(format!("meshfmt-cli-m3dtex-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let m3d = dir.join("wall.m3d");
    let file = m3d_format::File::from_core_with(&model, &Default::default()).unwrap();
    std::fs::write(&m3d, file.value.write().unwrap()).unwrap();
    let png = RgbaImage {
        width: 2,
        height: 1,
        pixels: vec![200, 60, 40, 255, 90, 30, 20, 255],
    }
    .encode_png()
    .unwrap();
    std::fs::write(dir.join("bricks.png"), png).unwrap();

    // With the texture beside it, the glTF carries its pixels.
    let gltf = dir.join("wall.gltf");
    let out = meshfmt(&["convert", m3d.to_str().unwrap(), gltf.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("not found"), "{stderr}");
    let text = std::fs::read_to_string(&gltf).unwrap();
    assert!(text.contains("\"mimeType\": \"image/png\""), "{text}");

    // Without it: a warning, and the glTF refers to the file by name. wall.bin is there
    // now: without --force nothing is written (the .gltf is left as it was).
    std::fs::remove_file(dir.join("bricks.png")).unwrap();
    let before = std::fs::read(&gltf).unwrap();
    let out = meshfmt(&["convert", m3d.to_str().unwrap(), gltf.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.ends_with("wall.bin: already exists (--force replaces it)\n"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&gltf).unwrap(), before);
    let out = meshfmt(&[
        "convert",
        m3d.to_str().unwrap(),
        gltf.to_str().unwrap(),
        "--force",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("'bricks.png' not found"), "{stderr}");
    let text = std::fs::read_to_string(&gltf).unwrap();
    assert!(text.contains("\"uri\": \"bricks.png\""), "{text}");
}

#[test]
fn m3d_quality_sets_the_coordinate_precision() {
    let arm = fixture("unigine-mesh/skinned_arm.ms11.mesh");
    let dir = std::env::temp_dir().join(format!("meshfmt-cli-m3dq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (q, bytes) in [("int8", 1), ("int16", 2), ("float", 4), ("double", 8)] {
        let out_path = dir.join(format!("arm-{q}.m3d"));
        let out = meshfmt(&["convert", &arm, out_path.to_str().unwrap(), "--quality", q]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let f = m3d_format::read(&std::fs::read(&out_path).unwrap()).unwrap();
        assert_eq!(f.types.vc(), bytes, "{q}");
    }
    let out = meshfmt(&[
        "convert",
        &arm,
        dir.join("x.m3d").to_str().unwrap(),
        "--quality",
        "compatible",
    ]);
    assert_clean_failure(&out, "does not apply");
}

#[test]
fn m3d_mtllib_supplies_the_materials() {
    let full =
        m3d_format::File::from_core_with(&test_support::textured_triangle(), &Default::default())
            .unwrap()
            .value;
    let mut object = full.clone();
    object
        .chunks
        .retain(|c| !matches!(c.body, m3d_format::Body::Mtrl(_)));
    let mut lib = full;
    lib.chunks
        .retain(|c| matches!(c.body, m3d_format::Body::Mtrl(_)));
    let dir = std::env::temp_dir().join(format!("meshfmt-cli-mtllib-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (obj, lib_path, gltf) = (
        dir.join("obj.m3d"),
        dir.join("lib.m3d"),
        dir.join("obj.gltf"),
    );
    std::fs::write(&obj, object.write().unwrap()).unwrap();
    std::fs::write(&lib_path, lib.write().unwrap()).unwrap();

    let out = meshfmt(&["convert", obj.to_str().unwrap(), gltf.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("material name not defined"), "{stderr}");

    let out = meshfmt(&[
        "convert",
        obj.to_str().unwrap(),
        gltf.to_str().unwrap(),
        "--mtllib",
        lib_path.to_str().unwrap(),
        "--force",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("material name not defined"), "{stderr}");
    let text = std::fs::read_to_string(&gltf).unwrap();
    assert!(text.contains("\"name\": \"wall\""), "{text}");
}

#[test]
fn max_memory_bounds_every_command() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mesh = root.join("unigine-mesh/cube.ms11.mesh");
    let mesh = mesh.to_str().unwrap();
    // The default (1 GiB) and a roomy limit read it.
    assert_eq!(meshfmt(&["info", mesh]).status.code(), Some(0));
    assert_eq!(
        meshfmt(&["--max-memory", "64M", "info", mesh])
            .status
            .code(),
        Some(0)
    );
    // 100 bytes cannot hold the file itself: refused before it is read.
    let out = meshfmt(&["--max-memory", "100", "info", mesh]);
    assert_clean_failure(&out, "memory budget exceeded by the input file");
    // Enough for the file, not for what decoding it builds.
    let len = std::fs::metadata(mesh).unwrap().len();
    let out = meshfmt(&["--max-memory", &(len + 64).to_string(), "info", mesh]);
    assert_clean_failure(&out, "memory budget exceeded");
    let glb = temp_file("cube-budget.glb", b"");
    let out = meshfmt(&[
        "convert",
        mesh,
        glb.to_str().unwrap(),
        "--max-memory",
        &(len + 64).to_string(),
    ]);
    assert_clean_failure(&out, "memory budget exceeded");
    // Sizes: binary suffixes; anything else is a usage error (clap's exit code 2).
    for bad in ["12Q", "-1", "1.5G", "99999999999999999999T"] {
        let out = meshfmt(&["--max-memory", bad, "info", mesh]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
    }
}

#[test]
fn compression_levels_for_m3d_and_a_usage_error_elsewhere() {
    let input = fixture("m3d-format/skinned_arm.m3d");
    let dir = std::env::temp_dir().join(format!("meshfmt-cli-z-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut sizes = Vec::new();
    for level in ["0", "1", "9"] {
        let out = dir.join(format!("l{level}.m3d"));
        let o = meshfmt(&[
            "convert",
            &input,
            out.to_str().unwrap(),
            "--compression",
            level,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let bytes = std::fs::read(&out).unwrap();
        // Every level holds the same payload.
        let a = m3d_format::read(&bytes).unwrap();
        let b = m3d_format::read(&std::fs::read(&input).unwrap()).unwrap();
        assert_eq!(a.payload().unwrap(), b.payload().unwrap(), "level {level}");
        sizes.push(bytes.len());
    }
    // Stored (level 0) is larger than the fastest deflate, which is no smaller than the best.
    assert!(sizes[0] > sizes[1] && sizes[1] >= sizes[2], "{sizes:?}");
    let glb = dir.join("x.glb");
    let o = meshfmt(&[
        "convert",
        &input,
        glb.to_str().unwrap(),
        "--compression",
        "3",
    ]);
    assert_clean_exit(
        &o,
        2,
        "--compression applies to formats that deflate (m3d), not gltf",
    );
    let o = meshfmt(&[
        "convert",
        &input,
        glb.to_str().unwrap(),
        "--compression",
        "10",
    ]);
    assert_eq!(o.status.code(), Some(2));
}
