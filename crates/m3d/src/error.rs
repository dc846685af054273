//! The crate's error type, and the format name errors carry.

/// The format's name in errors.
pub(crate) const FORMAT: &str = "m3d";

/// Everything that can go wrong reading or writing a Model 3D file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a valid file; the inner error names the byte offset (within the
    /// inflated payload for compressed files, within the file otherwise), the context path
    /// and what is wrong.
    #[error(transparent)]
    Decode(#[from] parsing_primitives::Error),
    /// The inflated payload of a compressed file is not valid; the inner error's offset is
    /// within the inflated payload (HEAD is at 0), not within the file.
    #[error("{0} (offset within the inflated payload)")]
    Payload(parsing_primitives::Error),
    /// The zlib stream is corrupt, truncated or inflates beyond [`Limits::max_alloc_bytes`](parsing_primitives::Limits).
    #[error("m3d: zlib stream at offset {offset:#x}: {message}")]
    Inflate {
        /// File offset where the stream starts.
        offset: u64,
        /// What went wrong.
        message: String,
    },
    /// The value cannot be written or converted: it breaks a rule of the format.
    #[error("m3d: {0}")]
    Invalid(String),
    /// The operation's memory budget ([`Budget`](meshfmt_core::Budget)) cannot pay for
    /// what was being built: the input asks for more than the caller allowed.
    #[error(transparent)]
    OverBudget(#[from] meshfmt_core::BudgetExceeded),
    /// Writing to the destination failed.
    #[error("m3d: {0}")]
    Io(#[from] std::io::Error),
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn invalid(message: impl Into<String>) -> Error {
    Error::Invalid(message.into())
}
