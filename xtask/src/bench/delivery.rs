//! Delivery glTF: `meshfmt convert IN.glb OUT.glb --compress` beside gltfpack's `-cc`
//! (and `-c`, and our `--quality quantized`) on every real sample converted once to an
//! uncompressed `.glb`, the two clip-carrying conversions CI makes and the generated
//! million-triangle grid: sizes, whole-process times and peak RSS, and the largest
//! position error of each output against its input (a symmetric Hausdorff distance
//! over the vertex sets, found through a uniform spatial hash grid, with a k-d tree for
//! the points far from the other set). Every output is kept in
//! `target/bench-delivery/` for validation and rendering.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use meshfmt_core::glam::Vec3;
use meshfmt_core::{Budget, Model};

use super::convert::{Timed, run_once, which};
use super::timing::{geomean, median};

/// The heading the section starts with; `--only delivery` replaces the section from
/// it to the end of the file.
pub const HEADING: &str = "## Delivery glTF";

/// The fewest rounds (one run of each tool per input) outside `--quick`.
const DELIVERY_RUNS: usize = 15;

/// Output folders under the kept folder: ours `--compress`, ours `--quality
/// quantized`, gltfpack `-cc`, gltfpack `-c`.
const OUT_DIRS: [&str; 4] = ["ours", "ours-quantized", "gltfpack-cc", "gltfpack-c"];
/// The static-pie build's outputs (its time is the point; they are the same files).
const STATIC_DIR: &str = "ours-static";

/// Sample extensions left out, as the conformance run leaves them out: Vitaboy
/// appearances (which name meshes measured on their own) and bindings.
const NOT_INPUTS: &[&str] = &["apr", "bnd"];

/// One input's figures.
struct FileRow {
    label: String,
    input_bytes: u64,
    /// Ours `--compress` and gltfpack `-cc`: timed side by side.
    ours: Result<Side, String>,
    cc: Result<Side, String>,
    /// gltfpack `-c` and ours `--quality quantized`: sizes, one run each.
    c_bytes: Result<u64, String>,
    quantized_bytes: Result<u64, String>,
    /// The input's bounding-box diagonal (model units).
    diagonal: f64,
    /// The median of the runs' ours / -cc time ratios (each pair back to back).
    pair_ratio: Option<f64>,
    /// The same for the static-pie build (run right after gltfpack), when there is one.
    static_ratio: Option<f64>,
}

/// One compressed output: its size, its process's median time and peak RSS, and its
/// largest position error (model units) or why it could not be measured.
struct Side {
    bytes: u64,
    timed: Timed,
    error: Result<f64, String>,
}

/// The section's figures and notes.
pub struct Section {
    runs: usize,
    gltfpack: Option<String>,
    date: String,
    load: String,
    kept: PathBuf,
    /// False when gltfpack or the release tool is missing (nothing was measured).
    measured: bool,
    rows: Vec<FileRow>,
    notes: Vec<String>,
}

/// One input to compress: its label, the `.glb` our tool made of it, its points.
struct Prepared {
    label: String,
    glb: PathBuf,
    points: Vec<Vec3>,
}

/// Measures the section: `grid_obj` is the generated million-triangle OBJ when the
/// conversion rows already wrote it (else it is generated here, into `tmp`).
pub fn measure(o: &super::Options, tmp: &Path, grid_obj: Option<&Path>) -> Section {
    let kept = super::release_dir()
        .parent()
        .map(|t| t.join("bench-delivery"))
        .unwrap_or_else(|| super::workspace().join("target/bench-delivery"));
    let mut s = Section {
        // Runs of a few milliseconds each: at least DELIVERY_RUNS pairs, so the median
        // pair ratio is not one noisy run's.
        runs: if o.quick {
            o.runs
        } else {
            o.runs.max(DELIVERY_RUNS)
        },
        gltfpack: None,
        date: first_line("date", &["-u", "+%Y-%m-%d %H:%M UTC"]).unwrap_or_default(),
        load: std::fs::read_to_string("/proc/loadavg")
            .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|_| "unknown".into()),
        kept,
        measured: false,
        rows: Vec::new(),
        notes: Vec::new(),
    };
    let Some(gltfpack) = which("gltfpack") else {
        eprintln!(
            "\n!!! SKIPPED: gltfpack not found on the PATH (apt-get install gltfpack): the \
             delivery glTF section was not measured !!!\n"
        );
        s.notes.push(
            "**Not measured: gltfpack is not installed here** (`apt-get install gltfpack`).".into(),
        );
        return s;
    };
    s.gltfpack = first_line(&gltfpack.to_string_lossy(), &["-v"]);
    let meshfmt = super::release_dir().join("meshfmt");
    if !meshfmt.is_file() {
        s.notes.push(format!(
            "**Not measured: {} is not built.**",
            meshfmt.display()
        ));
        return s;
    }
    let _ = std::fs::remove_dir_all(&s.kept);
    for d in ["inputs", STATIC_DIR].iter().chain(&OUT_DIRS) {
        if let Err(e) = std::fs::create_dir_all(s.kept.join(d)) {
            s.notes.push(format!("{}: {e}", s.kept.join(d).display()));
            return s;
        }
    }
    // The tool runs from a copy, as `cargo install` puts it: the file the linker has just
    // written (through a memory map) took 6% longer per small conversion than a copy of
    // it, side by side, which would time the build, not the tool.
    let bin = s.kept.join("bin");
    let install = |from: &Path, name: &str| -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(&bin)?;
        std::fs::copy(from, bin.join(name))?;
        Ok(bin.join(name))
    };
    let meshfmt = match install(&meshfmt, "meshfmt") {
        Ok(m) => m,
        Err(e) => {
            s.notes.push(format!("{}: {e}", bin.display()));
            return s;
        }
    };
    // The static-pie build, when the bench made one (Linux with glibc), copied alike.
    let static_bin = super::static_release_dir()
        .map(|d| d.join("meshfmt"))
        .filter(|b| b.is_file())
        .and_then(|b| install(&b, "meshfmt-static").ok());
    s.measured = true;
    let inputs = prepare(o, &meshfmt, tmp, grid_obj, &s.kept, &mut s.notes);
    eprintln!(
        "bench: delivery glTF on {} inputs, {} rounds of one run of each tool per input \
         (outputs in {})",
        inputs.len(),
        s.runs,
        s.kept.display()
    );
    // Round-robin: each round runs every input once with each tool, so an input's runs
    // are spread over the whole section and a slow minute of the machine falls on one
    // run of many inputs, not on all the runs of a few.
    let args: Vec<[Vec<PathBuf>; 3]> = inputs.iter().map(|p| timed_args(p, &s.kept)).collect();
    let mut timings: Vec<Pairs> = inputs.iter().map(|_| Pairs::default()).collect();
    for _ in 0..s.runs.max(1) {
        for ([ours, cc, st], pairs) in args.iter().zip(&mut timings) {
            let mut sides = vec![(meshfmt.as_path(), ours.as_slice()), (&gltfpack, cc)];
            sides.extend(static_bin.as_deref().map(|b| (b, st.as_slice())));
            pairs.run(&sides);
        }
    }
    eprintln!("{}", console_header());
    for (p, pairs) in inputs.iter().zip(timings) {
        let row = compress_one(p, &meshfmt, &gltfpack, &s.kept, pairs);
        eprintln!("{}", console_line(&row));
        s.rows.push(row);
    }
    s
}

/// Every input converted once with our tool to an uncompressed `.glb` in `kept/inputs`,
/// imported for its points; those that fail or hold no triangles become notes.
fn prepare(
    o: &super::Options,
    meshfmt: &Path,
    tmp: &Path,
    grid_obj: Option<&Path>,
    kept: &Path,
    notes: &mut Vec<String>,
) -> Vec<Prepared> {
    let extensions: Vec<&str> = meshfmt::formats::FORMATS
        .iter()
        .flat_map(|f| f.info().extensions.iter().copied())
        .filter(|e| !NOT_INPUTS.contains(e))
        .collect();
    let samples: Vec<PathBuf> = test_support::files_under(&o.samples, &extensions)
        .into_iter()
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("MANIFEST"))
        })
        .collect();
    if samples.is_empty() {
        notes.push(format!(
            "{}: no samples; the delivery rows hold the generated grid only",
            o.samples.display()
        ));
    }
    let rel: Vec<String> = samples
        .iter()
        .map(|p| {
            p.strip_prefix(&o.samples)
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let labels = unique_suffixes(&rel);
    // (label, output file name, convert arguments after `convert`).
    let mut jobs: Vec<(String, String, Vec<String>)> = samples
        .iter()
        .zip(labels)
        .map(|(p, label)| {
            let file = format!("{}.glb", label.replace(['/', '\\'], "_"));
            (label, file, vec![p.to_string_lossy().into_owned()])
        })
        .collect();
    // The clip-carrying conversions of .ci/run.
    let u = o.samples.join("unigine");
    let fps = u.join("wakqaz4__Unigine_FPS_Demo1/source/meshes");
    let vr = u.join("trinet-fasie__unigine-mockup/data/vr_sample/props/animation");
    for (label, file, mesh, anim) in [
        (
            "actor_00.mesh + actor_00/*.anim",
            "actor_00-clips.glb",
            fps.join("actor_00.mesh"),
            fps.join("actor_00/*.anim"),
        ),
        (
            "agent.mesh + agent_*.anim",
            "agent-clips.glb",
            vr.join("meshes/agent.mesh"),
            vr.join("animations/agent_*.anim"),
        ),
    ] {
        if mesh.is_file() {
            let args = vec![
                mesh.to_string_lossy().into_owned(),
                "--anim".into(),
                anim.to_string_lossy().into_owned(),
            ];
            jobs.push((label.into(), file.into(), args));
        } else {
            notes.push(format!("{label}: {} not found", mesh.display()));
        }
    }
    match grid(tmp, grid_obj) {
        Ok(obj) => jobs.push((
            "grid.obj (generated, 1,000,000 triangles)".into(),
            "grid-1M.glb".into(),
            vec![obj.to_string_lossy().into_owned()],
        )),
        Err(e) => notes.push(format!("grid.obj: {e}")),
    }
    eprintln!(
        "bench: delivery glTF: converting {} inputs to .glb ({})",
        jobs.len(),
        kept.join("inputs").display()
    );
    let mut empty = Vec::new();
    let mut prepared = Vec::new();
    for (label, file, args) in jobs {
        let glb = kept.join("inputs").join(&file);
        let mut cmd = Command::new(meshfmt);
        cmd.arg("convert").args(&args).arg(&glb);
        if let Err(e) = output_of(&mut cmd) {
            notes.push(format!(
                "{label}: skipped, the conversion to .glb fails: {e}"
            ));
            continue;
        }
        // Clip files (no triangles, but animations) stay: their keys are the data.
        match import_model(&glb).map(|m| (used_positions(&m), m.animations.is_empty())) {
            Ok((points, true)) if points.is_empty() => {
                empty.push(label);
                let _ = std::fs::remove_file(&glb);
            }
            Ok((points, _)) => prepared.push(Prepared { label, glb, points }),
            Err(e) => notes.push(format!("{label}: skipped, its .glb does not import: {e}")),
        }
    }
    if !empty.is_empty() {
        notes.push(format!(
            "Skipped, {} samples whose conversion holds no triangles and no clips (skeletons, \
             curves): {}.",
            empty.len(),
            empty.join(", ")
        ));
    }
    prepared
}

/// The generated grid's OBJ: the one the conversion rows wrote, or written here.
fn grid(tmp: &Path, written: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(p) = written.filter(|p| p.is_file()) {
        return Ok(p.to_path_buf());
    }
    let model = test_support::workloads::grid(test_support::workloads::MILLION);
    let obj = super::formats::generate(&meshfmt::obj::FORMAT, &model, "grid.obj", None)?;
    let path = tmp.join("grid.obj");
    std::fs::write(&path, &*obj.bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// For each path, its shortest suffix of whole components that no other path ends with.
fn unique_suffixes(paths: &[String]) -> Vec<String> {
    let parts: Vec<Vec<&str>> = paths
        .iter()
        .map(|p| p.split(['/', '\\']).collect())
        .collect();
    let suffix = |v: &[&str], k: usize| v[v.len().saturating_sub(k)..].join("/");
    parts
        .iter()
        .enumerate()
        .map(|(i, v)| {
            (1..=v.len())
                .find(|&k| {
                    let s = suffix(v, k);
                    parts
                        .iter()
                        .enumerate()
                        .all(|(j, w)| j == i || suffix(w, k) != s)
                })
                .map_or_else(|| v.join("/"), |k| suffix(v, k))
        })
        .collect()
}

/// An input's timed commands, ours `--compress`, gltfpack `-cc` and the static-pie
/// build's `--compress`: program arguments.
fn timed_args(p: &Prepared, kept: &Path) -> [Vec<PathBuf>; 3] {
    let name = p.glb.file_name().unwrap_or_default();
    let [ours_out, _, cc_out, _] = OUT_DIRS.map(|dir| kept.join(dir).join(name));
    let ours = |out: PathBuf| -> Vec<PathBuf> {
        vec!["convert".into(), p.glb.clone(), out, "--compress".into()]
    };
    [
        ours(ours_out),
        vec![
            "-i".into(),
            p.glb.clone(),
            "-o".into(),
            cc_out,
            "-cc".into(),
        ],
        ours(kept.join(STATIC_DIR).join(name)),
    ]
}

/// One input's timed runs, ours then gltfpack -cc right after, round after round; then
/// once each, untimed, `--quality quantized` and gltfpack `-c` for their sizes, and the
/// position errors of the two timed outputs.
fn compress_one(
    p: &Prepared,
    meshfmt: &Path,
    gltfpack: &Path,
    kept: &Path,
    pairs: Pairs,
) -> FileRow {
    let name = p.glb.file_name().unwrap_or_default();
    let out = |dir: &str| kept.join(dir).join(name);
    let [ours_out, quantized_out, cc_out, c_out] = OUT_DIRS.map(out);
    let convert = Path::new("convert");
    let ([ours, cc], pair_ratio, static_ratio) = pairs.settle();
    let quantized = once(
        meshfmt,
        &[
            convert,
            &p.glb,
            &quantized_out,
            Path::new("--quality"),
            Path::new("quantized"),
        ],
        &quantized_out,
    );
    let c = once(
        gltfpack,
        &[
            Path::new("-i"),
            &p.glb,
            Path::new("-o"),
            &c_out,
            Path::new("-c"),
        ],
        &c_out,
    );
    let side = |timed: Result<Timed, String>, path: &Path| -> Result<Side, String> {
        let timed = timed?;
        let bytes = size_of(path)?;
        let error = import_points(path).and_then(|points| {
            if points.is_empty() && p.points.is_empty() {
                Err(CLIPS_ONLY.into())
            } else if points.is_empty() {
                Err("the output holds no triangles".into())
            } else {
                Ok(hausdorff(&p.points, &points))
            }
        });
        Ok(Side {
            bytes,
            timed,
            error,
        })
    };
    FileRow {
        label: p.label.clone(),
        input_bytes: std::fs::metadata(&p.glb).map_or(0, |m| m.len()),
        ours: side(ours, &ours_out),
        cc: side(cc, &cc_out),
        c_bytes: c,
        quantized_bytes: quantized,
        diagonal: diagonal(&p.points),
        pair_ratio,
        static_ratio,
    }
}

/// Ours, gltfpack and the static-pie build's runs, each round back to back in that
/// order: their times and peak RSS, or the first failure of each (a command that failed
/// is not run again).
#[derive(Default)]
struct Pairs {
    figures: [(Vec<f64>, Vec<f64>); 3],
    failed: [Option<String>; 3],
}

impl Pairs {
    fn run(&mut self, sides: &[(&Path, &[PathBuf])]) {
        for (k, (program, args)) in sides.iter().enumerate().take(3) {
            if self.failed[k].is_some() {
                continue;
            }
            let args: Vec<&Path> = args.iter().map(PathBuf::as_path).collect();
            match run_once(program, &args) {
                Ok((secs, peak)) => {
                    self.figures[k].0.push(secs);
                    self.figures[k].1.extend(peak);
                }
                Err(_) => self.failed[k] = Some(why_failed(program, &args)),
            }
        }
    }

    /// Ours and gltfpack's median time and peak RSS, or the failure, and the medians of
    /// the runs' time ratios to the gltfpack run beside them, ours then the static-pie
    /// build's (a change in the machine's load between rounds cancels out).
    fn settle(self) -> ([Result<Timed, String>; 2], Option<f64>, Option<f64>) {
        let [a, b, st] = self.figures;
        let [fa, fb, fs] = self.failed;
        let over_gltfpack = |side: &[f64], failed: bool| {
            let r: Vec<f64> = side.iter().zip(&b.0).map(|(x, y)| x / y).collect();
            (!failed && fb.is_none() && !r.is_empty()).then(|| median(&r))
        };
        let pair_ratio = over_gltfpack(&a.0, fa.is_some());
        let static_ratio = over_gltfpack(&st.0, fs.is_some());
        let settle = |(secs, peaks): (Vec<f64>, Vec<f64>), failed: Option<String>| match failed {
            Some(e) => Err(e),
            None => Ok(Timed {
                secs: median(&secs),
                peak_kb: (!peaks.is_empty()).then(|| median(&peaks)),
            }),
        };
        ([settle(a, fa), settle(b, fb)], pair_ratio, static_ratio)
    }
}

/// One untimed run for the size of what it writes to `out`.
fn once(program: &Path, args: &[&Path], out: &Path) -> Result<u64, String> {
    let mut cmd = Command::new(program);
    cmd.args(args);
    output_of(&mut cmd)?;
    size_of(out)
}

fn size_of(path: &Path) -> Result<u64, String> {
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs `cmd`; on failure its exit status and first error line.
fn output_of(cmd: &mut Command) -> Result<(), String> {
    let out = cmd.output().map_err(|e| e.to_string())?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr
        .lines()
        .map(str::trim)
        .find(|l| l.to_ascii_lowercase().contains("error"))
        .or_else(|| stderr.lines().map(str::trim).find(|l| !l.is_empty()))
        .unwrap_or_default();
    Err(format!(
        "exit {}: {}",
        out.status.code().unwrap_or(-1),
        line.replace('|', "/")
    ))
}

/// What went wrong in a run that failed under `/usr/bin/time` (whose report hides
/// the program's own last line): the command run again on its own.
fn why_failed(program: &Path, args: &[&Path]) -> String {
    let mut cmd = Command::new(program);
    cmd.args(args);
    match output_of(&mut cmd) {
        Err(e) => format!(
            "{}: {e}",
            program.file_name().unwrap_or_default().to_string_lossy()
        ),
        Ok(()) => format!("{} failed once, then passed", program.display()),
    }
}

/// The positions of every vertex a triangle uses, over all surfaces, of the `.glb` at
/// `path` imported with the library (static meshes through their nodes' transforms).
fn import_points(path: &Path) -> Result<Vec<Vec3>, String> {
    import_model(path).map(|m| used_positions(&m))
}

fn import_model(path: &Path) -> Result<Model, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(meshfmt::gltf::import(&bytes, None, &Budget::default())
        .map_err(|e| e.to_string().replace('|', "/"))?
        .value)
}

fn used_positions(model: &Model) -> Vec<Vec3> {
    let mut out = Vec::new();
    for s in &model.surfaces {
        let mut used = vec![false; s.positions.len()];
        for &i in &s.indices[..s.indices.len() / 3 * 3] {
            if let Some(u) = used.get_mut(i as usize) {
                *u = true;
            }
        }
        out.extend(
            s.positions
                .iter()
                .zip(&used)
                .filter(|(_, u)| **u)
                .map(|(p, _)| *p),
        );
    }
    out
}

fn diagonal(points: &[Vec3]) -> f64 {
    let Some(&first) = points.first() else {
        return 0.0;
    };
    let (lo, hi) = points
        .iter()
        .fold((first, first), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
    f64::from((hi - lo).length())
}

/// The symmetric Hausdorff distance between two point sets: the largest distance from a
/// point of either to the nearest point of the other.
fn hausdorff(a: &[Vec3], b: &[Vec3]) -> f64 {
    // The two directions on two threads.
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| distinct(a));
        let b = distinct(b);
        (a.join().unwrap_or_default(), b)
    });
    let (ab, ba) = std::thread::scope(|s| {
        let ab = s.spawn(|| one_way(&a, &b));
        (ab.join().unwrap_or(f64::NAN), one_way(&b, &a))
    });
    ab.max(ba).sqrt()
}

/// The points without repeats (a vertex split for its normals or UVs is one point).
fn distinct(points: &[Vec3]) -> Vec<Vec3> {
    let mut bits: Vec<[u32; 3]> = points
        .iter()
        .map(|p| [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()])
        .collect();
    bits.sort_unstable();
    bits.dedup();
    bits.into_iter()
        .map(|[x, y, z]| Vec3::new(f32::from_bits(x), f32::from_bits(y), f32::from_bits(z)))
        .collect()
}

/// Rings of grid cells searched around a query before the k-d tree takes over.
const RINGS: i64 = 3;

/// The largest squared distance from a point of `from` to its nearest point of `to`.
/// A query stops as soon as it finds a point no farther than the largest distance so
/// far (it cannot raise the maximum); the grid answers queries near the points, the
/// k-d tree, built only when needed, those farther than a few cells from every point
/// (a part missing or misplaced in an output).
fn one_way(from: &[Vec3], to: &[Vec3]) -> f64 {
    if from.is_empty() {
        return 0.0;
    }
    if to.is_empty() {
        return f64::INFINITY;
    }
    let grid = Grid::new(to);
    let mut tree: Option<KdTree> = None;
    let mut max = 0.0f64;
    for &q in from {
        let d = match grid.nearest_sq(q, max) {
            Ok(d) => d,
            Err(found) => tree
                .get_or_insert_with(|| KdTree::new(to))
                .nearest_sq(q, found, max),
        };
        max = max.max(d);
    }
    max
}

/// A hasher for the grid's packed cell keys, splitmix64's finalizer (SipHash costs
/// more than the distance tests it guards; every bit of the key reaches every bit of
/// the hash, so cells along one axis do not collide).
#[derive(Default)]
struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = self.0.rotate_left(21) ^ v;
    }
}

/// Packed cell indices to pairs of numbers (a range, or a cell's number and count).
type CellMap = HashMap<u64, (u32, u32), BuildHasherDefault<CellHasher>>;

/// Bits per axis of a packed cell key.
const KEY_BITS: u32 = 21;

/// A uniform grid over a point set: the points sorted by cell, each occupied cell's
/// range found through a hash of its packed index.
struct Grid {
    points: Vec<Vec3>,
    /// Per occupied cell, its range of `points`.
    cells: CellMap,
    origin: Vec3,
    /// Cell edge.
    h: f32,
    /// The largest cell index per axis (the smallest is 0).
    hi: [i64; 3],
}

impl Grid {
    /// The grid for `points` (distinct): cells of 2 to 8 points where the points are (a
    /// surface fills few cells of its box). From the bounding box's diagonal over the
    /// cube root of the count, the edge shrinks by the square root of the occupancy it
    /// lacks (a surface's cells grow with the square of the refinement), then halves
    /// while that still separates points.
    fn new(points: &[Vec3]) -> Grid {
        let first = points.first().copied().unwrap_or(Vec3::ZERO);
        let (lo, hi) = points
            .iter()
            .fold((first, first), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
        let extent = (hi - lo).max_element();
        let finest = extent / ((1u32 << KEY_BITS) - 2) as f32;
        let occupied = |h: f32| Self::cells_of(points, lo, h);
        let want = points.len().div_ceil(4);
        let mut h = if extent > 0.0 {
            ((hi - lo).length() / (points.len() as f32).cbrt()).max(finest)
        } else {
            1.0
        };
        let mut cells = occupied(h);
        if extent > 0.0 {
            if cells.0.len() < want {
                let lack = want as f32 / cells.0.len() as f32;
                let finer = (h / lack.sqrt()).max(finest);
                let c = occupied(finer);
                if c.0.len() > cells.0.len() {
                    (h, cells) = (finer, c);
                }
            }
            while cells.0.len() < want / 2 && h * 0.5 >= finest {
                let c = occupied(h * 0.5);
                // A clump of points closer than the cells can separate: stop.
                if c.0.len() * 2 < cells.0.len() * 3 {
                    break;
                }
                (h, cells) = (h * 0.5, c);
            }
        }
        // The points grouped by cell (a counting sort over the cells' numbers).
        let (mut map, ids) = cells;
        let mut start = vec![0u32; map.len() + 1];
        for &(id, n) in map.values() {
            start[id as usize + 1] = n;
        }
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let mut next = start.clone();
        let mut sorted = vec![Vec3::ZERO; points.len()];
        for (p, &id) in points.iter().zip(&ids) {
            sorted[next[id as usize] as usize] = *p;
            next[id as usize] += 1;
        }
        let mut top = [0i64; 3];
        let mask = (1u64 << KEY_BITS) - 1;
        for (key, range) in map.iter_mut() {
            let id = range.0 as usize;
            *range = (start[id], start[id + 1]);
            for (a, t) in top.iter_mut().enumerate() {
                *t = (*t).max((key >> (a as u32 * KEY_BITS) & mask) as i64);
            }
        }
        Grid {
            points: sorted,
            cells: map,
            origin: lo,
            h,
            hi: top,
        }
    }

    /// Each occupied cell's number (in order of first point) and point count, and each
    /// point's cell number.
    fn cells_of(points: &[Vec3], lo: Vec3, h: f32) -> (CellMap, Vec<u32>) {
        let mut map = CellMap::with_capacity_and_hasher(points.len() / 2, Default::default());
        let mut ids = Vec::with_capacity(points.len());
        for p in points {
            let fresh = map.len() as u32;
            let e = map
                .entry(Self::pack(Self::cell_at(lo, h, *p)))
                .or_insert((fresh, 0));
            e.1 += 1;
            ids.push(e.0);
        }
        (map, ids)
    }

    fn cell_at(origin: Vec3, h: f32, p: Vec3) -> [i64; 3] {
        let c = ((p - origin) / h).floor();
        let max = ((1u32 << KEY_BITS) - 1) as f32;
        [c.x, c.y, c.z].map(|v| v.clamp(0.0, max) as i64)
    }

    fn pack(c: [i64; 3]) -> u64 {
        (c[0] as u64) | (c[1] as u64) << KEY_BITS | (c[2] as u64) << (2 * KEY_BITS)
    }

    /// The squared distance from `q` to the nearest point, or a point no farther than
    /// `enough` (squared): rings of cells around `q`'s cell (clamped into the grid)
    /// until no point beyond the rings searched can be nearer than the nearest found.
    /// After [`RINGS`] rings, `Err` with the nearest so far (infinite if none).
    fn nearest_sq(&self, q: Vec3, enough: f64) -> Result<f64, f64> {
        let h = f64::from(self.h);
        let rel = (q - self.origin) / self.h;
        let rel = [f64::from(rel.x), f64::from(rel.y), f64::from(rel.z)];
        let mut c = [0i64; 3];
        // Squared distance from q to the grid's box, and q's least distance to the
        // faces of its own cell on the axes where it lies inside the box.
        let mut outside_sq = 0.0;
        let mut margin = h;
        for a in 0..3 {
            let top = (self.hi[a] + 1) as f64;
            if rel[a] < 0.0 {
                outside_sq += (rel[a] * h).powi(2);
                c[a] = 0;
            } else if rel[a] >= top {
                outside_sq += ((rel[a] - top) * h).powi(2);
                c[a] = self.hi[a];
            } else {
                c[a] = (rel[a].floor() as i64).min(self.hi[a]);
                let inside = rel[a] - c[a] as f64;
                margin = margin.min(inside.min(1.0 - inside).max(0.0) * h);
            }
        }
        let far = (0..3)
            .map(|a| c[a].max(self.hi[a] - c[a]))
            .max()
            .unwrap_or(0);
        let mut best = f64::INFINITY;
        for r in 0..=far.min(RINGS) {
            self.shell(c, r, |p| {
                best = best.min(f64::from((p - q).length_squared()));
            });
            // A point outside the cells within r of c is at least this far from q.
            let beyond = outside_sq + (r as f64 * h + margin).powi(2);
            if best <= beyond || best <= enough || r == far {
                return Ok(best);
            }
        }
        Err(best)
    }

    /// Calls `visit` on every point of the cells at Chebyshev distance `r` from `c`.
    fn shell(&self, c: [i64; 3], r: i64, mut visit: impl FnMut(Vec3)) {
        let range = |a: usize| (c[a] - r).max(0)..=(c[a] + r).min(self.hi[a]);
        let mut cell = |x: i64, y: i64, z: i64| {
            if let Some(&(start, end)) = self.cells.get(&Self::pack([x, y, z])) {
                for p in &self.points[start as usize..end as usize] {
                    visit(*p);
                }
            }
        };
        for x in range(0) {
            for y in range(1) {
                if (x - c[0]).abs() == r || (y - c[1]).abs() == r {
                    for z in range(2) {
                        cell(x, y, z);
                    }
                } else {
                    for z in [c[2] - r, c[2] + r] {
                        if (0..=self.hi[2]).contains(&z) {
                            cell(x, y, z);
                        }
                    }
                }
            }
        }
    }
}

/// A k-d tree over a point set, for the queries far from every point.
struct KdTree {
    points: Vec<Vec3>,
    nodes: Vec<KdNode>,
}

enum KdNode {
    Leaf(u32, u32),
    /// Axis, the plane's coordinate, the nodes below and above it.
    Split(usize, f32, u32, u32),
}

impl KdTree {
    fn new(points: &[Vec3]) -> KdTree {
        let mut t = KdTree {
            points: points.to_vec(),
            nodes: Vec::new(),
        };
        t.build(0, points.len());
        t
    }

    /// The node over `points[start..end]`, split at the median of its widest axis.
    fn build(&mut self, start: usize, end: usize) -> u32 {
        let at = self.nodes.len() as u32;
        if end - start <= 8 {
            self.nodes.push(KdNode::Leaf(start as u32, end as u32));
            return at;
        }
        let part = &mut self.points[start..end];
        let (lo, hi) = part
            .iter()
            .fold((part[0], part[0]), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
        let axis = (hi - lo).max_position();
        let mid = part.len() / 2;
        part.select_nth_unstable_by(mid, |a, b| a[axis].total_cmp(&b[axis]));
        let plane = part[mid][axis];
        self.nodes.push(KdNode::Split(axis, plane, 0, 0));
        let below = self.build(start, start + mid);
        let above = self.build(start + mid, end);
        self.nodes[at as usize] = KdNode::Split(axis, plane, below, above);
        at
    }

    /// The squared distance from `q` to the nearest point (`best`: an upper bound
    /// already known), or to a point no farther than `enough`.
    fn nearest_sq(&self, q: Vec3, best: f64, enough: f64) -> f64 {
        let mut best = best;
        self.search(0, q, &mut best, enough);
        best
    }

    fn search(&self, node: u32, q: Vec3, best: &mut f64, enough: f64) {
        match self.nodes[node as usize] {
            KdNode::Leaf(start, end) => {
                for p in &self.points[start as usize..end as usize] {
                    *best = best.min(f64::from((*p - q).length_squared()));
                }
            }
            KdNode::Split(axis, plane, below, above) => {
                let d = f64::from(q[axis] - plane);
                let (near, other) = if d < 0.0 {
                    (below, above)
                } else {
                    (above, below)
                };
                self.search(near, q, best, enough);
                if *best > enough && d * d < *best {
                    self.search(other, q, best, enough);
                }
            }
        }
    }
}

fn first_line(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

fn size(bytes: u64) -> String {
    match bytes as f64 {
        b if b >= 1e6 => format!("{:.2} MB", b / 1e6),
        b if b >= 1e4 => format!("{:.1} kB", b / 1e3),
        b if b >= 1e3 => format!("{:.2} kB", b / 1e3),
        b => format!("{b:.0} B"),
    }
}

fn ratio(r: f64) -> String {
    match r {
        r if !r.is_finite() => "n/a".into(),
        r if r >= 10.0 => format!("{r:.1}x"),
        r => format!("{r:.2}x"),
    }
}

fn ms(secs: f64) -> String {
    match secs * 1e3 {
        m if m < 10.0 => format!("{m:.1}"),
        m => format!("{m:.0}"),
    }
}

fn mb(kb: Option<f64>) -> String {
    kb.map_or("?".into(), |k| format!("{:.1}", k / 1024.0))
}

/// An error relative to the diagonal, then in model units.
fn error(e: &Result<f64, String>, diagonal: f64) -> String {
    match e {
        Ok(0.0) => "0".into(),
        Ok(d) if diagonal > 0.0 => format!("{:.1e}", d / diagonal),
        Ok(d) => format!("{d:.1e} units"),
        Err(_) => "fails".into(),
    }
}

fn units(e: &Result<f64, String>) -> String {
    match e {
        Ok(0.0) => "0".into(),
        Ok(d) => format!("{d:.2e}"),
        Err(_) => "-".into(),
    }
}

fn bytes_or_fails(b: &Result<u64, String>) -> String {
    b.as_ref().map_or_else(|_| "fails".into(), |b| size(*b))
}

impl FileRow {
    /// ours / -cc in size, when both wrote a file.
    fn size_ratio(&self) -> Option<f64> {
        match (&self.ours, &self.cc) {
            (Ok(o), Ok(t)) if t.bytes > 0 => Some(o.bytes as f64 / t.bytes as f64),
            _ => None,
        }
    }

    fn time_ratio(&self) -> Option<f64> {
        match (&self.ours, &self.cc) {
            (Ok(_), Ok(_)) => self.pair_ratio,
            _ => None,
        }
    }

    /// The cells after the file's, in the table's order.
    fn cells(&self) -> [String; 9] {
        let side_bytes = |s: &Result<Side, String>| {
            s.as_ref()
                .map_or_else(|_| "fails".into(), |s| size(s.bytes))
        };
        let (time, peak, err) = match (&self.ours, &self.cc) {
            (Ok(o), Ok(t)) => (
                format!(
                    "{} / {} ms ({})",
                    ms(o.timed.secs),
                    ms(t.timed.secs),
                    self.time_ratio().map_or("-".into(), ratio)
                ),
                format!("{} / {} MB", mb(o.timed.peak_kb), mb(t.timed.peak_kb)),
                format!(
                    "{} / {} ({} / {})",
                    error(&o.error, self.diagonal),
                    error(&t.error, self.diagonal),
                    units(&o.error),
                    units(&t.error)
                ),
            ),
            (Ok(o), Err(_)) => (
                format!("{} ms", ms(o.timed.secs)),
                format!("{} MB", mb(o.timed.peak_kb)),
                format!("{} ({})", error(&o.error, self.diagonal), units(&o.error)),
            ),
            (Err(_), Ok(t)) => (
                format!("- / {} ms", ms(t.timed.secs)),
                format!("- / {} MB", mb(t.timed.peak_kb)),
                format!("- / {}", error(&t.error, self.diagonal)),
            ),
            (Err(_), Err(_)) => Default::default(),
        };
        [
            size(self.input_bytes),
            side_bytes(&self.ours),
            side_bytes(&self.cc),
            self.size_ratio().map_or("-".into(), ratio),
            bytes_or_fails(&self.c_bytes),
            bytes_or_fails(&self.quantized_bytes),
            time,
            peak,
            err,
        ]
    }

    /// Why parts of the row are missing: what failed, and how.
    fn failures(&self) -> Vec<(&'static str, &str)> {
        // A clip file has no vertices to compare: not a failure.
        fn imports(s: &Result<Side, String>) -> Option<&String> {
            s.as_ref()
                .ok()
                .and_then(|s| s.error.as_ref().err())
                .filter(|e| e.as_str() != CLIPS_ONLY)
        }
        [
            ("ours --compress", self.ours.as_ref().err()),
            ("gltfpack -cc", self.cc.as_ref().err()),
            ("gltfpack -c", self.c_bytes.as_ref().err()),
            (
                "ours --quality quantized",
                self.quantized_bytes.as_ref().err(),
            ),
            ("importing our output", imports(&self.ours)),
            ("importing gltfpack -cc's output", imports(&self.cc)),
        ]
        .into_iter()
        .filter_map(|(what, e)| Some((what, e?.as_str())))
        .collect()
    }
}

/// The position error of a clip file's outputs: there are no vertices.
const CLIPS_ONLY: &str = "clips only, no vertices";

const COLUMNS: [&str; 10] = [
    "file",
    "input",
    "ours `--compress`",
    "gltfpack -cc",
    "size ours / -cc",
    "gltfpack -c",
    "ours quantized",
    "time ours / -cc",
    "peak RSS ours / -cc",
    "max position error ours / -cc",
];

fn console_header() -> String {
    format!(
        "{:<44} {:>9} {:>9} {:>9} {:>6} {:>9} {:>9}  {:<22} {:<16} {}",
        "file",
        "input",
        "ours",
        "-cc",
        "ratio",
        "-c",
        "quantized",
        "time ours/-cc ms",
        "RSS MB",
        "error/diag ours/-cc"
    )
}

fn console_line(r: &FileRow) -> String {
    let c = r.cells();
    let label: String = if r.label.chars().count() > 44 {
        let tail: String = r.label.chars().rev().take(43).collect();
        format!("…{}", tail.chars().rev().collect::<String>())
    } else {
        r.label.clone()
    };
    let mut line = format!(
        "{label:<44} {:>9} {:>9} {:>9} {:>6} {:>9} {:>9}  {:<22} {:<16} {}",
        c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]
    );
    for (what, e) in r.failures() {
        line.push_str(&format!("\n    {what}: {e}"));
    }
    line
}

/// The section's markdown: heading, how it was measured, the table, its notes.
pub fn markdown(s: &Section) -> String {
    let mut t = format!("{HEADING}: `meshfmt convert --compress` beside gltfpack\n\n");
    if !s.measured {
        t.push_str(
            "Not measured in this run (see the notes); `cargo xtask bench --only delivery` \
             measures this section alone where gltfpack is installed.\n\n",
        );
    } else {
        t.push_str(&paragraph(s));
    }
    if !s.rows.is_empty() {
        t.push_str(&format!("| {} |\n", COLUMNS.join(" | ")));
        t.push_str(&format!("|{}\n", "---|".repeat(COLUMNS.len())));
        for r in &s.rows {
            t.push_str(&format!("| {} | {} |\n", r.label, r.cells().join(" | ")));
        }
        for row in summary(&s.rows) {
            t.push_str(&format!("| {} |\n", row.join(" | ")));
        }
    }
    let mut notes: Vec<String> = s.notes.clone();
    // One note per failure, naming the files it happened on.
    let mut failed: Vec<((&str, &str), Vec<&str>)> = Vec::new();
    for r in &s.rows {
        for f in r.failures() {
            match failed.iter_mut().find(|(g, _)| *g == f) {
                Some((_, files)) => files.push(&r.label),
                None => failed.push((f, vec![&r.label])),
            }
        }
    }
    for ((what, e), files) in failed {
        notes.push(format!(
            "{what} fails on {} ({}): {e}",
            match files.len() {
                1 => "1 file".to_string(),
                n => format!("{n} files"),
            },
            files.join(", ")
        ));
    }
    if !notes.is_empty() {
        if !t.ends_with("\n\n") {
            t.push('\n');
        }
        t.push_str("Notes:\n\n");
        for n in notes {
            t.push_str(&format!("- {n}\n"));
        }
    }
    t
}

/// How the section was measured, for the paragraph above its table.
fn paragraph(s: &Section) -> String {
    format!(
        "What a delivery pipeline gets from `meshfmt convert IN.glb OUT.glb --compress` \
         (KHR_mesh_quantization and EXT_meshopt_compression) beside gltfpack's `-cc` (the \
         same two extensions, its higher compression ratio), measured by `cargo xtask \
         bench` (or `cargo xtask bench --only delivery`, this section alone) on {}; {}; \
         load average {} at the start of the section. The inputs are every real sample \
         converted once, untimed, to an uncompressed `.glb` by the release tool (`meshfmt \
         convert SAMPLE IN.glb`), the two conversions with clips that CI makes \
         (`actor_00.mesh --anim \"actor_00/*.anim\"`, `agent.mesh --anim \
         \"agent_*.anim\"`) and the generated 1,000,000-triangle `grid.obj` of the rows \
         above (clip files included: their keys are what is compressed); samples that do not convert or hold neither triangles nor clips (skeletons, curves) are \
         left out and named in the notes. Our tool is the release build (`cargo build \
         --release`, dynamically linked, its hot functions first as `link/hot.ld` lists \
         them), run from a copy in `bin/`, as `cargo install` places one, not from the file \
         the linker has just written.{} Each \
         input is compressed by both tools, one process per run, in {} rounds (each round runs every input once with ours, then \
         gltfpack `-cc` right after, so an input's runs are spread over the whole \
         section): sizes are the \
         output files' bytes, times the median wall time of the whole process (start, \
         read, compress, write) and peak RSS the median of each process's maximum \
         resident set (GNU time's `%M`); the time ratio is the median of the runs' own \
         ratios (ours, then gltfpack right after it: a change in the machine's load \
         between runs cancels out), so it may differ a little from the ratio of the two \
         medians beside it. `gltfpack -c` (its default compression) and ours \
         with `--quality quantized` (KHR_mesh_quantization alone) run once each, for their \
         sizes. Ratios are **ours / gltfpack -cc**: below 1x ours is smaller or faster. \
         The position error is the symmetric Hausdorff distance between the output's and \
         the input's vertices (those that triangles use), both imported with \
         `meshfmt::gltf::import` (static meshes through their nodes' transforms, skinned \
         ones in their bind space with the dequantization applied) and compared as point \
         sets, since gltfpack merges and reorders meshes: the largest distance from a \
         vertex of either to the nearest vertex of the other, **relative to the input's \
         bounding-box diagonal**, then in model units in parentheses. Every file is kept \
         in `{}` (`inputs/`, and `{}/` for the outputs) for validation and rendering.\n\n",
        s.date,
        s.gltfpack.as_deref().unwrap_or("gltfpack not installed"),
        s.load,
        if s.rows.iter().any(|r| r.static_ratio.is_some()) {
            " A static-pie build of the same code (`RUSTFLAGS=\"-C \
             target-feature=+crt-static\" cargo build --release --target <host>`, as \
             `cargo xtask bench` makes it: no dynamic loader or shared libraries to map at \
             start) runs third in each round, right after gltfpack, copied alike, for its \
             time beside that run (the `static-pie build` row; its outputs go to \
             `ours-static/`)."
        } else {
            ""
        },
        s.runs,
        display_kept(&s.kept),
        OUT_DIRS.join("/`, `")
    )
}

/// `target/bench-delivery`, relative to the workspace when it lies inside it.
fn display_kept(kept: &Path) -> String {
    let ws = super::workspace();
    let ws = ws.canonicalize().unwrap_or(ws);
    let k = kept.canonicalize().unwrap_or_else(|_| kept.to_path_buf());
    k.strip_prefix(&ws)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| k.display().to_string())
}

/// The summary rows: geometric means of the size and time ratios, the largest size and
/// time ratios and their files (with how many files take longer than gltfpack), and how
/// many files ours writes more than 1.1x larger or takes more than 1.1x as long for.
fn summary(rows: &[FileRow]) -> Vec<[String; 10]> {
    let sized: Vec<(&FileRow, f64)> = rows
        .iter()
        .filter_map(|r| r.size_ratio().map(|x| (r, x)))
        .collect();
    if sized.is_empty() {
        return Vec::new();
    }
    let sizes: Vec<f64> = sized.iter().map(|(_, x)| *x).collect();
    let times: Vec<f64> = rows.iter().filter_map(FileRow::time_ratio).collect();
    let vs = |bytes: fn(&FileRow) -> Option<u64>| {
        let v: Vec<f64> = rows
            .iter()
            .filter_map(|r| {
                let o = r.ours.as_ref().ok()?.bytes as f64;
                Some(o / bytes(r)? as f64)
            })
            .collect();
        geomean(&v)
    };
    let vs_c = vs(|r| r.c_bytes.as_ref().ok().copied());
    let quantized_vs_cc = {
        let v: Vec<f64> = rows
            .iter()
            .filter_map(|r| {
                let q = *r.quantized_bytes.as_ref().ok()? as f64;
                Some(q / r.cc.as_ref().ok()?.bytes as f64)
            })
            .collect();
        geomean(&v)
    };
    let (worst, worst_ratio) = sized
        .iter()
        .copied()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((sized[0].0, f64::NAN));
    let larger = sizes.iter().filter(|x| **x > 1.1).count();
    let empty = || -> [String; 10] { Default::default() };
    let mut mean = empty();
    mean[0] = format!("**geometric mean, {} files**", sizes.len());
    mean[4] = format!("**{}**", ratio(geomean(&sizes)));
    mean[5] = format!("ours / -c {}", ratio(vs_c));
    mean[6] = format!("quantized / -cc {}", ratio(quantized_vs_cc));
    mean[7] = format!("**{}** ({} files)", ratio(geomean(&times)), times.len());
    let mut max = empty();
    max[0] = format!("**largest size ratio**: {}", worst.label);
    max[4] = format!("**{}**", ratio(worst_ratio));
    // The slowest file beside gltfpack, and how many take longer than it.
    let timed: Vec<(&FileRow, f64)> = rows
        .iter()
        .filter_map(|r| r.time_ratio().map(|x| (r, x)))
        .collect();
    if let Some(&(slowest, slowest_ratio)) = timed.iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
        max[7] = format!(
            "largest: **{}** ({}); {} of {} files above 1x",
            ratio(slowest_ratio),
            slowest.label,
            timed.iter().filter(|(_, x)| *x > 1.0).count(),
            timed.len()
        );
    }
    // The static-pie build's time, beside the same gltfpack runs.
    let statics: Vec<(&FileRow, f64)> = rows
        .iter()
        .filter_map(|r| Some((r, r.static_ratio?)))
        .collect();
    let mut rows_out = vec![mean, max];
    if let Some(&(slowest, slowest_ratio)) = statics.iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
        let v: Vec<f64> = statics.iter().map(|(_, x)| *x).collect();
        let mut st = empty();
        st[0] = "**static-pie build**, time only (geometric mean; largest)".into();
        st[7] = format!(
            "**{}** ({} files); largest **{}** ({}); {} above 1x",
            ratio(geomean(&v)),
            v.len(),
            ratio(slowest_ratio),
            slowest.label,
            v.iter().filter(|x| **x > 1.0).count()
        );
        rows_out.push(st);
    }
    let mut count = empty();
    count[0] = "**files where ours is more than 1.1x -cc**".into();
    count[4] = format!("**{larger} of {}**", sizes.len());
    count[7] = format!(
        "**{} of {}**",
        times.iter().filter(|x| **x > 1.1).count(),
        times.len()
    );
    rows_out.push(count);
    rows_out
}

/// `--only delivery`: the section measured and printed alone, then spliced into the
/// report file ([`splice`]); left out of the file when nothing was measured, so an
/// earlier section stays.
pub fn only(o: &super::Options, tmp: &Path) -> Result<(), String> {
    let measured = measure(o, tmp, None);
    let section = markdown(&measured);
    println!("{section}");
    if !measured.measured {
        eprintln!("bench: {} left as it was", o.out.display());
        return Ok(());
    }
    let existing = std::fs::read_to_string(&o.out).unwrap_or_default();
    std::fs::write(&o.out, splice(&existing, &section))
        .map_err(|e| format!("{}: {e}", o.out.display()))?;
    eprintln!("bench: wrote the delivery section of {}", o.out.display());
    Ok(())
}

/// The section printed alone (`--only delivery`) and spliced into `existing`: it
/// replaces an earlier delivery section (from its heading to the end), or is appended.
pub fn splice(existing: &str, section: &str) -> String {
    let kept = match existing.find(&format!("\n{HEADING}")) {
        Some(at) => &existing[..at],
        None => existing.trim_end(),
    };
    if kept.is_empty() {
        section.to_string()
    } else {
        format!("{}\n\n{section}", kept.trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(a: &[Vec3], b: &[Vec3]) -> f64 {
        let one = |f: &[Vec3], t: &[Vec3]| {
            f.iter()
                .map(|p| {
                    t.iter()
                        .map(|q| f64::from((*p - *q).length_squared()))
                        .fold(f64::INFINITY, f64::min)
                })
                .fold(0.0f64, f64::max)
        };
        one(a, b).max(one(b, a)).sqrt()
    }

    #[test]
    fn the_grid_finds_what_brute_force_finds() {
        let mut rng = test_support::Rng::new(7);
        let mut cloud = |n: usize, flat: bool, spread: f32| -> Vec<Vec3> {
            (0..n)
                .map(|_| {
                    let z = if flat { 0.0 } else { rng.range(-1.0, 1.0) };
                    Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), z) * spread
                })
                .collect()
        };
        let a = cloud(2000, false, 1.0);
        let b = cloud(1500, true, 1.0);
        let far = cloud(50, false, 30.0);
        let h = hausdorff(&a, &b);
        assert!((h - brute(&a, &b)).abs() < 1e-6, "{h}");
        let with_far: Vec<Vec3> = b.iter().chain(&far).copied().collect();
        assert!((hausdorff(&a, &with_far) - brute(&a, &with_far)).abs() < 1e-5);
        let jittered: Vec<Vec3> = a.iter().map(|p| *p + Vec3::splat(1e-4)).collect();
        let j = hausdorff(&a, &jittered);
        assert!((j - brute(&a, &jittered)).abs() < 1e-9 && j > 1e-4, "{j}");
        assert_eq!(hausdorff(&[Vec3::ONE], &[Vec3::ONE]), 0.0);
        // A clump closer than float steps beside a spread (cells stop halving), and a
        // whole set moved away (every query beyond the grid's rings: the k-d tree).
        let clump: Vec<Vec3> = (0..3000)
            .map(|i| Vec3::splat(0.25) + Vec3::X * (i % 7) as f32 * 1e-7)
            .chain(a.iter().copied())
            .collect();
        let moved: Vec<Vec3> = b.iter().map(|p| *p + Vec3::new(5.0, 3.0, 0.1)).collect();
        for (x, y) in [(&clump, &jittered), (&a, &moved), (&moved, &clump)] {
            let (g, f) = (hausdorff(x, y), brute(x, y));
            assert!((g - f).abs() <= 1e-6 * f.max(1.0), "{g} {f}");
        }
    }

    #[test]
    fn labels_are_the_shortest_unique_suffixes() {
        let paths =
            ["a/x/box.mesh", "b/y/box.mesh", "c/arm.mesh", "d/x/box.mesh"].map(String::from);
        assert_eq!(
            unique_suffixes(&paths),
            ["a/x/box.mesh", "y/box.mesh", "arm.mesh", "d/x/box.mesh"]
        );
    }

    #[test]
    fn a_section_replaces_the_earlier_one() {
        let a = format!("# Benchmarks\n\ntable\n\n{HEADING}: old\n\nold rows\n");
        let b = splice(&a, &format!("{HEADING}: new\n"));
        assert_eq!(b, format!("# Benchmarks\n\ntable\n\n{HEADING}: new\n"));
        assert_eq!(splice("# B\n", "S\n"), "# B\n\nS\n");
    }
}
