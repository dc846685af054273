//! UNIGINE bone lists to and from the meshfmt-core skeleton: names as stored bytes
//! (decoded lossily), parents as signed indices (-1 for a root).

use meshfmt_core::{Bone, Skeleton, Transform};
use parsing_primitives::RawString;

use crate::bones::{Bone1x, BoneInfo};

/// A skeleton from (name, parent index or a negative for a root, rest transform)
/// triples; no inverse bind matrices (UNIGINE derives them from the bind pose).
pub fn skeleton_from<'a>(bones: impl Iterator<Item = (&'a RawString, i64, Transform)>) -> Skeleton {
    Skeleton {
        bones: bones
            .map(|(name, parent, rest)| Bone {
                name: name.to_string_lossy(),
                parent: usize::try_from(parent).ok(),
                rest,
                inverse_bind: None,
            })
            .collect(),
    }
}

/// The skeleton's bones as an `i16`-parent bone list; an error message when there are
/// more bones than an `i16` index reaches.
pub fn bone_infos(skeleton: &Skeleton) -> Result<Vec<BoneInfo>, String> {
    let nb = skeleton.len();
    if nb > i16::MAX as usize {
        return Err(format!("{nb} bones exceed the i16 bone index range"));
    }
    Ok(skeleton
        .bones
        .iter()
        .map(|b| BoneInfo {
            name: RawString::from(b.name.as_str()),
            // Below i16::MAX bones, checked above.
            parent: b.parent.map_or(-1, |p| p as i16),
        })
        .collect())
}

/// The skeleton's bones as a UNIGINE 1.x (as08/ms08) bone list; the caller checks
/// the bone count against its own index width.
pub fn bone1x_list(skeleton: &Skeleton) -> Vec<Bone1x> {
    skeleton
        .bones
        .iter()
        .map(|b| Bone1x {
            name: RawString::from(b.name.as_str()),
            parent: b.parent.map_or(-1, |p| p as i32),
        })
        .collect()
}
