//! `convert` with the input handed over: the input's bytes are freed once read, and
//! their charge given back, so the rest of the conversion has the whole budget.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use meshfmt::convert::{ConvertOptions, convert};
use meshfmt_core::Limits;

/// A triangle, then a long comment: an input much larger than what it reads into.
fn padded_obj() -> Vec<u8> {
    let mut t = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n# ".to_vec();
    t.extend(std::iter::repeat_n(b'x', 200_000));
    t.push(b'\n');
    t
}

/// Whether converting `input` (its bytes `data`) to glB fits a budget of `limit` bytes.
fn within(limit: u64, input: &str, data: meshfmt::convert::InputBytes<'_>) -> bool {
    let opts = ConvertOptions {
        limits: Limits {
            max_alloc_bytes: limit,
            ..Limits::DEFAULT
        },
        ..ConvertOptions::default()
    };
    convert(Path::new(input), data, Path::new("out.glb"), &opts).is_ok()
}

/// The smallest budget converting `input` to glB fits in with `data` borrowed (kept
/// beside the conversion, charged throughout).
fn smallest_borrowed_budget(input: &str, data: &[u8]) -> u64 {
    test_support::smallest_fitting(0, 1 << 24, |max| within(max, input, data.into()))
}

/// Converting `input` to glB gives the same files whether `data` is borrowed or handed
/// over.
fn same_output_either_way(input: &str, data: Vec<u8>) {
    let opts = ConvertOptions::default();
    let a = convert(Path::new(input), &data, Path::new("out.glb"), &opts).unwrap();
    let b = convert(Path::new(input), data, Path::new("out.glb"), &opts).unwrap();
    assert_eq!(a.outputs, b.outputs);
}

#[test]
fn an_owned_input_is_freed_once_read() {
    let data = padded_obj();
    let hi = smallest_borrowed_budget("in.obj", &data);
    assert!(hi > data.len() as u64, "the input is charged");
    // Below it, a borrowed input fails and a handed-over one fits: once read, its
    // 200 kB are given back for the glTF the rest of the conversion builds.
    assert!(!within(hi - 1, "in.obj", (&data).into()));
    assert!(within(hi - 1, "in.obj", data.clone().into()));
    same_output_either_way("in.obj", data);
}

/// An ms14 input handed over is read shared: its stored LZ4 blocks stay ranges of it,
/// not copies charged beside it as a borrowed input's are, so the conversion fits a
/// budget the borrowed one does not (that the input's charge comes back once the file
/// read from it is dropped is tested in convert.rs), with the same output.
#[test]
fn an_owned_input_a_format_keeps_ranges_of_is_freed_with_the_file() {
    let path = test_support::workspace_root().join("fixtures/unigine-mesh/multi_surface.ms14.mesh");
    let data = std::fs::read(path).unwrap();
    let hi = smallest_borrowed_budget("in.mesh", &data);
    assert!(!within(hi - 1, "in.mesh", (&data).into()));
    assert!(within(hi - 1, "in.mesh", data.clone().into()));
    same_output_either_way("in.mesh", data);
}
