//! The contract every format crate implements, so tools (the `meshfmt` CLI, its
//! conformance runs, the fuzz checks) iterate one registry instead of knowing each
//! format: name, extensions, detection, reading to the crate's faithful type, a summary
//! for `info`, writing, and conversion to and from this crate's [`Model`], all under
//! one [`Budget`] and with typed errors.
//!
//! A format crate provides a unit struct implementing [`Format`] (e.g.
//! `unigine_mesh::FORMAT`) and a `static FORMAT_INFO`, the [`FormatInfo`] its
//! [`Format::info`] returns: the facts (name, extensions, versions and what each holds,
//! qualities, clip files) are data, and the trait keeps what does work (detect, read,
//! convert). Its faithful file type implements [`FormatFile`]. Nothing here depends on
//! any format crate.
//!
//! ```
//! use meshfmt_core::format::{Context, Format};
//! fn describe(formats: &[&dyn Format], data: &[u8]) -> Option<&'static str> {
//!     formats.iter().find(|f| f.sniff(data)).map(|f| f.info().name)
//! }
//! assert_eq!(describe(&[], b"ms11"), None);
//! let cx = Context::new("in.mesh");
//! assert_eq!(cx.extension(), "mesh");
//! ```

use std::any::Any;

use parsing_primitives::Budget;
pub use parsing_primitives::SharedBytes;

pub mod info;

pub use crate::error::{ErrorClass, FormatError};
use crate::loss::Converted;
use crate::model::Model;
use crate::side_files::{SideFile, SideFiles};
use crate::summary::Summary;
pub use info::{ClipFiles, FileKind, FormatInfo, VersionInfo};

/// What one operation may use and what it was asked for: the budget every step charges,
/// the file's name (extensions pick versions and kinds), side files, companions named
/// by the user, and writer choices.
#[derive(Clone)]
pub struct Context<'a> {
    /// The operation's budget (clones share it).
    pub budget: Budget,
    /// The file being read, or the output being written (only its name and extension
    /// are used).
    pub file_name: &'a str,
    /// Files beside the input, under the loader's policy (the tool gives a
    /// [`SideFolder`](crate::side_files::SideFolder); `None`: the input has none).
    pub side_files: Option<&'a dyn SideFiles>,
    /// A skeleton file given with the input (a Vitaboy `.skel` for a `.mesh`).
    pub skeleton: Option<&'a [u8]>,
    /// A material library given with the input (M3D's `m3dconv -m`).
    pub material_library: Option<&'a [u8]>,
    /// The version (or form) to write (`ms14`, `an10`, `ascii`, `embedded`).
    pub version: Option<&'a str>,
    /// The quantization quality to write (`rounded`, `int16`, ...).
    pub quality: Option<&'a str>,
    /// The deflate level to write (0-9), for formats that compress with zlib
    /// ([`FormatInfo::compresses`]); `None`: the format's default.
    pub compression: Option<u8>,
}

impl<'a> Context<'a> {
    /// A context for `file_name` with a fresh default budget and nothing else.
    pub fn new(file_name: &'a str) -> Self {
        Context {
            budget: Budget::default(),
            file_name,
            side_files: None,
            skeleton: None,
            material_library: None,
            version: None,
            quality: None,
            compression: None,
        }
    }

    /// This context drawing on `budget`.
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// This context for another file (an output), keeping the budget and the rest.
    pub fn for_file(&self, file_name: &'a str) -> Self {
        Context {
            file_name,
            ..self.clone()
        }
    }

    /// The file name's extension, lower case, without the dot (empty when none).
    pub fn extension(&self) -> String {
        std::path::Path::new(self.file_name)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default()
    }

    /// `Ok` when no quality was asked for; else [`FormatError::Unsupported`] saying
    /// `--quality {q} does not apply ({why})`, for formats that do not quantize by choice.
    ///
    /// ```
    /// use meshfmt_core::format::Context;
    /// assert!(Context::new("a.skel").refuse_quality("vitaboy", "floats").is_ok());
    /// let cx = Context { quality: Some("int8"), ..Context::new("a.skel") };
    /// let e = cx.refuse_quality("vitaboy", "Vitaboy stores floats").unwrap_err();
    /// assert_eq!(e.to_string(), "vitaboy: --quality int8 does not apply (Vitaboy stores floats)");
    /// ```
    pub fn refuse_quality(&self, format: &'static str, why: &str) -> Result<(), FormatError> {
        match self.quality {
            None => Ok(()),
            Some(q) => Err(FormatError::Unsupported {
                format,
                message: format!("--quality {q} does not apply ({why})"),
            }),
        }
    }

    /// The file name without its directory and extension.
    pub fn stem(&self) -> String {
        std::path::Path::new(self.file_name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// One file a writer produced: the main output has no name of its own; side files (a
/// glTF `.bin`, an OBJ `.mtl`) carry the file name they are written under, beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The output file's bytes.
    pub main: Vec<u8>,
    /// Side files: name (no directory) and bytes.
    pub side: Vec<(String, Vec<u8>)>,
}

impl Written {
    /// A single output file.
    pub fn one(main: Vec<u8>) -> Self {
        Written {
            main,
            side: Vec::new(),
        }
    }

    /// A single output file, its length charged to `budget` first (as `encoded
    /// output`): what a [`FormatFile::write`] that encodes into a `Vec` returns.
    ///
    /// ```
    /// use meshfmt_core::{Budget, Limits, format::Written};
    /// let budget = Budget::new(Limits::default());
    /// let w = Written::charged(vec![1, 2, 3], &budget)?;
    /// assert_eq!(w.main, [1, 2, 3]);
    /// # Ok::<(), meshfmt_core::format::FormatError>(())
    /// ```
    pub fn charged(main: Vec<u8>, budget: &Budget) -> Result<Self, FormatError> {
        Ok(Written::one(budget.charged_output(main)?))
    }
}

/// A conversion's faithful file behind the [`FormatFile`] trait, losses kept: the last
/// step of every [`Format::from_core`].
///
/// ```
/// # use meshfmt_core::{Converted, format::{boxed, FormatFile}};
/// # fn demo<F: FormatFile + 'static>(c: Converted<F>) {
/// let dynamic = boxed(c);
/// # let _ = dynamic;
/// # }
/// ```
pub fn boxed<F: FormatFile + 'static>(converted: Converted<F>) -> Converted<Box<dyn FormatFile>> {
    converted.map(|f| Box::new(f) as Box<dyn FormatFile>)
}

/// `impl From<$error> for FormatError` for a format crate's error enum with the usual
/// shared variants: `Decode(parsing_primitives::Error)` becomes
/// [`FormatError::Decode`], `OverBudget(BudgetExceeded)` [`FormatError::OverBudget`],
/// `Io(std::io::Error)` [`FormatError::Io`]; extra `pattern => expression` arms (in
/// order, before those) handle the crate's own kinds; anything else becomes
/// [`FormatError::invalid`] with the error's message.
///
/// ```
/// mod my_format {
///     #[derive(Debug, thiserror::Error)]
///     pub enum Error {
///         #[error(transparent)]
///         Decode(#[from] parsing_primitives::Error),
///         #[error(transparent)]
///         OverBudget(#[from] meshfmt_core::BudgetExceeded),
///         #[error("my-format: {0}")]
///         Io(#[from] std::io::Error),
///         #[error("my-format: unsupported version {0}")]
///         UnsupportedVersion(u32),
///         #[error("my-format: {0}")]
///         Invalid(String),
///     }
///     use meshfmt_core::format::FormatError;
///     meshfmt_core::format_error_from!(Error, "my-format",
///         e @ Error::UnsupportedVersion(_) => FormatError::unsupported("my-format", e.to_string()),
///     );
/// }
/// use meshfmt_core::format::{ErrorClass, FormatError};
/// let e = FormatError::from(my_format::Error::UnsupportedVersion(9));
/// assert_eq!(e.class(), ErrorClass::Unsupported);
/// assert_eq!(e.to_string(), "my-format: unsupported version 9");
/// let e = FormatError::from(my_format::Error::Invalid("too long".into()));
/// assert_eq!(e.to_string(), "my-format: too long");
/// ```
#[macro_export]
macro_rules! format_error_from {
    ($($error:ident)::+, $format:expr $(, $pat:pat => $conv:expr)* $(,)?) => {
        impl ::core::convert::From<$($error)::+> for $crate::format::FormatError {
            fn from(e: $($error)::+) -> Self {
                match e {
                    $($pat => $conv,)*
                    $($error)::+::Decode(d) => $crate::format::FormatError::Decode(d),
                    $($error)::+::OverBudget(b) => $crate::format::FormatError::OverBudget(b),
                    $($error)::+::Io(io) => $crate::format::FormatError::Io(io),
                    #[allow(unreachable_patterns)]
                    other => $crate::format::FormatError::invalid($format, other.to_string()),
                }
            }
        }
    };
}

/// A file format: what tools need to detect, read, convert and write it.
pub trait Format: Send + Sync {
    /// The format's facts: name, extensions, versions, qualities, what it holds.
    fn info(&self) -> &'static FormatInfo;
    /// A cheap check of magic or structure; never allocates.
    fn sniff(&self, data: &[u8]) -> bool;
    /// Reads the faithful file: everything it holds, as stored.
    fn read(&self, data: &[u8], cx: &Context<'_>) -> Result<Box<dyn FormatFile>, FormatError>;
    /// [`Format::read`] from bytes the file may share: a format that keeps stored bytes
    /// as they are (the LZ4 blocks of UNIGINE ms14, ms15 and sk10) keeps ranges of
    /// `data` rather than copies, and does not charge them to the budget (they are the
    /// caller's). The default reads `data` as borrowed bytes.
    fn read_shared(
        &self,
        data: &SharedBytes,
        cx: &Context<'_>,
    ) -> Result<Box<dyn FormatFile>, FormatError> {
        self.read(data, cx)
    }
    /// The faithful file for `model`, as `cx.version` (or the version `cx.file_name`'s
    /// extension implies, or the default) and `cx.quality` ask, with every loss.
    // `self` is the format (dispatch through the registry), not the value converted.
    #[allow(clippy::wrong_self_convention)]
    fn from_core(
        &self,
        model: &Model,
        cx: &Context<'_>,
    ) -> Result<Converted<Box<dyn FormatFile>>, FormatError>;
    /// `data`, a file of this format read as `read_cx` says, written again as `write_cx`
    /// asks without going through meshfmt-core, when the format can do that for this
    /// file and these options (a glTF document compressed as it stands, say); `Ok(None)`
    /// when it cannot, and the caller converts through the model. The default: never.
    fn transcode(
        &self,
        data: &[u8],
        read_cx: &Context<'_>,
        write_cx: &Context<'_>,
    ) -> Result<Option<Converted<Written>>, FormatError> {
        let _ = (data, read_cx, write_cx);
        Ok(None)
    }
}

/// A file as a format crate read or built it (its faithful type behind this trait).
pub trait FormatFile: Send {
    /// The format's name.
    fn format(&self) -> &'static str;
    /// The version or form (`ms11`, `binary`, `mesh v2`).
    fn version(&self) -> String;
    /// What `info` shows: counts, names, attributes as stored, bounds, clips, materials.
    /// The default converts to meshfmt-core and summarizes that; formats override it
    /// with what the file stores, without converting.
    fn summary(&self, cx: &Context<'_>) -> Result<Summary, FormatError> {
        let m = self.to_core(cx)?;
        let mut s = Summary::of_model(&m.value);
        s.format = self.format().to_string();
        s.version = self.version();
        Ok(s)
    }
    /// The file's bytes (and side files) for the output named in `cx`.
    fn write(&self, cx: &Context<'_>) -> Result<Written, FormatError>;
    /// meshfmt-core's model of the file, with what the conversion could not carry.
    fn to_core(&self, cx: &Context<'_>) -> Result<Converted<Model>, FormatError>;
    /// What this file is called in a warning when it is converted without a skeleton
    /// file and its parts are left in bone space (`".mesh"`, `"appearance"` of a Vitaboy
    /// format, whose [`FormatInfo::takes_skeleton`]); `None` (the default) when a
    /// skeleton file would change nothing.
    fn needs_skeleton(&self) -> Option<&'static str> {
        None
    }
    /// The faithful value, for callers that know the type (`downcast_ref`).
    fn as_any(&self) -> &dyn Any;
}

/// What a writer put beside its output serves as the side files for reading it back
/// (the writer chose those names: no policy applies).
impl SideFiles for Written {
    fn read(&self, name: &str) -> Result<SideFile, FormatError> {
        self.side.read(name)
    }

    fn list(&self, name: &str) -> Result<Vec<String>, FormatError> {
        self.side.list(name)
    }
}
