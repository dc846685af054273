//! The crate's error type.

/// Everything that can go wrong reading or writing a UNIGINE animation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a valid file; the inner error names the byte offset, the field
    /// and what is wrong.
    #[error(transparent)]
    Decode(#[from] parsing_primitives::Error),
    /// A UNIGINE animation of a version this crate does not read.
    #[error("unigine-anim: unsupported UNIGINE animation version {0}")]
    UnsupportedVersion(String),
    /// Not a UNIGINE animation at all.
    #[error("unigine-anim: not a UNIGINE animation (magic {0:02x?})")]
    NotAnAnimation([u8; 4]),
    /// The value cannot be written: it breaks a rule of the format.
    #[error("unigine-anim: {0}")]
    Invalid(String),
    /// The operation's memory budget ([`Budget`](meshfmt_core::Budget)) cannot pay for
    /// what was being built: the input asks for more than the caller allowed.
    #[error(transparent)]
    OverBudget(#[from] meshfmt_core::BudgetExceeded),
    /// Writing to the destination failed.
    #[error("unigine-anim: {0}")]
    Io(#[from] std::io::Error),
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn invalid(message: impl Into<String>) -> Error {
    Error::Invalid(message.into())
}
