//! The lexical half of the policy: what a name says before the file system is asked.

use std::fmt;

use crate::loss::{Feature, Loss, LossKind};
use crate::text::{is_unprintable, quoted};

/// Why a side-file name was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The name is empty (or only `.` and separators).
    Empty,
    /// The name holds control characters (or NUL).
    Unprintable,
    /// An absolute path (`/x`, `\x`).
    Absolute,
    /// A network path (`\\host\share`, `//host/share`).
    Network,
    /// A drive path (`C:\x`, `C:x`).
    Drive,
    /// A URI (`file:`, `http:`, anything with a scheme) or a name with `:`.
    Uri,
    /// `..` leads outside the allowed folders.
    Outside,
    /// A link that does not lead to a file inside the allowed folders.
    Link,
    /// Not a regular file (a folder, device, FIFO or socket).
    NotAFile,
    /// The file's size changed while it was read.
    Changed,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refusal::Empty => "the name is empty",
            Refusal::Unprintable => "the name holds control characters",
            Refusal::Absolute => "an absolute path",
            Refusal::Network => "a network path",
            Refusal::Drive => "a drive path",
            Refusal::Uri => "a URI, not a relative file name",
            Refusal::Outside => "it leads outside the folders side files may come from",
            Refusal::Link => {
                "a link that does not lead to a file inside the folders side files may come from"
            }
            Refusal::NotAFile => "not a regular file",
            Refusal::Changed => "it changed size while it was read",
        })
    }
}

impl std::error::Error for Refusal {}

impl Refusal {
    /// What the name is, in a few words, for a writer's loss report.
    pub fn what(self) -> &'static str {
        match self {
            Refusal::Empty => "no file name",
            Refusal::Unprintable => "control characters",
            Refusal::Absolute => "an absolute path",
            Refusal::Network => "a network path",
            Refusal::Drive => "a drive path",
            Refusal::Uri => "a URI",
            Refusal::Outside => "'..' out of the folder",
            Refusal::Link => "a link out of the folder",
            Refusal::NotAFile => "not a regular file",
            Refusal::Changed => "changed while read",
        }
    }
}

/// One step of a relative name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part<'a> {
    /// Into the folder or file of this name.
    Name(&'a str),
    /// `..`: up one folder.
    Up,
}

/// `name` taken apart as a relative path, both `/` and `\` separating (files made on
/// Windows use either); `.` and empty steps dropped. Refused: empty names, control
/// characters, absolute, network and drive paths, and anything with `:` (URIs, drive
/// letters, alternate streams). `..` is kept: whether it leaves the folder depends on
/// where the name is resolved.
///
/// ```
/// use meshfmt_core::side_files::{Part, Refusal, lexical_parts};
/// assert_eq!(lexical_parts("tex\\wood.png"), Ok(vec![Part::Name("tex"), Part::Name("wood.png")]));
/// assert_eq!(lexical_parts("./a/../b"), Ok(vec![Part::Name("a"), Part::Up, Part::Name("b")]));
/// assert_eq!(lexical_parts("/etc/passwd"), Err(Refusal::Absolute));
/// assert_eq!(lexical_parts("\\\\host\\share\\x.png"), Err(Refusal::Network));
/// assert_eq!(lexical_parts("C:\\x.png"), Err(Refusal::Drive));
/// assert_eq!(lexical_parts("file:///etc/passwd"), Err(Refusal::Uri));
/// assert_eq!(lexical_parts("a\0b"), Err(Refusal::Unprintable));
/// ```
pub fn lexical_parts(name: &str) -> Result<Vec<Part<'_>>, Refusal> {
    if name.chars().any(is_unprintable) {
        return Err(Refusal::Unprintable);
    }
    let sep = |c: char| c == '/' || c == '\\';
    let mut chars = name.chars();
    match (chars.next(), chars.next()) {
        (Some(a), Some(b)) if sep(a) && sep(b) => return Err(Refusal::Network),
        (Some(a), _) if sep(a) => return Err(Refusal::Absolute),
        (Some(a), Some(':')) if a.is_ascii_alphabetic() => return Err(Refusal::Drive),
        _ => {}
    }
    if name.contains(':') {
        return Err(Refusal::Uri);
    }
    let parts: Vec<Part<'_>> = name
        .split(sep)
        .filter(|p| !p.is_empty() && *p != ".")
        .map(|p| if p == ".." { Part::Up } else { Part::Name(p) })
        .collect();
    if parts.is_empty() {
        return Err(Refusal::Empty);
    }
    Ok(parts)
}

/// How a writer stores a reference a model gives (a texture's path, an M3D texture
/// name): see [`output_reference`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputReference {
    /// What to write: the reference, with `/` separators, when it is a relative name that
    /// stays in its folder; else its file name alone, or empty when it has none.
    pub written: String,
    /// Why the reference was not written as it was; `None` when it was (up to
    /// separators and `.` steps).
    pub refusal: Option<Refusal>,
}

/// The reference a writer may put in an output for `name`: a relative name that stays
/// inside its folder, written with `/` separators; anything else (absolute, network and
/// drive paths, URIs, `..` out of the folder, control characters) reduced to its last
/// file name with control characters removed, and the reason given so the writer
/// reports the change. An output never names a file its reader would find outside the
/// output's folder.
///
/// ```
/// use meshfmt_core::side_files::{Refusal, output_reference};
/// assert_eq!(output_reference("tex\\wood.png").written, "tex/wood.png");
/// assert_eq!(output_reference("tex\\wood.png").refusal, None);
/// let r = output_reference("../../etc/shadow");
/// assert_eq!((r.written.as_str(), r.refusal), ("shadow", Some(Refusal::Outside)));
/// assert_eq!(output_reference("C:\\Users\\me\\wood.png").written, "wood.png");
/// assert_eq!(output_reference("\\\\evil-host\\share\\x.png").written, "x.png");
/// assert_eq!(output_reference("http://example.com/a.png?x=1").written, "a.png_x=1");
/// assert_eq!(output_reference("../..").written, "");
/// ```
pub fn output_reference(name: &str) -> OutputReference {
    let refusal = match lexical_parts(name) {
        Ok(parts) => {
            let mut depth = 0usize;
            let mut kept: Vec<&str> = Vec::with_capacity(parts.len());
            let mut leaves = false;
            for p in parts {
                match p {
                    Part::Name(n) => {
                        depth += 1;
                        kept.push(n);
                    }
                    Part::Up if depth == 0 => leaves = true,
                    Part::Up => {
                        depth -= 1;
                        kept.pop();
                    }
                }
            }
            if !leaves && !kept.is_empty() {
                let written = kept.join("/");
                let refusal = None;
                return OutputReference { written, refusal };
            }
            if leaves {
                Refusal::Outside
            } else {
                Refusal::Empty
            }
        }
        Err(r) => r,
    };
    OutputReference {
        written: last_file_name(name),
        refusal: Some(refusal),
    }
}

/// The last step of `name` that is a file name: after the last `/`, `\` or `:`, control
/// characters removed, characters a file name cannot hold (`?`, `*`, `"`, `<`, `>`,
/// `|`) made `_`; empty for `.`, `..` or nothing.
fn last_file_name(name: &str) -> String {
    let last = name
        .rsplit(['/', '\\', ':'])
        .find(|p| !p.is_empty())
        .unwrap_or("");
    if last == "." || last == ".." {
        return String::new();
    }
    last.chars()
        .filter(|&c| !is_unprintable(c))
        .map(|c| {
            if matches!(c, '?' | '*' | '"' | '<' | '>' | '|') {
                '_'
            } else {
                c
            }
        })
        .collect()
}

impl OutputReference {
    /// The loss a writer reports for this reference at `path` (`textures[2]`) when it
    /// was not written as it was: reduced to its file name, or dropped when it has none.
    ///
    /// ```
    /// use meshfmt_core::side_files::output_reference;
    /// let r = output_reference("/etc/passwd");
    /// let loss = r.loss("/etc/passwd", "textures[0]").map(|l| l.to_string());
    /// assert_eq!(loss.as_deref(), Some("textures reduced at textures[0]: reference '/etc/passwd' is not a relative name inside the model's folder (an absolute path): written as 'passwd'"));
    /// assert_eq!(output_reference("wood.png").loss("wood.png", "textures[0]"), None);
    /// ```
    pub fn loss(&self, name: &str, path: impl Into<String>) -> Option<Loss> {
        let why = self.refusal?;
        let (kind, what) = if self.written.is_empty() {
            (LossKind::Dropped, "dropped".to_string())
        } else {
            (
                LossKind::Reduced,
                format!("written as {}", quoted(&self.written)),
            )
        };
        Some(Loss {
            feature: Feature::Textures,
            kind,
            path: path.into(),
            reason: format!(
                "reference {} is not a relative name inside the model's folder ({}): {what}",
                quoted(name),
                why.what()
            ),
        })
    }
}
