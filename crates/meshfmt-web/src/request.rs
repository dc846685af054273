//! A conversion request as the page sends it (JSON), checked key by key and made into
//! the tool's [`ConvertOptions`].

use std::path::PathBuf;

use meshfmt::convert::ConvertOptions;
use meshfmt_core::Limits;
use serde_json::{Map, Value};

use crate::error::WebError;

/// What [`crate::convert`] is asked for: the page's `convert` options, the files apart.
///
/// ```
/// use meshfmt_web::Request;
/// let r = Request::from_json(r#"{"main": "actor.mesh", "to": "glb", "anims": ["walk.anim"], "maxMemory": "512M"}"#)?;
/// assert_eq!((r.main.as_str(), r.to.as_str(), r.anims.len()), ("actor.mesh", "glb", 1));
/// assert_eq!(r.max_memory, 512 << 20);
/// let typo = Request::from_json(r#"{"main": "a.mesh", "to": "glb", "speed": 9}"#);
/// assert_eq!(typo.err().map(|e| e.message).as_deref(),
///     Some("meshfmt: unknown option 'speed' (main, to, from, version, quality, compression, anims, skeleton, split, strict, maxMemory)"));
/// # Ok::<(), meshfmt_web::WebError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The file to convert: a name among the files given.
    pub main: String,
    /// The format to write (a name of `meshfmt formats`, or `glb`).
    pub to: String,
    /// Read the input as this format (`--from`).
    pub from: Option<String>,
    /// The version to write (`--version`).
    pub version: Option<String>,
    /// The quality to write (`--quality`).
    pub quality: Option<String>,
    /// The deflate level, 0-9 (`--compression`).
    pub compression: Option<u8>,
    /// Animation files among those given whose clips join the model (`--anim`).
    pub anims: Vec<String>,
    /// A skeleton file among those given (`--skeleton`).
    pub skeleton: Option<String>,
    /// Each clip in its own animation file (`--anims-dir`; the files are named as the
    /// tool names them, with no folder).
    pub split: bool,
    /// Any loss or warning is an error (`--strict`).
    pub strict: bool,
    /// The memory the conversion may use, in bytes (`--max-memory`; default 1 GiB); a
    /// number or a size such as `"512M"`.
    pub max_memory: u64,
}

const KEYS: &str =
    "main, to, from, version, quality, compression, anims, skeleton, split, strict, maxMemory";

impl Request {
    /// Reads a request; every key is checked, and an unknown one refused (a typo
    /// would otherwise convert with a default).
    pub fn from_json(json: &str) -> Result<Request, WebError> {
        let v: Value = serde_json::from_str(json)
            .map_err(|e| WebError::usage(format!("the options are not JSON: {e}")))?;
        let Value::Object(map) = v else {
            return Err(WebError::usage("the options are not a JSON object"));
        };
        for key in map.keys() {
            if !KEYS.split(", ").any(|k| k == key) {
                return Err(WebError::usage(format!(
                    "unknown option {} ({KEYS})",
                    meshfmt_core::text::quoted(key)
                )));
            }
        }
        let compression = match map.get("compression") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => match n.as_u64().and_then(|n| u8::try_from(n).ok()) {
                Some(level) if level <= 9 => Some(level),
                _ => return Err(WebError::usage("compression: a level from 0 to 9")),
            },
            Some(_) => return Err(WebError::usage("compression: a level from 0 to 9")),
        };
        let max_memory = match map.get("maxMemory") {
            None | Some(Value::Null) => Limits::DEFAULT.max_alloc_bytes,
            Some(Value::Number(n)) => n
                .as_u64()
                .ok_or_else(|| WebError::usage("maxMemory: a number of bytes or a size"))?,
            Some(Value::String(s)) => meshfmt::size::parse_size(s)
                .map_err(|e| WebError::usage(format!("maxMemory: {e}")))?,
            Some(_) => return Err(WebError::usage("maxMemory: a number of bytes or a size")),
        };
        let anims = match map.get("anims") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| WebError::usage("anims: a list of file names"))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(WebError::usage("anims: a list of file names")),
        };
        Ok(Request {
            main: text(&map, "main")?
                .ok_or_else(|| WebError::usage("main: the file to convert"))?,
            to: text(&map, "to")?.ok_or_else(|| WebError::usage("to: the format to write"))?,
            from: text(&map, "from")?,
            version: text(&map, "version")?,
            quality: text(&map, "quality")?,
            compression,
            anims,
            skeleton: text(&map, "skeleton")?,
            split: flag(&map, "split")?,
            strict: flag(&map, "strict")?,
            max_memory,
        })
    }

    /// The tool's options for this request (the files themselves are added by the
    /// caller).
    pub fn options(&self) -> ConvertOptions {
        ConvertOptions {
            from: self.from.clone(),
            to: Some(self.to.clone()),
            quality: self.quality.clone(),
            version: self.version.clone(),
            compression: self.compression,
            strict: self.strict,
            skeleton: self.skeleton.as_ref().map(PathBuf::from),
            anims: self.anims.iter().map(PathBuf::from).collect(),
            anims_dir: self.split.then(PathBuf::new),
            limits: Limits {
                max_alloc_bytes: self.max_memory,
                ..Limits::DEFAULT
            },
            ..ConvertOptions::default()
        }
    }
}

/// A string option; absent, null or empty: `None`.
fn text(map: &Map<String, Value>, key: &str) -> Result<Option<String>, WebError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(WebError::usage(format!("{key}: a string"))),
    }
}

/// A true/false option; absent or null: false.
fn flag(map: &Map<String, Value>, key: &str) -> Result<bool, WebError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(WebError::usage(format!("{key}: true or false"))),
    }
}
