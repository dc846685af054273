//! The meshfmt-core format contract ([`FORMAT`]), for tools that iterate formats.

use std::any::Any;

use meshfmt_core::format::{Context, ErrorClass, Format, FormatError, FormatFile, Written};
use meshfmt_core::{Converted, Counts, Feature, Model, Summary};

use crate::{CoreOptions, Error, File, Precision, ReadOptions, Variant, WriteOptions};

/// Model 3D, binary and ASCII, as a [`Format`]. Versions are the two forms, `binary`
/// (`.m3d`, zlib-compressed unless read uncompressed) and `ascii` (`.a3d`); qualities are
/// the coordinate precisions `float` (default), `int8`, `int16` and `double`. External
/// textures come from the context's side files, a material library from
/// [`Context::material_library`].
///
/// ```
/// use meshfmt_core::format::{Context, Format};
/// let f = &m3d_format::FORMAT;
/// let model = meshfmt_core::canonical::cube();
/// let cx = Context { quality: Some("int16"), ..Context::new("cube.a3d") };
/// let file = f.from_core(&model, &cx)?.value;
/// let text = file.write(&cx)?.main;
/// assert!(text.starts_with(b"3dmodel"));
/// assert_eq!(f.read(&text, &Context::new("cube.a3d"))?.version(), "ascii");
/// # Ok::<(), meshfmt_core::format::FormatError>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Model3d;

/// The format, for registries.
pub const FORMAT: Model3d = Model3d;

impl From<Error> for FormatError {
    fn from(e: Error) -> Self {
        match e {
            Error::Decode(d) => FormatError::Decode(d),
            Error::Payload(error) => FormatError::DecodeWithin {
                error,
                within: "the inflated payload",
            },
            Error::OverBudget(b) => FormatError::OverBudget(b),
            Error::Io(io) => FormatError::Io(io),
            Error::Inflate { .. } => {
                FormatError::not_this_format(crate::file::FORMAT, e.to_string())
            }
            other => FormatError::invalid(crate::file::FORMAT, other.to_string()),
        }
    }
}

/// A Model 3D file and the form it was read in or is to be written in.
struct Model3dFile {
    file: File,
    ascii: bool,
}

fn ascii_wanted(cx: &Context<'_>, default: bool) -> bool {
    match cx.version {
        Some("ascii") => true,
        Some("binary") => false,
        _ => match cx.extension().as_str() {
            "a3d" => true,
            "m3d" => false,
            _ => default,
        },
    }
}

impl Format for Model3d {
    fn name(&self) -> &'static str {
        crate::file::FORMAT
    }

    fn description(&self) -> &'static str {
        "Model 3D, binary (3DMO) and ASCII (3dmodel)"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["m3d", "a3d"]
    }

    fn sniff(&self, data: &[u8]) -> bool {
        crate::sniff(data)
    }

    fn versions(&self) -> &'static [&'static str] {
        &["binary", "ascii"]
    }

    fn version_for_extension(&self, ext: &str) -> Option<&'static str> {
        match ext {
            "a3d" => Some("ascii"),
            "m3d" => Some("binary"),
            _ => None,
        }
    }

    fn qualities(&self) -> &'static [&'static str] {
        &["float", "int8", "int16", "double"]
    }

    fn holds(&self, _: Option<&str>) -> &'static [Feature] {
        use Feature::*;
        &[
            Geometry, Normals, Uv0, Colors, Skin, Skeleton, Animation, Materials, Textures, Names,
        ]
    }

    fn read(&self, data: &[u8], cx: &Context<'_>) -> Result<Box<dyn FormatFile>, FormatError> {
        let opts = ReadOptions::default().with_budget(cx.budget.clone());
        Ok(Box::new(Model3dFile {
            file: crate::read_with(data, &opts)?,
            ascii: matches!(crate::detect(data), Some(Variant::Ascii)),
        }))
    }

    fn from_core(
        &self,
        model: &Model,
        cx: &Context<'_>,
    ) -> Result<Converted<Box<dyn FormatFile>>, FormatError> {
        let precision = match cx.quality {
            Some("float") | None => Precision::Float,
            Some("int8") => Precision::Int8,
            Some("int16") => Precision::Int16,
            Some("double") => Precision::Double,
            Some(q) => {
                return Err(FormatError::Unsupported {
                    format: crate::file::FORMAT,
                    message: format!(
                        "--quality {q} does not apply (use int8, int16, float or double)"
                    ),
                });
            }
        };
        if let Some(v) = cx.version.filter(|v| !matches!(*v, "ascii" | "binary")) {
            return Err(FormatError::Unsupported {
                format: crate::file::FORMAT,
                message: format!("cannot write version '{v}' (choose binary or ascii)"),
            });
        }
        let ascii = ascii_wanted(cx, false);
        let wo = WriteOptions::default()
            .with_precision(precision)
            .with_budget(cx.budget.clone());
        let mut c = File::from_core(model, &wo)?;
        if ascii {
            c.losses.extend(c.value.ascii_losses());
        }
        Ok(c.map(|file| Box::new(Model3dFile { file, ascii }) as Box<dyn FormatFile>))
    }
}

impl FormatFile for Model3dFile {
    fn format(&self) -> &'static str {
        crate::file::FORMAT
    }

    fn version(&self) -> String {
        if self.ascii { "ascii" } else { "binary" }.into()
    }

    /// Counts as stored (the reference loader's "raw" set): vertices = VRTS records,
    /// triangles = MESH triangles, textures = distinct non-empty map names; surfaces as
    /// the conversion to meshfmt-core makes them (one per material run).
    fn summary(&self, cx: &Context<'_>) -> Result<Summary, FormatError> {
        let mut s = match FormatFile::to_core(self, cx) {
            Ok(m) => Summary::of_model(&m.value),
            Err(e) if e.class() == ErrorClass::OverBudget => return Err(e),
            Err(_) => Summary::default(),
        };
        s.format = crate::file::FORMAT.into();
        s.version = FormatFile::version(self);
        let c = self.file.counts();
        s.counts = Counts {
            surfaces: s.surfaces.len() as u64,
            vertices: c.vertices as u64,
            triangles: c.triangles as u64,
            bones: c.bones as u64,
            animations: c.actions as u64,
            frames: c.frames as u64,
            materials: c.materials as u64,
            textures: c.textures as u64,
        };
        Ok(s)
    }

    fn write(&self, cx: &Context<'_>) -> Result<Written, FormatError> {
        let o = WriteOptions::default()
            .with_compression(self.file.compressed)
            .with_budget(cx.budget.clone());
        Ok(Written::one(if ascii_wanted(cx, self.ascii) {
            self.file.write_ascii_with(&o)?.into_bytes()
        } else {
            self.file.write_with(&o)?
        }))
    }

    fn to_core(&self, cx: &Context<'_>) -> Result<Converted<Model>, FormatError> {
        let lib = match cx.material_library {
            Some(bytes) => Some(
                crate::read_with(
                    bytes,
                    &ReadOptions::default().with_budget(cx.budget.clone()),
                )
                .map_err(|e| FormatError::Invalid {
                    format: crate::file::FORMAT,
                    message: format!("material library: {e}"),
                })?,
            ),
            None => None,
        };
        let side = cx.side_files;
        let read_file = |name: &str| side.and_then(|s| s.read(name).ok().flatten());
        let opts = CoreOptions {
            read_file: side.map(|_| &read_file as crate::ReadFile<'_>),
            mtllib: lib.as_ref(),
            budget: Some(cx.budget.clone()),
            ..CoreOptions::default()
        };
        Ok(self.file.to_core_with(&opts)?)
    }

    fn as_any(&self) -> &dyn Any {
        &self.file
    }
}
