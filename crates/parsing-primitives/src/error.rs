//! The one positioned error type shared by every meshfmt decoder and encoder.

use std::fmt;

/// What went wrong, independent of where. Format crates match on this to add meaning.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended while `needed` more bytes were expected.
    #[error("unexpected end of input: needs {needed} bytes but {remaining} remain")]
    UnexpectedEnd {
        /// Bytes the read needed.
        needed: u64,
        /// Bytes that were left.
        remaining: u64,
    },
    /// A fixed magic did not match.
    #[error(
        "bad magic: found {} but expected {}",
        Escaped(found),
        Escaped(expected)
    )]
    BadMagic {
        /// The bytes in the file.
        found: Vec<u8>,
        /// The bytes the format requires.
        expected: Vec<u8>,
    },
    /// A count read from the file cannot fit in what is left of the input.
    #[error("count {count} needs {needed} bytes but {remaining} remain")]
    CountTooLarge {
        /// The count as stored.
        count: u64,
        /// `count * minimum element size`, saturating.
        needed: u64,
        /// Bytes that were left.
        remaining: u64,
    },
    /// A value is outside what the format allows.
    #[error("{message}")]
    InvalidValue {
        /// Human-readable description, e.g. `"index width 3 is not 1, 2 or 4"`.
        message: String,
    },
    /// A [`Limits`](crate::Limits) bound was hit.
    #[error("{what} {value} exceeds the limit of {limit}")]
    LimitExceeded {
        /// Which limit, e.g. `"array length"` or `"allocation total"`.
        what: &'static str,
        /// The value asked for.
        value: u64,
        /// The limit in force.
        limit: u64,
    },
    /// The operation's [`Budget`](crate::Budget) cannot pay for what was being built.
    #[error("{0}")]
    OverBudget(crate::BudgetExceeded),
    /// Bytes were left after the end of the data.
    #[error("{count} trailing bytes after the end of the data")]
    TrailingBytes {
        /// How many bytes were left.
        count: u64,
    },
}

/// A decoding or encoding error: which format, where (byte offset and context path) and what.
///
/// The error is one pointer wide so `Result<T, Error>` stays small on hot paths.
/// Its `Display` is one line:
///
/// ```
/// use parsing_primitives::{Error, ErrorKind};
/// let e = Error::new(
///     "unigine-mesh",
///     0x1a2c,
///     "surface[2] 'body'.tindices",
///     ErrorKind::CountTooLarge { count: 70000, needed: 140000, remaining: 512 },
/// );
/// assert_eq!(
///     e.to_string(),
///     "unigine-mesh: surface[2] 'body'.tindices: count 70000 needs 140000 bytes but 512 remain (at offset 0x1a2c)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Error(Box<Inner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    format: &'static str,
    offset: u64,
    path: String,
    kind: ErrorKind,
}

impl fmt::Display for Inner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.format)?;
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        write!(f, "{} (at offset {:#x})", self.kind, self.offset)
    }
}

impl Error {
    /// Builds an error; decoders normally get one from [`Reader`](crate::Reader) instead.
    pub fn new(
        format: &'static str,
        offset: u64,
        path: impl Into<String>,
        kind: ErrorKind,
    ) -> Self {
        Error(Box::new(Inner {
            format,
            offset,
            path: path.into(),
            kind,
        }))
    }

    /// The format (crate) name that raised the error.
    pub fn format(&self) -> &'static str {
        self.0.format
    }

    /// Absolute byte offset in the input where the failing read started.
    pub fn offset(&self) -> u64 {
        self.0.offset
    }

    /// Context path such as `surface[2] 'body'.tindices`; empty at the top level.
    pub fn path(&self) -> &str {
        &self.0.path
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }
}

/// Prints bytes as a quoted ASCII string with `\xNN` escapes, e.g. `"ms1\x00"`.
struct Escaped<'a>(&'a [u8]);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"")?;
        for &b in self.0 {
            if b.is_ascii_graphic() || b == b' ' {
                if b == b'"' || b == b'\\' {
                    f.write_str("\\")?;
                }
                write!(f, "{}", b as char)?;
            } else {
                write!(f, "\\x{b:02x}")?;
            }
        }
        f.write_str("\"")
    }
}

/// Result with the shared [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_one_pointer() {
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    }

    #[test]
    fn display_without_path_and_magic_escaping() {
        let e = Error::new(
            "m3d-format",
            0,
            "",
            ErrorKind::BadMagic {
                found: b"3D\x00\"".to_vec(),
                expected: b"3DMO".to_vec(),
            },
        );
        assert_eq!(
            e.to_string(),
            r#"m3d-format: bad magic: found "3D\x00\"" but expected "3DMO" (at offset 0x0)"#
        );
    }

    #[test]
    fn accessors() {
        let e = Error::new("x", 7, "a.b", ErrorKind::TrailingBytes { count: 3 });
        assert_eq!(e.format(), "x");
        assert_eq!(e.offset(), 7);
        assert_eq!(e.path(), "a.b");
        assert_eq!(e.kind(), &ErrorKind::TrailingBytes { count: 3 });
        assert_eq!(
            e.to_string(),
            "x: a.b: 3 trailing bytes after the end of the data (at offset 0x7)"
        );
    }
}
