//! The bone list of UNIGINE meshes, animations and skeletons: each entry a compact-length
//! name and an `i16` parent (-1 for a root, else an index into the list, which may point
//! to a later bone).

use parsing_primitives::{RawString, Reader, Writer};

use crate::MAX_NAME;

/// A bone of the hierarchy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoneInfo {
    /// Name.
    pub name: RawString,
    /// Parent index, -1 for a root.
    pub parent: i16,
}

/// The bone list of ms1x/ms14 meshes and an10/an11 animations: a compact count, then
/// the entries.
pub fn read_bones(r: &mut Reader<'_>) -> parsing_primitives::Result<Vec<BoneInfo>> {
    let num_bones = r.field("num_bones", |r| r.compact_count(3))?;
    read_bone_entries(r, num_bones)
}

/// `num_bones` bone entries (`str name; i16 parent`) after a count read by the caller
/// (compact in ms1x/ms14/an10/an11, `i32` in sk10/sn10/an12) and checked at 3 bytes
/// per bone.
pub fn read_bone_entries(
    r: &mut Reader<'_>,
    num_bones: usize,
) -> parsing_primitives::Result<Vec<BoneInfo>> {
    r.field("bones", |r| {
        r.array(num_bones as u64, 3, |r| {
            let name = RawString::from(r.compact_nul_string(MAX_NAME)?);
            let at = r.offset();
            let parent = r.i16_le()?;
            if parent < -1 || parent as isize >= num_bones as isize {
                return Err(r.invalid_at(
                    at,
                    format!("parent {parent} out of range ({num_bones} bones)"),
                ));
            }
            Ok(BoneInfo { name, parent })
        })
    })
}

/// Writes a compact count and the entries ([`read_bones`]' layout).
pub fn write_bones(w: &mut Writer, bones: &[BoneInfo]) -> parsing_primitives::Result<()> {
    w.compact_count(bones.len())?;
    write_bone_entries(w, bones)
}

/// Writes the entries alone (the caller wrote the count).
pub fn write_bone_entries(w: &mut Writer, bones: &[BoneInfo]) -> parsing_primitives::Result<()> {
    for b in bones {
        w.compact_nul_string(b.name.as_bytes())?;
        w.i16_le(b.parent);
    }
    Ok(())
}

/// The first parent out of range (below -1 or at least the number of bones) as a
/// message "bone {i}: parent {p} out of range", for the writers' checks.
pub fn check_parents(parents: impl ExactSizeIterator<Item = i64>) -> Result<(), String> {
    let n = parents.len() as i64;
    for (i, p) in parents.enumerate() {
        if p < -1 || p >= n {
            return Err(format!("bone {i}: parent {p} out of range"));
        }
    }
    Ok(())
}

/// [`check_parents`] over a [`BoneInfo`] list.
pub fn check_bone_parents(bones: &[BoneInfo]) -> Result<(), String> {
    check_parents(bones.iter().map(|b| i64::from(b.parent)))
}

/// A bone of UNIGINE 1.x files (as08 animations, ms08 meshes): an `i32`-length name and
/// an `i32` parent (-1 for a root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bone1x {
    /// Name.
    pub name: RawString,
    /// Parent index, -1 for a root.
    pub parent: i32,
}

/// `num_bones` [`Bone1x`] entries after an `i32` count checked by the caller at
/// `min_size` bytes per entry.
pub fn read_bone1x_entries(
    r: &mut Reader<'_>,
    num_bones: usize,
    min_size: usize,
) -> parsing_primitives::Result<Vec<Bone1x>> {
    r.field("bones", |r| {
        r.array(num_bones as u64, min_size, |r| {
            let name = RawString::from(r.i32_nul_string(MAX_NAME)?);
            let at = r.offset();
            let parent = r.i32_le()?;
            if parent < -1 || parent as i64 >= num_bones as i64 {
                return Err(r.invalid_at(
                    at,
                    format!("parent {parent} out of range ({num_bones} bones)"),
                ));
            }
            Ok(Bone1x { name, parent })
        })
    })
}

/// Writes [`Bone1x`] entries (the caller wrote the count).
pub fn write_bone1x_entries(w: &mut Writer, bones: &[Bone1x]) -> parsing_primitives::Result<()> {
    for b in bones {
        w.i32_nul_string(b.name.as_bytes())?;
        w.i32_le(b.parent);
    }
    Ok(())
}

/// [`check_parents`] over a [`Bone1x`] list.
pub fn check_bone1x_parents(bones: &[Bone1x]) -> Result<(), String> {
    check_parents(bones.iter().map(|b| i64::from(b.parent)))
}

/// The writers' checks of a bone list with its bind pose (ms1x meshes, an10): at most
/// `i16::MAX` bones, one bind transform per bone, parents in range.
pub fn check_bones_and_pose(bones: &[BoneInfo], bind_transforms: usize) -> Result<(), String> {
    let nb = bones.len();
    if nb > i16::MAX as usize {
        return Err(format!("{nb} bones exceed the i16 bone index range"));
    }
    if bind_transforms != nb {
        return Err(format!("{bind_transforms} bind transforms for {nb} bones"));
    }
    check_bone_parents(bones)
}

/// The `i32` frame count of the 1.x files (as08, ms08): negative is an error naming the
/// field's offset.
pub fn read_frame_count(r: &mut Reader<'_>) -> parsing_primitives::Result<u32> {
    let at = r.offset();
    r.field("num_frames", |r| {
        let n = r.i32_le()?;
        u32::try_from(n).map_err(|_| r.invalid_at(at, format!("negative frame count {n}")))
    })
}

/// The skeleton a current-docs file (an12, sk10) names: its GUID and path, `int32`-length
/// strings.
pub fn read_skeleton_ref(r: &mut Reader<'_>) -> parsing_primitives::Result<(RawString, RawString)> {
    let guid = r.field("skeleton_guid", |r| {
        r.i32_nul_string(MAX_NAME).map(RawString::from)
    })?;
    let path = r.field("skeleton_path", |r| {
        r.i32_nul_string(MAX_NAME).map(RawString::from)
    })?;
    Ok((guid, path))
}
