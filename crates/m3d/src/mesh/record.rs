//! The MESH record: a magic byte (corner count and flags), then a name or each
//! corner's index fields. One decoder for the faithful reader (its unchecked fast
//! path and its checked reread) and the one-pass load (widths as constants), and the
//! size the record counts and the load step by.

use super::Corner;
use crate::types::{Fields, Idx, Str, Types};

/// The index widths a record is read with: the header's, or constants the one-pass
/// load picks once per chunk.
pub(crate) trait Widths: Copy {
    /// Vertex index bytes.
    fn vi(self) -> usize;
    /// Texture-map index bytes (0: absent).
    fn ti(self) -> usize;
    /// String offset bytes.
    fn si(self) -> usize;
}

impl Widths for Types {
    #[inline(always)]
    fn vi(self) -> usize {
        Types::vi(self)
    }
    #[inline(always)]
    fn ti(self) -> usize {
        Types::ti(self)
    }
    #[inline(always)]
    fn si(self) -> usize {
        Types::si(self)
    }
}

/// Vertex and texture-map index widths as constants, so a record's fields decode
/// without a width test each (the string width, read once a chunk, as it is).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fixed<const VI: usize, const TI: usize> {
    /// String offset bytes.
    pub si: usize,
}

impl<const VI: usize, const TI: usize> Widths for Fixed<VI, TI> {
    #[inline(always)]
    fn vi(self) -> usize {
        VI
    }
    #[inline(always)]
    fn ti(self) -> usize {
        TI
    }
    #[inline(always)]
    fn si(self) -> usize {
        self.si
    }
}

/// A record's first byte: its corner count (the high nibble; 0 for a use-material or
/// use-parameter record) and its flags (the low nibble).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Magic(pub u8);

impl Magic {
    /// Corners (0: a name follows instead).
    #[inline(always)]
    pub(crate) fn corners(self) -> usize {
        usize::from(self.0 >> 4)
    }

    /// 1 UV, 2 normal, 4 maximum vertex, 8 reserved; for a name record, 0 is a
    /// material and anything else a parameter.
    #[inline(always)]
    pub(crate) fn flags(self) -> u8 {
        self.0 & 15
    }

    /// The bytes after the magic: the name, or per corner the vertex and the fields
    /// the flags ask for. An absent index type takes no bytes even when its flag is
    /// set (WusonBlitz files: the UV flag with ti absent).
    #[inline(always)]
    pub(crate) fn body_size(self, w: impl Widths) -> usize {
        let flags = self.flags();
        let corner = w.vi()
            + usize::from(flags & 1) * w.ti()
            + usize::from(flags & 2 != 0) * w.vi()
            + usize::from(flags & 4 != 0) * w.vi();
        match self.corners() {
            0 => w.si(),
            n => n * corner,
        }
    }
}

/// What one record holds; a polygon's corners are in the buffer [`decode`] was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Record {
    /// Use this material from now on (`Str(0)`: none).
    Material(Str),
    /// Use a parameter (flags 1..=15).
    Parameter {
        /// The magic's low nibble.
        flags: u8,
        /// The parameter's name.
        name: Str,
    },
    /// A polygon of `n` (1..=15) corners: the first `n` of the buffer.
    Polygon {
        /// The magic's low nibble.
        flags: u8,
        /// Its corners.
        n: usize,
    },
}

/// One record from `c` at widths `w`, its corners written to the front of `corners`
/// (a buffer the caller keeps from record to record). The checked reader names a
/// failing field `name`, or `corner[k]` and `vertex`, `uv`, `normal` or `max`.
#[inline(always)]
pub(crate) fn decode<F: Fields, W: Widths>(
    c: &mut F,
    w: W,
    corners: &mut [Corner; 15],
) -> Result<Record, F::Error> {
    let m = Magic(c.u8()?);
    let (n, flags) = (m.corners(), m.flags());
    if n == 0 {
        let name = c.field("name", |c| c.raw(w.si()).map(Str))?;
        return Ok(match flags {
            0 => Record::Material(name),
            flags => Record::Parameter { flags, name },
        });
    }
    for (k, slot) in corners.iter_mut().take(n).enumerate() {
        *slot = c.field("corner", |c| {
            c.item(k, |c| {
                let mut corner = Corner {
                    vertex: c.field("vertex", |c| c.idx(w.vi()))?,
                    uv: Idx::UNDEF,
                    normal: Idx::UNDEF,
                    max: Idx::UNDEF,
                };
                if flags & 1 != 0 {
                    corner.uv = c.field("uv", |c| c.idx(w.ti()))?;
                }
                if flags & 2 != 0 {
                    corner.normal = c.field("normal", |c| c.idx(w.vi()))?;
                }
                if flags & 4 != 0 {
                    corner.max = c.field("max", |c| c.idx(w.vi()))?;
                }
                Ok(corner)
            })
        })?;
    }
    Ok(Record::Polygon { flags, n })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::NO_CORNER;
    use crate::types::Cur;
    use parsing_primitives::Reader;
    use test_support::ByteBuilder;

    /// vi u8, si u8, ci absent, ti u16, the rest absent.
    const T: Types = Types((3 << 6) | (1 << 8) | (0xFFFF << 10));

    fn corner(vertex: Idx, uv: Idx, normal: Idx, max: Idx) -> Corner {
        Corner {
            vertex,
            uv,
            normal,
            max,
        }
    }

    fn records() -> ByteBuilder {
        ByteBuilder::new()
            .u8(0x00, "use material")
            .u8(5, "name: offset 5")
            .u8(0x03, "use parameter, flags 3")
            .u8(9, "name: offset 9")
            .u8(0x37, "3 corners; uv, normal, max")
            .u8(0, "corner 0 vertex")
            .u16_le(0xFFFF, "uv -1")
            .u8(1, "normal")
            .u8(0xFF, "max -1")
            .u8(0xFE, "corner 1 vertex -2")
            .u16_le(0xFFFE, "uv -2")
            .u8(2, "normal")
            .u8(3, "max")
            .u8(4, "corner 2 vertex")
            .u16_le(0x1234, "uv")
            .u8(0xFD, "normal 253")
            .u8(5, "max")
            .u8(0x30, "3 corners, no flags")
            .u8(6, "vertex")
            .u8(7, "vertex")
            .u8(8, "vertex")
    }

    fn expected() -> [(Record, Vec<Corner>); 4] {
        let u = Idx::UNDEF;
        [
            (Record::Material(Str(5)), vec![]),
            (
                Record::Parameter {
                    flags: 3,
                    name: Str(9),
                },
                vec![],
            ),
            (
                Record::Polygon { flags: 7, n: 3 },
                vec![
                    corner(Idx(0), u, Idx(1), u),
                    corner(Idx::MAX, Idx::MAX, Idx(2), Idx(3)),
                    corner(Idx(4), Idx(0x1234), Idx(253), Idx(5)),
                ],
            ),
            (
                Record::Polygon { flags: 0, n: 3 },
                vec![
                    corner(Idx(6), u, u, u),
                    corner(Idx(7), u, u, u),
                    corner(Idx(8), u, u, u),
                ],
            ),
        ]
    }

    /// Every record, through `decode` over `c`.
    fn all<F: Fields, W: Widths>(c: &mut F, w: W) -> Vec<(Record, Vec<Corner>)>
    where
        F::Error: std::fmt::Debug,
    {
        let mut buf = [NO_CORNER; 15];
        (0..4)
            .map(|_| {
                let rec = match decode(c, w, &mut buf) {
                    Ok(rec) => rec,
                    Err(e) => panic!("the hand-built records decode: {e:?}"),
                };
                let n = match rec {
                    Record::Polygon { n, .. } => n,
                    _ => 0,
                };
                (rec, buf[..n].to_vec())
            })
            .collect()
    }

    #[test]
    fn each_cursor_and_width_decodes_the_records_alike() {
        let b = records().build();
        let want = expected();
        let mut c = Cur::new(&b);
        assert_eq!(all(&mut c, T), want, "{}", records().listing());
        assert!(c.rest().is_empty());
        assert_eq!(all(&mut Cur::new(&b), Fixed::<1, 2> { si: 1 }), want);
        let mut r = Reader::new("m3d", &b);
        assert_eq!(all(&mut r, T), want);
        assert!(r.is_empty());
    }

    #[test]
    fn sizes_follow_the_flags_and_widths() {
        let sizes = [0x00, 0x03, 0x37, 0x30].map(|m| Magic(m).body_size(T));
        assert_eq!(sizes, [1, 1, 15, 3]);
        assert_eq!(Magic(0x37).body_size(Fixed::<1, 2> { si: 1 }), 15);
        assert_eq!(
            Magic(0xF5).body_size(Fixed::<4, 4> { si: 4 }),
            15 * (4 + 4 + 4)
        );
        assert_eq!(Magic(0x00).body_size(Fixed::<4, 4> { si: 2 }), 2);
        // Flag 8 is reserved: no field.
        assert_eq!(Magic(0x38).body_size(T), 3);
    }

    /// WusonBlitz files: the UV flag set with ti absent; the UV takes no bytes.
    #[test]
    fn an_absent_index_type_takes_no_bytes() {
        let t = Types(T.0 | (3 << 8));
        let b = ByteBuilder::new()
            .u8(0x31, "3 corners, uv flag")
            .bytes(&[1, 2, 3], "vertices")
            .build();
        assert_eq!(Magic(0x31).body_size(t), 3);
        let mut buf = [NO_CORNER; 15];
        let rec = decode(&mut Cur::new(&b), t, &mut buf);
        assert_eq!(rec, Ok(Record::Polygon { flags: 1, n: 3 }));
        assert_eq!(buf[2], corner(Idx(3), Idx::UNDEF, Idx::UNDEF, Idx::UNDEF));
    }

    #[test]
    fn a_cut_record_names_its_field_and_offset() {
        let b = ByteBuilder::new()
            .u8(0x37, "3 corners; uv, normal, max")
            .bytes(&[0, 0xFF, 0xFF, 1, 0xFF], "corner 0")
            .u8(0xFE, "corner 1 vertex")
            .u16_le(0xFFFE, "uv")
            .build();
        let mut buf = [NO_CORNER; 15];
        assert_eq!(
            decode(&mut Cur::new(&b), T, &mut buf),
            Err(crate::types::Declined)
        );
        let mut r = Reader::new("m3d", &b);
        let e = r.field("record", |r| r.item(0, |r| decode(r, T, &mut buf)));
        let e = e.err().map(|e| (e.path().to_string(), e.offset()));
        assert_eq!(e, Some(("record[0].corner[1].normal".to_string(), 9)));
        // A name cut short.
        let t = Types(T.0 | (1 << 4));
        let b = [0x00, 0x05];
        let mut r = Reader::new("m3d", &b);
        let e = r.item(0, |r| decode(r, t, &mut buf));
        let e = e.err().map(|e| (e.path().to_string(), e.offset()));
        assert_eq!(e, Some(("[0].name".to_string(), 1)));
    }
}
