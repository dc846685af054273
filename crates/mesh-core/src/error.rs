//! Why an operation on a file failed ([`FormatError`], exported from
//! [`format`](crate::format)): a leaf, so the contract and the side-file policy both use it.

use parsing_primitives::BudgetExceeded;

/// Why an operation on a file failed, by kind, so a tool can act on it (exit codes, a
/// check that tells "needs more memory" from "bad file"). `Display` is one line.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// The bytes are not a valid file: the inner error names the byte offset, the field
    /// and what is wrong.
    #[error(transparent)]
    Decode(parsing_primitives::Error),
    /// [`FormatError::Decode`] for data inside the file whose offsets are not the
    /// file's own (an inflated payload): says so after the message.
    #[error("{error} (offset within {within})")]
    DecodeWithin {
        /// The decoding error, its offset within `within`.
        error: parsing_primitives::Error,
        /// What the offset counts in (`the inflated payload`).
        within: &'static str,
    },
    /// The operation's budget cannot pay for what the input asks for.
    #[error(transparent)]
    OverBudget(BudgetExceeded),
    /// A file of the format's family that this crate does not read or write (a version,
    /// a form, a feature), or an operation the format does not offer.
    #[error("{format}: {message}")]
    Unsupported {
        /// Format name.
        format: &'static str,
        /// What is not supported.
        message: String,
    },
    /// The bytes are not this format at all.
    #[error("{format}: {message}")]
    NotThisFormat {
        /// Format name.
        format: &'static str,
        /// Why not.
        message: String,
    },
    /// The value cannot be written or converted: it breaks a rule of the format.
    #[error("{format}: {message}")]
    Invalid {
        /// Format name.
        format: &'static str,
        /// The rule broken.
        message: String,
    },
    /// Reading a side file or writing the output failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// The kind of a [`FormatError`], for exit codes and checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorClass {
    /// The input is not a valid file (or not of any known format).
    BadInput,
    /// The input asks for more memory than the operation's budget.
    OverBudget,
    /// A version, form or feature the crate does not handle.
    Unsupported,
    /// A value the target format cannot hold.
    Invalid,
    /// A file could not be read or written.
    Io,
}

impl FormatError {
    /// What kind of failure this is. A decode error whose cause is the budget counts as
    /// [`ErrorClass::OverBudget`].
    ///
    /// ```
    /// use meshfmt_core::format::{ErrorClass, FormatError};
    /// let e = FormatError::Invalid { format: "x", message: "too many bones".into() };
    /// assert_eq!(e.class(), ErrorClass::Invalid);
    /// assert_eq!(e.to_string(), "x: too many bones");
    /// ```
    pub fn class(&self) -> ErrorClass {
        match self {
            FormatError::Decode(d) | FormatError::DecodeWithin { error: d, .. }
                if matches!(d.kind(), parsing_primitives::ErrorKind::OverBudget(_)) =>
            {
                ErrorClass::OverBudget
            }
            FormatError::Decode(_)
            | FormatError::DecodeWithin { .. }
            | FormatError::NotThisFormat { .. } => ErrorClass::BadInput,
            FormatError::OverBudget(_) => ErrorClass::OverBudget,
            FormatError::Unsupported { .. } => ErrorClass::Unsupported,
            FormatError::Invalid { .. } => ErrorClass::Invalid,
            FormatError::Io(_) => ErrorClass::Io,
        }
    }
}

impl FormatError {
    /// An [`FormatError::Invalid`] from a crate error's one-line message, without the
    /// `format: ` prefix the message may already carry (so it is not printed twice).
    ///
    /// ```
    /// use meshfmt_core::format::FormatError;
    /// let e = FormatError::invalid("m3d", "m3d: length 9 does not fit".into());
    /// assert_eq!(e.to_string(), "m3d: length 9 does not fit");
    /// ```
    pub fn invalid(format: &'static str, message: String) -> Self {
        FormatError::Invalid {
            format,
            message: strip_prefix(format, message),
        }
    }

    /// [`FormatError::Unsupported`] likewise.
    pub fn unsupported(format: &'static str, message: String) -> Self {
        FormatError::Unsupported {
            format,
            message: strip_prefix(format, message),
        }
    }

    /// [`FormatError::NotThisFormat`] likewise.
    pub fn not_this_format(format: &'static str, message: String) -> Self {
        FormatError::NotThisFormat {
            format,
            message: strip_prefix(format, message),
        }
    }
}

fn strip_prefix(format: &str, message: String) -> String {
    match message
        .strip_prefix(format)
        .and_then(|m| m.strip_prefix(": "))
    {
        Some(rest) => rest.to_string(),
        None => message,
    }
}

impl From<parsing_primitives::Error> for FormatError {
    fn from(e: parsing_primitives::Error) -> Self {
        FormatError::Decode(e)
    }
}

impl From<BudgetExceeded> for FormatError {
    fn from(e: BudgetExceeded) -> Self {
        FormatError::OverBudget(e)
    }
}
