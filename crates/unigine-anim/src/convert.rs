//! meshfmt-core conversion: files to skeletons and clips, clips back to files.
//!
//! The files store no frame rate; every function takes `fps` (use [`crate::DEFAULT_FPS`],
//! 30, when nothing better is known). Frame `f` is at time `f / fps`.

use meshfmt_core::glam::{Quat, Vec3};
use meshfmt_core::{
    Bone, Channel, Clip, Converted, CoordinateSystem, Feature, LossKind, Model, Skeleton, Transform,
};
use parsing_primitives::RawString;

use crate::AnimFile;
use crate::an10::{An10, Animation, BoneInfo, EMPTY_BOUNDS};
use crate::as08::{As08, As08Bone, As08Key};
use crate::error::{Result, invalid};
use crate::values::Frames;

/// UNIGINE's frame: +Z up, right-handed, meters.
pub const COORDINATE_SYSTEM: CoordinateSystem = CoordinateSystem::Z_UP_RIGHT;

/// Which version [`AnimFile::from_core`] writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TargetVersion {
    /// as08 (`.sanim`, UNIGINE 1.x).
    As08,
    /// an10 (`.anim`, UNIGINE 2.x).
    #[default]
    An10,
    /// an11 (`.anim`, UNIGINE 2.19+): float keys.
    An11,
    /// an12 (`.anim`, current docs; implemented from the documentation only): an11 keys,
    /// no bind pose, fps stored (rounded to an integer).
    An12,
}

fn unit(q: Quat) -> Quat {
    if q.length_squared() > 0.0 {
        q.normalize()
    } else {
        Quat::IDENTITY
    }
}

/// The meshfmt-core skeleton of a bone list and its bind pose (rotations normalized).
fn skeleton(bones: &[BoneInfo], bind_pose: &[Transform]) -> Skeleton {
    Skeleton {
        bones: bones
            .iter()
            .zip(bind_pose)
            .map(|(b, t)| Bone {
                name: b.name.to_string_lossy(),
                parent: usize::try_from(b.parent).ok(),
                rest: Transform {
                    rotation: unit(t.rotation),
                    ..*t
                },
                inverse_bind: None,
            })
            .collect(),
    }
}

fn clip_from_frames(name: String, frames: &Frames, flags: u8, fps: f32) -> Clip {
    let nb = frames.bones.len();
    let channels = frames
        .bones
        .iter()
        .enumerate()
        .map(|(slot, &bone)| {
            let mut c = Channel {
                bone: bone as usize,
                ..Channel::default()
            };
            for f in 0..frames.num_frames {
                let at = f * nb + slot;
                let time = f as f32 / fps;
                if flags & 0x07 != 0 {
                    c.translation.times.push(time);
                    c.translation
                        .values
                        .push(Vec3::from_array(frames.translation[at]));
                }
                if flags & 0x08 != 0 {
                    c.rotation.times.push(time);
                    c.rotation
                        .values
                        .push(unit(Quat::from_array(frames.rotation[at])));
                }
                if flags & 0x70 != 0 {
                    c.scale.times.push(time);
                    c.scale.values.push(Vec3::from_array(frames.scale[at]));
                }
            }
            c
        })
        .collect();
    Clip { name, channels }
}

/// Samples a clip on the frame grid into per-frame values for the given bones.
fn frames_from_clip(clip: &Clip, skeleton: &Skeleton, bones: &[usize], fps: f32) -> Result<Frames> {
    let budget = &meshfmt_core::Budget::default(); // replaced by the caller's (issue 16)
    let per_frame = (bones.len() * 40 + skeleton.len() * 40) as u64;
    let times = clip.frame_times(fps, budget, per_frame)?;
    let mut out = Frames {
        bones: bones.iter().map(|&b| b as i16).collect(),
        num_frames: times.len(),
        translation: Vec::new(),
        rotation: Vec::new(),
        scale: Vec::new(),
    };
    for &t in &times {
        let pose = clip.sample(skeleton, t);
        for &b in bones {
            let l = pose.locals.get(b).copied().unwrap_or(Transform::IDENTITY);
            out.translation.push(l.translation.to_array());
            out.rotation.push(l.rotation.to_array());
            out.scale.push(l.scale.to_array());
        }
    }
    Ok(out)
}

impl An10 {
    /// Skeleton (bind pose as rest) and one clip per animation. Animated kinds follow
    /// the file's flags; unflagged components carry forward, never-flagged ones come
    /// from the bind pose.
    pub fn to_core(&self, fps: f32) -> Result<Converted<Model>> {
        let skeleton = skeleton(&self.bones, &self.bind_pose);
        let animations = self
            .animations
            .iter()
            .map(|a| {
                clip_from_frames(
                    a.name.to_string_lossy(),
                    &a.decode(&self.bind_pose),
                    a.flags,
                    fps,
                )
            })
            .collect();
        Ok(Converted::exact(Model {
            coordinate_system: COORDINATE_SYSTEM,
            skeleton,
            animations,
            ..Model::default()
        }))
    }

    /// An an10 file from a model's skeleton and clips, sampled at `fps`, written like
    /// real exporters write (see [`Animation::encode`]).
    pub fn from_core(model: &Model, fps: f32) -> Result<Converted<An10>> {
        let (m, mut out, bones, bind_pose) = prepare(model)?;
        let nb = m.skeleton.len();
        let mut animations = Vec::new();
        for (i, clip) in m.animations.iter().enumerate() {
            let bones = clip_bones(i, clip, nb)?;
            if !clip.is_on_grid(fps) {
                out.lose(
                    Feature::Animation,
                    LossKind::Reduced,
                    format!("animations[{i}]"),
                    format!("keys resampled at {fps} frames per second"),
                );
            }
            let frames = frames_from_clip(clip, &m.skeleton, &bones, fps)?;
            let anim = Animation::encode(RawString::from(clip.name.as_str()), &frames);
            let step = anim
                .translation_box
                .size
                .iter()
                .chain(&anim.scale_box.size)
                .filter(|s| **s > 0.0)
                .fold(0.0f32, |a, s| a.max(*s))
                / 65535.0
                * 0.5;
            out.lose(
                Feature::Animation,
                LossKind::Quantized {
                    max_error: step.max(0.5 / 32767.0),
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
fn prepare(model: &Model) -> Result<Prepared> {
    let mut m = model.clone();
    m.convert_to(COORDINATE_SYSTEM);
    let mut out = Converted::exact(());
    report_dropped(&m, &mut out);
    let nb = m.skeleton.len();
    if nb > i16::MAX as usize {
        return Err(invalid(format!(
            "{nb} bones exceed the i16 bone index range"
        )));
    }
    let bones = m
        .skeleton
        .bones
        .iter()
        .map(|b| BoneInfo {
            name: RawString::from(b.name.as_str()),
            parent: b.parent.map_or(-1, |p| p as i16),
        })
        .collect();
    let bind_pose = m.skeleton.bones.iter().map(|b| b.rest).collect();
    Ok((m, out, bones, bind_pose))
}

/// [`prepare`]'s result: model, losses so far, bones, bind pose.
type Prepared = (Model, Converted<()>, Vec<BoneInfo>, Vec<Transform>);

fn clip_bones(index: usize, clip: &Clip, nb: usize) -> Result<Vec<usize>> {
    let mut bones: Vec<usize> = Vec::new();
    for c in &clip.channels {
        if c.bone >= nb {
            return Err(invalid(format!(
                "animation {index}: channel for bone {} of {nb}",
                c.bone
            )));
        }
        if !bones.contains(&c.bone) {
            bones.push(c.bone);
        }
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
}

impl As08 {
    /// Skeleton and one clip. as08 stores no bind pose: each bone's rest transform is
    /// its frame-0 value (identity for components frame 0 does not store). Quaternions
    /// are `u / 65535 * 2 - 1`, renormalized; scale is uniform.
    pub fn to_core(&self, fps: f32) -> Result<Converted<Model>> {
        let nb = self.bones.len();
        let mut current = vec![[0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]; nb];
        let mut channels: Vec<Channel> = (0..nb)
            .map(|b| Channel {
                bone: b,
                ..Channel::default()
            })
            .collect();
        let mut rest = vec![Transform::IDENTITY; nb];
        for f in 0..self.num_frames as usize {
            for (b, cur) in current.iter_mut().enumerate() {
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
                    rest[b] = t;
                }
                let time = f as f32 / fps;
                let ch = &mut channels[b];
                ch.translation.times.push(time);
                ch.translation.values.push(t.translation);
                ch.rotation.times.push(time);
                ch.rotation.values.push(t.rotation);
                ch.scale.times.push(time);
                ch.scale.values.push(t.scale);
            }
        }
        let skeleton = Skeleton {
            bones: self
                .bones
                .iter()
                .zip(rest)
                .map(|(b, rest)| Bone {
                    name: b.name.to_string_lossy(),
                    parent: usize::try_from(b.parent).ok(),
                    rest,
                    inverse_bind: None,
                })
                .collect(),
        };
        let animations = if self.num_frames > 0 {
            vec![Clip {
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

    /// An as08 file from a model's skeleton and first clip, sampled at `fps`; every
    /// component of every bone in every frame (flags 0xFF), quantized in one box.
    pub fn from_core(model: &Model, fps: f32) -> Result<Converted<As08>> {
        let mut m = model.clone();
        m.convert_to(COORDINATE_SYSTEM);
        let mut out = Converted::exact(());
        report_dropped(&m, &mut out);
        let nb = m.skeleton.len();
        let bones = m
            .skeleton
            .bones
            .iter()
            .map(|b| As08Bone {
                name: RawString::from(b.name.as_str()),
                parent: b.parent.map_or(-1, |p| p as i32),
            })
            .collect();
        let all: Vec<usize> = (0..nb).collect();
        let frames = match m.animations.first() {
            Some(clip) => {
                if !clip.is_on_grid(fps) {
                    out.lose(
                        Feature::Animation,
                        LossKind::Reduced,
                        "animations[0]",
                        format!("keys resampled at {fps} frames per second"),
                    );
                }
                frames_from_clip(clip, &m.skeleton, &all, fps)?
            }
            None => Frames {
                bones: all.iter().map(|&b| b as i16).collect(),
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
        };
        if m.animations.len() > 1 {
            out.lose(
                Feature::Animation,
                LossKind::Dropped,
                "",
                format!(
                    "as08 holds one animation; {} more dropped",
                    m.animations.len() - 1
                ),
            );
        }
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
        // Half a step of the box; quaternions: half of 2/65535 per component, then
        // renormalized, so allow a full step.
        let step = size.iter().fold(0.0f32, |a, s| a.max(*s)) / 65535.0 * 0.5;
        out.lose(
            Feature::Animation,
            LossKind::Quantized {
                max_error: step.max(2.0 / 65535.0),
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
        Ok(out.map(|()| As08 {
            bones,
            min,
            size,
            num_frames: frames.num_frames as u32,
            keys,
        }))
    }
}

/// The one clip of an an11/an12 key table; unflagged components are the defaults.
fn clip_from_keys(
    anim_bones: &[i16],
    num_frames: u32,
    keys: &[crate::an11::An11Key],
    fps: f32,
) -> Clip {
    let na = anim_bones.len();
    let mut channels = Vec::with_capacity(na);
    for (slot, &bone) in anim_bones.iter().enumerate() {
        let mut c = Channel {
            bone: bone as usize,
            ..Channel::default()
        };
        let keys: Vec<&crate::an11::An11Key> = (0..num_frames as usize)
            .filter_map(|f| keys.get(f * na + slot))
            .collect();
        let (any_p, any_r, any_s) = (
            keys.iter().any(|k| k.position.is_some()),
            keys.iter().any(|k| k.rotation.is_some()),
            keys.iter().any(|k| k.scale.is_some()),
        );
        for (f, k) in keys.iter().enumerate() {
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
    Clip {
        name: String::new(),
        channels,
    }
}

impl crate::an11::An11 {
    /// Skeleton (bind pose as rest) and one clip (an11 files are one unnamed clip).
    /// Unflagged components are the defaults, as the format defines.
    pub fn to_core(&self, fps: f32) -> Result<Converted<Model>> {
        let skeleton = skeleton(&self.bones, &self.bind_pose);
        let clip = clip_from_keys(&self.anim_bones, self.num_frames, &self.keys, fps);
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
        self.to_core_at(self.effective_fps(crate::DEFAULT_FPS))
    }

    fn to_core_at(&self, fps: f32) -> Result<Converted<Model>> {
        let identity = vec![Transform::IDENTITY; self.joints.len()];
        let skeleton = skeleton(&self.joints, &identity);
        let clip = clip_from_keys(&self.anim_bones, self.num_frames, &self.keys, fps);
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
    /// skeleton GUID and path are left empty and root motion off.
    pub fn from_core(model: &Model, fps: f32) -> Result<Converted<crate::an12::An12>> {
        let stored = fps.round();
        if !(stored >= 1.0 && stored <= i32::MAX as f32) {
            return Err(invalid(format!(
                "an12 cannot store {fps} frames per second"
            )));
        }
        let mut a = crate::an11::An11::from_core(model, stored)?;
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
    /// exactly (zero position, identity rotation, unit scale), so nothing is lost.
    pub fn from_core(model: &Model, fps: f32) -> Result<Converted<crate::an11::An11>> {
        let (m, mut out, bones, bind_pose) = prepare(model)?;
        let nb = m.skeleton.len();
        let (anim_bones, frames) = match m.animations.first() {
            Some(clip) => {
                if !clip.is_on_grid(fps) {
                    out.lose(
                        Feature::Animation,
                        LossKind::Reduced,
                        "animations[0]",
                        format!("keys resampled at {fps} frames per second"),
                    );
                }
                if !clip.name.is_empty() {
                    out.lose(
                        Feature::Names,
                        LossKind::Dropped,
                        "animations[0]",
                        "an11 stores no animation name",
                    );
                }
                let bones = clip_bones(0, clip, nb)?;
                let frames = frames_from_clip(clip, &m.skeleton, &bones, fps)?;
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
        if m.animations.len() > 1 {
            out.lose(
                Feature::Animation,
                LossKind::Dropped,
                "",
                format!(
                    "an11 holds one animation; {} more dropped",
                    m.animations.len() - 1
                ),
            );
        }
        let keys = (0..frames.translation.len())
            .map(|i| {
                let (p, q, s) = (frames.translation[i], frames.rotation[i], frames.scale[i]);
                crate::an11::An11Key {
                    position: (p != [0.0; 3]).then_some(p),
                    rotation: (q != [0.0, 0.0, 0.0, 1.0]).then_some(q),
                    scale: (s != [1.0; 3]).then_some(s),
                }
            })
            .collect();
        Ok(out.map(|()| crate::an11::An11 {
            bones,
            bind_pose,
            anim_bones: anim_bones.iter().map(|&b| b as i16).collect(),
            num_frames: frames.num_frames as u32,
            keys,
        }))
    }
}

impl AnimFile {
    /// The file as a meshfmt-core model (skeleton and clips), frames `1 / fps` apart
    /// (an12 uses its stored fps when positive and `fps` otherwise).
    pub fn to_core(&self, fps: f32) -> Result<Converted<Model>> {
        match self {
            AnimFile::An11(a) => a.to_core(fps),
            AnimFile::An12(a) => a.to_core_at(a.effective_fps(fps)),
            AnimFile::An10(a) => a.to_core(fps),
            AnimFile::As08(a) => a.to_core(fps),
        }
    }

    /// Encodes a model's skeleton and clips in the chosen version, sampled at `fps`.
    pub fn from_core(
        model: &Model,
        version: TargetVersion,
        fps: f32,
    ) -> Result<Converted<AnimFile>> {
        Ok(match version {
            TargetVersion::An10 => An10::from_core(model, fps)?.map(AnimFile::An10),
            TargetVersion::As08 => As08::from_core(model, fps)?.map(AnimFile::As08),
            TargetVersion::An11 => crate::an11::An11::from_core(model, fps)?.map(AnimFile::An11),
            TargetVersion::An12 => crate::an12::An12::from_core(model, fps)?.map(AnimFile::An12),
        })
    }
}
