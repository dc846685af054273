//! The one table (rows of every comparison), the machine it ran on, and BENCHMARKS.md.

use std::process::Command;

use super::Options;
use super::convert::{Timed, ToMs14};
use super::formats::{Measured, OPS};
use super::reference::{Compared, Side};
use super::timing::geomean;

/// Where the figures were measured.
pub struct Machine {
    cpu: String,
    cpus: usize,
    rustc: String,
    gcc: Option<String>,
    assimp: Option<String>,
    date: String,
    load: String,
}

fn first_line(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// `Version 5.2 ...` from `assimp version`'s banner.
fn assimp_version() -> Option<String> {
    let out = Command::new("assimp").arg("version").output().ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.trim().strip_prefix("Version "))
        .and_then(|v| v.split_whitespace().next())
        .map(str::to_string)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

impl Machine {
    /// This machine, now.
    pub fn here() -> Self {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("model name"))
                    .map(|v| v.trim_start_matches([' ', '\t', ':']).trim().to_string())
            })
            .unwrap_or_else(|| "unknown CPU".into());
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
        Machine {
            cpu,
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            rustc: first_line(&rustc, &["--version"]).unwrap_or_else(|| "rustc (unknown)".into()),
            gcc: first_line("gcc", &["--version"]),
            assimp: super::convert::which("assimp").and_then(|_| assimp_version()),
            date: first_line("date", &["-u", "+%Y-%m-%d %H:%M UTC"]).unwrap_or_default(),
            load: load_average(),
        }
    }
}

/// One line of the table.
pub struct Row {
    format: String,
    workload: String,
    bytes: usize,
    vs: String,
    /// read, write, to_core, from_core, convert.
    cells: [String; 5],
    peak: String,
}

/// Speed relative to the baseline: its time over ours (1 = as fast, above 1 faster).
fn ratio(baseline: f64, ours: f64) -> String {
    let r = baseline / ours;
    if !r.is_finite() {
        return "n/a".into();
    }
    match r {
        r if r >= 100.0 => format!("{r:.0}x"),
        r if r >= 10.0 => format!("{r:.1}x"),
        r if r >= 1.0 => format!("{r:.2}x"),
        r => format!("{r:.3}x"),
    }
}

fn ms(secs: f64) -> String {
    let m = secs * 1e3;
    match m {
        // The small samples load in about a microsecond: three figures, not "0.001 ms".
        m if m < 0.1 => format!("{:.2} µs", m * 1e3),
        m if m < 1.0 => format!("{m:.3} ms"),
        m if m < 10.0 => format!("{m:.2} ms"),
        m if m < 1000.0 => format!("{m:.1} ms"),
        m => format!("{m:.0} ms"),
    }
}

fn size(bytes: f64) -> String {
    match bytes {
        b if b >= 1e6 => format!("{:.1} MB", b / 1e6),
        b if b >= 1e3 => format!("{:.0} kB", b / 1e3),
        b => format!("{b:.0} B"),
    }
}

fn cell(baseline: f64, ours: f64) -> String {
    format!("{} ({})", ratio(baseline, ours), ms(ours))
}

fn side_by_side(ours_ms: f64, ref_ms: f64) -> String {
    format!(
        "{} ({} vs {})",
        ratio(ref_ms, ours_ms),
        ms(ours_ms / 1e3),
        ms(ref_ms / 1e3)
    )
}

fn memory(ours_kb: Option<f64>, theirs_kb: Option<f64>) -> String {
    let mb = |kb: f64| format!("{:.1}", kb / 1024.0);
    match (ours_kb, theirs_kb) {
        (Some(o), Some(t)) => format!("{} / {} MB", mb(o), mb(t)),
        (Some(o), None) => format!("{} MB", mb(o)),
        _ => String::new(),
    }
}

/// Per group of files: load, save and peak ratios (reference / ours), and load with
/// saves between loads.
type Means = (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>);

impl Row {
    /// A format's four operations against memcpy of the same bytes.
    pub fn memcpy(label: &str, what: &str, bytes: usize, m: &Measured) -> Row {
        let mut cells: [String; 5] = Default::default();
        for (k, op) in m.ops.iter().enumerate() {
            cells[k] = match op {
                Ok(t) => cell(m.memcpy, *t),
                Err(e) => format!("fails: {}", e.replace('|', "/")),
            };
        }
        debug_assert_eq!(OPS.len(), 4);
        Row {
            format: label.into(),
            workload: what.into(),
            bytes,
            vs: "memcpy".into(),
            cells,
            peak: String::new(),
        }
    }

    /// Reads back to back ([`reads_back_to_back`](super::formats::reads_back_to_back))
    /// against memcpy; `shared` as there.
    pub fn read_only(
        label: &str,
        what: &str,
        bytes: usize,
        memcpy: f64,
        read: f64,
        shared: bool,
    ) -> Row {
        let mut cells: [String; 5] = Default::default();
        cells[0] = cell(memcpy, read);
        let from = match shared {
            true => "",
            false => ", from borrowed bytes (`read`: the stored blocks copied)",
        };
        Row {
            format: label.into(),
            workload: format!("{what}, reads back to back (the read alone, call after call){from}"),
            bytes,
            vs: "memcpy".into(),
            cells,
            peak: String::new(),
        }
    }

    /// A conversion to ms14: its steps and the whole, against memcpy of the source.
    pub fn to_ms14(c: &ToMs14) -> Row {
        let [read, to_core, from_core, write, total] = c.steps.map(|t| cell(c.memcpy, t));
        Row {
            format: format!("{} -> ms14", c.source),
            workload: "generated, 1,000,000 triangles: read, to_core, from_core (ms14), write"
                .into(),
            bytes: c.bytes,
            vs: "memcpy".into(),
            cells: [read, write, to_core, from_core, total],
            peak: String::new(),
        }
    }

    /// `meshfmt convert grid.obj grid.glb` beside `assimp export` (whole processes).
    pub fn obj_to_glb(
        bytes: usize,
        ours: &Result<Timed, String>,
        theirs: Option<&Result<Timed, String>>,
    ) -> Row {
        let (convert, peak, vs) = match (ours, theirs) {
            (Err(e), _) => (format!("fails: {e}"), String::new(), "-".into()),
            (Ok(o), Some(Ok(t))) => (
                format!(
                    "{} ({} vs {})",
                    ratio(t.secs, o.secs),
                    ms(o.secs),
                    ms(t.secs)
                ),
                memory(o.peak_kb, t.peak_kb),
                "assimp export".into(),
            ),
            (Ok(o), other) => (
                match other {
                    Some(Err(e)) => format!("{} (assimp fails: {e})", ms(o.secs)),
                    _ => ms(o.secs),
                },
                memory(o.peak_kb, None),
                "-".into(),
            ),
        };
        Row {
            format: "OBJ -> glB (CLI)".into(),
            workload: "`meshfmt convert grid.obj grid.glb`, 1,000,000 triangles, whole process"
                .into(),
            bytes,
            vs,
            cells: [
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                convert,
            ],
            peak,
        }
    }

    /// M3D load and save beside m3d.h: one row per file, then geometric means.
    pub fn reference(compared: &[Compared], notes: &mut Vec<String>) -> Vec<Row> {
        let mut rows = Vec::new();
        let mut means: [Means; 2] = Default::default();
        let mut inlined = false;
        for c in compared {
            let name = c
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let generated = name.starts_with("grid-");
            let ascii = name.ends_with(".a3d");
            let (ours, theirs) = match (&c.ours, &c.reference) {
                (Ok(o), Ok(t)) => (o, t),
                (o, t) => {
                    let why = [o.as_ref().err(), t.as_ref().err()]
                        .into_iter()
                        .flatten()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("; ");
                    notes.push(format!("{name}: not compared ({why})"));
                    continue;
                }
            };
            let has_assets = std::fs::read(&c.path)
                .ok()
                .and_then(|b| m3d_format::read(&b).ok())
                .is_some_and(|f| f.counts().inlined > 0);
            inlined |= has_assets;
            if !generated {
                let m = &mut means[usize::from(ascii)];
                m.0.push(theirs.load_ms / ours.load_ms);
                m.3.push(theirs.load_between_ms / ours.load_between_ms);
                // Saves of different content (m3d.h saves meshed voxels, generated
                // normals) are shown but left out of the mean.
                let sizes = theirs.saved as f64 / ours.saved.max(1) as f64;
                if (0.5..=2.0).contains(&sizes) {
                    m.1.push(theirs.save_ms / ours.save_ms);
                }
                m.2.push(theirs.peak_kb / ours.peak_kb);
            }
            rows.push(Row::compared(
                if ascii { "m3d ASCII" } else { "m3d binary" },
                if generated {
                    "generated, 1,000,000 triangles (written to a temporary file)".to_string()
                } else {
                    format!(
                        "{name}{}",
                        if has_assets { " (inlined assets)" } else { "" }
                    )
                },
                c.bytes as usize,
                ours,
                theirs,
            ));
        }
        if inlined {
            notes.push(
                "Files with inlined assets: both loads decode their PNG textures \
                 (LoadOptions::default() has `textures` on)."
                    .into(),
            );
        }
        let [bin, ascii] = means;
        let all = (
            [bin.0.clone(), ascii.0.clone()].concat(),
            [bin.1.clone(), ascii.1.clone()].concat(),
            [bin.2.clone(), ascii.2.clone()].concat(),
            [bin.3.clone(), ascii.3.clone()].concat(),
        );
        for (label, m) in [("binary", bin), ("ASCII", ascii), ("binary and ASCII", all)] {
            if m.0.is_empty() {
                continue;
            }
            let g = |v: &[f64]| {
                let r = geomean(v);
                ratio(r, 1.0)
            };
            rows.push(Row {
                format: "m3d".into(),
                workload: format!(
                    "**geometric mean, {} {label} samples** (save: the {} whose saved sizes \
                     are within 2x)",
                    m.0.len(),
                    m.1.len()
                ),
                bytes: 0,
                vs: "m3d.h".into(),
                cells: [
                    format!("**{}**; saves between loads: **{}**", g(&m.0), g(&m.3)),
                    format!("**{}**", g(&m.1)),
                    String::new(),
                    String::new(),
                    String::new(),
                ],
                peak: format!("ours / m3d.h {:.2}", 1.0 / geomean(&m.2)),
            });
        }
        rows
    }

    fn compared(format: &str, workload: String, bytes: usize, o: &Side, t: &Side) -> Row {
        Row {
            format: format.into(),
            workload,
            bytes,
            vs: "m3d.h".into(),
            cells: [
                format!(
                    "{}; saves between loads: {}",
                    side_by_side(o.load_ms, t.load_ms),
                    side_by_side(o.load_between_ms, t.load_between_ms)
                ),
                format!(
                    "{}; {} vs {}",
                    side_by_side(o.save_ms, t.save_ms).trim_end_matches(')'),
                    size(o.saved as f64),
                    size(t.saved as f64)
                ) + ")",
                String::new(),
                String::new(),
                String::new(),
            ],
            peak: format!(
                "{}; with saves: {}",
                memory(Some(o.peak_kb), Some(t.peak_kb)),
                memory(Some(o.peak_all_kb), Some(t.peak_all_kb))
            ),
        }
    }
}

/// BENCHMARKS.md: how it was measured, the machine, the table and the notes.
pub fn markdown(m: &Machine, o: &Options, rows: &[Row], notes: &[String]) -> String {
    let mut s = String::new();
    s.push_str("# Benchmarks\n\n");
    s.push_str(&format!(
        "Measured by `cargo xtask bench{}` on {}. Rerun with `cargo xtask bench` from a clone \
         with `../shared` beside it (samples and the m3d.h reference); `--quick` for a \
         faster pass, `--runs N`, `--out FILE`. The figures move as the code changes and \
         with the machine's load: compare ratios measured in one run, never times from \
         different runs.\n\n",
        if o.quick { " --quick" } else { "" },
        m.date
    ));
    s.push_str(&format!(
        "Machine: {}, {} logical CPUs; {}{}{}. Load average {} at the start of the run (other \
         work on the machine makes figures noisy).\n\n",
        m.cpu,
        m.cpus,
        m.rustc,
        m.gcc
            .as_ref()
            .map(|g| format!("; reference built with {g} -O2"))
            .unwrap_or_default(),
        m.assimp
            .as_ref()
            .map(|a| format!("; assimp {a}"))
            .unwrap_or_default(),
        m.load,
    ));
    s.push_str(&format!(
        "How to read a cell: **speed relative to the baseline in `vs`** (the baseline's time \
         divided by ours: 1x = as fast, above 1x faster, below 1x slower), then our median \
         time (and the baseline's, for m3d.h and assimp). Against memcpy the ratio is our \
         throughput as a fraction of a memcpy of the same bytes (the file's size; for \
         sample rows all files of the row, one pass), timed in the same repetition; medians \
         of {} repetitions. Operations go through each format's meshfmt-core contract (what \
         the CLI runs): read = bytes to the faithful file (the bytes handed over shared, \
         `Format::read_shared`, as `meshfmt info` does: UNIGINE ms14 keeps ranges of them as \
         its stored LZ4 blocks, where a read of borrowed bytes copies them), write = faithful file to bytes, \
         to_core = faithful file to the meshfmt-core model, from_core = model to the faithful \
         file (written back as the version read); the four run in turn in each repetition, \
         while the memcpy copies into memory already touched. The rows \"reads back to back\" time the read \
         alone, call after call, in the same process as the other rows (which keeps their \
         data alive). For the m3d.h rows read is **load** \
         (m3d_load + m3d_free against `m3d_format::load` + drop, inlined textures decoded on \
         both sides) and write is **save** (m3d_save, float coordinates, compressed, against \
         `File::write` of the file read, compressed, the same work: without its inlined \
         assets, which m3d_save leaves out without `M3D_EXP_INLINE`, and ASCII text written \
         narrowed, `WriteOptions::narrow`: f32 coordinates and the narrowest fields, as \
         m3d_save writes them; binary files as stored; the sizes saved follow the times: \
         m3d.h saves what it loaded, meshed voxels and generated normals included, we save \
         the file's own records); one process per file and side, {} \
         alternating rounds of medians, the million-triangle file included; the reference \
         prints milliseconds to four decimals, so its times of the small samples are \
         rounded to 0.1 µs. Loads are timed twice on \
         both sides: in a run of loads only (`run.sh` without `--save`), then with a save \
         after each load (`run.sh --save`; ours: `File::write` of the file read): what the \
         saves leave in glibc's heap changes what the loads' allocations cost (brk, page \
         faults), so both figures are shown; saves come from the second run. Peak RSS is \
         each side's while loading (a process of loads only), then over loads and saves \
         (ours / m3d.h).\n\n",
        o.runs,
        if o.quick { 1 } else { 3 }
    ));
    s.push_str(
        "| format | workload | size | vs | read | write | to_core | from_core | convert | peak RSS |\n",
    );
    s.push_str("|---|---|---|---|---|---|---|---|---|---|\n");
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.format,
            r.workload,
            if r.bytes == 0 {
                String::new()
            } else {
                size(r.bytes as f64)
            },
            r.vs,
            r.cells[0],
            r.cells[1],
            r.cells[2],
            r.cells[3],
            r.cells[4],
            r.peak
        ));
    }
    if !notes.is_empty() {
        s.push_str("\nNotes:\n\n");
        for n in notes {
            s.push_str(&format!("- {n}\n"));
        }
    }
    s
}
