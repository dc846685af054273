//! an10 (`.anim`, UNIGINE 2.0 to ~2.18): faithful types, read and write.
//!
//! Layout (notes/unigine.md section 6, which overrides the Chinese page): every count
//! and string length is a compact int; the magic appears three times. Each animation
//! quantizes translation and scale in its own boxes (`v = min + size * u / 65535`) and
//! rotation as `i16 / 32767`; a frame stores only the components whose flag bit is set
//! (bit 0..2 translation x, y, z; bit 3 the whole rotation; bit 4..6 scale x, y, z).

use meshfmt_core::{Problem, Problems, Transform};
use parsing_primitives::{RawString, Reader, Writer};
use unigine_common::bones::{check_bones_and_pose, read_bones, write_bones};
use unigine_common::keys::{RotationRange, read_animated_bones, read_frames, read_key, write_key};

use crate::FORMAT_NAME;
use crate::error::{Result, invalid};

pub use unigine_common::{BoneInfo, MAX_NAME};

/// The header bounds every real file stores: the "empty" sentinel (min 1e9, max -1e9,
/// centre 0, radius -1).
pub const EMPTY_BOUNDS: [f32; 10] = [1e9, 1e9, 1e9, -1e9, -1e9, -1e9, 0.0, 0.0, 0.0, -1.0];

/// A box of a channel that never moves: min 1e9, size -2e9 (what real files store).
pub const EMPTY_BOX: QuantBox = QuantBox {
    min: [1e9; 3],
    size: [-2e9; 3],
};

/// A quantization box: `v = min + size * u / 65535` per axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuantBox {
    /// Lowest value per axis.
    pub min: [f32; 3],
    /// Extent per axis (`max - min`).
    pub size: [f32; 3],
}

impl QuantBox {
    /// Decodes one axis.
    pub fn decode(&self, axis: usize, u: u16) -> f32 {
        self.min[axis] + self.size[axis] * (f32::from(u) / 65535.0)
    }

    /// Encodes one axis: `round((v - min) / size * 65535)`, 0 when the size is 0.
    pub fn encode(&self, axis: usize, v: f32) -> u16 {
        let size = self.size[axis];
        if size.is_nan() || size <= 0.0 {
            return 0;
        }
        let t = ((v - self.min[axis]) / size).clamp(0.0, 1.0);
        (t * 65535.0).round() as u16
    }
}

/// One bone's key in one frame: translation and scale in the animation's
/// quantization boxes (`u16`), rotation in units of 1/32767 (flag bits in
/// [`unigine_common::keys`]).
pub type Key = unigine_common::Key<u16>;

/// One animation: its keys quantized across [`Boxes`]. A stored flag byte that disagrees
/// with the keys is reported as a loss by [`to_core`](crate::AnimFile::to_core); its
/// values are [`Frames::decode`](crate::Frames::decode)d and
/// [`Frames::encode`](crate::Frames::encode)d.
pub type Animation = unigine_common::keys::Animation<u16, Boxes>;

/// The boxes an an10 animation's `u16` translations and scales are quantized across.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Boxes {
    /// Translation box.
    pub translation: QuantBox,
    /// Scale box.
    pub scale: QuantBox,
}

impl QuantBox {
    /// True when axis `axis` can decode values: finite minimum and size, not the
    /// [`EMPTY_BOX`] sentinel (whose keys would decode to about 1e9).
    pub fn usable(&self, axis: usize) -> bool {
        let (min, size) = (self.min[axis], self.size[axis]);
        min.is_finite()
            && size.is_finite()
            && !(min == EMPTY_BOX.min[axis] && size == EMPTY_BOX.size[axis])
    }
}

/// An an10 file.
#[derive(Debug, Clone, PartialEq)]
pub struct An10 {
    /// Header bounds as stored (min, max, centre, radius); real files: [`EMPTY_BOUNDS`].
    pub bounds: [f32; 10],
    /// Bone hierarchy.
    pub bones: Vec<BoneInfo>,
    /// Bind pose: local transforms, rotation as stored.
    pub bind_pose: Vec<Transform>,
    /// Animations.
    pub animations: Vec<Animation>,
}

fn read_box(r: &mut Reader<'_>) -> parsing_primitives::Result<QuantBox> {
    let b = r.le::<[f32; 6]>()?;
    Ok(QuantBox {
        min: [b[0], b[1], b[2]],
        size: [b[3], b[4], b[5]],
    })
}

/// Reads an an10 file.
pub(crate) fn read(r: &mut Reader<'_>) -> parsing_primitives::Result<An10> {
    r.field("magic", |r| r.magic(b"an10"))?;
    let bounds = r.field("bounds", |r| r.le::<[f32; 10]>())?;
    let bones = read_bones(r)?;
    let num_bones = bones.len();
    let num_animations = r.field("num_animations", |r| r.compact_count(1))?;
    let names = r.field("animation_names", |r| {
        r.array(num_animations as u64, 1, |r| {
            r.compact_nul_string(MAX_NAME).map(RawString::from)
        })
    })?;
    r.field("marker2", |r| r.magic(b"an10"))?;
    let bind_pose = r.field("bind_pose", |r| r.le_array::<[f32; 10]>(num_bones as u64))?;
    let bind_pose = bind_pose.into_iter().map(Transform::from_array).collect();
    let mut animations = Vec::with_capacity(num_animations);
    for (a, name) in names.into_iter().enumerate() {
        let anim = r.field("animations", |r| {
            r.item(a, |r| {
                let bones = read_animated_bones(r, num_bones)?;
                let translation_box = r.field("translation_box", read_box)?;
                let scale_box = r.field("scale_box", read_box)?;
                let flags = r.field("flags", |r| r.u8())?;
                let (num_frames, keys) =
                    read_frames(r, bones.len(), |r| read_key(r, RotationRange::Checked))?;
                Ok(Animation {
                    name,
                    bones,
                    boxes: Boxes {
                        translation: translation_box,
                        scale: scale_box,
                    },
                    flags,
                    num_frames,
                    keys,
                })
            })
        })?;
        animations.push(anim);
    }
    r.field("marker3", |r| r.magic(b"an10"))?;
    r.finish()?;
    Ok(An10 {
        bounds,
        bones,
        bind_pose,
        animations,
    })
}

impl An10 {
    /// Every reason [`An10::write`] would refuse the file, each at its path: bind
    /// transforms per bone, parents and animated bones in range, key counts, rotation
    /// components in -32767..=32767, and no translation or scale key on an axis whose box
    /// cannot decode it (the [`EMPTY_BOX`] sentinel or a non-finite box: the key would
    /// read back as about 1e9 or NaN).
    pub fn problems(&self) -> Vec<Problem> {
        let nb = self.bones.len();
        let mut p = Problems::default();
        p.check(
            "bones",
            check_bones_and_pose(&self.bones, self.bind_pose.len()),
        );
        for (i, a) in self.animations.iter().enumerate() {
            let path = format!("animations[{i}]");
            p.check(&path, a.check_keys(nb));
            if a.keys
                .iter()
                .filter_map(|k| k.rotation)
                .any(|q| q.contains(&i16::MIN))
            {
                p.push(&path, "rotation component -32768");
            }
            for (kind, b, axis) in [
                ("translation", &a.boxes.translation, 0),
                ("translation", &a.boxes.translation, 1),
                ("translation", &a.boxes.translation, 2),
                ("scale", &a.boxes.scale, 0),
                ("scale", &a.boxes.scale, 1),
                ("scale", &a.boxes.scale, 2),
            ] {
                let keyed = a.keys.iter().any(|k| {
                    if kind == "translation" {
                        k.translation[axis].is_some()
                    } else {
                        k.scale[axis].is_some()
                    }
                });
                if keyed && !b.usable(axis) {
                    p.push(
                        &path,
                        format!(
                            "{kind} keys on axis {axis} but the {kind} box (min {}, size {}) cannot decode them",
                            b.min[axis], b.size[axis]
                        ),
                    );
                }
            }
        }
        p.into_vec()
    }

    /// The file's bytes (an error when [`An10::problems`] finds any); each animation's
    /// flag byte is written as
    /// [`Animation::key_flags`] (derived data, equal to the stored byte in real files).
    pub fn write(&self) -> Result<Vec<u8>> {
        Problems::first(self.problems(), invalid)?;
        let mut w = Writer::new(FORMAT_NAME);
        w.bytes(b"an10");
        w.le_slice(&self.bounds);
        write_bones(&mut w, &self.bones)?;
        w.compact_count(self.animations.len())?;
        for a in &self.animations {
            w.compact_nul_string(a.name.as_bytes())?;
        }
        w.bytes(b"an10");
        let pose: Vec<[f32; 10]> = self.bind_pose.iter().map(Transform::to_array).collect();
        w.le_slice(&pose);
        for a in &self.animations {
            w.compact_count(a.bones.len())?;
            w.le_slice(&a.bones);
            for b in [a.boxes.translation, a.boxes.scale] {
                w.le_slice(&b.min).le_slice(&b.size);
            }
            w.u8(a.key_flags());
            w.compact_u32(a.num_frames);
            for k in &a.keys {
                write_key(&mut w, k);
            }
        }
        w.bytes(b"an10");
        Ok(w.into_inner())
    }
}
