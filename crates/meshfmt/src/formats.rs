//! The one registry of formats the tool, its conformance runs and the fuzz checks
//! iterate: every format crate's [`Format`] and glTF and OBJ, with detection and the
//! choice of a writer for an output name.

use meshfmt_core::format::{Context, Format, FormatError};
use meshfmt_core::{Budget, Converted, Model, Summary};

use crate::error::CliError;

/// Every format, in detection order: formats with a magic first, then those recognized
/// by structure alone (MeshSerializer2) or by extension (OBJ).
pub static FORMATS: &[&'static dyn Format] = &[
    &unigine_mesh::FORMAT,
    &unigine_anim::FORMAT,
    &m3d_format::FORMAT,
    &niotso_mesh::FORMAT,
    &crate::gltf::FORMAT,
    &unity_meshser::FORMAT,
    &crate::obj::FORMAT,
];

/// The format for an output file: `--to NAME`; else the input's format when it owns
/// the extension; else the one format that writes the extension.
pub fn for_output(
    to: Option<&str>,
    file_name: &str,
    source: Option<&'static dyn Format>,
) -> Result<&'static dyn Format, CliError> {
    if let Some(name) = to {
        return by_name(name).ok_or_else(|| CliError::UnknownFormatName(name.to_string()));
    }
    let ext = extension(file_name);
    if let Some(source) = source.filter(|s| s.info().extensions.contains(&ext.as_str())) {
        return Ok(source);
    }
    writer_for(&ext)
}

/// The one format that writes `.ext` files: the only writer among the formats that own
/// the extension, or its only owner; an error naming them when there are several.
pub fn writer_for(ext: &str) -> Result<&'static dyn Format, CliError> {
    let owners: Vec<&'static dyn Format> = FORMATS
        .iter()
        .copied()
        .filter(|f| f.info().extensions.contains(&ext))
        .collect();
    let writers: Vec<&'static dyn Format> = owners
        .iter()
        .copied()
        .filter(|f| f.info().can_write)
        .collect();
    match (owners.as_slice(), writers.as_slice()) {
        (_, [one]) | ([one], []) => Ok(*one),
        ([], _) => Err(CliError::UnknownFormat {
            detail: format!("no format writes '.{ext}' files; name one with --to"),
        }),
        (_, many) => Err(CliError::UnknownFormat {
            detail: format!(
                "'.{ext}' is written by {}; name one with --to",
                many.iter()
                    .map(|f| f.info().name)
                    .collect::<Vec<_>>()
                    .join(", ")
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

/// The formats and versions whose clips can be split into files of their own
/// ([`FormatInfo::clip_files`](meshfmt_core::format::FormatInfo::clip_files)), for
/// messages: `unigine-mesh (mi08, ms08, ...), niotso-mesh (mesh)`.
pub fn with_clip_files() -> String {
    FORMATS
        .iter()
        .filter_map(|f| {
            let info = f.info();
            let versions: Vec<&str> = info
                .versions
                .iter()
                .filter(|v| v.clip_files.is_some())
                .map(|v| v.name)
                .collect();
            (!versions.is_empty()).then(|| format!("{} ({})", info.name, versions.join(", ")))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Looks a format up by name (`glb` is accepted for glTF).
pub fn by_name(name: &str) -> Option<&'static dyn Format> {
    let name = if name == "glb" { "gltf" } else { name };
    FORMATS.iter().copied().find(|f| f.info().name == name)
}

/// Picks the format of `data` named `file_name`: a format whose magic matches; else
/// the one format that claims the extension (a Vitaboy `.apr` has no magic of its own,
/// and a format recognized by structure alone must not take it); else a format whose
/// structure matches (MeshSerializer2).
pub fn detect(data: &[u8], file_name: &str) -> Result<&'static dyn Format, CliError> {
    let sniffs = |f: &&&'static dyn Format| f.sniff(data);
    if let Some(f) = FORMATS.iter().filter(|f| f.info().has_magic).find(sniffs) {
        return Ok(*f);
    }
    let ext = extension(file_name);
    let owners: Vec<&'static dyn Format> = FORMATS
        .iter()
        .copied()
        .filter(|f| f.info().owns_extension(&ext))
        .collect();
    if let [one] = owners.as_slice() {
        return Ok(*one);
    }
    if let Some(f) = FORMATS.iter().filter(|f| !f.info().has_magic).find(sniffs) {
        return Ok(*f);
    }
    match owners.as_slice() {
        [] => {
            let tried = FORMATS
                .iter()
                .map(|f| f.info().name)
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
                    .map(|f| f.info().name)
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
        }),
    }
}

/// `data` (named `file_name`: its extension may pick a kind or form) read as `f` and
/// converted to meshfmt-core, under `budget`, without side files.
///
/// ```
/// use meshfmt::formats::{by_name, encode, to_core};
/// use meshfmt_core::Budget;
/// let f = by_name("unigine-mesh").ok_or("no format")?;
/// let model = meshfmt_core::canonical::cube();
/// let bytes = encode(f, &model, "cube.mesh", &Budget::default())?.value;
/// assert_eq!(to_core(f, &bytes, "cube.mesh", &Budget::default())?.value.triangle_count(), 12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn to_core(
    f: &dyn Format,
    data: &[u8],
    file_name: &str,
    budget: &Budget,
) -> Result<Converted<Model>, FormatError> {
    let cx = Context::new(file_name).with_budget(budget.clone());
    f.read(data, &cx)?.to_core(&cx)
}

/// `data` read as `f` and summarized for `info`, under `budget`.
pub fn summary(
    f: &dyn Format,
    data: &[u8],
    file_name: &str,
    budget: &Budget,
) -> Result<Summary, FormatError> {
    let cx = Context::new(file_name).with_budget(budget.clone());
    f.read(data, &cx)?.summary(&cx)
}

/// `model` encoded by `f` for an output named `file_name` (the version its extension
/// implies, or the default): the main file's bytes and the losses.
pub fn encode(
    f: &dyn Format,
    model: &Model,
    file_name: &str,
    budget: &Budget,
) -> Result<Converted<Vec<u8>>, FormatError> {
    let cx = Context::new(file_name).with_budget(budget.clone());
    let c = f.from_core(model, &cx)?;
    Ok(Converted {
        value: c.value.write(&cx)?.main,
        losses: c.losses,
    })
}

/// The faithful rewrite of `data` (read as `f` and written under the same name).
pub fn rewrite(
    f: &dyn Format,
    data: &[u8],
    file_name: &str,
    budget: &Budget,
) -> Result<Vec<u8>, FormatError> {
    let cx = Context::new(file_name).with_budget(budget.clone());
    Ok(f.read(data, &cx)?.write(&cx)?.main)
}

#[cfg(test)]
#[path = "tests/formats.rs"]
mod tests;
