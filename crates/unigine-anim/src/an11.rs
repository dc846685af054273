//! an11 (`.anim`, UNIGINE 2.19+): faithful types, read and write
//! (notes/unigine-current.md section 6, verified on real files).
//!
//! No header bounds, no animation names, no quantization: each frame record is a flag
//! byte (bit 0 position, bit 1 rotation, bit 2 scale) and the flagged components as
//! floats. An unflagged component is the *default* (zero position, identity rotation,
//! unit scale), not the previous frame's value.

use meshfmt_core::{Problem, Problems, Transform};
use parsing_primitives::{Reader, Writer};
use unigine_common::BoneInfo;
use unigine_common::bones::{read_bones, write_bones};
use unigine_common::keys::frame_keys;

use crate::FORMAT_NAME;
use crate::error::{Result, invalid};

/// One bone's key in one frame; `None` components are the defaults.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct An11Key {
    /// Position (flag bit 0).
    pub position: Option<[f32; 3]>,
    /// Rotation x, y, z, w (flag bit 1).
    pub rotation: Option<[f32; 4]>,
    /// Scale (flag bit 2).
    pub scale: Option<[f32; 3]>,
}

impl An11Key {
    /// The flag byte.
    pub fn flags(&self) -> u8 {
        u8::from(self.position.is_some())
            | u8::from(self.rotation.is_some()) << 1
            | u8::from(self.scale.is_some()) << 2
    }

    /// The key's transform, defaults filled in.
    pub fn transform(&self) -> Transform {
        Transform::from_array({
            let p = self.position.unwrap_or([0.0; 3]);
            let q = self.rotation.unwrap_or([0.0, 0.0, 0.0, 1.0]);
            let s = self.scale.unwrap_or([1.0; 3]);
            [p[0], p[1], p[2], q[0], q[1], q[2], q[3], s[0], s[1], s[2]]
        })
    }
}

/// An an11 file.
#[derive(Debug, Clone, PartialEq)]
pub struct An11 {
    /// Bone hierarchy (parents may point to later bones).
    pub bones: Vec<BoneInfo>,
    /// Bind pose, as stored.
    pub bind_pose: Vec<Transform>,
    /// Animated bones, as indices into `bones`.
    pub anim_bones: Vec<i16>,
    /// Number of frames.
    pub num_frames: u32,
    /// `num_frames * anim_bones.len()` keys, frame-major.
    pub keys: Vec<An11Key>,
}

/// `ci num_anim_bones; i16 bone_index[num_anim_bones]` with every index checked
/// against `num_bones` (shared by an11 and an12).
pub(crate) fn read_anim_bones(
    r: &mut Reader<'_>,
    nb: usize,
) -> parsing_primitives::Result<Vec<i16>> {
    let na = r.field("num_anim_bones", |r| r.compact_count(2))?;
    let at = r.offset();
    let anim_bones: Vec<i16> = r.field("anim_bones", |r| r.le_array(na as u64))?;
    if let Some((k, b)) = anim_bones
        .iter()
        .enumerate()
        .find(|(_, b)| **b < 0 || **b as usize >= nb)
    {
        return Err(r.invalid_item_at(
            "anim_bones",
            k,
            at + 2 * k as u64,
            format!("bone {b} out of range ({nb} bones)"),
        ));
    }
    Ok(anim_bones)
}

/// `ci num_frames`, then `num_frames * na` flagged key records (shared by an11 and
/// an12). Returns the frame count and the keys, frame-major.
pub(crate) fn read_frames(
    r: &mut Reader<'_>,
    na: usize,
) -> parsing_primitives::Result<(u32, Vec<An11Key>)> {
    unigine_common::keys::read_frames(r, na, |r| {
        let at = r.offset();
        let flags = r.u8()?;
        if flags & !7 != 0 {
            return Err(r.invalid_at(at, format!("frame flags {flags:#04x} use undefined bits")));
        }
        Ok(An11Key {
            position: if flags & 1 != 0 {
                Some(r.le::<[f32; 3]>()?)
            } else {
                None
            },
            rotation: if flags & 2 != 0 {
                Some(r.le::<[f32; 4]>()?)
            } else {
                None
            },
            scale: if flags & 4 != 0 {
                Some(r.le::<[f32; 3]>()?)
            } else {
                None
            },
        })
    })
}

/// Writes `ci num_frames` and the key records (shared by an11 and an12).
pub(crate) fn write_frames(w: &mut Writer, num_frames: u32, keys: &[An11Key]) {
    w.compact_u32(num_frames);
    for k in keys {
        w.u8(k.flags());
        if let Some(p) = &k.position {
            w.le_slice(p);
        }
        if let Some(q) = &k.rotation {
            w.le_slice(q);
        }
        if let Some(s) = &k.scale {
            w.le_slice(s);
        }
    }
}

/// Checks a bone list, animated-bone indices and key count (shared by an11 and an12).
pub(crate) fn check_anim(
    bones: &[BoneInfo],
    anim_bones: &[i16],
    num_frames: u32,
    keys: &[An11Key],
    p: &mut Problems,
) {
    let nb = bones.len();
    if nb > i16::MAX as usize {
        p.push("bones", format!("{nb} bones exceed the i16 range"));
    }
    if let Some(b) = bones
        .iter()
        .find(|b| b.parent < -1 || b.parent as isize >= nb as isize)
    {
        p.push("bones", format!("parent {} out of range", b.parent));
    }
    if let Some(b) = anim_bones.iter().find(|&&b| b < 0 || b as usize >= nb) {
        p.push(
            "anim_bones",
            format!("animated bone {b} out of range ({nb} bones)"),
        );
    }
    if keys.len() as u64 != u64::from(num_frames) * anim_bones.len() as u64 {
        p.push("keys", "key count does not match frames x animated bones");
    }
}

/// Reads an an11 file.
pub(crate) fn read(r: &mut Reader<'_>) -> parsing_primitives::Result<An11> {
    r.field("magic", |r| r.magic(b"an11"))?;
    let bones = read_bones(r)?;
    let nb = bones.len();
    r.field("marker2", |r| r.magic(b"an11"))?;
    let bind_pose = r.field("bind_pose", |r| r.le_array::<[f32; 10]>(nb as u64))?;
    let bind_pose = bind_pose.into_iter().map(Transform::from_array).collect();
    let anim_bones = read_anim_bones(r, nb)?;
    let (num_frames, keys) = read_frames(r, anim_bones.len())?;
    r.field("marker3", |r| r.magic(b"an11"))?;
    r.finish()?;
    Ok(An11 {
        bones,
        bind_pose,
        anim_bones,
        num_frames,
        keys,
    })
}

impl An11 {
    /// The keys of frame `f` (empty past the end).
    pub fn frame(&self, f: usize) -> &[An11Key] {
        frame_keys(&self.keys, f, self.anim_bones.len())
    }

    /// Every reason [`An11::write`] would refuse the file, each at its path.
    pub fn problems(&self) -> Vec<Problem> {
        let nb = self.bones.len();
        let mut p = Problems::default();
        if self.bind_pose.len() != nb {
            p.push(
                "bind_pose",
                format!("{nb} bones with {} bind transforms", self.bind_pose.len()),
            );
        }
        check_anim(
            &self.bones,
            &self.anim_bones,
            self.num_frames,
            &self.keys,
            &mut p,
        );
        p.into_vec()
    }

    /// The file's bytes; an error when [`An11::problems`] finds any.
    pub fn write(&self) -> Result<Vec<u8>> {
        Problems::first(self.problems(), invalid)?;
        let mut w = Writer::new(FORMAT_NAME);
        w.bytes(b"an11");
        write_bones(&mut w, &self.bones)?;
        w.bytes(b"an11");
        let pose: Vec<[f32; 10]> = self.bind_pose.iter().map(Transform::to_array).collect();
        w.le_slice(&pose);
        w.compact_count(self.anim_bones.len())?;
        w.le_slice(&self.anim_bones);
        write_frames(&mut w, self.num_frames, &self.keys);
        w.bytes(b"an11");
        Ok(w.into_inner())
    }
}
