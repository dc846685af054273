//! an12 (`.anim`, current UNIGINE documentation): faithful types, read and write.
//!
//! **Implemented from the documentation only** (`animations_formats.md`, summarized in
//! notes/unigine-current.md section 7); no real an12 file has been seen. Layout:
//!
//! ```text
//! u8[4]  "an12"
//! i32    num_joints                      -- fixed int32, not a compact int
//! repeat num_joints: str name (compact length incl. NUL); i16 parent
//! str32  skeleton GUID                   -- i32 length incl. NUL, bytes, NUL
//! str32  skeleton path
//! ci     num_animated; i16 joint_index[num_animated]
//! i32    fps
//! u8     root motion (bool)
//! u8[4]  "an12"
//! ci     num_frames; frames as an11 (flag byte, flagged f32[3]/f32[4]/f32[3])
//! u8[4]  "an12"
//! ```
//!
//! Assumptions (the page does not say): `bool` is one byte, 0 or 1 (other values are
//! rejected so that `write(read(b)) == b`); a `str32` length of 0 reads as an empty
//! string but is written back as `01 00 00 00 00`; joint parents are checked like an11
//! bones (`-1 <= parent < num_joints`); unflagged components are the defaults (zero
//! position, identity rotation, unit scale), as the page says. The file has no bind
//! pose (it lives in the referenced `.skeleton`).
//!
//! ```
//! use unigine_anim::{AnimFile, TargetVersion, WriteOptions};
//!
//! let model = meshfmt_core::canonical::skinned_arm();
//! let options = WriteOptions { version: TargetVersion::An12, fps: 24.0, ..Default::default() };
//! let file = AnimFile::from_core_with(&model, &options)?.value;
//! let bytes = file.write()?;
//! assert_eq!(&bytes[..4], b"an12");
//! let back = unigine_anim::read(&bytes)?;
//! assert_eq!(back.write()?, bytes);
//! // an12 stores its frame rate: the default fps is only a fallback for fps <= 0.
//! let clip = &back.to_core()?.value.animations[0];
//! assert_eq!(clip.channels[0].rotation.times[1], 1.0 / 24.0);
//! # Ok::<(), unigine_anim::Error>(())
//! ```

use meshfmt_core::{Problem, Problems};
use parsing_primitives::{RawString, Reader, Writer};
use unigine_common::BoneInfo;
use unigine_common::bones::{read_bone_entries, write_bone_entries};
use unigine_common::keys::frame_keys;

use crate::FORMAT_NAME;
use crate::an11::{An11Key, check_anim, read_anim_bones, read_frames, write_frames};
use crate::error::{Result, invalid};

/// An an12 file.
#[derive(Debug, Clone, PartialEq)]
pub struct An12 {
    /// Source joints (parents may point to later joints).
    pub joints: Vec<BoneInfo>,
    /// GUID of the shared `.skeleton` file, as stored.
    pub skeleton_guid: RawString,
    /// Path of the shared `.skeleton` file, as stored.
    pub skeleton_path: RawString,
    /// Animated joints, as indices into `joints`.
    pub anim_bones: Vec<i16>,
    /// Frames per second, as stored.
    pub fps: i32,
    /// Root-motion flag.
    pub root_motion: bool,
    /// Number of frames.
    pub num_frames: u32,
    /// `num_frames * anim_bones.len()` keys, frame-major (same records as an11).
    pub keys: Vec<An11Key>,
}

/// Reads an an12 file.
pub(crate) fn read(r: &mut Reader<'_>) -> parsing_primitives::Result<An12> {
    r.field("magic", |r| r.magic(b"an12"))?;
    let n = r.field("num_joints", |r| r.i32_count(3))?;
    let joints = read_bone_entries(r, n)?;
    let (skeleton_guid, skeleton_path) = unigine_common::bones::read_skeleton_ref(r)?;
    let anim_bones = read_anim_bones(r, joints.len())?;
    let fps = r.field("fps", |r| r.i32_le())?;
    let at = r.offset();
    let root_motion = match r.field("root_motion", |r| r.u8())? {
        0 => false,
        1 => true,
        v => return Err(r.invalid_at(at, format!("root motion flag {v} is not 0 or 1"))),
    };
    r.field("marker2", |r| r.magic(b"an12"))?;
    let (num_frames, keys) = read_frames(r, anim_bones.len())?;
    r.field("marker3", |r| r.magic(b"an12"))?;
    r.finish()?;
    Ok(An12 {
        joints,
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
    /// The keys of frame `f` (empty past the end).
    pub fn frame(&self, f: usize) -> &[An11Key] {
        frame_keys(&self.keys, f, self.anim_bones.len())
    }

    /// Every reason [`An12::write`] would refuse the file, each at its path.
    pub fn problems(&self) -> Vec<Problem> {
        let mut p = Problems::default();
        check_anim(
            &self.joints,
            &self.anim_bones,
            self.num_frames,
            &self.keys,
            &mut p,
        );
        p.into_vec()
    }

    /// The file's bytes; an error when [`An12::problems`] finds any.
    pub fn write(&self) -> Result<Vec<u8>> {
        Problems::first(self.problems(), invalid)?;
        let nj = i32::try_from(self.joints.len())
            .map_err(|_| invalid("too many joints for an i32 count"))?;
        let mut w = Writer::new(FORMAT_NAME);
        w.bytes(b"an12");
        w.i32_le(nj);
        write_bone_entries(&mut w, &self.joints)?;
        w.i32_nul_string(self.skeleton_guid.as_bytes())?;
        w.i32_nul_string(self.skeleton_path.as_bytes())?;
        w.compact_count(self.anim_bones.len())?;
        w.le_slice(&self.anim_bones);
        w.i32_le(self.fps);
        w.u8(u8::from(self.root_motion));
        w.bytes(b"an12");
        write_frames(&mut w, self.num_frames, &self.keys);
        w.bytes(b"an12");
        Ok(w.into_inner())
    }
}
