//! meshfmt in the browser: the `meshfmt` tool's `info` and `convert`, compiled to
//! WebAssembly (`wasm32-unknown-unknown`) and bound to JavaScript with wasm-bindgen.
//! The page (`site/`, built by `cargo xtask web`) runs it in a Web Worker.
//!
//! Everything runs over files held in memory ([`FileSet`]): the files the user
//! dropped, by name. The file system is never asked: a name inside a file (a glTF
//! buffer, a texture, an appearance's loose files) resolves among the dropped files
//! alone, under the tool's side-file policy
//! ([`meshfmt_core::side_files::MemoryFolder`]). The conversion is the tool's own
//! ([`meshfmt::convert`]), so the page writes the bytes, losses and warnings the tool
//! writes for the same files and options.
//!
//! The Rust functions ([`info`], [`convert`], [`zip::zip`]) are what the bindings call
//! and what the native tests check; the bindings ([`Files`], [`Output`], [`info_json`],
//! [`formats_json`], [`convert_files`]) only move bytes and strings across.
//!
//! ```
//! use std::sync::Arc;
//! use meshfmt_core::side_files::FileSet;
//! let mut files = FileSet::default();
//! files.insert("tri.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".to_vec())?;
//! let request = meshfmt_web::Request::from_json(r#"{"main": "tri.obj", "to": "glb"}"#)?;
//! let out = meshfmt_web::convert(&Arc::new(files), &request)?;
//! assert_eq!(out.files[0].0, "tri.glb");
//! assert_eq!(&out.files[0].1[..4], b"glTF");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod error;
mod request;
mod run;
pub mod zip;

use std::sync::Arc;

use meshfmt_core::side_files::FileSet;
use wasm_bindgen::prelude::*;

pub use error::WebError;
pub use request::Request;
pub use run::{Converted, convert, formats, info};

impl From<WebError> for JsValue {
    fn from(e: WebError) -> Self {
        JsValue::from_str(&e.to_json())
    }
}

/// The files a user dropped, by name (JavaScript: `new Files()`, `files.add(name,
/// bytes)`).
#[wasm_bindgen]
#[derive(Debug, Default)]
pub struct Files {
    set: Arc<FileSet>,
}

#[wasm_bindgen]
impl Files {
    /// No files.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Files {
        Files::default()
    }

    /// Adds the file `name`; a name that is not a plain relative name is refused.
    pub fn add(&mut self, name: &str, bytes: Vec<u8>) -> Result<(), JsValue> {
        Arc::make_mut(&mut self.set)
            .insert(name, bytes)
            .map_err(|r| WebError::usage(format!("{}: {r}", meshfmt_core::text::quoted(name))))?;
        Ok(())
    }

    /// The number of files.
    pub fn count(&self) -> usize {
        self.set.len()
    }

    /// Every file in one `.zip`, by name.
    pub fn zip(&self) -> Result<Vec<u8>, JsValue> {
        Ok(zip::zip(self.set.iter())?)
    }
}

/// What a conversion wrote (JavaScript: `output.count()`, `output.name(i)`,
/// `output.bytes(i)`, `output.report()`, `output.zip()`).
#[wasm_bindgen]
#[derive(Debug)]
pub struct Output {
    converted: Converted,
}

#[wasm_bindgen]
impl Output {
    /// The number of files written.
    pub fn count(&self) -> usize {
        self.converted.files.len()
    }

    /// The name of file `i` (empty past the end).
    pub fn name(&self, i: usize) -> String {
        self.converted
            .files
            .get(i)
            .map(|f| f.0.clone())
            .unwrap_or_default()
    }

    /// The bytes of file `i` (empty past the end).
    pub fn bytes(&self, i: usize) -> Vec<u8> {
        self.converted
            .files
            .get(i)
            .map(|f| f.1.clone())
            .unwrap_or_default()
    }

    /// The report, as `meshfmt convert --report` writes it (JSON).
    pub fn report(&self) -> String {
        self.converted.report.clone()
    }

    /// Every file in one `.zip`.
    pub fn zip(&self) -> Result<Vec<u8>, JsValue> {
        let files = self.converted.files.iter();
        Ok(zip::zip(files.map(|(n, b)| (n.as_str(), b.as_slice())))?)
    }
}

/// `meshfmt info --json` of the file `name` among `files` (JSON text). Errors are
/// `{"kind", "message"}` JSON text ([`WebError::to_json`]).
#[wasm_bindgen(js_name = info)]
pub fn info_json(files: &Files, name: &str, max_memory: Option<f64>) -> Result<String, JsValue> {
    // A JavaScript number: bytes, whole and not negative (else the default).
    let max = max_memory
        .filter(|m| m.is_finite() && *m >= 1.0)
        .map(|m| m as u64);
    Ok(info(&files.set, name, max)?)
}

/// The formats the tool reads and writes ([`formats`], JSON text).
#[wasm_bindgen(js_name = formats)]
pub fn formats_json() -> String {
    formats()
}

/// `meshfmt convert` as [`Request`] (JSON text) says, over `files`.
#[wasm_bindgen(js_name = convert)]
pub fn convert_files(files: &Files, request: &str) -> Result<Output, JsValue> {
    let request = Request::from_json(request)?;
    Ok(Output {
        converted: convert(&files.set, &request)?,
    })
}
