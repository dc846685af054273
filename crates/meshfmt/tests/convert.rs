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

fn within(limit: u64, data: meshfmt::convert::InputBytes<'_>) -> bool {
    let opts = ConvertOptions {
        limits: Limits {
            max_alloc_bytes: limit,
            ..Limits::DEFAULT
        },
        ..ConvertOptions::default()
    };
    convert(Path::new("in.obj"), data, Path::new("out.glb"), &opts).is_ok()
}

#[test]
fn an_owned_input_is_freed_once_read() {
    let data = padded_obj();
    // The smallest budget the conversion fits in with the input kept beside it.
    let (mut lo, mut hi) = (0u64, 1 << 24);
    assert!(within(hi, (&data).into()));
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if within(mid, (&data).into()) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    assert!(hi > data.len() as u64, "the input is charged");
    // Below it, a borrowed input fails and a handed-over one fits: once read, its
    // 200 kB are given back for the glTF the rest of the conversion builds.
    assert!(!within(hi - 1, (&data).into()));
    assert!(within(hi - 1, data.clone().into()));
    // The same output either way.
    let opts = ConvertOptions::default();
    let a = convert(Path::new("in.obj"), &data, Path::new("out.glb"), &opts).unwrap();
    let b = convert(Path::new("in.obj"), data, Path::new("out.glb"), &opts).unwrap();
    assert_eq!(a.outputs, b.outputs);
}

/// An ms14 input handed over is read shared: its stored LZ4 blocks stay ranges of it
/// (nothing copied), so it lives, charged, as long as the file read from it; once that
/// is dropped its charge comes back too, as for a format that copies what it keeps.
#[test]
fn an_owned_input_a_format_keeps_ranges_of_is_freed_with_the_file() {
    let path = test_support::workspace_root().join("fixtures/unigine-mesh/multi_surface.ms14.mesh");
    let data = std::fs::read(path).unwrap();
    let within = |limit: u64, data: meshfmt::convert::InputBytes<'_>| {
        let opts = ConvertOptions {
            limits: Limits {
                max_alloc_bytes: limit,
                ..Limits::DEFAULT
            },
            ..ConvertOptions::default()
        };
        convert(Path::new("in.mesh"), data, Path::new("out.glb"), &opts).is_ok()
    };
    let (mut lo, mut hi) = (0u64, 1 << 24);
    assert!(within(hi, (&data).into()));
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if within(mid, (&data).into()) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    assert!(!within(hi - 1, (&data).into()));
    assert!(within(hi - 1, data.clone().into()));
    let opts = ConvertOptions::default();
    let a = convert(Path::new("in.mesh"), &data, Path::new("out.glb"), &opts).unwrap();
    let b = convert(Path::new("in.mesh"), data, Path::new("out.glb"), &opts).unwrap();
    assert_eq!(a.outputs, b.outputs);
}
