//! Workspace automation.
//!
//! ```text
//! cargo xtask fixtures          regenerate fixtures/ and print the conformance report
//! cargo xtask fixtures --check  regenerate in memory; fail if fixtures/ is stale
//! cargo xtask conformance --samples DIR [--bless]
//!                               every real file: read, validate, rewrite, convert;
//!                               compared with fixtures/samples-expected.txt
//! ```
#![forbid(unsafe_code)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod codecs;
mod compare;
mod conformance;
mod fixtures;
mod samples;
mod vitaboy;

use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage: cargo xtask fixtures [--check]\n       cargo xtask conformance --samples DIR [--bless]"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["fixtures"] => fixtures::run(false),
        ["fixtures", "--check"] => fixtures::run(true),
        ["conformance", "--samples", dir] => samples::run(std::path::Path::new(dir), false),
        ["conformance", "--samples", dir, "--bless"] => {
            samples::run(std::path::Path::new(dir), true)
        }
        _ => usage(),
    }
}
