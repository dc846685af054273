//! The meshfmt-core format contract ([`FORMAT`]), for tools that iterate formats.

use std::any::Any;
use std::collections::{HashMap, HashSet};

use meshfmt_core::format::{
    Context, ErrorClass, Format, FormatError, FormatFile, FormatInfo, VersionInfo, Written,
};
use meshfmt_core::{Attribute, ClipSummary, Converted, Counts, Feature, Model, Summary};

use crate::chunk::Body;
use crate::convert::CoreOptions;
use crate::error::Error;
use crate::file::File;
use crate::options::{Precision, ReadOptions, WriteOptions};
use crate::read::read_with;
use crate::sniff::{Variant, sniff, sniff_variant};
use crate::types::{Str, Types};

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

meshfmt_core::format_error_from!(
    Error,
    crate::file::FORMAT,
    Error::Payload(error) => FormatError::DecodeWithin {
        error,
        within: "the inflated payload",
    },
    e @ Error::Inflate { .. } => FormatError::not_this_format(crate::file::FORMAT, e.to_string()),
);

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

/// What both forms hold.
const HOLDS: &[Feature] = {
    use Feature::*;
    &[
        Geometry, Normals, Uv0, Colors, Skin, Skeleton, Animation, Materials, Textures, Names,
    ]
};

/// What Model 3D files are, as data: two forms (`binary` `.m3d`, the default, and
/// `ascii` `.a3d`), four coordinate precisions, a deflate level for the binary form.
///
/// ```
/// let info = &m3d_format::FORMAT_INFO;
/// assert_eq!(info.version_for_extension("a3d"), Some("ascii"));
/// assert_eq!(info.qualities[0], "float");
/// assert!(info.compresses);
/// ```
pub static FORMAT_INFO: FormatInfo = FormatInfo {
    name: crate::file::FORMAT,
    description: "Model 3D, binary (3DMO) and ASCII (3dmodel)",
    extensions: &["m3d", "a3d"],
    versions: &[
        VersionInfo {
            name: "binary",
            extension: Some("m3d"),
            holds: HOLDS,
            clip_files: None,
        },
        VersionInfo {
            name: "ascii",
            extension: Some("a3d"),
            holds: HOLDS,
            clip_files: None,
        },
    ],
    qualities: &["float", "int8", "int16", "double"],
    compresses: true,
    ..FormatInfo::DEFAULT
};

impl Format for Model3d {
    fn info(&self) -> &'static FormatInfo {
        &FORMAT_INFO
    }

    fn sniff(&self, data: &[u8]) -> bool {
        sniff(data)
    }

    fn read(&self, data: &[u8], cx: &Context<'_>) -> Result<Box<dyn FormatFile>, FormatError> {
        let opts = ReadOptions {
            budget: cx.budget.clone(),
        };
        Ok(Box::new(Model3dFile {
            file: read_with(data, &opts)?,
            ascii: matches!(sniff_variant(data), Some(Variant::Ascii)),
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
        let wo = WriteOptions {
            precision,
            budget: cx.budget.clone(),
            ..WriteOptions::default()
        };
        let mut c = File::from_core_with(model, &wo)?;
        if ascii {
            c.losses.extend(c.value.ascii_losses());
        }
        Ok(meshfmt_core::format::boxed(
            c.map(|file| Model3dFile { file, ascii }),
        ))
    }
}

impl FormatFile for Model3dFile {
    fn format(&self) -> &'static str {
        crate::file::FORMAT
    }

    fn version(&self) -> String {
        if self.ascii { "ascii" } else { "binary" }.into()
    }

    /// Surfaces (one per material run), materials, textures, the skeleton and bounds
    /// as the conversion to meshfmt-core makes them; attributes with the types the HEAD
    /// type bits select; clips, texture sources and sizes from the chunks as stored.
    /// Counts as stored (the reference loader's "raw" set): vertices = VRTS records,
    /// triangles = MESH triangles, textures = distinct non-empty map names; surfaces as
    /// the conversion makes them.
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
        let t = self.file.types;
        for surface in &mut s.surfaces {
            for a in &mut surface.attributes {
                if let Some(stored) = stored_type(t, &a.name) {
                    a.stored = stored;
                }
            }
            if surface.triangles > 0 {
                surface
                    .attributes
                    .push(Attribute::new("indices", index_types(t)));
            }
        }
        self.clips(&mut s, &cx.budget)?;
        self.texture_sources(&mut s, &cx.budget)?;
        Ok(s)
    }

    fn write(&self, cx: &Context<'_>) -> Result<Written, FormatError> {
        let defaults = WriteOptions::default();
        let o = WriteOptions {
            compress: self.file.compressed,
            level: cx.compression.unwrap_or(defaults.level),
            budget: cx.budget.clone(),
            ..defaults
        };
        Ok(Written::one(if ascii_wanted(cx, self.ascii) {
            self.file.write_ascii_with(&o)?.into_bytes()
        } else {
            self.file.write_with(&o)?
        }))
    }

    fn to_core(&self, cx: &Context<'_>) -> Result<Converted<Model>, FormatError> {
        let lib = match cx.material_library {
            Some(bytes) => Some(
                read_with(
                    bytes,
                    &ReadOptions {
                        budget: cx.budget.clone(),
                    },
                )
                .map_err(|e| FormatError::Invalid {
                    format: crate::file::FORMAT,
                    message: format!("material library: {e}"),
                })?,
            ),
            None => None,
        };
        let opts = CoreOptions {
            side_files: cx.side_files,
            mtllib: lib.as_ref(),
            budget: cx.budget.clone(),
        };
        Ok(self.file.to_core_with(&opts)?)
    }

    fn as_any(&self) -> &dyn Any {
        &self.file
    }
}

/// A coordinate as the type bits store it.
fn coord(t: Types) -> &'static str {
    match t.vc() {
        1 => "i8",
        2 => "i16",
        4 => "f32",
        _ => "f64",
    }
}

/// An index of `bytes` bytes (0: the type bits say the field is absent).
fn index(bytes: usize) -> String {
    match bytes {
        0 => "none".into(),
        b => format!("u{}", b * 8),
    }
}

/// How the file stores the attribute meshfmt-core calls `name`, per the type bits.
fn stored_type(t: Types, name: &str) -> Option<String> {
    let c = coord(t);
    // int8 and int16 coordinates are fractions of the model scale.
    let scaled = match t.vc() {
        1 => " (/127 x scale)",
        2 => " (/32767 x scale)",
        _ => " (x scale)",
    };
    Some(match name {
        "position" => format!("{c}x3{scaled}"),
        "normal" => format!("{c}x3 (vertex records)"),
        "uv0" => format!("{c}x2 (TMAP)"),
        "color" => match t.ci() {
            4 => "u8x4 (RGBA)".into(),
            0 => return None,
            n => format!("{} (CMAP index)", index(n)),
        },
        "skin" => match t.nb() {
            1 => format!("{} skin -> 1 x {} bone", index(t.sk()), index(t.bi())),
            nb => format!(
                "{} skin -> {nb} x ({} bone, u8 weight)",
                index(t.sk()),
                index(t.bi())
            ),
        },
        _ => return None,
    })
}

/// The corner index types of MESH polygons.
fn index_types(t: Types) -> String {
    let mut s = format!("{} vertex", index(t.vi()));
    if t.ti() > 0 {
        s.push_str(&format!(" + {} uv", index(t.ti())));
    }
    s
}

/// Most bytes of a name read for the summary: a name past it is cut (hostile files
/// can point every chunk at one huge string).
const MAX_NAME: usize = 1024;

impl Model3dFile {
    /// The string at `s`, at most [`MAX_NAME`] bytes.
    fn name(&self, s: Str) -> Vec<u8> {
        if s.0 == 0 {
            return Vec::new();
        }
        let Ok(at) = usize::try_from(s.0) else {
            return Vec::new();
        };
        let rest = self.file.strings.get(at..).unwrap_or(&[]);
        let rest = &rest[..rest.len().min(MAX_NAME)];
        rest.split(|b| *b == 0).next().unwrap_or(rest).to_vec()
    }

    /// One clip per ACTN chunk: its stored duration and frame count, and the bones its
    /// transforms move. Names are the conversion's when it made the clips.
    fn clips(&self, s: &mut Summary, budget: &meshfmt_core::Budget) -> Result<(), FormatError> {
        let converted = std::mem::take(&mut s.animations);
        for (k, a) in self
            .file
            .chunks
            .iter()
            .filter_map(|c| match &c.body {
                Body::Actn(a) => Some(a),
                _ => None,
            })
            .enumerate()
        {
            let transforms: usize = a.frames.iter().map(|f| f.transforms.len()).sum();
            budget.charge_items::<u32>("summary bones", transforms)?;
            let bones: HashSet<u32> = a
                .frames
                .iter()
                .flat_map(|f| f.transforms.iter().filter_map(|t| t.bone.get()))
                .collect();
            let name = match converted.get(k) {
                Some(c) => c.name.clone(),
                None => String::from_utf8_lossy(&self.name(a.name)).into_owned(),
            };
            budget.charge("summary", name.len() as u64 + 64)?;
            s.animations.push(ClipSummary {
                name,
                duration: a.duration_msec as f32 / 1000.0,
                fps: None,
                keys: a.frames.len() as u64,
                channels: bones.len() as u64,
            });
        }
        Ok(())
    }

    /// Embedded (ASET) or external, with the embedded image's bytes: a texture read
    /// from beside the model is still a file the model names.
    fn texture_sources(
        &self,
        s: &mut Summary,
        budget: &meshfmt_core::Budget,
    ) -> Result<(), FormatError> {
        let mut assets: HashMap<Vec<u8>, u64> = HashMap::new();
        for c in &self.file.chunks {
            if let Body::Aset { name, data } = &c.body {
                let name = self.name(*name);
                budget.charge("summary", name.len() as u64 + 48)?;
                assets.entry(name).or_insert(data.len() as u64);
            }
        }
        for t in &mut s.textures {
            match assets.get(t.name.as_bytes()) {
                Some(&bytes) => {
                    t.source = "embedded".into();
                    t.bytes = Some(bytes);
                }
                None => {
                    let has_ext =
                        t.name.len() > 4 && t.name.as_bytes().get(t.name.len() - 4) == Some(&b'.');
                    t.source = if has_ext {
                        format!("file {}", t.name)
                    } else {
                        format!("file {}.png", t.name)
                    };
                }
            }
        }
        Ok(())
    }
}
