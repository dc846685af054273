//! The meshfmt-core format contract ([`FORMAT`]), for tools that iterate formats.

use std::any::Any;

use meshfmt_core::format::{Context, Format, FormatError, FormatFile, FormatInfo, Written, boxed};
use meshfmt_core::{ClipSummary, Converted, Counts, Model, Summary};
use unigine_common::summary::hierarchy;

use crate::versions::{VERSION_INFO, VERSIONS};
use crate::{AnimFile, CoreOptions, Error, FORMAT_NAME, ReadOptions, WriteOptions};

/// What UNIGINE animations are, as data: every version of the crate's version table
/// (which a test holds this description and these extensions to), the default (an10)
/// first.
///
/// ```
/// let info = &unigine_anim::FORMAT_INFO;
/// assert_eq!(info.version_for_extension("sanim"), Some("as08"));
/// assert_eq!(info.versions[0].name, "an10");
/// ```
pub static FORMAT_INFO: FormatInfo = FormatInfo {
    name: FORMAT_NAME,
    description: "UNIGINE animation (as08 .sanim, an10, an11, an12)",
    extensions: &["anim", "sanim"],
    versions: &VERSION_INFO,
    ..FormatInfo::DEFAULT
};

/// UNIGINE animations (every version) as a [`Format`].
///
/// ```
/// use meshfmt_core::format::{Context, Format};
/// let f = &unigine_anim::FORMAT;
/// let model = meshfmt_core::canonical::skinned_arm();
/// let file = f.from_core(&model, &Context::new("bend.anim"))?.value;
/// assert_eq!(file.version(), "an10");
/// let bytes = file.write(&Context::new("bend.anim"))?.main;
/// let back = f.read(&bytes, &Context::new("bend.anim"))?;
/// assert_eq!(back.summary(&Context::new("bend.anim"))?.counts.animations, 1);
/// # Ok::<(), meshfmt_core::format::FormatError>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct UnigineAnim;

/// The format, for registries.
pub const FORMAT: UnigineAnim = UnigineAnim;

meshfmt_core::format_error_from!(
    Error,
    crate::FORMAT_NAME,
    Error::UnsupportedVersion(v) => FormatError::Unsupported {
        format: crate::FORMAT_NAME,
        message: format!("unsupported UNIGINE animation version {v}"),
    },
    e @ Error::NotAnAnimation(_) => FormatError::not_this_format(crate::FORMAT_NAME, e.to_string()),
);

/// An animation file needs bones to animate.
fn needs_skeleton(model: &Model) -> Result<(), FormatError> {
    if model.skeleton.is_empty() {
        return Err(FormatError::Invalid {
            format: crate::FORMAT_NAME,
            message: "the model has no skeleton or animation to write".into(),
        });
    }
    Ok(())
}

impl Format for UnigineAnim {
    fn info(&self) -> &'static FormatInfo {
        &FORMAT_INFO
    }

    fn sniff(&self, data: &[u8]) -> bool {
        crate::sniff(data)
    }

    fn read(&self, data: &[u8], cx: &Context<'_>) -> Result<Box<dyn FormatFile>, FormatError> {
        let options = ReadOptions {
            budget: cx.budget.clone(),
        };
        Ok(Box::new(crate::read_with(data, &options)?))
    }

    fn from_core(
        &self,
        model: &Model,
        cx: &Context<'_>,
    ) -> Result<Converted<Box<dyn FormatFile>>, FormatError> {
        cx.refuse_quality(FORMAT_NAME, "UNIGINE animations quantize one way")?;
        needs_skeleton(model)?;
        let options = WriteOptions {
            version: VERSIONS.to_write(FORMAT_NAME, cx)?,
            budget: cx.budget.clone(),
            ..WriteOptions::default()
        };
        Ok(boxed(AnimFile::from_core_with(model, &options)?))
    }
}

impl FormatFile for AnimFile {
    fn format(&self) -> &'static str {
        crate::FORMAT_NAME
    }

    fn version(&self) -> String {
        AnimFile::version(self).to_string()
    }

    /// What the file stores, read from the faithful types (no conversion): the bone
    /// hierarchy and every clip with its frames at 30 fps (an12: its stored fps). Counts:
    /// bones, animations, frames summed over animations (an11 and an12 files hold one
    /// clip each).
    fn summary(&self, cx: &Context<'_>) -> Result<Summary, FormatError> {
        let fps = crate::DEFAULT_FPS;
        let (bones, animations, frames) = match self {
            AnimFile::An10(a) => (
                a.bones.len(),
                a.animations.len() as u64,
                a.animations.iter().map(|x| u64::from(x.num_frames)).sum(),
            ),
            AnimFile::As08(a) => (
                a.bones.len(),
                u64::from(a.num_frames > 0),
                u64::from(a.num_frames),
            ),
            AnimFile::An11(a) => (a.bones.len(), 1, u64::from(a.num_frames)),
            AnimFile::An12(a) => (a.joints.len(), 1, u64::from(a.num_frames)),
        };
        let (skeleton, clips) = match self {
            AnimFile::An10(a) => (
                hierarchy(a.bones.iter().map(|b| (&b.name, i32::from(b.parent)))),
                a.animations
                    .iter()
                    .map(|x| {
                        ClipSummary::frames(
                            x.name.to_string_lossy(),
                            u64::from(x.num_frames),
                            fps,
                            x.bones.len() as u64,
                        )
                    })
                    .collect(),
            ),
            AnimFile::As08(a) => (
                hierarchy(a.bones.iter().map(|b| (&b.name, b.parent))),
                (a.num_frames > 0)
                    .then(|| {
                        ClipSummary::frames("", u64::from(a.num_frames), fps, a.bones.len() as u64)
                    })
                    .into_iter()
                    .collect(),
            ),
            AnimFile::An11(a) => (
                hierarchy(a.bones.iter().map(|b| (&b.name, i32::from(b.parent)))),
                vec![ClipSummary::frames(
                    "",
                    u64::from(a.num_frames),
                    fps,
                    a.anim_bones.len() as u64,
                )],
            ),
            AnimFile::An12(a) => (
                hierarchy(a.joints.iter().map(|b| (&b.name, i32::from(b.parent)))),
                vec![ClipSummary::frames(
                    "",
                    u64::from(a.num_frames),
                    a.effective_fps(fps),
                    a.anim_bones.len() as u64,
                )],
            ),
        };
        // What the summary holds: the roots' names and a line per clip.
        let held = skeleton
            .as_ref()
            .map_or(0, |k| k.roots.iter().map(|r| r.len() + 24).sum::<usize>())
            + clips.iter().map(|c| c.name.len() + 64).sum::<usize>();
        cx.budget.charge("summary", held as u64)?;
        Ok(Summary {
            format: crate::FORMAT_NAME.into(),
            version: AnimFile::version(self).into(),
            counts: Counts {
                bones: bones as u64,
                animations,
                frames,
                ..Counts::default()
            },
            skeleton,
            animations: clips,
            ..Summary::default()
        })
    }

    fn write(&self, cx: &Context<'_>) -> Result<Written, FormatError> {
        Written::charged(AnimFile::write(self)?, &cx.budget)
    }

    fn to_core(&self, cx: &Context<'_>) -> Result<Converted<Model>, FormatError> {
        let options = CoreOptions {
            budget: cx.budget.clone(),
            ..CoreOptions::default()
        };
        Ok(self.to_core_with(&options)?)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
