//! BONE and ACTN to and from meshfmt-core: the skeleton with rest poses, one clip per
//! action; bones and clips as BONE, ACTN and the vertices they use.

use meshfmt_core::animation::{Channel, Clip};
use meshfmt_core::glam::{Quat, Vec3};
use meshfmt_core::skeleton::{Bone as CoreBone, Transform as CoreTransform};
use meshfmt_core::skin::VertexInfluences;
use meshfmt_core::{Feature, LossKind};

use crate::bones::{Action, Bone, Frame, Skin, Transform};
use crate::chunk::{Body, Chunk};
use crate::convert::context::ToCore;
use crate::error::{Result, invalid};
use crate::from_core::context::{FromCore, idx};
use crate::types::Idx;
use crate::vertex::Vertex;
use crate::vertex::core::Points;

/// One animation key: a time and a translation, a time and a rotation.
const KEY_BYTES: u64 = (2 * std::mem::size_of::<f32>()
    + std::mem::size_of::<Vec3>()
    + std::mem::size_of::<Quat>()) as u64;

/// The skeleton: a parent that does not come before its bone makes it a root (a loss).
pub(crate) fn skeleton_to_core(cx: &mut ToCore<'_>) -> Result<()> {
    let file = cx.file;
    let Some(sk) = file.skeleton() else {
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
        let name = file.text_in(bone.name, &cx.budget)?;
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
/// transforms and keys, not frames x bones.
pub(crate) fn actions_to_core(cx: &mut ToCore<'_>) -> Result<()> {
    let file = cx.file;
    if !file.chunks.iter().any(|c| matches!(c.body, Body::Actn(_))) {
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
    for (ai, c) in file.chunks.iter().enumerate() {
        let Body::Actn(a) = &c.body else { continue };
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
    let name = cx.file.text_in(a.name, &b)?;
    cx.out.value.animations.push(Clip { name, channels });
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

/// Bones: a position vertex and an orientation vertex each (bone scale is a loss).
pub(crate) fn skeleton_from_core(cx: &mut FromCore<'_>) -> Result<()> {
    let model = cx.model;
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
        cx.bones.push(Bone {
            parent,
            name: cx.strings.add(&b.name)?,
            pos,
            ori,
        });
    }
    Ok(())
}

/// One action per clip, keyed at every time any channel has a key (times rounded to
/// whole milliseconds); checked against the 65,535-frame limit and its frames charged
/// before they are sampled.
pub(crate) fn actions_from_core(cx: &mut FromCore<'_>) -> Result<()> {
    let model = cx.model;
    let b = &cx.budget.clone();
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
        cx.actions.push(Chunk {
            body: Body::Actn(Action {
                name: cx.strings.add(&clip.name)?,
                duration_msec,
                frames,
            }),
            tail: Vec::new(),
        });
    }
    Ok(())
}

/// A vertex's influences as M3D skin bytes, and the worst difference they make to a
/// weight once read back. The format wants the bytes of a point to sum to 255 and readers
/// (m3d.h, ours) divide by 255 and renormalise, so the weights (normalised) are shared
/// out by largest remainder: each byte is within one step of its share, and the sum is
/// exactly 255 (rounding each alone can miss it by several steps, which renormalising
/// then spreads over every weight). A weight whose share rounds to no byte is not
/// stored (the format keeps no bone for a zero weight).
pub(crate) fn skin_of(inf: &VertexInfluences) -> (Skin, f32) {
    let pairs: Vec<(u32, f32)> = inf.pairs().collect();
    // Negative or non-finite weights count as nothing; all nothing shares equally.
    let usable = |w: f32| {
        if w.is_finite() && w > 0.0 {
            f64::from(w)
        } else {
            0.0
        }
    };
    let total: f64 = pairs.iter().map(|p| usable(p.1)).sum();
    let share = |w: f32| -> f64 {
        if total > 0.0 && total.is_finite() {
            usable(w) / total * 255.0
        } else {
            255.0 / pairs.len() as f64
        }
    };
    let shares: Vec<f64> = pairs.iter().map(|p| share(p.1)).collect();
    let mut bytes: Vec<u8> = shares
        .iter()
        .map(|s| s.floor().clamp(0.0, 255.0) as u8)
        .collect();
    // The steps left go to the largest remainders (ties to the earlier pair).
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| {
        let rem = |i: usize| shares.get(i).copied().unwrap_or(0.0) - bytes_at(&bytes, i);
        rem(b).total_cmp(&rem(a)).then(a.cmp(&b))
    });
    let sum: u32 = bytes.iter().map(|b| u32::from(*b)).sum();
    let left = 255u32.saturating_sub(sum) as usize;
    for &i in order.iter().cycle().take(left) {
        if let Some(b) = bytes.get_mut(i) {
            *b = b.saturating_add(1);
        }
    }
    let mut weights = vec![0u8; 8];
    let mut bones = Vec::new();
    for ((j, _), b) in pairs.iter().zip(&bytes).filter(|(_, b)| **b != 0) {
        if let Some(slot) = weights.get_mut(bones.len()) {
            *slot = *b;
            bones.push(Idx(*j));
        }
    }
    // What the reader makes of them (convert.rs): byte / 255, renormalised.
    let mut back = VertexInfluences::from_pairs_strongest(
        bones
            .iter()
            .zip(weights.iter().filter(|w| **w != 0))
            .map(|(b, w)| (b.0, f32::from(*w) / 255.0)),
    );
    back.normalize();
    // Compared joint by joint, a joint missing on one side weighing 0.
    let weight_of =
        |v: &[(u32, f32)], j: u32| -> f32 { v.iter().filter(|p| p.0 == j).map(|p| p.1).sum() };
    let read: Vec<(u32, f32)> = back.pairs().collect();
    let kept = pairs.iter().map(|&(j, w)| (w - weight_of(&read, j)).abs());
    let added = read
        .iter()
        .filter(|r| !pairs.iter().any(|p| p.0 == r.0))
        .map(|&(j, _)| weight_of(&read, j));
    let error = kept.chain(added).fold(0.0f32, f32::max);
    (Skin { weights, bones }, error)
}

fn bytes_at(bytes: &[u8], i: usize) -> f64 {
    bytes.get(i).map_or(0.0, |b| f64::from(*b))
}
