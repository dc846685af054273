//! The version list: every version this crate reads and writes, in one table
//! ([`VERSIONS`]) that drives reading (by magic), conversion from meshfmt-core (by
//! [`TargetVersion`]) and the format contract's version names, extensions and
//! feature lists. To add a version, see docs/ARCHITECTURE-unigine.md.

use meshfmt_core::format::VersionInfo;
use meshfmt_core::{Budget, Converted, Feature, Model};
use parsing_primitives::Reader;
use unigine_common::versions::{self, VersionTable};

use crate::error::Result;
use crate::{AnimFile, an10, an11, an12, as08};

/// Which version [`AnimFile::from_core`] writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TargetVersion {
    /// as08 (`.sanim`, UNIGINE 1.x).
    As08,
    /// an10 (`.anim`, UNIGINE 2.x).
    #[default]
    An10,
    /// an11 (`.anim`, UNIGINE 2.19+): float keys.
    An11,
    /// an12 (`.anim`, current docs; implemented from the documentation only): an11 keys,
    /// no bind pose, fps stored (rounded to an integer).
    An12,
}

/// One supported version: what reading, writing, conversion and the format contract
/// need to know about it (see [`unigine_common::versions::Version`]).
pub(crate) type Version = versions::Version<TargetVersion, ReadFn, FromCoreFn>;

/// Reads a file whose magic matched.
pub(crate) type ReadFn = fn(&mut Reader<'_>) -> Result<AnimFile>;

/// Encodes a meshfmt-core model in one version.
pub(crate) type FromCoreFn = fn(&Model, f32, &Budget) -> Result<Converted<AnimFile>>;

/// A version's facts (no animation file splits its clips further).
const fn info(
    name: &'static str,
    extension: Option<&'static str>,
    holds: &'static [Feature],
) -> VersionInfo {
    VersionInfo {
        name,
        extension,
        holds,
        clip_files: None,
    }
}

/// Every version, oldest first; the one list. an10 is written when nothing says.
pub(crate) const VERSIONS: VersionTable<TargetVersion, ReadFn, FromCoreFn> = VersionTable {
    kind: "UNIGINE animation",
    base_extension: "anim",
    default: 1,
    families: &[b"an", b"as"],
    rows: &[
        Version {
            info: info("as08", Some("sanim"), &[Feature::Animation]),
            target: TargetVersion::As08,
            read: |r| Ok(AnimFile::As08(as08::read(r)?)),
            from_core: |m, fps, b| Ok(as08::As08::from_core_in(m, fps, b)?.map(AnimFile::As08)),
        },
        Version {
            info: info("an10", None, &[Feature::Skeleton, Feature::Animation]),
            target: TargetVersion::An10,
            read: |r| Ok(AnimFile::An10(an10::read(r)?)),
            from_core: |m, fps, b| Ok(an10::An10::from_core_in(m, fps, b)?.map(AnimFile::An10)),
        },
        Version {
            info: info("an11", None, &[Feature::Skeleton, Feature::Animation]),
            target: TargetVersion::An11,
            read: |r| Ok(AnimFile::An11(an11::read(r)?)),
            from_core: |m, fps, b| Ok(an11::An11::from_core_in(m, fps, b)?.map(AnimFile::An11)),
        },
        Version {
            info: info("an12", None, &[Feature::Animation]),
            target: TargetVersion::An12,
            read: |r| Ok(AnimFile::An12(an12::read(r)?)),
            from_core: |m, fps, b| Ok(an12::An12::from_core_in(m, fps, b)?.map(AnimFile::An12)),
        },
    ],
};

/// Every version's facts, the default first: the format's
/// [`FormatInfo::versions`](meshfmt_core::format::FormatInfo::versions).
pub(crate) static VERSION_INFO: [VersionInfo; VERSIONS.rows.len()] = VERSIONS.infos();

/// Every magic, in file order.
pub(crate) const MAGICS: [&[u8; 4]; VERSIONS.rows.len()] = VERSIONS.magics();

impl TargetVersion {
    /// The version's magic as text (`"an10"`).
    pub fn name(self) -> &'static str {
        VERSIONS.name(self)
    }

    /// The version called `name`.
    pub fn from_name(name: &str) -> Option<TargetVersion> {
        VERSIONS.target(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_agrees_with_the_format_facts() {
        assert_eq!(VERSIONS.problems(&crate::FORMAT_INFO), []);
    }

    #[test]
    fn every_target_has_its_row_and_every_magic_sniffs() {
        for v in VERSIONS.rows {
            assert_eq!(v.target.name(), v.info.name);
            assert_eq!(TargetVersion::from_name(v.info.name), Some(v.target));
            assert!(crate::sniff(v.magic()));
            assert!(!crate::sniff(&v.magic()[..3]));
        }
        assert_eq!(VERSION_INFO[0].name, TargetVersion::default().name());
        assert!(!crate::sniff(b""));
    }
}
