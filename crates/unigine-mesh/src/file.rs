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

/// `to_core_with` and `from_core_with` of a version type whose `to_core_in` and
/// `from_core_in(model, budget)` do the work: the one API shape's option-taking entry
/// points, on the options' budget.
macro_rules! with_options {
    ($ty:ident) => {
        impl $ty {
            #[doc = concat!("[`", stringify!($ty), "::to_core`] under `options`' budget.")]
            pub fn to_core_with(
                &self,
                options: &crate::options::CoreOptions,
            ) -> crate::error::Result<meshfmt_core::Converted<meshfmt_core::Model>> {
                self.to_core_in(&options.budget)
            }

            #[doc = concat!("[`", stringify!($ty), "::from_core`] under `options`' budget (the version is this type's own).")]
            pub fn from_core_with(
                model: &meshfmt_core::Model,
                options: &crate::options::WriteOptions,
            ) -> crate::error::Result<meshfmt_core::Converted<$ty>> {
                $ty::from_core_in(model, &options.budget)
            }
        }
    };
}
pub(crate) use with_options;
