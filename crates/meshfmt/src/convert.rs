//! `meshfmt convert`: one file to another format, as a function the tool and its batch
//! mode share. Nothing is written here; the caller gets the output files' bytes and
//! the loss report.
//!
//! Routes: same format and version (and no `--quality`): the faithful rewrite,
//! byte-identical for files the reader fully understands; `.glb`/`.gltf` input: glTF
//! import; `.glb`/`.gltf`/`.obj` output: the exporters; anything else through
//! meshfmt-core with the target format's encoder.

use std::path::{Path, PathBuf};

use meshfmt_core::{Budget, BudgetExceeded, Converted, Limits, Loss, Model};

use crate::adapters::{EncodeOptions, Quality};
use crate::error::CliError;
use crate::formats::{self, Format};
use crate::gltf::Container;

/// What `convert` was asked for.
#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    /// Read the input as this format (`--from`).
    pub from: Option<String>,
    /// Write this format (`--to`): a format name, or `glb`, `gltf`, `obj`.
    pub to: Option<String>,
    /// Quantization quality for formats that quantize.
    pub quality: Option<Quality>,
    /// Format version to write (`ms14`, `an10`, ...).
    pub version: Option<String>,
    /// `.gltf`: inline the buffer instead of writing a `.bin` beside it.
    pub embed: bool,
    /// Any loss is an error (`--strict`).
    pub strict: bool,
    /// An M3D material library's bytes (`--mtllib`): models split by `m3dconv -m` find
    /// their materials there.
    pub mtllib: Option<Vec<u8>>,
    /// The memory one conversion may use (`--max-memory`): the input, every decoded
    /// array, side file, model, resampled or generated element and the output are
    /// charged to one [`Budget`] of `limits.max_alloc_bytes`.
    pub limits: Limits,
}

/// The files a conversion produces: the output itself, then side files (`.bin`, `.mtl`).
pub type Outputs = Vec<(PathBuf, Vec<u8>)>;

/// The extension an output gets for `--to` in batch mode (`unigine-mesh` -> `mesh`).
pub fn extension_for(to: &str) -> Result<String, CliError> {
    if matches!(to, "glb" | "gltf" | "obj") {
        return Ok(to.to_string());
    }
    let f = formats::by_name(to).ok_or_else(|| CliError::UnknownFormatName(to.to_string()))?;
    if f.from_core.is_none() {
        return Err(CliError::WriteNotSupported {
            format: f.name,
            tracking: f.tracking,
        });
    }
    Ok(f.extensions
        .first()
        .copied()
        .unwrap_or_default()
        .to_string())
}

fn read(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|source| CliError::Io {
        path: path.display().to_string(),
        source,
    })
}

fn not_readable(f: &Format) -> CliError {
    CliError::NotSupported {
        format: f.name,
        tracking: f.tracking,
    }
}

/// Converts `input` (already read into `data`) for writing at `output`, under one
/// [`Budget`] of `opts.limits` for the whole conversion (the input's bytes included).
pub fn convert(
    input: &Path,
    data: &[u8],
    output: &Path,
    opts: &ConvertOptions,
) -> Result<Converted<Outputs>, CliError> {
    let budget = Budget::new(opts.limits);
    budget.charge("input file", data.len() as u64)?;
    let out = convert_lenient(input, data, output, opts, &budget)?;
    if opts.strict && !out.losses.is_empty() {
        let list: Vec<String> = out.losses.iter().map(ToString::to_string).collect();
        return Err(CliError::Strict(list.join("; ")));
    }
    Ok(out)
}

/// Reads an input file, refusing one larger than `limits.max_alloc_bytes` before
/// reading it (the conversion then charges its bytes to its budget).
pub fn read_input(path: &Path, limits: &Limits) -> Result<Vec<u8>, CliError> {
    read_side_file(path, &Budget::new(*limits))
}

/// Reads a side file (a `.gltf`'s buffer, an `.obj`'s material library, an `.m3d`'s
/// texture) once its size is known to fit what is left of `budget` (the reader of the
/// bytes charges them).
pub fn read_side_file(path: &Path, budget: &Budget) -> Result<Vec<u8>, CliError> {
    let len = std::fs::metadata(path)
        .map_err(|source| CliError::Io {
            path: path.display().to_string(),
            source,
        })?
        .len();
    if len > budget.remaining() {
        return Err(BudgetExceeded {
            what: "the input file",
            requested: len,
            used: budget.used(),
            limit: budget.limits().max_alloc_bytes,
        }
        .into());
    }
    read(path)
}

fn convert_lenient(
    input: &Path,
    data: &[u8],
    output: &Path,
    opts: &ConvertOptions,
    budget: &Budget,
) -> Result<Converted<Outputs>, CliError> {
    let input_name = input.to_string_lossy();
    let output_name = output.to_string_lossy();
    let out_ext = formats::extension(&output_name);
    let target = opts.to.clone().unwrap_or_else(|| out_ext.clone());
    let in_ext = formats::extension(&input_name);
    let gltf_input =
        opts.from.is_none() && (crate::gltf::sniff(data) || in_ext == "gltf" || in_ext == "glb");
    let obj_input = opts.from.is_none() && !gltf_input && in_ext == "obj";
    // Side files (a .gltf's buffers, an .obj's mtllib, an .m3d's textures) are read from
    // beside the input.
    let dir = input.parent().map(Path::to_path_buf).unwrap_or_default();
    let load = |uri: &str| -> Result<Vec<u8>, CliError> {
        if uri.contains(':') || uri.starts_with('/') || uri.starts_with('\\') {
            return Err(CliError::Format(format!(
                "'{uri}' is not a relative file path"
            )));
        }
        read_side_file(&dir.join(uri), budget)
    };
    // Source model, unless this is a faithful rewrite.
    let mut source = None;
    let model: Converted<Model> = if gltf_input {
        crate::gltf::import(data, &load, budget)?
    } else if obj_input {
        crate::obj::import(data, &load, budget)?
    } else {
        let src = match &opts.from {
            Some(name) => {
                formats::by_name(name).ok_or_else(|| CliError::UnknownFormatName(name.clone()))?
            }
            None => formats::detect(data, &input_name)?,
        };
        if !matches!(target.as_str(), "glb" | "gltf" | "obj") {
            let dst = formats::for_output(opts.to.as_deref(), &output_name, src)?;
            let version = opts.version.clone().or_else(|| {
                dst.extension_version
                    .and_then(|f| f(&out_ext))
                    .map(str::to_string)
            });
            let same_version = match (dst.version, &version) {
                (_, None) => true,
                (Some(v), Some(wanted)) => v(data).as_deref() == Some(wanted.as_str()),
                (None, Some(_)) => false,
            };
            // Same format and version, nothing asked to change: the faithful rewrite.
            if std::ptr::eq(src, dst)
                && same_version
                && opts.quality.is_none()
                && opts.mtllib.is_none()
            {
                if let Some(rewrite) = dst.rewrite {
                    return Ok(Converted::exact(vec![(
                        output.to_path_buf(),
                        rewrite(data, budget)?,
                    )]));
                }
            }
        }
        let to_core = src.to_core.ok_or_else(|| not_readable(src))?;
        source = Some(src);
        if src.name == "m3d" {
            // External textures live beside the model, as for a .gltf's buffers.
            crate::adapters::m3d::to_core_with_files(
                data,
                &|name| load(name).ok(),
                opts.mtllib.as_deref(),
                budget,
            )?
        } else {
            to_core(data, budget)?
        }
    };
    let mut losses: Vec<Loss> = model.losses;
    let files = match target.as_str() {
        "glb" | "gltf" => {
            let bin_name = format!(
                "{}.bin",
                output.file_stem().unwrap_or_default().to_string_lossy()
            );
            let container = match (target == "glb", opts.embed) {
                (true, _) => Container::Glb,
                (false, true) => Container::Embedded,
                (false, false) => Container::Separate(bin_name.clone()),
            };
            let g = crate::gltf::export(&model.value, container, budget)?;
            losses.extend(g.losses);
            let mut files = vec![(output.to_path_buf(), g.value.main)];
            if let Some(buffer) = g.value.buffer {
                files.push((output.with_file_name(bin_name), buffer));
            }
            files
        }
        "obj" => {
            let mtl_name = format!(
                "{}.mtl",
                output.file_stem().unwrap_or_default().to_string_lossy()
            );
            let o = crate::obj::export(&model.value, &mtl_name, budget)?;
            losses.extend(o.losses);
            let mut files = vec![(output.to_path_buf(), o.value.obj.into_bytes())];
            if !o.value.mtl.is_empty() {
                files.push((output.with_file_name(mtl_name), o.value.mtl.into_bytes()));
            }
            files
        }
        _ => {
            let dst = match &opts.to {
                Some(name) => formats::by_name(name)
                    .ok_or_else(|| CliError::UnknownFormatName(name.clone()))?,
                None => match &source {
                    Some(src) => formats::for_output(None, &output_name, src)?,
                    None => formats::writer_for(&out_ext)?,
                },
            };
            let from_core = dst.from_core.ok_or(CliError::WriteNotSupported {
                format: dst.name,
                tracking: dst.tracking,
            })?;
            let version = opts.version.clone().or_else(|| {
                dst.extension_version
                    .and_then(|f| f(&out_ext))
                    .map(str::to_string)
            });
            let options = EncodeOptions {
                quality: opts.quality,
                version,
                extension: out_ext,
            };
            let encoded = from_core(&model.value, &options, budget)?;
            losses.extend(encoded.losses);
            vec![(output.to_path_buf(), encoded.value)]
        }
    };
    Ok(Converted {
        value: files,
        losses,
    })
}
