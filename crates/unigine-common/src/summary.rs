//! The bone hierarchy of an info summary, from the faithful bone lists.

use meshfmt_core::SkeletonSummary;
use parsing_primitives::RawString;

/// The hierarchy of bones given as (name, parent index, negative for a root); `None`
/// without bones.
pub fn hierarchy<'a>(bones: impl Iterator<Item = (&'a RawString, i32)>) -> Option<SkeletonSummary> {
    let (names, parents): (Vec<String>, Vec<Option<usize>>) = bones
        .map(|(name, parent)| (name.to_string_lossy(), usize::try_from(parent).ok()))
        .unzip();
    (!names.is_empty()).then(|| SkeletonSummary::from_parents(&names, &parents))
}
