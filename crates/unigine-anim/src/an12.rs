//! an12 (`.anim`, the newest documented version): faithful types, read and write, from
//! the official page only (specs/unigine-current/animations_formats.md; no public file
//! exists, so nothing here was checked against the engine's output).
//!
//! ```text
//! "an12"; int32 num_joints; per joint: str name (compact length counting the NUL),
//! i16 parent; str32 skeleton GUID; str32 skeleton path (int32 lengths counting the NUL);
//! ci num_animated; i16 index[num_animated]; int32 fps; bool root_motion; "an12";
//! ci num_frames; frames exactly as an11; "an12"
//! ```
//! No bind pose: it lives in the shared `.skeleton` file the GUID and path name.
//! Assumptions where the page is silent: `bool` is one byte (0 or 1 written, any value
//! read and kept), joint names use the same compact-length strings as an11, and a
//! negative fps is kept as stored (conversions fall back to 30).

use parsing_primitives::{RawString, Reader, Writer};

use crate::FORMAT_NAME;
use crate::an10::{BoneInfo, MAX_NAME};
use crate::an11::{An11Key, read_keys, write_keys};
use crate::error::{Result, invalid};

/// An an12 file.
#[derive(Debug, Clone, PartialEq)]
pub struct An12 {
    /// The source skeleton's joints (parents may point to later joints).
    pub bones: Vec<BoneInfo>,
    /// GUID of the shared `.skeleton` file.
    pub skeleton_guid: RawString,
    /// Path of the shared `.skeleton` file.
    pub skeleton_path: RawString,
    /// Animated joints, as indices into `bones`.
    pub anim_bones: Vec<i16>,
    /// Frames per second, as stored.
    pub fps: i32,
    /// The root-motion flag byte, as stored.
    pub root_motion: u8,
    /// Number of frames.
    pub num_frames: u32,
    /// `num_frames * anim_bones.len()` keys, frame-major.
    pub keys: Vec<An11Key>,
}

/// Reads an an12 file.
pub fn read(r: &mut Reader<'_>) -> parsing_primitives::Result<An12> {
    r.field("magic", |r| r.magic(b"an12"))?;
    let nb = r.field("num_joints", |r| r.i32_count(3))?;
    let bones = r.field("joints", |r| {
        r.array(nb as u64, 3, |r| {
            let name = RawString::from(r.compact_nul_string(MAX_NAME)?);
            let at = r.offset();
            let parent = r.i16_le()?;
            if parent < -1 || parent as isize >= nb as isize {
                return Err(r.invalid_at(at, format!("parent {parent} out of range ({nb} joints)")));
            }
            Ok(BoneInfo { name, parent })
        })
    })?;
    let skeleton_guid = r.field("skeleton_guid", |r| {
        r.i32_nul_string(MAX_NAME).map(RawString::from)
    })?;
    let skeleton_path = r.field("skeleton_path", |r| {
        r.i32_nul_string(MAX_NAME).map(RawString::from)
    })?;
    let na = r.field("num_animated", |r| r.compact_count(2))?;
    let at = r.offset();
    let anim_bones: Vec<i16> = r.field("animated", |r| r.le_array(na as u64))?;
    if let Some(k) = anim_bones.iter().position(|&b| b < 0 || b as usize >= nb) {
        return Err(r.invalid_item_at(
            "animated",
            k,
            at + 2 * k as u64,
            format!("joint {} out of range ({nb} joints)", anim_bones[k]),
        ));
    }
    let fps = r.field("fps", |r| r.i32_le())?;
    let root_motion = r.field("root_motion", |r| r.u8())?;
    r.field("marker2", |r| r.magic(b"an12"))?;
    let at = r.offset();
    let num_frames = r.field("num_frames", |r| r.compact_count(0))?;
    let num_frames = u32::try_from(num_frames).map_err(|_| r.invalid_at(at, "too many frames"))?;
    let keys = read_keys(r, u64::from(num_frames) * na as u64)?;
    r.field("marker3", |r| r.magic(b"an12"))?;
    r.finish()?;
    Ok(An12 {
        bones,
        skeleton_guid,
        skeleton_path,
        anim_bones,
        fps,
        root_motion,
        num_frames,
        keys,
    })
}

impl An12 {
    /// Checks what [`An12::write`] relies on.
    pub fn check(&self) -> Result<()> {
        let nb = self.bones.len();
        if nb > i16::MAX as usize {
            return Err(invalid(format!("{nb} joints")));
        }
        if let Some(b) = self
            .bones
            .iter()
            .find(|b| b.parent < -1 || b.parent as isize >= nb as isize)
        {
            return Err(invalid(format!("parent {} out of range", b.parent)));
        }
        if let Some(b) = self.anim_bones.iter().find(|&&b| b < 0 || b as usize >= nb) {
            return Err(invalid(format!(
                "animated joint {b} out of range ({nb} joints)"
            )));
        }
        if self.keys.len() as u64 != u64::from(self.num_frames) * self.anim_bones.len() as u64 {
            return Err(invalid("key count does not match frames x animated joints"));
        }
        Ok(())
    }

    /// The file's bytes.
    pub fn write(&self) -> Result<Vec<u8>> {
        self.check()?;
        let mut w = Writer::new(FORMAT_NAME);
        w.bytes(b"an12");
        w.i32_le(self.bones.len() as i32);
        for b in &self.bones {
            w.compact_nul_string(b.name.as_bytes())?;
            w.i16_le(b.parent);
        }
        w.i32_nul_string(self.skeleton_guid.as_bytes())?;
        w.i32_nul_string(self.skeleton_path.as_bytes())?;
        w.compact_count(self.anim_bones.len())?;
        w.le_slice(&self.anim_bones);
        w.i32_le(self.fps);
        w.u8(self.root_motion);
        w.bytes(b"an12");
        w.compact_u32(self.num_frames);
        write_keys(&mut w, &self.keys);
        w.bytes(b"an12");
        Ok(w.into_inner())
    }

    /// The stored frame rate, or `fallback` when it is not positive.
    pub fn fps_or(&self, fallback: f32) -> f32 {
        if self.fps > 0 {
            self.fps as f32
        } else {
            fallback
        }
    }
}
