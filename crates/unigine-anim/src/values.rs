//! an10 animations as plain per-frame values, and the encoder that writes values the
//! way real files are written.

use meshfmt_core::{Budget, Transform};
use parsing_primitives::RawString;

use crate::an10::{Animation, Boxes, EMPTY_BOX, Key, QuantBox};
use crate::error::{Result, invalid};

/// Bytes of decoded values per (frame, bone): translation, rotation and scale.
pub const FRAME_VALUE_BYTES: u64 = 12 + 16 + 12;

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

/// The `i16` vector nearest `q` in direction: `round(q * 32767)` for a value decoded
/// from a file, and the stored integers again for one that was normalized since
/// ([`snorm16::encode_direction`](meshfmt_core::quantize::snorm16::encode_direction)).
fn encode_rotation(q: [f32; 4]) -> [i16; 4] {
    meshfmt_core::quantize::snorm16::encode_direction(q)
}

/// The size of a box from `min` to `max`: `max - min + 1` (real exporters pad by one
/// unit), adjusted by under one step so that `max` itself sits on a step.
///
/// Why: real exporters truncate, so the maximum of values decoded from a file sits on
/// step `u = floor((size - 1) / size * 65535)`, and the exporter's size is
/// `(max - min) * 65535 / u` (every moving box of the 12 public files). Recovering it
/// re-encodes the same box and the same integers, where `max - min + 1` gave a grid
/// under one step smaller and 55 keys one unit off. Any other values get a box of the
/// same padding, within one step, with the same half-step error bound.
fn padded_size(min: f32, max: f32, values: &[[f32; 3]], axis: usize) -> f32 {
    let plain = max - min + 1.0;
    let d = f64::from(max) - f64::from(min);
    if !(d > 0.0 && plain.is_finite()) {
        return plain;
    }
    // floor(65535 - u / d) == u has one solution, u = floor(65535 d / (d + 1)); its
    // neighbours are tried for f32 rounding of `max`.
    let guess = (65535.0 * d / (d + 1.0)).floor();
    for u in [guess, guess - 1.0, guess + 1.0] {
        if !(1.0..=65535.0).contains(&u) {
            continue;
        }
        let size = d * 65535.0 / u;
        if ((size - 1.0) / size * 65535.0).floor() != u {
            continue;
        }
        // Of the f32 sizes next to the estimate (the decoded maximum fixes the size
        // only to a few ulps), the one under which the most values decode back to
        // themselves, as they all do under the file's own size; ties go to the nearest.
        // Up to 512 values spread over the animation tell sizes apart as well as all.
        let estimate = size as f32;
        let stride = values.len().div_ceil(512).max(1);
        let sample = || values.iter().step_by(stride).map(|v| v[axis]);
        let on_grid = |s: f32| {
            let b = QuantBox {
                min: [min; 3],
                size: [s; 3],
            };
            sample()
                .filter(|&v| b.decode(0, b.encode(0, v)) == v)
                .count()
        };
        let mut best = (on_grid(estimate), estimate);
        if best.0 == sample().count() {
            return estimate;
        }
        let (mut above, mut below) = (estimate, estimate);
        for _ in 0..4 {
            // Positive finite sizes: neighbours by bit pattern (f32::next_up is newer
            // than the MSRV).
            above = f32::from_bits(above.to_bits().saturating_add(1));
            below = f32::from_bits(below.to_bits().saturating_sub(1));
            for s in [above, below] {
                let n = on_grid(s);
                if n > best.0 {
                    best = (n, s);
                }
            }
        }
        return best.1;
    }
    plain
}

/// Frames that have keys: `num_frames` for a file that was read (every frame has one
/// key per bone); fewer when keys are missing from a value built in memory.
fn frames_with_keys(a: &Animation) -> usize {
    (a.num_frames as usize).min(a.keys.len().checked_div(a.bones.len()).unwrap_or(0))
}

impl Frames {
    /// Decodes every frame of `a`: flagged components from their boxes, unflagged ones carried
    /// from the previous frame, never-flagged ones from the bind pose (`bind[bone]`;
    /// identity when missing). Without bones there is nothing to decode, whatever the
    /// frame count (`num_frames` is kept, the value arrays are empty); frames past the
    /// keys of a value built in memory are left out.
    pub fn decode(a: &Animation, bind: &[Transform]) -> Frames {
        let nb = a.bones.len();
        let n = frames_with_keys(a);
        let total = n.saturating_mul(nb);
        let mut out = Frames {
            bones: a.bones.clone(),
            num_frames: if nb == 0 { a.num_frames as usize } else { n },
            translation: Vec::with_capacity(total),
            rotation: Vec::with_capacity(total),
            scale: Vec::with_capacity(total),
        };
        let mut current: Vec<([f32; 3], [f32; 4], [f32; 3])> = a
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
                if let Some(k) = a.keys.get(f * nb + slot) {
                    for i in 0..3 {
                        if let Some(u) = k.translation[i] {
                            cur.0[i] = a.boxes.translation.decode(i, u);
                        }
                        if let Some(u) = k.scale[i] {
                            cur.2[i] = a.boxes.scale.decode(i, u);
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

    /// [`Frames::decode`], charging the decoded values (40 bytes per frame and bone,
    /// from keys of one byte and up) to `budget` first.
    ///
    /// ```
    /// use meshfmt_core::{Budget, Limits};
    /// use unigine_anim::Frames;
    /// use unigine_anim::an10::{Animation, Boxes, Key, EMPTY_BOX};
    /// let a = Animation {
    ///     name: Default::default(),
    ///     bones: vec![0],
    ///     boxes: Boxes { translation: EMPTY_BOX, scale: EMPTY_BOX },
    ///     flags: 0,
    ///     num_frames: 1000,
    ///     keys: vec![Key::default(); 1000], // 1000 one-byte keys in a file
    /// };
    /// let small = Budget::new(Limits { max_alloc_bytes: 39_999, ..Limits::DEFAULT });
    /// let err = Frames::decode_in(&a, &[], &small).err();
    /// assert_eq!(err.map(|e| e.what), Some("decoded frames"));
    /// assert_eq!(Frames::decode_in(&a, &[], &Budget::default())?.translation.len(), 1000);
    /// # Ok::<(), meshfmt_core::BudgetExceeded>(())
    /// ```
    pub fn decode_in(
        a: &Animation,
        bind: &[Transform],
        budget: &Budget,
    ) -> std::result::Result<Frames, meshfmt_core::BudgetExceeded> {
        let values = (frames_with_keys(a) as u64)
            .saturating_mul(a.bones.len() as u64)
            .saturating_mul(FRAME_VALUE_BYTES);
        budget.charge("decoded frames", values)?;
        Ok(Frames::decode(a, bind))
    }

    /// Encodes these values as an animation named `name`, the way real files are written (read off the 12 public an10 files):
    /// - a kind (translation, rotation, scale) is animated when any value differs from
    ///   the identity (0, the unit quaternion, 1) by more than [`IDENTITY_EPSILON`], and
    ///   then all its components are;
    /// - translation and scale boxes start at the smallest value of the kind over all
    ///   frames and bones, and their size is `max - min + 1` (real exporters pad by one
    ///   unit), adjusted by under one step so the largest value sits on a step, as it
    ///   does in files real exporters write (they truncate); [`EMPTY_BOX`] for a kind
    ///   not animated;
    /// - frame 0 stores every animated component of every bone, later frames only the
    ///   components whose stored integer changed;
    /// - `u16 = round((v - min) / size * 65535)` (0 when the size is 0), rotation
    ///   the `i16` vector nearest `q` in direction, which is `round(q * 32767)` for
    ///   decoded values and the stored integers for normalized ones;
    /// - the animation flag byte is the OR of every frame's flags.
    ///
    /// Re-encoding the decoded values of a real file gives its flags, the components
    /// every key stores, its box minima, its box sizes to the ulp and every integer
    /// (all 23,901 keys of the 12 public files; 10 of them byte for byte, the other two
    /// differ only in a scale box size by an ulp no key can show).
    ///
    /// At most `u32::MAX` frames are encoded (the frame count's range; see
    /// [`Frames::try_encode`]), and frames past the values given are left out.
    pub fn encode(&self, name: RawString) -> Animation {
        let frames = self;
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
                size: [0, 1, 2].map(|i| padded_size(min[i], max[i], values, i)),
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
        // Frames with values (all of them in frames from a clip); none without bones.
        let given = frames
            .translation
            .len()
            .min(frames.rotation.len())
            .min(frames.scale.len())
            .checked_div(nb)
            .unwrap_or(0);
        let num_frames = u32::try_from(frames.num_frames).unwrap_or(u32::MAX);
        let n = (num_frames as usize).min(given);
        let mut keys = Vec::with_capacity(n.saturating_mul(nb));
        let mut previous = vec![Key::default(); nb];
        for f in 0..n {
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
            boxes: Boxes {
                translation: translation_box,
                scale: scale_box,
            },
            flags,
            num_frames: if nb == 0 { num_frames } else { n as u32 },
            keys,
        }
    }

    /// [`Frames::encode`], refusing more frames than the format's `u32` frame count
    /// holds instead of encoding the first `u32::MAX`.
    pub fn try_encode(&self, name: RawString) -> Result<Animation> {
        if u32::try_from(self.num_frames).is_err() {
            return Err(invalid(format!(
                "{} frames do not fit an an10 frame count",
                self.num_frames
            )));
        }
        Ok(self.encode(name))
    }
}
