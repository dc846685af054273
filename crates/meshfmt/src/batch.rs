//! `meshfmt convert --out-dir DIR --to FORMAT FILES...`: many files in parallel (rayon),
//! a progress bar on a terminal (indicatif), every bad file reported and skipped, a
//! summary at the end and exit code 1 if any file failed. Each file is converted under
//! its own `--max-memory` budget, so the batch as a whole may use up to that many times
//! the number of worker threads (one per core).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use meshfmt::convert::{ConvertOptions, convert, extension_for, read_input};
use meshfmt::error::CliError;
use rayon::prelude::*;

/// Where `input` goes in `dir`: its file stem with the target's extension; inputs that
/// share a stem get `-2`, `-3`, ... so none overwrites another.
fn output_names(inputs: &[String], dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut seen = std::collections::HashMap::<String, usize>::new();
    inputs
        .iter()
        .map(|i| {
            let stem = Path::new(i)
                .file_stem()
                .map_or_else(|| "out".into(), |s| s.to_string_lossy().into_owned());
            let n = seen.entry(stem.clone()).or_insert(0);
            *n += 1;
            let name = if *n == 1 {
                format!("{stem}.{ext}")
            } else {
                format!("{stem}-{n}.{ext}")
            };
            dir.join(name)
        })
        .collect()
}

pub fn run(inputs: &[String], dir: &Path, opts: &ConvertOptions) -> Result<(), CliError> {
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
                    for (path, bytes) in &c.outputs {
                        std::fs::write(path, bytes)
                            .map_err(|e| format!("{}: {e}", path.display()))?;
                    }
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
                eprintln!("meshfmt: {e}");
            }
        }
    }
    eprintln!(
        "meshfmt: converted {} of {} files into {} ({losses} losses reported; convert one file to see them)",
        inputs.len() - failed,
        inputs.len(),
        dir.display()
    );
    if failed > 0 {
        return Err(CliError::Batch {
            failed,
            total: inputs.len(),
        });
    }
    Ok(())
}
