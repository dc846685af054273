//! `meshfmt convert`: one file to another format, as a function the tool and its batch
//! mode share. Nothing is written here; the caller gets the output files' bytes and
//! the loss report.
//!
//! Every format is a [`Format`] of the registry ([`crate::formats::FORMATS`]), glTF
//! and OBJ included. Routes: same format and version (and no `--quality`, no
//! companions): the faithful rewrite, byte-identical for files the reader fully
//! understands; anything else reads the input's faithful file, converts it to
//! meshfmt-core and has the target format encode it.

use std::path::{Path, PathBuf};

use meshfmt_core::format::{Context, Format, FormatError, SideFiles};
use meshfmt_core::{Budget, BudgetExceeded, Converted, Limits};

use crate::error::CliError;
use crate::formats;

/// What `convert` was asked for.
#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    /// Read the input as this format (`--from`).
    pub from: Option<String>,
    /// Write this format (`--to`): a format name (`glb` for glTF too).
    pub to: Option<String>,
    /// Quantization quality for formats that quantize (`rounded`, `int16`, ...).
    pub quality: Option<String>,
    /// Format version to write (`ms14`, `an10`, `ascii`, ...).
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
    if to == "glb" {
        return Ok("glb".into());
    }
    let f = formats::by_name(to).ok_or_else(|| CliError::UnknownFormatName(to.to_string()))?;
    if !f.can_write() {
        return Err(CliError::Usage(format!("{} cannot be written", f.name())));
    }
    Ok(f.extensions()
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

/// Files beside an input, by relative name (never an absolute path or a URI), each
/// checked against the conversion's budget before it is read.
pub struct Beside<'a> {
    /// The input's folder.
    pub dir: PathBuf,
    /// The conversion's budget.
    pub budget: &'a Budget,
}

impl SideFiles for Beside<'_> {
    fn read(&self, name: &str) -> Result<Option<Vec<u8>>, FormatError> {
        if name.contains(':') || name.starts_with('/') || name.starts_with('\\') {
            return Err(FormatError::Unsupported {
                format: "meshfmt",
                message: format!("'{name}' is not a relative file path"),
            });
        }
        let path = self.dir.join(name);
        if !path.is_file() {
            return Ok(None);
        }
        match read_side_file(&path, self.budget) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(CliError::File(e)) => Err(e),
            Err(e) => Err(FormatError::Io(std::io::Error::other(e.to_string()))),
        }
    }
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
    let src: &'static dyn Format = match &opts.from {
        Some(name) => {
            formats::by_name(name).ok_or_else(|| CliError::UnknownFormatName(name.clone()))?
        }
        None => formats::detect(data, &input_name)?,
    };
    let dst = formats::for_output(opts.to.as_deref(), &output_name, Some(src))?;
    let out_ext = formats::extension(&output_name);
    let version = match (&opts.version, opts.embed && dst.name() == "gltf") {
        (Some(v), _) => Some(v.clone()),
        (None, true) => Some("embedded".to_string()),
        (None, false) => dst.version_for_extension(&out_ext).map(str::to_string),
    };
    let side = Beside {
        dir: input.parent().map(Path::to_path_buf).unwrap_or_default(),
        budget,
    };
    let read_cx = Context {
        side_files: Some(&side),
        material_library: opts.mtllib.as_deref(),
        ..Context::new(&input_name).with_budget(budget.clone())
    };
    let write_cx = Context {
        version: version.as_deref(),
        quality: opts.quality.as_deref(),
        ..read_cx.for_file(&output_name)
    };
    let file = src.read(data, &read_cx)?;
    // Same format and version, nothing asked to change: the faithful rewrite.
    let same_version = version.as_deref().is_none_or(|v| v == file.version());
    let files = if src.name() == dst.name()
        && same_version
        && opts.quality.is_none()
        && opts.mtllib.is_none()
    {
        Converted::exact(file.write(&write_cx)?)
    } else {
        let model = file.to_core(&read_cx)?;
        drop(file);
        let encoded = dst.from_core(&model.value, &write_cx)?;
        let mut losses = model.losses;
        losses.extend(encoded.losses);
        Converted {
            value: encoded.value.write(&write_cx)?,
            losses,
        }
    };
    let mut outputs = vec![(output.to_path_buf(), files.value.main)];
    for (name, bytes) in files.value.side {
        outputs.push((output.with_file_name(name), bytes));
    }
    Ok(Converted {
        value: outputs,
        losses: files.losses,
    })
}
