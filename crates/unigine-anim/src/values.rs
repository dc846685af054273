//! an10 animations as plain per-frame values, and the encoder that writes values the
//! way real files are written.

use meshfmt_core::Transform;
use parsing_primitives::RawString;

use crate::an10::{Animation, EMPTY_BOX, Key, QuantBox};

/// How far a value may be from the identity and still count as not animated (real
/// files leave scales within 1e-7 of 1 unanimated and animate ones 2e-6 off).
pub const IDENTITY_EPSILON: f32 = 1e-6;

/// Decoded per-frame values of one animation, frame-major: the value of bone slot `b`
/// in frame `f` is at `f * bones.len() + b`.
#[derive(Debug, Clone, PartialEq)]
pub struct Frames {
    /// Animated bones, as indices into the file's bone list.
    pub bones: Vec<i16>,
    /// Number of frames.
    pub num_frames: usize,
    /// Translations.
    pub translation: Vec<[f32; 3]>,
    /// Rotations as decoded (`i16 / 32767`, not renormalized).
    pub rotation: Vec<[f32; 4]>,
    /// Scales.
    pub scale: Vec<[f32; 3]>,
}

fn decode_rotation(q: [i16; 4]) -> [f32; 4] {
    q.map(|v| f32::from(v) / 32767.0)
}

fn encode_rotation(q: [f32; 4]) -> [i16; 4] {
    q.map(|v| (v.clamp(-1.0, 1.0) * 32767.0).round() as i16)
}

impl Animation {
    /// Decodes every frame: flagged components from their boxes, unflagged ones carried
    /// from the previous frame, never-flagged ones from the bind pose (`bind[bone]`;
    /// identity when missing).
    pub fn decode(&self, bind: &[Transform]) -> Frames {
        let nb = self.bones.len();
        let n = self.num_frames as usize;
        let mut out = Frames {
            bones: self.bones.clone(),
            num_frames: n,
            translation: Vec::with_capacity(n * nb),
            rotation: Vec::with_capacity(n * nb),
            scale: Vec::with_capacity(n * nb),
        };
        let mut current: Vec<([f32; 3], [f32; 4], [f32; 3])> = self
            .bones
            .iter()
            .map(|&b| {
                let t = bind.get(b as usize).copied().unwrap_or(Transform::IDENTITY);
                (
                    t.translation.to_array(),
                    t.rotation.to_array(),
                    t.scale.to_array(),
                )
            })
            .collect();
        for f in 0..n {
            for (slot, cur) in current.iter_mut().enumerate() {
                if let Some(k) = self.keys.get(f * nb + slot) {
                    for i in 0..3 {
                        if let Some(u) = k.translation[i] {
                            cur.0[i] = self.translation_box.decode(i, u);
                        }
                        if let Some(u) = k.scale[i] {
                            cur.2[i] = self.scale_box.decode(i, u);
                        }
                    }
                    if let Some(q) = k.rotation {
                        cur.1 = decode_rotation(q);
                    }
                }
                out.translation.push(cur.0);
                out.rotation.push(cur.1);
                out.scale.push(cur.2);
            }
        }
        out
    }

    /// Encodes values the way real files are written (read off the 12 public an10 files):
    /// - a kind (translation, rotation, scale) is animated when any value differs from
    ///   the identity (0, the unit quaternion, 1) by more than [`IDENTITY_EPSILON`], and
    ///   then all its components are;
    /// - translation and scale boxes start at the smallest value of the kind over all
    ///   frames and bones, and their size is `max - min + 1` (real exporters pad by one
    ///   unit); [`EMPTY_BOX`] for a kind not animated;
    /// - frame 0 stores every animated component of every bone, later frames only the
    ///   components whose stored integer changed;
    /// - `u16 = round((v - min) / size * 65535)` (0 when the size is 0), rotation
    ///   `i16 = round(q * 32767)`;
    /// - the animation flag byte is the OR of every frame's flags.
    ///
    /// Re-encoding the decoded values of a real file gives its flags, the components
    /// every key stores, its box minima and its rotations; its box sizes come out under
    /// one step smaller (the exporter measured the unquantized values, decoding gives
    /// them back to half a step), so a few translation or scale integers are one unit
    /// off (55 of 23,901 keys on the 12 public files) and the bytes differ.
    pub fn encode(name: RawString, frames: &Frames) -> Animation {
        let off = |v: f32, identity: f32| (v - identity).abs() > IDENTITY_EPSILON;
        let animated_t = frames.translation.iter().flatten().any(|&v| off(v, 0.0));
        let animated_r = frames
            .rotation
            .iter()
            .any(|q| off(q[0], 0.0) || off(q[1], 0.0) || off(q[2], 0.0) || off(q[3], 1.0));
        let animated_s = frames.scale.iter().flatten().any(|&v| off(v, 1.0));
        let span = |values: &[[f32; 3]]| -> QuantBox {
            let mut min = [f32::INFINITY; 3];
            let mut max = [f32::NEG_INFINITY; 3];
            for v in values {
                for i in 0..3 {
                    min[i] = min[i].min(v[i]);
                    max[i] = max[i].max(v[i]);
                }
            }
            if values.is_empty() {
                return EMPTY_BOX;
            }
            QuantBox {
                min,
                size: [0, 1, 2].map(|i| max[i] - min[i] + 1.0),
            }
        };
        let translation_box = if animated_t {
            span(&frames.translation)
        } else {
            EMPTY_BOX
        };
        let scale_box = if animated_s {
            span(&frames.scale)
        } else {
            EMPTY_BOX
        };
        let nb = frames.bones.len();
        let mut keys = Vec::with_capacity(frames.num_frames * nb);
        let mut previous = vec![Key::default(); nb];
        for f in 0..frames.num_frames {
            for (slot, prev) in previous.iter_mut().enumerate() {
                let at = f * nb + slot;
                let full = Key {
                    translation: match (animated_t, frames.translation.get(at)) {
                        (true, Some(t)) => [0, 1, 2].map(|i| Some(translation_box.encode(i, t[i]))),
                        _ => [None; 3],
                    },
                    rotation: match (animated_r, frames.rotation.get(at)) {
                        (true, Some(q)) => Some(encode_rotation(*q)),
                        _ => None,
                    },
                    scale: match (animated_s, frames.scale.get(at)) {
                        (true, Some(s)) => [0, 1, 2].map(|i| Some(scale_box.encode(i, s[i]))),
                        _ => [None; 3],
                    },
                };
                let key = if f == 0 {
                    full
                } else {
                    let keep = |a: Option<u16>, b: Option<u16>| if a == b { None } else { a };
                    Key {
                        translation: [0, 1, 2]
                            .map(|i| keep(full.translation[i], prev.translation[i])),
                        rotation: if full.rotation == prev.rotation {
                            None
                        } else {
                            full.rotation
                        },
                        scale: [0, 1, 2].map(|i| keep(full.scale[i], prev.scale[i])),
                    }
                };
                *prev = full;
                keys.push(key);
            }
        }
        let flags = keys.iter().fold(0, |a, k| a | k.flags());
        Animation {
            name,
            bones: frames.bones.clone(),
            translation_box,
            scale_box,
            flags,
            num_frames: frames.num_frames as u32,
            keys,
        }
    }
}
