//! M3D load and save beside the reference m3d.h (`../shared/tools/m3d-ref/run.sh`), one
//! file per process on both sides so peak RSS is per file; rounds alternate ours and
//! the reference.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::timing::median;

/// One side's figures for one file: medians of its rounds.
#[derive(Debug, Clone, Copy)]
pub struct Side {
    /// Load (m3d_load + m3d_free; ours: m3d_format::load + drop), milliseconds, in a
    /// run of loads only.
    pub load_ms: f64,
    /// The same with a save after each load (the reference's `--save` run): the heap
    /// the saves grow changes what the loads' allocations cost.
    pub load_between_ms: f64,
    /// Save (m3d_save; ours: File::write), milliseconds.
    pub save_ms: f64,
    /// Peak RSS of loading, KiB: the process's over its loads only (ours: before the
    /// saves; the reference's: its run without `--save`).
    pub peak_kb: f64,
    /// Peak RSS over loads and saves, KiB (ours: at the end; the reference's: its
    /// `--save` run).
    pub peak_all_kb: f64,
    /// Bytes saved.
    pub saved: u64,
}

/// One file compared.
pub struct Compared {
    /// The file.
    pub path: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// Ours, or why not.
    pub ours: Result<Side, String>,
    /// The reference's, or why not.
    pub reference: Result<Side, String>,
}

/// Our side of one file in this process (run by `xtask bench-child m3d RUNS FILE` in a
/// fresh process): medians over `runs` of load (`m3d_format::load`, the one-pass load
/// that does m3d_load's work, then drop) and save (`File::write` of the file read
/// once, untimed), then loads again with a save after each (as the reference's `--save`
/// run does), and the process's peak RSS (VmHWM) after the first loads.
pub fn child(runs: usize, file: &Path) -> Result<String, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let opts = m3d_format::LoadOptions::default();
    let mut load = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        let copy = bytes.clone(); // the reference copies its input before each load
        let t0 = Instant::now();
        let loaded = m3d_format::load(&copy, &opts).map_err(|e| e.to_string())?;
        drop(std::hint::black_box(loaded));
        load.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    // Peak memory of loading: read before anything else is held.
    let hwm = peak_rss_kb();
    let (f, wopts) = to_save(&bytes)?;
    let mut save = Vec::with_capacity(runs);
    let mut saved = 0;
    for _ in 0..runs.max(1) {
        let t0 = Instant::now();
        let out = f.write_with(&wopts).map_err(|e| e.to_string())?;
        save.push(t0.elapsed().as_secs_f64() * 1e3);
        saved = out.len();
    }
    let mut between = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        let copy = bytes.clone();
        let t0 = Instant::now();
        let loaded = m3d_format::load(&copy, &opts).map_err(|e| e.to_string())?;
        let took = t0.elapsed();
        let out = f.write_with(&wopts).map_err(|e| e.to_string())?;
        drop(std::hint::black_box(out));
        let t1 = Instant::now();
        drop(std::hint::black_box(loaded));
        between.push((took + t1.elapsed()).as_secs_f64() * 1e3);
    }

    Ok(format!(
        "{:.4}\t{:.4}\t{hwm}\t{saved}\t{:.4}\t{}",
        median(&load),
        median(&save),
        median(&between),
        peak_rss_kb()
    ))
}

/// The file our saves write and how, for the same work as the reference's `m3d_save(m,
/// M3D_EXP_FLOAT, 0)`: that leaves inlined assets out (no `M3D_EXP_INLINE`), so ours
/// drops the ASET chunks (untimed); and it always writes f32 coordinates and the
/// narrowest fields, so ASCII text (read with f64 and u32 fields) is written narrowed
/// ([`m3d_format::WriteOptions::narrow`], f32), binary files as stored (their fields
/// are already the narrowest their writer chose).
fn to_save(bytes: &[u8]) -> Result<(m3d_format::File, m3d_format::WriteOptions), String> {
    let mut f = m3d_format::read(bytes).map_err(|e| e.to_string())?;
    f.chunks
        .retain(|c| !matches!(c.body, m3d_format::Body::Aset { .. }));
    let ascii = matches!(
        m3d_format::sniff_variant(bytes),
        Some(m3d_format::Variant::Ascii)
    );
    Ok((
        f,
        m3d_format::WriteOptions {
            narrow: ascii,
            ..m3d_format::WriteOptions::default()
        },
    ))
}

/// This process's peak RSS so far (VmHWM), KiB.
fn peak_rss_kb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .unwrap_or(f64::NAN)
}

fn parse_ours(line: &str) -> Result<Side, String> {
    let v: Vec<&str> = line.trim().split('\t').collect();
    let num = |i: usize| v.get(i).and_then(|x| x.parse::<f64>().ok());
    match (num(0), num(1), num(2), num(3), num(4), num(5)) {
        (
            Some(load_ms),
            Some(save_ms),
            Some(peak_kb),
            Some(saved),
            Some(load_between_ms),
            Some(peak_all_kb),
        ) => Ok(Side {
            load_ms,
            load_between_ms,
            save_ms,
            peak_kb,
            peak_all_kb,
            saved: saved as u64,
        }),
        _ => Err(format!("unexpected output: {}", line.trim())),
    }
}

/// `FILE load_med load_min save_med save_min peak_kb saved_bytes` (or `FILE error`).
fn parse_reference(line: &str) -> Result<Side, String> {
    let v: Vec<&str> = line.trim().split('\t').collect();
    let num = |i: usize| v.get(i).and_then(|x| x.parse::<f64>().ok());
    match (num(1), num(3), num(5), num(6)) {
        (Some(load_ms), Some(save_ms), Some(peak_kb), Some(saved)) => Ok(Side {
            load_ms,
            load_between_ms: load_ms,
            save_ms,
            peak_kb,
            peak_all_kb: peak_kb,
            saved: saved as u64,
        }),
        _ => Err(format!("reference: {}", v.get(1).unwrap_or(&"no output"))),
    }
}

fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "exit {}: {}",
            out.status.code().unwrap_or(-1),
            stderr.lines().last().unwrap_or_default()
        ));
    }
    Ok(stdout)
}

/// Timed runs per call for a file of `bytes` (fewer for large files; a quarter when
/// quick): about 40 MB of input per call, 3 to 200 runs.
pub fn runs_for(bytes: u64, quick: bool) -> usize {
    let n = (40_000_000 / bytes.max(1)).clamp(3, 200) as usize;
    if quick { (n / 4).max(3) } else { n }
}

/// Every file compared, `rounds` alternating rounds each (ours, then the reference;
/// the million-triangle file too: with one round, its load ratio moved from 2.16x to
/// 1.18x between two runs of the same code).
pub fn compare(
    run_sh: &Path,
    xtask: &Path,
    files: &[PathBuf],
    rounds: usize,
    quick: bool,
) -> Vec<Compared> {
    files
        .iter()
        .map(|path| {
            let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            let runs = runs_for(bytes, quick).to_string();
            let mut ours = Vec::new();
            let mut reference = Vec::new();
            let rounds = rounds.max(1);
            for _ in 0..rounds {
                ours.push(
                    run(Command::new(xtask)
                        .args(["bench-child", "m3d", &runs])
                        .arg(path))
                    .and_then(|o| parse_ours(&o)),
                );
                // Loads timed in run.sh's load-only mode (as ours are: all loads, then
                // all saves); save, peak RSS and size from a `--save` run. With a save
                // between loads, glibc keeps the heap the save grew, and m3d_load's
                // per-voxel reallocs stop faulting pages in (lantea's load time more
                // than halves): a state of the allocator, not of the loader.
                let load = reference_run(run_sh, &runs, path, false);
                let save = reference_run(run_sh, &runs, path, true);
                reference.push(load.and_then(|l| {
                    save.map(|s| Side {
                        load_ms: l.load_ms,
                        load_between_ms: s.load_ms,
                        peak_kb: l.peak_kb,
                        peak_all_kb: s.peak_kb,
                        ..s
                    })
                }));
            }
            Compared {
                path: path.clone(),
                bytes,
                ours: settle(ours),
                reference: settle(reference),
            }
        })
        .collect()
}

/// One reference process over `path`: loads only, or loads with a save after each.
// Through an intermediate shell that does not exec: a process started straight from
// this one inherits this process's (large) peak RSS in ru_maxrss across exec, and the
// reference reports that figure.
fn reference_run(run_sh: &Path, runs: &str, path: &Path, save: bool) -> Result<Side, String> {
    let mut cmd = Command::new("bash");
    cmd.args(["-c", "bash \"$0\" \"$@\"; exit $?"])
        .arg(run_sh)
        .args(["--runs", runs]);
    if save {
        cmd.arg("--save");
    }
    run(cmd.arg(path)).and_then(|o| parse_reference(o.lines().next().unwrap_or_default()))
}

/// The median of each figure over the rounds; the first error if any round failed.
fn settle(rounds: Vec<Result<Side, String>>) -> Result<Side, String> {
    let sides: Vec<Side> = rounds.into_iter().collect::<Result<_, _>>()?;
    let m = |f: fn(&Side) -> f64| median(&sides.iter().map(f).collect::<Vec<_>>());
    Ok(Side {
        load_ms: m(|s| s.load_ms),
        load_between_ms: m(|s| s.load_between_ms),
        save_ms: m(|s| s.save_ms),
        peak_kb: m(|s| s.peak_kb),
        peak_all_kb: m(|s| s.peak_all_kb),
        saved: sides.last().map_or(0, |s| s.saved),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_outputs() {
        let r = parse_reference("a.m3d\t1.5000\t1.2\t3.0\t2.9\t4096\t1234\n").unwrap();
        assert_eq!(
            (r.load_ms, r.save_ms, r.peak_kb, r.saved),
            (1.5, 3.0, 4096.0, 1234)
        );
        assert!(parse_reference("a.m3d\terror").is_err());
        let o = parse_ours("0.5\t0.7\t2048\t99\t0.4\t4096\n").unwrap();
        assert_eq!(
            (
                o.load_ms,
                o.save_ms,
                o.peak_kb,
                o.saved,
                o.load_between_ms,
                o.peak_all_kb
            ),
            (0.5, 0.7, 2048.0, 99, 0.4, 4096.0)
        );
        assert_eq!(runs_for(100, false), 200);
        assert_eq!(runs_for(1 << 30, false), 3);
    }
}
