//! Hand-assembled byte fixtures, one commented field per call.

use std::fmt::Write as _;

/// Builds a byte string field by field, keeping each field's offset and comment so a
/// failing test can print an annotated listing.
///
/// ```
/// use test_support::ByteBuilder;
/// let b = ByteBuilder::new()
///     .bytes(b"ms11", "magic")
///     .u8(0x05, "compact len 5 (incl. NUL)")
///     .bytes(b"root\0", "name");
/// assert_eq!(b.build(), b"ms11\x05root\0");
/// assert!(b.listing().contains("0x0004  05  compact len 5"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct ByteBuilder {
    data: Vec<u8>,
    fields: Vec<(usize, usize, String)>,
}

impl ByteBuilder {
    /// Empty.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends raw bytes with a comment.
    pub fn bytes(mut self, b: &[u8], comment: &str) -> Self {
        self.fields
            .push((self.data.len(), b.len(), comment.to_string()));
        self.data.extend_from_slice(b);
        self
    }

    /// A byte.
    pub fn u8(self, v: u8, comment: &str) -> Self {
        self.bytes(&[v], comment)
    }

    /// Little-endian `u16`.
    pub fn u16_le(self, v: u16, comment: &str) -> Self {
        self.bytes(&v.to_le_bytes(), comment)
    }

    /// Little-endian `i16`.
    pub fn i16_le(self, v: i16, comment: &str) -> Self {
        self.bytes(&v.to_le_bytes(), comment)
    }

    /// Little-endian `u32`.
    pub fn u32_le(self, v: u32, comment: &str) -> Self {
        self.bytes(&v.to_le_bytes(), comment)
    }

    /// Little-endian `i32`.
    pub fn i32_le(self, v: i32, comment: &str) -> Self {
        self.bytes(&v.to_le_bytes(), comment)
    }

    /// Big-endian `u16`.
    pub fn u16_be(self, v: u16, comment: &str) -> Self {
        self.bytes(&v.to_be_bytes(), comment)
    }

    /// Big-endian `u32`.
    pub fn u32_be(self, v: u32, comment: &str) -> Self {
        self.bytes(&v.to_be_bytes(), comment)
    }

    /// Big-endian `i32`.
    pub fn i32_be(self, v: i32, comment: &str) -> Self {
        self.bytes(&v.to_be_bytes(), comment)
    }

    /// Little-endian `f32`.
    pub fn f32_le(self, v: f32, comment: &str) -> Self {
        self.bytes(&v.to_le_bytes(), comment)
    }

    /// Several little-endian `f32`s as one field.
    pub fn f32s_le(self, v: &[f32], comment: &str) -> Self {
        let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.bytes(&b, comment)
    }

    /// Current length.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The bytes.
    pub fn build(&self) -> Vec<u8> {
        self.data.clone()
    }

    /// One line per field: offset, hex bytes (first 16), comment.
    pub fn listing(&self) -> String {
        let mut s = String::new();
        for (at, len, comment) in &self.fields {
            let hex: Vec<String> = self.data[*at..at + len]
                .iter()
                .take(16)
                .map(|b| format!("{b:02x}"))
                .collect();
            let more = if *len > 16 { " .." } else { "" };
            let _ = writeln!(s, "{at:#06x}  {}{more}  {comment}", hex.join(" "));
        }
        s
    }
}
