//! The tool's errors: one line each, on stderr, exit code 1.

/// Everything that can go wrong in a command.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// No format recognized the file.
    #[error("unknown format: {detail}")]
    UnknownFormat {
        /// Why.
        detail: String,
    },
    /// `--format` named no known format.
    #[error("unknown format name '{0}' (see `meshfmt formats`)")]
    UnknownFormatName(String),
    /// The format is recognized but its crate cannot read yet.
    #[error("{format}: reading is not supported yet ({tracking})")]
    NotSupported {
        /// Format name.
        format: &'static str,
        /// Where the reader is tracked.
        tracking: &'static str,
    },
    /// The decoder rejected the file (the message carries the byte offset).
    #[error("{0}")]
    Decode(#[from] parsing_primitives::Error),
}
