//! The tool's errors: one line each, on stderr, exit code 1.

impl From<meshfmt_core::BudgetExceeded> for CliError {
    fn from(e: meshfmt_core::BudgetExceeded) -> Self {
        CliError::OverBudget(e.to_string())
    }
}

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
    /// The format crate rejected the file or the model (the message carries the byte
    /// offset for decoding errors).
    #[error("{0}")]
    Format(String),
    /// The format cannot be written yet.
    #[error("{format}: writing is not supported yet ({tracking})")]
    WriteNotSupported {
        /// Format name.
        format: &'static str,
        /// Where the writer is tracked.
        tracking: &'static str,
    },
    /// The conversion would pass its memory budget (`--max-memory`); the message says
    /// what was being built (and where in the file, for a decoder).
    #[error("{0}")]
    OverBudget(String),
    /// `validate` found problems (already printed).
    #[error("{0} problems found")]
    Invalid(usize),
    /// `--strict` and the conversion lost something.
    #[error("--strict: the conversion would lose: {0}")]
    Strict(String),
    /// Batch conversion: some files failed (each already reported).
    #[error("{failed} of {total} files failed")]
    Batch {
        /// Files that failed.
        failed: usize,
        /// Files given.
        total: usize,
    },
}
