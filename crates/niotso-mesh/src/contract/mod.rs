//! The meshfmt-core format contract ([`FORMAT`]), for tools that iterate formats.

use std::any::Any;

use meshfmt_core::format::{
    ClipFiles, Context, ErrorClass, FileKind, Format, FormatError, FormatFile, FormatInfo,
    VersionInfo, Written, boxed,
};
use meshfmt_core::{
    Attribute, ClipSummary, Converted, Counts, Feature, Model, SkeletonSummary, Summary,
    SurfaceSummary,
};

use crate::{CoreOptions, Error, Kind, ReadOptions, VitaboyFile, WriteOptions};

mod appearance;

/// The Sims Online's Vitaboy `.mesh`, `.skel` and `.anim` as one [`Format`]. The kind
/// comes from the content, else from the file name's extension (these files have no
/// magic beyond a version number). A `.mesh` converts in bone space unless the context
/// carries its `.skel` ([`Context::skeleton`]).
///
/// ```
/// use meshfmt_core::format::{boxed, Context, Format};
/// let f = &niotso_mesh::FORMAT;
/// let model = meshfmt_core::canonical::skinned_arm();
/// let skel = f.from_core(&model, &Context::new("arm.skel"))?.value.write(&Context::new("arm.skel"))?.main;
/// let mesh = f.from_core(&model, &Context::new("arm.mesh"))?.value.write(&Context::new("arm.mesh"))?.main;
/// let cx = Context { skeleton: Some(&skel), ..Context::new("arm.mesh") };
/// let back = f.read(&mesh, &cx)?.to_core(&cx)?.value;
/// assert_eq!(back.skeleton.len(), model.skeleton.len());
/// # Ok::<(), meshfmt_core::format::FormatError>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Vitaboy;

/// The format, for registries.
pub const FORMAT: Vitaboy = Vitaboy;

meshfmt_core::format_error_from!(Error, crate::FORMAT_NAME);

use Feature::{Animation, Geometry, Names, Normals, Skeleton, Skin, Textures, Uv0};

/// A `.mesh`'s clips split out (`meshfmt convert --anims-dir`): Vitaboy `.anim` files,
/// whose motions name the bones of the `.skel` written beside the mesh.
const CLIPS: ClipFiles = ClipFiles {
    clip: FileKind {
        format: crate::FORMAT_NAME,
        version: "anim",
        extension: "anim",
    },
    skeleton: Some(FileKind {
        format: crate::FORMAT_NAME,
        version: "skel",
        extension: "skel",
    }),
};

/// A character's clips split out: Vitaboy `.anim` files (the `.skel` is one of the
/// character's own files).
const CHARACTER_CLIPS: ClipFiles = ClipFiles {
    skeleton: None,
    ..CLIPS
};

/// What Vitaboy files are, as data: the three kinds as versions, each implied by its
/// extension, and `apr`: a whole character, the `.apr` appearance written with its
/// `.skel`, one `.mesh`, `.bnd` and texture per part beside it ([`crate::character`]),
/// and read back by assembling those loose files through the context's side files. A
/// `.mesh` is posed by its `.skel` and an `.anim`'s motions name its bones, so the
/// format takes a skeleton file.
///
/// ```
/// let info = &niotso_mesh::FORMAT_INFO;
/// assert_eq!(info.version_for_extension("skel"), Some("skel"));
/// assert!(info.takes_skeleton && info.clip_files(None).is_some());
/// ```
pub static FORMAT_INFO: FormatInfo = FormatInfo {
    name: crate::FORMAT_NAME,
    description: "The Sims Online Vitaboy .mesh v2, .skel v1, .anim v2, .apr characters",
    extensions: &["mesh", "skel", "anim", "apr"],
    versions: &[
        VersionInfo {
            name: "mesh",
            extension: Some("mesh"),
            holds: &[Geometry, Normals, Uv0, Skin, Skeleton],
            clip_files: Some(CLIPS),
        },
        VersionInfo {
            name: "skel",
            extension: Some("skel"),
            holds: &[Skeleton, Names],
            clip_files: None,
        },
        VersionInfo {
            name: "anim",
            extension: Some("anim"),
            holds: &[Animation],
            clip_files: None,
        },
        VersionInfo {
            name: "apr",
            extension: Some("apr"),
            holds: &[Geometry, Normals, Uv0, Skin, Skeleton, Textures, Names],
            clip_files: Some(CHARACTER_CLIPS),
        },
    ],
    takes_skeleton: true,
    ..FormatInfo::DEFAULT
};

/// The `.skel` the context gives, read under its budget.
fn skeleton(cx: &Context<'_>) -> Result<Option<crate::Skel>, FormatError> {
    let read = ReadOptions {
        budget: cx.budget.clone(),
        ..ReadOptions::default()
    };
    let skel = cx
        .skeleton
        .map(|bytes| crate::skel::read_with(bytes, &read));
    Ok(skel.transpose()?)
}

impl Format for Vitaboy {
    fn info(&self) -> &'static FormatInfo {
        &FORMAT_INFO
    }

    fn sniff(&self, data: &[u8]) -> bool {
        crate::sniff(data)
    }

    /// An `.apr` is read as an appearance ([`crate::appearance`]); anything else as the kind its
    /// content says, else its extension.
    fn read(&self, data: &[u8], cx: &Context<'_>) -> Result<Box<dyn FormatFile>, FormatError> {
        if cx.extension() == "apr" {
            return appearance::read(data, cx);
        }
        let opts = ReadOptions {
            kind: crate::sniff_kind(data).or_else(|| Kind::from_extension(&cx.extension())),
            budget: cx.budget.clone(),
            ..ReadOptions::default()
        };
        Ok(Box::new(crate::read_with(data, &opts)?))
    }

    fn from_core(
        &self,
        model: &Model,
        cx: &Context<'_>,
    ) -> Result<Converted<Box<dyn FormatFile>>, FormatError> {
        cx.refuse_quality(crate::FORMAT_NAME, "Vitaboy stores floats")?;
        let wanted = cx.version.map_or_else(|| cx.extension(), str::to_string);
        if wanted == "apr" {
            return appearance::from_core(model, cx);
        }
        let kind = cx
            .version
            .and_then(Kind::from_extension)
            .or_else(|| Kind::from_extension(&cx.extension()))
            .unwrap_or(Kind::Mesh);
        let opts = WriteOptions {
            kind,
            budget: cx.budget.clone(),
            ..WriteOptions::default()
        };
        let c = VitaboyFile::from_core_with(model, &opts)?;
        Ok(boxed(c))
    }
}

impl FormatFile for VitaboyFile {
    fn format(&self) -> &'static str {
        crate::FORMAT_NAME
    }

    /// The kind (`mesh`, `skel`, `anim`): what an output extension asks for.
    fn version(&self) -> String {
        match self {
            VitaboyFile::Mesh(_) => "mesh",
            VitaboyFile::Skel(_) => "skel",
            VitaboyFile::Anim(_) => "anim",
        }
        .into()
    }

    /// What the file stores, from the faithful types: a mesh's one surface with its
    /// attributes (bounds only with the `.skel` in the context: the vertices are stored
    /// bone-local), a skeleton's hierarchy, an animation's clip at 30 fps. Counts: a mesh
    /// has 1 surface, its real vertices, faces and bone names; an animation 1 clip, the
    /// longest motion's frames and one bone per motion.
    fn summary(&self, cx: &Context<'_>) -> Result<Summary, FormatError> {
        let mut s = Summary {
            format: crate::FORMAT_NAME.into(),
            version: match self {
                VitaboyFile::Mesh(m) => format!("mesh v{}", m.version),
                VitaboyFile::Skel(k) => format!("skel v{}", k.version),
                VitaboyFile::Anim(a) => format!("anim v{}", a.version),
            },
            ..Summary::default()
        };
        match self {
            VitaboyFile::Mesh(m) => {
                let mut a = vec![
                    Attribute::new("position", "f32x3 (bone-local)"),
                    Attribute::new("normal", "f32x3 (bone-local)"),
                ];
                if !m.uvs.is_empty() {
                    a.push(Attribute::new("uv0", "f32x2"));
                }
                a.push(Attribute::new(
                    "skin",
                    format!(
                        "{} bone ranges + {} blend vertices (f32x6, i32 Q1.15 weight)",
                        m.bindings.len(),
                        m.blends.len()
                    ),
                ));
                a.push(Attribute::new("indices", "u32"));
                // Model-space positions need the skeleton: converted only when given.
                let bounds = match cx.skeleton {
                    Some(_) => match FormatFile::to_core(self, cx) {
                        Ok(c) => Summary::of_model(&c.value).bounds,
                        Err(e) if e.class() == ErrorClass::OverBudget => return Err(e),
                        Err(_) => None,
                    },
                    None => None,
                };
                s.surfaces.push(SurfaceSummary::new(
                    "",
                    m.real_vertices.len() as u64,
                    m.faces.len() as u64,
                    a,
                    bounds,
                ));
                s.bounds = bounds;
            }
            VitaboyFile::Skel(k) if !k.bones.is_empty() => {
                let names: Vec<String> = k.bones.iter().map(|b| b.name.to_string_lossy()).collect();
                cx.budget
                    .charge("summary", names.iter().map(|n| n.len() as u64 + 24).sum())?;
                s.skeleton = Some(SkeletonSummary::from_parents(&names, &k.parent_indices()));
            }
            VitaboyFile::Skel(_) => {}
            VitaboyFile::Anim(a) => s.animations.push(ClipSummary::frames(
                a.name.to_string_lossy(),
                u64::from(a.frames()),
                crate::FPS,
                a.motions.len() as u64,
            )),
        }
        s.counts = match self {
            VitaboyFile::Mesh(m) => Counts {
                surfaces: 1,
                vertices: m.real_vertices.len() as u64,
                triangles: m.faces.len() as u64,
                bones: m.bone_names.len() as u64,
                ..Counts::default()
            },
            VitaboyFile::Skel(k) => Counts {
                bones: k.bones.len() as u64,
                ..Counts::default()
            },
            VitaboyFile::Anim(a) => Counts {
                animations: 1,
                frames: u64::from(a.frames()),
                bones: a.motions.len() as u64,
                ..Counts::default()
            },
        };
        Ok(s)
    }

    fn write(&self, cx: &Context<'_>) -> Result<Written, FormatError> {
        Written::charged(VitaboyFile::write(self)?, &cx.budget)
    }

    fn to_core(&self, cx: &Context<'_>) -> Result<Converted<Model>, FormatError> {
        let skel = skeleton(cx)?;
        let opts = CoreOptions {
            skeleton: skel.as_ref(),
            budget: cx.budget.clone(),
            ..CoreOptions::default()
        };
        Ok(self.to_core_with(&opts)?)
    }

    /// A `.mesh` stores its vertices bone-local: without its `.skel` they stay there.
    fn needs_skeleton(&self) -> Option<&'static str> {
        matches!(self, VitaboyFile::Mesh(_)).then_some(".mesh")
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
