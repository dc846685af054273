//! The choices of the one API shape's entry points: [`CoreOptions`] for `to_core_with`
//! (the skeleton a mesh is posed by, where an appearance's files come from, the frame
//! rate), [`WriteOptions`] for `from_core_with` (the kind of file, a skeleton's name,
//! the frame rate), and [`Assets`], the loose-file finder of an appearance. A leaf
//! module: the conversions take their options from here.

use meshfmt_core::Budget;

use crate::Kind;
use crate::companions::AssetRef;
use crate::error::Result;
use crate::skel::Skel;

/// Frames per second of TSO animations (NIO and FreeSO play them at 30).
pub const FPS: f32 = 30.0;

/// The name [`VitaboyFile::from_core_with`](crate::VitaboyFile::from_core_with) gives a
/// `.skel` unless told otherwise (what the `meshfmt` tool writes).
pub const DEFAULT_SKELETON_NAME: &str = "skeleton";

/// Choices for `to_core_with` ([`Mesh`](crate::Mesh), [`Skel`], [`Anim`](crate::Anim),
/// [`VitaboyFile`](crate::VitaboyFile), [`Appearance`](crate::companions::Appearance)).
///
/// ```
/// use meshfmt_core::canonical;
/// use niotso_mesh::{Anim, Budget, CoreOptions, Limits, Skel, WriteOptions};
/// let arm = canonical::skinned_arm();
/// // One budget for a whole pipeline; animations sampled at 15 frames per second.
/// let budget = Budget::new(Limits::DEFAULT);
/// let write = WriteOptions { fps: 15.0, skeleton_name: "arm".into(), budget: budget.clone(), ..Default::default() };
/// let skel = Skel::from_core_with(&arm, &write)?.value;
/// let anim = Anim::from_core_with(&arm, &write)?.value;
/// let core = CoreOptions { skeleton: Some(&skel), fps: 15.0, budget: budget.clone(), ..Default::default() };
/// let back = anim.to_core_with(&core)?.value;
/// let frames = anim.frames() as usize;
/// assert_eq!(back.animations[0].channels[0].rotation.times[frames - 1], (frames - 1) as f32 / 15.0);
/// assert!(budget.used() > 0);
/// # Ok::<(), niotso_mesh::Error>(())
/// ```
#[derive(Clone)]
pub struct CoreOptions<'a> {
    /// The `.skel` a mesh is posed by and an animation's channels name (`None`: bones
    /// at the origin, a flat skeleton of the names the file holds).
    pub skeleton: Option<&'a Skel>,
    /// Where an appearance's bindings, meshes and textures come from (`None`: every
    /// binding is reported missing).
    pub assets: Option<&'a dyn Assets>,
    /// Store UVs bottom-up (`v' = 1 - v`, for OpenGL, glTF, Blender) instead of as the
    /// file has them (top-down).
    pub flip_v: bool,
    /// Frames per second of animations: frame `f` is at `f / fps` ([`FPS`] by default).
    pub fps: f32,
    /// The operation's budget (clones share it; the default is a fresh one of
    /// [`Limits::DEFAULT`](crate::Limits)).
    pub budget: Budget,
}

impl Default for CoreOptions<'_> {
    fn default() -> Self {
        CoreOptions {
            skeleton: None,
            assets: None,
            flip_v: false,
            fps: FPS,
            budget: Budget::default(),
        }
    }
}

impl std::fmt::Debug for CoreOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoreOptions")
            .field("skeleton", &self.skeleton.map(|s| s.bones.len()))
            .field("assets", &self.assets.is_some())
            .field("flip_v", &self.flip_v)
            .field("fps", &self.fps)
            .field("budget", &self.budget.used())
            .finish()
    }
}

/// Choices for `from_core_with` and `write_with`.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// The kind [`VitaboyFile::from_core_with`](crate::VitaboyFile::from_core_with)
    /// writes (a `.mesh` by default).
    pub kind: Kind,
    /// Name of a `.skel` made from a model ([`DEFAULT_SKELETON_NAME`] by default).
    pub skeleton_name: String,
    /// The model's UVs are bottom-up (`v' = 1 - v` back to the file's top-down).
    pub flip_v: bool,
    /// Frames per second a clip is sampled at ([`FPS`] by default).
    pub fps: f32,
    /// The operation's budget (clones share it; the default is a fresh one of
    /// [`Limits::DEFAULT`](crate::Limits)).
    pub budget: Budget,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            kind: Kind::Mesh,
            skeleton_name: DEFAULT_SKELETON_NAME.into(),
            flip_v: false,
            fps: FPS,
            budget: Budget::default(),
        }
    }
}

/// A companion file found by [`Assets::find`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asset {
    /// Its file name (no folder), for reports and path textures.
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// Where an appearance's bindings, meshes and textures come from.
pub trait Assets {
    /// The file of `asset` with one of `extensions` (lower case, no dot), or `None`
    /// when there is none. Implementations charge what they read to the operation's
    /// budget ([`Error::OverBudget`](crate::Error::OverBudget)) and report reading failures as [`Error::Io`](crate::Error::Io).
    fn find(&self, asset: AssetRef, extensions: &[&str]) -> Result<Option<Asset>>;
}
