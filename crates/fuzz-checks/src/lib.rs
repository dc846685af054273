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
//!   again: our writers never produce files our readers refuse;
//! - the cross-format target ([`check_convert`], fuzz target `convert`): whatever any
//!   reader (glTF and OBJ included) accepts goes through meshfmt-core into *every*
//!   writer, and each output reads back with its own reader.
//!
//! Every operation runs under one [`Budget`] of [`FUZZ_LIMITS`], as the tool does per
//! file, so a hostile input that would allocate gigabytes or loop for minutes meets a
//! typed error instead (and the fuzzer's RSS and time limits catch one that does not).
//!
//! ```
//! fuzz_checks::check("unity-meshser", &[3, 0, 1, 0, 1]);  // an error, not a panic
//! assert!(fuzz_checks::TARGETS.contains(&("unigine_mesh", "unigine-mesh")));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod hostile;

use meshfmt::adapters::EncodeOptions;
use meshfmt::error::CliError;
use meshfmt::formats::{FORMATS, Format};
use meshfmt_core::{Budget, Limits, Model};

/// The allowance of one checked operation: far above every seed, far below the
/// fuzzer's 2 GiB RSS limit even with the input and a second operation alive.
pub const FUZZ_LIMITS: Limits = Limits {
    max_alloc_bytes: 256 << 20,
    max_elements: 1 << 24,
};

thread_local! {
    /// The limits of the check in progress ([`FUZZ_LIMITS`] unless a `*_with` call says).
    static LIMITS: std::cell::Cell<Limits> = const { std::cell::Cell::new(FUZZ_LIMITS) };
}

fn budget() -> Budget {
    Budget::new(LIMITS.with(std::cell::Cell::get))
}

/// Runs `f` with every operation's budget made of `limits`.
fn with_limits<T>(limits: Limits, f: impl FnOnce() -> T) -> T {
    let before = LIMITS.with(|l| l.replace(limits));
    let out = f();
    LIMITS.with(|l| l.set(before));
    out
}

/// [`run_target`] with every operation under a budget of `limits` instead of
/// [`FUZZ_LIMITS`].
pub fn run_target_with(target: &str, data: &[u8], limits: Limits) {
    with_limits(limits, || run_target(target, data));
}

/// [`check_convert`] with every operation under a budget of `limits`.
pub fn check_convert_with(data: &[u8], limits: Limits) {
    with_limits(limits, || check_convert(data));
}

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
    ("convert", "any"),
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
    if target == "convert" {
        return check_convert(data);
    }
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
        let _ = inspect(data, &budget());
    }
    if let Some(rewrite) = f.rewrite {
        if let Ok(once) = rewrite(data, &budget()) {
            match rewrite(&once, &budget()) {
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
    let b = budget();
    let Ok(model) = to_core(data, &b) else { return };
    let _ = meshfmt_core::validate(&model.value);
    let opts = encode_options(f.extensions.first().copied().unwrap_or_default());
    // The encoder may refuse a model (counts past the format's limits, its budget); what
    // it writes must read back.
    if let Ok(out) = from_core(&model.value, &opts, &b) {
        if let Err(e) = to_core(&out.value, &budget()) {
            refused(
                &e,
                &format!("{format}: our encoder's output does not read back"),
            );
        }
    }
}

/// Reading back our own output failed: a bug, unless the reader only ran out of budget
/// (a compact output can legitimately need more memory to read than its writer used).
fn refused(e: &CliError, what: &str) {
    if !matches!(e, CliError::OverBudget(_)) {
        panic!("{what}: {e}");
    }
}

fn encode_options(extension: &str) -> EncodeOptions {
    EncodeOptions {
        quality: None,
        version: None,
        extension: extension.to_string(),
    }
}

/// Any reader's model, through every writer, read back by that writer's reader: the
/// conversion paths (`meshfmt convert A B` for every pair) under fuzzing. The input is
/// taken as whatever the tool would detect it as (glTF and OBJ included); each
/// conversion runs under one budget, as `meshfmt convert` does.
///
/// ```
/// fuzz_checks::check_convert(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
/// ```
pub fn check_convert(data: &[u8]) {
    let b = budget();
    let Some(model) = read_any(data, &b) else {
        return;
    };
    let _ = meshfmt_core::validate(&model);
    for f in FORMATS {
        let (Some(from_core), Some(to_core)) = (f.from_core, f.to_core) else {
            continue;
        };
        for ext in f.extensions {
            let b = budget();
            let Ok(out) = from_core(&model, &encode_options(ext), &b) else {
                continue;
            };
            if let Err(e) = to_core(&out.value, &budget()) {
                refused(
                    &e,
                    &format!("{} .{ext}: our encoder's output does not read back", f.name),
                );
            }
        }
    }
    let no_files = |_: &str| Err(meshfmt::error::CliError::Format("no files".into()));
    if let Ok(out) = meshfmt::gltf::export(&model, meshfmt::gltf::Container::Glb, &budget()) {
        if let Err(e) = meshfmt::gltf::import(&out.value.main, &no_files, &budget()) {
            refused(&e, "gltf: our export of a converted model does not import");
        }
    }
    if let Ok(out) = meshfmt::obj::export(&model, "x.mtl", &budget()) {
        let files = out.value;
        let mtl = |_: &str| Ok(files.mtl.clone().into_bytes());
        if let Err(e) = meshfmt::obj::import(files.obj.as_bytes(), &mtl, &budget()) {
            refused(&e, "obj: our export of a converted model does not import");
        }
    }
}

/// The model any of the tool's readers makes of `data`: a format crate that recognizes
/// it, else glTF, else OBJ.
fn read_any(data: &[u8], budget: &Budget) -> Option<Model> {
    let no_files = |_: &str| Err(meshfmt::error::CliError::Format("no files".into()));
    if meshfmt::gltf::sniff(data) || data.first() == Some(&b'{') {
        return meshfmt::gltf::import(data, &no_files, budget)
            .ok()
            .map(|m| m.value);
    }
    if let Some(f) = FORMATS.iter().find(|f| (f.sniff)(data)) {
        return to_core_of(f, data, budget);
    }
    meshfmt::obj::import(data, &no_files, budget)
        .ok()
        .map(|m| m.value)
}

fn to_core_of(f: &Format, data: &[u8], budget: &Budget) -> Option<Model> {
    f.to_core?(data, budget).ok().map(|m| m.value)
}

/// M3D's post-processing (what m3d_load does after parsing) and posing never panic on
/// anything the reader accepts; limits keep a hostile voxel block from taking long.
fn check_m3d_load(data: &[u8]) {
    let b = budget();
    let Ok(file) = m3d_format::read_with(
        data,
        &m3d_format::ReadOptions::default().with_budget(b.clone()),
    ) else {
        return;
    };
    let opts = m3d_format::LoadOptions {
        budget: Some(b),
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
    let b = budget();
    let Ok(model) = meshfmt::gltf::import(data, &no_files, &b) else {
        return;
    };
    let _ = meshfmt_core::validate(&model.value);
    if let Ok(out) = meshfmt::gltf::export(&model.value, meshfmt::gltf::Container::Glb, &b) {
        if let Err(e) = meshfmt::gltf::import(&out.value.main, &no_files, &budget()) {
            refused(&e, "gltf: our export does not import");
        }
    }
}

/// OBJ import never panics; what it imports exports to OBJ text that imports again.
fn check_obj(data: &[u8]) {
    let mtl = |_: &str| Ok(data.to_vec());
    let b = budget();
    let Ok(model) = meshfmt::obj::import(data, &mtl, &b) else {
        return;
    };
    let _ = meshfmt_core::validate(&model.value);
    let Ok(files) = meshfmt::obj::export(&model.value, "x.mtl", &b) else {
        return;
    };
    let files = files.value;
    let mtl = |_: &str| Ok(files.mtl.clone().into_bytes());
    if let Err(e) = meshfmt::obj::import(files.obj.as_bytes(), &mtl, &budget()) {
        refused(&e, "obj: our export does not import");
    }
}
