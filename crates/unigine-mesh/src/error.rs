//! The crate's error type.

/// Everything that can go wrong reading or writing a UNIGINE mesh.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a valid file; the inner error names the byte offset, the
    /// surface or field, and what is wrong.
    #[error(transparent)]
    Decode(#[from] parsing_primitives::Error),
    /// A UNIGINE mesh of a version this crate does not read.
    #[error("unigine-mesh: unsupported UNIGINE mesh version {0}")]
    UnsupportedVersion(String),
    /// Not a UNIGINE mesh at all.
    #[error("unigine-mesh: not a UNIGINE mesh (magic {0:02x?})")]
    NotAMesh([u8; 4]),
    /// The value cannot be written: it breaks a rule of the format.
    #[error("unigine-mesh: {0}")]
    Invalid(String),
    /// The operation's memory budget ([`Budget`](meshfmt_core::Budget)) cannot pay for
    /// what was being built: the input asks for more than the caller allowed.
    #[error(transparent)]
    OverBudget(#[from] meshfmt_core::BudgetExceeded),
    /// Writing to the destination failed.
    #[error("unigine-mesh: {0}")]
    Io(#[from] std::io::Error),
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn invalid(message: impl Into<String>) -> Error {
    Error::Invalid(message.into())
}
