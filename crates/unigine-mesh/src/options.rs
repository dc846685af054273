//! The choices of the one API shape's entry points ([`WriteOptions`], [`CoreOptions`])
//! and the versions a model can be written as ([`TargetVersion`]). A leaf module: the
//! version modules take their options from here, and [`crate::versions`] dispatches
//! over them.

use meshfmt_core::Budget;

/// Which version [`MeshFile::from_core_with`](crate::MeshFile::from_core_with) writes.
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

/// Writing choices for [`MeshFile::from_core_with`](crate::MeshFile::from_core_with),
/// [`MeshFile::write_with`](crate::MeshFile::write_with) and the version types'
/// `from_core_with`.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// The version to write ([`MeshFile::from_core_with`](crate::MeshFile::from_core_with);
    /// a version type writes its own).
    pub version: TargetVersion,
    /// The operation's budget (clones share it; the default is a fresh one of
    /// [`Limits::DEFAULT`](crate::Limits)).
    pub budget: Budget,
}

/// Conversion choices for [`MeshFile::to_core_with`](crate::MeshFile::to_core_with) and
/// the version types' `to_core_with`.
#[derive(Debug, Clone, Default)]
pub struct CoreOptions {
    /// The operation's budget (clones share it: give the one the file was read with;
    /// the default is a fresh one of [`Limits::DEFAULT`](crate::Limits)).
    pub budget: Budget,
}
