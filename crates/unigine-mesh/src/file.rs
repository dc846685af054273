//! What every version's faithful type provides ([`VersionFile`]). A leaf module: the
//! version modules implement the trait here and [`crate::versions`] dispatches over
//! it, so neither imports the other.

use meshfmt_core::{Budget, Converted, Model, Summary};

use crate::error::Result;

/// A faithful type of one version (or of a family of layouts, as [`Ms1x`](crate::Ms1x)):
/// what [`MeshFile`](crate::MeshFile) and the format contract ask of it.
pub(crate) trait VersionFile {
    /// The magic of the version it writes (its row in [`crate::versions::VERSIONS`]).
    fn magic(&self) -> &'static [u8; 4];
    /// The file's bytes.
    fn write(&self) -> Result<Vec<u8>>;
    /// What [`VersionFile::write`] would refuse.
    fn problems(&self) -> Vec<meshfmt_core::Problem>;
    /// The file as a meshfmt-core model, charging what it builds to `budget`.
    fn to_core_in(&self, budget: &Budget) -> Result<Converted<Model>>;
    /// What the file stores, read from the faithful types: surfaces, bounds, skeleton,
    /// clips and counts (the contract adds format, version and the budget charge).
    fn summarize(&self, s: &mut Summary);
}

/// `write`, `problems` and `to_core_in` of a [`VersionFile`] impl, handed to the type's own functions
/// of those names (inherent functions come first in `Self::` paths; a type without them
/// would recurse, which the `unconditional_recursion` lint refuses).
macro_rules! version_file_delegates {
    () => {
        fn write(&self) -> crate::error::Result<Vec<u8>> {
            Self::write(self)
        }

        fn problems(&self) -> Vec<meshfmt_core::Problem> {
            Self::problems(self)
        }

        fn to_core_in(
            &self,
            budget: &meshfmt_core::Budget,
        ) -> crate::error::Result<meshfmt_core::Converted<meshfmt_core::Model>> {
            Self::to_core_in(self, budget)
        }
    };
}
pub(crate) use version_file_delegates;
