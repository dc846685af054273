//! The library's errors as Python exceptions, with the tool's one-line messages.

use meshfmt::error::CliError;
use meshfmt_core::format::FormatError as CoreError;
use meshfmt_core::text::{MAX_LINE_CHARS, one_line};
use pyo3::PyErr;
use pyo3::exceptions::{
    PyFileExistsError, PyFileNotFoundError, PyOSError, PyPermissionError, PyValueError,
};

/// The exception types.
mod types {
    use pyo3::exceptions::PyValueError;
    pyo3::create_exception!(
        meshfmt,
        FormatError,
        PyValueError,
        "A file no format reads, or one its format refuses; the message names the byte offset and what was being read."
    );
    pyo3::create_exception!(
        meshfmt,
        OverBudget,
        FormatError,
        "The memory budget (max_memory) ran out: the message names what was being built."
    );
}

pub(crate) use types::{FormatError, OverBudget};

/// Longest message, as the tool prints it.
const MAX_MESSAGE: usize = MAX_LINE_CHARS;

/// What kind of failure `e` is, looking through companion errors to the cause.
fn root(e: &CliError) -> &CliError {
    match e {
        CliError::Companion { source, .. } => root(source),
        other => other,
    }
}

/// `e` as the Python exception of its kind, with the tool's one-line message.
pub(crate) fn to_py(e: CliError) -> PyErr {
    let message = one_line(&e.to_string(), MAX_MESSAGE).into_owned();
    match root(&e) {
        CliError::File(CoreError::OverBudget(_)) => OverBudget::new_err(message),
        CliError::Io { source, .. } | CliError::File(CoreError::Io(source)) => {
            match source.kind() {
                std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
                std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
                std::io::ErrorKind::AlreadyExists => PyFileExistsError::new_err(message),
                _ => PyOSError::new_err(message),
            }
        }
        CliError::Exists(_) => PyFileExistsError::new_err(message),
        CliError::UnknownFormatName(_) | CliError::Usage(_) => PyValueError::new_err(message),
        _ => FormatError::new_err(message),
    }
}
