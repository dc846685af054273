//! Reading the files a command needs (a leaf module: `convert`, `info` and `companions`
//! use it): what the user named, read through meshfmt-core's capped reader, and the side
//! files of an input, under meshfmt-core's side-file policy
//! ([`meshfmt_core::side_files`]); or, for files held in memory (a browser page's
//! dropped files, [`FileSet`]), the same names looked up in the set alone.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use meshfmt_core::format::FormatError;
use meshfmt_core::side_files::{FileSet, MemoryFolder, Refusal, SideFiles, SideFolder, read_named};
use meshfmt_core::text::{MAX_NAME_CHARS, one_line};
use parsing_primitives::Budget;

use crate::error::CliError;

/// Where the files a command names come from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// The file system: side files beside the input and in the allowed folders.
    Disk {
        /// Folders besides the input's that side files may come from (`--side-files`).
        side_folders: &'a [PathBuf],
        /// The input's bytes were not read from a file: its side files come from
        /// `side_folders` alone ([`side_folder_in_memory`]).
        in_memory: bool,
    },
    /// A set of files in memory: every name (input, companions, side files) is looked
    /// up in it, and the file system is never asked.
    Memory(&'a Arc<FileSet>),
}

impl Source<'_> {
    /// The bytes of a file the user named (an input, `--anim`, `--skeleton`), never
    /// more than what is left of `budget`; errors name the file.
    pub fn read_named(&self, path: &Path, budget: &Budget) -> Result<Vec<u8>, CliError> {
        match self {
            Source::Disk { .. } => read_user_file(path, budget),
            Source::Memory(set) => {
                named_error(path, set.read_named(&path.to_string_lossy(), budget))
            }
        }
    }

    /// The side files of `input`, under the policy.
    pub fn side_files(
        &self,
        input: &Path,
        budget: &Budget,
    ) -> Result<Box<dyn SideFiles>, CliError> {
        Ok(match self {
            Source::Disk {
                side_folders,
                in_memory: false,
            } => Box::new(side_folder(input, side_folders, budget)?),
            Source::Disk {
                side_folders,
                in_memory: true,
            } => Box::new(side_folder_in_memory(side_folders, budget)?),
            Source::Memory(set) => Box::new(MemoryFolder::beside(
                Arc::clone(set),
                &input.to_string_lossy(),
                budget,
            )),
        })
    }
}

/// Reads a file the user named (an input, `--anim`, `--skeleton`, `--mtllib`), never
/// more than what is left of `budget` ([`read_named`]); I/O errors name the file.
pub fn read_user_file(path: &Path, budget: &Budget) -> Result<Vec<u8>, CliError> {
    named_error(path, read_named(path, budget))
}

/// A named file's read, its I/O error naming the file.
fn named_error(path: &Path, read: Result<Vec<u8>, FormatError>) -> Result<Vec<u8>, CliError> {
    read.map_err(|e| match e {
        FormatError::Io(source) => CliError::Io {
            path: path.display().to_string(),
            source,
        },
        other => CliError::File(other),
    })
}

/// The side files of `input`: its folder, and the folders the user allowed
/// (`--side-files`), which must exist.
pub fn side_folder(
    input: &Path,
    allowed: &[PathBuf],
    budget: &Budget,
) -> Result<SideFolder, CliError> {
    let mut side = SideFolder::beside(input, budget);
    for dir in allowed {
        side.allow(dir).map_err(|source| CliError::Io {
            path: format!("--side-files {}", dir.display()),
            source,
        })?;
    }
    Ok(side)
}

/// The side files of an input held in memory (no file of its own): names resolve from
/// the first of the folders the caller allowed, and reach the others; with none, no name
/// resolves (a side file is reported missing, never looked for in the current folder).
pub fn side_folder_in_memory(allowed: &[PathBuf], budget: &Budget) -> Result<SideFolder, CliError> {
    let Some((first, rest)) = allowed.split_first() else {
        return Ok(SideFolder::nowhere(budget));
    };
    let mut side = SideFolder::in_folder(first, budget);
    if side.folder().is_none() {
        return Err(CliError::Io {
            path: format!("side files {}", first.display()),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "folder not found"),
        });
    }
    for dir in rest {
        side.allow(dir).map_err(|source| CliError::Io {
            path: format!("side files {}", dir.display()),
            source,
        })?;
    }
    Ok(side)
}

/// The tool's warnings for what `side` refused: one line each, naming the reference;
/// a name that leads out of the allowed folders says how to allow one; folders a format
/// looked in beside the input's (FreeSO's `../Meshes`) and was refused, in one line.
pub fn refusal_warnings(side: &dyn SideFiles) -> Vec<String> {
    let mut out: Vec<String> = side
        .refusals()
        .iter()
        .map(|u| match u.refusal {
            Some(Refusal::Outside | Refusal::Link) => {
                format!("{u} (--side-files DIR allows another folder)")
            }
            _ => u.to_string(),
        })
        .collect();
    let folders = side.refused_folders();
    if !folders.is_empty() {
        out.push(format!(
            "folders beside the input ({}) are outside the folders side files may come from: --side-files DIR allows them",
            one_line(&folders.join(", "), MAX_NAME_CHARS)
        ));
    }
    out
}
