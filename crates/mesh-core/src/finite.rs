//! Replacing NaN and infinite values, for targets that can only hold finite numbers.

use glam::{Quat, Vec2, Vec3, Vec4};

use crate::loss::{Feature, Loss, LossKind};
use crate::model::Model;

/// Counts and replaces non-finite values.
#[derive(Default)]
struct Fixer {
    counts: [usize; Feature::ALL.len()],
}

impl Fixer {
    fn count(&mut self, feature: Feature, n: usize) {
        if let Some(i) = Feature::ALL.iter().position(|f| *f == feature) {
            self.counts[i] += n;
        }
    }

    fn vec2(&mut self, f: Feature, v: &mut [Vec2], default: Vec2) {
        let n = v
            .iter_mut()
            .filter(|x| !x.is_finite())
            .map(|x| *x = default)
            .count();
        self.count(f, n);
    }

    fn vec3(&mut self, f: Feature, v: &mut [Vec3], default: Vec3) {
        let n = v
            .iter_mut()
            .filter(|x| !x.is_finite())
            .map(|x| *x = default)
            .count();
        self.count(f, n);
    }

    fn vec4(&mut self, f: Feature, v: &mut [Vec4], default: Vec4) {
        let n = v
            .iter_mut()
            .filter(|x| !x.is_finite())
            .map(|x| *x = default)
            .count();
        self.count(f, n);
    }

    fn quat(&mut self, f: Feature, v: &mut [Quat]) {
        let n = v
            .iter_mut()
            .filter(|x| !x.is_finite())
            .map(|x| *x = Quat::IDENTITY)
            .count();
        self.count(f, n);
    }

    /// Drops the keys whose time is not finite (a key cannot be placed at NaN), with
    /// their values; a track whose values do not match its times is left to the writer.
    fn key_times<T>(&mut self, f: Feature, track: &mut crate::animation::Track<T>) {
        if track.times.len() != track.values.len() || track.times.iter().all(|t| t.is_finite()) {
            return;
        }
        let before = track.times.len();
        let mut keep = track.times.iter().map(|t| t.is_finite());
        track.values.retain(|_| keep.next().unwrap_or(false));
        track.times.retain(|t| t.is_finite());
        self.count(f, before - track.times.len());
    }

    fn scalar(&mut self, f: Feature, v: &mut f32, default: f32) {
        if !v.is_finite() {
            *v = default;
            self.count(f, 1);
        }
    }
}

impl Model {
    /// Replaces every NaN or infinite value with a neutral one (a zero coordinate, an
    /// identity rotation, a unit scale, a zero weight, a default material factor; a
    /// non-finite inverse bind matrix is dropped so the rest pose's is used) and returns
    /// one [`Loss`] per feature that had any, with the count; a key at a non-finite time
    /// is dropped with its value (counted the same way). Formats that hold only finite
    /// numbers (glTF's JSON has no NaN) call this before writing, and the `meshfmt`
    /// conversion calls it for every target.
    ///
    /// ```
    /// use meshfmt_core::{glam::Vec3, Model, Surface};
    /// let mut m = Model::default();
    /// m.surfaces.push(Surface { positions: vec![Vec3::new(f32::NAN, 0.0, 1.0), Vec3::ONE], ..Default::default() });
    /// let losses = m.replace_non_finite();
    /// assert_eq!(m.surfaces[0].positions[0], Vec3::ZERO);
    /// assert_eq!(losses.len(), 1);
    /// assert!(losses[0].reason.contains("1 non-finite"));
    /// ```
    pub fn replace_non_finite(&mut self) -> Vec<Loss> {
        let mut fx = Fixer::default();
        for s in &mut self.surfaces {
            fx.vec3(Feature::Geometry, &mut s.positions, Vec3::ZERO);
            fx.vec3(Feature::Normals, &mut s.normals, Vec3::ZERO);
            fx.vec4(
                Feature::Tangents,
                &mut s.tangents,
                Vec4::new(1.0, 0.0, 0.0, 1.0),
            );
            fx.vec2(Feature::Uv0, &mut s.uv0, Vec2::ZERO);
            fx.vec2(Feature::Uv1, &mut s.uv1, Vec2::ZERO);
            fx.vec4(Feature::Colors, &mut s.colors, Vec4::ONE);
            for v in &mut s.skin {
                for w in &mut v.weights {
                    fx.scalar(Feature::Skin, w, 0.0);
                }
            }
            for t in &mut s.morph_targets {
                fx.vec3(Feature::MorphTargets, &mut t.positions, Vec3::ZERO);
                fx.vec3(Feature::MorphTargets, &mut t.normals, Vec3::ZERO);
            }
        }
        for b in &mut self.skeleton.bones {
            fx.vec3(
                Feature::Skeleton,
                std::slice::from_mut(&mut b.rest.translation),
                Vec3::ZERO,
            );
            fx.quat(
                Feature::Skeleton,
                std::slice::from_mut(&mut b.rest.rotation),
            );
            fx.vec3(
                Feature::Skeleton,
                std::slice::from_mut(&mut b.rest.scale),
                Vec3::ONE,
            );
            if b.inverse_bind.is_some_and(|m| !m.is_finite()) {
                b.inverse_bind = None;
                fx.count(Feature::Skeleton, 1);
            }
        }
        for clip in &mut self.animations {
            for c in &mut clip.channels {
                fx.key_times(Feature::Animation, &mut c.translation);
                fx.key_times(Feature::Animation, &mut c.rotation);
                fx.key_times(Feature::Animation, &mut c.scale);
                fx.vec3(Feature::Animation, &mut c.translation.values, Vec3::ZERO);
                fx.quat(Feature::Animation, &mut c.rotation.values);
                fx.vec3(Feature::Animation, &mut c.scale.values, Vec3::ONE);
            }
            let before = clip.events.len();
            clip.events.retain(|e| e.time.is_finite());
            fx.count(Feature::Animation, before - clip.events.len());
        }
        for m in &mut self.materials {
            fx.vec4(
                Feature::Materials,
                std::slice::from_mut(&mut m.base_color),
                Vec4::ONE,
            );
            fx.scalar(Feature::Materials, &mut m.metallic, 1.0);
            fx.scalar(Feature::Materials, &mut m.roughness, 1.0);
            fx.vec3(
                Feature::Materials,
                std::slice::from_mut(&mut m.emissive),
                Vec3::ZERO,
            );
        }
        Feature::ALL
            .iter()
            .zip(fx.counts)
            .filter(|(_, n)| *n > 0)
            .map(|(&feature, n)| Loss {
                feature,
                kind: LossKind::Reduced,
                path: String::new(),
                reason: format!("{n} non-finite values (NaN or infinite) replaced by neutral ones"),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::animation::{Channel, Clip, Track};
    use crate::{Feature, Model};
    use glam::Vec3;

    /// A key at a NaN time goes with its value; the count is reported under animation.
    #[test]
    fn keys_at_non_finite_times_are_dropped_with_their_values() {
        let mut m = Model::default();
        m.animations.push(Clip {
            events: Vec::new(),
            name: "c".into(),
            channels: vec![Channel {
                bone: 0,
                translation: Track {
                    times: vec![0.0, f32::NAN, 1.0, f32::INFINITY],
                    values: vec![Vec3::X, Vec3::Y, Vec3::Z, Vec3::ONE],
                    ..Default::default()
                },
                ..Default::default()
            }],
        });
        let losses = m.replace_non_finite();
        let t = &m.animations[0].channels[0].translation;
        assert_eq!(t.times, [0.0, 1.0]);
        assert_eq!(t.values, [Vec3::X, Vec3::Z]);
        assert_eq!(losses.len(), 1);
        assert_eq!(losses[0].feature, Feature::Animation);
        assert!(
            losses[0].reason.starts_with("2 non-finite"),
            "{}",
            losses[0].reason
        );
    }
}
