//! The errors of the codecs: [`DecodeError`] for a stream or an output buffer the
//! decoders refuse, [`EncodeError`] for arguments the encoders refuse.

use std::fmt;

/// Why a decoder refused its input. Offsets count bytes from the start of the encoded
/// stream; nothing is written past the caller's buffer, but on an error its contents
/// are unspecified.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The stream ends (or reaches its tail block) before what was being read.
    Truncated {
        /// Where the read started.
        offset: usize,
        /// What was being read.
        reading: &'static str,
    },
    /// The first byte is not the header of the codec.
    BadHeader {
        /// The byte found at offset 0.
        found: u8,
        /// The header byte of the codec (version 0).
        expected: u8,
    },
    /// The header names a version this decoder does not know.
    UnsupportedVersion {
        /// The header byte found at offset 0.
        found: u8,
    },
    /// The elements were decoded but the stream does not end with the tail block there:
    /// bytes are left over (or missing) between the data and the tail.
    TrailingBytes {
        /// Where the decoded data ended.
        offset: usize,
        /// Where the tail block begins.
        tail: usize,
    },
    /// A field holds a value the format does not define.
    Invalid {
        /// Where the field is.
        offset: usize,
        /// What was being read.
        reading: &'static str,
    },
    /// The output buffer does not have the length the arguments call for.
    OutputLength {
        /// The length the count and stride call for (in elements of the buffer).
        expected: usize,
        /// The length of the buffer given.
        found: usize,
    },
    /// An argument (stride, count, mode and filter) is outside what the codec allows.
    Argument {
        /// Which argument.
        name: &'static str,
        /// Its value.
        value: usize,
        /// What the codec requires.
        requirement: &'static str,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Truncated { offset, reading } => {
                write!(f, "stream truncated at byte {offset} reading {reading}")
            }
            DecodeError::BadHeader { found, expected } => write!(
                f,
                "header byte at offset 0 is {found:#04x}, expected {expected:#04x}"
            ),
            DecodeError::UnsupportedVersion { found } => {
                write!(f, "header byte {found:#04x} names an unsupported version")
            }
            DecodeError::TrailingBytes { offset, tail } => write!(
                f,
                "decoded data ends at byte {offset} but the tail block starts at byte {tail}"
            ),
            DecodeError::Invalid { offset, reading } => {
                write!(f, "invalid {reading} at byte {offset}")
            }
            DecodeError::OutputLength { expected, found } => write!(
                f,
                "output buffer holds {found} elements, the arguments call for {expected}"
            ),
            DecodeError::Argument {
                name,
                value,
                requirement,
            } => write!(f, "{name} is {value}, {requirement}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Why an encoder refused its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// An argument (stride, count, bits) is outside what the codec allows.
    Argument {
        /// Which argument.
        name: &'static str,
        /// Its value.
        value: usize,
        /// What the codec requires.
        requirement: &'static str,
    },
    /// The input does not have the length the count and stride call for.
    InputLength {
        /// The length the arguments call for (in elements of the input slice).
        expected: usize,
        /// The length of the input given.
        found: usize,
    },
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::Argument {
                name,
                value,
                requirement,
            } => write!(f, "{name} is {value}, {requirement}"),
            EncodeError::InputLength { expected, found } => write!(
                f,
                "input holds {found} elements, the arguments call for {expected}"
            ),
        }
    }
}

impl std::error::Error for EncodeError {}

/// `count * per` or an argument error naming `count` (for the decoders).
pub(crate) fn decode_len(count: usize, per: usize) -> Result<usize, DecodeError> {
    count.checked_mul(per).ok_or(DecodeError::Argument {
        name: "count",
        value: count,
        requirement: "count * stride must fit in usize",
    })
}

/// `count * per` or an argument error naming `count` (for the encoders).
pub(crate) fn encode_len(count: usize, per: usize) -> Result<usize, EncodeError> {
    count.checked_mul(per).ok_or(EncodeError::Argument {
        name: "count",
        value: count,
        requirement: "count * stride must fit in usize",
    })
}
