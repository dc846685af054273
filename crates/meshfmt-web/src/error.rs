//! The page's errors: what went wrong, as the tool says it in one line, and of which
//! kind, so a script can tell bad input from a bad request.

use meshfmt::error::CliError;
use meshfmt_core::format::ErrorClass;
use meshfmt_core::text::{MAX_LINE_CHARS, one_line};

/// One error, given to JavaScript as `{"kind": ..., "message": ...}`
/// ([`WebError::to_json`]).
///
/// ```
/// use meshfmt_web::WebError;
/// let e = WebError::from(meshfmt::error::CliError::Usage("no file named 'x'".into()));
/// assert_eq!(e.to_json(), r#"{"kind": "usage", "message": "meshfmt: no file named 'x'"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct WebError {
    /// `bad-input`, `over-budget`, `unsupported`, `invalid`, `io` (a file named is not
    /// among those given), `usage` (the request makes no conversion) or `strict`.
    pub kind: &'static str,
    /// The line the `meshfmt` tool prints for the same error (`meshfmt: ...`).
    pub message: String,
    /// For `strict`: the report of what the conversion would lose (JSON, as
    /// `convert --report` writes it).
    pub report: Option<String>,
}

impl WebError {
    /// A request that makes no conversion.
    pub fn usage(message: impl Into<String>) -> Self {
        WebError::from(CliError::Usage(message.into()))
    }

    /// The error as one JSON object.
    pub fn to_json(&self) -> String {
        let report = match &self.report {
            Some(r) => format!(", \"report\": {}", r.trim_end()),
            None => String::new(),
        };
        format!(
            "{{\"kind\": {}, \"message\": {}{report}}}",
            meshfmt::json::string(self.kind),
            meshfmt::json::string(&self.message)
        )
    }
}

/// The kind of a tool error.
fn kind(e: &CliError) -> &'static str {
    match e {
        CliError::Companion { source, .. } => kind(source),
        CliError::Io { .. } | CliError::Exists(_) => "io",
        CliError::UnknownFormat { .. } => "bad-input",
        CliError::UnknownFormatName(_) | CliError::Usage(_) | CliError::Batch { .. } => "usage",
        CliError::Strict(_) => "strict",
        CliError::Invalid(_) => "invalid",
        CliError::File(f) => match f.class() {
            ErrorClass::BadInput => "bad-input",
            ErrorClass::OverBudget => "over-budget",
            ErrorClass::Unsupported => "unsupported",
            ErrorClass::Invalid => "invalid",
            ErrorClass::Io => "io",
            // Classes added later: the input could not be used.
            _ => "bad-input",
        },
    }
}

impl From<CliError> for WebError {
    fn from(e: CliError) -> Self {
        WebError {
            kind: kind(&e),
            // What the tool prints on stderr.
            message: format!("meshfmt: {}", one_line(&e.to_string(), MAX_LINE_CHARS)),
            report: None,
        }
    }
}
