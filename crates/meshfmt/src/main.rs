//! `meshfmt`: inspect, validate and convert game mesh and animation files.
//!
//! ```text
//! meshfmt info FILE [--json] [--format NAME]
//! meshfmt formats
//! ```
//! Errors go to stderr as one line with the byte offset, and the exit code is 1.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod error;
mod formats;
mod info;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use error::CliError;
use formats::{Detected, FORMATS};

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
    /// List the supported formats and what the tool can do with each.
    Formats,
}

fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Info { file, json, format } => {
            let data = std::fs::read(&file).map_err(|source| CliError::Io {
                path: file.clone(),
                source,
            })?;
            let (fmt, _how) = match format {
                Some(name) => (
                    formats::by_name(&name).ok_or(CliError::UnknownFormatName(name))?,
                    Detected::Forced,
                ),
                None => formats::detect(&data, &file)?,
            };
            let inspect = fmt.inspect.ok_or(CliError::NotSupported {
                format: fmt.name,
                tracking: fmt.tracking,
            })?;
            let info = inspect(&data)?;
            if json {
                println!("{}", info.to_json());
            } else {
                print!("{}", info.to_text());
            }
            Ok(())
        }
        Command::Formats => {
            println!(
                "{:<14} {:<14} {:<6} description",
                "name", "extensions", "read"
            );
            for f in FORMATS {
                let read = if f.inspect.is_some() { "yes" } else { "no" };
                println!(
                    "{:<14} {:<14} {:<6} {}",
                    f.name,
                    f.extensions.join(","),
                    read,
                    f.description
                );
            }
            Ok(())
        }
    }
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
