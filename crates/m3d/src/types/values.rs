//! The stored value kinds the type bits select (index, coordinate, string), and how
//! their little-endian bytes decode: the one place the width rules live.

/// An index as stored, widened to `u32` the way m3d.h's `_m3d_getidx` does: the two top
/// values of a u8/u16 field become [`Idx::UNDEF`] (-1) and [`Idx::MAX`] (-2). A field whose
/// type is "absent" reads as [`Idx::UNDEF`] and takes no bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Idx(pub u32);

impl Idx {
    /// -1: no value (no parent, no material, unset voxel, ...).
    pub const UNDEF: Idx = Idx(u32::MAX);
    /// -2: marks a quaternion vertex (skin id) or a "clear" voxel.
    pub const MAX: Idx = Idx(u32::MAX - 1);

    /// The index, or `None` for the two sentinels.
    ///
    /// ```
    /// use m3d_format::Idx;
    /// assert_eq!(Idx(5).get(), Some(5));
    /// assert_eq!(Idx::UNDEF.get(), None);
    /// ```
    pub fn get(self) -> Option<u32> {
        (self.0 < Idx::MAX.0).then_some(self.0)
    }
}

/// `W` little-endian bytes as an unsigned number (`W` up to 8).
#[inline(always)]
pub(crate) fn le<const W: usize>(b: [u8; W]) -> u64 {
    b.iter().rev().fold(0, |v, &x| (v << 8) | u64::from(x))
}

/// An index of `W` bytes as m3d.h's `_m3d_getidx` widens it: the two top values of a
/// u8 or u16 field are [`Idx::UNDEF`] and [`Idx::MAX`]; `W` = 0 (an absent field) is
/// [`Idx::UNDEF`].
#[inline(always)]
pub(crate) fn idx_le<const W: usize>(b: [u8; W]) -> Idx {
    let v = le(b) as u32;
    let with_sentinels = |top: u32| match v {
        _ if v == top => Idx::UNDEF,
        _ if v == top - 1 => Idx::MAX,
        v => Idx(v),
    };
    match W {
        1 => with_sentinels(0xFF),
        2 => with_sentinels(0xFFFF),
        4 => Idx(v),
        _ => Idx::UNDEF,
    }
}

/// A coordinate as stored (quantized ones stay integers, so re-encoding is exact).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Coord {
    /// int8, meaning `v / 127`.
    I8(i8),
    /// int16, meaning `v / 32767`.
    I16(i16),
    /// f32.
    F32(f32),
    /// f64.
    F64(f64),
}

impl Coord {
    /// The value as m3d.h decodes a vertex coordinate (signed `/127`, `/32767`).
    ///
    /// ```
    /// use m3d_format::Coord;
    /// assert_eq!(Coord::I8(127).signed(), 1.0);
    /// assert!((Coord::I8(-128).signed() + 1.007874).abs() < 1e-6);
    /// ```
    pub fn signed(self) -> f64 {
        match self {
            Coord::I8(v) => f64::from(v) / 127.0,
            Coord::I16(v) => f64::from(v) / 32767.0,
            Coord::F32(v) => f64::from(v),
            Coord::F64(v) => v,
        }
    }
    /// The value as m3d.h decodes a texture coordinate (int8/int16 read *unsigned*,
    /// `/255`, `/65535`).
    ///
    /// ```
    /// use m3d_format::Coord;
    /// assert_eq!(Coord::I8(-1).unsigned(), 1.0);
    /// ```
    pub fn unsigned(self) -> f64 {
        match self {
            Coord::I8(v) => f64::from(v as u8) / 255.0,
            Coord::I16(v) => f64::from(v as u16) / 65535.0,
            Coord::F32(v) => f64::from(v),
            Coord::F64(v) => v,
        }
    }
}

impl Coord {
    /// A coordinate of `W` bytes (`vc_t` 1, 2, 4 or 8) from its little-endian bytes.
    #[inline(always)]
    pub(crate) fn from_le<const W: usize>(b: [u8; W]) -> Coord {
        let v = le(b);
        match W {
            1 => Coord::I8(v as u8 as i8),
            2 => Coord::I16(v as u16 as i16),
            4 => Coord::F32(f32::from_bits(v as u32)),
            _ => Coord::F64(f64::from_bits(v)),
        }
    }

    /// The value m3d.h gives a vertex coordinate, in `f32` as it computes it: the
    /// quantized forms divided in `f32`, which [`signed`](Self::signed) in `f64` then
    /// rounded gives bit for bit (a division of small integers rounded twice, through
    /// a format of more than twice the bits, rounds once); `f32` kept as it is.
    #[inline(always)]
    pub(crate) fn loaded(self) -> f32 {
        match self {
            Coord::F32(v) => v,
            c => c.signed() as f32,
        }
    }

    /// The value m3d.h gives a texture coordinate, in `f32` as [`loaded`](Self::loaded).
    #[inline(always)]
    pub(crate) fn loaded_uv(self) -> f32 {
        match self {
            Coord::F32(v) => v,
            c => c.unsigned() as f32,
        }
    }

    /// The bytes this coordinate takes stored.
    fn width(self) -> usize {
        match self {
            Coord::I8(_) => 1,
            Coord::I16(_) => 2,
            Coord::F32(_) => 4,
            Coord::F64(_) => 8,
        }
    }

    /// This coordinate stored `width` bytes wide, m3d.h's way, and whether it lay
    /// outside the quantized range and was clamped: a vertex (or shape) coordinate
    /// signed (int8 `v * 127`, int16 `v * 32767`, within -1..1), a texture coordinate
    /// (`texture`) unsigned (`v * 255`, `v * 65535`, within 0..1). A coordinate
    /// already that wide stays as it is (int8 -128 lies just past -1).
    pub(crate) fn at_width(self, width: usize, texture: bool) -> (Coord, bool) {
        if self.width() == width {
            return (self, false);
        }
        let (v, low, steps) = match texture {
            true => (self.unsigned(), 0.0, [255.0, 65535.0]),
            false => (self.signed(), -1.0, [127.0, 32767.0]),
        };
        let out = !(low..=1.0).contains(&v);
        // Unsigned values past the signed range wrap into it, as m3d.h stores them.
        let q = |steps: f64| (v * steps).round().clamp(low * steps, steps) as i64;
        match width {
            1 => (Coord::I8(q(steps[0]) as i8), out),
            2 => (Coord::I16(q(steps[1]) as i16), out),
            4 => (Coord::F32(v as f32), false),
            _ => (Coord::F64(v), false),
        }
    }
}

/// A string reference: a byte offset into the HEAD string table, 0 = no string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Str(pub u32);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_widen_with_the_sentinels_of_their_width() {
        // u8: 255 is -1, 254 is -2, 253 an index.
        assert_eq!(idx_le([0xFF]), Idx::UNDEF);
        assert_eq!(idx_le([0xFE]), Idx::MAX);
        assert_eq!(idx_le([0xFD]), Idx(253));
        assert_eq!(idx_le([0x00]), Idx(0));
        // u16, little-endian: 0xFFFF is -1, 0xFFFE is -2.
        assert_eq!(idx_le([0xFF, 0xFF]), Idx::UNDEF);
        assert_eq!(idx_le([0xFE, 0xFF]), Idx::MAX);
        assert_eq!(idx_le([0xFD, 0xFF]), Idx(0xFFFD));
        assert_eq!(idx_le([0xFF, 0x00]), Idx(255), "255 is a u16 index");
        assert_eq!(idx_le([0x34, 0x12]), Idx(0x1234));
        // u32: the value itself (its top two values are the sentinels' own).
        assert_eq!(idx_le([0x78, 0x56, 0x34, 0x12]), Idx(0x1234_5678));
        assert_eq!(idx_le([0xFF, 0xFF, 0x00, 0x00]), Idx(0xFFFF));
        assert_eq!(idx_le([0xFF; 4]), Idx::UNDEF);
        assert_eq!(idx_le([0xFE, 0xFF, 0xFF, 0xFF]), Idx::MAX);
        // Absent: -1, from no bytes.
        assert_eq!(idx_le([]), Idx::UNDEF);
    }

    #[test]
    fn coordinates_decode_at_each_width() {
        assert_eq!(Coord::from_le([0x81]), Coord::I8(-127));
        assert_eq!(Coord::from_le([0xFF, 0x7F]), Coord::I16(32767));
        assert_eq!(Coord::from_le([0x00, 0x80]), Coord::I16(-32768));
        assert_eq!(Coord::from_le(1.5f32.to_le_bytes()), Coord::F32(1.5));
        assert_eq!(Coord::from_le((-0.25f64).to_le_bytes()), Coord::F64(-0.25));
        assert_eq!(le([0x01, 0x02, 0x03]), 0x03_0201);
    }

    /// [`Coord::loaded`] is m3d.h's f32 arithmetic for every quantized value (the f64
    /// quotient rounded to f32 is the f32 quotient), and keeps f32 bits as stored.
    #[test]
    fn loaded_values_are_m3d_h_f32_arithmetic() {
        for v in i8::MIN..=i8::MAX {
            let c = Coord::I8(v);
            assert_eq!(
                c.loaded().to_bits(),
                (f32::from(v) / 127.0).to_bits(),
                "{v}"
            );
            let u = f32::from(v as u8) / 255.0;
            assert_eq!(c.loaded_uv().to_bits(), u.to_bits(), "{v}");
        }
        for v in i16::MIN..=i16::MAX {
            let c = Coord::I16(v);
            assert_eq!(
                c.loaded().to_bits(),
                (f32::from(v) / 32767.0).to_bits(),
                "{v}"
            );
            let u = f32::from(v as u16) / 65535.0;
            assert_eq!(c.loaded_uv().to_bits(), u.to_bits(), "{v}");
        }
        let signalling = f32::from_bits(0x7F80_0001);
        assert_eq!(Coord::F32(signalling).loaded().to_bits(), 0x7F80_0001);
        assert_eq!(Coord::F32(signalling).loaded_uv().to_bits(), 0x7F80_0001);
        assert_eq!(Coord::F64(0.1).loaded(), 0.1f64 as f32);
        assert_eq!(Coord::F64(-2.5).loaded_uv(), -2.5);
    }
}
