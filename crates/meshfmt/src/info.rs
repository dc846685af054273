//! `meshfmt info`: what a file holds, as text for people or as JSON for tools.
//!
//! Text follows gltf-transform's `inspect`: an overview (format, version, file size in
//! decimal units, the nine counts), then one table per section (surfaces, skeleton,
//! animations, materials, textures, bounds), each left out when the file has none.
//! Tables list at most [`TextOptions::max_rows`] rows and say how many more there are.
//!
//! JSON is one object per file, on one line: the stable keys first, in this order and
//! with unchanged meaning (`format`, `version`, `surfaces`, `vertices`, `triangles`,
//! `bones`, `animations`, `frames`, `materials`, `textures`), then `file`, `file_size`
//! (bytes) and `detail`, an object holding the sections in full (never capped):
//! `surfaces`, `skeleton`, `animations`, `materials`, `textures`, `bounds`. The section
//! lists sit under `detail` because `surfaces`, `animations`, `materials` and `textures`
//! are already count keys at the top level.
//!
//! ```
//! use meshfmt::info::{TextOptions, to_json, to_text};
//! use meshfmt_core::format::Context;
//! let f = meshfmt::formats::by_name("unity-meshser").ok_or("no such format")?;
//! let cx = Context::new("cube.bytes");
//! let bytes = f.from_core(&meshfmt_core::canonical::cube(), &cx)?.value.write(&cx)?.main;
//! let summary = f.read(&bytes, &cx)?.summary(&cx)?;
//! let json = to_json("cube.bytes", bytes.len() as u64, &summary);
//! assert!(json.starts_with(r#"{"format":"unity-meshser","version":"MeshSerializer2","surfaces":1,"vertices":24,"#));
//! let text = to_text(bytes.len() as u64, &summary, &TextOptions::default());
//! assert!(text.contains("vertices:   24\n") && text.contains("SURFACES\n"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use meshfmt_core::format::{Context, SharedBytes};
use meshfmt_core::{Aabb, Budget, Counts, Limits, Summary};

use crate::convert::read_input;
use crate::error::CliError;
use crate::files::{Source, refusal_warnings, side_folder, side_folder_in_memory};
use crate::formats;
use crate::json;
use meshfmt_core::side_files::{FileSet, SideFiles};

/// What `info` found in one file.
#[derive(Debug, Clone)]
pub struct Inspected {
    /// The summary.
    pub summary: Summary,
    /// The file's size in bytes.
    pub size: u64,
    /// Side files refused by the policy ([`meshfmt_core::side_files`]), one line each.
    pub warnings: Vec<String>,
}

/// What `info` shows about the file at `path`: read as `format` (a name from
/// [`formats::FORMATS`]) or the detected format, side files (a `.gltf`'s buffer, an
/// `.obj`'s library, an `.m3d`'s textures) from beside it or from `side_folders` under
/// the side-file policy, everything under one budget of `limits` that the file's bytes
/// are charged to first.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/unity-meshser/cube.bytes");
/// let got = meshfmt::info::inspect(path, None, &meshfmt_core::Limits::DEFAULT, &[])?;
/// assert_eq!((got.summary.format.as_str(), got.summary.counts.triangles), ("unity-meshser", 12));
/// assert_eq!(got.size, std::fs::metadata(path)?.len());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn inspect(
    path: &str,
    format: Option<&str>,
    limits: &Limits,
    side_folders: &[PathBuf],
) -> Result<Inspected, CliError> {
    let data = read_input(Path::new(path), limits)?;
    let budget = Budget::new(*limits);
    let side = side_folder(Path::new(path), side_folders, &budget)?;
    inspect_in(path, data, format, budget, Box::new(side))
}

/// [`inspect`] of bytes held in memory, named `name` (its extension helps detection):
/// side files come from `side_folders` alone, names resolving from the first
/// ([`crate::files::side_folder_in_memory`]).
///
/// ```
/// let obj = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".to_vec();
/// let got = meshfmt::info::inspect_bytes("tri.obj", obj, None, &meshfmt_core::Limits::DEFAULT, &[])?;
/// assert_eq!((got.summary.format.as_str(), got.summary.counts.triangles), ("obj", 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn inspect_bytes(
    name: &str,
    data: Vec<u8>,
    format: Option<&str>,
    limits: &Limits,
    side_folders: &[PathBuf],
) -> Result<Inspected, CliError> {
    let budget = Budget::new(*limits);
    let side = side_folder_in_memory(side_folders, &budget)?;
    inspect_in(name, data, format, budget, Box::new(side))
}

/// [`inspect`] of the file `name` of a set held in memory (a browser page's dropped
/// files): the file and its side files come from the set alone
/// ([`meshfmt_core::side_files::MemoryFolder`]), never from the file system.
///
/// ```
/// use std::sync::Arc;
/// use meshfmt_core::side_files::FileSet;
/// let mut set = FileSet::default();
/// set.insert("tri.obj", b"mtllib tri.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".to_vec())?;
/// set.insert("tri.mtl", b"newmtl red\nKd 1 0 0\n".to_vec())?;
/// let got = meshfmt::info::inspect_in_set("tri.obj", &Arc::new(set), None, &meshfmt_core::Limits::DEFAULT)?;
/// assert_eq!((got.summary.counts.triangles, got.summary.counts.materials), (1, 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn inspect_in_set(
    name: &str,
    files: &Arc<FileSet>,
    format: Option<&str>,
    limits: &Limits,
) -> Result<Inspected, CliError> {
    let budget = Budget::new(*limits);
    let source = Source::Memory(files);
    let data = source.read_named(Path::new(name), &budget)?;
    let side = source.side_files(Path::new(name), &budget)?;
    inspect_in(name, data, format, budget, side)
}

fn inspect_in(
    path: &str,
    data: Vec<u8>,
    format: Option<&str>,
    budget: Budget,
    side: Box<dyn SideFiles>,
) -> Result<Inspected, CliError> {
    let data = SharedBytes::from(data);
    budget.charge("input file", data.len() as u64)?;
    let f = match format {
        Some(name) => {
            formats::by_name(name).ok_or_else(|| CliError::UnknownFormatName(name.into()))?
        }
        None => formats::detect(&data, path)?,
    };
    let cx = Context {
        side_files: Some(side.as_ref()),
        ..Context::new(path).with_budget(budget.clone())
    };
    let summary = f.read_shared(&data, &cx)?.summary(&cx)?;
    Ok(Inspected {
        summary,
        size: data.len() as u64,
        warnings: refusal_warnings(side.as_ref()),
    })
}

/// The counts `info` reports. The JSON keys are an interface: other tools and our
/// checks rely on them, so they never change meaning; 0 where a format has no such thing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    /// Format family (`unigine-mesh`, `m3d`, ...).
    pub format: String,
    /// Version within the family (`ms11`, `an10`, `v2`, ...).
    pub version: String,
    /// The counts, under their stable keys ([`Counts::named`]).
    pub counts: Counts,
}

/// A JSON number for `v`; `null` when it is not finite (JSON has no NaN or infinity).
fn json_f32(v: f32) -> String {
    if v.is_finite() {
        // Shortest text that reads back as the same f32; never an exponent.
        format!("{v}")
    } else {
        "null".into()
    }
}

fn json_vec3(v: meshfmt_core::glam::Vec3) -> String {
    format!("[{},{},{}]", json_f32(v.x), json_f32(v.y), json_f32(v.z))
}

fn json_box(b: &Aabb) -> String {
    format!(
        "{{\"min\":{},\"max\":{},\"size\":{}}}",
        json_vec3(b.min),
        json_vec3(b.max),
        json_vec3(b.max - b.min)
    )
}

fn json_list<T>(items: &[T], f: impl Fn(&T) -> String) -> String {
    let parts: Vec<String> = items.iter().map(f).collect();
    format!("[{}]", parts.join(","))
}

fn json_opt_string(s: Option<&str>) -> String {
    s.map_or_else(|| "null".into(), json::string)
}

fn json_opt_u64(v: Option<u64>) -> String {
    v.map_or_else(|| "null".into(), |v| v.to_string())
}

impl From<&Summary> for Info {
    fn from(s: &Summary) -> Self {
        Info {
            format: s.format.clone(),
            version: s.version.clone(),
            counts: s.counts,
        }
    }
}

impl Info {
    /// The stable keys in their fixed order, as the start of a JSON object (no closing
    /// brace).
    fn json_fields(&self) -> String {
        let mut s = format!(
            "{{\"format\":{},\"version\":{}",
            json::string(&self.format),
            json::string(&self.version)
        );
        for (k, v) in self.counts.named() {
            let _ = write!(s, ",\"{k}\":{v}");
        }
        s
    }

    /// One-line JSON object with the stable keys only, in their fixed order.
    pub fn to_json(&self) -> String {
        let mut s = self.json_fields();
        s.push('}');
        s
    }

    /// Aligned `key: value` lines for people (the overview's counts).
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "format:     {}\nversion:    {}\n",
            self.format, self.version
        );
        for (k, v) in self.counts.named() {
            let _ = writeln!(s, "{:<11} {v}", format!("{k}:"));
        }
        s
    }
}

/// The whole `info --json` object of one file: the stable keys, `file`, `file_size` and
/// `detail` (see the module docs), on one line.
pub fn to_json(file: &str, file_size: u64, s: &Summary) -> String {
    let mut out = Info::from(s).json_fields();
    let _ = write!(
        out,
        ",\"file\":{},\"file_size\":{file_size}",
        json::string(file)
    );
    let surfaces = json_list(&s.surfaces, |x| {
        format!(
            "{{\"name\":{},\"vertices\":{},\"triangles\":{},\"attributes\":{},\"material\":{},\"bounds\":{}}}",
            json::string(&x.name),
            x.vertices,
            x.triangles,
            json_list(&x.attributes, |a| format!(
                "{{\"name\":{},\"stored\":{}}}",
                json::string(&a.name),
                json::string(&a.stored)
            )),
            json_opt_string(x.material.as_deref()),
            x.bounds.as_ref().map_or_else(|| "null".into(), json_box),
        )
    });
    let skeleton = s.skeleton.as_ref().map_or_else(
        || "null".into(),
        |k| {
            format!(
                "{{\"bones\":{},\"roots\":{},\"depth\":{}}}",
                k.bones,
                json_list(&k.roots, |r| json::string(r)),
                k.depth
            )
        },
    );
    let animations = json_list(&s.animations, |c| {
        format!(
            "{{\"name\":{},\"duration\":{},\"fps\":{},\"keys\":{},\"channels\":{}}}",
            json::string(&c.name),
            json_f32(c.duration),
            c.fps.map_or_else(|| "null".into(), json_f32),
            c.keys,
            c.channels
        )
    });
    let materials = json_list(&s.materials, |m| {
        format!(
            "{{\"name\":{},\"textures\":{}}}",
            json::string(&m.name),
            json_list(&m.textures, |t| json::string(t))
        )
    });
    let textures = json_list(&s.textures, |t| {
        format!(
            "{{\"name\":{},\"source\":{},\"width\":{},\"height\":{},\"bytes\":{}}}",
            json::string(&t.name),
            json::string(&t.source),
            json_opt_u64(t.pixels.map(|p| u64::from(p.0))),
            json_opt_u64(t.pixels.map(|p| u64::from(p.1))),
            json_opt_u64(t.bytes)
        )
    });
    let bounds = s.bounds.as_ref().map_or_else(
        || "null".into(),
        |b| {
            let mut j = json_box(b);
            j.pop();
            format!("{j},\"stored\":{}}}", s.bounds_stored)
        },
    );
    let _ = write!(
        out,
        ",\"detail\":{{\"surfaces\":{surfaces},\"skeleton\":{skeleton},\"animations\":{animations},\"materials\":{materials},\"textures\":{textures},\"bounds\":{bounds}}}}}"
    );
    out
}

/// Choices for the text form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextOptions {
    /// Most rows a table shows (and root names the skeleton lists) before `... N more`.
    pub max_rows: usize,
}

impl TextOptions {
    /// Rows shown per table unless `--all`.
    pub const DEFAULT_ROWS: usize = 10;

    /// Every row (`--all`).
    pub const ALL: TextOptions = TextOptions {
        max_rows: usize::MAX,
    };
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions {
            max_rows: TextOptions::DEFAULT_ROWS,
        }
    }
}

/// `bytes` for people, in decimal units as gltf-transform prints them: `512 B`,
/// `1.2 KB`, `3.4 MB`, `1.0 GB`.
///
/// ```
/// use meshfmt::info::human_size;
/// assert_eq!(human_size(999), "999 B");
/// assert_eq!(human_size(1234), "1.2 KB");
/// assert_eq!(human_size(3_400_000), "3.4 MB");
/// assert_eq!(human_size(5_000_000_000), "5.0 GB");
/// ```
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1000.0;
    let mut unit = 0;
    // Round first, so 999,950 bytes reads "1.0 MB", not "1000.0 KB".
    while (v * 10.0).round() / 10.0 >= 1000.0 && unit + 1 < UNITS.len() {
        v /= 1000.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// A number for people: at most four decimals, trailing zeros dropped (`0.5`, `-2`,
/// `0.0001`); `NaN` and `inf` as Rust prints them.
fn num(v: f32) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    match s {
        "-0" | "" => "0".into(),
        s => s.into(),
    }
}

/// A name for a table cell: `-` when empty, unprintable characters escaped so a row
/// stays one line ([`meshfmt_core::text::one_line`]), cut at
/// [`MAX_NAME_CHARS`](meshfmt_core::text::MAX_NAME_CHARS).
fn cell(name: &str) -> String {
    if name.is_empty() {
        return "-".into();
    }
    meshfmt_core::text::one_line(name, meshfmt_core::text::MAX_NAME_CHARS).into_owned()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Align {
    Left,
    Right,
}

/// A titled table: a header row and rows, columns padded to their widest cell, at most
/// `max_rows` rows then `... N more`.
fn table(
    out: &mut String,
    title: &str,
    columns: &[(&str, Align)],
    rows: &[Vec<String>],
    max_rows: usize,
) {
    let shown = &rows[..rows.len().min(max_rows)];
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, (title, _))| {
            shown
                .iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .chain(std::iter::once(title.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut l = String::from(" ");
        for (i, c) in cells.enumerate() {
            let w = widths.get(i).copied().unwrap_or(0);
            let align = columns.get(i).map_or(Align::Left, |c| c.1);
            l.push(' ');
            match align {
                Align::Left => {
                    let _ = write!(l, "{c:<w$}");
                }
                Align::Right => {
                    let _ = write!(l, "{c:>w$}");
                }
            }
            l.push(' ');
        }
        format!("{}\n", l.trim_end())
    };
    let _ = writeln!(out, "\n{title}");
    out.push_str(&line(&mut columns.iter().map(|c| c.0)));
    for r in shown {
        out.push_str(&line(&mut r.iter().map(String::as_str)));
    }
    if rows.len() > shown.len() {
        let _ = writeln!(
            out,
            "  ... {} more (--all lists them)",
            rows.len() - shown.len()
        );
    }
}

/// `a, b, c`, at most `max` items then `... N more`.
fn capped_list(items: &[String], max: usize) -> String {
    let mut s = items
        .iter()
        .take(max)
        .map(|x| cell(x))
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > max {
        let _ = write!(s, ", ... {} more", items.len() - max);
    }
    s
}

/// The text form of one file: the overview, then a table per section the file has.
pub fn to_text(file_size: u64, s: &Summary, opts: &TextOptions) -> String {
    let info = Info::from(s);
    let max = opts.max_rows;
    let mut out = String::from("OVERVIEW\n");
    let _ = write!(
        out,
        "format:     {}\nversion:    {}\nfile size:  {}\n",
        cell(&info.format),
        cell(&info.version),
        human_size(file_size)
    );
    for (k, v) in info.counts.named() {
        let _ = writeln!(out, "{:<11} {v}", format!("{k}:"));
    }
    surfaces_table(&mut out, s, max);
    skeleton_table(&mut out, s, max);
    animations_table(&mut out, s, max);
    materials_table(&mut out, s, max);
    textures_table(&mut out, s, max);
    bounds_text(&mut out, s);
    out
}

/// The SURFACES table: name, counts, material, stored attributes.
fn surfaces_table(out: &mut String, s: &Summary, max: usize) {
    if !s.surfaces.is_empty() {
        let rows: Vec<Vec<String>> = s
            .surfaces
            .iter()
            .map(|x| {
                vec![
                    cell(&x.name),
                    x.vertices.to_string(),
                    x.triangles.to_string(),
                    x.material.as_deref().map_or_else(|| "-".into(), cell),
                    x.attributes
                        .iter()
                        .map(|a| format!("{} {}", a.name, a.stored))
                        .collect::<Vec<_>>()
                        .join(", "),
                ]
            })
            .collect();
        table(
            out,
            "SURFACES",
            &[
                ("name", Align::Left),
                ("vertices", Align::Right),
                ("triangles", Align::Right),
                ("material", Align::Left),
                ("attributes", Align::Left),
            ],
            &rows,
            max,
        );
    }
}

/// The SKELETON table: bones, depth, roots.
fn skeleton_table(out: &mut String, s: &Summary, max: usize) {
    if let Some(k) = &s.skeleton {
        let row = vec![
            k.bones.to_string(),
            k.depth.to_string(),
            capped_list(&k.roots, max),
        ];
        table(
            out,
            "SKELETON",
            &[
                ("bones", Align::Right),
                ("depth", Align::Right),
                ("roots", Align::Left),
            ],
            &[row],
            max,
        );
    }
}

/// The ANIMATIONS table: name, duration, frames or keys, channels.
fn animations_table(out: &mut String, s: &Summary, max: usize) {
    if !s.animations.is_empty() {
        let rows: Vec<Vec<String>> = s
            .animations
            .iter()
            .map(|c| {
                vec![
                    cell(&c.name),
                    format!("{} s", num(c.duration)),
                    match c.fps {
                        Some(fps) => format!("{} frames @ {} fps", c.keys, num(fps)),
                        None => format!("{} keys", c.keys),
                    },
                    c.channels.to_string(),
                ]
            })
            .collect();
        table(
            out,
            "ANIMATIONS",
            &[
                ("name", Align::Left),
                ("duration", Align::Right),
                ("fps/keys", Align::Left),
                ("channels", Align::Right),
            ],
            &rows,
            max,
        );
    }
}

/// The MATERIALS table: name and texture names.
fn materials_table(out: &mut String, s: &Summary, max: usize) {
    if !s.materials.is_empty() {
        let rows: Vec<Vec<String>> = s
            .materials
            .iter()
            .map(|m| {
                vec![
                    cell(&m.name),
                    if m.textures.is_empty() {
                        "-".into()
                    } else {
                        capped_list(&m.textures, max)
                    },
                ]
            })
            .collect();
        table(
            out,
            "MATERIALS",
            &[("name", Align::Left), ("textures", Align::Left)],
            &rows,
            max,
        );
    }
}

/// The TEXTURES table: name, source, pixels, size.
fn textures_table(out: &mut String, s: &Summary, max: usize) {
    if !s.textures.is_empty() {
        let rows: Vec<Vec<String>> = s
            .textures
            .iter()
            .map(|t| {
                vec![
                    cell(&t.name),
                    cell(&t.source),
                    t.pixels
                        .map_or_else(|| "-".into(), |(w, h)| format!("{w}x{h}")),
                    t.bytes.map_or_else(|| "-".into(), human_size),
                ]
            })
            .collect();
        table(
            out,
            "TEXTURES",
            &[
                ("name", Align::Left),
                ("source", Align::Left),
                ("pixels", Align::Right),
                ("size", Align::Right),
            ],
            &rows,
            max,
        );
    }
}

/// The BOUNDS section: min, max and size, stored or computed.
fn bounds_text(out: &mut String, s: &Summary) {
    if let Some(b) = &s.bounds {
        let v = |v: meshfmt_core::glam::Vec3| format!("{}, {}, {}", num(v.x), num(v.y), num(v.z));
        let _ = writeln!(
            out,
            "\nBOUNDS ({})",
            if s.bounds_stored {
                "stored"
            } else {
                "computed"
            }
        );
        let _ = writeln!(out, "  min   {}", v(b.min));
        let _ = writeln!(out, "  max   {}", v(b.max));
        let _ = writeln!(out, "  size  {}", v(b.max - b.min));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshfmt_core::glam::Vec3;
    use meshfmt_core::{Attribute, ClipSummary, SkeletonSummary, SurfaceSummary};

    #[test]
    fn json_is_stable_and_escaped() {
        let i = Info {
            format: "unigine-mesh".into(),
            version: "ms\"1\n1".into(),
            counts: Counts {
                surfaces: 2,
                vertices: 3,
                ..Counts::default()
            },
        };
        assert_eq!(
            i.to_json(),
            r#"{"format":"unigine-mesh","version":"ms\"1\n1","surfaces":2,"vertices":3,"triangles":0,"bones":0,"animations":0,"frames":0,"materials":0,"textures":0}"#
        );
        assert_eq!(json::string("\u{1}"), "\"\\u0001\"");
        assert!(i.to_text().contains("vertices:   3\n"));
    }

    fn sample() -> Summary {
        Summary {
            format: "x".into(),
            version: "v1".into(),
            counts: Counts {
                surfaces: 1,
                vertices: 3,
                triangles: 1,
                ..Counts::default()
            },
            surfaces: vec![SurfaceSummary {
                name: "tri\nangle".into(),
                vertices: 3,
                triangles: 1,
                attributes: vec![Attribute::new("position", "f32x3")],
                material: None,
                bounds: None,
            }],
            skeleton: Some(SkeletonSummary {
                bones: 3,
                roots: vec!["a".into(), "b".into(), "c".into()],
                depth: 1,
            }),
            animations: vec![ClipSummary::frames("walk", 16, 30.0, 3)],
            bounds: Some(Aabb {
                min: Vec3::new(f32::NAN, 0.0, -0.5),
                max: Vec3::new(1.0, 2.0, 0.5),
            }),
            bounds_stored: true,
            ..Summary::default()
        }
    }

    #[test]
    fn detail_json_has_the_sections_and_no_nan() {
        let j = to_json("a \"b\".x", 10, &sample());
        assert!(
            j.starts_with(
                r#"{"format":"x","version":"v1","surfaces":1,"vertices":3,"triangles":1,"bones":0,"animations":0,"frames":0,"materials":0,"textures":0,"file":"a \"b\".x","file_size":10,"detail":{"surfaces":[{"name":"tri\nangle","vertices":3,"triangles":1,"attributes":[{"name":"position","stored":"f32x3"}],"material":null,"bounds":null}],"skeleton":{"bones":3,"roots":["a","b","c"],"depth":1},"#
            ),
            "{j}"
        );
        // 16 frames at 30 fps: 15/30 = 0.5 s.
        assert!(
            j.contains(
                r#""animations":[{"name":"walk","duration":0.5,"fps":30,"keys":16,"channels":3}]"#
            ),
            "{j}"
        );
        assert!(
            j.ends_with(
                r#""materials":[],"textures":[],"bounds":{"min":[null,0,-0.5],"max":[1,2,0.5],"size":[null,2,1],"stored":true}}}"#
            ),
            "{j}"
        );
    }

    #[test]
    fn text_caps_rows_and_escapes_names() {
        let t = to_text(1500, &sample(), &TextOptions { max_rows: 2 });
        assert!(
            t.starts_with(
                "OVERVIEW\nformat:     x\nversion:    v1\nfile size:  1.5 KB\nsurfaces:   1\n"
            ),
            "{t}"
        );
        assert!(
            t.contains("  tri\\nangle         3          1  -         position f32x3\n"),
            "{t}"
        );
        assert!(t.contains("      3      1  a, b, ... 1 more\n"), "{t}");
        assert!(
            t.contains("  walk     0.5 s  16 frames @ 30 fps         3\n"),
            "{t}"
        );
        assert!(
            t.contains(
                "\nBOUNDS (stored)\n  min   NaN, 0, -0.5\n  max   1, 2, 0.5\n  size  NaN, 2, 1\n"
            ),
            "{t}"
        );
        assert!(!t.contains("MATERIALS") && !t.contains("TEXTURES"), "{t}");
        let all = to_text(1500, &sample(), &TextOptions::ALL);
        assert!(all.contains("  a, b, c\n"), "{all}");
    }

    #[test]
    fn numbers_for_people() {
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(-0.00001), "0");
        assert_eq!(num(2.0), "2");
        assert_eq!(num(1.23456), "1.2346");
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(999_950), "1.0 MB");
        assert_eq!(human_size(1_000), "1.0 KB");
    }
}
