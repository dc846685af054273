//! `meshfmt convert --out-dir DIR --to FORMAT FILES...`: many files in parallel (rayon),
//! a progress bar on a terminal (indicatif), every bad file reported and skipped, a
//! summary at the end and exit code 1 if any file failed. Each file is converted under
//! its own `--max-memory` budget, so the batch as a whole may use up to that many times
//! the number of worker threads (one per core).

use std::collections::{HashMap, HashSet};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use meshfmt::convert::{ConvertOptions, convert, extension_for, read_input};
use meshfmt::error::CliError;
use meshfmt::output::write_outputs;
use meshfmt_core::text::{MAX_LINE_CHARS, one_line};
use rayon::prelude::*;

/// Where each input goes in `dir`: its file stem with the target's extension; a stem
/// already taken (compared ignoring case, as on Windows and macOS) gets the first free
/// `-2`, `-3`, ..., so no two outputs (nor the files written beside them, which share
/// their output's stem) are the same file.
fn output_names(inputs: &[String], dir: &Path, ext: &str) -> Vec<PathBuf> {
    let stems: Vec<String> = inputs
        .iter()
        .map(|i| {
            Path::new(i)
                .file_stem()
                .map_or_else(|| "out".into(), |s| s.to_string_lossy().into_owned())
        })
        .collect();
    unique_stems(&stems)
        .into_iter()
        .map(|stem| dir.join(format!("{stem}.{ext}")))
        .collect()
}

/// `stems` made unique ignoring case: a repeated one gets the first free `-N` (a free
/// name that a later stem has as its own is taken by that later one first).
fn unique_stems(stems: &[String]) -> Vec<String> {
    let mut taken: HashSet<String> = HashSet::new();
    let own: HashSet<String> = stems.iter().map(|s| s.to_lowercase()).collect();
    let mut next: HashMap<String, u64> = HashMap::new();
    let mut out = Vec::with_capacity(stems.len());
    for stem in stems {
        if taken.insert(stem.to_lowercase()) {
            out.push(stem.clone());
            continue;
        }
        // The next number to try per stem: n equal stems cost n tries, not n squared.
        let k = next.entry(stem.to_lowercase()).or_insert(2);
        loop {
            let candidate = format!("{stem}-{k}");
            *k += 1;
            let key = candidate.to_lowercase();
            if !own.contains(&key) && taken.insert(key) {
                out.push(candidate);
                break;
            }
        }
    }
    out
}

pub fn run(
    inputs: &[String],
    dir: &Path,
    opts: &ConvertOptions,
    force: bool,
) -> Result<(), CliError> {
    let to = opts.to.as_deref().ok_or_else(|| {
        CliError::Usage("batch mode needs --to FORMAT (a format name, glb, gltf or obj)".into())
    })?;
    let ext = extension_for(to)?;
    std::fs::create_dir_all(dir).map_err(|source| CliError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let outputs = output_names(inputs, dir, &ext);
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(inputs.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let results: Vec<Result<usize, String>> = inputs
        .par_iter()
        .zip(&outputs)
        .map(|(input, output)| {
            let result = read_input(Path::new(input), &opts.limits)
                .map_err(|e| format!("{input}: {e}"))
                .and_then(|data| {
                    convert(Path::new(input), data, output, opts)
                        .map_err(|e| format!("{input}: {e}"))
                })
                .and_then(|c| {
                    write_outputs(&c.outputs, force).map_err(|e| format!("{input}: {e}"))?;
                    Ok(c.losses.len() + c.warnings.len())
                });
            bar.inc(1);
            bar.set_message(input.clone());
            result
        })
        .collect();
    bar.finish_and_clear();
    let mut failed = 0;
    let mut losses = 0;
    for r in &results {
        match r {
            Ok(n) => losses += n,
            Err(e) => {
                failed += 1;
                eprintln!("meshfmt: {}", one_line(e, MAX_LINE_CHARS));
            }
        }
    }
    let summary = format!(
        "converted {} of {} files into {} ({losses} losses and warnings reported; convert one file to see them)",
        inputs.len() - failed,
        inputs.len(),
        dir.display()
    );
    eprintln!("meshfmt: {}", one_line(&summary, MAX_LINE_CHARS));
    if failed > 0 {
        return Err(CliError::Batch {
            failed,
            total: inputs.len(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::unique_stems;

    /// `a/x b/x c/x-2` made three outputs of two names before; now every stem is its
    /// own file, ignoring case, and a stem of its own is not taken by a renamed one.
    #[test]
    fn batch_outputs_never_share_a_name() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            unique_stems(&s(&["x", "x", "x-2"])),
            s(&["x", "x-3", "x-2"])
        );
        assert_eq!(
            unique_stems(&s(&["A", "a", "a-2"])),
            s(&["A", "a-3", "a-2"])
        );
        assert_eq!(
            unique_stems(&s(&["x-2", "x", "x"])),
            s(&["x-2", "x", "x-3"])
        );
        let many = unique_stems(&s(&["m"; 50]));
        let distinct: std::collections::HashSet<String> =
            many.iter().map(|m| m.to_lowercase()).collect();
        assert_eq!(distinct.len(), 50);
    }
}
