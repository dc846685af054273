//! The crate's error type.

/// Everything that can go wrong reading a Model 3D file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a valid file; the inner error names the byte offset (in the
    /// file for the envelope, in the inflated HEAD..OMD3 payload for chunks), the chunk
    /// and field, and what is wrong.
    #[error(transparent)]
    Decode(#[from] parsing_primitives::Error),
    /// Not a Model 3D file at all.
    #[error("m3d-format: not a Model 3D file (magic {0:02x?})")]
    NotM3d([u8; 4]),
    /// The zlib stream is corrupt, or inflates past the allowed size.
    #[error("m3d-format: zlib payload at offset {offset}: {message}")]
    Inflate {
        /// File offset of the compressed stream.
        offset: u64,
        /// What went wrong.
        message: String,
    },
    /// A form of the format this release does not read.
    #[error("m3d-format: {0}")]
    Unsupported(String),
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
