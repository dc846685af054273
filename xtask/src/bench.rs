//! `cargo xtask bench [--runs N] [--quick] [--out FILE] [--samples DIR]`: one table of
//! every format's read / write / to_core / from_core against memcpy, conversions to
//! ms14 and OBJ to glB (beside assimp), and M3D load and save beside the reference
//! m3d.h, all measured in this one run; written to BENCHMARKS.md with the machine. A
//! second table compares delivery glTF (`meshfmt convert --compress`) with gltfpack;
//! `--only delivery` measures that section alone and replaces it in the file.
//!
//! `cargo xtask` builds in the test profile, so this first builds xtask and the
//! `meshfmt` binary in release and runs that build (`--here` skips it).

mod convert;
mod delivery;
mod formats;
mod reference;
mod report;
mod timing;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use meshfmt_core::format::Format;
use report::Row;

/// Command-line choices.
struct Options {
    runs: usize,
    quick: bool,
    out: PathBuf,
    samples: PathBuf,
    reference: PathBuf,
    here: bool,
    /// `--only delivery`: the delivery glTF section alone.
    only_delivery: bool,
}

fn workspace() -> PathBuf {
    test_support::workspace_root()
}

fn parse(args: &[&str]) -> Result<Options, String> {
    let mut o = Options {
        runs: 0,
        quick: false,
        out: workspace().join("BENCHMARKS.md"),
        samples: test_support::samples_location(),
        reference: workspace().join("../shared/tools/m3d-ref"),
        here: false,
        only_delivery: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{a} needs a value"));
        match *a {
            "--runs" => {
                o.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?;
            }
            "--quick" => o.quick = true,
            "--out" => o.out = PathBuf::from(value()?),
            "--samples" => o.samples = PathBuf::from(value()?),
            "--reference" => o.reference = PathBuf::from(value()?),
            "--here" => o.here = true,
            "--only" => match value()? {
                &"delivery" => o.only_delivery = true,
                other => return Err(format!("--only: unknown section {other} (delivery)")),
            },
            other => return Err(format!("unknown option {other}")),
        }
    }
    if o.runs == 0 {
        o.runs = if o.quick { 3 } else { 5 };
    }
    Ok(o)
}

/// The usage line, for `main`'s usage text.
pub const USAGE: &str = "cargo xtask bench [--runs N] [--quick] [--out FILE] [--samples DIR] \
                         [--reference DIR] [--only delivery]";

/// `cargo xtask bench ...`.
pub fn run(args: &[&str]) -> ExitCode {
    let o = match parse(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}\nusage: {USAGE}");
            return ExitCode::from(2);
        }
    };
    if cfg!(debug_assertions) && !o.here {
        return in_release(args);
    }
    match measure_all(&o) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `xtask bench-child m3d RUNS FILE`: our side of one M3D comparison, in its own
/// process so its peak RSS is the file's.
pub fn child(args: &[&str]) -> ExitCode {
    let [_, runs, file] = args else {
        eprintln!("usage: xtask bench-child m3d RUNS FILE");
        return ExitCode::from(2);
    };
    match reference::child(runs.parse().unwrap_or(1), Path::new(file)) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("error\t{e}");
            ExitCode::FAILURE
        }
    }
}

/// The release binaries' folder: beside the folder this (test-profile) xtask runs from.
pub(crate) fn release_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|p| Some(p.parent()?.parent()?.join("release")))
        .unwrap_or_else(|| workspace().join("target/release"))
}

/// `cargo build --release` of `packages` in the workspace, with `RUSTFLAGS` when given
/// (CARGO_ENCODED_RUSTFLAGS then cleared, since it would win): whether it succeeded.
fn cargo_build(args: &[&str], rustflags: Option<&str>) -> bool {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(workspace())
        .args(["build", "--release"])
        .args(args);
    if let Some(flags) = rustflags {
        cmd.env("RUSTFLAGS", flags)
            .env_remove("CARGO_ENCODED_RUSTFLAGS");
    }
    cmd.status().is_ok_and(|s| s.success())
}

/// `cargo build --locked --release -p meshfmt --bin meshfmt`: the binary's path.
pub(crate) fn release_tool() -> Result<PathBuf, String> {
    if !cargo_build(&["--locked", "-p", "meshfmt", "--bin", "meshfmt"], None) {
        return Err("the release build of meshfmt failed".into());
    }
    Ok(release_dir().join("meshfmt"))
}

/// The host's triple for the static-pie build, on Linux with glibc (whose `crt-static`
/// links a static PIE); `None` elsewhere.
fn static_triple() -> Option<String> {
    cfg!(all(target_os = "linux", target_env = "gnu"))
        .then(|| format!("{}-unknown-linux-gnu", std::env::consts::ARCH))
}

/// Where the static-pie build of the tool goes (`--target <host>`).
pub(crate) fn static_release_dir() -> Option<PathBuf> {
    Some(
        release_dir()
            .parent()?
            .join(static_triple()?)
            .join("release"),
    )
}

fn in_release(args: &[&str]) -> ExitCode {
    eprintln!("bench: building xtask and meshfmt in release (cargo build --release)...");
    if !cargo_build(&["--quiet", "-p", "xtask", "-p", "meshfmt"], None) {
        eprintln!("bench: the release build failed");
        return ExitCode::FAILURE;
    }
    // With `--target`, RUSTFLAGS reaches only target code (a proc macro cannot be
    // linked static). A failure is reported and the bench goes on without that build.
    if let Some(triple) = static_triple() {
        eprintln!("bench: building the static-pie meshfmt (--target {triple})...");
        let built = cargo_build(
            &[
                "--quiet", "-p", "meshfmt", "--bin", "meshfmt", "--target", &triple,
            ],
            Some("-C target-feature=+crt-static"),
        );
        if !built {
            eprintln!("bench: the static-pie build failed; the bench goes on without it");
        }
    }
    let status = Command::new(release_dir().join("xtask"))
        .arg("bench")
        .args(args)
        .arg("--here")
        .status();
    match status {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}

/// A generated file kept for the conversions: label, format, bytes.
type Source = (String, &'static dyn Format, formats::Input);

fn measure_all(o: &Options) -> Result<(), String> {
    let tmp = std::env::temp_dir().join(format!("meshfmt-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    if o.only_delivery {
        let done = delivery::only(o, &tmp);
        let _ = std::fs::remove_dir_all(&tmp);
        return done;
    }
    let machine = report::Machine::here();
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let generated = format_rows(o, &mut rows, &mut notes);
    let m3d_big = generated
        .iter()
        .find(|s| s.0 == "m3d binary")
        .map(|s| s.2.bytes.to_vec());
    conversion_rows(o, generated, &tmp, &mut rows, &mut notes);
    reference_rows(o, m3d_big, &tmp, &mut rows, &mut notes)?;
    let section = delivery::measure(o, &tmp, Some(&tmp.join("grid.obj")));
    let _ = std::fs::remove_dir_all(&tmp);
    let text = delivery::splice(
        &report::markdown(&machine, o, &rows, &notes),
        &delivery::markdown(&section),
    );
    println!("{text}");
    std::fs::write(&o.out, &text).map_err(|e| format!("{}: {e}", o.out.display()))?;
    eprintln!("bench: wrote {}", o.out.display());
    Ok(())
}

/// Every format's generated and sample rows against memcpy; gives back the generated
/// mesh files the conversions start from.
fn format_rows(o: &Options, rows: &mut Vec<Row>, notes: &mut Vec<String>) -> Vec<Source> {
    let min = Duration::from_millis(if o.quick { 10 } else { 25 });
    let mut kept = Vec::new();
    let generated = formats::generated().into_iter().map(|w| (true, w));
    let sampled = formats::samples(&o.samples).into_iter().map(|w| (false, w));
    for (is_generated, w) in generated.chain(sampled) {
        let w = match w {
            Ok(w) => w,
            Err(e) => {
                eprintln!("bench: {e}");
                notes.push(e);
                continue;
            }
        };
        eprintln!("bench: {} ({})", w.label, w.what);
        let m = formats::measure(&w, o.runs, min);
        let bytes = w.inputs.iter().map(|i| i.bytes.len()).sum();
        rows.push(Row::memcpy(&w.label, &w.what, bytes, &m));
        // The million-triangle UNIGINE meshes also read back to back (memory reused),
        // and ms14 from borrowed bytes too (its stored blocks copied).
        if is_generated && w.label.starts_with("unigine-mesh ms") {
            let borrowed = w.label.ends_with("ms14");
            for shared in [true, false].into_iter().take(1 + borrowed as usize) {
                let (memcpy, read) = formats::reads_back_to_back(&w, o.runs, 10 * min, shared);
                rows.push(Row::read_only(
                    &w.label, &w.what, bytes, memcpy, read, shared,
                ));
            }
        }
        let source =
            ["unigine-mesh ms11", "m3d binary", "Vitaboy mesh"].contains(&w.label.as_str());
        if let (true, true, Some(input)) = (is_generated, source, w.inputs.into_iter().next()) {
            kept.push((w.label, w.format, input));
        }
    }
    kept
}

/// Any format to ms14 in process, and OBJ to glB through the CLI beside assimp.
fn conversion_rows(
    o: &Options,
    mut sources: Vec<Source>,
    tmp: &Path,
    rows: &mut Vec<Row>,
    notes: &mut Vec<String>,
) {
    let grid = test_support::workloads::grid(test_support::workloads::MILLION);
    let obj = formats::generate(&meshfmt::obj::FORMAT, &grid, "grid.obj", None);
    let obj_bytes = match obj {
        Ok(i) => {
            let bytes = i.bytes.clone();
            sources.push(("OBJ".into(), &meshfmt::obj::FORMAT, i));
            Some(bytes)
        }
        Err(e) => {
            notes.push(format!("OBJ: generating grid.obj: {e}"));
            None
        }
    };
    for (label, f, input) in &sources {
        eprintln!("bench: {label} -> ms14");
        match convert::to_ms14(*f, label, input, o.runs) {
            Ok(c) => rows.push(Row::to_ms14(&c)),
            Err(e) => notes.push(format!("{label} -> ms14: {e}")),
        }
    }
    let Some(bytes) = obj_bytes else { return };
    let path = tmp.join("grid.obj");
    let meshfmt_bin = release_dir().join("meshfmt");
    if std::fs::write(&path, &bytes).is_err() || !meshfmt_bin.is_file() {
        notes.push(format!(
            "OBJ -> glB skipped: {} not built",
            meshfmt_bin.display()
        ));
        return;
    }
    eprintln!("bench: meshfmt convert grid.obj grid.glb (and assimp export)");
    let (ours, theirs) = convert::obj_to_glb(&meshfmt_bin, &path, tmp, o.runs);
    rows.push(Row::obj_to_glb(bytes.len(), &ours, theirs.as_ref()));
    if theirs.is_none() {
        notes.push(
            "assimp not installed (apt-get install assimp-utils): OBJ -> glB has no baseline"
                .into(),
        );
    }
}

/// M3D load and save beside m3d.h: the top-level M3D samples and the generated model.
fn reference_rows(
    o: &Options,
    m3d_big: Option<Vec<u8>>,
    tmp: &Path,
    rows: &mut Vec<Row>,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let run_sh = o.reference.join("run.sh");
    if !run_sh.is_file() || convert::which("gcc").is_none() {
        notes.push(format!(
            "M3D reference comparison skipped: {} (or gcc) not found",
            run_sh.display()
        ));
        return Ok(());
    }
    let dir = o.samples.join("m3d");
    let mut files = test_support::files_under(&dir, &["m3d", "a3d"]);
    files.retain(|p| p.parent() == Some(dir.as_path()));
    if let Some(b) = &m3d_big {
        let p = tmp.join("grid-1M.m3d");
        if std::fs::write(&p, b).is_ok() {
            files.push(p);
        }
    }
    let rounds = if o.quick { 1 } else { 3 };
    eprintln!(
        "bench: M3D load/save beside m3d.h on {} files ({rounds} rounds)",
        files.len()
    );
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let compared = reference::compare(&run_sh, &exe, &files, rounds, o.quick);
    rows.extend(Row::reference(&compared, notes));
    Ok(())
}
