//! `WriteOptions::narrow`: a file written again at the narrowest fields and a chosen
//! coordinate precision, as m3d_save writes a model. Expected values are worked out by
//! hand from the text given (the samples are checked in load.rs).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use m3d_format::{Body, Coord, Error, File, MeshRecord, Precision, WriteOptions, read};

const HEAD: &str = "3dmodel 1\ntriangle\nMIT\nme\n\n\n";

fn text(vertices: &str, mesh: &str) -> Vec<u8> {
    format!("{HEAD}Vertex\n{vertices}\nMesh\n{mesh}\nEnd\n").into_bytes()
}

/// The corners' vertex indices of a file's meshes.
fn corners(f: &File) -> Vec<u32> {
    let mut out = Vec::new();
    for c in &f.chunks {
        if let Body::Mesh(m) = &c.body {
            for r in &m.records {
                if let MeshRecord::Polygon { corners, .. } = r {
                    out.extend(corners.iter().map(|c| c.vertex.0));
                }
            }
        }
    }
    out
}

#[test]
fn an_index_past_its_list_keeps_the_field_wide_enough_for_it() {
    // Three vertices call for one-byte indices, but a corner names vertex 300.
    let f = read(&text("0 0 0 1\n1 0 0 1\n0 1 0 1\n", "0 1 300\n")).unwrap();
    let narrow = WriteOptions {
        narrow: true,
        ..WriteOptions::default()
    };
    let back = read(&f.write_with(&narrow).unwrap()).unwrap();
    assert_eq!((back.types.vi(), back.types.vc()), (4, 4));
    assert_eq!(corners(&back), [0, 1, 300]);
    // Within the list, the same text narrows to one byte and drops the unused colour
    // and skin fields.
    let f = read(&text("0 0 0 1\n1 0 0 1\n0 1 0 1\n", "0 1 2\n")).unwrap();
    let back = read(&f.write_with(&narrow).unwrap()).unwrap();
    assert_eq!(
        (back.types.vi(), back.types.ci(), back.types.sk()),
        (1, 0, 0)
    );
    assert_eq!(corners(&back), [0, 1, 2]);
    // Without narrowing the text's own widths stay: f64 and u32.
    let kept = read(&f.write().unwrap()).unwrap();
    assert_eq!((kept.types.vi(), kept.types.vc()), (4, 8));
}

#[test]
fn colours_and_coordinates_survive_or_refuse_to_be_written() {
    // A literal colour keeps the colour field; 0.5 and -1 are exact in every width but
    // int8, where 0.5 is 64/127.
    let f = read(&text("0.5 0 -1 1 #ff0000ff\n1 0 0 1\n0 1 0 1\n", "0 1 2\n")).unwrap();
    for p in [Precision::Int8, Precision::Int16, Precision::Float] {
        let o = WriteOptions {
            narrow: true,
            precision: p,
            ..WriteOptions::default()
        };
        let back = read(&f.write_with(&o).unwrap()).unwrap();
        assert_eq!(back.types.ci(), 4, "{p:?}");
        let v = back.vertices();
        assert_eq!(back.rgba(v[0].color), 0xff00_00ff, "{p:?}");
        let x = v[0].coords.map(Coord::signed);
        assert!(
            (x[0] - 0.5).abs() <= 0.5 / 127.0 && x[2] == -1.0,
            "{p:?}: {x:?}"
        );
    }
    // 2 lies outside what int8 and int16 hold (positions are normalised): refused, not
    // clamped; f32 takes it.
    let f = read(&text("2 0 0 1\n1 0 0 1\n0 1 0 1\n", "0 1 2\n")).unwrap();
    for p in [Precision::Int8, Precision::Int16] {
        let o = WriteOptions {
            narrow: true,
            precision: p,
            ..WriteOptions::default()
        };
        assert!(matches!(f.write_with(&o), Err(Error::Invalid(_))), "{p:?}");
    }
    let back = read(
        &f.write_with(&WriteOptions {
            narrow: true,
            ..WriteOptions::default()
        })
        .unwrap(),
    )
    .unwrap();
    assert_eq!(back.vertices()[0].coords[0], Coord::F32(2.0));
}

/// The vertex list of a file read from text, for editing.
fn vertices_mut(f: &mut File) -> &mut Vec<m3d_format::Vertex> {
    f.chunks
        .iter_mut()
        .find_map(|c| match &mut c.body {
            Body::Vrts(v) => Some(&mut v.items),
            _ => None,
        })
        .unwrap()
}

#[test]
fn narrowing_never_widens_a_field_nor_touches_a_value_stored_at_its_width() {
    // 300 vertices would call for two-byte indices, but the file stores one-byte ones
    // and every corner fits them: they stay one byte.
    let vertices: String = (0..300)
        .map(|i| format!("{} 0 0 1\n", i as f64 / 300.0))
        .collect();
    let mut f = read(&text(&vertices, "0 1 2\n")).unwrap();
    f.types = m3d_format::Types(f.types.0 & !(3 << 2)); // vi: one byte
    let back = read(&f.write().unwrap()).unwrap();
    assert_eq!(back.types.vi(), 1);
    let narrow = WriteOptions {
        narrow: true,
        ..WriteOptions::default()
    };
    let back = read(&f.write_with(&narrow).unwrap()).unwrap();
    assert_eq!(back.types.vi(), 1);
    assert_eq!(back.vertices().len(), 300);
    // int8 -128 (-1.0079, just past -1) stored in an int8 file stays as it is when the
    // file is narrowed at its own precision.
    let mut f = read(&text("0 0 0 1\n1 0 0 1\n0 1 0 1\n", "0 1 2\n")).unwrap();
    f.types = m3d_format::Types(f.types.0 & !3); // vc: int8
    for v in vertices_mut(&mut f) {
        v.coords = v.coords.map(|c| Coord::I8((c.signed() * 127.0) as i8));
    }
    vertices_mut(&mut f)[0].coords[0] = Coord::I8(-128);
    let o = WriteOptions {
        precision: Precision::Int8,
        ..narrow.clone()
    };
    let back = read(&f.write_with(&o).unwrap()).unwrap();
    assert_eq!(back.vertices()[0].coords[0], Coord::I8(-128));
    assert_eq!(back.vertices()[1].coords[0], Coord::I8(127));
}

#[test]
fn a_chunk_kept_as_raw_bytes_refuses_narrowing() {
    let mut f = read(&text("0 0 0 1\n1 0 0 1\n0 1 0 1\n", "0 1 2\n")).unwrap();
    let mut c = f.chunks[0].clone();
    c.body = Body::Extra {
        magic: *b"XTRA",
        data: vec![1, 2, 3],
    };
    f.chunks.push(c);
    assert!(f.write().is_ok());
    let narrow = WriteOptions {
        narrow: true,
        ..WriteOptions::default()
    };
    assert!(matches!(f.write_with(&narrow), Err(Error::Invalid(m)) if m.contains("XTRA")));
}

/// A texture coordinate outside 0..1 is refused at int8 and int16 (quantized UVs are
/// unsigned) and kept at f32; bytes after a chunk's records are dropped by a narrowed
/// write, as m3d_save writes none, and kept by the faithful one.
#[test]
fn texture_coordinates_past_one_refuse_quantizing_and_tails_are_dropped() {
    let t = format!(
        "{HEAD}Textmap\n0 4\n\nVertex\n0 0 0 1\n1 0 0 1\n0 1 0 1\n\nMesh\n0/0 1/0 2/0\n\nEnd\n"
    );
    let f = read(t.as_bytes()).unwrap();
    for p in [Precision::Int8, Precision::Int16] {
        let o = WriteOptions {
            narrow: true,
            precision: p,
            ..WriteOptions::default()
        };
        assert!(
            matches!(f.write_with(&o), Err(Error::Invalid(m)) if m.contains("TMAP")),
            "{p:?}"
        );
    }
    let narrow = WriteOptions {
        narrow: true,
        ..WriteOptions::default()
    };
    let back = read(&f.write_with(&narrow).unwrap()).unwrap();
    let uv = back.chunks.iter().find_map(|c| match &c.body {
        Body::Tmap(m) => m.items.first().copied(),
        _ => None,
    });
    assert_eq!(uv, Some([Coord::F32(0.0), Coord::F32(4.0)]));

    // Three bytes after the last vertex record: a partial record, kept as the records'
    // tail.
    let vrts_tail = |f: &File| {
        f.chunks.iter().find_map(|c| match &c.body {
            Body::Vrts(v) => Some(v.tail.clone()),
            _ => None,
        })
    };
    let mut f = read(&text("0 0 0 1\n1 0 0 1\n0 1 0 1\n", "0 1 2\n")).unwrap();
    for c in &mut f.chunks {
        if let Body::Vrts(v) = &mut c.body {
            v.tail = vec![7, 7, 7];
        }
    }
    let kept = read(&f.write().unwrap()).unwrap();
    assert_eq!(vrts_tail(&kept), Some(vec![7, 7, 7]));
    let back = read(&f.write_with(&narrow).unwrap()).unwrap();
    assert_eq!(vrts_tail(&back), Some(vec![]));
    assert_eq!(back.counts(), f.counts());
}
