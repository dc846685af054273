//! BONE and ACTN to and from meshfmt-core: the skeleton with rest poses, one clip per
//! action; bones and clips as BONE, ACTN and the vertices they use.

use meshfmt_core::animation::{Channel, Clip};
use meshfmt_core::glam::{Quat, Vec3};
use meshfmt_core::skeleton::{Bone as CoreBone, Transform as CoreTransform};
use meshfmt_core::{Feature, LossKind};

use crate::bones::{Action, Bone, Frame, Skeleton, Transform};
use crate::context::from_core::{FromCore, idx};
use crate::context::to_core::{Points, ToCore};
use crate::error::{Result, invalid};
use crate::types::{Idx, Vertex};

/// One animation key: a time and a translation, a time and a rotation.
const KEY_BYTES: u64 = (2 * std::mem::size_of::<f32>()
    + std::mem::size_of::<Vec3>()
    + std::mem::size_of::<Quat>()) as u64;

/// The skeleton (the BONE chunk's, if any): a parent that does not come before its bone
/// makes it a root (a loss).
pub(crate) fn skeleton_to_core(cx: &mut ToCore<'_>, skeleton: Option<&Skeleton>) -> Result<()> {
    let Some(sk) = skeleton else {
        return Ok(());
    };
    cx.budget
        .charge_items::<CoreBone>("bones", sk.bones.len())?;
    for (i, bone) in sk.bones.iter().enumerate() {
        let parent = bone.parent.get().map(|p| p as usize);
        let parent = match parent {
            Some(p) if p < i => Some(p),
            Some(_) => {
                cx.lose(
                    "parent not before the bone: made a root",
                    Feature::Skeleton,
                    LossKind::Reduced,
                    || format!("BONE.bone[{i}]"),
                    || "parent not before the bone: made a root",
                );
                None
            }
            None => None,
        };
        let translation = cx.pts.point(bone.pos).map_or(Vec3::ZERO, |p| p.0);
        let rotation = cx.pts.quat(bone.ori).unwrap_or(Quat::IDENTITY);
        let name = cx.own.text_in(bone.name, &cx.budget)?;
        cx.out.value.skeleton.bones.push(CoreBone {
            name,
            parent,
            rest: CoreTransform {
                translation,
                rotation,
                scale: Vec3::ONE,
            },
            inverse_bind: None,
        });
    }
    Ok(())
}

/// The pose actions are played on, kept across actions.
struct Animator {
    /// Each bone's rest pose.
    rest: Vec<(Vec3, Quat)>,
    /// Each bone's pose in the current action.
    state: Vec<(Vec3, Quat)>,
    /// Channel of each bone in the current action (usize::MAX: none).
    channel_of: Vec<usize>,
}

/// One clip per action. Frames list changed bones; every animated bone gets a key at
/// every frame so linear interpolation between frames matches m3d.h's pose
/// evaluation. Keys are charged to the budget per action (the skeleton is shared, so
/// a few bytes of frames can ask for keys of every bone). The per-bone state is kept
/// across actions and reset only where an action touched it: the work is the
/// transforms and keys, not frames x bones. `actions`: the ACTN chunks and their chunk
/// indices.
pub(crate) fn actions_to_core<'a>(
    cx: &mut ToCore<'_>,
    actions: impl Iterator<Item = (usize, &'a Action)> + Clone,
) -> Result<()> {
    if actions.clone().next().is_none() {
        return Ok(());
    }
    let rest: Vec<(Vec3, Quat)> = cx
        .out
        .value
        .skeleton
        .bones
        .iter()
        .map(|b| (b.rest.translation, b.rest.rotation))
        .collect();
    let nbones = rest.len();
    cx.budget.charge(
        "animation state",
        (nbones as u64).saturating_mul(2 * 28 + 8),
    )?;
    let mut anim = Animator {
        state: rest.clone(),
        rest,
        channel_of: vec![usize::MAX; nbones],
    };
    for (ai, a) in actions {
        action_to_core(cx, &mut anim, ai, a)?;
    }
    Ok(())
}

/// Action `ai` as a clip.
fn action_to_core(cx: &mut ToCore<'_>, anim: &mut Animator, ai: usize, a: &Action) -> Result<()> {
    let b = cx.budget.clone();
    // Animated bones, in bone order (as channels were always listed).
    let mut animated: Vec<usize> = Vec::new();
    for f in &a.frames {
        for t in &f.transforms {
            let Some(bone) = t.bone.get().map(|b| b as usize) else {
                continue;
            };
            if let Some(slot) = anim.channel_of.get_mut(bone) {
                if *slot == usize::MAX {
                    *slot = 0;
                    animated.push(bone);
                }
            }
        }
    }
    animated.sort_unstable();
    b.charge_items::<Channel>("animation channels", animated.len())?;
    b.charge_items::<usize>("animation channels", animated.len())?;
    for (ch, bone) in animated.iter().enumerate() {
        if let Some(slot) = anim.channel_of.get_mut(*bone) {
            *slot = ch;
        }
    }
    let mut channels: Vec<Channel> = animated
        .iter()
        .map(|&bone| Channel {
            bone,
            ..Channel::default()
        })
        .collect();
    // Dense keys are frames x animated bones; a hostile file can make that product
    // huge from a few hundred KB, so past a cap only changed bones get keys.
    const DENSE_KEY_CAP: usize = 1 << 22;
    let dense_keys = a.frames.len().saturating_mul(channels.len());
    let dense = dense_keys <= DENSE_KEY_CAP;
    if dense {
        b.charge(
            "animation keys",
            (dense_keys as u64).saturating_mul(KEY_BYTES),
        )?;
    } else {
        cx.lose(
            "too many frames x bones for a key per frame",
            Feature::Animation,
            LossKind::Reduced,
            || format!("ACTN[{ai}]"),
            || "too many frames x bones for a key per frame: keys only where a bone changes",
        );
    }
    let dropped = play(&cx.pts, anim, a, &mut channels, dense, &b)?;
    // Back to the rest pose where this action moved, for the next one.
    for &bone in &animated {
        if let (Some(s), Some(r), Some(c)) = (
            anim.state.get_mut(bone),
            anim.rest.get(bone),
            anim.channel_of.get_mut(bone),
        ) {
            *s = *r;
            *c = usize::MAX;
        }
    }
    if dropped > 0 {
        cx.lose(
            "transforms name a missing bone or vertex",
            Feature::Animation,
            LossKind::Reduced,
            || format!("ACTN[{ai}]"),
            || format!("{dropped} transforms name a missing bone or vertex"),
        );
    }
    b.charge_items::<Clip>("animations", 1)?;
    let name = cx.own.text_in(a.name, &b)?;
    cx.out.value.animations.push(Clip {
        events: Vec::new(),
        name,
        channels,
    });
    Ok(())
}

/// Plays the frames of `a`, keying every channel at every frame (`dense`) or only the
/// changed ones. Returns how many transforms named a missing bone or vertex.
fn play(
    pts: &Points<'_>,
    anim: &mut Animator,
    a: &Action,
    channels: &mut [Channel],
    dense: bool,
    b: &meshfmt_core::Budget,
) -> Result<usize> {
    let mut dropped = 0usize;
    // The frame (plus one) that last changed a channel; the channels changed in
    // this frame.
    let mut stamp = vec![0usize; channels.len()];
    let mut changed: Vec<usize> = Vec::new();
    for (fi, f) in a.frames.iter().enumerate() {
        changed.clear();
        for t in &f.transforms {
            let bone = t.bone.get().map(|b| b as usize);
            let slot = bone.and_then(|b| anim.state.get_mut(b));
            match (slot, pts.point(t.pos), pts.quat(t.ori)) {
                (Some(s), Some((p, _)), Some(q)) => {
                    *s = (p, q);
                    let ch = bone.and_then(|b| anim.channel_of.get(b)).copied();
                    if let Some(st) = ch.and_then(|ch| stamp.get_mut(ch)) {
                        if *st != fi + 1 {
                            *st = fi + 1;
                            changed.extend(ch);
                        }
                    }
                }
                _ => dropped += 1,
            }
        }
        let time = f.msec as f32 / 1000.0;
        let state = &anim.state;
        let mut key = |ch: &mut Channel| {
            if let Some((p, q)) = state.get(ch.bone) {
                ch.translation.times.push(time);
                ch.translation.values.push(*p);
                ch.rotation.times.push(time);
                ch.rotation.values.push(*q);
            }
        };
        if dense {
            channels.iter_mut().for_each(&mut key);
        } else {
            b.charge("animation keys", changed.len() as u64 * KEY_BYTES)?;
            for &ch in &changed {
                if let Some(ch) = channels.get_mut(ch) {
                    key(ch);
                }
            }
        }
    }
    Ok(dropped)
}

/// Bones: a position vertex and an orientation vertex each (bone scale is a loss). The
/// BONE chunk's bones.
pub(crate) fn skeleton_from_core(cx: &mut FromCore<'_>) -> Result<Vec<Bone>> {
    let model = cx.model;
    let mut bones = Vec::new();
    cx.budget.charge(
        "bones",
        (model.skeleton.bones.len() as u64).saturating_mul(
            2 * std::mem::size_of::<Vertex>() as u64 + std::mem::size_of::<Bone>() as u64,
        ),
    )?;
    for (i, b) in model.skeleton.bones.iter().enumerate() {
        if (b.rest.scale - Vec3::ONE).abs().max_element() > 1e-6 {
            cx.out.lose(
                Feature::Skeleton,
                LossKind::Dropped,
                format!("skeleton.bones[{i}]"),
                "M3D bones have no scale",
            );
        }
        let (pos, ori) = cx.bone_vertex(b.rest.translation, b.rest.rotation)?;
        let parent = match b.parent {
            Some(p) if p < i => idx(p)?,
            Some(_) => {
                return Err(invalid(format!("bone {i}: its parent must come before it")));
            }
            None => Idx::UNDEF,
        };
        bones.push(Bone {
            parent,
            name: cx.strings.add(&b.name)?,
            pos,
            ori,
        });
    }
    Ok(bones)
}

/// One action per clip, keyed at every time any channel has a key (times rounded to
/// whole milliseconds); checked against the 65,535-frame limit and its frames charged
/// before they are sampled. The ACTN chunks.
pub(crate) fn actions_from_core(cx: &mut FromCore<'_>) -> Result<Vec<Action>> {
    let model = cx.model;
    cx.out.drop_events(model, "Model 3D");
    let b = &cx.budget.clone();
    let mut actions = Vec::new();
    for (ci, clip) in model.animations.iter().enumerate() {
        // Frames at whole milliseconds, each holding the values at the key it stands
        // for (not at the rounded time: a key keeps its value, only its time moves).
        let nkeys = clip.channels.iter().fold(0usize, |n, c| {
            n.saturating_add(c.translation.times.len())
                .saturating_add(c.rotation.times.len())
        });
        b.charge_items::<(u32, f32)>("animation keys", nkeys)?;
        let mut keys: Vec<(u32, f32)> = clip
            .channels
            .iter()
            .flat_map(|c| c.translation.times.iter().chain(&c.rotation.times))
            .map(|t| ((t.max(0.0) * 1000.0).round() as u32, *t))
            .collect();
        keys.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        keys.dedup_by_key(|k| k.0);
        if keys
            .iter()
            .any(|(ms, t)| (*ms as f32 / 1000.0 - t).abs() > 1e-6)
        {
            cx.out.lose(
                Feature::Animation,
                LossKind::Reduced,
                format!("animations[{ci}]"),
                "key times rounded to whole milliseconds (up to 0.5 ms off)",
            );
        }
        if clip.channels.iter().any(|c| !c.scale.is_empty()) {
            cx.out.lose(
                Feature::Animation,
                LossKind::Dropped,
                format!("animations[{ci}]"),
                "M3D actions have no scale keys",
            );
        }
        // Every frame samples every channel: frames (the distinct key times of all
        // channels) x channels, quadratic when the channels' times do not meet. The
        // frame limit is checked and the frames charged before any is built.
        if keys.len() > usize::from(u16::MAX) {
            return Err(invalid(format!("animation {ci}: more than 65535 frames")));
        }
        let sampled = clip
            .channels
            .iter()
            .filter(|c| c.bone < model.skeleton.bones.len())
            .count();
        let per_key = 2 * std::mem::size_of::<Vertex>() + std::mem::size_of::<Transform>();
        b.charge(
            "action frames",
            (keys.len() as u64).saturating_mul(
                (sampled as u64).saturating_mul(per_key as u64)
                    + std::mem::size_of::<Frame>() as u64,
            ),
        )?;
        let mut frames = Vec::with_capacity(keys.len());
        for &(ms, t) in &keys {
            let mut transforms = Vec::new();
            for c in &clip.channels {
                let Some(rest) = model.skeleton.bones.get(c.bone) else {
                    continue;
                };
                let tr = c.translation.sample(t).unwrap_or(rest.rest.translation);
                let ro = c.rotation.sample(t).unwrap_or(rest.rest.rotation);
                let (pos, ori) = cx.bone_vertex(tr, ro)?;
                transforms.push(Transform {
                    bone: idx(c.bone)?,
                    pos,
                    ori,
                });
            }
            frames.push(Frame {
                msec: ms,
                transforms,
            });
        }
        let duration_msec = keys.last().map_or(0, |k| k.0);
        actions.push(Action {
            name: cx.strings.add(&clip.name)?,
            duration_msec,
            frames,
        });
    }
    Ok(actions)
}
