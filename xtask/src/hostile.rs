//! `cargo xtask hostile OUT`: `fuzz_checks::hostile`'s corpus written as files, for
//! tests outside Rust (the Python module's pytest suite), with `corpus.tsv` listing each
//! file's name, family and what it attacks.

use std::path::Path;
use std::process::ExitCode;

pub fn run(out: &Path) -> ExitCode {
    match write(out) {
        Ok(n) => {
            println!("{n} hostile files in {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("xtask hostile: {}: {e}", out.display());
            ExitCode::FAILURE
        }
    }
}

fn write(out: &Path) -> std::io::Result<usize> {
    std::fs::create_dir_all(out)?;
    let corpus = fuzz_checks::hostile::corpus();
    let mut index = String::from("file\tfamily\tattack\n");
    for h in &corpus {
        std::fs::write(out.join(h.file_name()), &h.bytes)?;
        index.push_str(&format!("{}\t{}\t{}\n", h.file_name(), h.family, h.attack));
    }
    std::fs::write(out.join("corpus.tsv"), index)?;
    Ok(corpus.len())
}
