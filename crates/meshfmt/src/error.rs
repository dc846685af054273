//! The tool's errors: one line each, on stderr, with an exit code by kind.

use meshfmt_core::format::{ErrorClass, FormatError};

/// Everything that can go wrong in a command.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// A file to be written beside the output is already there (`--force` replaces
    /// it).
    #[error("{0}: already exists (--force replaces it)")]
    Exists(String),
    /// No format recognized the file.
    #[error("unknown format: {detail}")]
    UnknownFormat {
        /// Why.
        detail: String,
    },
    /// `--format`/`--from`/`--to` named no known format.
    #[error("unknown format name '{0}' (see `meshfmt formats`)")]
    UnknownFormatName(String),
    /// The arguments do not make a command.
    #[error("{0}")]
    Usage(String),
    /// A format crate refused the file or the model: typed, with the byte offset for
    /// decoding errors.
    #[error(transparent)]
    File(#[from] FormatError),
    /// A companion file (`--skeleton`, `--anim`) could not be used: the inner error,
    /// prefixed with the file.
    #[error("{path}: {source}")]
    Companion {
        /// The companion file.
        path: String,
        /// What went wrong with it.
        source: Box<CliError>,
    },
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

impl From<meshfmt_core::BudgetExceeded> for CliError {
    fn from(e: meshfmt_core::BudgetExceeded) -> Self {
        CliError::File(FormatError::OverBudget(e))
    }
}

impl CliError {
    /// A format-level error of kind `Invalid` made from a message (the glTF and OBJ code
    /// report what they cannot read this way).
    pub fn format(format: &'static str, message: impl Into<String>) -> Self {
        CliError::File(FormatError::Invalid {
            format,
            message: message.into(),
        })
    }

    /// True when the operation ran out of memory budget rather than finding the input
    /// bad (the fuzz checks accept that when reading back a large output).
    pub fn is_over_budget(&self) -> bool {
        match self {
            CliError::File(e) => e.class() == ErrorClass::OverBudget,
            CliError::Companion { source, .. } => source.is_over_budget(),
            _ => false,
        }
    }

    /// The process exit code: 1 when the input is bad, unsupported, cannot be converted,
    /// needs more memory than allowed, or fails `validate` / `--strict`; 2 for arguments
    /// that do not make a command (clap's code too); 3 when a file cannot be read or
    /// written.
    ///
    /// ```
    /// use meshfmt::error::CliError;
    /// assert_eq!(CliError::Usage("convert takes IN OUT".into()).exit_code(), 2);
    /// assert_eq!(CliError::Invalid(3).exit_code(), 1);
    /// ```
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Companion { source, .. } => source.exit_code(),
            CliError::Io { .. } | CliError::Exists(_) => 3,
            CliError::File(e) if e.class() == ErrorClass::Io => 3,
            CliError::UnknownFormatName(_) | CliError::Usage(_) => 2,
            _ => 1,
        }
    }
}
