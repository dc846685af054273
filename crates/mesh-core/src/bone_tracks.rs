//! A clip's tracks gathered per bone, so that sampling every bone at every frame costs
//! one step per bone and frame however many channels the clip has.

use glam::{Quat, Vec3};

use crate::animation::{Clip, Track};
use crate::skeleton::Transform;

/// Per bone, the tracks [`Clip::sample`] would apply: for each kind, the last channel's
/// non-empty track (later channels override earlier ones).
#[derive(Debug, Clone, Copy, Default)]
pub struct BoneTracks<'a> {
    /// Translation track.
    pub translation: Option<&'a Track<Vec3>>,
    /// Rotation track.
    pub rotation: Option<&'a Track<Quat>>,
    /// Scale track.
    pub scale: Option<&'a Track<Vec3>>,
}

impl<'a> BoneTracks<'a> {
    /// The tracks of each of `bones` bones; channels for bones outside that range are
    /// ignored, as [`Clip::sample`] ignores them.
    pub fn of_clip(clip: &'a Clip, bones: usize) -> Vec<BoneTracks<'a>> {
        fn used<T>(t: &Track<T>) -> bool {
            t.times.len().min(t.values.len()) > 0
        }
        let mut out = vec![BoneTracks::default(); bones];
        for c in &clip.channels {
            if let Some(b) = out.get_mut(c.bone) {
                if used(&c.translation) {
                    b.translation = Some(&c.translation);
                }
                if used(&c.rotation) {
                    b.rotation = Some(&c.rotation);
                }
                if used(&c.scale) {
                    b.scale = Some(&c.scale);
                }
            }
        }
        out
    }

    /// [`Clip::sample`] for this bone: `rest` with each tracked part replaced by its
    /// value at `time` (rotations normalized).
    pub fn sample(&self, rest: Transform, time: f32) -> Transform {
        let mut local = rest;
        if let Some(t) = self.translation.and_then(|t| t.sample(time)) {
            local.translation = t;
        }
        if let Some(r) = self.rotation.and_then(|t| t.sample(time)) {
            local.rotation = r.normalize();
        }
        if let Some(s) = self.scale.and_then(|t| t.sample(time)) {
            local.scale = s;
        }
        local
    }
}
