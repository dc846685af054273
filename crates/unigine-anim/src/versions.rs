//! The version list: every version this crate reads and writes, in one table
//! ([`VERSIONS`]) that drives reading (by magic), conversion from meshfmt-core (by
//! [`TargetVersion`]) and the format contract's version names, extensions and
//! feature lists. To add a version, see docs/ARCHITECTURE-unigine.md.

use meshfmt_core::{Budget, Converted, Feature, Model};
use parsing_primitives::Reader;
use unigine_common::magic::{self};
use unigine_common::versions;

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

/// Every version, oldest first; the one list.
pub(crate) const VERSIONS: &[Version] = &[
    Version {
        magic: b"as08",
        target: TargetVersion::As08,
        extension: Some("sanim"),
        holds: &[Feature::Animation],
        read: |r| Ok(AnimFile::As08(as08::read(r)?)),
        from_core: |m, fps, b| Ok(as08::As08::from_core_in(m, fps, b)?.map(AnimFile::As08)),
    },
    Version {
        magic: b"an10",
        target: TargetVersion::An10,
        extension: None,
        holds: &[Feature::Skeleton, Feature::Animation],
        read: |r| Ok(AnimFile::An10(an10::read(r)?)),
        from_core: |m, fps, b| Ok(an10::An10::from_core_in(m, fps, b)?.map(AnimFile::An10)),
    },
    Version {
        magic: b"an11",
        target: TargetVersion::An11,
        extension: None,
        holds: &[Feature::Skeleton, Feature::Animation],
        read: |r| Ok(AnimFile::An11(an11::read(r)?)),
        from_core: |m, fps, b| Ok(an11::An11::from_core_in(m, fps, b)?.map(AnimFile::An11)),
    },
    Version {
        magic: b"an12",
        target: TargetVersion::An12,
        extension: None,
        holds: &[Feature::Animation],
        read: |r| Ok(AnimFile::An12(an12::read(r)?)),
        from_core: |m, fps, b| Ok(an12::An12::from_core_in(m, fps, b)?.map(AnimFile::An12)),
    },
];

/// Every magic, in [`VERSIONS`] order.
pub(crate) const MAGICS: [&[u8; 4]; VERSIONS.len()] = versions::magics(VERSIONS);

/// Every version's name, the default ([`TargetVersion::default`], checked by a test)
/// first: the format contract's list.
pub(crate) const NAMES: [&str; VERSIONS.len()] = magic::names_default_first(MAGICS, b"an10");

unigine_common::version_table_fns!("UNIGINE animation", "anim", 1);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_lists_follow_the_table() {
        assert_eq!(
            description(),
            "UNIGINE animation (as08 .sanim, an10, an11, an12)"
        );
        assert_eq!(extensions(), &["anim", "sanim"]);
    }
}
