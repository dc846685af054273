//! Clips, keyframe tracks, sampling into poses, and CPU linear-blend skinning.

use glam::{Mat4, Quat, Vec3};
use parsing_primitives::{Budget, BudgetExceeded};

use crate::skeleton::{Skeleton, Transform};

/// One bone's translation, rotation and scale tracks, each optional (what
/// [`Transform::sampled`] reads).
pub type TrackRefs<'a> = (
    Option<&'a Track<Vec3>>,
    Option<&'a Track<Quat>>,
    Option<&'a Track<Vec3>>,
);

// Sampling a rest transform lives here, beside the tracks (the skeleton module does not
// depend on animation).
impl Transform {
    /// This transform with the components that `tracks` (translation, rotation, scale)
    /// animate replaced by their values at `time`; a sampled rotation is normalized.
    /// What [`Clip::sample`](crate::Clip::sample) does for each channel, for callers
    /// that look tracks up themselves.
    ///
    /// ```
    /// use meshfmt_core::{glam::{Quat, Vec3}, Track, Transform};
    /// let t = Track::from_keys([(0.0, Vec3::ZERO), (1.0, Vec3::X)]);
    /// let posed = Transform::IDENTITY.sampled((Some(&t), None, None), 0.5);
    /// assert_eq!(posed.translation, Vec3::new(0.5, 0.0, 0.0));
    /// assert_eq!(posed.rotation, Quat::IDENTITY);
    /// ```
    pub fn sampled(mut self, tracks: TrackRefs<'_>, time: f32) -> Transform {
        let (translation, rotation, scale) = tracks;
        if let Some(t) = translation.and_then(|t| t.sample(time)) {
            self.translation = t;
        }
        if let Some(r) = rotation.and_then(|t| t.sample(time)) {
            self.rotation = r.normalize();
        }
        if let Some(s) = scale.and_then(|t| t.sample(time)) {
            self.scale = s;
        }
        self
    }
}

/// How values between keys are found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Interpolation {
    /// Lerp for vectors, shortest-path slerp for rotations.
    #[default]
    Linear,
    /// Hold the previous key's value.
    Step,
}

/// Keyframes of one property: `times[i]` (seconds, non-decreasing) and `values[i]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Track<T> {
    /// Key times in seconds.
    pub times: Vec<f32>,
    /// One value per key.
    pub values: Vec<T>,
    /// Interpolation between keys.
    pub interpolation: Interpolation,
}

impl<T> Default for Track<T> {
    fn default() -> Self {
        Track {
            times: Vec::new(),
            values: Vec::new(),
            interpolation: Interpolation::Linear,
        }
    }
}

/// Values that tracks can blend.
pub trait Keyframe: Copy {
    /// Linear blend from `self` to `other` by `t` in 0..=1.
    fn blend(self, other: Self, t: f32) -> Self;
}

impl Keyframe for Vec3 {
    fn blend(self, other: Self, t: f32) -> Self {
        self.lerp(other, t)
    }
}

impl Keyframe for Quat {
    fn blend(self, other: Self, t: f32) -> Self {
        self.slerp(other, t)
    }
}

impl<T: Keyframe> Track<T> {
    /// A linear track from `(time, value)` keys.
    pub fn from_keys(keys: impl IntoIterator<Item = (f32, T)>) -> Self {
        let (times, values) = keys.into_iter().unzip();
        Track {
            times,
            values,
            interpolation: Interpolation::Linear,
        }
    }

    /// True when the track has no keys.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty() || self.values.is_empty()
    }

    /// The value at `time`: clamped to the first and last keys outside their range.
    /// `None` for an empty track. Tolerates unsorted times and mismatched lengths
    /// (it uses the common prefix and never panics).
    pub fn sample(&self, time: f32) -> Option<T> {
        let n = self.times.len().min(self.values.len());
        let times = &self.times[..n];
        let values = &self.values[..n];
        let (&first, &last) = (values.first()?, values.last()?);
        if time.is_nan() || time <= times[0] {
            return Some(first);
        }
        if time >= times[n - 1] {
            return Some(last);
        }
        // First key strictly after `time`; 1..n because of the checks above.
        let hi = times.partition_point(|&t| t <= time).clamp(1, n - 1);
        let lo = hi - 1;
        let (t0, t1) = (times[lo], times[hi]);
        let span = t1 - t0;
        let f = if span > 0.0 {
            ((time - t0) / span).clamp(0.0, 1.0)
        } else {
            0.0
        };
        if f == 0.0 {
            // Exactly on a key: its value, bit for bit (slerp at 0 need not be exact).
            return Some(values[lo]);
        }
        Some(match self.interpolation {
            Interpolation::Step => values[lo],
            Interpolation::Linear => values[lo].blend(values[hi], f),
        })
    }

    /// Time of the last key (0 when empty).
    pub fn end_time(&self) -> f32 {
        self.times.last().copied().unwrap_or(0.0)
    }
}

/// The animated properties of one bone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Channel {
    /// Index into the skeleton's bones.
    pub bone: usize,
    /// Local translation keys (empty: keep the rest translation).
    pub translation: Track<Vec3>,
    /// Local rotation keys (empty: keep the rest rotation).
    pub rotation: Track<Quat>,
    /// Local scale keys (empty: keep the rest scale).
    pub scale: Track<Vec3>,
}

impl Channel {
    /// Appends one key of all three tracks at `time` (what dense, frame-by-frame formats
    /// store).
    ///
    /// ```
    /// use meshfmt_core::{Channel, Transform};
    /// let mut c = Channel::default();
    /// c.push_key(0.5, &Transform::IDENTITY);
    /// assert_eq!(c.translation.times, [0.5]);
    /// assert_eq!((c.rotation.values.len(), c.scale.values.len()), (1, 1));
    /// ```
    pub fn push_key(&mut self, time: f32, t: &Transform) {
        self.translation.times.push(time);
        self.translation.values.push(t.translation);
        self.rotation.times.push(time);
        self.rotation.values.push(t.rotation);
        self.scale.times.push(time);
        self.scale.values.push(t.scale);
    }
}

/// A timed event of a clip: what a file attaches at a moment of an animation (a sound,
/// a footstep, an object taken in a hand), as key/value properties, on one bone's track
/// or on the whole clip. The Sims Online's `.anim` stores these as timed property lists
/// ("timeprops") per motion; glTF carries them in the animation's `extras`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClipEvent {
    /// When, in seconds from the clip's start.
    pub time: f32,
    /// The bone whose track carries it, if any.
    pub bone: Option<usize>,
    /// Its properties, in order (a key may repeat).
    pub props: Vec<(String, String)>,
}

impl ClipEvent {
    /// The properties as one line, `key=value;key=value` (what Blender's add-on names a
    /// pose marker).
    ///
    /// ```
    /// use meshfmt_core::ClipEvent;
    /// let e = ClipEvent { time: 0.5, bone: None, props: vec![("sound".into(), "step".into()), ("foot".into(), "l".into())] };
    /// assert_eq!(e.label(), "sound=step;foot=l");
    /// ```
    pub fn label(&self) -> String {
        self.props
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(";")
    }

    /// Heap bytes of a copy (the property strings).
    pub fn heap_bytes(&self) -> u64 {
        self.props.iter().fold(
            (self.props.len() as u64).saturating_mul(size_of::<(String, String)>() as u64),
            |n, (k, v)| n.saturating_add((k.len() + v.len()) as u64),
        )
    }
}

/// A named animation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Clip {
    /// Clip name.
    pub name: String,
    /// One channel per animated bone.
    pub channels: Vec<Channel>,
    /// Timed events, in time order.
    pub events: Vec<ClipEvent>,
}

impl Clip {
    /// Length in seconds: the last key time over all tracks.
    pub fn duration(&self) -> f32 {
        self.channels
            .iter()
            .flat_map(|c| {
                [
                    c.translation.end_time(),
                    c.rotation.end_time(),
                    c.scale.end_time(),
                ]
            })
            .fold(0.0, f32::max)
    }

    /// The most keys any one track has (the frame count of frame-based formats).
    pub fn max_keys(&self) -> usize {
        self.channels
            .iter()
            .flat_map(|c| {
                [
                    c.translation.times.len(),
                    c.rotation.times.len(),
                    c.scale.times.len(),
                ]
            })
            .max()
            .unwrap_or(0)
    }

    /// True when every key of every track lies on the grid `k / fps` (within 1e-4 of
    /// a frame), so sampling at those frame times loses nothing.
    pub fn is_on_grid(&self, fps: f32) -> bool {
        let on = |t: &f32| {
            let f = t * fps;
            (f - f.round()).abs() <= 1e-4 * f.abs().max(1.0)
        };
        self.channels.iter().all(|c| {
            c.translation.times.iter().all(on)
                && c.rotation.times.iter().all(on)
                && c.scale.times.iter().all(on)
        })
    }

    /// How many frames at `fps` cover [`Clip::duration`] (at least one; `u64::MAX` for a
    /// duration too long to count; one for an `fps` that is not a positive number).
    pub fn frame_count(&self, fps: f32) -> u64 {
        if !(fps.is_finite() && fps > 0.0) {
            return 1;
        }
        let last = (f64::from(self.duration()) * f64::from(fps)).round();
        if last.is_nan() || last <= 0.0 {
            1
        } else if last >= 9.0e15 {
            u64::MAX
        } else {
            last as u64 + 1
        }
    }

    /// Frame times `0, 1/fps, 2/fps, ...` covering [`Clip::duration`] (at least one), for
    /// resampling into a frame-based format. The frames are charged to `budget` first, at
    /// `bytes_per_frame` each (what the caller stores per frame, e.g. a key per channel)
    /// plus the time itself, so the frame count comes from what the budget allows and a
    /// clip whose last key says 1e20 s is refused instead of resampled.
    ///
    /// ```
    /// use meshfmt_core::{glam::Vec3, Budget, Channel, Clip, Limits, Track};
    /// let mut clip = Clip::default();
    /// clip.channels.push(Channel {
    ///     translation: Track::from_keys([(0.0, Vec3::ZERO), (0.1, Vec3::X)]),
    ///     ..Default::default()
    /// });
    /// assert_eq!(clip.frame_times(30.0, &Budget::default(), 12)?.len(), 4);
    /// clip.channels[0].translation.times[1] = 1e20;
    /// let err = clip.frame_times(30.0, &Budget::default(), 12).unwrap_err();
    /// assert_eq!(err.what, "resampled frames");
    /// # Ok::<(), meshfmt_core::BudgetExceeded>(())
    /// ```
    pub fn frame_times(
        &self,
        fps: f32,
        budget: &Budget,
        bytes_per_frame: u64,
    ) -> Result<Vec<f32>, BudgetExceeded> {
        let n = self.frame_count(fps);
        if n == u64::MAX {
            // Uncountable (an infinite or astronomically late key): no budget pays for it.
            return Err(BudgetExceeded {
                what: "resampled frames",
                requested: u64::MAX,
                used: budget.used(),
                limit: budget.limits().max_alloc_bytes,
            });
        }
        budget.charge(
            "resampled frames",
            n.saturating_mul(bytes_per_frame.saturating_add(4)),
        )?;
        if !(fps.is_finite() && fps > 0.0) {
            return Ok(vec![0.0]);
        }
        // Charged above, so the count fits in memory (and in usize).
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        Ok((0..n).map(|f| f as f32 / fps).collect())
    }

    /// Heap bytes of a copy of this clip (name, channels, key times and values), what
    /// a step that copies or builds it charges to its budget. Saturating.
    ///
    /// ```
    /// use meshfmt_core::{glam::Vec3, Channel, Clip, Track};
    /// let keys = Track::from_keys([(0.0, Vec3::ZERO), (1.0, Vec3::X)]);
    /// let clip = Clip { name: "walk".into(), channels: vec![Channel { translation: keys, ..Channel::default() }], events: vec![] };
    /// assert!(clip.heap_bytes() >= 4 + 2 * 4 + 2 * 12);
    /// ```
    pub fn heap_bytes(&self) -> u64 {
        fn track<T>(t: &Track<T>) -> u64 {
            (t.times.len() as u64)
                .saturating_mul(4)
                .saturating_add((t.values.len() as u64).saturating_mul(size_of::<T>() as u64))
        }
        let events = self.events.iter().fold(
            (self.events.len() as u64).saturating_mul(size_of::<ClipEvent>() as u64),
            |n, e| n.saturating_add(e.heap_bytes()),
        );
        self.channels.iter().fold(
            (self.name.len() as u64)
                .saturating_add(
                    (self.channels.len() as u64).saturating_mul(size_of::<Channel>() as u64),
                )
                .saturating_add(events),
            |n, ch| {
                n.saturating_add(track(&ch.translation))
                    .saturating_add(track(&ch.rotation))
                    .saturating_add(track(&ch.scale))
            },
        )
    }

    /// The pose at `time`: every bone starts at its rest transform and animated
    /// components are replaced by the sampled values. Channels naming bones outside
    /// the skeleton are ignored.
    pub fn sample(&self, skeleton: &Skeleton, time: f32) -> Pose {
        let mut locals: Vec<Transform> = skeleton.bones.iter().map(|b| b.rest).collect();
        for c in &self.channels {
            let Some(local) = locals.get_mut(c.bone) else {
                continue;
            };
            *local = local.sampled(
                (Some(&c.translation), Some(&c.rotation), Some(&c.scale)),
                time,
            );
        }
        Pose { locals }
    }
}

/// Local transforms of every bone at one instant.
#[derive(Debug, Clone, PartialEq)]
pub struct Pose {
    /// `locals[i]` is bone `i`'s transform relative to its parent.
    pub locals: Vec<Transform>,
}

impl Pose {
    /// The rest pose of `skeleton`.
    pub fn rest(skeleton: &Skeleton) -> Pose {
        Pose {
            locals: skeleton.bones.iter().map(|b| b.rest).collect(),
        }
    }

    /// Model-space matrix of every bone.
    pub fn world_matrices(&self, skeleton: &Skeleton) -> Vec<Mat4> {
        skeleton.world_matrices_for(&self.locals)
    }

    /// Skinning matrices: `world[i] * inverse_bind[i]`.
    pub fn joint_matrices(&self, skeleton: &Skeleton) -> Vec<Mat4> {
        self.world_matrices(skeleton)
            .into_iter()
            .zip(skeleton.inverse_bind_matrices())
            .map(|(w, ib)| w * ib)
            .collect()
    }
}

#[cfg(test)]
#[path = "tests/animation.rs"]
mod tests;
