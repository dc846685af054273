//! HEAD's `types` word: the byte width of every index and coordinate field.

use parsing_primitives::Reader;

/// One 2-bit field of `types`: `0..=2` = 1, 2 or 4 bytes, `3` = absent (zero bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Width(pub u8);

impl Width {
    /// Absent: the field takes zero bytes wherever it appears.
    pub const ABSENT: Width = Width(3);

    /// Bytes the field takes.
    pub fn bytes(self) -> usize {
        match self.0 {
            0 => 1,
            1 => 2,
            2 => 4,
            _ => 0,
        }
    }

    /// True when the field takes no bytes.
    pub fn is_absent(self) -> bool {
        self.0 >= 3
    }

    /// Reads an index of this width as m3d.h's `_m3d_getidx` does: the two largest
    /// values of u8/u16 are the sentinels -2 and -1, u32 is read as i32. Absent: -1.
    pub fn read_index(self, r: &mut Reader<'_>) -> parsing_primitives::Result<i32> {
        Ok(match self.0 {
            0 => match r.u8()? {
                255 => -1,
                254 => -2,
                v => i32::from(v),
            },
            1 => match r.u16_le()? {
                65535 => -1,
                65534 => -2,
                v => i32::from(v),
            },
            2 => r.i32_le()?,
            _ => -1,
        })
    }

    /// Reads a plain unsigned count or id of this width (no sentinels); absent: 0.
    pub fn read_unsigned(self, r: &mut Reader<'_>) -> parsing_primitives::Result<u32> {
        Ok(match self.0 {
            0 => u32::from(r.u8()?),
            1 => u32::from(r.u16_le()?),
            2 => r.u32_le()?,
            _ => 0,
        })
    }
}

/// The coordinate type (`vc_t`): signed normalized int8 or int16, f32 or f64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoordType {
    /// `i8 / 127`.
    Int8,
    /// `i16 / 32767`.
    Int16,
    /// `f32`.
    Float,
    /// `f64`.
    Double,
}

impl CoordType {
    /// Bytes per coordinate.
    pub fn bytes(self) -> usize {
        match self {
            CoordType::Int8 => 1,
            CoordType::Int16 => 2,
            CoordType::Float => 4,
            CoordType::Double => 8,
        }
    }

    /// A signed coordinate (vertices, shape arguments): int8 / 127, int16 / 32767.
    pub fn read_signed(self, r: &mut Reader<'_>) -> parsing_primitives::Result<f64> {
        Ok(match self {
            CoordType::Int8 => f64::from(r.i8()?) / 127.0,
            CoordType::Int16 => f64::from(r.i16_le()?) / 32767.0,
            CoordType::Float => f64::from(r.f32_le()?),
            CoordType::Double => r.f64_le()?,
        })
    }

    /// A texture coordinate: m3d.h reads int8/int16 as **unsigned** / 255 and / 65535.
    pub fn read_unsigned(self, r: &mut Reader<'_>) -> parsing_primitives::Result<f64> {
        Ok(match self {
            CoordType::Int8 => f64::from(r.u8()?) / 255.0,
            CoordType::Int16 => f64::from(r.u16_le()?) / 65535.0,
            CoordType::Float => f64::from(r.f32_le()?),
            CoordType::Double => r.f64_le()?,
        })
    }
}

/// Every field of `types`, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Types {
    /// The raw word.
    pub bits: u32,
    /// Vertex coordinates.
    pub vc: CoordType,
    /// Vertex index.
    pub vi: Width,
    /// String offset.
    pub si: Width,
    /// Colour: u8/u16 index into CMAP, u32 literal RGBA, or absent.
    pub ci: Width,
    /// Texture-map index.
    pub ti: Width,
    /// Bone index.
    pub bi: Width,
    /// Bones per vertex: 1, 2, 4 or 8.
    pub nb: usize,
    /// Skin index.
    pub sk: Width,
    /// Transforms per animation frame count.
    pub fc: Width,
    /// Shape index.
    pub hi: Width,
    /// Face index.
    pub fi: Width,
    /// Voxel block position/size.
    pub vd: Width,
    /// Voxel type index.
    pub vp: Width,
}

impl Types {
    /// Decodes the word; vi, si = 3 and vp = u32 are refused like m3d.h refuses them.
    pub fn from_bits(bits: u32) -> Result<Types, String> {
        let f = |shift: u32| Width(((bits >> shift) & 3) as u8);
        let t = Types {
            bits,
            vc: match bits & 3 {
                0 => CoordType::Int8,
                1 => CoordType::Int16,
                2 => CoordType::Float,
                _ => CoordType::Double,
            },
            vi: f(2),
            si: f(4),
            ci: f(6),
            ti: f(8),
            bi: f(10),
            nb: 1 << ((bits >> 12) & 3),
            sk: f(14),
            fc: f(16),
            hi: f(18),
            fi: f(20),
            vd: f(22),
            vp: f(24),
        };
        if t.vi.is_absent() {
            return Err("vertex index width 3 is invalid".into());
        }
        if t.si.is_absent() {
            return Err("string offset width 3 is invalid".into());
        }
        if t.vp.0 == 2 {
            return Err("32-bit voxel type indices are invalid".into());
        }
        Ok(t)
    }
}
