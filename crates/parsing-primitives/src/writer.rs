//! The encoder side: a growable buffer with typed appends and back-patching.

use crate::compact;
use crate::element::{self, Element, Endian};
use crate::error::{Error, ErrorKind, Result};

/// A place reserved in the output to be filled in later (a length or an offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "a reserved field must be patched"]
pub struct Patch {
    at: usize,
    len: usize,
}

impl Patch {
    /// Offset of the reserved bytes.
    pub fn offset(&self) -> usize {
        self.at
    }

    /// Offset just past the reserved bytes.
    pub fn end(&self) -> usize {
        self.at + self.len
    }
}

macro_rules! put {
    ($($(#[$m:meta])* $name:ident($t:ty) = $conv:ident;)*) => {$(
        $(#[$m])*
        pub fn $name(&mut self, v: $t) -> &mut Self {
            self.buf.extend_from_slice(&v.$conv());
            self
        }
    )*};
}

/// Builds an encoded file.
///
/// ```
/// use parsing_primitives::Writer;
/// let mut w = Writer::new("unigine-mesh");
/// w.bytes(b"ms11");
/// let size = w.reserve_u32_le();
/// w.compact_u32(8640);
/// w.compact_nul_string(b"root")?;
/// w.patch_u32_le(size, 42);
/// assert_eq!(w.as_slice(), b"ms11\x2a\x00\x00\x00\x80\x87\x01\x05root\x00");
/// # Ok::<(), parsing_primitives::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Writer {
    format: &'static str,
    buf: Vec<u8>,
}

impl Writer {
    /// An empty writer; `format` names the crate in errors.
    pub fn new(format: &'static str) -> Self {
        Writer {
            format,
            buf: Vec::new(),
        }
    }

    /// An empty writer with room for `capacity` bytes.
    pub fn with_capacity(format: &'static str, capacity: usize) -> Self {
        Writer {
            format,
            buf: Vec::with_capacity(capacity),
        }
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True before anything is written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The output so far.
    pub fn as_slice(&self) -> &[u8] {
        &self.buf
    }

    /// The finished output.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }

    /// An [`ErrorKind::InvalidValue`] at the current output offset (for values a
    /// format cannot hold, e.g. a name longer than its length field allows).
    pub fn invalid(&self, message: impl Into<String>) -> Error {
        Error::new(
            self.format,
            self.buf.len() as u64,
            "",
            ErrorKind::InvalidValue {
                message: message.into(),
            },
        )
    }

    put! {
        /// Little-endian `u16`.
        u16_le(u16) = to_le_bytes;
        /// Little-endian `i16`.
        i16_le(i16) = to_le_bytes;
        /// Little-endian `u32`.
        u32_le(u32) = to_le_bytes;
        /// Little-endian `i32`.
        i32_le(i32) = to_le_bytes;
        /// Little-endian `u64`.
        u64_le(u64) = to_le_bytes;
        /// Little-endian `i64`.
        i64_le(i64) = to_le_bytes;
        /// Little-endian `f32`.
        f32_le(f32) = to_le_bytes;
        /// Little-endian `f64`.
        f64_le(f64) = to_le_bytes;
        /// Big-endian `u16`.
        u16_be(u16) = to_be_bytes;
        /// Big-endian `i16`.
        i16_be(i16) = to_be_bytes;
        /// Big-endian `u32`.
        u32_be(u32) = to_be_bytes;
        /// Big-endian `i32`.
        i32_be(i32) = to_be_bytes;
        /// Big-endian `f32`.
        f32_be(f32) = to_be_bytes;
    }

    /// `u8`.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }

    /// `i8`.
    pub fn i8(&mut self, v: i8) -> &mut Self {
        self.buf.push(v as u8);
        self
    }

    /// Raw bytes (a magic, an opaque block).
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(b);
        self
    }

    /// A little-endian bulk array in one copy.
    pub fn le_slice<T: Element>(&mut self, items: &[T]) -> &mut Self {
        element::encode_array(items, Endian::Little, &mut self.buf);
        self
    }

    /// A big-endian bulk array.
    pub fn be_slice<T: Element>(&mut self, items: &[T]) -> &mut Self {
        element::encode_array(items, Endian::Big, &mut self.buf);
        self
    }

    /// A non-negative compact int in its minimal encoding. Every `u32` fits.
    pub fn compact_u32(&mut self, v: u32) -> &mut Self {
        // Always in range: u32::MAX < COMPACT_MAX.
        let _ = compact::encode_compact(i64::from(v), &mut self.buf);
        self
    }

    /// A signed compact int (e.g. `-1` for "none"), refusing values beyond
    /// [`COMPACT_MAX`](crate::compact::COMPACT_MAX) in magnitude.
    pub fn compact_i64(&mut self, v: i64) -> Result<&mut Self> {
        if compact::encode_compact(v, &mut self.buf) {
            Ok(self)
        } else {
            Err(self.invalid(format!("{v} does not fit a compact int")))
        }
    }

    /// A compact count from a `usize`, refusing values above `u32::MAX`.
    pub fn compact_count(&mut self, n: usize) -> Result<&mut Self> {
        let v = u32::try_from(n).map_err(|_| self.invalid(format!("count {n} is too large")))?;
        Ok(self.compact_u32(v))
    }

    /// `i32` length counting the NUL, the bytes, then NUL (old UNIGINE formats).
    pub fn i32_nul_string(&mut self, s: &[u8]) -> Result<&mut Self> {
        self.check_no_nul(s)?;
        let len = i32::try_from(s.len() + 1)
            .map_err(|_| self.invalid(format!("string of {} bytes is too long", s.len())))?;
        self.i32_le(len);
        self.bytes(s).u8(0);
        Ok(self)
    }

    /// Compact length counting the NUL, the bytes, then NUL (ms10 and later).
    pub fn compact_nul_string(&mut self, s: &[u8]) -> Result<&mut Self> {
        self.check_no_nul(s)?;
        self.compact_count(s.len() + 1)?;
        self.bytes(s).u8(0);
        Ok(self)
    }

    fn check_no_nul(&self, s: &[u8]) -> Result<()> {
        if s.contains(&0) {
            return Err(self.invalid("string contains a NUL byte"));
        }
        Ok(())
    }

    /// Pascal string with a `u8` length.
    pub fn pascal_u8(&mut self, s: &[u8]) -> Result<&mut Self> {
        let n = u8::try_from(s.len())
            .map_err(|_| self.invalid(format!("string of {} bytes exceeds 255", s.len())))?;
        self.u8(n).bytes(s);
        Ok(self)
    }

    /// Pascal string with a big-endian `u16` length.
    pub fn pascal_u16_be(&mut self, s: &[u8]) -> Result<&mut Self> {
        let n = u16::try_from(s.len())
            .map_err(|_| self.invalid(format!("string of {} bytes exceeds 65535", s.len())))?;
        self.u16_be(n).bytes(s);
        Ok(self)
    }

    /// Reserves `len` zero bytes to fill in later with [`patch`](Self::patch).
    pub fn reserve(&mut self, len: usize) -> Patch {
        let at = self.buf.len();
        self.buf.resize(at + len, 0);
        Patch { at, len }
    }

    /// Reserves a little-endian `u32`.
    pub fn reserve_u32_le(&mut self) -> Patch {
        self.reserve(4)
    }

    /// Fills a reserved place; `bytes` must be exactly as long as the reservation.
    pub fn patch(&mut self, patch: Patch, bytes: &[u8]) -> Result<()> {
        if bytes.len() != patch.len {
            return Err(self.invalid(format!(
                "patch of {} bytes into a {}-byte field",
                bytes.len(),
                patch.len
            )));
        }
        self.buf[patch.at..patch.end()].copy_from_slice(bytes);
        Ok(())
    }

    /// Fills a reserved `u32` with `v`.
    pub fn patch_u32_le(&mut self, patch: Patch, v: u32) {
        // A reserve_u32_le patch is 4 bytes, so this cannot fail; a mismatched patch is
        // a programming error we surface by leaving the bytes untouched in release.
        debug_assert_eq!(patch.len, 4);
        if patch.len == 4 {
            self.buf[patch.at..patch.end()].copy_from_slice(&v.to_le_bytes());
        }
    }

    /// Fills a reserved `u32` with the number of bytes written since `from`
    /// (pass the patch's own [`Patch::offset`] to include the field, or [`Patch::end`]).
    pub fn patch_len_u32_le(&mut self, patch: Patch, from: usize) -> Result<()> {
        let len = self.buf.len().saturating_sub(from);
        let v = u32::try_from(len)
            .map_err(|_| self.invalid(format!("length {len} does not fit in 32 bits")))?;
        self.patch_u32_le(patch, v);
        Ok(())
    }
}

impl std::io::Write for Writer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
#[path = "tests/writer.rs"]
mod tests;
