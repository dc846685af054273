//! `.skel` v1: faithful types, read and write (notes/niotso.md section 4).

use std::collections::HashMap;

use parsing_primitives::{RawString, Writer};

use crate::error::{Result, invalid};
use crate::props::{PropsList, read_props_list, write_props_list};
use crate::{FORMAT_NAME, ReadOptions};

/// A bone of a `.skel`.
#[derive(Debug, Clone, PartialEq)]
pub struct SkelBone {
    /// Per-bone field the wiki calls unknown (1 in every known writer).
    pub unknown: u32,
    /// Name.
    pub name: RawString,
    /// Parent's name; `NULL` for the root.
    pub parent: RawString,
    /// The stored "has props" byte (FreeSO writes 1, possibly with an empty list).
    pub has_props: u8,
    /// Properties, read only when `has_props != 0`.
    pub props: PropsList,
    /// Rest translation in the parent's frame.
    pub translation: [f32; 3],
    /// Rest rotation x, y, z, w as stored; it applies as its conjugate (notes 3).
    pub rotation: [f32; 4],
    /// Flags as stored.
    pub can_translate: u32,
    /// Flags as stored.
    pub can_rotate: u32,
    /// Flags as stored.
    pub can_blend: u32,
    /// Wiggle value.
    pub wiggle_value: f32,
    /// Wiggle power.
    pub wiggle_power: f32,
}

/// A `.skel` file.
#[derive(Debug, Clone, PartialEq)]
pub struct Skel {
    /// Version (1).
    pub version: u32,
    /// Skeleton name, e.g. `adult`.
    pub name: RawString,
    /// Bones; parents come before their children.
    pub bones: Vec<SkelBone>,
}

impl Skel {
    /// Index of the parent of bone `i`: the first bone before it with its parent's name
    /// (`None` for a root or an unknown name). A scan of the bones before `i`: use
    /// [`Skel::parent_indices`] for every bone.
    pub fn parent_index(&self, i: usize) -> Option<usize> {
        let parent = &self.bones.get(i)?.parent;
        self.bones[..i].iter().position(|b| b.name == *parent)
    }

    /// [`Skel::parent_index`] of every bone, in one pass.
    ///
    /// ```
    /// use niotso_mesh::skel::{Skel, SkelBone};
    /// let bone = |name: &str, parent: &str| SkelBone {
    ///     unknown: 1, name: name.into(), parent: parent.into(), has_props: 0,
    ///     props: vec![], translation: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0],
    ///     can_translate: 1, can_rotate: 1, can_blend: 1, wiggle_value: 0.0, wiggle_power: 0.0,
    /// };
    /// // A parent must come first: "LEG" names "HIP", which comes after it.
    /// let skel = Skel { version: 1, name: "s".into(), bones: vec![
    ///     bone("ROOT", "NULL"), bone("LEG", "HIP"), bone("HIP", "ROOT"), bone("KNEE", "LEG"),
    /// ] };
    /// assert_eq!(skel.parent_indices(), [None, None, Some(0), Some(1)]);
    /// ```
    pub fn parent_indices(&self) -> Vec<Option<usize>> {
        // Names seen so far (first occurrence), so a lookup only finds earlier bones.
        let mut seen: HashMap<&[u8], usize> = HashMap::with_capacity(self.bones.len());
        self.bones
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let parent = seen.get(b.parent.as_bytes()).copied();
                seen.entry(b.name.as_bytes()).or_insert(i);
                parent
            })
            .collect()
    }

    /// Index of the bone named `name` (exact, then ASCII case-insensitive like FreeSO).
    /// A scan of the bones: use [`Skel::name_index`] for many lookups.
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        self.bones
            .iter()
            .position(|b| b.name.as_bytes() == name)
            .or_else(|| {
                self.bones
                    .iter()
                    .position(|b| b.name.as_bytes().eq_ignore_ascii_case(name))
            })
    }

    /// A map answering [`Skel::find`] for any name without scanning the bones.
    ///
    /// ```
    /// # use niotso_mesh::skel::{Skel, SkelBone};
    /// # let bone = |name: &str| SkelBone {
    /// #     unknown: 1, name: name.into(), parent: "NULL".into(), has_props: 0,
    /// #     props: vec![], translation: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0],
    /// #     can_translate: 1, can_rotate: 1, can_blend: 1, wiggle_value: 0.0, wiggle_power: 0.0,
    /// # };
    /// let skel = Skel { version: 1, name: "s".into(), bones: vec![bone("Head"), bone("HEAD")] };
    /// let names = skel.name_index();
    /// assert_eq!(names.find(b"HEAD"), Some(1)); // exact first
    /// assert_eq!(names.find(b"head"), Some(0)); // then the first ignoring case
    /// assert_eq!(names.find(b"neck"), None);
    /// ```
    pub fn name_index(&self) -> BoneNames<'_> {
        let mut exact = HashMap::with_capacity(self.bones.len());
        let mut folded = HashMap::with_capacity(self.bones.len());
        for (i, b) in self.bones.iter().enumerate() {
            exact.entry(b.name.as_bytes()).or_insert(i);
            folded
                .entry(b.name.as_bytes().to_ascii_lowercase())
                .or_insert(i);
        }
        BoneNames { exact, folded }
    }

    /// What [`Skel::name_index`] allocates, for a budget.
    pub(crate) fn name_index_bytes(&self) -> u64 {
        let names: u64 = self.bones.iter().map(|b| b.name.len() as u64).sum();
        crate::index::map_bytes(self.bones.len(), 24 + 8)
            .saturating_mul(2)
            .saturating_add(names)
    }
}

/// Bone indices by name, built once by [`Skel::name_index`].
#[derive(Debug, Clone)]
pub struct BoneNames<'a> {
    exact: HashMap<&'a [u8], usize>,
    folded: HashMap<Vec<u8>, usize>,
}

impl BoneNames<'_> {
    /// What [`Skel::find`] answers: the first bone named exactly `name`, else the first
    /// whose name equals it ignoring ASCII case.
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        self.exact
            .get(name)
            .or_else(|| self.folded.get(&name.to_ascii_lowercase()))
            .copied()
    }
}

/// Reads a `.skel`.
pub fn read(data: &[u8]) -> Result<Skel> {
    read_with(data, &ReadOptions::default())
}

/// Reads a `.skel` with reading choices (the budget, trailing bytes,
/// other versions).
pub fn read_with(data: &[u8], options: &ReadOptions) -> Result<Skel> {
    let mut r = options.reader(data);
    let at = r.offset();
    let version = r.field("version", |r| r.u32_be())?;
    if version != 1 && !options.any_version {
        return Err(r
            .invalid_at(at, format!("skeleton version {version}, expected 1"))
            .into());
    }
    let name = r.field("name", |r| r.pascal_u8().map(RawString::from))?;
    let n = r.field("bone_count", |r| r.u16_be())?;
    let bones = r.field("bones", |r| {
        r.array(u64::from(n), 55, |r| {
            let unknown = r.u32_be()?;
            let raw_name = r.pascal_u8()?;
            r.label(raw_name);
            let name = RawString::from(raw_name);
            let parent = RawString::from(r.pascal_u8()?);
            let has_props = r.u8()?;
            let props = if has_props != 0 {
                r.field("props", read_props_list)?
            } else {
                Vec::new()
            };
            let t = r.le::<[f32; 3]>()?;
            let q = r.le::<[f32; 4]>()?;
            let flags = r.be::<[u32; 3]>()?;
            let wiggle = r.le::<[f32; 2]>()?;
            Ok(SkelBone {
                unknown,
                name,
                parent,
                has_props,
                props,
                translation: t,
                rotation: q,
                can_translate: flags[0],
                can_rotate: flags[1],
                can_blend: flags[2],
                wiggle_value: wiggle[0],
                wiggle_power: wiggle[1],
            })
        })
    })?;
    options.finish(&r)?;
    Ok(Skel {
        version,
        name,
        bones,
    })
}

impl Skel {
    /// The file's bytes. Fails when a property list is present with `has_props == 0`
    /// (it could not be read back) or there are more than 65535 bones.
    pub fn write(&self) -> Result<Vec<u8>> {
        let n = u16::try_from(self.bones.len())
            .map_err(|_| invalid(format!("{} bones exceed 65535", self.bones.len())))?;
        let mut w = Writer::new(FORMAT_NAME);
        w.u32_be(self.version);
        w.pascal_u8(self.name.as_bytes())?;
        w.u16_be(n);
        for b in &self.bones {
            if b.has_props == 0 && !b.props.is_empty() {
                return Err(invalid(format!(
                    "bone '{}': properties with has_props = 0",
                    b.name
                )));
            }
            w.u32_be(b.unknown);
            w.pascal_u8(b.name.as_bytes())?;
            w.pascal_u8(b.parent.as_bytes())?;
            w.u8(b.has_props);
            if b.has_props != 0 {
                write_props_list(&mut w, &b.props)?;
            }
            w.le_slice(&b.translation).le_slice(&b.rotation);
            w.u32_be(b.can_translate)
                .u32_be(b.can_rotate)
                .u32_be(b.can_blend);
            w.f32_le(b.wiggle_value).f32_le(b.wiggle_power);
        }
        Ok(w.into_inner())
    }
}
