//! Glue between the tool and each format crate: inspect, decode to meshfmt-core,
//! encode from it, and the faithful same-format rewrite.

use meshfmt_core::{Budget, Converted, Model};

use crate::error::CliError;
use crate::info::Info;

/// Charges the bytes a step produced (an encoded file, a rewrite) to the conversion's
/// budget, so the steps of one conversion add up.
fn output(bytes: Vec<u8>, budget: &Budget) -> Result<Vec<u8>, CliError> {
    budget.charge("encoded output", bytes.len() as u64)?;
    Ok(bytes)
}

/// Quantization quality for formats that quantize.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Quality {
    /// MeshSerializer2: byte for byte what the original script writes (truncation).
    Compatible,
    /// MeshSerializer2: nearest rounding, at most half the original's error.
    Rounded,
    /// M3D: int8 coordinates (error up to 0.5/127 of the model's extent).
    Int8,
    /// M3D: int16 coordinates (error up to 0.5/32767 of the extent).
    Int16,
    /// M3D: f32 coordinates (the default).
    Float,
    /// M3D: f64 coordinates.
    Double,
}

fn unsupported(q: Quality, format: &str, supported: &str) -> CliError {
    CliError::Format(format!(
        "{format}: --quality {} does not apply (use {supported})",
        format!("{q:?}").to_lowercase()
    ))
}

/// Options for encoding from meshfmt-core.
#[derive(Debug, Clone, Default)]
pub struct EncodeOptions {
    /// Requested quality, `None` for the format's default.
    pub quality: Option<Quality>,
    /// Requested format version (`ms11`, ...), `None` for the format's default.
    pub version: Option<String>,
    /// The output file's extension, lower case (some formats pick a version by it).
    pub extension: String,
}

/// A format crate's error: over its budget (the tool says how much memory to allow), or
/// anything else, kept as its one-line message.
trait CrateError: std::fmt::Display {
    /// The operation ran out of budget (rather than finding the input bad).
    fn over_budget(&self) -> bool;
}

fn decode_over_budget(e: &parsing_primitives::Error) -> bool {
    matches!(e.kind(), parsing_primitives::ErrorKind::OverBudget(_))
}

macro_rules! crate_error {
    ($($t:ty $(, $payload:ident)?;)*) => {$(
        impl CrateError for $t {
            fn over_budget(&self) -> bool {
                match self {
                    Self::OverBudget(_) => true,
                    Self::Decode(d) $(| Self::$payload(d))? => decode_over_budget(d),
                    _ => false,
                }
            }
        }
    )*};
}

crate_error! {
    unigine_mesh::Error;
    unigine_anim::Error;
    niotso_mesh::Error;
    unity_meshser::Error;
    m3d_format::Error, Payload;
}

fn err(e: impl CrateError) -> CliError {
    if e.over_budget() {
        CliError::OverBudget(e.to_string())
    } else {
        CliError::Format(e.to_string())
    }
}

/// unity-meshser adapters.
pub mod unity {
    use super::*;
    use unity_meshser::{CoreOptions, MeshFile, Quantization, ReadOptions, WriteOptions};

    fn read(data: &[u8], budget: &Budget) -> Result<MeshFile, CliError> {
        let opts = ReadOptions {
            budget: Some(budget.clone()),
            ..ReadOptions::default()
        };
        unity_meshser::read_with(data, &opts).map_err(err)
    }

    /// Counts for `info`.
    pub fn inspect(data: &[u8], budget: &Budget) -> Result<Info, CliError> {
        let f = read(data, budget)?;
        Ok(Info {
            format: "unity-meshser".into(),
            version: "MeshSerializer2".into(),
            surfaces: 1,
            vertices: f.vertex_count() as u64,
            triangles: f.triangle_count() as u64,
            ..Info::default()
        })
    }

    /// Decode to meshfmt-core.
    pub fn to_core(data: &[u8], budget: &Budget) -> Result<Converted<Model>, CliError> {
        let opts = CoreOptions {
            budget: Some(budget.clone()),
            ..CoreOptions::default()
        };
        read(data, budget)?.to_core_with(&opts).map_err(err)
    }

    /// Encode from meshfmt-core.
    pub fn from_core(
        model: &Model,
        opts: &EncodeOptions,
        budget: &Budget,
    ) -> Result<Converted<Vec<u8>>, CliError> {
        let quantization = match opts.quality {
            Some(Quality::Compatible) => Quantization::Compatible,
            Some(Quality::Rounded) | None => Quantization::Rounded,
            Some(q) => return Err(unsupported(q, "unity-meshser", "compatible or rounded")),
        };
        let wo = WriteOptions {
            quantization,
            budget: Some(budget.clone()),
            ..WriteOptions::default()
        };
        let conv = MeshFile::from_core(model, &wo).map_err(err)?;
        let bytes = output(conv.value.write().map_err(err)?, budget)?;
        Ok(Converted {
            value: bytes,
            losses: conv.losses,
        })
    }

    /// Faithful rewrite.
    pub fn rewrite(data: &[u8], budget: &Budget) -> Result<Vec<u8>, CliError> {
        output(read(data, budget)?.write().map_err(err)?, budget)
    }
}

/// unigine-mesh adapters.
pub mod unigine {
    use super::*;
    use unigine_mesh::{CoreOptions, MeshFile, ReadOptions, TargetVersion, WriteOptions};

    fn read(data: &[u8], budget: &Budget) -> Result<MeshFile, CliError> {
        let opts = ReadOptions {
            budget: Some(budget.clone()),
            ..ReadOptions::default()
        };
        unigine_mesh::read_with(data, &opts).map_err(err)
    }

    /// Counts for `info`: vertices are the coordinate vertices of morph target 0 and
    /// triangles the coordinate indices / 3, summed over surfaces; frames are summed over
    /// embedded animations.
    pub fn inspect(data: &[u8], budget: &Budget) -> Result<Info, CliError> {
        let f = read(data, budget)?;
        let mut info = Info {
            format: "unigine-mesh".into(),
            version: f.version().into(),
            ..Info::default()
        };
        match &f {
            MeshFile::Ms1x(m) => ms1x_counts(m, &mut info),
            MeshFile::Ms14(m) => ms1x_counts(&m.mesh, &mut info),
            MeshFile::Ms15(m) => ms1x_counts(&m.0.mesh, &mut info),
            MeshFile::Sk10(k) => ms1x_counts(&k.mesh, &mut info),
            MeshFile::Sn10(s) => info.bones = s.joints.len() as u64,
            MeshFile::Mi08(m) => {
                info.surfaces = m.surfaces.len() as u64;
                info.vertices = m.surfaces.iter().map(|s| s.positions.len() as u64).sum();
                info.triangles = m.surfaces.iter().map(|s| s.triangles.len() as u64).sum();
            }
            MeshFile::Ms08(m) => {
                info.surfaces = m.surfaces.len() as u64;
                info.vertices = m.surfaces.iter().map(|s| s.positions.len() as u64).sum();
                info.triangles = m.surfaces.iter().map(|s| s.triangles.len() as u64).sum();
                info.bones = m.bones.len() as u64;
                // Frame 0 is the bind pose; the rest form the one animation.
                info.animations = u64::from(m.num_frames > 1);
                info.frames = u64::from(m.num_frames.saturating_sub(1));
            }
            _ => {}
        }
        Ok(info)
    }

    fn ms1x_counts(m: &unigine_mesh::Ms1x, info: &mut Info) {
        info.surfaces = m.surfaces.len() as u64;
        info.vertices = m.surfaces.iter().map(|s| s.num_cvertices() as u64).sum();
        info.triangles = m.surfaces.iter().map(|s| s.cindices.len() as u64 / 3).sum();
        info.bones = m.bones.len() as u64;
        info.animations = m.animations.len() as u64;
        info.frames = m.animations.iter().map(|a| u64::from(a.num_frames)).sum();
    }

    /// Decode to meshfmt-core.
    pub fn to_core(data: &[u8], budget: &Budget) -> Result<Converted<Model>, CliError> {
        let opts = CoreOptions {
            budget: Some(budget.clone()),
            ..CoreOptions::default()
        };
        read(data, budget)?.to_core_with(&opts).map_err(err)
    }

    /// Encode from meshfmt-core: `--version`, else ms08 for `.smesh`, else ms11.
    pub fn from_core(
        model: &Model,
        opts: &EncodeOptions,
        budget: &Budget,
    ) -> Result<Converted<Vec<u8>>, CliError> {
        let version = match (opts.version.as_deref(), opts.extension.as_str()) {
            (Some("mi08"), _) => TargetVersion::Mi08,
            (Some("ms08"), _) | (None, "smesh") => TargetVersion::Ms08,
            (Some("ms10"), _) => TargetVersion::Ms10,
            (Some("ms13"), _) => TargetVersion::Ms13,
            (Some("ms14"), _) => TargetVersion::Ms14,
            (Some("ms15"), _) => TargetVersion::Ms15,
            (Some("sk10"), _) | (None, "mesh_skinned") => TargetVersion::Sk10,
            (Some("sn10"), _) | (None, "skeleton") => TargetVersion::Sn10,
            (Some("ms11"), _) | (None, _) => TargetVersion::Ms11,
            (Some(v), _) => {
                return Err(CliError::Format(format!(
                    "unigine-mesh: cannot write version '{v}' (choose mi08, ms08, ms10, ms11, ms13, ms14, ms15, sk10 or sn10)"
                )));
            }
        };
        let opts = WriteOptions {
            version,
            budget: Some(budget.clone()),
            ..WriteOptions::default()
        };
        let conv = MeshFile::from_core(model, &opts).map_err(err)?;
        let bytes = output(conv.value.write().map_err(err)?, budget)?;
        Ok(Converted {
            value: bytes,
            losses: conv.losses,
        })
    }

    /// Faithful rewrite.
    pub fn rewrite(data: &[u8], budget: &Budget) -> Result<Vec<u8>, CliError> {
        output(read(data, budget)?.write().map_err(err)?, budget)
    }

    /// `.smesh` files are ms08.
    pub fn extension_version(ext: &str) -> Option<&'static str> {
        match ext {
            "smesh" => Some("ms08"),
            "mesh_skinned" => Some("sk10"),
            "skeleton" => Some("sn10"),
            _ => None,
        }
    }

    /// The version of a file, for deciding whether `convert` can rewrite it.
    pub fn version(data: &[u8]) -> Option<String> {
        data.get(..4)
            .map(|m| String::from_utf8_lossy(m).into_owned())
    }
}

/// unigine-anim adapters.
pub mod anim {
    use super::*;
    use unigine_anim::{AnimFile, CoreOptions, ReadOptions, TargetVersion, WriteOptions};

    fn read(data: &[u8], budget: &Budget) -> Result<AnimFile, CliError> {
        let opts = ReadOptions {
            budget: Some(budget.clone()),
            ..ReadOptions::default()
        };
        unigine_anim::read_with(data, &opts).map_err(err)
    }

    /// Counts for `info`: bones, animations, frames summed over animations.
    pub fn inspect(data: &[u8], budget: &Budget) -> Result<Info, CliError> {
        let f = read(data, budget)?;
        let mut info = Info {
            format: "unigine-anim".into(),
            version: f.version().into(),
            ..Info::default()
        };
        match &f {
            AnimFile::An10(a) => {
                info.bones = a.bones.len() as u64;
                info.animations = a.animations.len() as u64;
                info.frames = a.animations.iter().map(|x| u64::from(x.num_frames)).sum();
            }
            AnimFile::As08(a) => {
                info.bones = a.bones.len() as u64;
                info.animations = u64::from(a.num_frames > 0);
                info.frames = u64::from(a.num_frames);
            }
            AnimFile::An11(a) => {
                // notes/unigine-current.md 6: a file is one clip.
                info.bones = a.bones.len() as u64;
                info.animations = 1;
                info.frames = u64::from(a.num_frames);
            }
            AnimFile::An12(a) => {
                info.bones = a.joints.len() as u64;
                info.animations = 1;
                info.frames = u64::from(a.num_frames);
            }
            _ => {}
        }
        Ok(info)
    }

    /// Decode to meshfmt-core at the default 30 fps.
    pub fn to_core(data: &[u8], budget: &Budget) -> Result<Converted<Model>, CliError> {
        let opts = CoreOptions {
            budget: Some(budget.clone()),
            ..CoreOptions::default()
        };
        read(data, budget)?.to_core_with(&opts).map_err(err)
    }

    /// Encode from meshfmt-core: `--version`, else as08 for `.sanim`, else an10.
    pub fn from_core(
        model: &Model,
        opts: &EncodeOptions,
        budget: &Budget,
    ) -> Result<Converted<Vec<u8>>, CliError> {
        let version = match (opts.version.as_deref(), opts.extension.as_str()) {
            (Some("as08"), _) | (None, "sanim") => TargetVersion::As08,
            (Some("an11"), _) => TargetVersion::An11,
            (Some("an12"), _) => TargetVersion::An12,
            (Some("an10"), _) | (None, _) => TargetVersion::An10,
            (Some(v), _) => {
                return Err(CliError::Format(format!(
                    "unigine-anim: cannot write version '{v}' (choose as08, an10, an11 or an12)"
                )));
            }
        };
        let opts = WriteOptions {
            version,
            budget: Some(budget.clone()),
            ..WriteOptions::default()
        };
        let conv = AnimFile::from_core_with(model, &opts).map_err(err)?;
        let bytes = output(conv.value.write().map_err(err)?, budget)?;
        Ok(Converted {
            value: bytes,
            losses: conv.losses,
        })
    }

    /// Faithful rewrite.
    pub fn rewrite(data: &[u8], budget: &Budget) -> Result<Vec<u8>, CliError> {
        output(read(data, budget)?.write().map_err(err)?, budget)
    }

    /// `.sanim` files are as08.
    pub fn extension_version(ext: &str) -> Option<&'static str> {
        (ext == "sanim").then_some("as08")
    }
}

/// niotso-mesh adapters (Vitaboy .mesh/.skel/.anim, told apart by content).
pub mod vitaboy {
    use super::*;
    use niotso_mesh::{CoreOptions, Kind, ReadOptions, VitaboyFile};

    fn read(data: &[u8], budget: &Budget) -> Result<VitaboyFile, CliError> {
        let opts = ReadOptions {
            budget: Some(budget.clone()),
            ..ReadOptions::default()
        };
        niotso_mesh::read_any_with(data, None, &opts).map_err(err)
    }

    fn core_options(budget: &Budget) -> CoreOptions {
        CoreOptions {
            budget: Some(budget.clone()),
            ..CoreOptions::default()
        }
    }

    /// Counts for `info`: a mesh has 1 surface, its real vertices, faces and bone names;
    /// an animation 1 clip, the longest motion's frames and one bone per motion.
    pub fn inspect(data: &[u8], budget: &Budget) -> Result<Info, CliError> {
        let f = read(data, budget)?;
        let mut info = Info {
            format: "niotso-mesh".into(),
            ..Info::default()
        };
        match &f {
            VitaboyFile::Mesh(m) => {
                info.version = format!("mesh v{}", m.version);
                info.surfaces = 1;
                info.vertices = m.real_vertices.len() as u64;
                info.triangles = m.faces.len() as u64;
                info.bones = m.bone_names.len() as u64;
            }
            VitaboyFile::Skel(s) => {
                info.version = format!("skel v{}", s.version);
                info.bones = s.bones.len() as u64;
            }
            VitaboyFile::Anim(a) => {
                info.version = format!("anim v{}", a.version);
                info.animations = 1;
                info.frames = u64::from(a.frames());
                info.bones = a.motions.len() as u64;
            }
        }
        Ok(info)
    }

    /// Decode to meshfmt-core (meshes without their .skel: bones at the origin).
    pub fn to_core(data: &[u8], budget: &Budget) -> Result<Converted<Model>, CliError> {
        read(data, budget)?
            .to_core_with(None, &core_options(budget))
            .map_err(err)
    }

    /// Encode from meshfmt-core as the output extension says (.mesh, .skel, .anim).
    pub fn from_core(
        model: &Model,
        opts: &EncodeOptions,
        budget: &Budget,
    ) -> Result<Converted<Vec<u8>>, CliError> {
        let kind = Kind::from_extension(&opts.extension).unwrap_or(Kind::Mesh);
        let c = VitaboyFile::from_core_with(model, kind, &core_options(budget)).map_err(err)?;
        let bytes = output(c.value.write().map_err(err)?, budget)?;
        Ok(Converted {
            value: bytes,
            losses: c.losses,
        })
    }

    /// Faithful rewrite.
    pub fn rewrite(data: &[u8], budget: &Budget) -> Result<Vec<u8>, CliError> {
        output(read(data, budget)?.write().map_err(err)?, budget)
    }
}

/// m3d-format adapters: binary and ASCII, read and write.
pub mod m3d {
    use super::*;
    use m3d_format::{CoreOptions, File, ReadOptions, Variant, WriteOptions};

    fn read(data: &[u8], budget: &Budget) -> Result<File, CliError> {
        let opts = ReadOptions::default().with_budget(budget.clone());
        m3d_format::read_with(data, &opts).map_err(err)
    }

    fn core_options(budget: &Budget) -> CoreOptions<'static> {
        CoreOptions {
            budget: Some(budget.clone()),
            ..Default::default()
        }
    }

    fn variant(data: &[u8]) -> &'static str {
        match m3d_format::detect(data) {
            Some(Variant::Ascii) => "ascii",
            Some(Variant::Binary {
                compressed: true, ..
            }) => "binary (zlib)",
            _ => "binary",
        }
    }

    /// Counts as stored (the reference loader's "raw" set): vertices = VRTS records,
    /// triangles = MESH triangles, textures = distinct non-empty map names; surfaces as
    /// the conversion to meshfmt-core makes them (one per material run).
    pub fn inspect(data: &[u8], budget: &Budget) -> Result<Info, CliError> {
        let f = read(data, budget)?;
        let c = f.counts();
        Ok(Info {
            format: "m3d".into(),
            version: variant(data).into(),
            surfaces: f
                .to_core_with(&core_options(budget))
                .map_or(0, |m| m.value.surfaces.len() as u64),
            vertices: c.vertices as u64,
            triangles: c.triangles as u64,
            bones: c.bones as u64,
            animations: c.actions as u64,
            frames: c.frames as u64,
            materials: c.materials as u64,
            textures: c.textures as u64,
        })
    }

    /// Decode to meshfmt-core.
    pub fn to_core(data: &[u8], budget: &Budget) -> Result<Converted<Model>, CliError> {
        read(data, budget)?
            .to_core_with(&core_options(budget))
            .map_err(err)
    }

    /// Decode to meshfmt-core, reading textures that are not inlined through `read_file`
    /// (m3d.h's `readfilecb`: `NAME.png`, then `NAME`) and materials from a material
    /// library file's bytes when given.
    pub fn to_core_with_files(
        data: &[u8],
        read_file: m3d_format::ReadFile<'_>,
        mtllib: Option<&[u8]>,
        budget: &Budget,
    ) -> Result<Converted<Model>, CliError> {
        let lib = mtllib
            .map(|m| read(m, budget))
            .transpose()
            .map_err(|e| CliError::Format(format!("m3d material library: {e}")))?;
        let opts = m3d_format::CoreOptions {
            read_file: Some(read_file),
            mtllib: lib.as_ref(),
            budget: Some(budget.clone()),
            ..Default::default()
        };
        read(data, budget)?.to_core_with(&opts).map_err(err)
    }

    fn bytes(f: &File, ascii: bool, budget: &Budget) -> Result<Vec<u8>, CliError> {
        let o = WriteOptions::default()
            .with_compression(f.compressed)
            .with_budget(budget.clone());
        if ascii {
            f.write_ascii_with(&o).map(String::into_bytes).map_err(err)
        } else {
            f.write_with(&o).map_err(err)
        }
    }

    /// Encode from meshfmt-core: `.a3d` (or `--version ascii`) as text, else binary
    /// with zlib.
    pub fn from_core(
        model: &Model,
        opts: &EncodeOptions,
        budget: &Budget,
    ) -> Result<Converted<Vec<u8>>, CliError> {
        let ascii = match opts.version.as_deref() {
            Some("ascii") => true,
            Some("binary") => false,
            _ => opts.extension == "a3d",
        };
        let precision = match opts.quality {
            Some(Quality::Int8) => m3d_format::Precision::Int8,
            Some(Quality::Int16) => m3d_format::Precision::Int16,
            Some(Quality::Float) | None => m3d_format::Precision::Float,
            Some(Quality::Double) => m3d_format::Precision::Double,
            Some(q) => return Err(unsupported(q, "m3d", "int8, int16, float or double")),
        };
        let wo = WriteOptions::default()
            .with_precision(precision)
            .with_budget(budget.clone());
        let mut c = File::from_core(model, &wo).map_err(err)?;
        if ascii {
            c.losses.extend(c.value.ascii_losses());
        }
        Ok(Converted {
            value: bytes(&c.value, ascii, budget)?,
            losses: c.losses,
        })
    }

    /// Faithful rewrite in the same form (the inflated payload is identical; the zlib
    /// bytes may differ from another compressor's).
    pub fn rewrite(data: &[u8], budget: &Budget) -> Result<Vec<u8>, CliError> {
        let f = read(data, budget)?;
        bytes(
            &f,
            matches!(m3d_format::detect(data), Some(Variant::Ascii)),
            budget,
        )
    }

    /// The form of a file, `ascii` or `binary`, so `convert` rewrites only within a form.
    pub fn version(data: &[u8]) -> Option<String> {
        m3d_format::detect(data).map(|v| {
            if matches!(v, Variant::Ascii) {
                "ascii"
            } else {
                "binary"
            }
            .to_string()
        })
    }

    /// `.a3d` is the ASCII form, `.m3d` the binary one.
    pub fn extension_version(ext: &str) -> Option<&'static str> {
        match ext {
            "a3d" => Some("ascii"),
            "m3d" => Some("binary"),
            _ => None,
        }
    }
}
