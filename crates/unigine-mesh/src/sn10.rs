//! sn10 (`.skeleton`, current UNIGINE documentation): a shared skeleton with blend
//! profiles and retarget settings.
//!
//! **Implemented from the documentation only** (`animations_formats.md`, summarized in
//! notes/unigine-current.md section 7); no real sn10 file has been seen. Layout:
//!
//! ```text
//! u8[4]   "sn10"
//! i32     num_joints
//! repeat: str name (compact length incl. NUL); i16 parent
//! repeat num_joints: f32[10] bind pose (position, rotation x y z w, scale)
//! u8[4]   "sn10"
//! i32     num_blend_masks;          repeat: str32 name; i32 n; f32[n]
//! i32     num_blend_time_profiles;  repeat: str32 name; i32 n; f32[n]
//! i32     num_blend_weight_profiles; repeat: str32 name; i32 n; f32[n]
//! i32     num_retarget_entries;     repeat: i32 mode; f32 length
//! u8[4]   "sn10"
//! ```
//! (`str32` = `i32` length incl. NUL, bytes, NUL.)
//!
//! Assumptions: the joint count is a fixed `i32` but joint-name lengths are compact
//! ints, literally as the page says; the bind pose has no count of its own (one per
//! joint, the page gives none); profile value counts and the retarget entry count
//! are not required to equal the joint count (the page says "one per joint" only for
//! retarget entries; both are copied through as stored); retarget modes are kept as
//! stored `i32`s (the page defines 0 pose, 1 bind, 2 proportion); a `str32` length of
//! 0 reads as an empty name but is written back as length 1.

use meshfmt_core::{Budget, Converted, Feature, LossKind, Model};
use parsing_primitives::{RawString, Reader, Writer};
use unigine_common::BoneInfo;
use unigine_common::bones::{read_bone_entries, write_bone_entries};

use crate::FORMAT_NAME;
use crate::common::{BindTransform, Bounds, MAX_NAME};
use crate::convert::COORDINATE_SYSTEM;
use crate::error::{Result, invalid};
use crate::ms1x::{Ms1x, Ms1xVersion};

/// A named list of per-joint values (blend mask, blend time or weight profile).
#[derive(Debug, Clone, PartialEq)]
pub struct JointProfile {
    /// Name, as stored.
    pub name: RawString,
    /// Values, as stored (normally one per joint).
    pub values: Vec<f32>,
}

/// How a joint's translation is retargeted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetargetEntry {
    /// Mode as stored: 0 pose, 1 bind, 2 proportion (see [`RETARGET_POSE`] etc.).
    pub mode: i32,
    /// Custom length; negative = the default length from the bind pose.
    pub length: f32,
}

/// Retarget mode 0: pose.
pub const RETARGET_POSE: i32 = 0;
/// Retarget mode 1: bind.
pub const RETARGET_BIND: i32 = 1;
/// Retarget mode 2: proportion.
pub const RETARGET_PROPORTION: i32 = 2;

/// An sn10 file.
#[derive(Debug, Clone, PartialEq)]
pub struct Sn10 {
    /// Joint hierarchy (parents may point to later joints).
    pub joints: Vec<BoneInfo>,
    /// Bind pose, one parent-relative transform per joint.
    pub bind_pose: Vec<BindTransform>,
    /// Blend masks (joint influences in 0..1).
    pub blend_masks: Vec<JointProfile>,
    /// Blend time profiles (per-joint time scales).
    pub blend_time_profiles: Vec<JointProfile>,
    /// Blend weight profiles (per-joint weight scales).
    pub blend_weight_profiles: Vec<JointProfile>,
    /// Translation retarget entries (normally one per joint).
    pub retarget: Vec<RetargetEntry>,
}

fn read_profiles(
    r: &mut Reader<'_>,
    count: &'static str,
    list: &'static str,
) -> parsing_primitives::Result<Vec<JointProfile>> {
    // Smallest profile: a 4-byte name length (0) and a 4-byte value count.
    let n = r.field(count, |r| r.i32_count(8))?;
    r.field(list, |r| {
        r.array(n as u64, 8, |r| {
            let name = RawString::from(r.field("name", |r| r.i32_nul_string(MAX_NAME))?);
            let nv = r.field("num_values", |r| r.i32_count(4))?;
            let values = r.field("values", |r| r.le_array::<f32>(nv as u64))?;
            Ok(JointProfile { name, values })
        })
    })
}

/// Reads an sn10 file.
pub(crate) fn read(r: &mut Reader<'_>) -> parsing_primitives::Result<Sn10> {
    r.field("magic", |r| r.magic(b"sn10"))?;
    // Smallest joint: a 1-byte name length, 2-byte parent and the 40-byte bind pose.
    let nj = r.field("num_joints", |r| r.i32_count(3 + 40))?;
    let joints = read_bone_entries(r, nj)?;
    let bind_pose = r.field("bind_pose", |r| r.le_array::<[f32; 10]>(nj as u64))?;
    let bind_pose = bind_pose
        .into_iter()
        .map(BindTransform::from_array)
        .collect();
    r.field("marker2", |r| r.magic(b"sn10"))?;
    let blend_masks = read_profiles(r, "num_blend_masks", "blend_masks")?;
    let blend_time_profiles = read_profiles(r, "num_blend_time_profiles", "blend_time_profiles")?;
    let blend_weight_profiles =
        read_profiles(r, "num_blend_weight_profiles", "blend_weight_profiles")?;
    let n = r.field("num_retarget_entries", |r| r.i32_count(8))?;
    let retarget = r.field("retarget", |r| {
        r.array(n as u64, 8, |r| {
            Ok(RetargetEntry {
                mode: r.i32_le()?,
                length: r.f32_le()?,
            })
        })
    })?;
    r.field("marker3", |r| r.magic(b"sn10"))?;
    r.finish()?;
    Ok(Sn10 {
        joints,
        bind_pose,
        blend_masks,
        blend_time_profiles,
        blend_weight_profiles,
        retarget,
    })
}

fn count32(n: usize, what: &str) -> Result<i32> {
    i32::try_from(n).map_err(|_| invalid(format!("{n} {what} exceed an i32 count")))
}

fn write_profiles(w: &mut Writer, list: &[JointProfile], what: &str) -> Result<()> {
    w.i32_le(count32(list.len(), what)?);
    for p in list {
        w.i32_nul_string(p.name.as_bytes())?;
        w.i32_le(count32(p.values.len(), "profile values")?);
        w.le_slice(&p.values);
    }
    Ok(())
}

impl Sn10 {
    /// What [`Sn10::write`] would refuse, at its path (the first thing found).
    pub fn problems(&self) -> Vec<meshfmt_core::Problem> {
        let mut p = meshfmt_core::Problems::default();
        p.check("sn10", self.check());
        p.into_vec()
    }

    /// Checks what [`Sn10::write`] relies on: one bind transform per joint, parents in
    /// range, at most `i16::MAX` joints.
    pub(crate) fn check(&self) -> Result<()> {
        let nj = self.joints.len();
        if nj > i16::MAX as usize {
            return Err(invalid(format!("{nj} joints exceed the i16 range")));
        }
        if self.bind_pose.len() != nj {
            return Err(invalid(format!(
                "{} bind transforms for {nj} joints",
                self.bind_pose.len()
            )));
        }
        if let Some((i, b)) = self
            .joints
            .iter()
            .enumerate()
            .find(|(_, b)| b.parent < -1 || b.parent as isize >= nj as isize)
        {
            return Err(invalid(format!(
                "joint {i}: parent {} out of range",
                b.parent
            )));
        }
        Ok(())
    }

    /// The file's bytes.
    pub fn write(&self) -> Result<Vec<u8>> {
        self.check()?;
        let mut w = Writer::new(FORMAT_NAME);
        w.bytes(b"sn10");
        w.i32_le(count32(self.joints.len(), "joints")?);
        write_bone_entries(&mut w, &self.joints)?;
        let pose: Vec<[f32; 10]> = self.bind_pose.iter().map(BindTransform::to_array).collect();
        w.le_slice(&pose);
        w.bytes(b"sn10");
        write_profiles(&mut w, &self.blend_masks, "blend masks")?;
        write_profiles(&mut w, &self.blend_time_profiles, "blend time profiles")?;
        write_profiles(&mut w, &self.blend_weight_profiles, "blend weight profiles")?;
        w.i32_le(count32(self.retarget.len(), "retarget entries")?);
        for e in &self.retarget {
            w.i32_le(e.mode).f32_le(e.length);
        }
        w.bytes(b"sn10");
        Ok(w.into_inner())
    }

    fn as_ms13(&self) -> Ms1x {
        Ms1x {
            version: Ms1xVersion::Ms13,
            bounds: Bounds::from_array([0.0; 10]),
            bones: self.joints.clone(),
            bind_pose: self.bind_pose.clone(),
            animations: Vec::new(),
            surfaces: Vec::new(),
        }
    }

    /// A skeleton-only meshfmt-core model: joints with the bind pose as rest
    /// transforms (as ms13 bones convert). Blend profiles and retarget settings have no
    /// place in meshfmt-core and are reported as losses.
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_in(&Budget::default())
    }

    /// [`Sn10::to_core`], charging the model it builds to `budget`.
    pub(crate) fn to_core_in(&self, budget: &Budget) -> Result<Converted<Model>> {
        let mut c = self.as_ms13().to_core_in(budget)?;
        let extra = self.blend_masks.len()
            + self.blend_time_profiles.len()
            + self.blend_weight_profiles.len();
        if extra > 0 {
            c.lose(
                Feature::Animation,
                LossKind::Dropped,
                "blend profiles",
                format!("{extra} blend masks and profiles have no meshfmt-core equivalent"),
            );
        }
        if !self.retarget.is_empty() {
            c.lose(
                Feature::Skeleton,
                LossKind::Dropped,
                "retarget",
                "translation retarget settings have no meshfmt-core equivalent",
            );
        }
        Ok(c)
    }

    /// An sn10 file from a model's skeleton (bind pose = rest transforms, as for ms13
    /// bones). Geometry, materials and clips are dropped and reported; no blend
    /// profiles are written, and one retarget entry per joint with mode
    /// [`RETARGET_POSE`] and the default length (-1), an assumption: the page gives no
    /// default.
    pub fn from_core(model: &Model) -> Result<Converted<Sn10>> {
        Sn10::from_core_in(model, &Budget::default())
    }

    /// [`Sn10::from_core`], charging the copy of the skeleton it makes to `budget`.
    pub(crate) fn from_core_in(model: &Model, budget: &Budget) -> Result<Converted<Sn10>> {
        let had_geometry = !model.surfaces.is_empty();
        let had_materials = !model.materials.is_empty() || !model.textures.is_empty();
        // The model without what a skeleton drops: only its skeleton is copied (charged
        // first), in UNIGINE's frame, so the mesh encoder below borrows it.
        let copy = (model.name.len() as u64).saturating_add(model.skeleton.heap_bytes());
        budget.charge("model copy", copy)?;
        let mut skeleton_only = Model {
            name: model.name.clone(),
            coordinate_system: model.coordinate_system,
            skeleton: model.skeleton.clone(),
            ..Model::default()
        };
        skeleton_only.convert_to(COORDINATE_SYSTEM);
        let mut c = Ms1x::from_core_in(&skeleton_only, Ms1xVersion::Ms13, budget)?;
        if had_geometry {
            c.lose(
                Feature::Geometry,
                LossKind::Dropped,
                "",
                "a .skeleton holds only joints (geometry belongs in a .mesh)",
            );
        }
        if had_materials {
            c.lose(
                Feature::Materials,
                LossKind::Dropped,
                "",
                "a .skeleton holds no materials or textures",
            );
        }
        if !model.animations.is_empty() {
            c.lose(
                Feature::Animation,
                LossKind::Dropped,
                "",
                "a .skeleton holds no animations (write an .anim)",
            );
        }
        Ok(c.map(|m| Sn10 {
            retarget: vec![
                RetargetEntry {
                    mode: RETARGET_POSE,
                    length: -1.0,
                };
                m.bones.len()
            ],
            joints: m.bones,
            bind_pose: m.bind_pose,
            blend_masks: Vec::new(),
            blend_time_profiles: Vec::new(),
            blend_weight_profiles: Vec::new(),
        }))
    }
}

crate::file::with_options!(Sn10);

impl crate::file::VersionFile for Sn10 {
    fn magic(&self) -> &'static [u8; 4] {
        b"sn10"
    }

    crate::file::version_file_delegates!();

    /// The joint hierarchy and count; no surfaces.
    fn summarize(&self, s: &mut meshfmt_core::Summary) {
        s.skeleton = unigine_common::summary::hierarchy(
            self.joints.iter().map(|j| (&j.name, i32::from(j.parent))),
        );
        s.counts.bones = self.joints.len() as u64;
    }
}
