//! What every version's faithful type provides ([`VersionFile`]), and the version names
//! ([`TargetVersion`]). A leaf module: the version modules implement the trait here,
//! and [`crate::versions`] dispatches over it, so neither imports the other.

use meshfmt_core::{Budget, Converted, Model, Summary};

use crate::error::Result;

/// Which version [`MeshFile::from_core`](crate::MeshFile::from_core) writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TargetVersion {
    /// mi08 (static, UNIGINE 1.x).
    Mi08,
    /// ms08 (skinned, UNIGINE 1.x).
    Ms08,
    /// ms10 (UNIGINE 2.0, 7-byte tangents).
    Ms10,
    /// ms11 (UNIGINE 2.x).
    #[default]
    Ms11,
    /// ms13 (UNIGINE 2.19): no embedded animations, lightmap settings per surface.
    Ms13,
    /// ms14 (UNIGINE 2.20): ms13 content in LZ4 blocks, with a spatial tree per surface.
    Ms14,
    /// ms15 (current docs, static; implemented from the documentation only): ms14 minus
    /// bones, weights and morph targets beyond the base geometry.
    Ms15,
    /// sk10 (`.mesh_skinned`, current docs; implemented from the documentation only):
    /// ms13 content in LZ4 blocks, with bind and rest transforms.
    Sk10,
    /// sn10 (`.skeleton`, current docs; implemented from the documentation only): the
    /// skeleton alone.
    Sn10,
}

/// A faithful type of one version (or of a family of layouts, as [`Ms1x`](crate::Ms1x)):
/// what [`MeshFile`](crate::MeshFile) and the format contract ask of it.
pub(crate) trait VersionFile {
    /// The version it writes.
    fn target(&self) -> TargetVersion;
    /// The file's bytes.
    fn write(&self) -> Result<Vec<u8>>;
    /// The file as a meshfmt-core model, charging what it builds to `budget`.
    fn to_core_in(&self, budget: &Budget) -> Result<Converted<Model>>;
    /// What the file stores, read from the faithful types: surfaces, bounds, skeleton,
    /// clips and counts (the contract adds format, version and the budget charge).
    fn summarize(&self, s: &mut Summary);
}
