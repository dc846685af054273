//! The hand-made hostile files of the samples' m3d/crafted folder (../shared/samples, never
//! copied here): each gives a typed error or the correct value, never a panic. Expected
//! values come from the crafted README and the format notes, not from our output. Missing
//! files skip, or fail under MESHFMT_REQUIRE_SAMPLES (see test-support).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use m3d_format::{Body, Coord, Error, Idx, MeshRecord, PropValue};
use test_support::{sample_file_or_skip, samples_or_skip};

/// crafted/`name`, read; `None` (skipped) when the file is missing, a failure under
/// MESHFMT_REQUIRE_SAMPLES.
#[track_caller]
fn load(name: &str) -> Option<Result<m3d_format::File, Error>> {
    let path = sample_file_or_skip("m3d/crafted", name, &format!("the test of {name}"))?;
    let bytes = std::fs::read(path).unwrap();
    Some(m3d_format::read(&bytes))
}

#[test]
fn label_one_has_one_label_not_two() {
    // m3d.h reports numlabel 2 (payload length / record size); the chunk holds one.
    let Some(f) = load("label_one.m3d") else {
        return;
    };
    assert_eq!(f.unwrap().counts().labels, 1);
}

#[test]
fn face_ff_index_reads_as_undefined_vertex() {
    // u8 0xFF is m3d.h's -1 sentinel; m3d.h then indexes vertex[0xFFFFFFFF] and crashes.
    // We keep the value as stored and flag it as undefined.
    let Some(f) = load("face_ff_index.m3d") else {
        return;
    };
    let f = f.unwrap();
    let corners: Vec<Idx> = f
        .chunks
        .iter()
        .filter_map(|c| match &c.body {
            Body::Mesh(m) => Some(m),
            _ => None,
        })
        .flat_map(|m| m.polygons().flat_map(|(c, _)| c.iter().map(|c| c.vertex)))
        .collect();
    assert!(corners.contains(&Idx::UNDEF));
    assert_eq!(Idx::UNDEF.get(), None);
}

#[test]
fn no_omd3_is_an_error() {
    let Some(f) = load("no_omd3.m3d") else { return };
    let e = f.unwrap_err();
    assert!(e.to_string().contains("OMD3"), "{e}");
}

#[test]
fn quad_is_read_as_one_polygon_of_four_corners() {
    // m3d.h stops with M3D_ERR_UNKMESH; the format allows 1..15 points per polygon.
    let Some(f) = load("quad.m3d") else { return };
    let f = f.unwrap();
    let quads = f
        .chunks
        .iter()
        .filter_map(|c| match &c.body {
            Body::Mesh(m) => Some(m),
            _ => None,
        })
        .flat_map(|m| m.records.iter())
        .filter(|r| matches!(r, MeshRecord::Polygon { corners, .. } if corners.len() == 4))
        .count();
    assert_eq!(quads, 1);
    assert_eq!(f.counts().triangles, 2);
}

#[test]
fn int8_min_decodes_as_minus_128_over_127() {
    let Some(f) = load("int8_min.m3d") else {
        return;
    };
    let f = f.unwrap();
    let v = f
        .vertices()
        .iter()
        .find(|v| v.coords[0] == Coord::I8(-128))
        .unwrap();
    assert!((v.coords[0].signed() - (-128.0 / 127.0)).abs() < 1e-12);
}

#[test]
fn mtrl_with_one_byte_colour_props_reads_twelve_zero_colours() {
    // ci_t absent: each colour property is its type byte alone, value 0 (m3d.h overflows
    // its property array here).
    let Some(f) = load("mtrl_many_1byte_props.m3d") else {
        return;
    };
    let f = f.unwrap();
    let m = f
        .chunks
        .iter()
        .find_map(|c| match &c.body {
            Body::Mtrl(m) => Some(m),
            _ => None,
        })
        .unwrap();
    assert_eq!(m.props.len(), 12);
    assert!(m.props.iter().all(|p| p.value == PropValue::Color(0)));
}

#[test]
fn every_crafted_file_never_panics_even_flipped_or_cut() {
    let Some(dir) = samples_or_skip(
        "m3d/crafted",
        "every_crafted_file_never_panics_even_flipped_or_cut",
    ) else {
        return;
    };
    let files = test_support::files_under(&dir, &["m3d", "a3d"]);
    assert_eq!(files.len(), 7, "crafted/ holds 7 .m3d/.a3d files");
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        test_support::assert_flips_never_panic(&bytes, 10_000, m3d_format::read);
        for len in 0..bytes.len() {
            let _ = std::panic::catch_unwind(|| m3d_format::read(&bytes[..len]))
                .unwrap_or_else(|_| panic!("{}: panic at {len}", path.display()));
        }
    }
}

#[test]
fn ascii_long_name_is_read_whole() {
    // m3d.h overflows a 256-byte buffer here (CVE-2021-45948 pattern); the name is 400 'A's.
    let Some(path) = sample_file_or_skip(
        "m3d/crafted",
        "ascii_longname.a3d",
        "ascii_long_name_is_read_whole",
    ) else {
        return;
    };
    let text = std::fs::read(path).unwrap();
    let want = text.split(|b| *b == b'\n').nth(1).unwrap();
    let want = want.strip_suffix(b"\r").unwrap_or(want);
    let f = m3d_format::read(&text).unwrap();
    assert_eq!(f.header_strings()[0], want);
    assert!(want.len() >= 400);
}

#[test]
fn problems_lists_the_broken_references_of_crafted_files_only() {
    let Some(f) = load("face_ff_index.m3d") else {
        return;
    };
    let p = f.unwrap().problems();
    assert!(
        p.iter().any(|p| p
            .to_string()
            .contains("MESH[1].record[0].corner[2].vertex: undefined")),
        "{p:?}"
    );
    let Some(dir) = samples_or_skip(
        "m3d",
        "problems_lists_the_broken_references_of_crafted_files_only",
    ) else {
        return;
    };
    let files: Vec<_> = test_support::files_under(&dir, &["m3d", "a3d"])
        .into_iter()
        .filter(|p| {
            p.parent()
                .and_then(std::path::Path::file_name)
                .is_none_or(|n| n != "crafted")
        })
        .collect();
    assert_eq!(
        files.len(),
        15,
        "the samples hold 12 .m3d and 3 .a3d real files"
    );
    for path in files {
        let f = m3d_format::read(&std::fs::read(&path).unwrap()).unwrap();
        let p = f.problems();
        // Real files are consistent (the one undefined material reference in the known
        // sample set, nurbs.m3d, is not among these samples).
        assert!(p.is_empty(), "{}: {p:?}", path.display());
    }
}
