//! The one small reader every decoder goes through.

use std::fmt::Write as _;

use nom::Parser;
use nom::number::complete as num;

use crate::budget::Budget;
use crate::compact;
use crate::element::{self, Element, Endian};
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::shared::SharedBytes;

/// One step of a context path, as [`Reader::field`], [`Reader::item`] and
/// [`Reader::label`] add them; [`path_text`] prints a list of them. Public for readers
/// of other inputs (a decoding stream) that report errors as a [`Reader`] would.
#[derive(Debug, Clone, Copy)]
pub enum Segment<'a> {
    /// A named field: `.name`.
    Field(&'static str),
    /// An array element: `[i]`.
    Index(usize),
    /// A name read from the file, attached to the step before: ` 'name'`.
    Label(&'a [u8]),
}

/// A context path as text (`surface[2] 'body'.tindices`), as errors print it.
///
/// ```
/// use parsing_primitives::{Segment, path_text};
/// let path = [
///     Segment::Field("surface"),
///     Segment::Index(2),
///     Segment::Label(b"body"),
///     Segment::Field("tindices"),
/// ];
/// assert_eq!(path_text(&path), "surface[2] 'body'.tindices");
/// ```
pub fn path_text(path: &[Segment<'_>]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Segment::Field(name) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(name);
            }
            Segment::Index(i) => {
                let _ = write!(s, "[{i}]");
            }
            Segment::Label(bytes) => {
                let text = String::from_utf8_lossy(bytes);
                let short: String = text.chars().take(64).collect();
                let _ = write!(s, " '{short}'");
            }
        }
    }
    s
}

/// A checked cursor over untrusted bytes.
///
/// Every read checks the bytes left first and fails with a positioned [`Error`]
/// carrying the absolute offset and the context path built with [`Reader::field`],
/// [`Reader::item`] and [`Reader::label`]. Scalars go through nom's complete parsers;
/// arrays are checked against the remaining input and [`Limits`] before anything is
/// allocated, then decoded in one bulk copy.
///
/// ```
/// use parsing_primitives::Reader;
/// let bytes = [b'm', b's', b'1', b'1', 0x02, 0x05, b'r', b'o', b'o', b't', 0];
/// let mut r = Reader::new("unigine-mesh", &bytes);
/// r.magic(b"ms11")?;
/// let n = r.field("num_surfaces", |r| r.compact_count(2))?;
/// assert_eq!(n, 2);
/// let name = r.field("surfaces", |r| r.item(0, |r| r.field("name", |r| r.compact_nul_string(1024))))?;
/// assert_eq!(name, b"root");
/// // The next read fails and says where and what.
/// let err = r.field("surfaces", |r| r.item(1, |r| r.field("name", |r| r.compact_nul_string(1024))))
///     .unwrap_err();
/// assert_eq!(err.to_string(),
///     "unigine-mesh: surfaces[1].name: unexpected end of input: needs 1 bytes but 0 remain (at offset 0xb)");
/// # Ok::<(), parsing_primitives::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    format: &'static str,
    data: &'a [u8],
    pos: usize,
    base: u64,
    limits: Limits,
    budget: Budget,
    path: Vec<Segment<'a>>,
    /// The buffer `data` is, when the caller shared it ([`Reader::over_shared`]).
    shared: Option<SharedBytes>,
}

macro_rules! scalars {
    ($($(#[$m:meta])* $name:ident -> $t:ty = $f:ident;)*) => {$(
        $(#[$m])*
        #[inline]
        pub fn $name(&mut self) -> Result<$t> {
            self.parse(std::mem::size_of::<$t>() as u64, num::$f::<&'a [u8], nom::error::Error<&'a [u8]>>)
        }
    )*};
}

impl<'a> Reader<'a> {
    /// A reader over `data` with default [`Limits`]; `format` names the crate in errors.
    pub fn new(format: &'static str, data: &'a [u8]) -> Self {
        Reader {
            format,
            data,
            pos: 0,
            base: 0,
            limits: Limits::DEFAULT,
            budget: Budget::new(Limits::DEFAULT),
            path: Vec::new(),
            shared: None,
        }
    }

    /// A reader over `data`'s bytes that can keep ranges of them rather than copies
    /// ([`Reader::shared`]).
    ///
    /// ```
    /// use parsing_primitives::{Reader, SharedBytes};
    /// let data = SharedBytes::from(b"\x03\0\0\0abc".to_vec());
    /// let mut r = Reader::over_shared("t", &data);
    /// let n = r.u32_le()? as usize;
    /// let at = r.position();
    /// r.bytes(n)?;
    /// let kept = r.shared().and_then(|s| s.slice(at..at + n));
    /// assert_eq!(kept.as_deref(), Some(&b"abc"[..]));
    /// # Ok::<(), parsing_primitives::Error>(())
    /// ```
    pub fn over_shared(format: &'static str, data: &'a SharedBytes) -> Self {
        Reader {
            shared: Some(data.clone()),
            ..Reader::new(format, data)
        }
    }

    /// The shared buffer this reader's slice is ([`Reader::over_shared`]): positions
    /// ([`Reader::position`]) index it; a sub-reader's is its range of its parent's.
    /// `None` for a reader over borrowed bytes.
    pub fn shared(&self) -> Option<&SharedBytes> {
        self.shared.as_ref()
    }

    /// Replaces the limits, with a fresh [`Budget`] of `limits.max_alloc_bytes`.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self.budget = Budget::new(limits);
        self
    }

    /// Charges `budget` (shared with the caller's other steps) instead of a budget of
    /// this reader's own; the limits become the budget's.
    ///
    /// ```
    /// use parsing_primitives::{Budget, Limits, Reader};
    /// let budget = Budget::new(Limits { max_alloc_bytes: 16, ..Limits::DEFAULT });
    /// let data = [0u8; 12];
    /// let mut a = Reader::new("t", &data).with_budget(budget.clone());
    /// a.le_array::<u32>(3)?;          // 12 bytes charged
    /// let mut b = Reader::new("t", &data).with_budget(budget.clone());
    /// assert!(b.le_array::<u32>(3).is_err()); // 24 would pass 16
    /// assert_eq!(budget.used(), 12);
    /// # Ok::<(), parsing_primitives::Error>(())
    /// ```
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.limits = budget.limits();
        self.budget = budget;
        self
    }

    /// The budget this reader charges (shared by its sub-readers).
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// Makes reported offsets start at `base` (for data that sits inside a larger file).
    pub fn with_base_offset(mut self, base: u64) -> Self {
        self.base = base;
        self
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Absolute offset of the next byte.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Position inside this reader's slice.
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// True when every byte has been read.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The unread bytes, without consuming them.
    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    // ---------------------------------------------------------------- context path

    /// Runs `f` with `name` appended to the context path (`a.b.name`).
    #[inline]
    pub fn field<T>(
        &mut self,
        name: &'static str,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.scoped(Segment::Field(name), f)
    }

    /// Runs `f` with `[index]` appended to the context path.
    #[inline]
    pub fn item<T>(&mut self, index: usize, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.scoped(Segment::Index(index), f)
    }

    /// Adds ` 'label'` (a name read from the file) to the current path step until the
    /// enclosing [`field`](Self::field) or [`item`](Self::item) scope ends, so later
    /// errors read `surface[2] 'body'.tindices`.
    pub fn label(&mut self, label: &'a [u8]) {
        self.path.push(Segment::Label(label));
    }

    #[inline]
    fn scoped<T>(
        &mut self,
        segment: Segment<'a>,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        let mark = self.path.len();
        self.path.push(segment);
        let out = f(self);
        self.path.truncate(mark);
        out
    }

    /// The current context path as text.
    pub fn path(&self) -> String {
        path_text(&self.path)
    }

    // ---------------------------------------------------------------- errors

    /// An error at the current offset and path.
    pub fn error(&self, kind: ErrorKind) -> Error {
        self.error_at(self.offset(), kind)
    }

    /// An error at an absolute offset, with the current path.
    pub fn error_at(&self, offset: u64, kind: ErrorKind) -> Error {
        Error::new(self.format, offset, self.path(), kind)
    }

    /// An [`ErrorKind::InvalidValue`] at an absolute offset.
    pub fn invalid_at(&self, offset: u64, message: impl Into<String>) -> Error {
        self.error_at(
            offset,
            ErrorKind::InvalidValue {
                message: message.into(),
            },
        )
    }

    /// An [`ErrorKind::InvalidValue`] at `at` for element `index` of array `field`
    /// (`field[index]` appended to the path): for checks made after an array was read
    /// in bulk.
    pub fn invalid_item_at(
        &mut self,
        field: &'static str,
        index: usize,
        at: u64,
        message: impl Into<String>,
    ) -> Error {
        let mark = self.path.len();
        self.path.push(Segment::Field(field));
        self.path.push(Segment::Index(index));
        let e = self.invalid_at(at, message);
        self.path.truncate(mark);
        e
    }

    fn end_error(&self, needed: u64) -> Error {
        self.error(ErrorKind::UnexpectedEnd {
            needed,
            remaining: self.remaining() as u64,
        })
    }

    // ---------------------------------------------------------------- scalars

    // Generic over the nom parser (not a fn pointer) so each scalar read inlines.
    #[inline]
    fn parse<T>(
        &mut self,
        needed: u64,
        mut parser: impl Parser<&'a [u8], Output = T, Error = nom::error::Error<&'a [u8]>>,
    ) -> Result<T> {
        let input = &self.data[self.pos..];
        match parser.parse_complete(input) {
            Ok((rest, value)) => {
                self.pos = self.data.len() - rest.len();
                Ok(value)
            }
            Err(_) => Err(self.end_error(needed)),
        }
    }

    scalars! {
        /// `u8`.
        u8 -> u8 = u8;
        /// `i8`.
        i8 -> i8 = i8;
        /// Little-endian `u16`.
        u16_le -> u16 = le_u16;
        /// Little-endian `i16`.
        i16_le -> i16 = le_i16;
        /// Little-endian `u32`.
        u32_le -> u32 = le_u32;
        /// Little-endian `i32`.
        i32_le -> i32 = le_i32;
        /// Little-endian `u64`.
        u64_le -> u64 = le_u64;
        /// Little-endian `i64`.
        i64_le -> i64 = le_i64;
        /// Little-endian IEEE-754 `f32`.
        f32_le -> f32 = le_f32;
        /// Little-endian IEEE-754 `f64`.
        f64_le -> f64 = le_f64;
        /// Big-endian `u16`.
        u16_be -> u16 = be_u16;
        /// Big-endian `i16`.
        i16_be -> i16 = be_i16;
        /// Big-endian `u32`.
        u32_be -> u32 = be_u32;
        /// Big-endian `i32`.
        i32_be -> i32 = be_i32;
        /// Big-endian IEEE-754 `f32`.
        f32_be -> f32 = be_f32;
    }

    /// UNIGINE compact int (see [`compact`](crate::compact)).
    pub fn compact_int(&mut self) -> Result<i64> {
        let start = self.offset();
        let input = &self.data[self.pos..];
        match compact::compact_int(input) {
            Ok((rest, v)) => {
                self.pos = self.data.len() - rest.len();
                Ok(v)
            }
            Err(nom::Err::Error(e)) if e.code == nom::error::ErrorKind::TooLarge => {
                Err(self.invalid_at(start, "compact int longer than 5 bytes"))
            }
            Err(_) => {
                // Needed: the bytes present (all with "more" set) plus one.
                Err(self.end_error(input.len() as u64 + 1))
            }
        }
    }

    /// A compact int used as an element count: negative values are invalid and the count
    /// is checked like [`count`](Self::count) with `min_element_size` bytes per element.
    pub fn compact_count(&mut self, min_element_size: usize) -> Result<usize> {
        let start = self.offset();
        let v = self.compact_int()?;
        let n =
            u64::try_from(v).map_err(|_| self.invalid_at(start, format!("negative count {v}")))?;
        self.count_at(start, n, min_element_size)
    }

    /// A little-endian `i32` used as an element count (old UNIGINE formats): negative
    /// values are invalid and the count is checked like [`count`](Self::count), with
    /// errors at the count's own offset.
    pub fn i32_count(&mut self, min_element_size: usize) -> Result<usize> {
        let start = self.offset();
        let v = self.i32_le()?;
        let n =
            u64::try_from(v).map_err(|_| self.invalid_at(start, format!("negative count {v}")))?;
        self.count_at(start, n, min_element_size)
    }

    // ---------------------------------------------------------------- raw bytes

    /// The next `n` bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.end_error(n as u64));
        }
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// The next `N` bytes as an array.
    pub fn array_of<const N: usize>(&mut self) -> Result<[u8; N]> {
        let b = self.bytes(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    /// The next `n` bytes without consuming them.
    pub fn peek(&self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.end_error(n as u64));
        }
        Ok(&self.data[self.pos..self.pos + n])
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.bytes(n).map(|_| ())
    }

    /// Requires the exact bytes `expected` (a 4-byte magic, usually).
    pub fn magic(&mut self, expected: &[u8]) -> Result<()> {
        let start = self.offset();
        let found = self.peek(expected.len())?;
        if found != expected {
            return Err(self.error_at(
                start,
                ErrorKind::BadMagic {
                    found: found.to_vec(),
                    expected: expected.to_vec(),
                },
            ));
        }
        self.pos += expected.len();
        Ok(())
    }

    /// A reader over the next `len` bytes, which this reader skips. Offsets in its
    /// errors stay absolute and it inherits the path, the limits and the budget (what it
    /// charges, this reader's operation pays).
    pub fn sub(&mut self, len: usize) -> Result<Reader<'a>> {
        let (base, start) = (self.offset(), self.pos);
        let data = self.bytes(len)?;
        Ok(Reader {
            format: self.format,
            data,
            pos: 0,
            base,
            limits: self.limits,
            budget: self.budget.clone(),
            path: self.path.clone(),
            shared: (self.shared.as_ref()).and_then(|s| s.slice(start..start + len)),
        })
    }

    /// Fails with [`ErrorKind::TrailingBytes`] unless every byte was read.
    pub fn finish(&self) -> Result<()> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(self.error(ErrorKind::TrailingBytes {
                count: self.remaining() as u64,
            }))
        }
    }

    // ---------------------------------------------------------------- strings

    /// `i32` length counting the NUL, then that many bytes ending in NUL (old UNIGINE
    /// formats). Returns the bytes before the NUL. A length of 0 is an empty string with
    /// nothing stored; `max_len` caps the stored length.
    pub fn i32_nul_string(&mut self, max_len: usize) -> Result<&'a [u8]> {
        let start = self.offset();
        let len = self.i32_le()?;
        self.nul_string_body(start, i64::from(len), max_len)
    }

    /// Compact-int length counting the NUL, then the bytes ending in NUL (ms10 and later).
    pub fn compact_nul_string(&mut self, max_len: usize) -> Result<&'a [u8]> {
        let start = self.offset();
        let len = self.compact_int()?;
        self.nul_string_body(start, len, max_len)
    }

    fn nul_string_body(&mut self, start: u64, len: i64, max_len: usize) -> Result<&'a [u8]> {
        let len = usize::try_from(len)
            .map_err(|_| self.invalid_at(start, format!("negative string length {len}")))?;
        if len > max_len {
            return Err(self.error_at(
                start,
                ErrorKind::LimitExceeded {
                    what: "string length",
                    value: len as u64,
                    limit: max_len as u64,
                },
            ));
        }
        if len == 0 {
            return Ok(&[]);
        }
        let body_start = self.offset();
        let body = self.bytes(len)?;
        match body.split_last() {
            Some((0, text)) => Ok(text),
            _ => Err(self.invalid_at(
                body_start,
                format!("string of length {len} does not end in NUL"),
            )),
        }
    }

    /// Pascal string with a `u8` length and no terminator.
    pub fn pascal_u8(&mut self) -> Result<&'a [u8]> {
        let n = self.u8()?;
        self.bytes(usize::from(n))
    }

    /// Pascal string with a big-endian `u16` length and no terminator.
    pub fn pascal_u16_be(&mut self) -> Result<&'a [u8]> {
        let n = self.u16_be()?;
        self.bytes(usize::from(n))
    }

    // ---------------------------------------------------------------- counts and arrays

    /// Checks a count read from the file: at most [`Limits::max_elements`], and
    /// `count * min_element_size` must fit in the bytes left. Call this before any
    /// allocation sized by `count`.
    pub fn count(&self, count: u64, min_element_size: usize) -> Result<usize> {
        self.count_at(self.offset(), count, min_element_size)
    }

    /// [`count`](Self::count) for a count field that started at absolute offset `at`
    /// (errors point at the field, not past it).
    pub fn count_at(&self, at: u64, count: u64, min_element_size: usize) -> Result<usize> {
        check_count(
            count,
            min_element_size,
            self.remaining() as u64,
            &self.limits,
        )
        .map_err(|kind| self.error_at(at, kind))
    }

    /// Charges `bytes` of decoded data to the [`Budget`] before they are allocated; the
    /// error names the current offset and path.
    pub fn charge(&mut self, bytes: u64) -> Result<()> {
        self.charge_for("decoded data", bytes)
    }

    /// [`charge`](Self::charge), naming what is being built (`"inflated payload"`).
    pub fn charge_for(&mut self, what: &'static str, bytes: u64) -> Result<()> {
        self.budget
            .charge(what, bytes)
            .map_err(|e| self.error(ErrorKind::OverBudget(e)))
    }

    /// `count` elements decoded by `f`, each taking at least `min_element_size` bytes.
    /// The count is checked first; each element runs inside an `[i]` path step.
    pub fn array<T>(
        &mut self,
        count: u64,
        min_element_size: usize,
        mut f: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        let n = self.count(count, min_element_size)?;
        self.charge((n as u64).saturating_mul(std::mem::size_of::<T>() as u64))?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            out.push(self.item(i, &mut f)?);
        }
        Ok(out)
    }

    /// [`array`](Self::array) for hot paths: `fast` decodes one element from the start of
    /// the bytes left, giving the value and the bytes it used, or `None` when it cannot
    /// (too few bytes, a form it does not take); then `slow` decodes that element with
    /// the checked reader inside its `[i]` path step, so errors are [`array`]'s. `fast`
    /// must decode exactly what `slow` would and use at least one byte.
    ///
    /// ```
    /// use parsing_primitives::Reader;
    /// // u16 values: the fast path takes two bytes at a time; the slow path reports.
    /// let fast = |b: &[u8]| Some((u16::from_le_bytes(b.get(..2)?.try_into().ok()?), 2));
    /// let mut r = Reader::new("test", &[1, 0, 2, 0]);
    /// assert_eq!(r.array_bulk(2, 2, fast, |r| r.le::<u16>())?, vec![1, 2]);
    /// let mut r = Reader::new("test", &[1, 0, 2, 0, 3]);
    /// let e = r.array_bulk(3, 1, fast, |r| r.le::<u16>()).err().map(|e| e.to_string());
    /// assert!(e.is_some_and(|e| e.contains("[2]")));
    /// # Ok::<(), parsing_primitives::Error>(())
    /// ```
    pub fn array_bulk<T>(
        &mut self,
        count: u64,
        min_element_size: usize,
        mut fast: impl FnMut(&[u8]) -> Option<(T, usize)>,
        mut slow: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        let n = self.count(count, min_element_size)?;
        self.charge((n as u64).saturating_mul(std::mem::size_of::<T>() as u64))?;
        let mut out = Vec::with_capacity(n);
        let data = self.data;
        let mut pos = self.pos;
        while out.len() < n {
            let decoded = data
                .get(pos..)
                .and_then(&mut fast)
                .filter(|(_, used)| *used > 0 && pos.saturating_add(*used) <= data.len());
            match decoded {
                Some((v, used)) => {
                    out.push(v);
                    pos += used;
                }
                None => {
                    self.pos = pos;
                    let i = out.len();
                    out.push(self.item(i, &mut slow)?);
                    pos = self.pos;
                }
            }
        }
        self.pos = pos;
        Ok(out)
    }

    /// `count` compact ints ([`compact_int`](Self::compact_int)) in one pass, each at
    /// least one byte.
    ///
    /// ```
    /// use parsing_primitives::Reader;
    /// let mut r = Reader::new("test", &[0x05, 0x45, 0x80, 0x87, 0x01]);
    /// assert_eq!(r.compact_ints(3)?, vec![5, -5, 8640]);
    /// assert!(Reader::new("test", &[0x05, 0x80]).compact_ints(2).is_err()); // cut
    /// # Ok::<(), parsing_primitives::Error>(())
    /// ```
    pub fn compact_ints(&mut self, count: u64) -> Result<Vec<i64>> {
        self.array_bulk(count, 1, compact::compact_prefix, Self::compact_int)
    }

    /// One little-endian element, without allocating (e.g. `le::<[i16; 4]>()`).
    pub fn le<T: Element>(&mut self) -> Result<T> {
        self.one(Endian::Little)
    }

    /// One big-endian element, without allocating.
    pub fn be<T: Element>(&mut self) -> Result<T> {
        self.one(Endian::Big)
    }

    fn one<T: Element>(&mut self, endian: Endian) -> Result<T> {
        let bytes = self.bytes(std::mem::size_of::<T>())?;
        let mut v = T::zeroed();
        bytemuck::bytes_of_mut(&mut v).copy_from_slice(bytes);
        if endian != Endian::NATIVE {
            T::swap_bytes(std::slice::from_mut(&mut v));
        }
        Ok(v)
    }

    /// `count` little-endian elements in one bulk copy (e.g. `le_array::<[f32; 3]>`).
    pub fn le_array<T: Element>(&mut self, count: u64) -> Result<Vec<T>> {
        self.bulk(count, Endian::Little)
    }

    /// `count` big-endian elements in one bulk copy.
    pub fn be_array<T: Element>(&mut self, count: u64) -> Result<Vec<T>> {
        self.bulk(count, Endian::Big)
    }

    fn bulk<T: Element>(&mut self, count: u64, endian: Endian) -> Result<Vec<T>> {
        let size = std::mem::size_of::<T>();
        let n = self.count(count, size)?;
        self.charge((n * size) as u64)?;
        let bytes = self.bytes(n * size)?;
        Ok(element::decode_array(bytes, endian))
    }
}

/// The check of [`Reader::count_at`] for input read some other way (a stream with
/// `remaining` bytes left): `count * min_element_size` must fit in them, and `count`
/// must be within [`Limits::max_elements`] and a `usize`.
///
/// ```
/// use parsing_primitives::{ErrorKind, Limits, check_count};
/// assert_eq!(check_count(3, 4, 12, &Limits::DEFAULT), Ok(3));
/// assert!(matches!(
///     check_count(4, 4, 12, &Limits::DEFAULT),
///     Err(ErrorKind::CountTooLarge { count: 4, needed: 16, remaining: 12 })
/// ));
/// ```
pub fn check_count(
    count: u64,
    min_element_size: usize,
    remaining: u64,
    limits: &Limits,
) -> std::result::Result<usize, ErrorKind> {
    // The input-size check comes first: it is the more telling message.
    let needed = count.saturating_mul(min_element_size as u64);
    if needed > remaining {
        return Err(ErrorKind::CountTooLarge {
            count,
            needed,
            remaining,
        });
    }
    if count > limits.max_elements {
        return Err(ErrorKind::LimitExceeded {
            what: "array length",
            value: count,
            limit: limits.max_elements,
        });
    }
    usize::try_from(count).map_err(|_| ErrorKind::LimitExceeded {
        what: "array length",
        value: count,
        limit: usize::MAX as u64,
    })
}

#[cfg(test)]
#[path = "tests/reader.rs"]
mod tests;
