//! The HEAD type bits and the stored value kinds they select (index, coordinate, string).

use parsing_primitives::{Reader, Result as PResult};

use crate::error::{Result, invalid};

/// The HEAD `types` word as stored: 2-bit fields selecting every variable width.
///
/// ```
/// let t = m3d_format::Types(0b01_00_01); // vc int16, vi u8, si u16
/// assert_eq!(t.vc(), 2);
/// assert_eq!(t.vi(), 1);
/// assert_eq!(t.si(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Types(pub u32);

impl Types {
    fn bits(self, shift: u32) -> u32 {
        (self.0 >> shift) & 3
    }
    /// These types with the field at `shift` set to `code` (3: absent).
    fn with_bits(self, shift: u32, code: u32) -> Types {
        Types((self.0 & !(3 << shift)) | ((code & 3) << shift))
    }
    /// `1 << bits`, or 0 when the field is "absent" (bits = 3).
    fn idx(self, shift: u32) -> usize {
        match self.bits(shift) {
            3 => 0,
            b => 1 << b,
        }
    }
    /// Vertex coordinate size in bytes: 1 (int8), 2 (int16), 4 (f32) or 8 (f64).
    pub fn vc(self) -> usize {
        1 << self.bits(0)
    }
    /// Vertex index size (1, 2, 4; 0 = the invalid value 3).
    pub fn vi(self) -> usize {
        self.idx(2)
    }
    /// String offset size (1, 2, 4; 0 = the invalid value 3).
    pub fn si(self) -> usize {
        self.idx(4)
    }
    /// Colour size: 1/2 = CMAP index, 4 = literal RGBA, 0 = absent.
    pub fn ci(self) -> usize {
        self.idx(6)
    }
    /// Texture-map index size, 0 = absent.
    pub fn ti(self) -> usize {
        self.idx(8)
    }
    /// Bone index size, 0 = absent.
    pub fn bi(self) -> usize {
        self.idx(10)
    }
    /// Bones per vertex: 1, 2, 4 or 8.
    pub fn nb(self) -> usize {
        1 << self.bits(12)
    }
    /// Skin index size, 0 = absent.
    pub fn sk(self) -> usize {
        self.idx(14)
    }
    /// Frame transform count size, 0 = absent.
    pub fn fc(self) -> usize {
        self.idx(16)
    }
    /// Shape index size, 0 = absent.
    pub fn hi(self) -> usize {
        self.idx(18)
    }
    /// Face index size, 0 = absent.
    pub fn fi(self) -> usize {
        self.idx(20)
    }
    /// Voxel block position/size field size, 0 = absent.
    pub fn vd(self) -> usize {
        self.idx(22)
    }
    /// Voxel type index size, 0 = absent.
    pub fn vp(self) -> usize {
        self.idx(24)
    }

    /// These types with index fields as narrow as the lists allow, as real files have
    /// them: 1 byte up to 254 entries (255 and 254 are m3d.h's -1 and -2), 2 bytes up to
    /// 65,534, else 4; a field already narrower keeps its width, and absent fields stay
    /// absent. A stored index past its list may then not fit: the writer refuses it.
    pub(crate) fn narrowed(self, lists: ListLengths) -> Types {
        let width = |count: usize| -> u32 {
            match count {
                0..=254 => 0,
                255..=65534 => 1,
                _ => 2,
            }
        };
        [
            (2, lists.vertices),
            (4, lists.strings),
            (8, lists.tmap),
            (10, lists.bones),
            (14, lists.skins),
            (16, lists.per_frame),
        ]
        .into_iter()
        .fold(self, |t, (shift, count)| {
            // Never wider than the field is, and absent fields stay absent.
            let (own, code) = (t.bits(shift), width(count));
            if own != 3 && code < own {
                t.with_bits(shift, code)
            } else {
                t
            }
        })
    }

    /// These types with `vc_t` set to `code` (0 int8, 1 int16, 2 f32, 3 f64).
    pub(crate) fn with_vc(self, code: u32) -> Types {
        self.with_bits(0, code)
    }

    /// These types with the colour field absent when there is no colour map, and the
    /// bone and skin index fields absent when there are no bones, as m3d_save leaves
    /// fields nothing uses. A guess for the writer to check: an absent field holds only
    /// its "none" value (colour 0, index -1), and anything else refuses to be written
    /// when re-encoding ([`Out::convert`]).
    pub(crate) fn without_unused(self, cmap: bool, bones: bool) -> Types {
        let t = if cmap { self } else { self.with_bits(6, 3) };
        if bones {
            t
        } else {
            t.with_bits(10, 3).with_bits(14, 3)
        }
    }
}

/// The lengths of the lists a file's index fields point into ([`Types::narrowed`]).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ListLengths {
    pub vertices: usize,
    pub strings: usize,
    pub tmap: usize,
    pub bones: usize,
    pub skins: usize,
    /// The most transforms in one animation frame.
    pub per_frame: usize,
}

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

// ---------------------------------------------------------------- names by content

/// What a string says, as a key: equal strings (of one table or of two) get equal keys,
/// so names are matched with a hash lookup instead of a comparison or scan per use. The
/// key is the length and two polynomial hashes modulo 2^61 - 1 with bases drawn once per
/// process, so a crafted file cannot aim two names at one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct NameKey {
    len: usize,
    h: [u64; 2],
}

impl NameKey {
    /// The empty string's key (what a name at offset 0 or past the table matches as).
    pub const EMPTY: NameKey = NameKey { len: 0, h: [0; 2] };

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The key of `bytes` (a string without NULs), for names not in a table (a lossy
    /// text, say). Takes the string's length in time.
    pub fn of(bytes: &[u8]) -> NameKey {
        let [b0, b1] = bases();
        bytes.iter().rev().fold(NameKey::EMPTY, |k, &c| NameKey {
            len: k.len.saturating_add(1),
            h: [mul_add(k.h[0], b0, c), mul_add(k.h[1], b1, c)],
        })
    }
}

const P61: u64 = (1 << 61) - 1;

fn bases() -> [u64; 2] {
    use std::hash::BuildHasher;
    static BASES: std::sync::OnceLock<[u64; 2]> = std::sync::OnceLock::new();
    *BASES.get_or_init(|| {
        let s = std::collections::hash_map::RandomState::new();
        // Above 256 so one byte never carries into the next.
        [1u8, 2].map(|i| 257 + s.hash_one(i) % (P61 - 257))
    })
}

fn mul_add(h: u64, base: u64, c: u8) -> u64 {
    let v = (u128::from(h) * u128::from(base) + u128::from(c)) % u128::from(P61);
    v as u64
}

/// The [`NameKey`]s of the strings at some offsets of one string table, found in one
/// right-to-left pass over the table: O(table + offsets log offsets) however long the
/// strings are (a table without NULs makes every string run to its end).
#[derive(Debug, Default)]
pub(crate) struct Names {
    keys: Vec<(u32, NameKey)>,
}

impl Names {
    /// Keys for `offsets` into `table` (offset 0 and offsets past the table get none, as
    /// [`File::string`](crate::File::string) gives them no string). The offset list is
    /// charged to `budget` when there is one.
    pub fn new(
        table: &[u8],
        offsets: impl IntoIterator<Item = Str>,
        budget: Option<&parsing_primitives::Budget>,
    ) -> std::result::Result<Names, parsing_primitives::BudgetExceeded> {
        let mut wanted: Vec<u32> = Vec::new();
        for s in offsets {
            if s.0 != 0 && s.0 as usize <= table.len() {
                if let Some(b) = budget {
                    b.charge_items::<u32>("name index", 1)?;
                }
                wanted.push(s.0);
            }
        }
        wanted.sort_unstable();
        wanted.dedup();
        if let Some(b) = budget {
            b.charge_items::<(u32, NameKey)>("name index", wanted.len())?;
        }
        let mut keys = Vec::with_capacity(wanted.len());
        let [b0, b1] = bases();
        let mut key = NameKey::EMPTY;
        let mut pos = table.len();
        // Largest offset first: the hash of the string at `pos` extends the one at pos + 1.
        for &off in wanted.iter().rev() {
            while pos > off as usize {
                pos -= 1;
                let c = table.get(pos).copied().unwrap_or(0);
                key = if c == 0 {
                    NameKey::EMPTY
                } else {
                    NameKey {
                        len: key.len.saturating_add(1),
                        h: [mul_add(key.h[0], b0, c), mul_add(key.h[1], b1, c)],
                    }
                };
            }
            keys.push((off, key));
        }
        keys.reverse();
        Ok(Names { keys })
    }

    /// The key of the string at `s`, if `s` was asked for and names a string.
    pub fn key(&self, s: Str) -> Option<NameKey> {
        let i = self.keys.binary_search_by_key(&s.0, |k| k.0).ok()?;
        self.keys.get(i).map(|k| k.1)
    }
}

// ---------------------------------------------------------------- reading

/// Reads `n` bytes and decodes them with [`Cur`]: the one place the width rules live.
fn decode<T>(
    r: &mut Reader<'_>,
    n: usize,
    f: impl FnOnce(&mut Cur<'_>) -> Option<T>,
) -> PResult<T> {
    let at = r.offset();
    let bytes = r.bytes(n)?;
    f(&mut Cur(bytes)).ok_or_else(|| r.invalid_at(at, "field shorter than its width"))
}

/// An index of `width` bytes (0 = absent reads as -1) with m3d.h's -1/-2 sentinels.
pub(crate) fn read_idx(r: &mut Reader<'_>, width: usize) -> PResult<Idx> {
    decode(r, width, |c| c.idx(width))
}

/// An unsigned field of `width` bytes (0 = absent reads 0), no sentinels.
pub(crate) fn read_raw(r: &mut Reader<'_>, width: usize) -> PResult<u32> {
    decode(r, width, |c| c.raw(width))
}

pub(crate) fn read_str(r: &mut Reader<'_>, t: Types) -> PResult<Str> {
    read_raw(r, t.si()).map(Str)
}

pub(crate) fn read_coord(r: &mut Reader<'_>, t: Types) -> PResult<Coord> {
    decode(r, t.vc(), |c| c.coord(t))
}

/// A cursor over bytes already known to be in bounds (a fixed-size record, or the fast
/// path of a record that falls back to the [`Reader`] for its error): every read is a
/// plain slice split, `None` at the end.
pub(crate) struct Cur<'a>(pub &'a [u8]);

impl Cur<'_> {
    #[inline]
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, tail) = self.0.split_first_chunk::<N>()?;
        self.0 = tail;
        Some(*head)
    }

    #[inline]
    pub fn u8(&mut self) -> Option<u8> {
        self.take::<1>().map(|[b]| b)
    }

    /// As [`read_idx`].
    #[inline]
    pub fn idx(&mut self, width: usize) -> Option<Idx> {
        Some(match width {
            1 => match self.u8()? {
                255 => Idx::UNDEF,
                254 => Idx::MAX,
                v => Idx(u32::from(v)),
            },
            2 => match u16::from_le_bytes(self.take()?) {
                0xFFFF => Idx::UNDEF,
                0xFFFE => Idx::MAX,
                v => Idx(u32::from(v)),
            },
            4 => Idx(u32::from_le_bytes(self.take()?)),
            _ => Idx::UNDEF,
        })
    }

    /// As [`read_raw`].
    #[inline]
    pub fn raw(&mut self, width: usize) -> Option<u32> {
        Some(match width {
            1 => u32::from(self.u8()?),
            2 => u32::from(u16::from_le_bytes(self.take()?)),
            4 => u32::from_le_bytes(self.take()?),
            _ => 0,
        })
    }

    /// As [`read_coord`].
    #[inline]
    pub fn coord(&mut self, t: Types) -> Option<Coord> {
        Some(match t.vc() {
            1 => Coord::I8(i8::from_le_bytes(self.take()?)),
            2 => Coord::I16(i16::from_le_bytes(self.take()?)),
            4 => Coord::F32(f32::from_le_bytes(self.take()?)),
            _ => Coord::F64(f64::from_le_bytes(self.take()?)),
        })
    }
}

/// The bytes left, copied (and charged) as a chunk's opaque data or tail.
pub(crate) fn rest_copy(r: &mut Reader<'_>) -> PResult<Vec<u8>> {
    let rest = r.rest();
    r.charge_for("chunk bytes", rest.len() as u64)?;
    r.skip(rest.len())?;
    Ok(rest.to_vec())
}

// ---------------------------------------------------------------- writing

/// A byte sink that knows the widths.
pub(crate) struct Out {
    pub buf: Vec<u8>,
    pub t: Types,
    /// Re-encoding at other widths ([`WriteOptions::narrow`](crate::WriteOptions)):
    /// coordinates are converted to `t`'s `vc_t` and stored tails dropped, as m3d_save
    /// writes a model.
    pub convert: bool,
}

impl Out {
    pub fn new(t: Types) -> Out {
        Out {
            buf: Vec::new(),
            t,
            convert: false,
        }
    }
    /// Bytes after a chunk's records or body, kept unless re-encoding.
    pub fn tail(&mut self, b: &[u8]) {
        if !self.convert {
            self.bytes(b);
        }
    }
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    pub fn idx(&mut self, width: usize, v: Idx, what: &str) -> Result<()> {
        if width == 0 && self.convert && v != Idx::UNDEF {
            return Err(invalid(format!("{what}: index {} needs a field", v.0)));
        }
        let narrow = |top: u32| -> Result<u32> {
            match v {
                Idx::UNDEF => Ok(top),
                Idx::MAX => Ok(top - 1),
                Idx(x) if x < top - 1 => Ok(x),
                Idx(x) => Err(invalid(format!(
                    "{what}: index {x} does not fit the {width}-byte field"
                ))),
            }
        };
        match width {
            1 => self.u8(narrow(0xFF)? as u8),
            2 => self.u16(narrow(0xFFFF)? as u16),
            4 => self.u32(v.0),
            _ => {}
        }
        Ok(())
    }
    pub fn raw(&mut self, width: usize, v: u32, what: &str) -> Result<()> {
        let fits = match width {
            1 => v <= 0xFF,
            2 => v <= 0xFFFF,
            // An absent field reads as 0.
            0 if self.convert => v == 0,
            _ => true,
        };
        if !fits {
            return Err(invalid(format!(
                "{what}: value {v} does not fit the {width}-byte field"
            )));
        }
        match width {
            1 => self.u8(v as u8),
            2 => self.u16(v as u16),
            4 => self.u32(v),
            _ => {}
        }
        Ok(())
    }
    pub fn str(&mut self, s: Str, what: &str) -> Result<()> {
        self.raw(self.t.si(), s.0, what)
    }
    /// A vertex or shape coordinate (signed when quantized).
    pub fn coord(&mut self, c: Coord, what: &str) -> Result<()> {
        self.converted(c, what, false)
    }
    /// A texture coordinate (unsigned when quantized).
    pub fn uv(&mut self, c: Coord, what: &str) -> Result<()> {
        self.converted(c, what, true)
    }
    fn converted(&mut self, c: Coord, what: &str, texture: bool) -> Result<()> {
        if !self.convert {
            return self.stored_coord(c, what);
        }
        let (q, clamped) = c.at_width(self.t.vc(), texture);
        if clamped {
            let range = if texture { "0..1" } else { "-1..1" };
            return Err(invalid(format!(
                "{what}: {} lies outside {range}, which the {}-byte vc_t cannot store",
                c.signed(),
                self.t.vc()
            )));
        }
        self.stored_coord(q, what)
    }
    fn stored_coord(&mut self, c: Coord, what: &str) -> Result<()> {
        match (self.t.vc(), c) {
            (1, Coord::I8(v)) => self.u8(v as u8),
            (2, Coord::I16(v)) => self.u16(v as u16),
            (4, Coord::F32(v)) => self.bytes(&v.to_le_bytes()),
            (8, Coord::F64(v)) => self.bytes(&v.to_le_bytes()),
            _ => {
                return Err(invalid(format!(
                    "{what}: coordinate {c:?} does not match the {}-byte vc_t",
                    self.t.vc()
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_strings_get_equal_keys_wherever_they_are() -> std::result::Result<(), String> {
        // 0: NUL, 1: "ab", 3: NUL, 4: "xab", 7: NUL, 8: "ab" running to the table's end.
        let table = b"\0ab\0xab\0ab";
        let asked = [1, 4, 5, 8, 0, 11, 10, 3].map(Str);
        let n = Names::new(table, asked, None).map_err(|e| e.to_string())?;
        let ab = Some(NameKey::of(b"ab"));
        assert_eq!(n.key(Str(1)), ab);
        assert_eq!(n.key(Str(5)), ab, "the tail of \"xab\"");
        assert_eq!(n.key(Str(8)), ab, "no NUL after it");
        assert_eq!(n.key(Str(4)), Some(NameKey::of(b"xab")));
        assert_ne!(n.key(Str(4)), ab);
        assert_eq!(
            n.key(Str(3)),
            Some(NameKey::EMPTY),
            "a NUL: the empty string"
        );
        assert_eq!(n.key(Str(10)), Some(NameKey::EMPTY), "the table's end");
        assert_eq!(n.key(Str(0)), None, "offset 0 is no string");
        assert_eq!(n.key(Str(11)), None, "past the table");
        assert_eq!(n.key(Str(2)), None, "not asked for");
        Ok(())
    }

    #[test]
    fn keys_tell_lengths_and_bytes_apart() {
        assert_ne!(NameKey::of(b"a"), NameKey::of(b"aa"));
        assert_ne!(NameKey::of(b"ab"), NameKey::of(b"ba"));
        assert_eq!(NameKey::of(b""), NameKey::EMPTY);
        assert!(NameKey::of(b"").is_empty() && !NameKey::of(b"x").is_empty());
    }
}
