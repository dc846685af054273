//! The reads a record decoder makes, and the two things it reads from: the checked
//! [`Reader`] and a cursor over bytes known to hold the record ([`Cur`]). A record
//! layout's decoder is generic over [`Fields`], so the faithful reader, the counts and
//! the one-pass load all call the one decoder.

use parsing_primitives::{Limits, Reader, Result as PResult, check_count};

use super::{Coord, Idx, Str, Types, idx_le, le};

/// Why [`Cur`] stopped: the bytes ended, a count does not fit them, or its caller's
/// budget said no. The checked [`Reader`] then reads the same bytes and says why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Declined;

/// The reads of a record decoder, with [`Reader`]'s meaning: over the checked reader
/// (errors name the offset and the context path; what is read is charged to its
/// budget) or over a [`Cur`] (plain slice splits; no path and no charge: its caller
/// charges what it builds).
pub(crate) trait Fields: Sized {
    /// The reader's positioned error, or [`Declined`].
    type Error;

    /// As [`Reader::field`].
    fn field<T>(
        &mut self,
        name: &'static str,
        f: impl FnOnce(&mut Self) -> Result<T, Self::Error>,
    ) -> Result<T, Self::Error>;
    /// As [`Reader::item`].
    fn item<T>(
        &mut self,
        index: usize,
        f: impl FnOnce(&mut Self) -> Result<T, Self::Error>,
    ) -> Result<T, Self::Error>;
    /// As [`Reader::count`]: `count` elements of `min` bytes fit in what is left.
    fn count(&self, count: u64, min: usize) -> Result<usize, Self::Error>;
    /// A count field of `width` bytes (absent: 0), checked as [`count`](Self::count)
    /// against the bytes after it; an error points at the field.
    fn count_field(&mut self, width: usize, min: usize) -> Result<usize, Self::Error>;
    /// As [`Reader::charge_for`].
    fn charge_for(&mut self, what: &'static str, bytes: u64) -> Result<(), Self::Error>;
    /// As [`Reader::u8`].
    fn u8(&mut self) -> Result<u8, Self::Error>;
    /// As [`Reader::u16_le`].
    fn u16(&mut self) -> Result<u16, Self::Error>;
    /// As [`Reader::u32_le`].
    fn u32(&mut self) -> Result<u32, Self::Error>;
    /// `out.len()` bytes, as [`Reader::bytes`] reads them.
    fn bytes_into(&mut self, out: &mut [u8]) -> Result<(), Self::Error>;
    /// An index of `width` bytes ([`idx_le`]; absent: -1, no bytes).
    fn idx(&mut self, width: usize) -> Result<Idx, Self::Error>;
    /// An unsigned field of `width` bytes, no sentinels (absent: 0, no bytes).
    fn raw(&mut self, width: usize) -> Result<u32, Self::Error>;

    /// A string offset (`si_t`).
    #[inline(always)]
    fn str(&mut self, t: Types) -> Result<Str, Self::Error> {
        self.raw(t.si()).map(Str)
    }

    /// As [`Reader::array`]: `count` checked, `count` values of `T` charged as decoded
    /// data, then each decoded by `f` in its `[i]` path step.
    fn array<T>(
        &mut self,
        count: u64,
        min: usize,
        mut f: impl FnMut(&mut Self) -> Result<T, Self::Error>,
    ) -> Result<Vec<T>, Self::Error> {
        let n = self.count(count, min)?;
        self.charge_for(
            "decoded data",
            (n as u64).saturating_mul(std::mem::size_of::<T>() as u64),
        )?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            out.push(self.item(i, &mut f)?);
        }
        Ok(out)
    }
}

/// Reads `n` bytes and decodes them with [`Cur`] (which cannot run short of them).
fn decode<T>(
    r: &mut Reader<'_>,
    n: usize,
    f: impl FnOnce(&mut Cur<'_>) -> Result<T, Declined>,
) -> PResult<T> {
    let at = r.offset();
    let bytes = r.bytes(n)?;
    f(&mut Cur::new(bytes)).map_err(|_| r.invalid_at(at, "field shorter than its width"))
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
    decode(r, t.vc(), |c| c.coord(t.vc()))
}

/// The bytes left, copied (and charged) as a chunk's opaque data or tail.
pub(crate) fn rest_copy(r: &mut Reader<'_>) -> PResult<Vec<u8>> {
    let rest = r.rest();
    r.charge_for("chunk bytes", rest.len() as u64)?;
    r.skip(rest.len())?;
    Ok(rest.to_vec())
}

impl Fields for Reader<'_> {
    type Error = parsing_primitives::Error;

    #[inline]
    fn field<T>(
        &mut self,
        name: &'static str,
        f: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<T> {
        Reader::field(self, name, f)
    }

    #[inline]
    fn item<T>(&mut self, index: usize, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        Reader::item(self, index, f)
    }

    fn count(&self, count: u64, min: usize) -> PResult<usize> {
        Reader::count(self, count, min)
    }

    fn count_field(&mut self, width: usize, min: usize) -> PResult<usize> {
        let at = self.offset();
        let n = read_raw(self, width)?;
        self.count_at(at, u64::from(n), min)
    }

    fn charge_for(&mut self, what: &'static str, bytes: u64) -> PResult<()> {
        Reader::charge_for(self, what, bytes)
    }

    fn u8(&mut self) -> PResult<u8> {
        Reader::u8(self)
    }

    fn u16(&mut self) -> PResult<u16> {
        self.u16_le()
    }

    fn u32(&mut self) -> PResult<u32> {
        self.u32_le()
    }

    fn bytes_into(&mut self, out: &mut [u8]) -> PResult<()> {
        out.copy_from_slice(self.bytes(out.len())?);
        Ok(())
    }

    fn idx(&mut self, width: usize) -> PResult<Idx> {
        read_idx(self, width)
    }

    fn raw(&mut self, width: usize) -> PResult<u32> {
        read_raw(self, width)
    }

    fn array<T>(
        &mut self,
        count: u64,
        min: usize,
        f: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        Reader::array(self, count, min, f)
    }
}

/// A cursor over bytes already known to hold what is read (a fixed-size record, or the
/// fast path of a record that falls back to the [`Reader`] for its error): every read
/// is a plain slice split, [`Declined`] at the end.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cur<'a> {
    rest: &'a [u8],
    /// The most elements a count may give ([`Limits::max_elements`]).
    max: u64,
}

impl<'a> Cur<'a> {
    /// A cursor over `bytes`, counts bounded by the bytes alone.
    #[inline]
    pub(crate) fn new(bytes: &'a [u8]) -> Cur<'a> {
        Cur {
            rest: bytes,
            max: u64::MAX,
        }
    }

    /// A cursor whose counts also stay within `max` elements (the limits of the
    /// checked reader it stands in for).
    pub(crate) fn with_max(bytes: &'a [u8], max: u64) -> Cur<'a> {
        Cur { rest: bytes, max }
    }

    /// The bytes not read yet.
    #[inline]
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// The next `N` bytes.
    #[inline(always)]
    pub(crate) fn take<const N: usize>(&mut self) -> Result<[u8; N], Declined> {
        let (head, tail) = self.rest.split_first_chunk::<N>().ok_or(Declined)?;
        self.rest = tail;
        Ok(*head)
    }

    /// An index of `W` bytes ([`idx_le`]).
    #[inline(always)]
    pub(crate) fn idx_of<const W: usize>(&mut self) -> Result<Idx, Declined> {
        self.take::<W>().map(idx_le::<W>)
    }

    /// An unsigned field of `W` bytes.
    #[inline(always)]
    pub(crate) fn raw_of<const W: usize>(&mut self) -> Result<u32, Declined> {
        self.take::<W>().map(|b| le(b) as u32)
    }

    /// A coordinate of `W` bytes ([`Coord::from_le`]).
    #[inline(always)]
    pub(crate) fn coord_of<const W: usize>(&mut self) -> Result<Coord, Declined> {
        self.take::<W>().map(Coord::from_le::<W>)
    }

    /// A coordinate of `width` bytes (`vc_t`: 1, 2, 4, else 8).
    #[inline]
    pub(crate) fn coord(&mut self, width: usize) -> Result<Coord, Declined> {
        match width {
            1 => self.coord_of::<1>(),
            2 => self.coord_of::<2>(),
            4 => self.coord_of::<4>(),
            _ => self.coord_of::<8>(),
        }
    }
}

impl Fields for Cur<'_> {
    type Error = Declined;

    #[inline(always)]
    fn field<T>(
        &mut self,
        _: &'static str,
        f: impl FnOnce(&mut Self) -> Result<T, Declined>,
    ) -> Result<T, Declined> {
        f(self)
    }

    #[inline(always)]
    fn item<T>(
        &mut self,
        _: usize,
        f: impl FnOnce(&mut Self) -> Result<T, Declined>,
    ) -> Result<T, Declined> {
        f(self)
    }

    #[inline]
    fn count(&self, count: u64, min: usize) -> Result<usize, Declined> {
        let limits = Limits {
            max_elements: self.max,
            ..Limits::DEFAULT
        };
        check_count(count, min, self.rest.len() as u64, &limits).map_err(|_| Declined)
    }

    #[inline]
    fn count_field(&mut self, width: usize, min: usize) -> Result<usize, Declined> {
        let n = self.raw(width)?;
        self.count(u64::from(n), min)
    }

    #[inline(always)]
    fn charge_for(&mut self, _: &'static str, _: u64) -> Result<(), Declined> {
        Ok(())
    }

    #[inline(always)]
    fn u8(&mut self) -> Result<u8, Declined> {
        self.take::<1>().map(|[b]| b)
    }

    #[inline(always)]
    fn u16(&mut self) -> Result<u16, Declined> {
        self.take().map(u16::from_le_bytes)
    }

    #[inline(always)]
    fn u32(&mut self) -> Result<u32, Declined> {
        self.take().map(u32::from_le_bytes)
    }

    #[inline]
    fn bytes_into(&mut self, out: &mut [u8]) -> Result<(), Declined> {
        let (head, tail) = self.rest.split_at_checked(out.len()).ok_or(Declined)?;
        out.copy_from_slice(head);
        self.rest = tail;
        Ok(())
    }

    #[inline(always)]
    fn idx(&mut self, width: usize) -> Result<Idx, Declined> {
        match width {
            1 => self.idx_of::<1>(),
            2 => self.idx_of::<2>(),
            4 => self.idx_of::<4>(),
            _ => self.idx_of::<0>(),
        }
    }

    #[inline(always)]
    fn raw(&mut self, width: usize) -> Result<u32, Declined> {
        match width {
            1 => self.raw_of::<1>(),
            2 => self.raw_of::<2>(),
            4 => self.raw_of::<4>(),
            _ => self.raw_of::<0>(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_support::ByteBuilder;

    #[test]
    fn the_cursor_reads_each_width_and_declines_at_the_end() {
        let b = ByteBuilder::new()
            .u8(0xFE, "u8 index -2")
            .u16_le(0xFFFF, "u16 index -1")
            .u32_le(7, "u32 raw 7")
            .u16_le(0x8001, "u16 raw")
            .build();
        let mut c = Cur::new(&b);
        assert_eq!(c.idx(1), Ok(Idx::MAX));
        assert_eq!(c.idx(2), Ok(Idx::UNDEF));
        assert_eq!(c.idx(0), Ok(Idx::UNDEF), "absent: no bytes");
        assert_eq!(c.raw(4), Ok(7));
        assert_eq!(c.raw(0), Ok(0), "absent: no bytes");
        assert_eq!(c.rest(), [0x01, 0x80]);
        assert_eq!(c.raw(4), Err(Declined), "two bytes left");
        assert_eq!(c.raw(2), Ok(0x8001));
        assert_eq!(c.u8(), Err(Declined));
    }

    #[test]
    fn cursor_counts_are_the_readers_counts() {
        let b = [0u8; 12];
        let c = Cur::with_max(&b, 3);
        assert_eq!(c.count(3, 4), Ok(3));
        assert_eq!(c.count(4, 3), Err(Declined), "past the limit");
        assert_eq!(c.count(2, 7), Err(Declined), "past the bytes");
        let r = Reader::new("t", &b).with_limits(Limits {
            max_elements: 3,
            ..Limits::DEFAULT
        });
        assert_eq!(Fields::count(&r, 3, 4).ok(), Some(3));
        assert!(Fields::count(&r, 4, 3).is_err());
        assert!(Fields::count(&r, 2, 7).is_err());
    }

    #[test]
    fn a_count_field_is_checked_against_the_bytes_after_it() {
        // A u16 count of 3 elements of 2 bytes, with 5 bytes after it.
        let b = ByteBuilder::new()
            .u16_le(3, "count")
            .bytes(&[0; 5], "elements")
            .build();
        assert_eq!(Cur::new(&b).count_field(2, 2), Err(Declined));
        assert_eq!(Cur::new(&b).count_field(2, 1), Ok(3));
        let mut r = Reader::new("m3d", &b);
        let e = r
            .field("n", |r| r.count_field(2, 2))
            .err()
            .map(|e| e.to_string());
        assert!(
            e.as_deref()
                .is_some_and(|e| e.contains("n:") && e.contains("offset 0x0")),
            "{e:?}"
        );
    }
}
