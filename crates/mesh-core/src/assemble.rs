//! Assembling one model from a main file and its companions: the clips of animation
//! files ([`Model::attach_clips`]) and a skeleton from a skeleton file
//! ([`Model::with_skeleton`]), matched to the model's bones by name, with everything that
//! does not match reported as a [`Loss`].
//!
//! Matching is by exact bone name (the first bone of a name wins when a skeleton repeats
//! one); values are re-expressed in the receiving model's coordinate system. Both walk
//! each list once through a name map, and charge what they copy to the operation's
//! [`Budget`] first.

use std::collections::HashMap;
use std::mem::size_of;

use parsing_primitives::{Budget, BudgetExceeded};

use crate::animation::{Channel, Clip, ClipEvent};
use crate::coords::Conversion;
use crate::coords::CoordinateSystem;
use crate::loss::{Feature, Loss, LossKind};
use crate::model::Model;
use crate::skeleton::{Bone, Skeleton};

/// Most names one loss lists (the count says how many there are).
const MAX_NAMES: usize = 8;

/// `names` quoted and joined, at most [`MAX_NAMES`] of them, then "and N more".
fn name_list(names: &[String]) -> String {
    let shown: Vec<String> = names
        .iter()
        .take(MAX_NAMES)
        .map(|n| format!("'{n}'"))
        .collect();
    let mut s = shown.join(", ");
    if names.len() > MAX_NAMES {
        s.push_str(&format!(" and {} more", names.len() - MAX_NAMES));
    }
    s
}

/// Heap bytes of a skeleton's copy.
fn skeleton_bytes(s: &Skeleton) -> u64 {
    s.bones.iter().fold(
        (s.bones.len() as u64).saturating_mul(size_of::<Bone>() as u64),
        |n, b| n.saturating_add(b.name.len() as u64),
    )
}

/// Bytes of a name map over `n` bones (a key, a value and the table's slack).
fn map_bytes(n: usize) -> u64 {
    (n as u64).saturating_mul(2 * (size_of::<&str>() + size_of::<usize>()) as u64)
}

/// Index of every bone by name, the first bone of a name winning.
fn names(bones: &[Bone]) -> HashMap<&str, usize> {
    let mut map = HashMap::with_capacity(bones.len());
    for (i, b) in bones.iter().enumerate() {
        map.entry(b.name.as_str()).or_insert(i);
    }
    map
}

/// Bone `i` of `other` -> the bone of `ours` with its name, through a name map charged
/// to `budget` first.
fn bone_map(
    ours: &Skeleton,
    other: &Skeleton,
    budget: &Budget,
) -> Result<Vec<Option<usize>>, BudgetExceeded> {
    budget.charge(
        "bone name map",
        map_bytes(ours.len())
            .saturating_add((other.len() as u64).saturating_mul(size_of::<Option<usize>>() as u64)),
    )?;
    let by_name = names(&ours.bones);
    // Other's bone index -> ours.
    let map: Vec<Option<usize>> = other
        .bones
        .iter()
        .map(|b| by_name.get(b.name.as_str()).copied())
        .collect();
    drop(by_name);
    Ok(map)
}

/// The loss for matched bones whose parent differs between the two skeletons.
fn moved_parents(ours: &Skeleton, other: &Skeleton, map: &[Option<usize>]) -> Option<Loss> {
    let parent_name = |s: &Skeleton, p: Option<usize>| {
        p.and_then(|p| s.bones.get(p))
            .map_or_else(|| "(none)".to_string(), |b| b.name.clone())
    };
    let mut moved = Vec::new();
    for (b, &mapped) in other.bones.iter().zip(map) {
        let Some(i) = mapped else { continue };
        let (theirs, mine) = (
            parent_name(other, b.parent),
            parent_name(ours, ours.bones.get(i).and_then(|o| o.parent)),
        );
        if theirs != mine {
            moved.push(format!("{} (parent {theirs} there, {mine} here)", b.name));
        }
    }
    (!moved.is_empty()).then(|| Loss {
            feature: Feature::Animation,
            kind: LossKind::Reduced,
            path: String::new(),
            reason: format!(
                "{} bones have another parent in the animation's skeleton; their keys apply under the model's parent: {}",
                moved.len(),
                name_list(&moved)
            ),
        })
}

/// Clip `k`'s channels on the bones of `map`, and the names of the bones it animates
/// that the model lacks (`missing`) or that another channel of the clip already
/// animated (`twice`). `seen[bone]` is the last clip that gave the bone a channel.
fn map_channels(
    clip: &Clip,
    k: usize,
    other: &Skeleton,
    map: &[Option<usize>],
    seen: &mut [usize],
    conv: &Conversion,
) -> (Vec<Channel>, Vec<String>, Vec<String>) {
    let mut channels = Vec::with_capacity(clip.channels.len());
    let mut missing = Vec::new();
    let mut twice = Vec::new();
    for ch in &clip.channels {
        let name = other.bones.get(ch.bone).map(|b| b.name.as_str());
        match map.get(ch.bone).copied().flatten() {
            Some(i) if seen.get(i) == Some(&k) => {
                twice.push(name.unwrap_or_default().to_string());
            }
            Some(i) => {
                if let Some(s) = seen.get_mut(i) {
                    *s = k;
                }
                channels.push(convert_channel(ch, i, conv));
            }
            None => missing.push(match name {
                Some(n) => n.to_string(),
                None => format!("#{}", ch.bone),
            }),
        }
    }
    (channels, missing, twice)
}

/// A bone re-expressed by `c`.
fn convert_bone(b: &Bone, c: &Conversion) -> Bone {
    let mut out = b.clone();
    out.rest.translation = c.point(b.rest.translation);
    out.rest.rotation = c.rotation(b.rest.rotation);
    out.rest.scale = c.scale_vector(b.rest.scale);
    out.inverse_bind = b.inverse_bind.map(|m| c.matrix(m));
    out
}

/// A channel re-expressed by `c`, for bone `bone`.
fn convert_channel(ch: &Channel, bone: usize, c: &Conversion) -> Channel {
    let mut out = ch.clone();
    out.bone = bone;
    out.translation
        .values
        .iter_mut()
        .for_each(|t| *t = c.point(*t));
    out.rotation
        .values
        .iter_mut()
        .for_each(|q| *q = c.rotation(*q));
    out.scale
        .values
        .iter_mut()
        .for_each(|s| *s = c.scale_vector(*s));
    out
}

impl Model {
    /// Adds the clips of `other` (an animation file's model) to this model: each channel
    /// goes to the bone of this model's skeleton with the same name, its keys
    /// re-expressed in this model's coordinate system. Returns what did not match:
    ///
    /// - per clip, the channels whose bone this skeleton does not have (named, as an
    ///   [`Feature::Animation`] loss at the clip's new path, `animations[i]`); a clip none
    ///   of whose channels matches is not added (reported by name);
    /// - once, the matched bones whose parent has another name in `other` (their keys
    ///   still apply, under this model's parent);
    /// - every clip, when this model has surfaces but no skeleton to play them on. A
    ///   model with neither (an animation file itself) takes `other`'s skeleton.
    ///
    /// Components a channel does not key keep this model's rest values. The copies are
    /// charged to `budget` ("attached clips") before they are made.
    ///
    /// ```
    /// use meshfmt_core::{glam::Vec3, Bone, Budget, Channel, Clip, Model, Skeleton, Track};
    /// let bone = |name: &str| Bone { name: name.into(), ..Bone::default() };
    /// let mut body = Model::default();
    /// body.skeleton = Skeleton { bones: vec![bone("hip"), bone("knee")] };
    /// body.surfaces.push(Default::default());
    /// let mut anim = Model::default();
    /// anim.skeleton = Skeleton { bones: vec![bone("knee"), bone("tail")] };
    /// let key = |bone| Channel { bone, translation: Track::from_keys([(0.0, Vec3::X)]), ..Channel::default() };
    /// anim.animations.push(Clip { name: "walk".into(), channels: vec![key(0), key(1)], events: vec![] });
    /// let losses = body.attach_clips(&anim, &Budget::default())?;
    /// assert_eq!(body.animations[0].channels[0].bone, 1); // "knee"
    /// assert_eq!(losses[0].path, "animations[0]");
    /// assert!(losses[0].reason.contains("'tail'"));
    /// # Ok::<(), meshfmt_core::BudgetExceeded>(())
    /// ```
    pub fn attach_clips(
        &mut self,
        other: &Model,
        budget: &Budget,
    ) -> Result<Vec<Loss>, BudgetExceeded> {
        let mut losses = Vec::new();
        if other.animations.is_empty() {
            return Ok(losses);
        }
        let conv = other
            .coordinate_system
            .conversion_to(&self.coordinate_system);
        if self.skeleton.is_empty() {
            if !self.surfaces.is_empty() {
                for clip in &other.animations {
                    losses.push(Loss {
                        feature: Feature::Animation,
                        kind: LossKind::Dropped,
                        path: String::new(),
                        reason: format!(
                            "clip '{}': the model has no skeleton to play it on",
                            clip.name
                        ),
                    });
                }
                return Ok(losses);
            }
            budget.charge("attached skeleton", skeleton_bytes(&other.skeleton))?;
            self.skeleton = Skeleton {
                bones: other
                    .skeleton
                    .bones
                    .iter()
                    .map(|b| convert_bone(b, &conv))
                    .collect(),
            };
        }
        let ours = &self.skeleton;
        let map = bone_map(ours, &other.skeleton, budget)?;
        losses.extend(moved_parents(ours, &other.skeleton, &map));
        // seen[bone] = index of the last clip that gave it a channel (one pass per clip).
        let mut seen = vec![usize::MAX; ours.len()];
        let mut clips = Vec::with_capacity(other.animations.len());
        for (k, clip) in other.animations.iter().enumerate() {
            budget.charge("attached clips", clip.heap_bytes())?;
            let (channels, missing, twice) =
                map_channels(clip, k, &other.skeleton, &map, &mut seen, &conv);
            clips.push((clip, channels, missing, twice));
        }
        for (clip, channels, missing, twice) in clips {
            if channels.is_empty() && !clip.channels.is_empty() {
                losses.push(Loss {
                    feature: Feature::Animation,
                    kind: LossKind::Dropped,
                    path: String::new(),
                    reason: format!(
                        "clip '{}': none of its {} channels names a bone of the model: {}",
                        clip.name,
                        clip.channels.len(),
                        name_list(&missing)
                    ),
                });
                continue;
            }
            let path = format!("animations[{}]", self.animations.len());
            if !missing.is_empty() {
                losses.push(Loss {
                    feature: Feature::Animation,
                    kind: LossKind::Dropped,
                    path: path.clone(),
                    reason: format!(
                        "clip '{}': {} of {} channels name bones not in the model's skeleton: {}",
                        clip.name,
                        missing.len(),
                        clip.channels.len(),
                        name_list(&missing)
                    ),
                });
            }
            if !twice.is_empty() {
                losses.push(Loss {
                    feature: Feature::Animation,
                    kind: LossKind::Dropped,
                    path: path.clone(),
                    reason: format!(
                        "clip '{}': {} channels name a bone another channel already animates (the first is kept): {}",
                        clip.name,
                        twice.len(),
                        name_list(&twice)
                    ),
                });
            }
            // An event on a bone goes with that bone's channel: where the model lacks
            // the bone, both are dropped.
            let mut events = Vec::with_capacity(clip.events.len());
            let mut lost = 0usize;
            for e in &clip.events {
                match e.bone.map(|b| map.get(b).copied().flatten()) {
                    None => events.push(e.clone()),
                    Some(Some(b)) => events.push(ClipEvent {
                        bone: Some(b),
                        ..e.clone()
                    }),
                    Some(None) => lost += 1,
                }
            }
            if lost > 0 {
                losses.push(Loss {
                    feature: Feature::Animation,
                    kind: LossKind::Dropped,
                    path: format!("animations[{}]", self.animations.len()),
                    reason: format!(
                        "clip '{}': {lost} events on bones not in the model's skeleton",
                        clip.name
                    ),
                });
            }
            self.animations.push(Clip {
                name: clip.name.clone(),
                channels,
                events,
            });
        }
        Ok(losses)
    }

    /// Puts this model on `skeleton` (expressed in `system`): the model's bones are
    /// matched to the given ones by name, skin joints and clip channels follow, and each
    /// matched bone takes the given rest pose while the mesh keeps its binding (the
    /// model's inverse bind matrices, stored where they differ from the new rest pose's).
    /// Bones of the model the given skeleton lacks are kept after the given bones, with
    /// their own rest pose, and reported by name ([`Feature::Skeleton`], reduced). A
    /// model without a skeleton simply takes the given one.
    ///
    /// The new skeleton is charged to `budget` ("given skeleton") before it is built.
    ///
    /// ```
    /// use meshfmt_core::{glam::Vec3, Bone, Budget, CoordinateSystem, Model, Skeleton, Transform, VertexInfluences};
    /// let bone = |name: &str, x: f32| Bone {
    ///     name: name.into(),
    ///     rest: Transform { translation: Vec3::new(x, 0.0, 0.0), ..Transform::IDENTITY },
    ///     ..Bone::default()
    /// };
    /// let mut m = Model::default();
    /// m.skeleton = Skeleton { bones: vec![bone("hand", 1.0), bone("ring", 2.0)] };
    /// m.surfaces.push(meshfmt_core::Surface { skin: vec![VertexInfluences::single(0)], ..Default::default() });
    /// let given = Skeleton { bones: vec![bone("root", 0.0), bone("hand", 1.0)] };
    /// let losses = m.with_skeleton(&given, CoordinateSystem::GLTF, &Budget::default())?;
    /// assert_eq!(m.skeleton.bones.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(), ["root", "hand", "ring"]);
    /// assert_eq!(m.surfaces[0].skin[0].joints[0], 1); // "hand"
    /// assert!(losses[0].reason.contains("'ring'"));
    /// # Ok::<(), meshfmt_core::BudgetExceeded>(())
    /// ```
    pub fn with_skeleton(
        &mut self,
        skeleton: &Skeleton,
        system: CoordinateSystem,
        budget: &Budget,
    ) -> Result<Vec<Loss>, BudgetExceeded> {
        let conv = system.conversion_to(&self.coordinate_system);
        budget.charge(
            "given skeleton",
            skeleton_bytes(skeleton)
                .saturating_add(skeleton_bytes(&self.skeleton))
                .saturating_add(map_bytes(skeleton.len()))
                .saturating_add(
                    // Old and new inverse binds, the index map.
                    ((self.skeleton.len() + skeleton.len()) as u64)
                        .saturating_mul((2 * size_of::<glam::Mat4>() + size_of::<usize>()) as u64),
                ),
        )?;
        let mut bones: Vec<Bone> = skeleton
            .bones
            .iter()
            .map(|b| convert_bone(b, &conv))
            .collect();
        if self.skeleton.is_empty() {
            self.skeleton = Skeleton { bones };
            return Ok(Vec::new());
        }
        let old = std::mem::take(&mut self.skeleton);
        let old_inverse_binds = old.inverse_bind_matrices();
        let given_len = bones.len();
        let by_name = names(&bones);
        let found: Vec<Option<usize>> = old
            .bones
            .iter()
            .map(|b| by_name.get(b.name.as_str()).copied())
            .collect();
        drop(by_name);
        let mut new_of_old = Vec::with_capacity(old.len());
        let mut kept = Vec::new();
        for (b, f) in old.bones.iter().zip(found) {
            match f {
                Some(j) => new_of_old.push(j),
                None => {
                    new_of_old.push(bones.len());
                    bones.push(b.clone());
                    kept.push(b.name.clone());
                }
            }
        }
        // The kept bones' parents, in the new numbering.
        for (i, b) in old.bones.iter().enumerate() {
            let j = new_of_old[i];
            if j >= given_len {
                if let Some(nb) = bones.get_mut(j) {
                    nb.parent = b.parent.and_then(|p| new_of_old.get(p).copied());
                }
            }
        }
        let mut new = Skeleton { bones };
        // The mesh keeps its binding: each matched bone's old inverse bind, where the
        // new rest pose gives another.
        let derived = new.inverse_bind_matrices();
        for (i, ib) in old_inverse_binds.iter().enumerate() {
            let j = new_of_old[i];
            if let (Some(b), Some(d)) = (new.bones.get_mut(j), derived.get(j)) {
                if !d.abs_diff_eq(*ib, 1e-5) {
                    b.inverse_bind = Some(*ib);
                }
            }
        }
        let map = |j: u32| new_of_old.get(j as usize).map_or(j, |&n| n as u32);
        for s in &mut self.surfaces {
            for v in &mut s.skin {
                for (j, w) in v.joints.iter_mut().zip(v.weights) {
                    if w != 0.0 {
                        *j = map(*j);
                    }
                }
            }
        }
        for clip in &mut self.animations {
            for ch in &mut clip.channels {
                if let Some(&n) = new_of_old.get(ch.bone) {
                    ch.bone = n;
                }
            }
        }
        new.bones.shrink_to_fit();
        self.skeleton = new;
        let mut losses = Vec::new();
        if !kept.is_empty() {
            losses.push(Loss {
                feature: Feature::Skeleton,
                kind: LossKind::Reduced,
                path: "skeleton".into(),
                reason: format!(
                    "{} bones of the model are not in the given skeleton (kept with the model's rest pose): {}",
                    kept.len(),
                    name_list(&kept)
                ),
            });
        }
        Ok(losses)
    }
}
