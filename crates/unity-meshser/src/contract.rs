//! The meshfmt-core format contract ([`FORMAT`]), for tools that iterate formats.

use std::any::Any;

use meshfmt_core::format::{Context, Format, FormatError, FormatFile, FormatInfo, Written, boxed};
use meshfmt_core::summary::stored_box;
use meshfmt_core::{Attribute, Converted, Feature, Model, Summary, SurfaceSummary};

use crate::{CoreOptions, Error, MeshFile, Quantization, ReadOptions, WriteOptions};

/// Unity MeshSerializer2 as a [`Format`].
///
/// ```
/// use meshfmt_core::format::{boxed, Context, Format};
/// let f = &unity_meshser::FORMAT;
/// assert_eq!(f.info().name, "unity-meshser");
/// let model = meshfmt_core::canonical::cube();
/// let file = f.from_core(&model, &Context::new("cube.bytes"))?.value;
/// let bytes = file.write(&Context::new("cube.bytes"))?.main;
/// assert!(f.sniff(&bytes));
/// # Ok::<(), meshfmt_core::format::FormatError>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct MeshSerializer2;

/// The format, for registries.
pub const FORMAT: MeshSerializer2 = MeshSerializer2;

meshfmt_core::format_error_from!(Error, crate::FORMAT_NAME);

fn quantization(quality: Option<&str>) -> Result<Quantization, FormatError> {
    match quality {
        None | Some("rounded") => Ok(Quantization::Rounded),
        Some("compatible") => Ok(Quantization::Compatible),
        Some(q) => Err(FormatError::Unsupported {
            format: crate::FORMAT_NAME,
            message: format!("--quality {q} does not apply (use compatible or rounded)"),
        }),
    }
}

/// What MeshSerializer2 files are, as data: one form, no magic (recognized by an
/// exact-length check, so tried after every format with one), two qualities.
///
/// ```
/// let info = &unity_meshser::FORMAT_INFO;
/// assert!(!info.has_magic && info.versions.is_empty());
/// assert_eq!(info.qualities, ["rounded", "compatible"]);
/// ```
pub static FORMAT_INFO: FormatInfo = FormatInfo {
    name: crate::FORMAT_NAME,
    description: "Unity MeshSerializer2 compact mesh (no magic; exact-length check)",
    extensions: &["bytes", "data"],
    has_magic: false,
    holds: &[
        Feature::Geometry,
        Feature::Normals,
        Feature::Tangents,
        Feature::Uv0,
    ],
    qualities: &["rounded", "compatible"],
    ..FormatInfo::DEFAULT
};

impl Format for MeshSerializer2 {
    fn info(&self) -> &'static FormatInfo {
        &FORMAT_INFO
    }

    fn sniff(&self, data: &[u8]) -> bool {
        crate::sniff(data)
    }

    fn read(&self, data: &[u8], cx: &Context<'_>) -> Result<Box<dyn FormatFile>, FormatError> {
        let opts = ReadOptions {
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
        let opts = WriteOptions {
            quantization: quantization(cx.quality)?,
            budget: cx.budget.clone(),
            ..WriteOptions::default()
        };
        let c = MeshFile::from_core_with(model, &opts)?;
        Ok(boxed(c))
    }
}

impl FormatFile for MeshFile {
    fn format(&self) -> &'static str {
        crate::FORMAT_NAME
    }

    fn version(&self) -> String {
        "MeshSerializer2".into()
    }

    /// What the file stores, from the faithful type (no conversion): one surface, its
    /// arrays' stored types (positions and UVs 16-bit across the stored boxes, normals and
    /// tangents one biased byte per component) and the stored position box.
    fn summary(&self, _: &Context<'_>) -> Result<Summary, FormatError> {
        let mut a = vec![Attribute::new("position", "u16x3 (across the stored box)")];
        if !self.normals.is_empty() {
            a.push(Attribute::new("normal", "u8x3 (biased, (b - 128) / 127)"));
        }
        if !self.tangents.is_empty() {
            a.push(Attribute::new("tangent", "u8x4 (biased, (b - 128) / 127)"));
        }
        if !self.uvs.is_empty() {
            a.push(Attribute::new("uv0", "u16x2 (across the stored box)"));
        }
        a.push(Attribute::new("indices", "u16"));
        let [x0, x1, y0, y1, z0, z1] = self.position_bounds;
        // The box is stored only when there are vertices.
        let bounds = (!self.positions.is_empty())
            .then(|| stored_box([x0, y0, z0], [x1, y1, z1]))
            .flatten();
        let mut s = Summary {
            format: crate::FORMAT_NAME.into(),
            version: FormatFile::version(self),
            bounds,
            bounds_stored: bounds.is_some(),
            ..Summary::default()
        };
        s.push_surface(SurfaceSummary::new(
            "",
            self.positions.len() as u64,
            self.triangles.len() as u64,
            a,
            bounds,
        ));
        Ok(s)
    }

    fn write(&self, cx: &Context<'_>) -> Result<Written, FormatError> {
        let opts = WriteOptions {
            budget: cx.budget.clone(),
            ..WriteOptions::default()
        };
        Ok(Written::one(self.write_with(&opts)?))
    }

    fn to_core(&self, cx: &Context<'_>) -> Result<Converted<Model>, FormatError> {
        let opts = CoreOptions {
            budget: cx.budget.clone(),
        };
        Ok(self.to_core_with(&opts)?)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
