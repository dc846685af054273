//! `meshfmt`: inspect, validate and convert game mesh and animation files.
//!
//! ```text
//! meshfmt info FILE... [--json] [--all] [--format NAME]
//! meshfmt dump FILE [--format NAME] [--max-items N]
//! meshfmt validate FILE... [--format NAME]
//! meshfmt convert IN OUT [--to NAME] [--quality Q] [--version V] [--strict]
//!   (Q: compatible|rounded for MeshSerializer2, int8|int16|float|double for M3D)
//!   [--mtllib LIB.m3d] (M3D input: materials from a shared library)
//!   [--skeleton FILE] [--anim FILE|'PATTERN']... (companions, bones matched by name)
//!   [--anims-dir DIR] (split: the mesh, then one animation file per clip)
//!   [--report REPORT.json] (every loss, warning and file written)
//! meshfmt convert --out-dir DIR --to NAME FILES...   (batch, in parallel)
//! meshfmt formats
//! ```
//! Every command takes `--max-memory SIZE` (default 1G): one budget per file (per
//! conversion) that the input, everything decoded, converted or generated from it and
//! the output are charged to; a file that asks for more gets a one-line error, never an
//! out-of-memory abort.
//! Errors go to stderr as one line with the byte offset, and the exit code is 1.
//! `convert` between the same format rewrites the file's faithful types (byte-identical
//! for files the reader fully understands); other conversions go through meshfmt-core
//! and print what was lost.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod batch;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use meshfmt_core::format::{Context, Format, SharedBytes};
use meshfmt_core::{Budget, DumpOptions, Limits, Model, dump, validate};

use meshfmt::convert::ConvertOptions;
use meshfmt::error::CliError;
use meshfmt::files::{refusal_warnings, side_folder};
use meshfmt::formats::{self, FORMATS};
use meshfmt::output::write_outputs;
use meshfmt_core::text::{MAX_LINE_CHARS, one_line};

/// Quantization quality for formats that quantize (passed to the format as its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Quality {
    /// MeshSerializer2: byte for byte what the original script writes (truncation).
    Compatible,
    /// MeshSerializer2: nearest rounding, at most half the original's error.
    Rounded,
    /// M3D: int8 coordinates (error up to 0.5/127 of the model's extent).
    Int8,
    /// M3D: int16 coordinates (error up to 0.5/32767 of the extent).
    Int16,
    /// M3D: f32 coordinates (the default); glTF: f32 attributes (the default).
    Float,
    /// M3D: f64 coordinates.
    Double,
    /// glTF: KHR_mesh_quantization (positions 14 bits, normals 8, UVs 12, weights 8).
    Quantized,
    /// glTF: quantized and EXT_meshopt_compression (what `--compress` asks for).
    Meshopt,
    /// glTF: `quantized`, keeping every surface, UV set, tangent and clip event.
    QuantizedKeep,
    /// glTF: `meshopt`, keeping every surface, UV set, tangent and clip event.
    MeshoptKeep,
}

impl Quality {
    fn name(self) -> &'static str {
        match self {
            Quality::Compatible => "compatible",
            Quality::Rounded => "rounded",
            Quality::Int8 => "int8",
            Quality::Int16 => "int16",
            Quality::Float => "float",
            Quality::Double => "double",
            Quality::Quantized => "quantized",
            Quality::Meshopt => "meshopt",
            Quality::QuantizedKeep => "quantized-keep",
            Quality::MeshoptKeep => "meshopt-keep",
        }
    }
}

#[derive(Parser)]
#[command(
    name = "meshfmt",
    version,
    about = "Inspect, validate and convert game mesh and animation files"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Most memory one file's read, conversion and write may use, in bytes or with a
    /// binary suffix (K, M, G, T, optionally followed by iB or B: 512M = 512 MiB).
    #[arg(long, global = true, value_name = "SIZE", default_value = "1G", value_parser = meshfmt::size::parse_size)]
    max_memory: u64,
    /// A folder, besides the input's own, that names inside a file (a glTF buffer, an
    /// OBJ material library, an M3D texture, a Vitaboy appearance's loose files) may
    /// lead into; repeatable. Without it, side files come only from the input's folder
    /// and below it.
    #[arg(long = "side-files", global = true, value_name = "DIR")]
    side_files: Vec<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Detect each file's format and print what it holds: an overview, then tables of
    /// surfaces, skeleton, animations, materials, textures and bounds.
    Info {
        /// The files to inspect.
        #[arg(required = true, num_args = 1..)]
        files: Vec<String>,
        /// Print one JSON object per file, one per line: the stable count keys first,
        /// then `file`, `file_size` and `detail` (every section in full).
        #[arg(long)]
        json: bool,
        /// List every row of every table (by default each shows at most 10).
        #[arg(long)]
        all: bool,
        /// Skip detection and read the files as this format (see `meshfmt formats`).
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
    /// Read files and check them; print every problem with its path.
    Validate {
        /// The files to check.
        #[arg(required = true, num_args = 1..)]
        files: Vec<String>,
        /// Skip detection and read the file as this format.
        #[arg(long, value_name = "NAME")]
        format: Option<String>,
    },
    /// Convert a file to another format (or rewrite it in the same one); with
    /// `--out-dir`, convert many files in parallel.
    Convert {
        /// `IN OUT`, or with `--out-dir`, the input files.
        #[arg(required = true, num_args = 1..)]
        paths: Vec<String>,
        /// Batch mode: write every input's conversion into this folder (needs `--to`).
        #[arg(long, value_name = "DIR")]
        out_dir: Option<String>,
        /// Read the input as this format.
        #[arg(long, value_name = "NAME")]
        from: Option<String>,
        /// Write this format (default: from the output's extension): a format name from
        /// `meshfmt formats`, or glb, gltf, obj.
        #[arg(long, value_name = "NAME")]
        to: Option<String>,
        /// Quantization quality for formats that quantize (default: the format's own).
        #[arg(long, value_enum)]
        quality: Option<Quality>,
        /// glTF output for delivery: `--quality meshopt` (KHR_mesh_quantization and
        /// EXT_meshopt_compression, reordered for the vertex cache; the error bounds are
        /// in the report).
        #[arg(long, conflicts_with = "quality")]
        compress: bool,
        /// Format version to write (e.g. ms10, ms14 for unigine-mesh).
        #[arg(long, value_name = "VERSION")]
        version: Option<String>,
        /// Deflate level 0-9 for formats that compress with zlib (M3D; default 6).
        #[arg(long, value_name = "LEVEL", value_parser = clap::value_parser!(u8).range(0..=9))]
        compression: Option<u8>,
        /// For `.gltf` output: inline the buffer as a data URI instead of writing a
        /// `.bin` file beside it.
        #[arg(long)]
        embed: bool,
        /// Fail instead of converting when anything would be lost, or a side file was
        /// refused.
        #[arg(long)]
        strict: bool,
        /// Replace files that are already where the files beside the output go (a
        /// glTF's `.bin`, an OBJ's `.mtl`, a `.skel`, `--anims-dir` clips); without it
        /// the conversion writes nothing and fails. The output itself is always
        /// replaced.
        #[arg(long)]
        force: bool,
        /// M3D input: a material library (a model of materials only, from `m3dconv -m`)
        /// that the input's use-material records refer to.
        #[arg(long, value_name = "FILE")]
        mtllib: Option<String>,
        /// The skeleton file: a Vitaboy `.skel` for a `.mesh`, `.anim` or `.apr`; for
        /// other inputs any file with a skeleton, which the model is put on (bones
        /// matched by name).
        #[arg(long, value_name = "FILE")]
        skeleton: Option<String>,
        /// An animation file whose clips are added to the model (bones matched by name);
        /// repeatable; `*` and `?` in the file name match files of its folder (quote
        /// the pattern).
        #[arg(long = "anim", value_name = "FILE|PATTERN")]
        anims: Vec<String>,
        /// Split outputs: write the mesh without clips and each clip to its own
        /// animation file in DIR, named after the clip (UNIGINE an10 `.anim`; Vitaboy
        /// `.anim`, with the `.skel` beside the mesh).
        #[arg(long, value_name = "DIR")]
        anims_dir: Option<String>,
        /// Write every loss (feature, kind, bound, path, reason), the warnings and the
        /// files written to FILE as JSON.
        #[arg(long, value_name = "FILE")]
        report: Option<String>,
    },
    /// List the supported formats and what the tool can do with each.
    Formats,
}

fn pick(data: &[u8], path: &str, forced: Option<String>) -> Result<&'static dyn Format, CliError> {
    match forced {
        Some(name) => formats::by_name(&name).ok_or(CliError::UnknownFormatName(name)),
        None => formats::detect(data, path),
    }
}

/// Writes `line` to stderr after `meshfmt: `, as one printable line (names from files
/// can hold escape sequences and newlines).
fn say(line: impl std::fmt::Display) {
    say_all([line]);
}

/// Every line, each as [`say`] writes it, in one write: a reader of the pipe (a
/// script, a build tool) wakes once, not three times a line.
fn say_all<T: std::fmt::Display>(lines: impl IntoIterator<Item = T>) {
    use std::io::Write as _;
    let mut out = String::new();
    for line in lines {
        out.push_str("meshfmt: ");
        out.push_str(&one_line(&line.to_string(), MAX_LINE_CHARS));
        out.push('\n');
    }
    // Nothing better to do when stderr is gone.
    let _ = std::io::stderr().lock().write_all(out.as_bytes());
}

/// `text` with every line made printable ([`one_line`], not cut): what reaches the
/// terminal from a file's names.
fn printable_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(&one_line(line, usize::MAX));
        out.push('\n');
    }
    out
}

/// Reads `path` into one budget of `limits`, its bytes charged first.
fn read_charged(path: &str, limits: &Limits) -> Result<(Vec<u8>, Budget), CliError> {
    let data = meshfmt::convert::read_input(Path::new(path), limits)?;
    let budget = Budget::new(*limits);
    budget.charge("input file", data.len() as u64)?;
    Ok((data, budget))
}

/// The model of `path` (side files read from beside it) and its format, with the
/// conversion's losses; `validate` does not print them (they are not problems of the
/// file).
fn load(
    path: &str,
    forced: Option<String>,
    limits: &Limits,
    side_folders: &[PathBuf],
) -> Result<(meshfmt_core::Converted<Model>, &'static dyn Format), CliError> {
    let (data, budget) = read_charged(path, limits)?;
    // Handed over: a format that keeps stored bytes keeps ranges of it, not copies.
    let data = SharedBytes::from(data);
    let f = pick(&data, path, forced)?;
    let side = side_folder(Path::new(path), side_folders, &budget)?;
    let cx = Context {
        side_files: Some(&side),
        ..Context::new(path).with_budget(budget.clone())
    };
    let conv = f.read_shared(&data, &cx)?.to_core(&cx)?;
    for w in refusal_warnings(&side) {
        say(format_args!("warning: {}", per_file(path, &w)));
    }
    Ok((conv, f))
}

/// `FILE: message`, without naming the file twice when the message already starts
/// with it.
fn per_file(file: &str, e: &impl std::fmt::Display) -> String {
    let message = e.to_string();
    if message.starts_with(&format!("{file}: ")) {
        message
    } else {
        format!("{file}: {message}")
    }
}

fn run(cli: Cli) -> Result<(), CliError> {
    let limits = Limits {
        max_alloc_bytes: cli.max_memory,
        ..Limits::DEFAULT
    };
    match cli.command {
        Command::Info {
            files,
            json,
            all,
            format,
        } => info(
            &files,
            json,
            all,
            format.as_deref(),
            &limits,
            &cli.side_files,
        ),
        Command::Dump {
            file,
            format,
            max_items,
        } => {
            let (conv, _) = load(&file, format, &limits, &cli.side_files)?;
            say_all(conv.losses.iter().map(|l| format!("note: {l}")));
            let opts = DumpOptions {
                max_items: max_items.unwrap_or(usize::MAX),
            };
            print!("{}", printable_lines(&dump(&conv.value, &opts)));
            Ok(())
        }
        Command::Validate { files, format } => {
            validate_files(&files, format, &limits, &cli.side_files)
        }
        Command::Convert {
            paths,
            out_dir,
            from,
            to,
            quality,
            compress,
            version,
            compression,
            embed,
            strict,
            force,
            mtllib,
            skeleton,
            anims,
            anims_dir,
            report,
        } => {
            let mut anim_files = Vec::new();
            for pattern in &anims {
                anim_files.extend(meshfmt::companions::expand(pattern)?);
            }
            let opts = ConvertOptions {
                from,
                to,
                quality: if compress {
                    Some(Quality::Meshopt.name().to_string())
                } else {
                    quality.map(|q| q.name().to_string())
                },
                version,
                compression,
                embed,
                strict,
                mtllib: mtllib
                    .as_deref()
                    .map(|p| meshfmt::convert::read_input(Path::new(p), &limits))
                    .transpose()?,
                skeleton: skeleton.map(PathBuf::from),
                anims: anim_files,
                anims_dir: anims_dir.map(PathBuf::from),
                side_folders: cli.side_files,
                in_memory: false,
                files: None,
                limits,
            };
            convert_paths(&paths, out_dir, report, &opts, force)
        }
        Command::Formats => {
            print_formats();
            Ok(())
        }
    }
}

/// `meshfmt info FILES`: one summary, or several each under a header line with errors
/// per file on stderr (exit 1 at the end when any failed).
fn info(
    files: &[String],
    json: bool,
    all: bool,
    format: Option<&str>,
    limits: &Limits,
    side_folders: &[PathBuf],
) -> Result<(), CliError> {
    let opts = if all {
        meshfmt::info::TextOptions::ALL
    } else {
        meshfmt::info::TextOptions::default()
    };
    let print = |file: &str, size: u64, summary: &meshfmt_core::Summary| {
        if json {
            println!("{}", meshfmt::info::to_json(file, size, summary));
        } else {
            print!(
                "{}",
                printable_lines(&meshfmt::info::to_text(size, summary, &opts))
            );
        }
    };
    let warn = |file: &str, got: &meshfmt::info::Inspected| {
        for w in &got.warnings {
            say(format_args!("warning: {}", per_file(file, w)));
        }
    };
    if let [file] = files {
        let got = meshfmt::info::inspect(file, format, limits, side_folders)?;
        warn(file, &got);
        print(file, got.size, &got.summary);
        return Ok(());
    }
    // Several files: each is reported (text under a header line), errors per
    // file on stderr, exit 1 at the end when any failed.
    let mut failed = 0;
    for (k, file) in files.iter().enumerate() {
        match meshfmt::info::inspect(file, format, limits, side_folders) {
            Ok(got) => {
                warn(file, &got);
                if !json {
                    let header = one_line(file, MAX_LINE_CHARS);
                    println!("{}== {header} ==", if k > 0 { "\n" } else { "" });
                }
                print(file, got.size, &got.summary);
            }
            Err(e) => {
                say(per_file(file, &e));
                failed += 1;
            }
        }
    }
    if failed > 0 {
        Err(CliError::Batch {
            failed,
            total: files.len(),
        })
    } else {
        Ok(())
    }
}

/// `meshfmt validate FILES`: every problem of each file (prefixed with the file when
/// there are several).
fn validate_files(
    files: &[String],
    format: Option<String>,
    limits: &Limits,
    side_folders: &[PathBuf],
) -> Result<(), CliError> {
    let file_line = |file: &str| one_line(file, MAX_LINE_CHARS).into_owned();
    if let [file] = files {
        let (conv, f) = load(file, format, limits, side_folders)?;
        let problems = validate(&conv.value);
        for p in &problems {
            println!("{}", one_line(&p.to_string(), MAX_LINE_CHARS));
        }
        return if problems.is_empty() {
            println!("{}: valid {} file", file_line(file), f.info().name);
            Ok(())
        } else {
            Err(CliError::Invalid(problems.len()))
        };
    }
    // Several files: every one is checked, problems are prefixed with the file.
    let mut bad = 0;
    for file in files {
        match load(file, format.clone(), limits, side_folders) {
            Ok((conv, f)) => {
                let problems = validate(&conv.value);
                for p in &problems {
                    println!("{}", one_line(&format!("{file}: {p}"), MAX_LINE_CHARS));
                }
                if problems.is_empty() {
                    println!("{}: valid {} file", file_line(file), f.info().name);
                } else {
                    bad += 1;
                }
            }
            Err(e) => {
                say(per_file(file, &e));
                bad += 1;
            }
        }
    }
    if bad > 0 {
        Err(CliError::Batch {
            failed: bad,
            total: files.len(),
        })
    } else {
        Ok(())
    }
}

/// `meshfmt convert`: IN OUT, or FILES into `--out-dir`.
fn convert_paths(
    paths: &[String],
    out_dir: Option<String>,
    report: Option<String>,
    opts: &ConvertOptions,
    force: bool,
) -> Result<(), CliError> {
    match out_dir {
        Some(_) if opts.anims_dir.is_some() || report.is_some() => Err(CliError::Usage(
            "--anims-dir and --report apply to one conversion (IN OUT), not to --out-dir".into(),
        )),
        Some(dir) => batch::run(paths, Path::new(&dir), opts, force),
        None => match paths {
            [input, output] => convert_one(
                Path::new(input),
                Path::new(output),
                opts,
                report.as_deref().map(Path::new),
                force,
            ),
            _ => Err(CliError::Usage(
                "convert takes IN OUT, or --out-dir DIR --to FORMAT FILES...".into(),
            )),
        },
    }
}

/// `meshfmt formats`: the registry as a table.
fn print_formats() {
    println!(
        "{:<14} {:<26} {:<5} {:<5} description",
        "name", "extensions", "read", "write"
    );
    let yes = |b: bool| if b { "yes" } else { "no" };
    for f in FORMATS {
        let info = f.info();
        println!(
            "{:<14} {:<26} {:<5} {:<5} {}",
            info.name,
            info.extensions.join(","),
            "yes",
            yes(info.can_write),
            info.description
        );
        if !info.versions.is_empty() {
            let names: Vec<&str> = info.version_names().collect();
            println!("{:<14} versions: {}", "", names.join(", "));
        }
        if !info.qualities.is_empty() {
            println!("{:<14} qualities: {}", "", info.qualities.join(", "));
        }
    }
}

/// One conversion: the output files, then notes and warnings on stderr, then the
/// report (also when `--strict` refuses, which writes nothing else and prints only the
/// refusal).
fn convert_one(
    input: &Path,
    output: &Path,
    opts: &ConvertOptions,
    report: Option<&Path>,
    force: bool,
) -> Result<(), CliError> {
    let data = meshfmt::convert::read_input(input, &opts.limits)?;
    let converted = meshfmt::convert::convert_lenient(input, data, output, opts)?;
    let refused = if opts.strict {
        converted.strict_error()
    } else {
        None
    };
    let mut written = Vec::new();
    if refused.is_none() {
        if let Some(dir) = &opts.anims_dir {
            std::fs::create_dir_all(dir).map_err(|source| CliError::Io {
                path: dir.display().to_string(),
                source,
            })?;
        }
        written = write_outputs(&converted.outputs, force)?;
        let notes = converted.losses.iter().map(|l| format!("note: {l}"));
        let warnings = converted.warnings.iter().map(|w| format!("warning: {w}"));
        say_all(notes.chain(warnings));
    }
    if let Some(report) = report {
        let r = meshfmt::report::Report {
            input: input.display().to_string(),
            output: output.display().to_string(),
            written: refused.is_none(),
            files: written,
            losses: converted.losses,
            warnings: converted.warnings,
        };
        write_outputs(
            &vec![(report.to_path_buf(), r.to_json().into_bytes())],
            true,
        )?;
    }
    match refused {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say(&e);
            ExitCode::from(e.exit_code())
        }
    }
}
