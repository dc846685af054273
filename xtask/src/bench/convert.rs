//! Conversions: any format to UNIGINE ms14 in process (read, to_core, from_core as
//! ms14, write; a million triangles), and OBJ to glB through the `meshfmt` binary
//! beside `assimp export` when assimp is installed.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use meshfmt_core::format::{Context, Format};

use super::formats::Input;
use super::timing::{Memcpy, median};

/// One conversion's figures: medians in seconds.
pub struct ToMs14 {
    /// Source format and size.
    pub source: String,
    /// Source bytes.
    pub bytes: usize,
    /// memcpy of the source bytes.
    pub memcpy: f64,
    /// read, to_core, from_core (ms14), write, and the whole chain.
    pub steps: [f64; 5],
}

/// `input` (of `format`) converted to ms14, `runs` times (at most 3: the spatial tree
/// of a million triangles takes seconds), each step timed.
pub fn to_ms14(
    format: &'static dyn Format,
    label: &str,
    input: &Input,
    runs: usize,
) -> Result<ToMs14, String> {
    let err = |e: meshfmt_core::format::FormatError| e.to_string();
    let mut memcpy = Memcpy::new([input.bytes.as_slice()]);
    let mut t: [Vec<f64>; 6] = Default::default();
    for _ in 0..runs.min(3) {
        t[5].push(memcpy.time(Duration::from_millis(20)));
        // A fresh budget per conversion, shared by its four steps as `meshfmt convert`
        // shares one (under its default 1 GiB).
        let cx = Context::new(&input.name);
        let ms14 = Context {
            version: Some("ms14"),
            file_name: "out.mesh",
            ..cx.clone()
        };
        let start = Instant::now();
        // Shared, as `meshfmt convert` reads a file it owns.
        let file = format.read_shared(&input.bytes, &cx).map_err(err)?;
        let a = Instant::now();
        let model = file.to_core(&cx).map_err(err)?.value;
        let b = Instant::now();
        let out = unigine_mesh::FORMAT.from_core(&model, &ms14).map_err(err)?;
        let c = Instant::now();
        let bytes = out.value.write(&ms14).map_err(err)?;
        let d = Instant::now();
        std::hint::black_box(bytes);
        for (k, (from, to)) in [(start, a), (a, b), (b, c), (c, d), (start, d)]
            .into_iter()
            .enumerate()
        {
            t[k].push((to - from).as_secs_f64());
        }
    }
    Ok(ToMs14 {
        source: label.to_string(),
        bytes: input.bytes.len(),
        memcpy: median(&t[5]),
        steps: [0, 1, 2, 3, 4].map(|k| median(&t[k])),
    })
}

/// A command's wall time (seconds, median) and peak RSS (KiB, median, when
/// `/usr/bin/time` is there), or why it failed.
pub struct Timed {
    /// Median wall seconds.
    pub secs: f64,
    /// Median peak RSS in KiB.
    pub peak_kb: Option<f64>,
}

/// Runs `program args` once under `/usr/bin/time -f %M` when present: wall seconds and
/// peak RSS in KiB.
pub fn run_once(program: &Path, args: &[&Path]) -> Result<(f64, Option<f64>), String> {
    let gnu_time = Path::new("/usr/bin/time");
    let mut cmd = if gnu_time.is_file() {
        let mut c = Command::new(gnu_time);
        c.args(["-f", "%M"]).arg(program);
        c
    } else {
        Command::new(program)
    };
    cmd.args(args);
    let start = Instant::now();
    let out = cmd
        .output()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    let secs = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            program.display(),
            stderr.lines().last().unwrap_or_default()
        ));
    }
    let peak = gnu_time
        .is_file()
        .then(|| stderr.lines().last()?.trim().parse::<f64>().ok())
        .flatten();
    Ok((secs, peak))
}

/// `meshfmt convert OBJ GLB` and, when `assimp` is on the PATH, `assimp export OBJ
/// GLB2`, alternated `runs` times.
pub fn obj_to_glb(
    meshfmt: &Path,
    obj: &Path,
    dir: &Path,
    runs: usize,
) -> (Result<Timed, String>, Option<Result<Timed, String>>) {
    let ours_out = dir.join("grid.glb");
    let theirs_out = dir.join("grid-assimp.glb");
    let assimp = which("assimp");
    let mut ours = (Vec::new(), Vec::new());
    let mut theirs = (Vec::new(), Vec::new());
    let mut errors = (None, None);
    for _ in 0..runs {
        match run_once(meshfmt, &[Path::new("convert"), obj, &ours_out]) {
            Ok((s, p)) => {
                ours.0.push(s);
                ours.1.extend(p);
            }
            Err(e) => errors.0 = Some(e),
        }
        if let Some(a) = &assimp {
            match run_once(a, &[Path::new("export"), obj, &theirs_out]) {
                Ok((s, p)) => {
                    theirs.0.push(s);
                    theirs.1.extend(p);
                }
                Err(e) => errors.1 = Some(e),
            }
        }
    }
    let settle = |t: (Vec<f64>, Vec<f64>), e: Option<String>| match e {
        Some(e) => Err(e),
        None => Ok(Timed {
            secs: median(&t.0),
            peak_kb: (!t.1.is_empty()).then(|| median(&t.1)),
        }),
    };
    (
        settle(ours, errors.0),
        assimp.map(|_| settle(theirs, errors.1)),
    )
}

/// The path of `program` on the PATH, if any.
pub fn which(program: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
}
