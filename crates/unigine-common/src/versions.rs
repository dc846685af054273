//! The version table both format crates keep: one row per version, which drives reading
//! (by magic), conversion (by target), and the format contract's names, extensions and
//! feature lists. The rows' `read` and `from_core` are the crate's own function types.

use meshfmt_core::Feature;
use meshfmt_core::format::{Context, FormatError};

use crate::magic::{self, magic_name};

/// One supported version.
#[derive(Debug)]
pub struct Version<T, R, C> {
    /// The magic (also the version's name).
    pub magic: &'static [u8; 4],
    /// The crate's name for the version, as its writer is asked for it.
    pub target: T,
    /// A file extension that implies this version (`.smesh` is ms08), if any.
    pub extension: Option<&'static str>,
    /// What the version can hold, for the format contract.
    pub holds: &'static [Feature],
    /// Reads a file whose magic matched.
    pub read: R,
    /// Encodes a meshfmt-core model in this version.
    pub from_core: C,
}

/// Every magic of `rows`, in order (`N` is `rows.len()`).
pub const fn magics<T, R, C, const N: usize>(rows: &[Version<T, R, C>]) -> [&'static [u8; 4]; N] {
    let mut out = [b"\0\0\0\0"; N];
    let mut i = 0;
    while i < N && i < rows.len() {
        out[i] = rows[i].magic;
        i += 1;
    }
    out
}

/// The row of `target`.
pub fn row<T: PartialEq, R, C>(rows: &[Version<T, R, C>], target: T) -> Option<&Version<T, R, C>> {
    rows.iter().find(|v| v.target == target)
}

/// The target of the version called `name` (`"ms14"`).
pub fn from_name<T: Copy, R, C>(rows: &[Version<T, R, C>], name: &str) -> Option<T> {
    rows.iter()
        .find(|v| v.magic == name.as_bytes())
        .map(|v| v.target)
}

/// The version a file extension implies, if any.
pub fn version_for_extension<T, R, C>(
    rows: &'static [Version<T, R, C>],
    ext: &str,
) -> Option<&'static str> {
    rows.iter()
        .find(|v| v.extension == Some(ext))
        .map(|v| magic_name(v.magic))
}

/// What the version called `name` can hold (nothing for an unknown name).
pub fn holds<T, R, C>(rows: &'static [Version<T, R, C>], name: &str) -> &'static [Feature] {
    rows.iter()
        .find(|v| v.magic == name.as_bytes())
        .map_or(&[], |v| v.holds)
}

/// The format contract's description: `"{kind} (v1, v2 .ext, ...)"`.
pub fn description<T, R, C>(kind: &str, rows: &[Version<T, R, C>]) -> String {
    magic::describe(
        kind,
        rows.iter().map(|v| (magic_name(v.magic), v.extension)),
    )
}

/// The format contract's extensions: `base`, then each extension a version implies.
pub fn extensions<T, R, C>(
    base: &'static str,
    rows: &'static [Version<T, R, C>],
) -> Vec<&'static str> {
    magic::extensions(base, rows.iter().map(|v| v.extension))
}

/// The version a writer is asked for: the context's `--version`, else the one the
/// output's extension implies, else `default`; an unknown name is
/// [`FormatError::Unsupported`] listing `names` (the versions that can be written).
///
/// ```
/// use meshfmt_core::format::Context;
/// use unigine_common::versions::{Version, to_write};
/// let rows: &'static [Version<u8, (), ()>] = &[
///     Version { magic: b"ms11", target: 11, extension: None, holds: &[], read: (), from_core: () },
///     Version { magic: b"ms08", target: 8, extension: Some("smesh"), holds: &[], read: (), from_core: () },
/// ];
/// let names = ["ms11", "ms08"];
/// assert_eq!(to_write("unigine-mesh", rows, &names, &Context::new("a.smesh"), 11)?, 8);
/// assert_eq!(to_write("unigine-mesh", rows, &names, &Context::new("a.mesh"), 11)?, 11);
/// let cx = Context { version: Some("ms99"), ..Context::new("a.mesh") };
/// let e = to_write("unigine-mesh", rows, &names, &cx, 11).err().map(|e| e.to_string());
/// assert_eq!(e.as_deref(), Some("unigine-mesh: cannot write version 'ms99' (choose ms11, ms08)"));
/// # Ok::<(), meshfmt_core::format::FormatError>(())
/// ```
pub fn to_write<T: Copy, R, C>(
    format: &'static str,
    rows: &'static [Version<T, R, C>],
    names: &[&str],
    cx: &Context<'_>,
    default: T,
) -> Result<T, FormatError> {
    let name = cx
        .version
        .or_else(|| version_for_extension(rows, &cx.extension()));
    let Some(name) = name else {
        return Ok(default);
    };
    from_name(rows, name).ok_or_else(|| FormatError::Unsupported {
        format,
        message: format!(
            "cannot write version '{name}' (choose {})",
            names.join(", ")
        ),
    })
}

/// The [`Format`](meshfmt_core::format::Format) methods a UNIGINE crate answers from its
/// version table, inside its `impl Format`: `name`, `description`, `extensions`, `sniff`,
/// `versions`, `version_for_extension`, `holds`, `read` (through the crate's `read_with`
/// and `ReadOptions`, on the context's budget) and `from_core` (the version from
/// [`to_write`] over the crate's `versions::VERSIONS`, else `TargetVersion::default()`, then
/// `$file::from_core` with the crate's `WriteOptions`). `$versions` is the crate's module
/// holding `VERSIONS`, `description()`, `extensions()`, `version_for_extension(ext)`,
/// `holds(name)` and the `NAMES` array; `$file` the faithful type; `quality:` why a
/// `--quality` choice is refused; `check:` (optional) a `fn(&Model) -> Result<(),
/// FormatError>` run before converting.
///
/// ```ignore
/// impl Format for UnigineMesh {
///     unigine_common::table_format_methods!(
///         crate::FORMAT_NAME, versions, crate::sniff, MeshFile,
///         quality: "UNIGINE meshes do not quantize by choice"
///     );
/// }
/// ```
// `crate::read_with`, `ReadOptions`, `WriteOptions` and `TargetVersion` are the calling
// format crate's, on purpose.
#[allow(clippy::crate_in_macro_def)]
#[macro_export]
macro_rules! table_format_methods {
    ($name:expr, $versions:ident, $sniff:path, $file:ident, quality: $quality:expr $(, check: $check:expr)? $(,)?) => {
        fn name(&self) -> &'static str {
            $name
        }

        fn description(&self) -> &'static str {
            $versions::description()
        }

        fn extensions(&self) -> &'static [&'static str] {
            $versions::extensions()
        }

        fn sniff(&self, data: &[u8]) -> bool {
            $sniff(data)
        }

        fn read(
            &self,
            data: &[u8],
            cx: &::meshfmt_core::format::Context<'_>,
        ) -> Result<Box<dyn ::meshfmt_core::format::FormatFile>, ::meshfmt_core::format::FormatError> {
            Ok(Box::new(crate::read_with(data, &cx.options::<ReadOptions>())?))
        }

        fn versions(&self) -> &'static [&'static str] {
            &$versions::NAMES
        }

        fn version_for_extension(&self, ext: &str) -> Option<&'static str> {
            $versions::version_for_extension(ext)
        }

        fn holds(&self, version: Option<&str>) -> &'static [::meshfmt_core::Feature] {
            $versions::holds(version.unwrap_or(TargetVersion::default().name()))
        }

        fn from_core(
            &self,
            model: &::meshfmt_core::Model,
            cx: &::meshfmt_core::format::Context<'_>,
        ) -> Result<
            ::meshfmt_core::Converted<Box<dyn ::meshfmt_core::format::FormatFile>>,
            ::meshfmt_core::format::FormatError,
        > {
            cx.refuse_quality($name, $quality)?;
            $(($check)(model)?;)?
            let version = $crate::versions::to_write(
                $name,
                $versions::VERSIONS,
                &$versions::NAMES,
                cx,
                TargetVersion::default(),
            )?;
            let options = WriteOptions {
                version,
                ..cx.options()
            };
            Ok(::meshfmt_core::format::boxed($file::from_core_with(model, &options)?))
        }
    };
}

/// The functions a UNIGINE crate's `versions` module derives from its `VERSIONS` table
/// (a `&[Version<TargetVersion, ..>]` in scope, with `TargetVersion` the crate's version
/// enum): `TargetVersion::{entry, name, from_name}` and the format contract's
/// `description()`, `extensions()`, `version_for_extension(ext)` and `holds(name)`.
/// `$kind` names the family in the description (`"UNIGINE mesh"`), `$base` is the
/// extension every version takes (`"mesh"`), `$fallback` the row `entry` falls back to.
/// Tests come with it: every row's target finds the row, `NAMES` starts with the default,
/// and `crate::sniff` knows every magic (and not its first three bytes).
///
/// ```ignore
/// unigine_common::version_table_fns!("UNIGINE mesh", "mesh", 3);
/// ```
// `crate::sniff` is the calling format crate's, on purpose.
#[allow(clippy::crate_in_macro_def)]
#[macro_export]
macro_rules! version_table_fns {
    ($kind:expr, $base:expr, $fallback:expr) => {
        impl TargetVersion {
            /// This version's row of [`VERSIONS`].
            pub(crate) fn entry(self) -> &'static Version {
                // Every variant has a row (checked by a test).
                $crate::versions::row(VERSIONS, self).unwrap_or(&VERSIONS[$fallback])
            }

            /// The version's magic as text (`"ms11"`, `"an10"`).
            pub fn name(self) -> &'static str {
                $crate::magic::magic_name(self.entry().magic)
            }

            /// The version called `name`.
            pub fn from_name(name: &str) -> Option<TargetVersion> {
                $crate::versions::from_name(VERSIONS, name)
            }
        }

        /// The format contract's description, from [`VERSIONS`] (names with their
        /// implied extensions).
        pub(crate) fn description() -> &'static str {
            static DESCRIPTION: ::std::sync::OnceLock<String> = ::std::sync::OnceLock::new();
            DESCRIPTION.get_or_init(|| $crate::versions::description($kind, VERSIONS))
        }

        /// The format contract's extensions: the base one, then each extension a
        /// version implies.
        pub(crate) fn extensions() -> &'static [&'static str] {
            static EXTENSIONS: ::std::sync::OnceLock<Vec<&'static str>> =
                ::std::sync::OnceLock::new();
            EXTENSIONS.get_or_init(|| $crate::versions::extensions($base, VERSIONS))
        }

        /// The version a file extension implies, if any.
        pub(crate) fn version_for_extension(ext: &str) -> Option<&'static str> {
            $crate::versions::version_for_extension(VERSIONS, ext)
        }

        /// What `version` can hold (nothing for an unknown name).
        pub(crate) fn holds(version: &str) -> &'static [::meshfmt_core::Feature] {
            $crate::versions::holds(VERSIONS, version)
        }

        #[cfg(test)]
        mod table_tests {
            use super::*;

            #[test]
            fn every_target_has_its_row() {
                for v in VERSIONS {
                    assert_eq!(v.target.entry().magic, v.magic);
                    assert_eq!(TargetVersion::from_name(v.target.name()), Some(v.target));
                }
                assert_eq!(NAMES[0], TargetVersion::default().name());
            }

            #[test]
            fn every_magic_sniffs() {
                for v in VERSIONS {
                    assert!(crate::sniff(v.magic));
                    assert!(!crate::sniff(&v.magic[..3]));
                }
                assert!(!crate::sniff(b""));
            }
        }
    };
}
