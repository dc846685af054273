//! The meshfmt-core format contract ([`FORMAT`]), for tools that iterate formats.

use std::any::Any;

use meshfmt_core::format::{Context, Format, FormatError, FormatFile, Written};
use meshfmt_core::{Converted, Counts, Feature, Model, Summary};

use crate::{CoreOptions, Error, MeshFile, ReadOptions, TargetVersion, WriteOptions};

/// UNIGINE meshes (every version) as a [`Format`].
///
/// ```
/// use meshfmt_core::format::{Context, Format};
/// let f = &unigine_mesh::FORMAT;
/// let model = meshfmt_core::canonical::cube();
/// let cx = Context { version: Some("ms14"), ..Context::new("cube.mesh") };
/// let file = f.from_core(&model, &cx)?.value;
/// assert_eq!(file.version(), "ms14");
/// let bytes = file.write(&cx)?.main;
/// assert_eq!(f.read(&bytes, &Context::new("cube.mesh"))?.version(), "ms14");
/// # Ok::<(), meshfmt_core::format::FormatError>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct UnigineMesh;

/// The format, for registries.
pub const FORMAT: UnigineMesh = UnigineMesh;

impl From<Error> for FormatError {
    fn from(e: Error) -> Self {
        let format = crate::FORMAT_NAME;
        match e {
            Error::Decode(d) => FormatError::Decode(d),
            Error::OverBudget(b) => FormatError::OverBudget(b),
            Error::Io(io) => FormatError::Io(io),
            Error::UnsupportedVersion(v) => FormatError::Unsupported {
                format,
                message: format!("unsupported UNIGINE mesh version {v}"),
            },
            Error::NotAMesh(_) => FormatError::not_this_format(format, e.to_string()),
            other => FormatError::invalid(format, other.to_string()),
        }
    }
}

const VERSIONS: &[&str] = &[
    "ms11", "mi08", "ms08", "ms10", "ms13", "ms14", "ms15", "sk10", "sn10",
];

fn target(version: &str) -> Option<TargetVersion> {
    Some(match version {
        "mi08" => TargetVersion::Mi08,
        "ms08" => TargetVersion::Ms08,
        "ms10" => TargetVersion::Ms10,
        "ms11" => TargetVersion::Ms11,
        "ms13" => TargetVersion::Ms13,
        "ms14" => TargetVersion::Ms14,
        "ms15" => TargetVersion::Ms15,
        "sk10" => TargetVersion::Sk10,
        "sn10" => TargetVersion::Sn10,
        _ => return None,
    })
}

impl Format for UnigineMesh {
    fn name(&self) -> &'static str {
        crate::FORMAT_NAME
    }

    fn description(&self) -> &'static str {
        "UNIGINE mesh (mi08, ms08 .smesh, ms10, ms11, ms13, ms14, ms15, sk10 .mesh_skinned, sn10 .skeleton)"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["mesh", "smesh", "mesh_skinned", "skeleton"]
    }

    fn sniff(&self, data: &[u8]) -> bool {
        crate::sniff(data)
    }

    fn versions(&self) -> &'static [&'static str] {
        VERSIONS
    }

    fn version_for_extension(&self, ext: &str) -> Option<&'static str> {
        match ext {
            "smesh" => Some("ms08"),
            "mesh_skinned" => Some("sk10"),
            "skeleton" => Some("sn10"),
            _ => None,
        }
    }

    fn holds(&self, version: Option<&str>) -> &'static [Feature] {
        use Feature::*;
        match version.unwrap_or("ms11") {
            "ms10" | "ms11" => &[
                Geometry,
                Normals,
                Tangents,
                Uv0,
                Uv1,
                Colors,
                Skin,
                Skeleton,
                Animation,
                MorphTargets,
                Names,
            ],
            "ms13" | "ms14" | "sk10" => &[
                Geometry,
                Normals,
                Tangents,
                Uv0,
                Uv1,
                Colors,
                Skin,
                Skeleton,
                MorphTargets,
                Names,
            ],
            "ms15" => &[Geometry, Normals, Tangents, Uv0, Uv1, Colors, Names],
            "ms08" => &[
                Geometry, Normals, Uv0, Uv1, Skin, Skeleton, Animation, Names,
            ],
            "mi08" => &[Geometry, Normals, Uv0, Uv1, Names],
            "sn10" => &[Skeleton, Names],
            _ => &[],
        }
    }

    fn read(&self, data: &[u8], cx: &Context<'_>) -> Result<Box<dyn FormatFile>, FormatError> {
        let opts = ReadOptions {
            budget: Some(cx.budget.clone()),
            ..ReadOptions::default()
        };
        Ok(Box::new(crate::read_with(data, &opts)?))
    }

    fn from_core(
        &self,
        model: &Model,
        cx: &Context<'_>,
    ) -> Result<Converted<Box<dyn FormatFile>>, FormatError> {
        if let Some(q) = cx.quality {
            return Err(FormatError::Unsupported {
                format: crate::FORMAT_NAME,
                message: format!(
                    "--quality {q} does not apply (UNIGINE meshes do not quantize by choice)"
                ),
            });
        }
        let ext = cx.extension();
        let name = cx
            .version
            .or_else(|| self.version_for_extension(&ext))
            .unwrap_or("ms11");
        let version = target(name).ok_or_else(|| FormatError::Unsupported {
            format: crate::FORMAT_NAME,
            message: format!(
                "cannot write version '{name}' (choose {})",
                VERSIONS.join(", ")
            ),
        })?;
        let opts = WriteOptions {
            version,
            budget: Some(cx.budget.clone()),
            ..WriteOptions::default()
        };
        let c = MeshFile::from_core(model, &opts)?;
        Ok(c.map(|f| Box::new(f) as Box<dyn FormatFile>))
    }
}

impl FormatFile for MeshFile {
    fn format(&self) -> &'static str {
        crate::FORMAT_NAME
    }

    fn version(&self) -> String {
        MeshFile::version(self).to_string()
    }

    /// Counts as stored: vertices are the coordinate vertices of morph target 0 and
    /// triangles the coordinate indices / 3, summed over surfaces; frames are summed over
    /// embedded animations (frame 0 of ms08 is the bind pose).
    fn summary(&self, cx: &Context<'_>) -> Result<Summary, FormatError> {
        let mut s = match FormatFile::to_core(self, cx) {
            Ok(m) => Summary::of_model(&m.value),
            // A skeleton-only or unconvertible file still has counts.
            Err(e) if e.class() == meshfmt_core::format::ErrorClass::OverBudget => return Err(e),
            Err(_) => Summary::default(),
        };
        s.format = crate::FORMAT_NAME.into();
        s.version = MeshFile::version(self).into();
        let c = &mut s.counts;
        let ms1x = |m: &crate::Ms1x, c: &mut Counts| {
            c.surfaces = m.surfaces.len() as u64;
            c.vertices = m.surfaces.iter().map(|s| s.num_cvertices() as u64).sum();
            c.triangles = m.surfaces.iter().map(|s| s.cindices.len() as u64 / 3).sum();
            c.bones = m.bones.len() as u64;
            c.animations = m.animations.len() as u64;
            c.frames = m.animations.iter().map(|a| u64::from(a.num_frames)).sum();
        };
        match self {
            MeshFile::Ms1x(m) => ms1x(m, c),
            MeshFile::Ms14(m) => ms1x(&m.mesh, c),
            MeshFile::Ms15(m) => ms1x(&m.0.mesh, c),
            MeshFile::Sk10(k) => ms1x(&k.mesh, c),
            MeshFile::Sn10(n) => {
                *c = Counts::default();
                c.bones = n.joints.len() as u64;
            }
            MeshFile::Mi08(m) => {
                *c = Counts::default();
                c.surfaces = m.surfaces.len() as u64;
                c.vertices = m.surfaces.iter().map(|s| s.positions.len() as u64).sum();
                c.triangles = m.surfaces.iter().map(|s| s.triangles.len() as u64).sum();
            }
            MeshFile::Ms08(m) => {
                *c = Counts::default();
                c.surfaces = m.surfaces.len() as u64;
                c.vertices = m.surfaces.iter().map(|s| s.positions.len() as u64).sum();
                c.triangles = m.surfaces.iter().map(|s| s.triangles.len() as u64).sum();
                c.bones = m.bones.len() as u64;
                // Frame 0 is the bind pose; the rest form the one animation.
                c.animations = u64::from(m.num_frames > 1);
                c.frames = u64::from(m.num_frames.saturating_sub(1));
            }
        }
        // UNIGINE meshes keep materials in separate files.
        c.materials = 0;
        c.textures = 0;
        Ok(s)
    }

    fn write(&self, cx: &Context<'_>) -> Result<Written, FormatError> {
        let bytes = MeshFile::write(self)?;
        cx.budget.charge("encoded output", bytes.len() as u64)?;
        Ok(Written::one(bytes))
    }

    fn to_core(&self, cx: &Context<'_>) -> Result<Converted<Model>, FormatError> {
        let opts = CoreOptions {
            budget: Some(cx.budget.clone()),
            ..CoreOptions::default()
        };
        Ok(self.to_core_with(&opts)?)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
