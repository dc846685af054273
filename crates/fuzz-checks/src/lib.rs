//! What every fuzz target checks, in one place, so `fuzz/` (cargo-fuzz, its own
//! workspace) and the regression replay in `cargo test` run the same code.
//!
//! For any input bytes and a format family, [`check`] exercises everything the `meshfmt`
//! tool would do with such a file and panics (the fuzzer's "crash") only on a real bug:
//! - decoding (`info` counts, faithful read, conversion to meshfmt-core, `validate`)
//!   never panics, whatever it returns;
//! - a file the faithful reader accepts is rewritten, and that rewrite is a fixed point:
//!   reading and writing our own output gives the same bytes (a round trip that is
//!   immune to NaN payloads, unlike comparing decoded values);
//! - a model decoded from the input and written back by the format's own encoder reads
//!   again: our writers never produce files our readers refuse.
//!
//! ```
//! fuzz_checks::check("unity-meshser", &[3, 0, 1, 0, 1]);  // an error, not a panic
//! assert!(fuzz_checks::TARGETS.contains(&("unigine_mesh", "unigine-mesh")));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use meshfmt::adapters::EncodeOptions;
use meshfmt::formats::FORMATS;

/// Fuzz targets (`fuzz/fuzz_targets/<name>.rs`) and the format family each checks.
pub const TARGETS: &[(&str, &str)] = &[
    ("unigine_mesh", "unigine-mesh"),
    ("unigine_anim", "unigine-anim"),
    ("vitaboy", "niotso-mesh"),
    ("unity_meshser", "unity-meshser"),
    ("m3d", "m3d"),
    ("m3d_ascii", "m3d"),
    ("gltf", "gltf"),
    ("obj", "obj"),
];

/// What fuzz target `target` runs on `data` (also what the regression replay runs): its
/// family's [`check`], with `m3d_ascii` keeping the fuzzer inside M3D's text form by
/// giving every input the `3dmodel` header it lacks.
///
/// ```
/// fuzz_checks::run_target("m3d_ascii", b"Vertex\r\n1 2 3\r\nEnd\r\n");
/// ```
pub fn run_target(target: &str, data: &[u8]) {
    let Some((_, format)) = TARGETS.iter().find(|(t, _)| *t == target) else {
        panic!("unknown fuzz target {target}");
    };
    if target == "m3d_ascii" && !data.starts_with(b"3dmo") {
        let mut text = b"3dmodel 1.0\r\n".to_vec();
        text.extend_from_slice(data);
        return check(format, &text);
    }
    check(format, data);
}

/// Runs every check on `data` as a file of format family `format` (a name in
/// `meshfmt::formats::FORMATS`). Panics only when a property above is broken.
pub fn check(format: &str, data: &[u8]) {
    if format == "gltf" {
        return check_gltf(data);
    }
    if format == "obj" {
        return check_obj(data);
    }
    let Some(f) = FORMATS.iter().find(|f| f.name == format) else {
        panic!("unknown format family {format}");
    };
    let _ = (f.sniff)(data);
    if format == "m3d" {
        check_m3d_load(data);
    }
    if let Some(inspect) = f.inspect {
        let _ = inspect(data);
    }
    if let Some(rewrite) = f.rewrite {
        if let Ok(once) = rewrite(data) {
            match rewrite(&once) {
                Ok(twice) => assert!(
                    twice == once,
                    "{format}: rewriting our own output changed it"
                ),
                Err(e) => panic!("{format}: our rewrite does not read back: {e}"),
            }
        }
    }
    let (Some(to_core), Some(from_core)) = (f.to_core, f.from_core) else {
        return;
    };
    let Ok(model) = to_core(data) else { return };
    let _ = meshfmt_core::validate(&model.value);
    let opts = EncodeOptions {
        quality: None,
        version: None,
        extension: f
            .extensions
            .first()
            .copied()
            .unwrap_or_default()
            .to_string(),
    };
    // The encoder may refuse a model (counts past the format's limits, say); what it
    // writes must read back.
    if let Ok(out) = from_core(&model.value, &opts) {
        if let Err(e) = to_core(&out.value) {
            panic!("{format}: our encoder's output does not read back: {e}");
        }
    }
}

/// M3D's post-processing (what m3d_load does after parsing) and posing never panic on
/// anything the reader accepts; limits keep a hostile voxel block from taking long.
fn check_m3d_load(data: &[u8]) {
    let Ok(file) = m3d_format::read(data) else {
        return;
    };
    let opts = m3d_format::LoadOptions {
        limits: m3d_format::Limits {
            max_alloc_bytes: 64 << 20,
            max_elements: 1 << 20,
        },
        ..Default::default()
    };
    let Ok(l) = file.load(&opts) else { return };
    for a in 0..l.actions.len().min(4) {
        let _ = (l.frame(a, 0), l.frame(a, 1), l.frame(a, usize::MAX));
        for ms in [0, 1, 499, u32::MAX] {
            let (p, q) = (l.pose(a, ms), l.pose_like_m3d_h(a, ms));
            assert_eq!(
                p.map(|p| p.len()),
                q.map(|q| q.len()),
                "m3d: pose and pose_like_m3d_h disagree on the bone count"
            );
        }
    }
    let _ = l.pose(usize::MAX, 0);
}

/// glTF import never panics; what it imports exports to a GLB that imports again.
fn check_gltf(data: &[u8]) {
    let no_files = |_: &str| Err(meshfmt::error::CliError::Format("no files".into()));
    let Ok(model) = meshfmt::gltf::import(data, &no_files) else {
        return;
    };
    let _ = meshfmt_core::validate(&model.value);
    if let Ok(out) = meshfmt::gltf::export(&model.value, meshfmt::gltf::Container::Glb) {
        if let Err(e) = meshfmt::gltf::import(&out.value.main, &no_files) {
            panic!("gltf: our export does not import: {e}");
        }
    }
}

/// OBJ import never panics; what it imports exports to OBJ text that imports again.
fn check_obj(data: &[u8]) {
    let mtl = |_: &str| Ok(data.to_vec());
    let Ok(model) = meshfmt::obj::import(data, &mtl) else {
        return;
    };
    let _ = meshfmt_core::validate(&model.value);
    let files = meshfmt::obj::export(&model.value, "x.mtl").value;
    let mtl = |_: &str| Ok(files.mtl.clone().into_bytes());
    if let Err(e) = meshfmt::obj::import(files.obj.as_bytes(), &mtl) {
        panic!("obj: our export does not import: {e}");
    }
}
