//! The VRTS, TMAP and CMAP records: their sizes and one decoder each, over a cursor
//! holding one whole record, for the faithful reader and the one-pass load alike.
//! Coordinates take the width `W` as a constant ([`with_vc!`]), chosen once a chunk.

use crate::types::{Coord, Cur, Declined, Fields, Types, Vertex};

/// Bytes of one VRTS record: x, y, z, w, the colour and the skin field.
pub(crate) fn vertex_size(t: Types) -> usize {
    4 * t.vc() + t.ci() + t.sk()
}

/// Bytes of one TMAP record: u, v.
pub(crate) fn uv_size(t: Types) -> usize {
    2 * t.vc()
}

/// Bytes of one CMAP record: RGBA.
pub(crate) const COLOUR_SIZE: usize = 4;

/// One VRTS record of `W`-byte coordinates.
#[inline(always)]
pub(crate) fn vertex<const W: usize>(c: &mut Cur<'_>, t: Types) -> Result<Vertex, Declined> {
    Ok(Vertex {
        coords: [
            c.coord_of::<W>()?,
            c.coord_of::<W>()?,
            c.coord_of::<W>()?,
            c.coord_of::<W>()?,
        ],
        color: c.raw(t.ci())?,
        skin: c.idx(t.sk())?,
    })
}

/// One TMAP record of `W`-byte coordinates.
#[inline(always)]
pub(crate) fn uv<const W: usize>(c: &mut Cur<'_>) -> Result<[Coord; 2], Declined> {
    Ok([c.coord_of::<W>()?, c.coord_of::<W>()?])
}

/// One CMAP record: RGBA, R in the low byte.
#[inline(always)]
pub(crate) fn colour(c: &mut Cur<'_>) -> Result<u32, Declined> {
    c.u32()
}

/// `$body` with `$w` a constant: the coordinate width `vc_t` of `$t` (1, 2, 4, else 8).
macro_rules! with_vc {
    ($t:expr, $w:ident => $body:expr) => {
        match $t.vc() {
            1 => {
                const $w: usize = 1;
                $body
            }
            2 => {
                const $w: usize = 2;
                $body
            }
            4 => {
                const $w: usize = 4;
                $body
            }
            _ => {
                const $w: usize = 8;
                $body
            }
        }
    };
}
pub(crate) use with_vc;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Idx;
    use test_support::ByteBuilder;

    /// ci u8, sk u16, the other fields u8, with coordinates of `vc` code.
    fn types(vc: u32) -> Types {
        Types(vc | (1 << 14))
    }

    #[test]
    fn vertices_decode_at_every_coordinate_width() {
        let b = ByteBuilder::new()
            .bytes(&[0x7F, 0x81, 0x00, 0x80], "x 127, y -127, z 0, w -128")
            .u8(3, "colour: CMAP index 3")
            .u16_le(0xFFFE, "skin -2: a quaternion")
            .build();
        let t = types(0);
        assert_eq!(vertex_size(t), b.len());
        let v = vertex::<1>(&mut Cur::new(&b), t);
        let coords = [127, -127, 0, -128].map(Coord::I8);
        let want = Vertex {
            coords,
            color: 3,
            skin: Idx::MAX,
        };
        assert_eq!(v, Ok(want));
        assert_eq!(vertex::<1>(&mut Cur::new(&b[..6]), t), Err(Declined), "cut");

        let b = ByteBuilder::new()
            .i16_le(-32767, "x")
            .i16_le(32767, "y")
            .i16_le(1, "z")
            .i16_le(-1, "w")
            .u8(0, "colour")
            .u16_le(0xFFFF, "skin -1")
            .build();
        let t = types(1);
        assert_eq!(vertex_size(t), b.len());
        let v = vertex::<2>(&mut Cur::new(&b), t).map(|v| (v.coords, v.skin));
        assert_eq!(v, Ok(([-32767, 32767, 1, -1].map(Coord::I16), Idx::UNDEF)));

        let b = ByteBuilder::new()
            .f32s_le(&[0.5, -1.0, 2.0, 1.0], "x y z w")
            .u8(9, "colour")
            .u16_le(4, "skin 4")
            .build();
        let t = types(2);
        let v = vertex::<4>(&mut Cur::new(&b), t);
        let coords = [0.5, -1.0, 2.0, 1.0].map(Coord::F32);
        assert_eq!(
            v,
            Ok(Vertex {
                coords,
                color: 9,
                skin: Idx(4)
            })
        );

        let doubles: Vec<u8> = [0.25f64, 0.0, -3.0, 1.0]
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect();
        let b = ByteBuilder::new()
            .bytes(&doubles, "x y z w, f64")
            .u8(1, "colour")
            .u16_le(0, "skin 0")
            .build();
        let t = types(3);
        assert_eq!(vertex_size(t), 35);
        let v = vertex::<8>(&mut Cur::new(&b), t).map(|v| v.coords);
        assert_eq!(v, Ok([0.25, 0.0, -3.0, 1.0].map(Coord::F64)));
    }

    #[test]
    fn uvs_and_colours_decode_from_their_bytes() {
        assert_eq!(uv_size(types(0)), 2);
        assert_eq!(
            uv::<1>(&mut Cur::new(&[0xFF, 0x00])),
            Ok([Coord::I8(-1), Coord::I8(0)])
        );
        assert_eq!(
            uv::<2>(&mut Cur::new(&[0xFF, 0xFF, 0x00, 0x80])),
            Ok([Coord::I16(-1), Coord::I16(-32768)])
        );
        assert_eq!(uv::<4>(&mut Cur::new(&[0; 7])), Err(Declined), "cut");
        let rgba = ByteBuilder::new()
            .bytes(&[0x11, 0x22, 0x33, 0x44], "R G B A")
            .build();
        assert_eq!(colour(&mut Cur::new(&rgba)), Ok(0x4433_2211));
        assert_eq!(COLOUR_SIZE, rgba.len());
    }
}
