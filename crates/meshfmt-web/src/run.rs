//! What the page does, over files in memory: `info` and `convert` as the tool does
//! them, the files named looked up among those given and nowhere else.

use std::path::Path;
use std::sync::Arc;

use meshfmt::convert::{InputBytes, extension_for};
use meshfmt::report::Report;
use meshfmt_core::Limits;
use meshfmt_core::side_files::FileSet;

use crate::error::WebError;
use crate::request::Request;

/// The formats of `meshfmt formats`, as JSON: one object each, with `name`,
/// `description`, `extensions`, `versions` (each with `name` and `splits`: whether
/// its clips go to files of their own), `qualities`, `canWrite` and `takesSkeleton`.
///
/// ```
/// let json = meshfmt_web::formats();
/// assert!(json.starts_with('[') && json.contains(r#""name": "unigine-mesh""#));
/// ```
pub fn formats() -> String {
    use meshfmt::json::string;
    let list = |items: &mut dyn Iterator<Item = String>| items.collect::<Vec<_>>().join(", ");
    let objects: Vec<String> = meshfmt::formats::FORMATS
        .iter()
        .map(|f| {
            let i = f.info();
            let versions = list(&mut i.versions.iter().map(|v| {
                format!(
                    "{{\"name\": {}, \"splits\": {}}}",
                    string(v.name),
                    v.clip_files.is_some()
                )
            }));
            format!(
                "{{\"name\": {}, \"description\": {}, \"extensions\": [{}], \"versions\": [{versions}], \"qualities\": [{}], \"canWrite\": {}, \"takesSkeleton\": {}}}",
                string(i.name),
                string(i.description),
                list(&mut i.extensions.iter().map(|e| string(e))),
                list(&mut i.qualities.iter().map(|q| string(q))),
                i.can_write,
                i.takes_skeleton
            )
        })
        .collect();
    format!("[{}]", objects.join(",\n"))
}

/// `meshfmt info --json` of the file `name` among `files` (its side files among them
/// too).
///
/// ```
/// use std::sync::Arc;
/// use meshfmt_core::side_files::FileSet;
/// let mut files = FileSet::default();
/// files.insert("tri.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".to_vec())?;
/// let json = meshfmt_web::info(&Arc::new(files), "tri.obj", None)?;
/// assert!(json.starts_with(r#"{"format":"obj","version":"#) && json.contains(r#""triangles":1,"#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn info(files: &Arc<FileSet>, name: &str, max_memory: Option<u64>) -> Result<String, WebError> {
    let limits = Limits {
        max_alloc_bytes: max_memory.unwrap_or(Limits::DEFAULT.max_alloc_bytes),
        ..Limits::DEFAULT
    };
    let got = meshfmt::info::inspect_in_set(name, files, None, &limits)?;
    Ok(meshfmt::info::to_json(name, got.size, &got.summary))
}

/// What [`convert`] gives: the files, named as the tool would write them from the
/// input's folder, and the report `convert --report` writes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Converted {
    /// The output, its side files (`.bin`, `.mtl`), then split files (`.skel`, one
    /// animation file per clip), by file name.
    pub files: Vec<(String, Vec<u8>)>,
    /// The report, as `meshfmt convert --report` writes it.
    pub report: String,
}

/// The output's name: the input's file stem with the extension `--to` gives (`glb`
/// for glTF, whose `.gltf` form, with its `.bin`, is asked for as `gltf`).
fn output_name(main: &str, to: &str) -> Result<String, WebError> {
    let ext = if to == "gltf" {
        "gltf".to_string()
    } else {
        extension_for(to)?
    };
    let stem = Path::new(main)
        .file_stem()
        .map_or_else(|| "out".to_string(), |s| s.to_string_lossy().into_owned());
    Ok(format!("{stem}.{ext}"))
}

/// `meshfmt convert` of `request.main` among `files`, with the request's options: the
/// same bytes, losses and warnings as the tool gives for the same files in one folder.
///
/// ```
/// use std::sync::Arc;
/// use meshfmt_core::side_files::FileSet;
/// use meshfmt_web::Request;
/// let mut files = FileSet::default();
/// files.insert("tri.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".to_vec())?;
/// let request = Request::from_json(r#"{"main": "tri.obj", "to": "gltf"}"#)?;
/// let out = meshfmt_web::convert(&Arc::new(files), &request)?;
/// let names: Vec<&str> = out.files.iter().map(|(n, _)| n.as_str()).collect();
/// assert_eq!(names, ["tri.gltf", "tri.bin"]);
/// assert!(out.report.contains(r#""written": true"#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert(files: &Arc<FileSet>, request: &Request) -> Result<Converted, WebError> {
    let data = files.get(&request.main).ok_or_else(|| {
        WebError::usage(format!(
            "{}: not among the files given",
            meshfmt_core::text::quoted(&request.main)
        ))
    })?;
    let output = output_name(&request.main, &request.to)?;
    let opts = meshfmt::convert::ConvertOptions {
        files: Some(Arc::clone(files)),
        ..request.options()
    };
    let done = meshfmt::convert::convert_lenient(
        Path::new(&request.main),
        InputBytes::Borrowed(data),
        Path::new(&output),
        &opts,
    )?;
    let refused = if request.strict {
        done.strict_error()
    } else {
        None
    };
    let files: Vec<(String, Vec<u8>)> = done
        .outputs
        .into_iter()
        .map(|(p, b)| (p.to_string_lossy().into_owned(), b))
        .collect();
    let report = Report {
        input: request.main.clone(),
        output,
        written: refused.is_none(),
        files: match refused {
            None => files.iter().map(|(n, _)| n.into()).collect(),
            Some(_) => Vec::new(),
        },
        losses: done.losses,
        warnings: done.warnings,
    }
    .to_json();
    if let Some(e) = refused {
        let mut e = WebError::from(e);
        e.report = Some(report);
        return Err(e);
    }
    Ok(Converted { files, report })
}
