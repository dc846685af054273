//! The version table both format crates keep: one row per version, which drives reading
//! (by magic), conversion (by target) and the format's facts (each row's
//! [`VersionInfo`]: its name, the extension that implies it, what it holds). The rows'
//! `read` and `from_core` are the crate's own function types.

use meshfmt_core::Problem;
use meshfmt_core::format::{Context, FormatError, FormatInfo, VersionInfo};

use crate::magic::{self, Dispatch};

/// One supported version: its facts (the name is the magic as text) and the crate's
/// reader and encoder for it.
#[derive(Debug)]
pub struct Version<T, R, C> {
    /// The version's facts; `info.name` is the four-byte magic as text (`ms11`).
    pub info: VersionInfo,
    /// The crate's name for the version, as its writer is asked for it.
    pub target: T,
    /// Reads a file whose magic matched.
    pub read: R,
    /// Encodes a meshfmt-core model in this version.
    pub from_core: C,
}

impl<T, R, C> Version<T, R, C> {
    /// The magic: the name's four bytes (`b"\0\0\0\0"` for a name of another length,
    /// which [`VersionTable::problems`] reports).
    pub const fn magic(&self) -> &'static [u8; 4] {
        match self.info.name.as_bytes().first_chunk::<4>() {
            Some(m) if self.info.name.len() == 4 => m,
            _ => b"\0\0\0\0",
        }
    }
}

/// A UNIGINE format crate's versions: the rows in file order (oldest first), which row
/// is written when nothing says, the families whose unknown versions are unsupported
/// versions rather than other formats (`ms16`), and what the format's description and
/// extensions are made of.
///
/// ```
/// use meshfmt_core::Feature;
/// use meshfmt_core::format::{Context, FormatInfo, VersionInfo};
/// use unigine_common::versions::{Version, VersionTable};
/// const fn row(name: &'static str, extension: Option<&'static str>, target: u8) -> Version<u8, (), ()> {
///     let info = VersionInfo { name, extension, holds: &[Feature::Geometry], clip_files: None };
///     Version { info, target, read: (), from_core: () }
/// }
/// const TABLE: VersionTable<u8, (), ()> = VersionTable {
///     kind: "UNIGINE mesh",
///     base_extension: "mesh",
///     rows: &[row("ms08", Some("smesh"), 8), row("ms11", None, 11)],
///     default: 1,
///     families: &[b"ms"],
/// };
/// static INFOS: [VersionInfo; 2] = TABLE.infos();
/// static INFO: FormatInfo = FormatInfo {
///     name: "unigine-mesh",
///     description: "UNIGINE mesh (ms08 .smesh, ms11)",
///     extensions: &["mesh", "smesh"],
///     versions: &INFOS,
///     ..FormatInfo::DEFAULT
/// };
/// assert!(TABLE.problems(&INFO).is_empty());
/// assert_eq!(INFOS[0].name, "ms11"); // the default first
/// assert_eq!(TABLE.to_write("unigine-mesh", &Context::new("a.smesh"))?, 8);
/// assert_eq!(TABLE.to_write("unigine-mesh", &Context::new("a.mesh"))?, 11);
/// let cx = Context { version: Some("ms99"), ..Context::new("a.mesh") };
/// let e = TABLE.to_write("unigine-mesh", &cx).err().map(|e| e.to_string());
/// assert_eq!(e.as_deref(), Some("unigine-mesh: cannot write version 'ms99' (choose ms11, ms08)"));
/// assert!(TABLE.sniff(b"ms08....") && !TABLE.sniff(b"ms0"));
/// # Ok::<(), meshfmt_core::format::FormatError>(())
/// ```
#[derive(Debug)]
pub struct VersionTable<T: 'static, R: 'static, C: 'static> {
    /// The family's name in the format's description (`UNIGINE mesh`).
    pub kind: &'static str,
    /// The extension every version takes (`mesh`).
    pub base_extension: &'static str,
    /// Every version, in file order.
    pub rows: &'static [Version<T, R, C>],
    /// The index in `rows` of the version written when nothing says.
    pub default: usize,
    /// The two-letter families of the magics (`ms`, `sk`).
    pub families: &'static [&'static [u8; 2]],
}

impl<T: Copy + PartialEq + 'static, R: Copy, C: Copy> VersionTable<T, R, C> {
    /// The row written when nothing says.
    pub fn default_row(&self) -> Option<&'static Version<T, R, C>> {
        self.rows.get(self.default)
    }

    /// The row of `target` (the default row for a target without one, which
    /// [`VersionTable::problems`] reports).
    pub fn row(&self, target: T) -> Option<&'static Version<T, R, C>> {
        self.rows
            .iter()
            .find(|v| v.target == target)
            .or_else(|| self.default_row())
    }

    /// The name (the magic as text) of `target`.
    pub fn name(&self, target: T) -> &'static str {
        self.row(target).map_or("", |v| v.info.name)
    }

    /// The version called `name` (`"ms14"`).
    pub fn target(&self, name: &str) -> Option<T> {
        self.rows
            .iter()
            .find(|v| v.info.name == name)
            .map(|v| v.target)
    }

    /// True when `data` starts with one of the magics. Never allocates.
    pub fn sniff(&self, data: &[u8]) -> bool {
        data.get(..4)
            .is_some_and(|head| self.rows.iter().any(|v| head == v.magic()))
    }

    /// What `magic` is to this table: a row, an unknown version of one of the families,
    /// or another format.
    pub fn dispatch(&self, magic: &[u8; 4]) -> Dispatch<&'static Version<T, R, C>> {
        magic::dispatch(
            magic,
            self.rows.iter().map(|v| (v.magic(), v)),
            self.families,
        )
    }

    /// The version a writer is asked for: the context's `--version`, else the one the
    /// output's extension implies, else the default; an unknown name is
    /// [`FormatError::Unsupported`] listing the versions, the default first.
    pub fn to_write(&self, format: &'static str, cx: &Context<'_>) -> Result<T, FormatError> {
        let ext = cx.extension();
        let name = cx.version.or_else(|| {
            self.rows
                .iter()
                .find(|v| v.info.extension == Some(ext.as_str()))
                .map(|v| v.info.name)
        });
        let unsupported = |name: &str| FormatError::Unsupported {
            format,
            message: format!(
                "cannot write version '{name}' (choose {})",
                self.default_first()
                    .map(|v| v.info.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        match name {
            None => self
                .default_row()
                .map(|v| v.target)
                .ok_or_else(|| unsupported("")),
            Some(name) => self.target(name).ok_or_else(|| unsupported(name)),
        }
    }

    /// The rows, the default first and the others in file order.
    fn default_first(&self) -> impl Iterator<Item = &'static Version<T, R, C>> + use<T, R, C> {
        let default = self.default;
        self.rows.get(default).into_iter().chain(
            self.rows
                .iter()
                .enumerate()
                .filter_map(move |(i, v)| (i != default).then_some(v)),
        )
    }

    /// Every way the table and the format's facts disagree, each at its path: `info`'s
    /// own [`FormatInfo::problems`]; a row whose name is not a magic of one of the
    /// families (two letters and two digits) or that a target has twice; a default past
    /// the rows; `info.versions` other than the rows' facts, the default first; a
    /// description other than `"{kind} (v1, v2 .ext, ...)"` in file order; extensions
    /// other than the base one, then each one a version implies.
    pub fn problems(&self, info: &FormatInfo) -> Vec<Problem> {
        let mut out = meshfmt_core::Problems::default();
        for p in info.problems() {
            out.push(p.path, p.message);
        }
        for (i, v) in self.rows.iter().enumerate() {
            let name = v.info.name.as_bytes();
            let magic_like = name.len() == 4
                && self.families.iter().any(|f| name[..2] == f[..])
                && name[2].is_ascii_digit()
                && name[3].is_ascii_digit();
            if !magic_like {
                out.push(
                    format!("rows[{i}].info.name"),
                    "not a magic of the families",
                );
            }
            if self.rows[..i].iter().any(|w| w.target == v.target) {
                out.push(format!("rows[{i}].target"), "another row's target");
            }
        }
        if self.default_row().is_none() {
            out.push("default", "past the rows");
        }
        if !info
            .versions
            .iter()
            .eq(self.default_first().map(|v| &v.info))
        {
            out.push("versions", "not the table's rows, the default first");
        }
        let described = magic::describe(
            self.kind,
            self.rows.iter().map(|v| (v.info.name, v.info.extension)),
        );
        if info.description != described {
            out.push("description", format!("not {described:?}"));
        }
        let extensions = magic::extensions(
            self.base_extension,
            self.rows.iter().map(|v| v.info.extension),
        );
        if info.extensions != extensions.as_slice() {
            out.push("extensions", format!("not {extensions:?}"));
        }
        out.into_vec()
    }
}

impl<T, R, C> VersionTable<T, R, C> {
    /// Every row's facts, the default first and the others in file order: a format's
    /// [`FormatInfo::versions`] (`N` is the number of rows; a longer `N` repeats the
    /// default, which [`VersionTable::problems`] reports).
    pub const fn infos<const N: usize>(&self) -> [VersionInfo; N] {
        let first = if self.default < self.rows.len() {
            self.rows[self.default].info
        } else {
            EMPTY
        };
        let mut out = [first; N];
        let (mut i, mut n) = (0, 1);
        while i < self.rows.len() && n < N {
            if i != self.default {
                out[n] = self.rows[i].info;
                n += 1;
            }
            i += 1;
        }
        out
    }

    /// Every magic, in file order (`N` is the number of rows).
    pub const fn magics<const N: usize>(&self) -> [&'static [u8; 4]; N] {
        let mut out = [b"\0\0\0\0"; N];
        let mut i = 0;
        while i < N && i < self.rows.len() {
            out[i] = self.rows[i].magic();
            i += 1;
        }
        out
    }
}

const EMPTY: VersionInfo = VersionInfo {
    name: "",
    extension: None,
    holds: &[],
    clip_files: None,
};
