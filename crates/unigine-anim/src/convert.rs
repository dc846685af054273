//! meshfmt-core conversion: files to skeletons and clips, clips back to files.
//!
//! The files store no frame rate; every function takes `fps` (use [`crate::DEFAULT_FPS`],
//! 30, when nothing better is known). Frame `f` is at time `f / fps`.

use meshfmt_core::bone_tracks::BoneTracks;
use meshfmt_core::glam::{Quat, Vec3};
use meshfmt_core::{
    Bone, Budget, Channel, Clip, Converted, CoordinateSystem, Feature, LossKind, Model, Skeleton,
    Transform,
};
use parsing_primitives::RawString;
use unigine_common::skeleton::{bone_infos, bone1x_list, skeleton_from};

use crate::an10::{An10, BoneInfo, EMPTY_BOUNDS, Key, QuantBox};
use crate::an11::An11Key;
use crate::as08::{As08, As08Key};
use crate::error::{Result, invalid};
use crate::values::{FRAME_VALUE_BYTES, Frames};
use crate::versions::TargetVersion;
use crate::{AnimFile, DEFAULT_FPS};

/// UNIGINE's frame: +Z up, right-handed, meters.
pub const COORDINATE_SYSTEM: CoordinateSystem = CoordinateSystem::Z_UP_RIGHT;

/// Conversion choices for [`AnimFile::to_core_with`].
#[derive(Debug, Clone)]
pub struct CoreOptions {
    /// Frames per second (the files store none; an12 uses its own when positive).
    pub fps: f32,
    /// The operation's budget (clones share it: give the one the file was read with;
    /// the default is a fresh one of [`Limits::DEFAULT`](crate::Limits)).
    pub budget: Budget,
}

impl Default for CoreOptions {
    /// [`DEFAULT_FPS`], a fresh default budget.
    fn default() -> Self {
        CoreOptions {
            fps: DEFAULT_FPS,
            budget: Budget::default(),
        }
    }
}

/// Writing choices for [`AnimFile::from_core_with`] and the version types'
/// `from_core_with` and `write_with`.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// The version to write ([`AnimFile::from_core_with`]; a version type writes its own).
    pub version: TargetVersion,
    /// Frames per second the clips are sampled at.
    pub fps: f32,
    /// The operation's budget (clones share it; the default is a fresh one of
    /// [`Limits::DEFAULT`](crate::Limits)).
    pub budget: Budget,
}

impl Default for WriteOptions {
    /// an10 at [`DEFAULT_FPS`], a fresh default budget.
    fn default() -> Self {
        WriteOptions {
            version: TargetVersion::default(),
            fps: DEFAULT_FPS,
            budget: Budget::default(),
        }
    }
}

/// Worst error of a unit quaternion component stored with a half-step error of at
/// most `h` per component and renormalized when read (`Clip::sample`, `unit`). The
/// stored q' = q + e has |e_i| <= h, so | |q'| - 1 | <= |e| <= 2h (four components); then
/// |q'_i / |q'| - q_i| <= |q'_i| * |1 - 1/|q'|| + |e_i| <= (1 + h) * 2h / (1 - 2h) + h,
/// about 3h: the renormalization can move a component by twice its own rounding.
const fn renormalized_error(h: f32) -> f32 {
    (1.0 + h) * 2.0 * h / (1.0 - 2.0 * h) + h
}

/// an10 rotations: `round(q * 32767)`, steps of 1/32767 (h = 0.5/32767).
const I16_ROTATION_ERROR: f32 = renormalized_error(0.5 / 32767.0);

/// as08 rotations: `u / 65535 * 2 - 1`, steps of 2/65535 (h = 1/65535).
const U16_ROTATION_ERROR: f32 = renormalized_error(1.0 / 65535.0);

/// Heap bytes of one dense key in each core track kind: a time and a value.
const TRANSLATION_KEY_BYTES: u64 = 4 + 12;
const ROTATION_KEY_BYTES: u64 = 4 + 16;
const SCALE_KEY_BYTES: u64 = 4 + 12;

/// Bytes of dense core tracks for `keys` (frame, bone) pairs with the kinds present.
fn track_bytes(keys: u64, translation: bool, rotation: bool, scale: bool) -> u64 {
    let per_key = u64::from(translation) * TRANSLATION_KEY_BYTES
        + u64::from(rotation) * ROTATION_KEY_BYTES
        + u64::from(scale) * SCALE_KEY_BYTES;
    keys.saturating_mul(per_key)
}

fn unit(q: Quat) -> Quat {
    meshfmt_core::unit_quat_or_identity(q)
}

/// The meshfmt-core skeleton of a bone list and its bind pose (rotations normalized).
fn skeleton(bones: &[BoneInfo], bind_pose: &[Transform], budget: &Budget) -> Result<Skeleton> {
    let names: u64 = bones.iter().map(|b| b.name.as_bytes().len() as u64).sum();
    budget.charge_items_with::<Bone>("converted skeleton", bones.len(), names)?;
    Ok(skeleton_from(bones.iter().zip(bind_pose).map(|(b, t)| {
        let rest = Transform {
            rotation: unit(t.rotation),
            ..*t
        };
        (&b.name, i64::from(b.parent), rest)
    })))
}

/// One clip from decoded frames, with the tracks `flags` selects: every (frame, bone)
/// becomes a dense key of each (charged first).
fn clip_from_frames(
    name: String,
    frames: &Frames,
    flags: u8,
    fps: f32,
    budget: &Budget,
) -> Result<Clip> {
    let nb = frames.bones.len();
    let (t, r, s) = (flags & 0x07 != 0, flags & 0x08 != 0, flags & 0x70 != 0);
    // Frames with values (all of them for decoded frames); none without bones.
    let n = frames
        .translation
        .len()
        .min(frames.rotation.len())
        .min(frames.scale.len())
        .checked_div(nb)
        .unwrap_or(0)
        .min(frames.num_frames);
    budget.charge(
        "animation tracks",
        track_bytes((n as u64).saturating_mul(nb as u64), t, r, s),
    )?;
    let channels = frames
        .bones
        .iter()
        .enumerate()
        .map(|(slot, &bone)| {
            let mut c = Channel {
                bone: bone as usize,
                ..Channel::default()
            };
            for f in 0..n {
                let at = f * nb + slot;
                let time = f as f32 / fps;
                // `at` is in range for all three arrays (n counts whole frames).
                let (Some(tr), Some(ro), Some(sc)) = (
                    frames.translation.get(at),
                    frames.rotation.get(at),
                    frames.scale.get(at),
                ) else {
                    break;
                };
                if t {
                    c.translation.times.push(time);
                    c.translation.values.push(Vec3::from_array(*tr));
                }
                if r {
                    c.rotation.times.push(time);
                    c.rotation.values.push(unit(Quat::from_array(*ro)));
                }
                if s {
                    c.scale.times.push(time);
                    c.scale.values.push(Vec3::from_array(*sc));
                }
            }
            c
        })
        .collect();
    Ok(Clip {
        events: Vec::new(),
        name,
        channels,
    })
}

/// Samples a clip on the frame grid into per-frame values for the given bones. Each
/// frame's values and the `key_bytes` the caller encodes them into are charged to
/// `budget` first (through [`Clip::frame_times`]).
fn frames_from_clip(
    clip: &Clip,
    skeleton: &Skeleton,
    bones: &[usize],
    fps: f32,
    key_bytes: u64,
    budget: &Budget,
) -> Result<Frames> {
    let per_frame = (bones.len() as u64).saturating_mul(FRAME_VALUE_BYTES + key_bytes);
    let times = clip.frame_times(fps, budget, per_frame)?;
    let mut out = Frames {
        // The an10/an11 callers bound bones by i16::MAX; as08 does not use them.
        bones: bones
            .iter()
            .map(|&b| i16::try_from(b).unwrap_or(i16::MAX))
            .collect(),
        num_frames: times.len(),
        translation: Vec::new(),
        rotation: Vec::new(),
        scale: Vec::new(),
    };
    // Without bones a frame is nothing but a count.
    if bones.is_empty() {
        return Ok(out);
    }
    let tracks = BoneTracks::of_clip(clip, skeleton.len());
    let total = times.len().saturating_mul(bones.len());
    out.translation.reserve_exact(total);
    out.rotation.reserve_exact(total);
    out.scale.reserve_exact(total);
    for &t in &times {
        for &b in bones {
            let l = match (tracks.get(b), skeleton.bones.get(b)) {
                (Some(tr), Some(bone)) => tr.sample(bone.rest, t),
                _ => Transform::IDENTITY,
            };
            out.translation.push(l.translation.to_array());
            out.rotation.push(l.rotation.to_array());
            out.scale.push(l.scale.to_array());
        }
    }
    Ok(out)
}

impl An10 {
    /// Skeleton (bind pose as rest) and one clip per animation. Animated kinds follow
    /// the keys (the OR of their flags); unflagged components carry forward,
    /// never-flagged ones come from the bind pose. A stored flag byte that disagrees
    /// with the keys is reported as a loss naming both values. Frames are
    /// 1 / [`DEFAULT_FPS`] apart.
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_with(&CoreOptions::default())
    }

    /// [`An10::to_core`] at `options.fps`, under their budget.
    pub fn to_core_with(&self, options: &CoreOptions) -> Result<Converted<Model>> {
        self.to_core_in(options.fps, &options.budget)
    }

    /// [`An10::to_core`], charging what it builds (decoded frames, dense tracks) to
    /// `budget`.
    pub(crate) fn to_core_in(&self, fps: f32, budget: &Budget) -> Result<Converted<Model>> {
        let skeleton = skeleton(&self.bones, &self.bind_pose, budget)?;
        let mut out = Converted::exact(());
        let mut animations = Vec::with_capacity(self.animations.len());
        for (i, a) in self.animations.iter().enumerate() {
            let keys = a.key_flags();
            if a.flags != keys {
                out.lose(
                    Feature::Animation,
                    LossKind::Dropped,
                    format!("animations[{i}].flags"),
                    format!(
                        "the stored animation flags {:#04x} disagree with the keys' flags {keys:#04x}; tracks follow the keys and the stored byte is not kept",
                        a.flags
                    ),
                );
            }
            let frames = Frames::decode_in(a, &self.bind_pose, budget)?;
            animations.push(clip_from_frames(
                a.name.to_string_lossy(),
                &frames,
                keys,
                fps,
                budget,
            )?);
        }
        Ok(out.map(|()| Model {
            coordinate_system: COORDINATE_SYSTEM,
            skeleton,
            animations,
            ..Model::default()
        }))
    }

    /// An an10 file from a model's skeleton and clips, sampled at [`DEFAULT_FPS`],
    /// written like real exporters write (see [`Frames::encode`]).
    pub fn from_core(model: &Model) -> Result<Converted<An10>> {
        An10::from_core_with(model, &WriteOptions::default())
    }

    /// [`An10::from_core`] sampled at `options.fps`, under their budget.
    pub fn from_core_with(model: &Model, options: &WriteOptions) -> Result<Converted<An10>> {
        An10::from_core_in(model, options.fps, &options.budget)
    }

    /// [`An10::from_core`], charging what it builds (a copy of a model in another frame,
    /// resampled frames, keys) to `budget`.
    pub(crate) fn from_core_in(
        model: &Model,
        fps: f32,
        budget: &Budget,
    ) -> Result<Converted<An10>> {
        let (m, mut out, bones, bind_pose) = prepare(model, budget)?;
        let back = COORDINATE_SYSTEM
            .conversion_to(&model.coordinate_system)
            .scale;
        let nb = m.skeleton.len();
        let mut seen = vec![false; nb];
        let mut animations = Vec::new();
        for (i, clip) in m.animations.iter().enumerate() {
            let bones = clip_bones(i, clip, &mut seen)?;
            out.note_resampled(clip, i, fps);
            let frames = frames_from_clip(
                clip,
                &m.skeleton,
                &bones,
                fps,
                size_of::<Key>() as u64,
                budget,
            )?;
            let anim = frames.try_encode(RawString::from(clip.name.as_str()))?;
            // Half a step of each box; translations measured in UNIGINE's meters, but
            // the caller compares in the model's units. Scales are unitless.
            let half_step = |b: &QuantBox| {
                b.size
                    .iter()
                    .filter(|s| **s > 0.0)
                    .fold(0.0f32, |a, s| a.max(*s))
                    / 65535.0
                    * 0.5
            };
            let translation = half_step(&anim.boxes.translation) * back;
            let scale = half_step(&anim.boxes.scale);
            out.lose(
                Feature::Animation,
                LossKind::Quantized {
                    max_error: translation.max(scale).max(I16_ROTATION_ERROR),
                },
                format!("animations[{i}]"),
                "translation and scale in 16-bit boxes, rotation as i16 / 32767",
            );
            animations.push(anim);
        }
        Ok(out.map(|()| An10 {
            bounds: EMPTY_BOUNDS,
            bones,
            bind_pose,
            animations,
        }))
    }
}

/// What both an10 and an11 writers start from: the model in UNIGINE's frame, the losses
/// of everything but the skeleton and clips, the bone list and the bind pose.
fn prepare<'m>(model: &'m Model, budget: &Budget) -> Result<Prepared<'m>> {
    let m = model.in_system(COORDINATE_SYSTEM, budget)?;
    let mut out = Converted::exact(());
    report_dropped(&m, &mut out);
    let bones = bone_infos(&m.skeleton).map_err(invalid)?;
    let bind_pose = m.skeleton.bones.iter().map(|b| b.rest).collect();
    Ok((m, out, bones, bind_pose))
}

/// [`prepare`]'s result: model, losses so far, bones, bind pose.
type Prepared<'m> = (
    std::borrow::Cow<'m, Model>,
    Converted<()>,
    Vec<BoneInfo>,
    Vec<Transform>,
);

/// The clip's animated bones in order of first channel, each once. `seen` has one flag
/// per skeleton bone, all clear (and left clear), so the check is linear, not a search
/// of the list per channel.
fn clip_bones(index: usize, clip: &Clip, seen: &mut [bool]) -> Result<Vec<usize>> {
    let nb = seen.len();
    let mut bones: Vec<usize> = Vec::new();
    for c in &clip.channels {
        let Some(s) = seen.get_mut(c.bone) else {
            for &b in &bones {
                seen[b] = false;
            }
            return Err(invalid(format!(
                "animation {index}: channel for bone {} of {nb}",
                c.bone
            )));
        };
        if !*s {
            *s = true;
            bones.push(c.bone);
        }
    }
    for &b in &bones {
        seen[b] = false;
    }
    Ok(bones)
}

fn report_dropped(m: &Model, out: &mut Converted<()>) {
    let any = |f: fn(&meshfmt_core::Surface) -> bool| m.surfaces.iter().any(f);
    let held: [(bool, Feature); 11] = [
        (!m.surfaces.is_empty(), Feature::Geometry),
        (any(|s| !s.normals.is_empty()), Feature::Normals),
        (any(|s| !s.tangents.is_empty()), Feature::Tangents),
        (any(|s| !s.uv0.is_empty()), Feature::Uv0),
        (any(|s| !s.uv1.is_empty()), Feature::Uv1),
        (any(|s| !s.colors.is_empty()), Feature::Colors),
        (any(|s| !s.skin.is_empty()), Feature::Skin),
        (any(|s| !s.morph_targets.is_empty()), Feature::MorphTargets),
        (
            !m.name.is_empty() || any(|s| !s.name.is_empty()),
            Feature::Names,
        ),
        (!m.materials.is_empty(), Feature::Materials),
        (!m.textures.is_empty(), Feature::Textures),
    ];
    for (present, feature) in held {
        if present {
            out.lose(
                feature,
                LossKind::Dropped,
                "",
                "animation files hold only a skeleton and clips (geometry belongs in a .mesh)",
            );
        }
    }
    out.drop_events(m, "a UNIGINE animation file");
}

impl As08 {
    /// Skeleton and one clip. as08 stores no bind pose: each bone's rest transform is
    /// its frame-0 value (identity for components frame 0 does not store). Quaternions
    /// are `u / 65535 * 2 - 1`, renormalized; scale is uniform. Frames are
    /// 1 / [`DEFAULT_FPS`] apart.
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_with(&CoreOptions::default())
    }

    /// [`As08::to_core`] at `options.fps`, under their budget.
    pub fn to_core_with(&self, options: &CoreOptions) -> Result<Converted<Model>> {
        self.to_core_in(options.fps, &options.budget)
    }

    /// [`As08::to_core`], charging the dense tracks it builds to `budget`.
    pub(crate) fn to_core_in(&self, fps: f32, budget: &Budget) -> Result<Converted<Model>> {
        let nb = self.bones.len();
        // Frames that have keys (all of them in a file that was read); none without
        // bones, however many frames the header claims.
        let frames = (self.num_frames as usize).min(self.keys.len().checked_div(nb).unwrap_or(0));
        let names: u64 = self
            .bones
            .iter()
            .map(|b| b.name.as_bytes().len() as u64)
            .sum();
        budget.charge(
            "converted skeleton",
            (nb as u64)
                .saturating_mul(size_of::<Bone>() as u64)
                .saturating_add(names),
        )?;
        budget.charge(
            "animation tracks",
            track_bytes((frames as u64).saturating_mul(nb as u64), true, true, true),
        )?;
        let mut current = vec![[0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]; nb];
        let mut channels: Vec<Channel> = (0..nb)
            .map(|b| Channel {
                bone: b,
                ..Channel::default()
            })
            .collect();
        let mut rest = vec![Transform::IDENTITY; nb];
        for f in 0..frames {
            for ((b, cur), ch) in current.iter_mut().enumerate().zip(&mut channels) {
                if let Some(k) = self.keys.get(f * nb + b) {
                    for (c, v) in k.values.iter().enumerate() {
                        if let Some(u) = v {
                            cur[c] = self.decode(c, *u);
                        }
                    }
                }
                let t = Transform {
                    translation: Vec3::new(cur[0], cur[1], cur[2]),
                    rotation: unit(Quat::from_xyzw(cur[4], cur[5], cur[6], cur[7])),
                    scale: Vec3::splat(cur[3]),
                };
                if f == 0 {
                    if let Some(r) = rest.get_mut(b) {
                        *r = t;
                    }
                }
                let time = f as f32 / fps;
                ch.push_key(time, &t);
            }
        }
        let skeleton = skeleton_from(
            self.bones
                .iter()
                .zip(rest)
                .map(|(b, rest)| (&b.name, i64::from(b.parent), rest)),
        );
        let animations = if self.num_frames > 0 {
            vec![Clip {
                events: Vec::new(),
                name: String::new(),
                channels,
            }]
        } else {
            Vec::new()
        };
        Ok(Converted::exact(Model {
            coordinate_system: COORDINATE_SYSTEM,
            skeleton,
            animations,
            ..Model::default()
        }))
    }

    /// An as08 file from a model's skeleton and first clip, sampled at
    /// [`DEFAULT_FPS`]; every component of every bone in every frame (flags 0xFF),
    /// quantized in one box.
    pub fn from_core(model: &Model) -> Result<Converted<As08>> {
        As08::from_core_with(model, &WriteOptions::default())
    }

    /// [`As08::from_core`] sampled at `options.fps`, under their budget.
    pub fn from_core_with(model: &Model, options: &WriteOptions) -> Result<Converted<As08>> {
        As08::from_core_in(model, options.fps, &options.budget)
    }

    /// [`As08::from_core`], charging what it builds (a copy of a model in another frame,
    /// resampled frames, keys) to `budget`.
    pub(crate) fn from_core_in(
        model: &Model,
        fps: f32,
        budget: &Budget,
    ) -> Result<Converted<As08>> {
        let m = model.in_system(COORDINATE_SYSTEM, budget)?;
        let mut out = Converted::exact(());
        report_dropped(&m, &mut out);
        let nb = m.skeleton.len();
        let bones = bone1x_list(&m.skeleton);
        let frames = as08_frames(&m, fps, &mut out, budget)?;
        out.keep_one_clip(m.animations.len(), "as08");
        if m.animations.first().is_some_and(|c| !c.name.is_empty()) {
            out.lose(
                Feature::Names,
                LossKind::Dropped,
                "animations[0]",
                "as08 stores no animation name",
            );
        }
        if frames.scale.iter().any(|s| s[0] != s[1] || s[0] != s[2]) {
            out.lose(
                Feature::Animation,
                LossKind::Reduced,
                "",
                "as08 scale is uniform: x kept",
            );
        }
        let (min, size, keys) = as08_keys(&frames);
        // Half a step of the box: translations (0..3) measured in UNIGINE's meters, but
        // the caller compares in the model's units; the scale (3) is unitless.
        let back = COORDINATE_SYSTEM
            .conversion_to(&model.coordinate_system)
            .scale;
        let half_step = |s: f32| if s > 0.0 { s / 65535.0 * 0.5 } else { 0.0 };
        let translation = size[..3].iter().fold(0.0f32, |a, &s| a.max(half_step(s))) * back;
        out.lose(
            Feature::Animation,
            LossKind::Quantized {
                max_error: translation.max(half_step(size[3])).max(U16_ROTATION_ERROR),
            },
            "",
            "16-bit components in one box; quaternions across -1..1",
        );
        if nb > 0 {
            out.lose(
                Feature::Skeleton,
                LossKind::Reduced,
                "",
                "as08 stores no bind pose: rest transforms come back as the quantized frame 0",
            );
        }
        let num_frames = u32::try_from(frames.num_frames)
            .ok()
            .filter(|&n| i32::try_from(n).is_ok())
            .ok_or_else(|| {
                invalid(format!(
                    "{} frames do not fit an as08 frame count",
                    frames.num_frames
                ))
            })?;
        Ok(out.map(|()| As08 {
            bones,
            min,
            size,
            num_frames,
            keys,
        }))
    }
}

/// The frames an as08 file stores: the first clip sampled at `fps` (every bone), or
/// the rest pose as one frame without a clip.
fn as08_frames(m: &Model, fps: f32, out: &mut Converted<()>, budget: &Budget) -> Result<Frames> {
    let nb = m.skeleton.len();
    let all: Vec<usize> = (0..nb).collect();
    Ok(match m.animations.first() {
        Some(clip) => {
            out.note_resampled(clip, 0, fps);
            frames_from_clip(
                clip,
                &m.skeleton,
                &all,
                fps,
                size_of::<As08Key>() as u64,
                budget,
            )?
        }
        None => Frames {
            // Not used by as08 (its bones are i32-indexed).
            bones: Vec::new(),
            num_frames: 1,
            translation: m
                .skeleton
                .bones
                .iter()
                .map(|b| b.rest.translation.to_array())
                .collect(),
            rotation: m
                .skeleton
                .bones
                .iter()
                .map(|b| b.rest.rotation.to_array())
                .collect(),
            scale: m
                .skeleton
                .bones
                .iter()
                .map(|b| b.rest.scale.to_array())
                .collect(),
        },
    })
}

/// One quantization box (translation xyz, scale in w) over all frames, and every
/// component of every key in it (rotations across -1..1).
fn as08_keys(frames: &Frames) -> ([f32; 4], [f32; 4], Vec<As08Key>) {
    let mut min = [f32::INFINITY; 4];
    let mut max = [f32::NEG_INFINITY; 4];
    for (t, s) in frames.translation.iter().zip(&frames.scale) {
        for (i, v) in [t[0], t[1], t[2], s[0]].into_iter().enumerate() {
            min[i] = min[i].min(v);
            max[i] = max[i].max(v);
        }
    }
    if frames.translation.is_empty() {
        min = [0.0; 4];
        max = [0.0; 4];
    }
    let size = [0, 1, 2, 3].map(|i| max[i] - min[i]);
    let q16 = |v: f32, lo: f32, size: f32| -> u16 {
        if size.is_nan() || size <= 0.0 {
            0
        } else {
            (((v - lo) / size).clamp(0.0, 1.0) * 65535.0).round() as u16
        }
    };
    let keys = frames
        .translation
        .iter()
        .zip(&frames.rotation)
        .zip(&frames.scale)
        .map(|((t, q), s)| {
            let q = unit(Quat::from_array(*q));
            let c = [t[0], t[1], t[2], s[0]];
            let mut values = [None; 8];
            for i in 0..4 {
                values[i] = Some(q16(c[i], min[i], size[i]));
            }
            for (i, v) in q.to_array().into_iter().enumerate() {
                values[4 + i] = Some(q16(v, -1.0, 2.0));
            }
            As08Key { values }
        })
        .collect();
    (min, size, keys)
}

/// The one clip of an an11/an12 key table; unflagged components are the defaults.
/// Every (frame, bone) key, one byte in the file at least, becomes a dense key of each
/// track the bone uses (charged first).
fn clip_from_keys(
    anim_bones: &[i16],
    num_frames: u32,
    keys: &[An11Key],
    fps: f32,
    budget: &Budget,
) -> Result<Clip> {
    let na = anim_bones.len();
    // Frames that have keys (all of them in a file that was read); none without bones.
    let frames = (num_frames as usize).min(keys.len().checked_div(na).unwrap_or(0));
    let mut channels = Vec::with_capacity(na);
    for (slot, &bone) in anim_bones.iter().enumerate() {
        let mut c = Channel {
            bone: usize::try_from(bone).unwrap_or(usize::MAX),
            ..Channel::default()
        };
        // The slot's keys, frame by frame, without collecting them.
        let column = || keys.iter().skip(slot).step_by(na).take(frames);
        let (any_p, any_r, any_s) = (
            column().any(|k| k.position.is_some()),
            column().any(|k| k.rotation.is_some()),
            column().any(|k| k.scale.is_some()),
        );
        budget.charge(
            "animation tracks",
            track_bytes(frames as u64, any_p, any_r, any_s),
        )?;
        for (f, k) in column().enumerate() {
            let t = k.transform();
            let time = f as f32 / fps;
            if any_p {
                c.translation.times.push(time);
                c.translation.values.push(t.translation);
            }
            if any_r {
                c.rotation.times.push(time);
                c.rotation.values.push(unit(t.rotation));
            }
            if any_s {
                c.scale.times.push(time);
                c.scale.values.push(t.scale);
            }
        }
        channels.push(c);
    }
    Ok(Clip {
        events: Vec::new(),
        name: String::new(),
        channels,
    })
}

impl crate::an11::An11 {
    /// Skeleton (bind pose as rest) and one clip (an11 files are one unnamed clip).
    /// Unflagged components are the defaults, as the format defines. Frames are
    /// 1 / [`DEFAULT_FPS`] apart.
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_with(&CoreOptions::default())
    }

    /// [`An11::to_core`](crate::an11::An11::to_core) at `options.fps`, under their
    /// budget.
    pub fn to_core_with(&self, options: &CoreOptions) -> Result<Converted<Model>> {
        self.to_core_in(options.fps, &options.budget)
    }

    /// [`An11::to_core`](crate::an11::An11::to_core), charging the dense tracks to
    /// `budget`.
    pub(crate) fn to_core_in(&self, fps: f32, budget: &Budget) -> Result<Converted<Model>> {
        let skeleton = skeleton(&self.bones, &self.bind_pose, budget)?;
        let clip = clip_from_keys(&self.anim_bones, self.num_frames, &self.keys, fps, budget)?;
        Ok(Converted::exact(Model {
            coordinate_system: COORDINATE_SYSTEM,
            skeleton,
            animations: vec![clip],
            ..Model::default()
        }))
    }
}

impl crate::an12::An12 {
    /// Frames per second for conversions: the stored value when positive, else
    /// `fallback`.
    pub fn effective_fps(&self, fallback: f32) -> f32 {
        if self.fps > 0 {
            self.fps as f32
        } else {
            fallback
        }
    }

    /// Skeleton and one clip at the stored fps ([`Self::effective_fps`] with
    /// [`crate::DEFAULT_FPS`]). an12 stores no bind pose (it lives in the referenced
    /// `.skeleton`), so every joint's rest transform is the identity; the skeleton
    /// reference and root-motion flag have no place in meshfmt-core and are reported
    /// as losses.
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_with(&CoreOptions::default())
    }

    /// [`An12::to_core`](crate::an12::An12::to_core) under `options`' budget, at the
    /// stored fps, else `options.fps`.
    pub fn to_core_with(&self, options: &CoreOptions) -> Result<Converted<Model>> {
        self.to_core_at(self.effective_fps(options.fps), &options.budget)
    }

    /// Key times are `f / fps`: a small stored fps stretches the clip (fps 1 makes it
    /// 30 times as long as at 30 fps), which a later resampling pays for through
    /// [`Clip::frame_times`], never silently.
    fn to_core_at(&self, fps: f32, budget: &Budget) -> Result<Converted<Model>> {
        budget.charge_items::<Transform>("converted skeleton", self.joints.len())?;
        let identity = vec![Transform::IDENTITY; self.joints.len()];
        let skeleton = skeleton(&self.joints, &identity, budget)?;
        let clip = clip_from_keys(&self.anim_bones, self.num_frames, &self.keys, fps, budget)?;
        let mut out = Converted::exact(());
        if !self.skeleton_guid.is_empty() || !self.skeleton_path.is_empty() {
            out.lose(
                Feature::Skeleton,
                LossKind::Dropped,
                "skeleton_reference",
                "meshfmt-core has no shared-skeleton reference (GUID and path dropped)",
            );
        }
        if self.root_motion {
            out.lose(
                Feature::Animation,
                LossKind::Dropped,
                "root_motion",
                "meshfmt-core has no root-motion flag",
            );
        }
        Ok(out.map(|()| Model {
            coordinate_system: COORDINATE_SYSTEM,
            skeleton,
            animations: vec![clip],
            ..Model::default()
        }))
    }

    /// An an12 file from a model's skeleton (names and parents only) and first clip
    /// sampled at `fps`, which is stored rounded to an integer. Rest transforms are
    /// dropped (an12 has no bind pose; reported when any is not the identity); the
    /// skeleton GUID and path are left empty and root motion off. Sampled at
    /// [`DEFAULT_FPS`].
    pub fn from_core(model: &Model) -> Result<Converted<crate::an12::An12>> {
        crate::an12::An12::from_core_with(model, &WriteOptions::default())
    }

    /// [`An12::from_core`](crate::an12::An12::from_core) sampled at `options.fps`,
    /// under their budget.
    pub fn from_core_with(
        model: &Model,
        options: &WriteOptions,
    ) -> Result<Converted<crate::an12::An12>> {
        crate::an12::An12::from_core_in(model, options.fps, &options.budget)
    }

    /// [`An12::from_core`](crate::an12::An12::from_core), charging what it builds to
    /// `budget`.
    pub(crate) fn from_core_in(
        model: &Model,
        fps: f32,
        budget: &Budget,
    ) -> Result<Converted<crate::an12::An12>> {
        let stored = fps.round();
        // `i32::MAX as f32` rounds up to 2^31, which does not fit: strictly below it.
        if !(stored >= 1.0 && stored < i32::MAX as f32) {
            return Err(invalid(format!(
                "an12 cannot store {fps} frames per second"
            )));
        }
        let mut a = crate::an11::An11::from_core_in(model, stored, budget)?;
        if stored != fps {
            a.lose(
                Feature::Animation,
                LossKind::Reduced,
                "fps",
                format!("{fps} frames per second stored as {stored}"),
            );
        }
        if a.value.bind_pose.iter().any(|t| *t != Transform::IDENTITY) {
            a.lose(
                Feature::Skeleton,
                LossKind::Dropped,
                "bind_pose",
                "an12 stores no bind pose (it belongs in the .skeleton file)",
            );
        }
        Ok(a.map(|f| crate::an12::An12 {
            joints: f.bones,
            skeleton_guid: RawString::default(),
            skeleton_path: RawString::default(),
            anim_bones: f.anim_bones,
            fps: stored as i32,
            root_motion: false,
            num_frames: f.num_frames,
            keys: f.keys,
        }))
    }
}

impl crate::an11::An11 {
    /// An an11 file from a model's skeleton and first clip sampled at `fps`. Floats are
    /// stored as they are; a component is omitted only when it equals its default
    /// exactly (zero position, identity rotation, unit scale), so nothing is lost. A
    /// component that is the default in every frame keeps its frame-0 key when the bind
    /// pose differs from the default (a bone with no key at all reads as its bind pose).
    /// Sampled at [`DEFAULT_FPS`].
    pub fn from_core(model: &Model) -> Result<Converted<crate::an11::An11>> {
        crate::an11::An11::from_core_with(model, &WriteOptions::default())
    }

    /// [`An11::from_core`](crate::an11::An11::from_core) sampled at `options.fps`,
    /// under their budget.
    pub fn from_core_with(
        model: &Model,
        options: &WriteOptions,
    ) -> Result<Converted<crate::an11::An11>> {
        crate::an11::An11::from_core_in(model, options.fps, &options.budget)
    }

    /// [`An11::from_core`](crate::an11::An11::from_core), charging what it builds
    /// (a copy of a model in another frame, resampled frames, keys) to `budget`.
    pub(crate) fn from_core_in(
        model: &Model,
        fps: f32,
        budget: &Budget,
    ) -> Result<Converted<crate::an11::An11>> {
        let (m, mut out, bones, bind_pose) = prepare(model, budget)?;
        let nb = m.skeleton.len();
        let (anim_bones, frames) = match m.animations.first() {
            Some(clip) => {
                out.note_resampled(clip, 0, fps);
                if !clip.name.is_empty() {
                    out.lose(
                        Feature::Names,
                        LossKind::Dropped,
                        "animations[0]",
                        "an11 stores no animation name",
                    );
                }
                let bones = clip_bones(0, clip, &mut vec![false; nb])?;
                let frames = frames_from_clip(
                    clip,
                    &m.skeleton,
                    &bones,
                    fps,
                    size_of::<An11Key>() as u64,
                    budget,
                )?;
                (bones, frames)
            }
            None => (
                Vec::new(),
                Frames {
                    bones: Vec::new(),
                    num_frames: 0,
                    translation: vec![],
                    rotation: vec![],
                    scale: vec![],
                },
            ),
        };
        out.keep_one_clip(m.animations.len(), "an11");
        let mut keys: Vec<An11Key> = frames
            .translation
            .iter()
            .zip(&frames.rotation)
            .zip(&frames.scale)
            .map(|((&p, &q), &s)| An11Key {
                position: (p != DEFAULT_POSITION).then_some(p),
                rotation: (q != DEFAULT_ROTATION).then_some(q),
                scale: (s != DEFAULT_SCALE).then_some(s),
            })
            .collect();
        keep_default_tracks(&mut keys, &anim_bones, &bind_pose, &frames);
        let num_frames = u32::try_from(frames.num_frames).map_err(|_| {
            invalid(format!(
                "{} frames do not fit an an11 frame count",
                frames.num_frames
            ))
        })?;
        Ok(out.map(|()| crate::an11::An11 {
            bones,
            bind_pose,
            // prepare() bounds the skeleton, and so these, by i16::MAX.
            anim_bones: anim_bones
                .iter()
                .map(|&b| i16::try_from(b).unwrap_or(i16::MAX))
                .collect(),
            num_frames,
            keys,
        }))
    }
}

/// The an11 defaults of an unflagged component.
const DEFAULT_POSITION: [f32; 3] = [0.0; 3];
const DEFAULT_ROTATION: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
const DEFAULT_SCALE: [f32; 3] = [1.0; 3];

/// A component that is the default in every frame would be omitted from every key, and
/// a reader builds no track from a column without keys: the bone then rests in its bind
/// pose, not the default. Where the bind value differs from the default, frame 0 keeps
/// the component (later frames carry no key and read as the default, as they should).
fn keep_default_tracks(
    keys: &mut [An11Key],
    anim_bones: &[usize],
    bind_pose: &[Transform],
    frames: &Frames,
) {
    let na = anim_bones.len();
    let n = keys.len().checked_div(na).unwrap_or(0);
    for (slot, &bone) in anim_bones.iter().enumerate() {
        let Some(bind) = bind_pose.get(bone) else {
            continue;
        };
        let column = || keys.iter().skip(slot).step_by(na).take(n);
        let (none_p, none_r, none_s) = (
            column().all(|k| k.position.is_none()),
            column().all(|k| k.rotation.is_none()),
            column().all(|k| k.scale.is_none()),
        );
        let (Some(first), Some(p), Some(q), Some(s)) = (
            keys.get_mut(slot),
            frames.translation.get(slot),
            frames.rotation.get(slot),
            frames.scale.get(slot),
        ) else {
            continue;
        };
        if none_p && bind.translation.to_array() != DEFAULT_POSITION {
            first.position = Some(*p);
        }
        if none_r && bind.rotation.to_array() != DEFAULT_ROTATION {
            first.rotation = Some(*q);
        }
        if none_s && bind.scale.to_array() != DEFAULT_SCALE {
            first.scale = Some(*s);
        }
    }
}

impl AnimFile {
    /// The file as a meshfmt-core model (skeleton and clips), frames
    /// 1 / [`crate::DEFAULT_FPS`] apart (an12: its stored fps when
    /// positive), under a fresh default budget; [`AnimFile::to_core_with`] takes
    /// another frame rate.
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_with(&CoreOptions::default())
    }

    /// [`AnimFile::to_core`], charging what it builds (decoded frames, dense tracks) to
    /// the options' budget (shared with the read when the caller passes the same one).
    ///
    /// ```
    /// use meshfmt_core::{Budget, Limits};
    /// use unigine_anim::{AnimFile, CoreOptions, ReadOptions};
    /// # let model = meshfmt_core::canonical::skinned_arm();
    /// # let bytes = AnimFile::from_core(&model)?.value.write()?;
    /// let budget = Budget::new(Limits::DEFAULT);
    /// let file = unigine_anim::read_with(&bytes, &ReadOptions { budget: budget.clone() })?;
    /// let read = budget.used();
    /// let model = file.to_core_with(&CoreOptions { fps: 30.0, budget: budget.clone() })?;
    /// assert!(budget.used() > read); // one budget for both steps
    /// assert_eq!(model.value.animations.len(), 1);
    /// # Ok::<(), unigine_anim::Error>(())
    /// ```
    pub fn to_core_with(&self, options: &CoreOptions) -> Result<Converted<Model>> {
        let budget = &options.budget;
        let fps = options.fps;
        match self {
            AnimFile::An11(a) => a.to_core_in(fps, budget),
            AnimFile::An12(a) => a.to_core_at(a.effective_fps(fps), budget),
            AnimFile::An10(a) => a.to_core_in(fps, budget),
            AnimFile::As08(a) => a.to_core_in(fps, budget),
        }
    }

    /// Encodes a model's skeleton and clips as an10 at [`DEFAULT_FPS`].
    pub fn from_core(model: &Model) -> Result<Converted<AnimFile>> {
        AnimFile::from_core_with(model, &WriteOptions::default())
    }

    /// Encodes a model's skeleton and clips in the options' version, sampled at their
    /// `fps`, charging what it builds (a copy of a model in another frame, resampled
    /// frames, keys) to the options' budget.
    pub fn from_core_with(model: &Model, options: &WriteOptions) -> Result<Converted<AnimFile>> {
        match crate::versions::VERSIONS.row(options.version) {
            Some(v) => (v.from_core)(model, options.fps, &options.budget),
            None => Err(crate::Error::UnsupportedVersion(
                options.version.name().into(),
            )),
        }
    }
}
