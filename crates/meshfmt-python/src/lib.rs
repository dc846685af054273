//! The native half of the `meshfmt` Python module (PyPI: `meshfmt`; the Python half is
//! `python/meshfmt/`): the tool's registry, `info`, `validate`, `convert` and reading a
//! model, through the same library code as the `meshfmt` command, with the GIL released
//! while a file is read or converted.
//!
//! Every error is a Python exception with the tool's one-line message: `FormatError`
//! (a `ValueError`) for a file no format reads or that a format refuses, `OverBudget`
//! (a `FormatError`) when the memory budget runs out, `OSError` for files that cannot
//! be read or written, `ValueError` for arguments that make no request. Nothing here
//! panics on input (the library's no-panic contract), so no input crashes the
//! interpreter.
//!
//! No `unsafe` here: the crate is `forbid(unsafe_code)` like the rest of the workspace
//! (PyO3's macros keep their FFI glue to themselves).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod errors;
mod model;

use std::path::PathBuf;

use meshfmt::convert::{ConvertOptions, InputBytes, convert_lenient, read_input, read_model};
use meshfmt::error::CliError;
use meshfmt::info::{Inspected, inspect, inspect_bytes};
use meshfmt::report::Report;
use meshfmt_core::Limits;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList};

use crate::errors::{FormatError, OverBudget, to_py};

/// A file named by path, or bytes with a name for detection.
enum Source {
    Path(PathBuf),
    Bytes { name: String, data: Vec<u8> },
}

impl Source {
    /// `src` as a path (`str` or `os.PathLike`) or bytes (`bytes`, `bytearray`,
    /// `memoryview`: then `name`, whose extension helps detection, is required).
    fn from_py(src: &Bound<'_, PyAny>, name: Option<String>) -> PyResult<Self> {
        let bytes = if let Ok(b) = src.cast::<PyBytes>() {
            Some(b.as_bytes().to_vec())
        } else if let Ok(b) = src.cast::<PyByteArray>() {
            Some(b.to_vec())
        } else if src.hasattr("tobytes")? && !src.is_instance_of::<pyo3::types::PyString>() {
            Some(src.call_method0("tobytes")?.extract::<Vec<u8>>()?)
        } else {
            None
        };
        match bytes {
            Some(data) => {
                let name = name.ok_or_else(|| {
                    PyValueError::new_err(
                        "bytes need a name= whose extension says what they are (e.g. 'model.glb')",
                    )
                })?;
                Ok(Source::Bytes { name, data })
            }
            None => Ok(Source::Path(src.extract::<PathBuf>()?)),
        }
    }

    /// The name messages and detection use.
    fn name(&self) -> String {
        match self {
            Source::Path(p) => p.to_string_lossy().into_owned(),
            Source::Bytes { name, .. } => name.clone(),
        }
    }

    /// The path the library is given (bytes: the name, read as in memory) and the bytes.
    fn load(self, limits: &Limits) -> Result<(PathBuf, Vec<u8>, bool), CliError> {
        match self {
            Source::Path(p) => {
                let data = read_input(&p, limits)?;
                Ok((p, data, false))
            }
            Source::Bytes { name, data } => Ok((PathBuf::from(name), data, true)),
        }
    }
}

/// The budget of one call: `max_memory` in bytes (an `int`) or as the tool takes it
/// (`"512M"`, `"1G"`); the tool's default, 1 GiB, when `None`.
fn limits(max_memory: Option<&Bound<'_, PyAny>>) -> PyResult<Limits> {
    let bytes = match max_memory {
        None => return Ok(Limits::DEFAULT),
        Some(v) if v.is_none() => return Ok(Limits::DEFAULT),
        Some(v) => match v.extract::<u64>() {
            Ok(n) => n,
            Err(_) => {
                let text: String = v.extract().map_err(|_| {
                    PyValueError::new_err("max_memory: an int of bytes, or a size like '512M'")
                })?;
                meshfmt::size::parse_size(&text)
                    .map_err(|e| PyValueError::new_err(format!("max_memory: {e}")))?
            }
        },
    };
    Ok(Limits {
        max_alloc_bytes: bytes,
        ..Limits::DEFAULT
    })
}

/// Paths from a list of `str`/`os.PathLike`.
fn paths(list: Option<Vec<PathBuf>>) -> Vec<PathBuf> {
    list.unwrap_or_default()
}

/// Every format of the registry and its facts, as dicts (`meshfmt formats`).
#[pyfunction]
fn formats(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    for f in meshfmt::formats::FORMATS {
        let info = f.info();
        let d = PyDict::new(py);
        d.set_item("name", info.name)?;
        d.set_item("description", info.description)?;
        d.set_item("extensions", info.extensions.to_vec())?;
        d.set_item("can_write", info.can_write)?;
        d.set_item("has_magic", info.has_magic)?;
        d.set_item("takes_skeleton", info.takes_skeleton)?;
        d.set_item("compresses", info.compresses)?;
        d.set_item("rewrites_faithfully", info.rewrites_faithfully)?;
        d.set_item("qualities", info.qualities.to_vec())?;
        let versions = PyList::empty(py);
        for v in info.versions {
            let vd = PyDict::new(py);
            vd.set_item("name", v.name)?;
            vd.set_item("extension", v.extension)?;
            vd.set_item(
                "holds",
                v.holds.iter().map(|h| h.name()).collect::<Vec<_>>(),
            )?;
            let clips = v.clip_files.map(|c| {
                (
                    c.clip.format,
                    c.clip.version,
                    c.clip.extension,
                    c.skeleton.map(|s| (s.format, s.version, s.extension)),
                )
            });
            vd.set_item("clip_files", clips)?;
            versions.append(vd)?;
        }
        d.set_item("versions", versions)?;
        d.set_item(
            "holds",
            info.holds(None)
                .iter()
                .map(|h| h.name())
                .collect::<Vec<_>>(),
        )?;
        out.append(d)?;
    }
    Ok(out)
}

/// `info --json` of one file: a JSON text (the Python half parses it) and the warnings.
#[pyfunction]
#[pyo3(signature = (src, *, name=None, format=None, side_files=None, max_memory=None))]
fn info_json(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    name: Option<String>,
    format: Option<String>,
    side_files: Option<Vec<PathBuf>>,
    max_memory: Option<&Bound<'_, PyAny>>,
) -> PyResult<(String, Vec<String>)> {
    let source = Source::from_py(src, name)?;
    let limits = limits(max_memory)?;
    let side = paths(side_files);
    let file = source.name();
    let got: Result<Inspected, CliError> = py.detach(|| match source {
        Source::Path(p) => inspect(&p.to_string_lossy(), format.as_deref(), &limits, &side),
        Source::Bytes { name, data } => {
            inspect_bytes(&name, data, format.as_deref(), &limits, &side)
        }
    });
    let got = got.map_err(to_py)?;
    Ok((
        meshfmt::info::to_json(&file, got.size, &got.summary),
        got.warnings,
    ))
}

/// Reads a file as the tool's model (companions joined) for `read` and `validate`.
fn read_in(
    py: Python<'_>,
    source: Source,
    opts: ConvertOptions,
) -> PyResult<meshfmt::convert::ModelRead> {
    py.detach(move || {
        let (path, data, in_memory) = source.load(&opts.limits)?;
        let opts = ConvertOptions { in_memory, ..opts };
        read_model(&path, InputBytes::Owned(data), &opts)
    })
    .map_err(to_py)
}

/// The options of a read: the format, the companions and the side files.
#[allow(clippy::too_many_arguments)]
fn read_options(
    format: Option<String>,
    skeleton: Option<PathBuf>,
    anims: Option<Vec<PathBuf>>,
    mtllib: Option<PathBuf>,
    side_files: Option<Vec<PathBuf>>,
    limits: Limits,
) -> Result<ConvertOptions, CliError> {
    let mut anim_files = Vec::new();
    for a in anims.unwrap_or_default() {
        anim_files.extend(meshfmt::companions::expand(&a.to_string_lossy())?);
    }
    let mtllib = mtllib.map(|p| read_input(&p, &limits)).transpose()?;
    Ok(ConvertOptions {
        from: format,
        skeleton,
        anims: anim_files,
        mtllib,
        side_folders: paths(side_files),
        limits,
        ..ConvertOptions::default()
    })
}

/// A file read as a model: a dict of the model's parts with numpy arrays (the Python
/// half makes dataclasses of it), the losses, the warnings, the format and version.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (src, *, name=None, format=None, skeleton=None, anims=None, mtllib=None, side_files=None, max_memory=None))]
fn read<'py>(
    py: Python<'py>,
    src: &Bound<'py, PyAny>,
    name: Option<String>,
    format: Option<String>,
    skeleton: Option<PathBuf>,
    anims: Option<Vec<PathBuf>>,
    mtllib: Option<PathBuf>,
    side_files: Option<Vec<PathBuf>>,
    max_memory: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let source = Source::from_py(src, name)?;
    let limits = limits(max_memory)?;
    let opts = read_options(format, skeleton, anims, mtllib, side_files, limits).map_err(to_py)?;
    let got = read_in(py, source, opts)?;
    let d = PyDict::new(py);
    d.set_item("format", got.format)?;
    d.set_item("version", got.version)?;
    d.set_item("model", model::to_py(py, &got.model.value)?)?;
    d.set_item("losses", model::losses(py, &got.model.losses)?)?;
    d.set_item("warnings", got.warnings)?;
    Ok(d)
}

/// Every problem of the file's model (`meshfmt validate`): `(path, message)` pairs,
/// none for a valid file.
#[pyfunction]
#[pyo3(signature = (src, *, name=None, format=None, side_files=None, max_memory=None))]
fn validate(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    name: Option<String>,
    format: Option<String>,
    side_files: Option<Vec<PathBuf>>,
    max_memory: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<(String, String)>> {
    let source = Source::from_py(src, name)?;
    let limits = limits(max_memory)?;
    let opts = read_options(format, None, None, None, side_files, limits).map_err(to_py)?;
    let got = read_in(py, source, opts)?;
    let problems = py.detach(|| meshfmt_core::validate(&got.model.value));
    Ok(problems.into_iter().map(|p| (p.path, p.message)).collect())
}

/// `meshfmt convert SRC DST`: the files written (all or none) and the loss report, as
/// the JSON text of `--report` (the Python half parses it).
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (src, dst, *, name=None, format=None, to=None, version=None, quality=None, compression=None, embed=false, anims=None, skeleton=None, anims_dir=None, mtllib=None, side_files=None, strict=false, force=false, max_memory=None))]
fn convert_json(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: PathBuf,
    name: Option<String>,
    format: Option<String>,
    to: Option<String>,
    version: Option<String>,
    quality: Option<String>,
    compression: Option<u8>,
    embed: bool,
    anims: Option<Vec<PathBuf>>,
    skeleton: Option<PathBuf>,
    anims_dir: Option<PathBuf>,
    mtllib: Option<PathBuf>,
    side_files: Option<Vec<PathBuf>>,
    strict: bool,
    force: bool,
    max_memory: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let source = Source::from_py(src, name)?;
    let limits = limits(max_memory)?;
    let read = read_options(format, skeleton, anims, mtllib, side_files, limits).map_err(to_py)?;
    let input = source.name();
    let run = move || -> Result<Report, CliError> {
        let (path, data, in_memory) = source.load(&read.limits)?;
        let opts = ConvertOptions {
            to,
            version,
            quality,
            compression,
            embed,
            strict,
            anims_dir: anims_dir.clone(),
            in_memory,
            ..read
        };
        if let Some(dir) = &anims_dir {
            std::fs::create_dir_all(dir).map_err(|source| CliError::Io {
                path: dir.display().to_string(),
                source,
            })?;
        }
        let conversion = convert_lenient(&path, InputBytes::Owned(data), &dst, &opts)?;
        let mut report = Report {
            input,
            output: dst.display().to_string(),
            losses: conversion.losses.clone(),
            warnings: conversion.warnings.clone(),
            ..Report::default()
        };
        if strict {
            if let Some(e) = conversion.strict_error() {
                return Err(e);
            }
        }
        report.files = meshfmt::output::write_outputs(&conversion.outputs, force)?;
        report.written = true;
        Ok(report)
    };
    let report = py.detach(run).map_err(to_py)?;
    Ok(report.to_json())
}

/// The module: the functions above, and the exceptions.
#[pymodule]
fn _meshfmt(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("FormatError", m.py().get_type::<FormatError>())?;
    m.add("OverBudget", m.py().get_type::<OverBudget>())?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(info_json, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(convert_json, m)?)?;
    Ok(())
}
