//! `meshfmt`: inspect, validate and convert game mesh and animation files.
//!
//! ```text
//! meshfmt info FILE [--json] [--format NAME]
//! meshfmt dump FILE [--format NAME] [--max-items N]
//! meshfmt validate FILE [--format NAME]
//! meshfmt convert IN OUT [--to NAME] [--quality compatible|rounded]
//! meshfmt formats
//! ```
//! Errors go to stderr as one line with the byte offset, and the exit code is 1.
//! `convert` between the same format rewrites the file's faithful types (byte-identical
//! for files the reader fully understands); other conversions go through meshfmt-core
//! and print what was lost.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use meshfmt_core::{DumpOptions, Model, dump, validate};

use meshfmt::adapters::{EncodeOptions, Quality};
use meshfmt::error::CliError;
use meshfmt::formats::{self, FORMATS, Format};

#[derive(Parser)]
#[command(
    name = "meshfmt",
    version,
    about = "Inspect, validate and convert game mesh and animation files"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Detect a file's format and print what it holds.
    Info {
        /// The file to inspect.
        file: String,
        /// Print one JSON object with stable keys instead of text.
        #[arg(long)]
        json: bool,
        /// Skip detection and read the file as this format (see `meshfmt formats`).
        #[arg(long, value_name = "NAME")]
        format: Option<String>,
    },
    /// Print everything a file holds, decoded, as text.
    Dump {
        /// The file to dump.
        file: String,
        /// Skip detection and read the file as this format.
        #[arg(long, value_name = "NAME")]
        format: Option<String>,
        /// Print at most this many entries per array.
        #[arg(long, value_name = "N")]
        max_items: Option<usize>,
    },
    /// Read a file and check the result; print every problem with its path.
    Validate {
        /// The file to check.
        file: String,
        /// Skip detection and read the file as this format.
        #[arg(long, value_name = "NAME")]
        format: Option<String>,
    },
    /// Convert a file to another format (or rewrite it in the same one).
    Convert {
        /// Input file.
        input: String,
        /// Output file.
        output: String,
        /// Read the input as this format.
        #[arg(long, value_name = "NAME")]
        from: Option<String>,
        /// Write this format (default: from the output's extension).
        #[arg(long, value_name = "NAME")]
        to: Option<String>,
        /// Quantization quality for formats that quantize (default: the format's own).
        #[arg(long, value_enum)]
        quality: Option<Quality>,
        /// Format version to write (e.g. ms10, ms11 for unigine-mesh).
        #[arg(long, value_name = "VERSION")]
        version: Option<String>,
        /// For `.gltf` output: inline the buffer as a data URI instead of writing a
        /// `.bin` file beside it.
        #[arg(long)]
        embed: bool,
    },
    /// List the supported formats and what the tool can do with each.
    Formats,
}

fn read_file(path: &str) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|source| CliError::Io {
        path: path.to_string(),
        source,
    })
}

fn pick(data: &[u8], path: &str, forced: Option<String>) -> Result<&'static Format, CliError> {
    match forced {
        Some(name) => formats::by_name(&name).ok_or(CliError::UnknownFormatName(name)),
        None => formats::detect(data, path),
    }
}

fn not_readable(f: &Format) -> CliError {
    CliError::NotSupported {
        format: f.name,
        tracking: f.tracking,
    }
}

fn load(path: &str, forced: Option<String>) -> Result<(Model, &'static Format), CliError> {
    let data = read_file(path)?;
    let f = pick(&data, path, forced)?;
    let to_core = f.to_core.ok_or_else(|| not_readable(f))?;
    let conv = to_core(&data)?;
    for loss in &conv.losses {
        eprintln!("meshfmt: note: {loss}");
    }
    Ok((conv.value, f))
}

fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Info { file, json, format } => {
            let data = read_file(&file)?;
            let f = pick(&data, &file, format)?;
            let inspect = f.inspect.ok_or_else(|| not_readable(f))?;
            let info = inspect(&data)?;
            if json {
                println!("{}", info.to_json());
            } else {
                print!("{}", info.to_text());
            }
            Ok(())
        }
        Command::Dump {
            file,
            format,
            max_items,
        } => {
            let (model, _) = load(&file, format)?;
            let opts = DumpOptions {
                max_items: max_items.unwrap_or(usize::MAX),
            };
            print!("{}", dump(&model, &opts));
            Ok(())
        }
        Command::Validate { file, format } => {
            let (model, f) = load(&file, format)?;
            let problems = validate(&model);
            for p in &problems {
                println!("{p}");
            }
            if problems.is_empty() {
                println!("{file}: valid {} file", f.name);
                Ok(())
            } else {
                Err(CliError::Invalid(problems.len()))
            }
        }
        Command::Convert {
            input,
            output,
            from,
            to,
            quality,
            version,
            embed,
        } => {
            let data = read_file(&input)?;
            let input_ext = formats::extension(&input);
            if from.is_none()
                && (meshfmt::gltf::sniff(&data) || input_ext == "gltf" || input_ext == "glb")
            {
                return import_gltf(&data, &input, &output, to, quality, version);
            }
            let src = pick(&data, &input, from)?;
            let gltf_target = to.clone().unwrap_or_else(|| formats::extension(&output));
            if gltf_target == "obj" {
                return export_obj(src, &data, &output);
            }
            if gltf_target == "glb" || gltf_target == "gltf" {
                return export_gltf(src, &data, &output, gltf_target == "glb", embed);
            }
            let dst = formats::for_output(to.as_deref(), &output, src)?;
            let extension = formats::extension(&output);
            // Same format and version, nothing asked to change: rewrite the faithful
            // types, byte-identical for files the reader fully understands.
            let version = version.or_else(|| {
                dst.extension_version
                    .and_then(|f| f(&extension))
                    .map(str::to_string)
            });
            let same_version = match (dst.version, &version) {
                (_, None) => true,
                (Some(v), Some(wanted)) => v(&data).as_deref() == Some(wanted.as_str()),
                (None, Some(_)) => false,
            };
            let same = std::ptr::eq(src, dst) && same_version && quality.is_none();
            let bytes = match (same, dst.rewrite) {
                (true, Some(rewrite)) => rewrite(&data)?,
                _ => {
                    let to_core = src.to_core.ok_or_else(|| not_readable(src))?;
                    let from_core = dst.from_core.ok_or(CliError::WriteNotSupported {
                        format: dst.name,
                        tracking: dst.tracking,
                    })?;
                    let model = to_core(&data)?;
                    let options = EncodeOptions {
                        quality,
                        version,
                        extension,
                    };
                    let encoded = from_core(&model.value, &options)?;
                    for loss in model.losses.iter().chain(&encoded.losses) {
                        eprintln!("meshfmt: note: {loss}");
                    }
                    encoded.value
                }
            };
            std::fs::write(&output, bytes).map_err(|source| CliError::Io {
                path: output.clone(),
                source,
            })
        }
        Command::Formats => {
            println!(
                "{:<14} {:<14} {:<5} {:<5} description",
                "name", "extensions", "read", "write"
            );
            let yes = |b: bool| if b { "yes" } else { "no" };
            for f in FORMATS {
                println!(
                    "{:<14} {:<14} {:<5} {:<5} {}",
                    f.name,
                    f.extensions.join(","),
                    yes(f.to_core.is_some()),
                    yes(f.from_core.is_some()),
                    f.description
                );
            }
            Ok(())
        }
    }
}

/// `convert` from `.glb` or `.gltf` (buffers in the GLB, data URIs or files beside it)
/// to any writable format.
fn import_gltf(
    data: &[u8],
    input: &str,
    output: &str,
    to: Option<String>,
    quality: Option<Quality>,
    version: Option<String>,
) -> Result<(), CliError> {
    let dir = std::path::Path::new(input)
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let load = |uri: &str| -> Result<Vec<u8>, CliError> {
        if uri.contains(':') || uri.starts_with('/') {
            return Err(CliError::Format(format!(
                "gltf: buffer URI '{uri}' is not a relative file path"
            )));
        }
        read_file(&dir.join(uri).to_string_lossy())
    };
    let model = meshfmt::gltf::import(data, &load)?;
    let ext = formats::extension(output);
    let dst = match to.as_deref() {
        Some(name) => FORMATS
            .iter()
            .find(|f| f.name == name)
            .ok_or_else(|| CliError::Format(format!("unknown output format '{name}'")))?,
        None => FORMATS
            .iter()
            .find(|f| f.extensions.contains(&ext.as_str()) && f.from_core.is_some())
            .ok_or_else(|| CliError::Format(format!("no writer for '.{ext}' files")))?,
    };
    let from_core = dst.from_core.ok_or(CliError::WriteNotSupported {
        format: dst.name,
        tracking: dst.tracking,
    })?;
    let version = version.or_else(|| {
        dst.extension_version
            .and_then(|f| f(&ext))
            .map(str::to_string)
    });
    let options = EncodeOptions {
        quality,
        version,
        extension: ext,
    };
    let encoded = from_core(&model.value, &options)?;
    for loss in model.losses.iter().chain(&encoded.losses) {
        eprintln!("meshfmt: note: {loss}");
    }
    std::fs::write(output, encoded.value).map_err(|source| CliError::Io {
        path: output.to_string(),
        source,
    })
}

/// `convert` to `.obj`, with its `.mtl` beside it when the model has materials.
fn export_obj(src: &'static Format, data: &[u8], output: &str) -> Result<(), CliError> {
    let to_core = src.to_core.ok_or_else(|| not_readable(src))?;
    let model = to_core(data)?;
    let out = std::path::Path::new(output);
    let mtl_name = format!(
        "{}.mtl",
        out.file_stem().unwrap_or_default().to_string_lossy()
    );
    let files = meshfmt::obj::export(&model.value, &mtl_name);
    for loss in model.losses.iter().chain(&files.losses) {
        eprintln!("meshfmt: note: {loss}");
    }
    let write = |path: &std::path::Path, text: &str| {
        std::fs::write(path, text).map_err(|source| CliError::Io {
            path: path.display().to_string(),
            source,
        })
    };
    write(out, &files.value.obj)?;
    if !files.value.mtl.is_empty() {
        write(&out.with_file_name(&mtl_name), &files.value.mtl)?;
    }
    Ok(())
}

/// `convert` to `.glb` or `.gltf` (with a `.bin` beside it unless `embed`).
fn export_gltf(
    src: &'static Format,
    data: &[u8],
    output: &str,
    glb: bool,
    embed: bool,
) -> Result<(), CliError> {
    let to_core = src.to_core.ok_or_else(|| not_readable(src))?;
    let model = to_core(data)?;
    let out = std::path::Path::new(output);
    let bin_name = format!(
        "{}.bin",
        out.file_stem().unwrap_or_default().to_string_lossy()
    );
    let container = match (glb, embed) {
        (true, _) => meshfmt::gltf::Container::Glb,
        (false, true) => meshfmt::gltf::Container::Embedded,
        (false, false) => meshfmt::gltf::Container::Separate(bin_name.clone()),
    };
    let exported = meshfmt::gltf::export(&model.value, container)?;
    for loss in model.losses.iter().chain(&exported.losses) {
        eprintln!("meshfmt: note: {loss}");
    }
    let write = |path: &std::path::Path, bytes: &[u8]| {
        std::fs::write(path, bytes).map_err(|source| CliError::Io {
            path: path.display().to_string(),
            source,
        })
    };
    write(out, &exported.value.main)?;
    if let Some(buffer) = &exported.value.buffer {
        write(&out.with_file_name(&bin_name), buffer)?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("meshfmt: {e}");
            ExitCode::FAILURE
        }
    }
}
