//! The meshfmt-core format contract ([`FORMAT`]), for tools that iterate formats.

use std::any::Any;

use meshfmt_core::format::{
    Context, Format, FormatError, FormatFile, FormatInfo, SharedBytes, Written, boxed,
};
use meshfmt_core::{Converted, Model, Summary};

use crate::versions::{VERSION_INFO, VERSIONS};
use crate::{CoreOptions, Error, FORMAT_NAME, MeshFile, ReadOptions, WriteOptions};

/// What UNIGINE meshes are, as data: every version of the crate's version table (which
/// a test holds this description and these extensions to), the default (ms11) first.
///
/// ```
/// let info = &unigine_mesh::FORMAT_INFO;
/// assert_eq!(info.version_for_extension("smesh"), Some("ms08"));
/// assert_eq!(info.versions[0].name, "ms11");
/// ```
pub static FORMAT_INFO: FormatInfo = FormatInfo {
    name: FORMAT_NAME,
    description: "UNIGINE mesh (mi08, ms08 .smesh, ms10, ms11, ms13, ms14, ms15, sk10 .mesh_skinned, sn10 .skeleton)",
    extensions: &["mesh", "smesh", "mesh_skinned", "skeleton"],
    versions: &VERSION_INFO,
    ..FormatInfo::DEFAULT
};

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

meshfmt_core::format_error_from!(
    Error,
    crate::FORMAT_NAME,
    Error::UnsupportedVersion(v) => FormatError::Unsupported {
        format: crate::FORMAT_NAME,
        message: format!("unsupported UNIGINE mesh version {v}"),
    },
    e @ Error::NotAMesh(_) => FormatError::not_this_format(crate::FORMAT_NAME, e.to_string()),
);

impl Format for UnigineMesh {
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
        cx.refuse_quality(FORMAT_NAME, "UNIGINE meshes do not quantize by choice")?;
        let options = WriteOptions {
            version: VERSIONS.to_write(FORMAT_NAME, cx)?,
            budget: cx.budget.clone(),
        };
        Ok(boxed(MeshFile::from_core_with(model, &options)?))
    }

    /// Stored LZ4 blocks (ms14, ms15, sk10) keep ranges of `data`
    /// ([`crate::read_shared_with`]).
    fn read_shared(
        &self,
        data: &SharedBytes,
        cx: &Context<'_>,
    ) -> Result<Box<dyn FormatFile>, FormatError> {
        let options = ReadOptions {
            budget: cx.budget.clone(),
        };
        Ok(Box::new(crate::read_shared_with(data, &options)?))
    }
}

impl FormatFile for MeshFile {
    fn format(&self) -> &'static str {
        crate::FORMAT_NAME
    }

    fn version(&self) -> String {
        MeshFile::version(self).to_string()
    }

    /// What the file stores, read from the faithful types (no conversion): surfaces with
    /// their attributes' stored types, stored bounds, the bone hierarchy and embedded
    /// clips at the engine's 30 fps. Counts: vertices are the coordinate vertices of
    /// morph target 0 and triangles the coordinate indices / 3, summed over surfaces;
    /// frames are summed over embedded animations (frame 0 of ms08 is the bind pose).
    fn summary(&self, cx: &Context<'_>) -> Result<Summary, FormatError> {
        let mut s = Summary {
            format: crate::FORMAT_NAME.into(),
            version: MeshFile::version(self).into(),
            ..Summary::default()
        };
        self.as_file().summarize(&mut s);
        // What the summary holds: names and one line per surface, bone and clip.
        let names: usize = s.surfaces.iter().map(|x| x.name.len() + 256).sum::<usize>()
            + s.skeleton
                .as_ref()
                .map_or(0, |k| k.roots.iter().map(|r| r.len() + 24).sum())
            + s.animations
                .iter()
                .map(|a| a.name.len() + 64)
                .sum::<usize>();
        cx.budget.charge("summary", names as u64)?;
        let c = &mut s.counts;
        // UNIGINE meshes keep materials in separate files.
        c.materials = 0;
        c.textures = 0;
        Ok(s)
    }

    fn write(&self, cx: &Context<'_>) -> Result<Written, FormatError> {
        Written::charged(MeshFile::write(self)?, &cx.budget)
    }

    fn to_core(&self, cx: &Context<'_>) -> Result<Converted<Model>, FormatError> {
        let options = CoreOptions {
            budget: cx.budget.clone(),
        };
        Ok(self.to_core_with(&options)?)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
