//! The formats the tool knows, how each is detected, and what it can do so far.

use meshfmt_core::{Budget, Converted, Model};

use crate::adapters::{self, EncodeOptions};
use crate::error::CliError;
use crate::info::Info;

/// Reads a whole file into `info` counts, charging what it decodes to the budget.
pub type InspectFn = fn(&[u8], &Budget) -> Result<Info, CliError>;
/// Decodes a whole file into meshfmt-core, all steps charging one budget.
pub type ToCoreFn = fn(&[u8], &Budget) -> Result<Converted<Model>, CliError>;
/// Encodes meshfmt-core into the format (the output bytes charged too).
pub type FromCoreFn = fn(&Model, &EncodeOptions, &Budget) -> Result<Converted<Vec<u8>>, CliError>;
/// Reads and writes the faithful types: the same-format rewrite.
pub type RewriteFn = fn(&[u8], &Budget) -> Result<Vec<u8>, CliError>;
/// The version a file holds.
pub type VersionFn = fn(&[u8]) -> Option<String>;

/// One file format family, backed by one format crate.
pub struct Format {
    /// Crate and format name, as printed in `info` (`unigine-mesh`).
    pub name: &'static str,
    /// What files it covers.
    pub description: &'static str,
    /// File extensions, lower case, without the dot.
    pub extensions: &'static [&'static str],
    /// The crate's cheap magic/structure check.
    pub sniff: fn(&[u8]) -> bool,
    /// Reads a file into `info` counts, once the crate has a reader.
    pub inspect: Option<InspectFn>,
    /// Decodes to meshfmt-core, once the crate has a reader.
    pub to_core: Option<ToCoreFn>,
    /// Encodes from meshfmt-core, once the crate has a writer.
    pub from_core: Option<FromCoreFn>,
    /// Faithful same-format rewrite, once the crate reads and writes.
    pub rewrite: Option<RewriteFn>,
    /// The version a file holds (for formats with several), so `convert` rewrites only
    /// when input and output versions match.
    pub version: Option<VersionFn>,
    /// The version an output extension implies (`.smesh` is ms08), if any.
    pub extension_version: Option<fn(&str) -> Option<&'static str>>,
    /// The issue that brings the reader, for the "not yet" message.
    pub tracking: &'static str,
}

/// Every format, in detection order: magic-number formats first, then the formats
/// recognized by structure alone (no magic), whose checks are weaker.
pub const FORMATS: &[Format] = &[
    Format {
        name: "unigine-mesh",
        description: "UNIGINE mesh (mi08, ms08 .smesh, ms10, ms11, ms13, ms14, ms15, sk10 .mesh_skinned, sn10 .skeleton)",
        extensions: &["mesh", "smesh", "mesh_skinned", "skeleton"],
        sniff: unigine_mesh::sniff,
        inspect: Some(adapters::unigine::inspect),
        to_core: Some(adapters::unigine::to_core),
        from_core: Some(adapters::unigine::from_core),
        rewrite: Some(adapters::unigine::rewrite),
        version: Some(adapters::unigine::version),
        extension_version: Some(adapters::unigine::extension_version),
        tracking: "issue 3",
    },
    Format {
        name: "unigine-anim",
        description: "UNIGINE animation (as08 .sanim, an10, an11, an12)",
        extensions: &["anim", "sanim"],
        sniff: unigine_anim::sniff,
        inspect: Some(adapters::anim::inspect),
        to_core: Some(adapters::anim::to_core),
        from_core: Some(adapters::anim::from_core),
        rewrite: Some(adapters::anim::rewrite),
        version: Some(adapters::unigine::version),
        extension_version: Some(adapters::anim::extension_version),
        tracking: "issue 4",
    },
    Format {
        name: "m3d",
        description: "Model 3D, binary (3DMO) and ASCII (3dmodel)",
        extensions: &["m3d", "a3d"],
        sniff: m3d_format::sniff,
        inspect: Some(adapters::m3d::inspect),
        to_core: Some(adapters::m3d::to_core),
        from_core: Some(adapters::m3d::from_core),
        rewrite: Some(adapters::m3d::rewrite),
        version: Some(adapters::m3d::version),
        extension_version: Some(adapters::m3d::extension_version),
        tracking: "issue 7",
    },
    Format {
        name: "niotso-mesh",
        description: "The Sims Online Vitaboy .mesh v2, .skel v1, .anim v2",
        extensions: &["mesh", "skel", "anim"],
        sniff: niotso_mesh::sniff,
        inspect: Some(adapters::vitaboy::inspect),
        to_core: Some(adapters::vitaboy::to_core),
        from_core: Some(adapters::vitaboy::from_core),
        rewrite: Some(adapters::vitaboy::rewrite),
        version: None,
        extension_version: None,
        tracking: "issue 5",
    },
    Format {
        name: "unity-meshser",
        description: "Unity MeshSerializer2 compact mesh (no magic; exact-length check)",
        extensions: &["bytes", "data"],
        sniff: unity_meshser::sniff,
        inspect: Some(adapters::unity::inspect),
        to_core: Some(adapters::unity::to_core),
        from_core: Some(adapters::unity::from_core),
        rewrite: Some(adapters::unity::rewrite),
        version: None,
        extension_version: None,
        tracking: "issue 6",
    },
];

/// The format for an output file: `--to NAME`; else the input's format when it owns
/// the extension; else the one format that writes the extension.
pub fn for_output(
    to: Option<&str>,
    file_name: &str,
    source: &'static Format,
) -> Result<&'static Format, CliError> {
    if let Some(name) = to {
        return by_name(name).ok_or_else(|| CliError::UnknownFormatName(name.to_string()));
    }
    let ext = extension(file_name);
    if source.extensions.contains(&ext.as_str()) {
        return Ok(source);
    }
    writer_for(&ext)
}

/// The one format that writes `.ext` files: the only writer among the formats that own
/// the extension, or its only owner; an error naming them when there are several.
pub fn writer_for(ext: &str) -> Result<&'static Format, CliError> {
    let owners: Vec<&'static Format> = FORMATS
        .iter()
        .filter(|f| f.extensions.contains(&ext))
        .collect();
    let writers: Vec<&'static Format> = owners
        .iter()
        .copied()
        .filter(|f| f.from_core.is_some())
        .collect();
    match (owners.as_slice(), writers.as_slice()) {
        (_, [one]) | ([one], []) => Ok(one),
        ([], _) => Err(CliError::UnknownFormat {
            detail: format!("no format writes '.{ext}' files; name one with --to"),
        }),
        (_, many) => Err(CliError::UnknownFormat {
            detail: format!(
                "'.{ext}' is written by {}; name one with --to",
                many.iter().map(|f| f.name).collect::<Vec<_>>().join(", ")
            ),
        }),
    }
}

/// The lower-case extension of a file name, without the dot.
pub fn extension(file_name: &str) -> String {
    std::path::Path::new(file_name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default()
}

/// Looks a format up by name.
pub fn by_name(name: &str) -> Option<&'static Format> {
    FORMATS.iter().find(|f| f.name == name)
}

/// Picks the format of `data` named `file_name`: content first, then an extension that
/// only one format uses.
pub fn detect(data: &[u8], file_name: &str) -> Result<&'static Format, CliError> {
    if let Some(f) = FORMATS.iter().find(|f| (f.sniff)(data)) {
        return Ok(f);
    }
    let ext = extension(file_name);
    let owners: Vec<&'static Format> = FORMATS
        .iter()
        .filter(|f| f.extensions.contains(&ext.as_str()))
        .collect();
    match owners.as_slice() {
        [one] => Ok(one),
        [] => {
            let tried = FORMATS
                .iter()
                .map(|f| f.name)
                .collect::<Vec<_>>()
                .join(", ");
            Err(CliError::UnknownFormat {
                detail: if ext.is_empty() {
                    format!("no magic matched (tried {tried}) and the file has no extension")
                } else {
                    format!(
                        "no magic matched (tried {tried}) and the extension '.{ext}' is not a known one"
                    )
                },
            })
        }
        many => Err(CliError::UnknownFormat {
            detail: format!(
                "no magic matched; '.{ext}' is used by {} but none recognized the content",
                many.iter()
                    .map(|f| f.name)
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
        }),
    }
}

#[cfg(test)]
#[path = "tests/formats.rs"]
mod tests;
