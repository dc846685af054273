//! Choosing a binary file's field widths as m3d_save does: every index as narrow as its
//! list's length allows, coordinates at a chosen precision. [`File::from_core`] builds
//! files this way; [`WriteOptions::narrow`] writes any file this way (an ASCII file,
//! read with the widest fields, then saves as compact a binary as m3d.h's).
//!
//! [`File::from_core`]: crate::File::from_core
//! [`WriteOptions::narrow`]: crate::WriteOptions::narrow

use crate::file::{Body, File, Precision};
use crate::types::{Coord, Types};

/// `f`'s types with index fields as narrow as the counts allow, as real files have
/// them: 1 byte up to 254 entries (255 and 254 are m3d.h's -1 and -2), 2 bytes up to
/// 65,534, else 4. Absent fields stay absent. A stored index past its list may then not
/// fit: the writer refuses it.
pub(crate) fn narrow_types(f: &File) -> Types {
    let width = |count: usize| -> u32 {
        match count {
            0..=254 => 0,
            255..=65534 => 1,
            _ => 2,
        }
    };
    let (mut tmap, mut vertices, mut bones, mut skins, mut per_frame) = (0, 0, 0, 0, 0);
    for c in &f.chunks {
        match &c.body {
            Body::Tmap(t) => tmap = t.items.len(),
            Body::Vrts(v) => vertices = v.items.len(),
            Body::Bone(s) => (bones, skins) = (s.bones.len(), s.skins.len()),
            Body::Actn(a) => {
                per_frame = a
                    .frames
                    .iter()
                    .map(|fr| fr.transforms.len())
                    .fold(per_frame, usize::max);
            }
            _ => {}
        }
    }
    let mut t = f.types.0;
    let mut set = |shift: u32, code: u32| {
        if (t >> shift) & 3 != 3 {
            t = (t & !(3 << shift)) | (code << shift);
        }
    };
    set(2, width(vertices));
    set(4, width(f.strings.len()));
    set(8, width(tmap));
    set(10, width(bones));
    set(14, width(skins));
    set(16, width(per_frame));
    Types(t)
}

/// `t` with the colour field absent when there is no CMAP, and the bone and skin index
/// fields absent when there is no BONE chunk, as m3d_save leaves fields nothing uses.
/// A guess the writer checks: an absent field holds only its "none" value (colour 0,
/// index -1), and anything else refuses to be written (see [`Out::convert`]).
///
/// [`Out::convert`]: crate::types::Out
pub(crate) fn without_unused(t: Types, f: &File) -> Types {
    let has = |magic: &[u8; 4]| f.chunks.iter().any(|c| &c.magic() == magic);
    let mut t = t.0;
    if !has(b"CMAP") {
        t |= 3 << 6;
    }
    if !has(b"BONE") {
        t |= (3 << 10) | (3 << 14);
    }
    Types(t)
}

/// `t` with `vc_t` set to `precision`.
pub(crate) fn with_precision(t: Types, precision: Precision) -> Types {
    let code = match precision {
        Precision::Int8 => 0,
        Precision::Int16 => 1,
        Precision::Float => 2,
        Precision::Double => 3,
    };
    Types((t.0 & !3) | code)
}

/// A vertex (or shape) coordinate stored `width` bytes wide, m3d.h's way (int8 `v *
/// 127`, int16 `v * 32767`, rounded), and whether it lay outside -1..1 and was clamped.
pub(crate) fn signed(c: Coord, width: usize) -> (Coord, bool) {
    let v = c.signed();
    let out = !(-1.0..=1.0).contains(&v);
    let q = |steps: f64| (v * steps).round().clamp(-steps, steps);
    match width {
        1 => (Coord::I8(q(127.0) as i8), out),
        2 => (Coord::I16(q(32767.0) as i16), out),
        4 => (Coord::F32(v as f32), false),
        _ => (Coord::F64(v), false),
    }
}

/// A texture coordinate stored `width` bytes wide (int8 and int16 are unsigned, `v *
/// 255`, `v * 65535`), and whether it lay outside 0..1 and was clamped.
pub(crate) fn unsigned(c: Coord, width: usize) -> (Coord, bool) {
    let v = c.unsigned();
    let out = !(0.0..=1.0).contains(&v);
    let q = |steps: f64| (v * steps).round().clamp(0.0, steps);
    match width {
        1 => (Coord::I8(q(255.0) as u8 as i8), out),
        2 => (Coord::I16(q(65535.0) as u16 as i16), out),
        4 => (Coord::F32(v as f32), false),
        _ => (Coord::F64(v), false),
    }
}

/// What [`store_coordinates`] found.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stored {
    /// Some TMAP record was stored.
    pub any_uv: bool,
    /// A texture coordinate outside 0..1 was clamped (quantized UVs are unsigned).
    pub uv_clamped: bool,
}

/// Stores every VRTS and TMAP coordinate of `f` at `precision` ([`signed`],
/// [`unsigned`]) and sets `vc_t` to match; nothing changes when the file already has
/// that width.
pub(crate) fn store_coordinates(f: &mut File, precision: Precision) -> Stored {
    let t = with_precision(f.types, precision);
    let mut stored = Stored {
        any_uv: f.chunks.iter().any(|c| matches!(c.body, Body::Tmap(_))),
        uv_clamped: false,
    };
    if t == f.types {
        return stored;
    }
    f.types = t;
    let width = t.vc();
    for c in &mut f.chunks {
        match &mut c.body {
            Body::Vrts(v) => {
                for x in v.items.iter_mut().flat_map(|v| &mut v.coords) {
                    *x = signed(*x, width).0;
                }
            }
            Body::Tmap(m) => {
                for x in m.items.iter_mut().flatten() {
                    let (q, clamped) = unsigned(*x, width);
                    *x = q;
                    stored.uv_clamped |= clamped;
                }
            }
            _ => {}
        }
    }
    stored
}

#[cfg(test)]
mod tests {
    use crate::{Body, Coord, Error, MeshRecord, Precision, WriteOptions, read};

    const HEAD: &str = "3dmodel 1\ntriangle\nMIT\nme\n\n\n";

    fn text(vertices: &str, mesh: &str) -> Vec<u8> {
        format!("{HEAD}Vertex\n{vertices}\nMesh\n{mesh}\nEnd\n").into_bytes()
    }

    /// The corners' vertex indices of a file's meshes.
    fn corners(f: &crate::File) -> Vec<u32> {
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
    fn an_index_past_its_list_keeps_the_field_wide_enough_for_it() -> Result<(), Error> {
        // Three vertices call for one-byte indices, but a corner names vertex 300.
        let f = read(&text("0 0 0 1\n1 0 0 1\n0 1 0 1\n", "0 1 300\n"))?;
        let narrow = WriteOptions::default().with_narrow(true);
        let back = read(&f.write_with(&narrow)?)?;
        assert_eq!((back.types.vi(), back.types.vc()), (4, 4));
        assert_eq!(corners(&back), [0, 1, 300]);
        // Within the list, the same text narrows to one byte and drops the unused
        // colour and skin fields.
        let f = read(&text("0 0 0 1\n1 0 0 1\n0 1 0 1\n", "0 1 2\n"))?;
        let back = read(&f.write_with(&narrow)?)?;
        assert_eq!(
            (back.types.vi(), back.types.ci(), back.types.sk()),
            (1, 0, 0)
        );
        assert_eq!(corners(&back), [0, 1, 2]);
        Ok(())
    }

    #[test]
    fn colours_and_coordinates_survive_or_refuse_to_be_written() -> Result<(), Error> {
        // A literal colour keeps the colour field; 0.5 and -1 are exact in every width.
        let f = read(&text("0.5 0 -1 1 #ff0000ff\n1 0 0 1\n0 1 0 1\n", "0 1 2\n"))?;
        for p in [Precision::Int8, Precision::Int16, Precision::Float] {
            let o = WriteOptions::default().with_narrow(true).with_precision(p);
            let back = read(&f.write_with(&o)?)?;
            assert_eq!(back.types.ci(), 4, "{p:?}");
            let v = back.vertices();
            assert_eq!(back.rgba(v[0].color), 0xff00_00ff, "{p:?}");
            let x = v[0].coords.map(Coord::signed);
            assert!(
                (x[0] - 0.5).abs() <= 0.5 / 127.0 && x[2] == -1.0,
                "{p:?}: {x:?}"
            );
        }
        // 2 lies outside what int8 and int16 hold (positions are normalised): refused,
        // not clamped; f32 takes it.
        let f = read(&text("2 0 0 1\n1 0 0 1\n0 1 0 1\n", "0 1 2\n"))?;
        for p in [Precision::Int8, Precision::Int16] {
            let o = WriteOptions::default().with_narrow(true).with_precision(p);
            assert!(matches!(f.write_with(&o), Err(Error::Invalid(_))), "{p:?}");
        }
        let back = read(&f.write_with(&WriteOptions::default().with_narrow(true))?)?;
        assert_eq!(back.vertices()[0].coords[0], Coord::F32(2.0));
        Ok(())
    }
}
