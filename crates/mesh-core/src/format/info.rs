//! What a format is, as data: its name, extensions, versions and what each holds, the
//! qualities it writes, and where a mesh format's clips go when they are written to files
//! of their own. Tools (the registry, `meshfmt formats`, `info`, the companion handling,
//! xtask) read these facts; the [`Format`](super::Format) contract keeps only what does
//! work.

use crate::loss::Feature;
use crate::validate::{Problem, Problems};

/// The facts of one format: every format crate has one `static FORMAT_INFO`, which its
/// [`Format::info`](super::Format::info) returns.
///
/// ```
/// use meshfmt_core::Feature;
/// use meshfmt_core::format::{FormatInfo, VersionInfo};
/// static INFO: FormatInfo = FormatInfo {
///     name: "plain",
///     description: "Plain text meshes (v1, v2 .txt2)",
///     extensions: &["txt", "txt2"],
///     versions: &[
///         VersionInfo { name: "v1", extension: None, holds: &[Feature::Geometry], clip_files: None },
///         VersionInfo { name: "v2", extension: Some("txt2"), holds: &[Feature::Geometry, Feature::Names], clip_files: None },
///     ],
///     ..FormatInfo::DEFAULT
/// };
/// assert_eq!(INFO.version_for_extension("txt2"), Some("v2"));
/// assert_eq!(INFO.holds(None), &[Feature::Geometry]); // the default version, v1
/// assert_eq!(INFO.holds(Some("v2")).len(), 2);
/// assert!(INFO.owns_extension("txt") && !INFO.owns_extension("obj"));
/// assert!(INFO.problems().is_empty());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct FormatInfo {
    /// Name as tools print it (`unigine-mesh`): the format crate's name without `-format`.
    pub name: &'static str,
    /// What files it covers, in one line.
    pub description: &'static str,
    /// File extensions, lower case, without the dot; the first is the default output.
    pub extensions: &'static [&'static str],
    /// True when the content check is strong (a magic): formats recognized by structure
    /// alone are tried after every format with a magic, and after an extension only one
    /// format claims.
    pub has_magic: bool,
    /// The versions (or forms) the writer can be asked for, the default first; empty for
    /// a format with one form.
    pub versions: &'static [VersionInfo],
    /// What a file of a format with one form holds (`versions` empty); a format with
    /// versions says it per version and leaves this empty.
    pub holds: &'static [Feature],
    /// The quantization qualities the writer accepts, the default first; empty when the
    /// format does not quantize by choice.
    pub qualities: &'static [&'static str],
    /// True when converting uses a skeleton file given with the input (a Vitaboy `.mesh`
    /// is posed by its `.skel`): tools pass a user's skeleton to the format rather than
    /// matching bones themselves.
    pub takes_skeleton: bool,
    /// True when the writer takes a deflate level.
    pub compresses: bool,
    /// True when the format can be written.
    pub can_write: bool,
    /// True when reading keeps what the file stores (a faithful type), so writing what
    /// was read gives the file back (byte for byte for files the reader fully
    /// understands, and always for our own output); false for formats read straight into
    /// meshfmt-core (glTF, OBJ), which write a new export.
    pub rewrites_faithfully: bool,
}

/// One version (or form) a format writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionInfo {
    /// The name the writer is asked for (`ms14`, `ascii`, `skel`).
    pub name: &'static str,
    /// An output extension that implies this version (`.smesh` is ms08), if any.
    pub extension: Option<&'static str>,
    /// What a file of this version can hold.
    pub holds: &'static [Feature],
    /// Where a mesh's clips go when they are written to files of their own, if this
    /// version has such files.
    pub clip_files: Option<ClipFiles>,
}

/// Where a mesh format's clips go when they are split out (`meshfmt convert
/// --anims-dir`): one file per clip, and for some formats a skeleton file beside the
/// mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClipFiles {
    /// Each clip's file.
    pub clip: FileKind,
    /// The skeleton file written beside the mesh (Vitaboy clips name bones of a `.skel`),
    /// if the clips need one.
    pub skeleton: Option<FileKind>,
}

/// A kind of file a tool writes: a format of the registry (by name: format crates never
/// name one another), the version it is written as, and its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileKind {
    /// The format's [`FormatInfo::name`].
    pub format: &'static str,
    /// The version it writes.
    pub version: &'static str,
    /// The file's extension.
    pub extension: &'static str,
}

impl FormatInfo {
    /// A starting point for `..FormatInfo::DEFAULT`: no name, nothing held, a magic,
    /// writable and faithful.
    pub const DEFAULT: FormatInfo = FormatInfo {
        name: "",
        description: "",
        extensions: &[],
        has_magic: true,
        versions: &[],
        holds: &[],
        qualities: &[],
        takes_skeleton: false,
        compresses: false,
        can_write: true,
        rewrites_faithfully: true,
    };

    /// The version called `name`, or the default (the first) for `None`; `None` for an
    /// unknown name or a format without versions.
    pub fn version(&self, name: Option<&str>) -> Option<&'static VersionInfo> {
        match name {
            None => self.versions.first(),
            Some(n) => self.versions.iter().find(|v| v.name == n),
        }
    }

    /// Every version's name, the default first.
    pub fn version_names(&self) -> impl Iterator<Item = &'static str> + use<> {
        self.versions.iter().map(|v| v.name)
    }

    /// The version an output extension (lower case, without the dot) implies, if any.
    pub fn version_for_extension(&self, ext: &str) -> Option<&'static str> {
        self.versions
            .iter()
            .find(|v| v.extension == Some(ext))
            .map(|v| v.name)
    }

    /// What a file written as `version` (`None`: the default) can hold; nothing for an
    /// unknown version.
    pub fn holds(&self, version: Option<&str>) -> &'static [Feature] {
        if self.versions.is_empty() {
            return self.holds;
        }
        self.version(version).map_or(&[], |v| v.holds)
    }

    /// Where the clips of a file written as `version` (`None`: the default) go when they
    /// are split out, if that version has clip files.
    pub fn clip_files(&self, version: Option<&str>) -> Option<&'static ClipFiles> {
        self.version(version).and_then(|v| v.clip_files.as_ref())
    }

    /// True when `ext` (lower case, without the dot) is one of this format's extensions.
    pub fn owns_extension(&self, ext: &str) -> bool {
        self.extensions.contains(&ext)
    }

    /// The extension an output gets by default (the first).
    pub fn default_extension(&self) -> &'static str {
        self.extensions.first().copied().unwrap_or_default()
    }

    /// Every way these facts contradict themselves, each at its path: an empty name or
    /// description; no extension, or one that is not lower case without a dot, or twice;
    /// a version named twice, or implied by an extension the format does not own, or by
    /// an extension another version already implies; what is held said twice over
    /// (versions and `holds` both) or not at all; qualities named twice.
    pub fn problems(&self) -> Vec<Problem> {
        let mut out = Problems::default();
        let mut problem = |path: String, message: &str| out.push(path, message);
        if self.name.is_empty() {
            problem("name".into(), "empty");
        }
        if self.description.is_empty() {
            problem("description".into(), "empty");
        }
        if self.extensions.is_empty() {
            problem("extensions".into(), "none");
        }
        for (i, e) in self.extensions.iter().enumerate() {
            if e.is_empty() || e.contains('.') || e.chars().any(|c| c.is_ascii_uppercase()) {
                problem(
                    format!("extensions[{i}]"),
                    "not a lower-case extension without its dot",
                );
            }
            if self.extensions[..i].contains(e) {
                problem(format!("extensions[{i}]"), "listed twice");
            }
        }
        for (i, v) in self.versions.iter().enumerate() {
            let earlier = &self.versions[..i];
            if v.name.is_empty() {
                problem(format!("versions[{i}].name"), "empty");
            }
            if earlier.iter().any(|w| w.name == v.name) {
                problem(format!("versions[{i}].name"), "listed twice");
            }
            if let Some(e) = v.extension {
                if !self.owns_extension(e) {
                    problem(
                        format!("versions[{i}].extension"),
                        "not one of the format's extensions",
                    );
                }
                if earlier.iter().any(|w| w.extension == Some(e)) {
                    problem(
                        format!("versions[{i}].extension"),
                        "already implies another version",
                    );
                }
            }
            if v.holds.is_empty() {
                problem(format!("versions[{i}].holds"), "holds nothing");
            }
        }
        match (self.versions.is_empty(), self.holds.is_empty()) {
            (true, true) => problem("holds".into(), "holds nothing"),
            (false, false) => problem(
                "holds".into(),
                "a format with versions says what each holds, not here",
            ),
            _ => {}
        }
        for (i, q) in self.qualities.iter().enumerate() {
            if self.qualities[..i].contains(q) {
                problem(format!("qualities[{i}]"), "listed twice");
            }
        }
        out.into_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::Feature::{Geometry, Names};

    const CLIPS: ClipFiles = ClipFiles {
        clip: FileKind {
            format: "anim-format",
            version: "a1",
            extension: "anim",
        },
        skeleton: None,
    };

    static INFO: FormatInfo = FormatInfo {
        name: "demo",
        description: "Demo meshes",
        extensions: &["dm", "dms"],
        versions: &[
            VersionInfo {
                name: "v2",
                extension: None,
                holds: &[Geometry, Names],
                clip_files: Some(CLIPS),
            },
            VersionInfo {
                name: "v1",
                extension: Some("dms"),
                holds: &[Geometry],
                clip_files: None,
            },
        ],
        ..FormatInfo::DEFAULT
    };

    #[test]
    fn versions_are_looked_up_by_name_and_extension() {
        assert_eq!(INFO.version(None).map(|v| v.name), Some("v2"));
        assert_eq!(INFO.version(Some("v1")).map(|v| v.name), Some("v1"));
        assert!(INFO.version(Some("v9")).is_none());
        assert_eq!(INFO.version_for_extension("dms"), Some("v1"));
        assert_eq!(INFO.version_for_extension("dm"), None);
        assert_eq!(INFO.holds(None), &[Geometry, Names]);
        assert_eq!(INFO.holds(Some("v1")), &[Geometry]);
        assert!(INFO.holds(Some("v9")).is_empty());
        assert_eq!(INFO.clip_files(None), Some(&CLIPS));
        assert_eq!(INFO.clip_files(Some("v1")), None);
        assert_eq!(INFO.version_names().collect::<Vec<_>>(), ["v2", "v1"]);
        assert_eq!(INFO.default_extension(), "dm");
        assert!(INFO.problems().is_empty());
    }

    #[test]
    fn a_format_with_one_form_holds_what_it_says() {
        let one = FormatInfo {
            name: "one",
            description: "One form",
            extensions: &["one"],
            holds: &[Geometry],
            ..FormatInfo::DEFAULT
        };
        assert_eq!(one.holds(None), &[Geometry]);
        assert_eq!(one.holds(Some("anything")), &[Geometry]);
        assert!(one.version(None).is_none() && one.clip_files(None).is_none());
        assert!(one.problems().is_empty());
    }

    #[test]
    fn contradictions_are_each_reported_at_their_path() {
        let bad = FormatInfo {
            name: "",
            description: "",
            extensions: &["Dm", "x.y", "dm", "dm"],
            versions: &[
                VersionInfo {
                    name: "v1",
                    extension: Some("zz"),
                    holds: &[],
                    clip_files: None,
                },
                VersionInfo {
                    name: "v1",
                    extension: Some("zz"),
                    holds: &[Geometry],
                    clip_files: None,
                },
            ],
            holds: &[Geometry],
            qualities: &["q", "q"],
            ..FormatInfo::DEFAULT
        };
        let found: Vec<String> = bad.problems().iter().map(|p| p.path.clone()).collect();
        assert_eq!(
            found,
            [
                "name",
                "description",
                "extensions[0]",
                "extensions[1]",
                "extensions[3]",
                "versions[0].extension",
                "versions[0].holds",
                "versions[1].name",
                "versions[1].extension",
                "versions[1].extension",
                "holds",
                "qualities[1]",
            ]
        );
    }
}
