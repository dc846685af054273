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
//! - where a format keeps ranges of a shared input ([`Format::read_shared`]:
//!   unigine-mesh), reading the input handed over shared gives what the borrowed read
//!   gives (the same error, or the same rewrite);
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

pub mod attacks;
pub mod hostile;

use meshfmt::formats;
use meshfmt_core::format::{Context, ErrorClass, Format, FormatError, FormatFile, SharedBytes};
use meshfmt_core::{Budget, Limits, Model};

/// Every output the `meshfmt` tool writes, by extension, with `--to` where the extension
/// alone is ambiguous: what the CLI's hostile and confinement tests convert to.
pub const TOOL_OUTPUTS: &[(&str, Option<&str>)] = &[
    ("mesh", Some("unigine-mesh")),
    ("smesh", None),
    ("mesh_skinned", None),
    ("skeleton", None),
    ("anim", Some("unigine-anim")),
    ("sanim", None),
    ("m3d", None),
    ("a3d", None),
    ("mesh", Some("niotso-mesh")),
    ("skel", None),
    ("anim", Some("niotso-mesh")),
    ("bytes", None),
    ("glb", None),
    ("gltf", None),
    ("obj", None),
];

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
    ("meshopt", "meshopt"),
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
    if target == "meshopt" {
        return check_meshopt(data);
    }
    if target == "m3d_ascii" && !data.starts_with(b"3dmo") {
        let mut text = b"3dmodel 1.0\r\n".to_vec();
        text.extend_from_slice(data);
        return check(format, &text);
    }
    check(format, data);
}

/// The meshopt decoders on untrusted bytes: the first four choose the mode, filter,
/// stride and count (so every combination is reached, valid or not), the rest is the
/// encoded stream. Decoding never panics and never writes outside the buffer it is
/// given; a stream our encoder wrote from what it decoded decodes to the same bytes.
///
/// ```
/// fuzz_checks::check_meshopt(&[0, 0, 8, 3, 0xa0, 1, 2, 3]);
/// ```
pub fn check_meshopt(data: &[u8]) {
    use meshfmt_meshopt::{Filter, Mode, decode_gltf_buffer, encode_vertex_buffer};
    let [m, f, stride, count, rest @ ..] = data else {
        return;
    };
    let mode = [Mode::Attributes, Mode::Triangles, Mode::Indices][usize::from(*m % 3)];
    let filter = [
        Filter::None,
        Filter::Octahedral,
        Filter::Quaternion,
        Filter::Exponential,
    ][usize::from(*f % 4)];
    let stride = usize::from(*stride % 64) + 1;
    let count = usize::from(*count) * 3;
    let mut out = vec![0u8; count * stride];
    let decoded = decode_gltf_buffer(&mut out, count, stride, rest, mode, filter);
    if decoded.is_ok() && mode == Mode::Attributes && filter == Filter::None {
        let again = match encode_vertex_buffer(&out, count, stride) {
            Ok(e) => e,
            Err(e) => panic!("a stride the decoder took does not encode: {e}"),
        };
        let mut back = vec![0u8; out.len()];
        if let Err(e) = decode_gltf_buffer(&mut back, count, stride, &again, mode, filter) {
            panic!("our own encoding does not decode: {e}");
        }
        assert_eq!(back, out, "re-encoded stream decodes differently");
    }
}

/// Runs every check on `data` as a file of format family `format` (a name in
/// `meshfmt::formats::FORMATS`). Panics only when a property above is broken.
pub fn check(format: &str, data: &[u8]) {
    let Some(f) = formats::by_name(format) else {
        panic!("unknown format family {format}");
    };
    let name = format!(
        "input.{}",
        f.info().extensions.first().copied().unwrap_or("bin")
    );
    let _ = f.sniff(data);
    if format == "m3d" {
        check_m3d_load(data);
    }
    let b = budget();
    let cx = Context::new(&name).with_budget(b.clone());
    let shared = shared_read(f, data, &name);
    let read = f.read(data, &cx);
    same_as_shared(shared, &read, &name);
    transcoded(f, data, &name);
    let Ok(file) = read else {
        return;
    };
    let _ = file.summary(&Context::new(&name).with_budget(budget()));
    // The faithful rewrite is a fixed point: what we write reads back and writes the
    // same bytes (formats read straight into meshfmt-core: what we write reads back).
    let own = Context::new(&name).with_budget(budget());
    if let Ok(once) = file.write(&own) {
        let again = Context {
            side_files: Some(&once),
            ..Context::new(&name).with_budget(budget())
        };
        if !f.info().rewrites_faithfully {
            if let Err(e) = f.read(&once.main, &again).and_then(|g| g.to_core(&again)) {
                refused(&e, &format!("{format}: our export does not import"));
            }
        } else {
            let again = f
                .read(&once.main, &Context::new(&name).with_budget(budget()))
                .and_then(|g| g.write(&Context::new(&name).with_budget(budget())));
            match again {
                Ok(twice) => assert!(
                    twice.main == once.main,
                    "{format}: rewriting our own output changed it"
                ),
                Err(e) => refused(&e, &format!("{format}: our rewrite does not read back")),
            }
        }
    }
    let Ok(model) = file.to_core(&cx) else { return };
    drop(file);
    let _ = meshfmt_core::validate(&model.value);
    // The encoder may refuse a model (counts past the format's limits, its budget); what
    // it writes must read back.
    round_trip(f, &model.value, &name, &b, format);
}

/// The file written again in each of its format's qualities without the model
/// ([`Format::transcode`]: a glTF document compressed as it stands): what it writes
/// must read back.
fn transcoded(f: &dyn Format, data: &[u8], name: &str) {
    for quality in f.info().qualities {
        let b = budget();
        let read_cx = Context::new(name).with_budget(b.clone());
        let write_cx = Context {
            quality: Some(quality),
            ..Context::new(name).with_budget(b.clone())
        };
        let Ok(Some(w)) = f.transcode(data, &read_cx, &write_cx) else {
            continue;
        };
        let back = Context {
            side_files: Some(&w.value),
            ..Context::new(name).with_budget(budget())
        };
        if let Err(e) = f.read(&w.value.main, &back).and_then(|g| g.to_core(&back)) {
            refused(
                &e,
                &format!("{name} {quality}: the transcoded file does not read back"),
            );
        }
    }
}

/// For the formats whose [`Format::read_shared`] keeps ranges of its input
/// (unigine-mesh): what a read of `data` handed over shared gives, its rewrite hashed
/// (the file dropped before the borrowed read, so the two are never alive together).
fn shared_read(
    f: &dyn Format,
    data: &[u8],
    name: &str,
) -> Option<Result<Option<u64>, FormatError>> {
    if f.info().name != "unigine-mesh" {
        return None;
    }
    let file = f.read_shared(
        &SharedBytes::from(data),
        &Context::new(name).with_budget(budget()),
    );
    Some(file.map(|file| rewrite_hash(&*file, name)))
}

/// A hash of `file`'s rewrite; `None` when it is not written.
fn rewrite_hash(file: &dyn FormatFile, name: &str) -> Option<u64> {
    let out = file.write(&Context::new(name).with_budget(budget())).ok()?;
    let mut h = meshfmt_core::Fnv1a::new();
    h.update(&out.main);
    Some(h.finish())
}

/// The shared read ([`shared_read`]) gives what the borrowed one (`read`) gave: the same
/// error, or a file that writes the same bytes. Its stored bytes are not charged, so
/// where the borrowed read ran out of budget it may read on, and where both ran out
/// their messages differ (the totals); no other difference is allowed.
fn same_as_shared(
    shared: Option<Result<Option<u64>, FormatError>>,
    read: &Result<Box<dyn FormatFile>, FormatError>,
    name: &str,
) {
    let Some(shared) = shared else { return };
    let over = |e: &FormatError| e.class() == ErrorClass::OverBudget;
    match (read, shared) {
        (Err(a), _) if over(a) => {}
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{name}: shared read"),
        (Ok(a), Ok(b)) => {
            let a = rewrite_hash(&**a, name);
            if let (Some(a), Some(b)) = (a, b) {
                assert_eq!(a, b, "{name}: the shared read writes other bytes");
            }
        }
        (Err(a), Ok(_)) => panic!("{name}: only the shared read reads: {a}"),
        (Ok(_), Err(b)) => panic!("{name}: only the borrowed read reads: {b}"),
    }
}

/// `model` through `f`'s encoder as a file named `name`, read back: a panic when our
/// own output does not read (unless reading it needs more budget than writing did).
fn round_trip(f: &dyn Format, model: &Model, name: &str, b: &Budget, what: &str) {
    let cx = Context::new(name).with_budget(b.clone());
    let Ok(enc) = f.from_core(model, &cx) else {
        return;
    };
    let Ok(out) = enc.value.write(&cx) else {
        return;
    };
    let back = Context::new(name).with_budget(budget());
    if let Err(e) = f.read(&out.main, &back).and_then(|g| g.to_core(&back)) {
        refused(
            &e,
            &format!("{what} {name}: our encoder's output does not read back"),
        );
    }
}

/// Reading back our own output failed: a bug, unless the reader only ran out of budget
/// (a compact output can legitimately need more memory to read than its writer used).
fn refused(e: &FormatError, what: &str) {
    if e.class() != ErrorClass::OverBudget {
        panic!("{what}: {e}");
    }
}

/// Any reader's model, through every writer (every version of every format, glTF and
/// OBJ included), read back by that writer's reader: the conversion paths (`meshfmt
/// convert A B` for every pair) under fuzzing. The input is taken as whatever the tool
/// would detect it as; each conversion runs under one budget, as `meshfmt convert` does.
///
/// ```
/// fuzz_checks::check_convert(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
/// ```
pub fn check_convert(data: &[u8]) {
    let b = budget();
    // OBJ has no magic: text that no other format recognizes is tried as OBJ.
    let source = formats::detect(data, "input.obj").ok();
    let Some(source) = source else { return };
    let name = format!(
        "input.{}",
        source.info().extensions.first().copied().unwrap_or("bin")
    );
    let cx = Context::new(&name).with_budget(b.clone());
    let Ok(model) = source.read(data, &cx).and_then(|f| f.to_core(&cx)) else {
        return;
    };
    let _ = meshfmt_core::validate(&model.value);
    for f in formats::FORMATS.iter().filter(|f| f.info().can_write) {
        for (out, version) in targets(*f) {
            // One budget for the write and the read back, as one conversion has.
            let b = budget();
            let cx = Context {
                version,
                ..Context::new(&out).with_budget(b.clone())
            };
            let Ok(enc) = f.from_core(&model.value, &cx) else {
                continue;
            };
            let Ok(w) = enc.value.write(&cx) else {
                continue;
            };
            let back = Context {
                side_files: Some(&w),
                ..Context::new(&out).with_budget(b.clone())
            };
            if let Err(e) = f.read(&w.main, &back).and_then(|g| g.to_core(&back)) {
                refused(
                    &e,
                    &format!(
                        "{} {out} {version:?}: our encoder's output does not read back",
                        f.info().name
                    ),
                );
            }
        }
    }
}

/// Every output a format writes: each extension (with the version it implies), then
/// each version no extension implies, under the default extension.
fn targets(f: &dyn Format) -> Vec<(String, Option<&'static str>)> {
    let mut out: Vec<(String, Option<&'static str>)> = f
        .info()
        .extensions
        .iter()
        .map(|e| (format!("output.{e}"), None))
        .collect();
    let default_ext = f.info().default_extension();
    for (i, v) in f.info().versions.iter().enumerate() {
        if v.extension.is_none() && i > 0 {
            out.push((format!("output.{default_ext}"), Some(v.name)));
        }
    }
    out
}

/// A narrowed write ([`m3d_format::WriteOptions::narrow`]) of anything the reader
/// accepts, at the file's own coordinate precision (so no value is converted), succeeds
/// wherever the faithful write does and loads to the same model: the fields it narrows
/// hold every stored value, or it keeps them wider.
fn check_m3d_narrowed(file: &m3d_format::File) {
    use m3d_format::{LoadOptions, Precision, WriteOptions};
    let own = match file.types.vc() {
        1 => Precision::Int8,
        2 => Precision::Int16,
        4 => Precision::Float,
        _ => Precision::Double,
    };
    let narrow = WriteOptions {
        narrow: true,
        precision: own,
        budget: budget(),
        ..WriteOptions::default()
    };
    let over = |e: &m3d_format::Error| e.to_string().contains("budget");
    let has_raw_chunk = file
        .chunks
        .iter()
        .any(|c| matches!(c.body, m3d_format::Body::Extra { .. }));
    // The faithful write only where the narrowed one fails: it must fail too.
    let faithful = || {
        file.write_with(&WriteOptions {
            budget: budget(),
            ..WriteOptions::default()
        })
    };
    let bytes = match file.write_with(&narrow) {
        Ok(bytes) => bytes,
        Err(e) if !over(&e) && !has_raw_chunk && faithful().is_ok() => {
            panic!("m3d: the narrowed write fails ({e}) where the faithful one does not")
        }
        Err(_) => return,
    };
    let raw = || LoadOptions {
        budget: budget(),
        ..LoadOptions::raw()
    };
    match (file.load(&raw()), m3d_format::load(&bytes, &raw())) {
        // Compared as text too, where NaN equals NaN.
        (Ok(a), Ok(b)) => assert!(
            a == b || format!("{a:?}") == format!("{b:?}"),
            "m3d: a narrowed write loads to another model"
        ),
        (Ok(_), Err(e)) if !over(&e) => panic!("m3d: a narrowed write does not load ({e})"),
        _ => {}
    }
}

/// M3D's post-processing (what m3d_load does after parsing) and posing never panic on
/// anything the reader accepts; limits keep a hostile voxel block from taking long. The
/// one-pass [`m3d_format::load`] agrees with read-then-load: it refuses what the checked
/// reader refuses (other than for the budget, which the checked path here shares between
/// the read and the load) and gives the same model for what loads.
fn check_m3d_load(data: &[u8]) {
    let b = budget();
    let limits = b.limits();
    let one_pass = m3d_format::load(
        data,
        &m3d_format::LoadOptions {
            budget: Budget::new(limits),
            ..Default::default()
        },
    );
    let file = match m3d_format::read_with(data, &m3d_format::ReadOptions { budget: b.clone() }) {
        Ok(file) => file,
        Err(e) => {
            let over = matches!(
                e,
                m3d_format::Error::OverBudget(_) | m3d_format::Error::Inflate { .. }
            ) || e.to_string().contains("budget");
            assert!(
                over || one_pass.is_err(),
                "m3d: load accepts what read refuses ({e})"
            );
            return;
        }
    };
    check_m3d_narrowed(&file);
    let opts = m3d_format::LoadOptions {
        budget: b,
        ..Default::default()
    };
    let Ok(l) = file.load(&opts) else { return };
    // The same payload cut into 7-byte pieces: records and headers across every boundary.
    if let Some(pieces) = m3d_format::load_in_pieces(
        data,
        &m3d_format::LoadOptions {
            budget: Budget::new(limits),
            ..Default::default()
        },
        7,
    ) {
        assert!(
            pieces == l || format!("{pieces:?}") == format!("{l:?}"),
            "m3d: the load in pieces gives another model"
        );
    }
    match &one_pass {
        // Compared as text where == fails: NaN coordinates are equal there.
        Ok(one) => assert!(
            one == &l || format!("{one:?}") == format!("{l:?}"),
            "m3d: load and read-then-load give different models"
        ),
        Err(e) => panic!("m3d: load fails ({e}) where read-then-load gives a model"),
    }
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
