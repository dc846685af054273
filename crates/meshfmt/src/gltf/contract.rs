//! glTF 2.0 as a meshfmt-core [`Format`], an ordinary member of the registry.

use std::any::Any;

use meshfmt_core::format::{Context, Format, FormatError, FormatFile, FormatInfo, Written};
use meshfmt_core::{Converted, Feature, Model, Summary};

use crate::error::CliError;
use crate::gltf::import::{Stored, import_detailed};
use crate::gltf::recompress::recompress;
use crate::gltf::{Compression, Container, Exported, export_with, sniff};

/// glTF 2.0: `.glb`, and `.gltf` with its buffer beside it (or embedded: version
/// `embedded`). Reading imports into meshfmt-core at once (the faithful value is the
/// imported model); side files come from the context.
#[derive(Debug, Clone, Copy, Default)]
pub struct Gltf;

/// The format, for registries.
pub const FORMAT: Gltf = Gltf;

/// A glTF document as imported, or a model exported for an output (the export made
/// once, in `from_core`, where its losses are reported).
struct GltfFile {
    model: Converted<Model>,
    /// The export, with the container and compression it was made for.
    exported: Option<(Container, Option<Compression>, Exported)>,
    /// What a document read from a file stores (none for a model to export).
    stored: Option<Stored>,
}

/// The container an output file name (and version) asks for.
fn container(cx: &Context<'_>) -> Container {
    match (cx.extension().as_str(), cx.version) {
        ("gltf", Some("embedded")) => Container::Embedded,
        ("gltf", _) => Container::Separate(format!("{}.bin", cx.stem())),
        _ => Container::Glb,
    }
}

/// The compression a `--quality` asks for: none for `float` (or none asked).
fn compression(cx: &Context<'_>) -> Result<Option<Compression>, FormatError> {
    match cx.quality {
        None | Some("float") => Ok(None),
        Some(q) => Compression::for_quality(q).map(Some).ok_or_else(|| FormatError::Unsupported {
            format: "gltf",
            message: format!(
                "--quality {q}: glTF writes float, quantized, meshopt, quantized-keep or meshopt-keep"
            ),
        }),
    }
}

/// The files of an export: a `.gltf`'s separate buffer beside it.
fn written(c: Container, exported: Exported) -> Written {
    let mut written = Written::one(exported.main);
    if let (Container::Separate(bin_name), Some(buffer)) = (c, exported.buffer) {
        written.side.push((bin_name, buffer));
    }
    written
}

fn format_error(e: CliError) -> FormatError {
    match e {
        CliError::File(f) => f,
        other => FormatError::Invalid {
            format: "gltf",
            message: other.to_string(),
        },
    }
}

/// What glTF files are, as data: everything meshfmt-core holds, read straight into it
/// (a rewrite is a new export).
pub static FORMAT_INFO: FormatInfo = FormatInfo {
    name: "gltf",
    description: "glTF 2.0: .glb, .gltf with a separate or embedded buffer",
    extensions: &["glb", "gltf"],
    holds: &Feature::ALL,
    rewrites_faithfully: false,
    // `quantized`: KHR_mesh_quantization; `meshopt`: and EXT_meshopt_compression;
    // `-keep`: every surface, attribute and clip event kept (see `Compression::keep`).
    qualities: &[
        "float",
        "quantized",
        "meshopt",
        "quantized-keep",
        "meshopt-keep",
    ],
    ..FormatInfo::DEFAULT
};

impl Format for Gltf {
    fn info(&self) -> &'static FormatInfo {
        &FORMAT_INFO
    }

    fn sniff(&self, data: &[u8]) -> bool {
        sniff(data)
    }

    fn read(&self, data: &[u8], cx: &Context<'_>) -> Result<Box<dyn FormatFile>, FormatError> {
        let (model, stored) =
            import_detailed(data, cx.side_files, &cx.budget).map_err(format_error)?;
        Ok(Box::new(GltfFile {
            model,
            exported: None,
            stored: Some(stored),
        }))
    }

    /// A glTF document compressed as it stands, when the output is glTF under a
    /// compressing `--quality` and the document needs none of the repairs the model's
    /// way makes (see `recompress`).
    fn transcode(
        &self,
        data: &[u8],
        read_cx: &Context<'_>,
        write_cx: &Context<'_>,
    ) -> Result<Option<Converted<Written>>, FormatError> {
        let Some(c) = compression(write_cx)? else {
            return Ok(None);
        };
        let container = container(write_cx);
        let done = recompress(
            data,
            read_cx.side_files,
            container.clone(),
            c,
            &write_cx.budget,
        )
        .map_err(format_error)?;
        Ok(done.map(|e| Converted {
            value: written(container, e.value),
            losses: e.losses,
        }))
    }

    fn from_core(
        &self,
        model: &Model,
        cx: &Context<'_>,
    ) -> Result<Converted<Box<dyn FormatFile>>, FormatError> {
        let c = container(cx);
        let compression = compression(cx)?;
        let g = export_with(model, c.clone(), compression, &cx.budget).map_err(format_error)?;
        cx.budget.charge("model copy", model.heap_bytes())?;
        Ok(Converted {
            value: Box::new(GltfFile {
                model: Converted::exact(model.clone()),
                exported: Some((c, compression, g.value)),
                stored: None,
            }) as Box<dyn FormatFile>,
            losses: g.losses,
        })
    }
}

impl FormatFile for GltfFile {
    fn format(&self) -> &'static str {
        "gltf"
    }

    fn version(&self) -> String {
        "2.0".into()
    }

    /// The imported model's surfaces, skeleton, clips, materials, textures and bounds
    /// (positions placed by their nodes, so bounds are computed, not the accessors'
    /// local min/max), with each attribute's accessor type and each texture's source and
    /// image bytes as the document stores them.
    fn summary(&self, _: &Context<'_>) -> Result<Summary, FormatError> {
        let mut s = Summary::of_model(&self.model.value);
        s.format = "gltf".into();
        s.version = FormatFile::version(self);
        if let Some(stored) = &self.stored {
            for (surface, attributes) in s.surfaces.iter_mut().zip(&stored.surfaces) {
                surface.attributes.clone_from(attributes);
            }
            for (texture, (source, bytes)) in s.textures.iter_mut().zip(&stored.textures) {
                texture.source.clone_from(source);
                texture.bytes = *bytes;
            }
        }
        Ok(s)
    }

    /// A `.glb`, or a `.gltf` with its buffer in `STEM.bin` beside it (version
    /// `embedded`: inlined as a data URI).
    fn write(&self, cx: &Context<'_>) -> Result<Written, FormatError> {
        let c = container(cx);
        let compression = compression(cx)?;
        let exported = match &self.exported {
            Some((made_for, coded, e)) if *made_for == c && *coded == compression => e.clone(),
            _ => {
                export_with(&self.model.value, c.clone(), compression, &cx.budget)
                    .map_err(format_error)?
                    .value
            }
        };
        Ok(written(c, exported))
    }

    fn to_core(&self, cx: &Context<'_>) -> Result<Converted<Model>, FormatError> {
        cx.budget
            .charge("model copy", self.model.value.heap_bytes())?;
        Ok(self.model.clone())
    }

    fn as_any(&self) -> &dyn Any {
        &self.model.value
    }
}
