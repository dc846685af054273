//! Wavefront OBJ as a meshfmt-core [`Format`], an ordinary member of the registry.

use std::any::Any;

use meshfmt_core::format::{Context, Format, FormatError, FormatFile, FormatInfo, Written};
use meshfmt_core::{Attribute, Converted, Feature, Model, Summary};

use crate::error::CliError;
use crate::obj::{ObjFiles, export, import};

/// Wavefront OBJ (+ MTL): static geometry, one UV set, materials by name. OBJ has no
/// magic: it is recognized by its extension. Reading imports into meshfmt-core at once;
/// `mtllib` files come from the context's side files. Writing puts the library in
/// `STEM.mtl` beside the output.
#[derive(Debug, Clone, Copy, Default)]
pub struct Obj;

/// The format, for registries.
pub const FORMAT: Obj = Obj;

struct ObjFile {
    model: Converted<Model>,
    exported: Option<(String, ObjFiles)>,
}

fn format_error(e: CliError) -> FormatError {
    match e {
        CliError::File(f) => f,
        other => FormatError::Invalid {
            format: "obj",
            message: other.to_string(),
        },
    }
}

fn mtl_name(cx: &Context<'_>) -> String {
    format!("{}.mtl", cx.stem())
}

/// What OBJ files are, as data: recognized by extension alone (no magic), read straight
/// into meshfmt-core (a rewrite is a new export).
pub static FORMAT_INFO: FormatInfo = FormatInfo {
    name: "obj",
    description: "Wavefront OBJ + MTL (static geometry; by extension, no magic)",
    extensions: &["obj"],
    has_magic: false,
    holds: &[
        Feature::Geometry,
        Feature::Normals,
        Feature::Uv0,
        Feature::Materials,
        Feature::Textures,
        Feature::Names,
    ],
    rewrites_faithfully: false,
    ..FormatInfo::DEFAULT
};

impl Format for Obj {
    fn info(&self) -> &'static FormatInfo {
        &FORMAT_INFO
    }

    /// OBJ has no magic: it is recognized by its extension.
    fn sniff(&self, _: &[u8]) -> bool {
        false
    }

    fn read(&self, data: &[u8], cx: &Context<'_>) -> Result<Box<dyn FormatFile>, FormatError> {
        let model = import(data, cx.side_files, &cx.budget).map_err(format_error)?;
        Ok(Box::new(ObjFile {
            model,
            exported: None,
        }))
    }

    fn from_core(
        &self,
        model: &Model,
        cx: &Context<'_>,
    ) -> Result<Converted<Box<dyn FormatFile>>, FormatError> {
        let mtl = mtl_name(cx);
        let o = export(model, &mtl, &cx.budget).map_err(format_error)?;
        cx.budget.charge("model copy", model.heap_bytes())?;
        Ok(Converted {
            value: Box::new(ObjFile {
                model: Converted::exact(model.clone()),
                exported: Some((mtl, o.value)),
            }) as Box<dyn FormatFile>,
            losses: o.losses,
        })
    }
}

impl FormatFile for ObjFile {
    fn format(&self) -> &'static str {
        "obj"
    }

    fn version(&self) -> String {
        "obj".into()
    }

    /// The imported model's surfaces (one per group and material), materials, textures
    /// and computed bounds; every attribute is stored as decimal text (`v`, `vt`, `vn`
    /// lines, `f` corners with 1-based indices).
    fn summary(&self, _: &Context<'_>) -> Result<Summary, FormatError> {
        let mut s = Summary::of_model(&self.model.value);
        s.format = "obj".into();
        s.version = FormatFile::version(self);
        for surface in &mut s.surfaces {
            for a in &mut surface.attributes {
                a.stored = match a.name.as_str() {
                    "position" => "text (v x y z)",
                    "normal" => "text (vn)",
                    "uv0" => "text (vt)",
                    "color" => "text (v x y z r g b)",
                    _ => "text",
                }
                .into();
            }
            if surface.triangles > 0 {
                surface
                    .attributes
                    .push(Attribute::new("indices", "text (f, 1-based)"));
            }
        }
        Ok(s)
    }

    fn write(&self, cx: &Context<'_>) -> Result<Written, FormatError> {
        let mtl = mtl_name(cx);
        let files = match &self.exported {
            Some((made_for, f)) if *made_for == mtl => f.clone(),
            _ => {
                export(&self.model.value, &mtl, &cx.budget)
                    .map_err(format_error)?
                    .value
            }
        };
        let mut written = Written::one(files.obj.into_bytes());
        if !files.mtl.is_empty() {
            written.side.push((mtl, files.mtl.into_bytes()));
        }
        Ok(written)
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
