//! What a conversion could not carry over, so nothing is dropped silently.

use std::fmt;

/// A feature of a model, as the conformance matrix reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Feature {
    /// Positions and triangles.
    Geometry,
    /// Vertex normals.
    Normals,
    /// Vertex tangents.
    Tangents,
    /// First UV set.
    Uv0,
    /// Second UV set.
    Uv1,
    /// Vertex colors.
    Colors,
    /// Joint influences.
    Skin,
    /// Bone hierarchy.
    Skeleton,
    /// Animation clips.
    Animation,
    /// Blend shapes.
    MorphTargets,
    /// Materials.
    Materials,
    /// Textures.
    Textures,
    /// Names of surfaces, bones, clips.
    Names,
}

impl Feature {
    /// Every feature, in report order.
    pub const ALL: [Feature; 13] = [
        Feature::Geometry,
        Feature::Normals,
        Feature::Tangents,
        Feature::Uv0,
        Feature::Uv1,
        Feature::Colors,
        Feature::Skin,
        Feature::Skeleton,
        Feature::Animation,
        Feature::MorphTargets,
        Feature::Materials,
        Feature::Textures,
        Feature::Names,
    ];

    /// Lower-case name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Feature::Geometry => "geometry",
            Feature::Normals => "normals",
            Feature::Tangents => "tangents",
            Feature::Uv0 => "uv0",
            Feature::Uv1 => "uv1",
            Feature::Colors => "colors",
            Feature::Skin => "skin",
            Feature::Skeleton => "skeleton",
            Feature::Animation => "animation",
            Feature::MorphTargets => "morph targets",
            Feature::Materials => "materials",
            Feature::Textures => "textures",
            Feature::Names => "names",
        }
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a feature was affected.
#[derive(Debug, Clone, PartialEq)]
pub enum LossKind {
    /// The target cannot hold it at all.
    Dropped,
    /// Kept, but quantized; values are within `max_error` (absolute, in the feature's
    /// own units) of the originals.
    Quantized {
        /// Worst-case absolute error.
        max_error: f32,
    },
    /// Kept partly (e.g. 8 influences cut to 4, names truncated).
    Reduced,
}

/// One loss: which feature, how, where and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Loss {
    /// The feature affected.
    pub feature: Feature,
    /// How.
    pub kind: LossKind,
    /// Where, e.g. `surfaces[1]` (empty for the whole model).
    pub path: String,
    /// Why, in words, e.g. "unity-meshser has no skin".
    pub reason: String,
}

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = match &self.kind {
            LossKind::Dropped => "dropped".to_string(),
            LossKind::Quantized { max_error } => format!("quantized (error <= {max_error:e})"),
            LossKind::Reduced => "reduced".to_string(),
        };
        if self.path.is_empty() {
            write!(f, "{} {how}: {}", self.feature, self.reason)
        } else {
            write!(
                f,
                "{} {how} at {}: {}",
                self.feature, self.path, self.reason
            )
        }
    }
}

/// A conversion's result and everything it lost.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted<T> {
    /// The converted value.
    pub value: T,
    /// Losses, in the order they were found; empty for a lossless conversion.
    pub losses: Vec<Loss>,
}

impl<T> Converted<T> {
    /// A lossless result.
    pub fn exact(value: T) -> Self {
        Converted {
            value,
            losses: Vec::new(),
        }
    }

    /// True when nothing was lost.
    pub fn is_lossless(&self) -> bool {
        self.losses.is_empty()
    }

    /// Records a loss.
    pub fn lose(
        &mut self,
        feature: Feature,
        kind: LossKind,
        path: impl Into<String>,
        reason: impl Into<String>,
    ) {
        self.losses.push(Loss {
            feature,
            kind,
            path: path.into(),
            reason: reason.into(),
        });
    }

    /// Records [`LossKind::Dropped`] (for the whole model, no path) for each
    /// `(present, feature, reason)` whose `present` is true: a writer's table of what
    /// its format cannot hold, each entry saying whether the model has it.
    ///
    /// ```
    /// use meshfmt_core::{Converted, Feature, Model};
    /// let model = meshfmt_core::Model { name: "arm".into(), ..Model::default() };
    /// let mut out = Converted::exact(());
    /// out.drop_present([
    ///     (!model.skeleton.is_empty(), Feature::Skeleton, "x has no skeleton"),
    ///     (!model.name.is_empty(), Feature::Names, "x stores no names"),
    /// ]);
    /// assert_eq!(out.losses.len(), 1);
    /// assert_eq!(out.losses[0].to_string(), "names dropped: x stores no names");
    /// ```
    pub fn drop_present<'r>(&mut self, table: impl IntoIterator<Item = (bool, Feature, &'r str)>) {
        self.drop_present_at("", table);
    }

    /// Records that clip `index` is stored resampled at `fps` frames per second, unless
    /// its keys already sit on that grid (what frame-by-frame formats do to a clip).
    ///
    /// ```
    /// use meshfmt_core::{Clip, Converted};
    /// let mut out = Converted::exact(());
    /// out.note_resampled(&Clip::default(), 0, 30.0);
    /// assert!(out.losses.is_empty());
    /// ```
    pub fn note_resampled(&mut self, clip: &crate::Clip, index: usize, fps: f32) {
        if !clip.is_on_grid(fps) {
            self.lose(
                Feature::Animation,
                LossKind::Reduced,
                format!("animations[{index}]"),
                format!("keys resampled at {fps} frames per second"),
            );
        }
    }

    /// Records that a format holding one animation (`format`, as named in the reason)
    /// drops all but the first of `clips`; nothing for one clip or none.
    ///
    /// ```
    /// let mut out = meshfmt_core::Converted::exact(());
    /// out.keep_one_clip(3, "an11");
    /// assert_eq!(out.losses[0].to_string(), "animation dropped: an11 holds one animation; 2 more dropped");
    /// out.keep_one_clip(1, "an11");
    /// assert_eq!(out.losses.len(), 1);
    /// ```
    pub fn keep_one_clip(&mut self, clips: usize, format: &str) {
        if clips > 1 {
            self.lose(
                Feature::Animation,
                LossKind::Dropped,
                "",
                format!("{format} holds one animation; {} more dropped", clips - 1),
            );
        }
    }

    /// Records [`LossKind::Dropped`] (whole model, no path) for each `(feature,
    /// reason)` that `model` [has](crate::Model::has): the table of what a format
    /// cannot hold, when "has" means what [`Model::has`](crate::Model::has) says (use
    /// [`Converted::drop_present`] for a narrower test).
    ///
    /// ```
    /// use meshfmt_core::{Converted, Feature, Model, Surface, VertexInfluences};
    /// let arm = Model {
    ///     surfaces: vec![Surface { skin: vec![VertexInfluences::single(0)], ..Surface::default() }],
    ///     ..Model::default()
    /// };
    /// let mut out = Converted::exact(());
    /// out.drop_features(&arm, [
    ///     (Feature::Skin, "OBJ has no skins"),
    ///     (Feature::Uv1, "OBJ has one UV set"),
    /// ]);
    /// assert_eq!(out.losses.len(), 1);
    /// assert_eq!(out.losses[0].feature, Feature::Skin);
    /// ```
    pub fn drop_features<'r>(
        &mut self,
        model: &crate::Model,
        table: impl IntoIterator<Item = (Feature, &'r str)>,
    ) {
        self.drop_present(
            table
                .into_iter()
                .map(|(feature, reason)| (model.has(feature), feature, reason)),
        );
    }

    /// [`Converted::drop_present`] for one part of the model (`surfaces[2]`).
    ///
    /// ```
    /// use meshfmt_core::{Converted, Feature};
    /// let mut out = Converted::exact(());
    /// out.drop_present_at("surfaces[0]", [(true, Feature::Colors, "no colors")]);
    /// assert_eq!(out.losses[0].to_string(), "colors dropped at surfaces[0]: no colors");
    /// ```
    pub fn drop_present_at<'r>(
        &mut self,
        path: &str,
        table: impl IntoIterator<Item = (bool, Feature, &'r str)>,
    ) {
        for (present, feature, reason) in table {
            if present {
                self.lose(feature, LossKind::Dropped, path, reason);
            }
        }
    }

    /// Records, for each clip of `model` with events, that `format` (as named in the
    /// reason) stores none: what every writer without clip events reports.
    ///
    /// ```
    /// use meshfmt_core::{Clip, ClipEvent, Converted, Model};
    /// let mut m = Model::default();
    /// m.animations.push(Clip { name: "walk".into(), events: vec![ClipEvent::default(); 2], ..Clip::default() });
    /// let mut out = Converted::exact(());
    /// out.drop_events(&m, "an10");
    /// assert_eq!(out.losses[0].to_string(), "animation dropped at animations[0]: 2 events (timed properties) dropped: an10 stores none");
    /// ```
    pub fn drop_events(&mut self, model: &crate::Model, format: &str) {
        for (i, clip) in model.animations.iter().enumerate() {
            self.drop_clip_events(clip, i, format);
        }
    }

    /// [`drop_events`](Self::drop_events) for one clip, `animations[index]`, for writers
    /// that convert clip by clip.
    pub fn drop_clip_events(&mut self, clip: &crate::Clip, index: usize, format: &str) {
        if !clip.events.is_empty() {
            self.lose(
                Feature::Animation,
                LossKind::Dropped,
                format!("animations[{index}]"),
                format!(
                    "{} events (timed properties) dropped: {format} stores none",
                    clip.events.len()
                ),
            );
        }
    }

    /// Maps the value, keeping the losses.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Converted<U> {
        Converted {
            value: f(self.value),
            losses: self.losses,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display() {
        let mut c = Converted::exact(());
        assert!(c.is_lossless());
        c.lose(
            Feature::Skin,
            LossKind::Dropped,
            "",
            "unity-meshser has no skin",
        );
        c.lose(
            Feature::Normals,
            LossKind::Quantized { max_error: 0.0039 },
            "surfaces[0]",
            "3-byte normals",
        );
        let text: Vec<String> = c.losses.iter().map(|l| l.to_string()).collect();
        assert_eq!(
            text,
            [
                "skin dropped: unity-meshser has no skin",
                "normals quantized (error <= 3.9e-3) at surfaces[0]: 3-byte normals",
            ]
        );
        assert_eq!(c.map(|_| 1).value, 1);
    }
}
