//! Hand-assembled files: hostile counts, a compression bomb, every quantization level and
//! index width, error positions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use m3d_format::{Body, Coord, Error, Idx, Limits, ReadOptions, WriteOptions};
use test_support::ByteBuilder;

/// `HEAD` with an empty-ish string table ("m\0\0\0\0" = name "m", no license/author/desc).
fn head(types: u32) -> ByteBuilder {
    ByteBuilder::new()
        .bytes(b"HEAD", "magic")
        .u32_le(16 + 5, "length incl. strings")
        .f32_le(1.0, "scale")
        .u32_le(types, "types")
        .bytes(b"m\0\0\0\0", "strings")
}

fn uncompressed(payload: &[u8]) -> Vec<u8> {
    let mut out = b"3DMO".to_vec();
    out.extend_from_slice(&(payload.len() as u32 + 8).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// Types: vc int8, vi/si u8, ci/ti/sk/fc/hi/fi/vd/vp absent, bi u32, nb 1.
const T_BI32: u32 = 0x03FF_C3C0 | (2 << 10);

#[test]
fn hostile_bone_count_fails_without_allocating() {
    let payload = head(T_BI32)
        .bytes(b"BONE", "magic")
        .u32_le(8 + 4, "length")
        .u32_le(0x7fff_ffff, "numbone (bi u32), far beyond the chunk")
        .bytes(b"OMD3", "end")
        .build();
    let e = m3d_format::read(&uncompressed(&payload)).unwrap_err();
    let Error::Decode(d) = &e else { panic!("{e}") };
    assert_eq!(d.path(), "BONE[0].numbone");
    // numbone sits 8 (3DMO) + 21 (HEAD) + 8 (BONE header) bytes in.
    assert_eq!(d.offset(), 8 + 21 + 8);
    assert!(e.to_string().contains("2147483647"), "{e}");
}

#[test]
fn hostile_frame_and_variadic_counts_fail() {
    // ACTN: numframe 0xFFFF with 2 bytes left; fc absent so each frame takes >= 4 bytes.
    let payload = head(0x03FF_CFC0)
        .bytes(b"ACTN", "magic")
        .u32_le(8 + 1 + 2 + 4, "length")
        .u8(0, "name")
        .u16_le(0xFFFF, "numframe")
        .u32_le(1000, "duration")
        .bytes(b"OMD3", "end")
        .build();
    assert!(m3d_format::read(&uncompressed(&payload)).is_err());
    // SHPE: `bez1` (17) with a variadic count of 0x7fffffff.
    let payload = head(0x03FF_CFC0)
        .bytes(b"SHPE", "magic")
        .u32_le(8 + 2 + 1 + 4, "length")
        .u8(0, "name")
        .u8(0xFF, "group: none")
        .u8(17, "bez1")
        .u32_le(0x7fff_ffff, "va count")
        .bytes(b"OMD3", "end")
        .build();
    let e = m3d_format::read(&uncompressed(&payload)).unwrap_err();
    assert!(e.to_string().contains("SHPE[0].command[0]"), "{e}");
}

#[test]
fn compression_bomb_is_a_typed_error() {
    let mut payload = head(0x03FF_CFC0)
        .bytes(b"ZZZZ", "an extra chunk of 64 MiB of zeros")
        .u32_le(8 + (64 << 20), "length")
        .build();
    payload.resize(payload.len() + (64 << 20), 0);
    payload.extend_from_slice(b"OMD3");
    let z = miniz_oxide::deflate::compress_to_vec_zlib(&payload, 6);
    assert!(z.len() < 1 << 20);
    let mut file = b"3DMO".to_vec();
    file.extend_from_slice(&(z.len() as u32 + 8).to_le_bytes());
    file.extend_from_slice(&z);
    let opts = ReadOptions {
        budget: m3d_format::Budget::new(Limits {
            max_alloc_bytes: 1 << 20,
            ..Limits::DEFAULT
        }),
    };
    let e = m3d_format::read_with(&file, &opts).unwrap_err();
    assert!(matches!(e, Error::Inflate { offset: 8, .. }), "{e}");
}

#[test]
fn every_coordinate_width_and_index_width_round_trips() {
    for vc in 0..4u32 {
        for vi in 0..3u32 {
            let types = 0x03FF_CFC0 & !0x0F | vc | (vi << 2);
            let vc_bytes = 1usize << vc;
            let vi_bytes = 1usize << vi;
            let mut b = head(types)
                .bytes(b"VRTS", "magic")
                .u32_le(8 + 2 * 4 * vc_bytes as u32, "two vertices");
            for i in 0..8u8 {
                let v: Vec<u8> = match vc {
                    0 => vec![i.wrapping_mul(37)],
                    1 => (-(i16::from(i) * 1000)).to_le_bytes().to_vec(),
                    2 => (f32::from(i) * 0.25).to_le_bytes().to_vec(),
                    _ => (f64::from(i) * -0.5).to_le_bytes().to_vec(),
                };
                b = b.bytes(&v, "coordinate");
            }
            b = b
                .bytes(b"MESH", "magic")
                .u32_le(8 + 1 + 3 * vi_bytes as u32, "one triangle")
                .u8(0x30, "triangle, no flags");
            for v in [0u32, 1, 0xFFFF_FFFF] {
                b = b.bytes(&v.to_le_bytes()[..vi_bytes], "vertex");
            }
            let payload = b.bytes(b"OMD3", "end").build();
            let f = m3d_format::read(&uncompressed(&payload)).unwrap();
            assert_eq!(f.payload().unwrap(), payload, "vc {vc} vi {vi}");
            let Body::Vrts(v) = &f.chunks[0].body else {
                panic!()
            };
            let want = match vc {
                0 => Coord::I8(37),
                1 => Coord::I16(-1000),
                2 => Coord::F32(0.25),
                _ => Coord::F64(-0.5),
            };
            assert_eq!(v.items[0].coords[1], want);
            let Body::Mesh(m) = &f.chunks[1].body else {
                panic!()
            };
            let (corners, _) = m.polygons().next().unwrap();
            assert_eq!(corners[2].vertex, Idx::UNDEF);
            for opts in [
                WriteOptions {
                    compress: false,
                    ..WriteOptions::default()
                },
                WriteOptions::default(),
            ] {
                let again = m3d_format::read(&f.write_with(&opts).unwrap()).unwrap();
                assert_eq!(again.payload().unwrap(), payload);
                assert_eq!(again.compressed, opts.compress);
            }
        }
    }
}

#[test]
fn mesh_error_names_payload_offset_and_path() {
    let payload = head(0x03FF_CFC0)
        .bytes(b"MESH", "magic")
        .u32_le(8 + 4 + 2, "a triangle and a cut one")
        .bytes(&[0x30, 0, 1, 2], "triangle")
        .bytes(&[0x30, 0], "cut triangle")
        .bytes(b"OMD3", "end")
        .build();
    let e = m3d_format::read_payload(&payload, &ReadOptions::default()).unwrap_err();
    let Error::Decode(d) = &e else { panic!("{e}") };
    assert_eq!(d.path(), "MESH[0].record[1].corner[1].vertex");
    assert_eq!(d.offset(), 21 + 8 + 4 + 2);
}

#[test]
fn hostile_ascii_fails_fast() {
    // A voxel block of 10^15 voxels in a few bytes of text.
    let t = "3dmodel 1\nn\nl\na\n\nVoxel\ndim 100000 100000 100000\nlayer\n1\n\nEnd\n";
    let e = m3d_format::read(t.as_bytes()).unwrap_err();
    assert!(
        e.to_string().contains("voxel block larger than the text"),
        "{e}"
    );
    // A variadic count far beyond the line.
    let t = "3dmodel 1\nn\nl\na\n\nShape s\nbez1 2147483647[ 0 ]\n\nEnd\n";
    assert!(m3d_format::read(t.as_bytes()).is_err());
    // A bone two levels below its parent.
    let t = "3dmodel 1\nn\nl\na\n\nVertex\n0 0 0 1\n0 0 0 1\n\nBones\n//0 1 b\n\nEnd\n";
    assert!(m3d_format::read(t.as_bytes()).is_err());
    // An unknown block is an error, as in m3d.h; the error names the line's offset.
    let t = "3dmodel 1\nn\nl\na\n\nTeapot\n\n";
    let e = m3d_format::read(t.as_bytes()).unwrap_err();
    let Error::Decode(d) = &e else { panic!("{e}") };
    assert_eq!(d.offset(), 17);
}

#[test]
fn many_frames_times_many_bones_do_not_blow_up_to_core() {
    // 300 bones (bi u16) and 20000 frames: 6M dense keys, over the cap; each frame moves one
    // bone, so the sparse fallback holds 20000 keys.
    let types = 0x03FF_CFC0 & !(3 << 10) & !(3 << 16) | (1 << 10) | (1 << 2); // vi u16, bi u16, fc u8
    let mut b = head(types)
        .bytes(b"VRTS", "magic")
        .u32_le(8 + 8, "one vertex")
        .bytes(
            &[0, 0, 0, 127, 0, 0, 0, 127],
            "two int8 vertices: pos and quaternion",
        )
        .bytes(b"BONE", "magic")
        .u32_le(8 + 2 + 300 * 7, "300 bones")
        .u16_le(300, "numbone");
    for i in 0..300u16 {
        let parent = if i == 0 { 0xFFFF } else { i - 1 };
        b = b
            .u16_le(parent, "parent")
            .u8(0, "name")
            .u16_le(0, "pos")
            .u16_le(1, "ori");
    }
    let frames = 20000u32;
    b = b
        .bytes(b"ACTN", "magic")
        .u32_le(8 + 1 + 2 + 4 + frames * (4 + 1 + 6), "length")
        .u8(0, "name")
        .u16_le(frames as u16, "numframe")
        .u32_le(frames, "duration");
    let mut body = Vec::new();
    for f in 0..frames {
        body.extend_from_slice(&f.to_le_bytes());
        body.push(1);
        body.extend_from_slice(&((f % 300) as u16).to_le_bytes());
        body.extend_from_slice(&0u16.to_le_bytes());
        body.extend_from_slice(&1u16.to_le_bytes());
    }
    let payload = b.bytes(&body, "frames").bytes(b"OMD3", "end").build();
    let f = m3d_format::read_payload(&payload, &ReadOptions::default()).unwrap();
    assert!(matches!(f.chunks[0].body, Body::Vrts(_)));
    let c = f.to_core().unwrap();
    let keys: usize = c.value.animations[0]
        .channels
        .iter()
        .map(|ch| ch.translation.times.len())
        .sum();
    assert_eq!(keys, frames as usize);
    assert!(
        c.losses
            .iter()
            .any(|l| l.reason.contains("too many frames"))
    );
}

#[test]
fn preview_and_uncompressed_files_round_trip_whole() {
    let payload = head(0x03FF_CFC0).bytes(b"OMD3", "end").build();
    let mut file = b"3DMO".to_vec();
    file.extend_from_slice(&(8 + 8 + 3 + payload.len() as u32).to_le_bytes());
    file.extend_from_slice(b"PRVW");
    file.extend_from_slice(&(8u32 + 3).to_le_bytes());
    file.extend_from_slice(b"png");
    file.extend_from_slice(&payload);
    assert_eq!(
        m3d_format::sniff_variant(&file),
        Some(m3d_format::Variant::Binary {
            compressed: false,
            preview: true
        })
    );
    let f = m3d_format::read(&file).unwrap();
    assert_eq!(f.preview.as_deref(), Some(&b"png"[..]));
    assert!(!f.compressed);
    // Uncompressed, the whole file comes back byte for byte.
    let out = f
        .write_with(&WriteOptions {
            compress: false,
            ..WriteOptions::default()
        })
        .unwrap();
    assert_eq!(out, file);
    let z = f.write().unwrap();
    assert_eq!(
        m3d_format::sniff_variant(&z),
        Some(m3d_format::Variant::Binary {
            compressed: true,
            preview: true
        })
    );
    assert_eq!(m3d_format::read(&z).unwrap().preview, f.preview);
}

#[test]
fn errors_in_a_compressed_payload_say_so() {
    let payload = head(0x03FF_CFC0)
        .bytes(b"MESH", "magic")
        .u32_le(8 + 2, "a cut triangle")
        .bytes(&[0x30, 0], "cut triangle")
        .bytes(b"OMD3", "end")
        .build();
    let z = miniz_oxide::deflate::compress_to_vec_zlib(&payload, 6);
    let mut file = b"3DMO".to_vec();
    file.extend_from_slice(&(z.len() as u32 + 8).to_le_bytes());
    file.extend_from_slice(&z);
    let e = m3d_format::read(&file).unwrap_err();
    let Error::Payload(d) = &e else { panic!("{e}") };
    assert_eq!(d.offset(), 21 + 8 + 2);
    assert_eq!(d.path(), "MESH[0].record[0].corner[1].vertex");
    assert!(
        e.to_string()
            .ends_with("(offset within the inflated payload)"),
        "{e}"
    );
}

/// A text `Voxel` block of one row of `w` voxels keeps them as literal runs of at most
/// 128 (a block of up to 128 as the list read, longer ones cut), and loads as a row of
/// solid cubes: every voxel shows its four sides around the row (all eight corners),
/// the two row ends one side more, so 8w corners plus the six axis normals, and two
/// triangles for each of the 4w + 2 sides.
#[test]
fn ascii_voxel_rows_keep_their_voxels_and_mesh_as_cubes() {
    for w in [1usize, 2, 127, 128, 129, 300] {
        let row: Vec<String> = (0..w).map(|i| (i % 3).to_string()).collect();
        let t = format!(
            "3dmodel 1\nn\nl\na\n\nVoxTypes\n#ff0000ff\n#ff00ff00\n#ffff0000\n\nVoxel\ndim {w} 1 1\nlayer\n{}\n\nEnd\n",
            row.join(" ")
        );
        let f = m3d_format::read(t.as_bytes()).unwrap();
        let block = f
            .chunks
            .iter()
            .find_map(|c| match &c.body {
                Body::Voxd(b) => Some(b),
                _ => None,
            })
            .unwrap();
        let mut coded = Vec::new();
        for r in &block.runs {
            let m3d_format::Run::Literal(v) = r else {
                panic!("w {w}: {r:?}")
            };
            assert!((1..=128).contains(&v.len()), "w {w}: a run of {}", v.len());
            coded.extend_from_slice(v);
        }
        let expected: Vec<Idx> = (0..w).map(|i| Idx((i % 3) as u32)).collect();
        assert_eq!(coded, expected, "w {w}");
        assert_eq!(block.runs.len(), w.div_ceil(128), "w {w}");
        let l = f.load(&m3d_format::LoadOptions::default()).unwrap();
        assert_eq!(l.vertices.len(), 8 * w + 6, "w {w}");
        assert_eq!(l.faces.len(), 2 * (4 * w + 2), "w {w}");
        assert_eq!(
            l,
            m3d_format::load(t.as_bytes(), &Default::default()).unwrap()
        );
    }
}

/// A text `Voxel` block holds its `dim`'s voxels: rows past them, or any row of a block
/// without a `dim` line, are not part of it, as a binary block's runs end at its voxel
/// count; the binary form of the file then reads back the same.
#[test]
fn ascii_voxel_blocks_keep_only_the_voxels_their_dim_holds() {
    for (dim, rows, kept) in [
        ("dim 2 1 1\n", "layer\n0 1 0 1\n", 2usize),
        ("dim 1 1 2\n", "layer\n1\nlayer\n0\nlayer\n1\n", 2),
        ("", "0\n. . .\n", 0),
    ] {
        let t = format!(
            "3dmodel 1\nn\nl\na\n\nVoxTypes\n#ff0000ff\n#ff00ff00\n\nVoxel\n{dim}{rows}\nEnd\n"
        );
        let f = m3d_format::read(t.as_bytes()).unwrap();
        assert_eq!(literal_voxels(&f).len(), kept, "{dim:?} {rows:?}");
        let binary = m3d_format::read(&f.write().unwrap()).unwrap();
        assert_eq!(binary.chunks, f.chunks, "{dim:?} {rows:?}");
    }
}

/// The voxels of every block of `f`, in order: text blocks are read as literal runs.
fn literal_voxels(f: &m3d_format::File) -> Vec<Idx> {
    (f.chunks.iter())
        .filter_map(|c| match &c.body {
            Body::Voxd(b) => Some(b.runs.iter().flat_map(|r| match r {
                m3d_format::Run::Literal(v) => v.clone(),
                other => panic!("{other:?}"),
            })),
            _ => None,
        })
        .flatten()
        .collect()
}

/// Voxel rows read the same values whichever way they are written: plain (`.` and
/// short decimals, which the reader takes from the bytes) or in the forms only the
/// general token path reads (`-1`, ten digits, Unicode white space); a bad token is an
/// error naming its line's offset either way.
#[test]
fn ascii_voxel_rows_read_the_same_in_every_form() {
    let u = Idx::UNDEF;
    let file = |rows: &str| {
        format!(
            "3dmodel 1\nn\nl\na\n\nVoxTypes\n#ff0000ff\n\nVoxel\ndim 5 1 1\nlayer\n{rows}\n\nEnd\n"
        )
    };
    let voxels = |rows: &str| literal_voxels(&m3d_format::read(file(rows).as_bytes()).unwrap());
    let want = vec![Idx(1), u, Idx(2), Idx(3), Idx(456_789_012)];
    for rows in [
        "1 . 2 3 456789012",
        "  1\t.  2\x0b3\x0c456789012 ",
        "1 . 2\n3 456789012",
        "1 -1 2 0000000003 456789012",
        "1\u{a0}.\u{2003}2 3 456789012",
        "+1 . 2 3 456789012",
    ] {
        assert_eq!(voxels(rows), want, "{rows:?}");
    }
    assert_eq!(voxels("- . 0 . 0")[0], Idx::MAX);
    for bad in ["1 . x 3 4", "1 . 2 3 4294967295", "1 . 2 3 99999999999"] {
        let t = file(bad);
        let e = m3d_format::read(t.as_bytes()).unwrap_err();
        let Error::Decode(d) = &e else { panic!("{e}") };
        assert_eq!(d.offset(), t.find(bad).unwrap() as u64, "{bad:?}: {e}");
    }
}

/// A voxel type written as a colour alone reads as the same type written out in full
/// (`/rotation/shape`, `-` for no name), and a colour that is not hex is an error either
/// way.
#[test]
fn ascii_voxel_type_colour_alone_is_the_full_form() {
    let types = |lines: &str| {
        let t = format!("3dmodel 1\nn\nl\na\n\nVoxTypes\n{lines}\n\nEnd\n");
        let f = m3d_format::read(t.as_bytes())?;
        Ok::<_, Error>(
            f.chunks
                .iter()
                .find_map(|c| match &c.body {
                    Body::Voxt(v) => Some(v.clone()),
                    _ => None,
                })
                .unwrap(),
        )
    };
    let short = types("#ff743f3f\n#80ffffff").unwrap();
    let long = types("#ff743f3f/0/0 -\n#80ffffff/0/0").unwrap();
    assert_eq!(short, long);
    assert_eq!(short.len(), 2);
    assert!(types("#ff74zz3f").is_err());
    assert!(types("#").is_err());
    // Hex that does not fit 32 bits: an error on the short form's path too.
    assert!(types("#1ffffffff").is_err());
    assert!(types("#1ffffffff/0/0 -").is_err());
}

/// A text row of 100,000 voxels in a form only the general token path reads (`-1` for
/// empty) would make a token list of 2.4 MB (room for one token per two bytes): under a
/// 1 MiB budget it is refused for that list, before the list is made (its 800 kB of
/// voxels alone would fit). The same row written plain (`0`) is read from its bytes,
/// with no token list, and fits.
#[test]
fn a_long_ascii_row_is_refused_before_its_token_list_is_made() {
    let text = |row: String| {
        format!(
            "3dmodel 1\nn\nl\na\n\nVoxTypes\n#ff0000ff\n\nVoxel\ndim 100000 1 1\nlayer\n{row}\n\nEnd\n"
        )
    };
    let opts = ReadOptions {
        budget: m3d_format::Budget::new(Limits {
            max_alloc_bytes: 1 << 20,
            ..Limits::DEFAULT
        }),
    };
    let t = text("-1 ".repeat(100_000));
    let e = m3d_format::read_with(t.as_bytes(), &opts).unwrap_err();
    assert!(e.to_string().contains("tokens"), "{e}");
    // With room for the list, the row reads.
    let f = m3d_format::read(t.as_bytes()).unwrap();
    assert_eq!(f.counts().voxel_blocks, 1);
    let f = m3d_format::read_with(text("0 ".repeat(100_000)).as_bytes(), &opts).unwrap();
    assert_eq!(f.counts().voxel_blocks, 1);
}

/// A text vertex may name 8 bones, not 9.
#[test]
fn an_ascii_vertex_names_at_most_eight_bones() {
    let text = |bones: usize| {
        let skin: Vec<String> = (0..bones).map(|b| format!("{b}:0.1")).collect();
        format!(
            "3dmodel 1\nn\nl\na\n\nVertex\n0 0 0 1 {}\n\nEnd\n",
            skin.join(" ")
        )
    };
    assert!(m3d_format::read(text(8).as_bytes()).is_ok());
    let e = m3d_format::read(text(9).as_bytes()).unwrap_err();
    assert!(e.to_string().contains("more than 8 bones"), "{e}");
}
