//! Byte strings as stored: names keep their exact bytes so rewrites are lossless.

use std::fmt;

/// A string exactly as a file stores it (without length prefix or terminator).
///
/// Real files are ASCII in practice, but nothing stops a tool from writing cp1252 or
/// UTF-8; keeping bytes means `write(read(b)) == b` whatever the encoding.
/// `Display` decodes lossily as UTF-8; [`RawString::as_str`] is exact.
///
/// ```
/// use parsing_primitives::RawString;
/// let name = RawString::from("PELVIS");
/// assert_eq!(name.as_str(), Some("PELVIS"));
/// assert_eq!(format!("{name:?}"), "\"PELVIS\"");
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RawString(pub Vec<u8>);

impl RawString {
    /// The bytes as stored.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The string when it is valid UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    /// Lossy UTF-8 text for display and conversion.
    pub fn to_string_lossy(&self) -> String {
        String::from_utf8_lossy(&self.0).into_owned()
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True for the empty string.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<&str> for RawString {
    fn from(s: &str) -> Self {
        RawString(s.as_bytes().to_vec())
    }
}

impl From<String> for RawString {
    fn from(s: String) -> Self {
        RawString(s.into_bytes())
    }
}

impl From<&[u8]> for RawString {
    fn from(b: &[u8]) -> Self {
        RawString(b.to_vec())
    }
}

impl fmt::Display for RawString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.0))
    }
}

impl fmt::Debug for RawString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_str() {
            Some(s) => write!(f, "{s:?}"),
            None => write!(f, "b\"{}\"", self.0.escape_ascii()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_utf8_is_kept_and_shown_escaped() {
        let s = RawString(vec![b'A', 0xe9]);
        assert_eq!(s.as_str(), None);
        assert_eq!(format!("{s:?}"), "b\"A\\xe9\"");
        assert_eq!(s.to_string(), "A\u{fffd}");
        assert_eq!(s.len(), 2);
        assert!(!s.is_empty());
    }
}
