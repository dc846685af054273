//! Workspace automation.
//!
//! ```text
//! cargo xtask fixtures          regenerate fixtures/ and print the conformance report
//! cargo xtask fixtures --check  regenerate in memory; fail if fixtures/ is stale
//! cargo xtask conformance --samples DIR [--bless] [--gltf-out OUT]
//!                               every real file: read, validate, rewrite, convert,
//!                               export to glTF (into OUT when given); compared with
//!                               fixtures/samples-expected.txt
//! cargo xtask gltf OUT          every committed fixture exported to OUT as .glb, plus
//!                               .gltf with a separate and an embedded buffer
//! cargo xtask bench [--runs N] [--quick] [--out FILE] [--samples DIR] [--reference DIR]
//!                               one table: every format against memcpy, conversions,
//!                               M3D beside m3d.h; written to BENCHMARKS.md
//! cargo xtask link-order [--check]
//!                               profile short runs of the tool; write the linker
//!                               script that puts the functions they run first
//! cargo xtask web [--serve] [--port N] [--no-build] [--test]
//!                               the page (crates/meshfmt-web) built into target/web;
//!                               served on 127.0.0.1, or tested in Debian's chromium
//! ```
#![forbid(unsafe_code)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(test)]
mod api;
mod bench;
mod codecs;
mod compare;
mod conformance;
#[cfg(test)]
mod cycles;
#[cfg(test)]
mod deps;
mod fixtures;
mod gltf;
mod hostile;
mod link_order;
mod quirks;
mod samples;
mod vitaboy;
mod web;

use std::path::Path;
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage: cargo xtask fixtures [--check]\n       cargo xtask conformance --samples DIR [--bless] [--gltf-out OUT]\n       cargo xtask gltf OUT\n       cargo xtask hostile OUT\n       {}\n       {}\n       {}",
        link_order::USAGE,
        bench::USAGE,
        web::USAGE
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["fixtures"] => fixtures::run(false),
        ["fixtures", "--check"] => fixtures::run(true),
        ["conformance", "--samples", dir] => samples::run(Path::new(dir), false, None),
        ["conformance", "--samples", dir, "--bless"] => samples::run(Path::new(dir), true, None),
        ["conformance", "--samples", dir, "--gltf-out", out] => {
            samples::run(Path::new(dir), false, Some(Path::new(out)))
        }
        ["gltf", out] => gltf::run(Path::new(out)),
        ["hostile", out] => hostile::run(Path::new(out)),
        ["bench", rest @ ..] => bench::run(rest),
        ["bench-child", rest @ ..] => bench::child(rest),
        ["web", rest @ ..] => web::run(rest),
        ["link-order", rest @ ..] => link_order::run(rest),
        _ => usage(),
    }
}
