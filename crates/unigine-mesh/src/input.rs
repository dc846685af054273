//! What the geometry reader reads from: the file's bytes (a [`Reader`]) or the content
//! of an LZ4 block decoded through a small window ([`BlockReader`]), so a block is
//! parsed as it decodes, straight into the surface's arrays, instead of being decoded
//! whole into a buffer of its size first.

use parsing_primitives::{
    Budget, Element, Error, ErrorKind, Limits, Reader, Result, Segment, check_count, compact,
    path_text,
};

use crate::FORMAT_NAME;
use crate::lz4::Lz4Window;

/// The reads the geometry parser makes (`ms1x::read_geometry` and its parts), with
/// [`Reader`]'s meaning: offsets, context paths and errors alike.
pub(crate) trait Input: Sized {
    /// As [`Reader::field`].
    fn field<T>(&mut self, name: &'static str, f: impl FnOnce(&mut Self) -> Result<T>)
    -> Result<T>;
    /// As [`Reader::item`].
    fn item<T>(&mut self, index: usize, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T>;
    /// As [`Reader::offset`].
    fn offset(&self) -> u64;
    /// As [`Reader::count`].
    fn count(&self, count: u64, min_element_size: usize) -> Result<usize>;
    /// As [`Reader::charge_for`].
    fn charge_for(&mut self, what: &'static str, bytes: u64) -> Result<()>;
    /// As [`Reader::invalid_at`].
    fn invalid_at(&self, offset: u64, message: impl Into<String>) -> Error;
    /// As [`Reader::compact_count`].
    fn compact_count(&mut self, min_element_size: usize) -> Result<usize>;
    /// As [`Reader::le`].
    fn le<T: Element>(&mut self) -> Result<T>;
    /// As [`Reader::le_array`].
    fn le_array<T: Element>(&mut self, count: u64) -> Result<Vec<T>>;
    /// The next `n` bytes, handed to `f` in order in pieces of a multiple of `align`
    /// bytes (`n` a multiple of it); fails, as [`Reader::bytes`], when fewer remain.
    fn pieces(&mut self, n: usize, align: usize, f: impl FnMut(&[u8])) -> Result<()>;
    /// As [`Reader::finish`].
    fn finish(&mut self) -> Result<()>;
    /// As [`Reader::compact_int`].
    fn compact_int(&mut self) -> Result<i64>;
    /// As [`Reader::array_bulk`]; `fast` must decide within [`SLACK`] bytes.
    fn array_bulk<T>(
        &mut self,
        count: u64,
        min_element_size: usize,
        fast: impl FnMut(&[u8]) -> Option<(T, usize)>,
        slow: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>>;
    /// The bytes at hand for a bulk decoder: at least [`SLACK`] unless the content ends
    /// first (all that is left of a [`Reader`]; a window's worth of a [`BlockReader`]).
    fn at_hand(&mut self) -> Result<&[u8]>;
    /// Moves past `n` of the bytes [`Input::at_hand`] gave.
    fn advance(&mut self, n: usize) -> Result<()>;

    /// As [`Input::array_bulk`], `run` decoding many elements at once: `run(bytes, out,
    /// want)` appends up to `want` elements decoded from the start of `bytes` and returns
    /// the bytes they took. Where it appends none, `slow` decides the next element (a
    /// [`BlockReader`] whose `run` stopped short of the window's end for want of bytes
    /// gets more with the next [`Input::at_hand`]).
    fn array_runs<T>(
        &mut self,
        count: u64,
        min_element_size: usize,
        mut run: impl FnMut(&[u8], &mut Vec<T>, usize) -> usize,
        mut slow: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        let n = self.counted::<T>(count, min_element_size)?;
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let before = out.len();
            let bytes = self.at_hand()?;
            let used = run(bytes, &mut out, n - before).min(bytes.len());
            self.advance(used)?;
            if out.len() == before {
                out.push(self.item(before, &mut slow)?);
            }
        }
        Ok(out)
    }

    /// `count` checked ([`Input::count`]) and `count` values of `T` charged as decoded
    /// data, before an array of them is made (as [`Reader::array`] does).
    fn counted<T>(&mut self, count: u64, min_element_size: usize) -> Result<usize> {
        let n = self.count(count, min_element_size)?;
        self.charge_for(
            "decoded data",
            (n as u64).saturating_mul(std::mem::size_of::<T>() as u64),
        )?;
        Ok(n)
    }

    /// As [`Reader::array`].
    fn array<T>(
        &mut self,
        count: u64,
        min_element_size: usize,
        mut f: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        let n = self.counted::<T>(count, min_element_size)?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            out.push(self.item(i, &mut f)?);
        }
        Ok(out)
    }
}

impl Input for Reader<'_> {
    fn field<T>(
        &mut self,
        name: &'static str,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        Reader::field(self, name, f)
    }

    fn item<T>(&mut self, index: usize, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        Reader::item(self, index, f)
    }

    fn offset(&self) -> u64 {
        Reader::offset(self)
    }

    fn count(&self, count: u64, min_element_size: usize) -> Result<usize> {
        Reader::count(self, count, min_element_size)
    }

    fn charge_for(&mut self, what: &'static str, bytes: u64) -> Result<()> {
        Reader::charge_for(self, what, bytes)
    }

    fn invalid_at(&self, offset: u64, message: impl Into<String>) -> Error {
        Reader::invalid_at(self, offset, message)
    }

    fn compact_count(&mut self, min_element_size: usize) -> Result<usize> {
        Reader::compact_count(self, min_element_size)
    }

    fn le<T: Element>(&mut self) -> Result<T> {
        Reader::le(self)
    }

    fn le_array<T: Element>(&mut self, count: u64) -> Result<Vec<T>> {
        Reader::le_array(self, count)
    }

    fn pieces(&mut self, n: usize, _align: usize, mut f: impl FnMut(&[u8])) -> Result<()> {
        f(self.bytes(n)?);
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        Reader::finish(self)
    }

    fn compact_int(&mut self) -> Result<i64> {
        Reader::compact_int(self)
    }

    fn array_bulk<T>(
        &mut self,
        count: u64,
        min_element_size: usize,
        fast: impl FnMut(&[u8]) -> Option<(T, usize)>,
        slow: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        Reader::array_bulk(self, count, min_element_size, fast, slow)
    }

    fn at_hand(&mut self) -> Result<&[u8]> {
        Ok(self.rest())
    }

    fn advance(&mut self, n: usize) -> Result<()> {
        self.skip(n)
    }
}

/// Bytes an element's `fast` decoder of [`Input::array_bulk`] may need to decide: a
/// [`BlockReader`] hands it at least this many unless the content ends first.
pub(crate) const SLACK: usize = 64;

/// Bytes a [`BlockReader`] decodes ahead for a bulk array.
const BULK: usize = 1 << 16;

/// The content of an LZ4 block, read as it decodes (see the module docs). Offsets are
/// offsets in the content, as for a [`Reader`] over the decoded bytes. A corrupt stream
/// fails with the error it was made with ([`BlockReader::new`]).
pub(crate) struct BlockReader<'s> {
    window: Lz4Window<'s>,
    path: Vec<Segment<'static>>,
    limits: Limits,
    budget: Budget,
    corrupt: Error,
}

impl<'s> BlockReader<'s> {
    /// A reader of a block's content through `window`; `corrupt` is the error for a
    /// stream that does not decode to its declared size.
    pub(crate) fn new(window: Lz4Window<'s>, budget: Budget, corrupt: Error) -> Self {
        BlockReader {
            window,
            path: Vec::new(),
            // The operation's limits, as a Reader on the budget would take them.
            limits: budget.limits(),
            budget,
            corrupt,
        }
    }

    /// Decodes what is left of the stream: `Err` with the corrupt-block error when it
    /// does not decode to its declared size (checked after a parse, whatever its
    /// outcome, so a corrupt block is reported as such, as when decoded whole first).
    pub(crate) fn check_rest(&mut self) -> Result<()> {
        self.window.check_rest().map_err(|_| self.corrupt.clone())
    }

    fn error_at(&self, offset: u64, kind: ErrorKind) -> Error {
        Error::new(FORMAT_NAME, offset, path_text(&self.path), kind)
    }

    fn scoped<T>(
        &mut self,
        step: Segment<'static>,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        let mark = self.path.len();
        self.path.push(step);
        let out = f(self);
        self.path.truncate(mark);
        out
    }

    /// At least `n` decoded bytes (all that remain when fewer), or the corrupt-block
    /// error.
    fn fill(&mut self, n: usize) -> Result<&[u8]> {
        match self.window.fill(n) {
            Ok(b) => Ok(b),
            Err(_) => Err(self.corrupt.clone()),
        }
    }

    /// `n` bytes or the end-of-input error a [`Reader`] gives.
    fn need(&mut self, n: usize) -> Result<()> {
        let at = self.offset();
        let remaining = self.window.remaining();
        if (n as u64) > remaining {
            return Err(self.error_at(
                at,
                ErrorKind::UnexpectedEnd {
                    needed: n as u64,
                    remaining,
                },
            ));
        }
        Ok(())
    }
}

impl Input for BlockReader<'_> {
    fn field<T>(
        &mut self,
        name: &'static str,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.scoped(Segment::Field(name), f)
    }

    fn item<T>(&mut self, index: usize, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.scoped(Segment::Index(index), f)
    }

    fn offset(&self) -> u64 {
        self.window.offset()
    }

    fn count(&self, count: u64, min_element_size: usize) -> Result<usize> {
        check_count(
            count,
            min_element_size,
            self.window.remaining(),
            &self.limits,
        )
        .map_err(|kind| self.error_at(self.offset(), kind))
    }

    fn charge_for(&mut self, what: &'static str, bytes: u64) -> Result<()> {
        self.budget
            .charge(what, bytes)
            .map_err(|e| self.error_at(self.offset(), ErrorKind::OverBudget(e)))
    }

    fn invalid_at(&self, offset: u64, message: impl Into<String>) -> Error {
        self.error_at(
            offset,
            ErrorKind::InvalidValue {
                message: message.into(),
            },
        )
    }

    fn compact_count(&mut self, min_element_size: usize) -> Result<usize> {
        let at = self.offset();
        let v = self.compact_int()?;
        let n = u64::try_from(v).map_err(|_| self.invalid_at(at, format!("negative count {v}")))?;
        check_count(n, min_element_size, self.window.remaining(), &self.limits)
            .map_err(|kind| self.error_at(at, kind))
    }

    fn compact_int(&mut self) -> Result<i64> {
        let at = self.offset();
        let bytes = self.fill(compact::COMPACT_MAX_LEN)?;
        let Some((v, used)) = compact::compact_prefix(bytes) else {
            // Cut short or too long: a reader over the same bytes gives the error.
            let e = Reader::new(FORMAT_NAME, bytes)
                .with_base_offset(at)
                .compact_int()
                .err();
            let kind = e.map_or(
                ErrorKind::InvalidValue {
                    message: "compact int".into(),
                },
                |e| e.kind().clone(),
            );
            return Err(self.error_at(at, kind));
        };
        self.window.consume(used);
        Ok(v)
    }

    fn array_bulk<T>(
        &mut self,
        count: u64,
        min_element_size: usize,
        mut fast: impl FnMut(&[u8]) -> Option<(T, usize)>,
        mut slow: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        let n = self.counted::<T>(count, min_element_size)?;
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let bytes = self.fill(BULK)?;
            // Reader::array_bulk's loop over the bytes at hand, written out here: as a
            // shared function it stopped `fast` being inlined, which cost an ms14 read
            // about a tenth (measured side by side).
            let mut pos = 0;
            while out.len() < n {
                let decoded = bytes
                    .get(pos..)
                    .and_then(&mut fast)
                    .filter(|(_, used)| *used > 0 && pos.saturating_add(*used) <= bytes.len());
                let Some((v, used)) = decoded else { break };
                out.push(v);
                pos += used;
            }
            let cut = bytes.len() - pos < SLACK && (bytes.len() as u64) < self.window.remaining();
            self.window.consume(pos);
            // An element cut by the window's end: decode more and carry on.
            if out.len() == n || (pos > 0 && cut) {
                continue;
            }
            // `fast` refused with the bytes it needs at hand: `slow` decides.
            let i = out.len();
            out.push(self.item(i, &mut slow)?);
        }
        Ok(out)
    }

    fn at_hand(&mut self) -> Result<&[u8]> {
        self.fill(BULK)
    }

    fn advance(&mut self, n: usize) -> Result<()> {
        self.window.consume(n);
        Ok(())
    }

    fn le<T: Element>(&mut self) -> Result<T> {
        let size = std::mem::size_of::<T>();
        self.need(size)?;
        let mut v = T::zeroed();
        // `need` made sure the bytes are there.
        if let Some(bytes) = self.fill(size)?.get(..size) {
            bytemuck::bytes_of_mut(&mut v).copy_from_slice(bytes);
        }
        self.window.consume(size);
        if cfg!(target_endian = "big") {
            T::swap_bytes(std::slice::from_mut(&mut v));
        }
        Ok(v)
    }

    fn le_array<T: Element>(&mut self, count: u64) -> Result<Vec<T>> {
        let size = std::mem::size_of::<T>();
        let n = self.counted::<T>(count, size)?;
        // Within the content's size, which fits a usize where the window was made.
        let bytes = n.checked_mul(size).ok_or_else(|| self.corrupt.clone())?;
        let mut out = vec![T::zeroed(); n];
        let mut at = 0;
        self.pieces(bytes, 1, |piece| {
            let to = bytemuck::cast_slice_mut::<T, u8>(&mut out);
            // The pieces add up to the array's bytes.
            if let Some(to) = to.get_mut(at..at + piece.len()) {
                to.copy_from_slice(piece);
            }
            at += piece.len();
        })?;
        if cfg!(target_endian = "big") {
            T::swap_bytes(&mut out);
        }
        Ok(out)
    }

    fn pieces(&mut self, n: usize, align: usize, mut f: impl FnMut(&[u8])) -> Result<()> {
        self.need(n)?;
        let align = align.max(1);
        let mut left = n;
        while left > 0 {
            let avail = self.fill(left.min(crate::lz4::WINDOW))?;
            let k = avail.len().min(left) / align * align;
            let piece = avail.get(..k).filter(|p| !p.is_empty());
            let Some(piece) = piece else {
                // The window always holds more than `align` bytes of what remains.
                return Err(self.corrupt.clone());
            };
            f(piece);
            self.window.consume(k);
            left -= k;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        match self.window.remaining() {
            0 => Ok(()),
            count => Err(self.error_at(self.offset(), ErrorKind::TrailingBytes { count })),
        }
    }
}
