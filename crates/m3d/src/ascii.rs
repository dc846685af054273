//! The ASCII `3dmodel` variant, read into the same [`File`] the binary form gives.
//!
//! The text has no widths, so the reader picks them: f64 coordinates (as m3d.h's ASCII
//! exporter), u32 indices and strings, literal RGBA colours, u16 voxel types.

use std::collections::HashMap;

use parsing_primitives::{Budget, Error as PError, ErrorKind};

use crate::bones::{Action, Bone, Frame, Skeleton, Skin, Transform};
use crate::error::Result;
use crate::file::{Body, Chunk, FORMAT, File};
use crate::label::Labels;
use crate::material::{Material, PropValue, Property};
use crate::mesh::{Corner, Mesh, MeshRecord};
use crate::shape::{self, ArgValue, Command, Shape};
use crate::types::{Coord, Idx, Str, Types};
use crate::vertex::{Records, Vertex};
use crate::voxel::{Run, VoxelBlock, VoxelType};

/// vc f64, vi/si/ci/ti/bi/sk/fc/hi/fi/vd u32, vp u16, nb 8.
const TYPES: u32 = 3
    | (2 << 2)
    | (2 << 4)
    | (2 << 6)
    | (2 << 8)
    | (2 << 10)
    | (3 << 12)
    | (2 << 14)
    | (2 << 16)
    | (2 << 18)
    | (2 << 20)
    | (2 << 22)
    | (1 << 24);

/// Material property names and types (m3d.h's table; `map_X` is 128 + the type of X).
pub(crate) const PROPS: [(&str, u8); 14] = [
    ("Kd", 0),
    ("Ka", 1),
    ("Ks", 2),
    ("Ns", 3),
    ("Ke", 4),
    ("Tf", 5),
    ("Km", 6),
    ("d", 7),
    ("il", 8),
    ("Pr", 64),
    ("Pm", 65),
    ("Ps", 66),
    ("Ni", 67),
    ("Nt", 68),
];

struct Line<'a> {
    offset: u64,
    text: &'a str,
}

struct Parser<'a> {
    lines: Vec<Line<'a>>,
    pos: usize,
    strings: Vec<u8>,
    interned: HashMap<String, Str>,
    section: String,
    budget: Budget,
}

type PResult<T> = std::result::Result<T, PError>;

impl<'a> Parser<'a> {
    /// Charges what is about to be built from the text (a line of a few bytes can make a
    /// record of tens), naming where.
    fn take(&self, at: u64, what: &'static str, bytes: usize) -> PResult<()> {
        self.budget
            .charge(what, bytes as u64)
            .map_err(|e| PError::new(FORMAT, at, self.section.clone(), ErrorKind::OverBudget(e)))
    }
    /// [`take`](Self::take) for `n` values of `T`.
    fn take_items<T>(&self, at: u64, what: &'static str, n: usize) -> PResult<()> {
        self.take(at, what, n.saturating_mul(std::mem::size_of::<T>()))
    }
    fn err(&self, at: u64, message: impl Into<String>) -> PError {
        PError::new(
            FORMAT,
            at,
            self.section.clone(),
            ErrorKind::InvalidValue {
                message: message.into(),
            },
        )
    }
    /// The next non-blank line of the current block, or `None` at the blank line ending it.
    fn block_line(&mut self) -> Option<&Line<'a>> {
        let l = self.lines.get(self.pos)?;
        if l.text.trim().is_empty() {
            return None;
        }
        self.pos += 1;
        self.lines.get(self.pos - 1)
    }
    fn string(&mut self, at: u64, s: &str) -> PResult<Str> {
        if s.is_empty() {
            return Ok(Str(0));
        }
        // One copy per distinct string; a map keeps this linear on big texts.
        if let Some(at) = self.interned.get(s) {
            return Ok(*at);
        }
        let Ok(offset) = u32::try_from(self.strings.len()) else {
            return Err(self.err(at, "string table beyond 4 GiB"));
        };
        // The table's copy and the map's.
        self.take(at, "string table", 2 * s.len() + 64)?;
        self.strings.extend_from_slice(s.as_bytes());
        self.strings.push(0);
        self.interned.insert(s.to_owned(), Str(offset));
        Ok(Str(offset))
    }
}

fn num<T: std::str::FromStr>(
    p: &Parser<'_>,
    at: u64,
    tok: Option<&str>,
    what: &str,
) -> std::result::Result<T, PError> {
    let tok = tok.ok_or_else(|| p.err(at, format!("{what} is missing")))?;
    tok.parse()
        .map_err(|_| p.err(at, format!("{what}: {tok:?} is not a number")))
}

fn color(p: &Parser<'_>, at: u64, tok: &str) -> std::result::Result<u32, PError> {
    // `#AABBGGRR`: the little-endian RGBA word printed with %08x.
    let hex = tok.strip_prefix('#').unwrap_or(tok);
    u32::from_str_radix(hex, 16).map_err(|_| p.err(at, format!("{tok:?} is not a colour")))
}

fn idx(p: &Parser<'_>, at: u64, tok: &str) -> std::result::Result<Idx, PError> {
    match tok {
        "" | "." => Ok(Idx::UNDEF),
        "-" => Ok(Idx::MAX),
        t => {
            let v: i64 = num(p, at, Some(t), "index")?;
            match v {
                -1 => Ok(Idx::UNDEF),
                -2 => Ok(Idx::MAX),
                v => u32::try_from(v)
                    .ok()
                    .filter(|v| *v < Idx::MAX.0)
                    .map(Idx)
                    .ok_or_else(|| p.err(at, format!("index {v} out of range"))),
            }
        }
    }
}

/// Reads the text, charging what it builds to `budget`.
pub(crate) fn read(data: &[u8], budget: &Budget) -> Result<File> {
    let text = std::str::from_utf8(data).map_err(|e| {
        PError::new(
            FORMAT,
            e.valid_up_to() as u64,
            "",
            ErrorKind::InvalidValue {
                message: "ASCII model is not UTF-8".into(),
            },
        )
    })?;
    // One line per newline, 24 bytes each: counted and charged first.
    let n = data
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        .saturating_add(1);
    budget.charge_items::<Line<'_>>("text lines", n)?;
    let mut lines = Vec::with_capacity(n);
    let mut offset = 0u64;
    for raw in text.split('\n') {
        lines.push(Line {
            offset,
            text: raw.strip_suffix('\r').unwrap_or(raw),
        });
        offset += raw.len() as u64 + 1;
    }
    let mut p = Parser {
        lines,
        pos: 0,
        strings: Vec::new(),
        interned: HashMap::new(),
        section: "header".into(),
        budget: budget.clone(),
    };
    let first = p.lines.first().map_or("", |l| l.text);
    let scale: f32 = match first.strip_prefix("3dmodel") {
        Some(rest) => rest.trim().parse().unwrap_or(1.0),
        None => return Err(p.err(0, "does not start with 3dmodel").into()),
    };
    let scale = if scale > 0.0 { scale } else { 1.0 };
    // name, license, author lines, then description lines up to a blank line.
    let mut head = Vec::new();
    for i in 1..4 {
        let t = p.lines.get(i).map_or("", |l| l.text);
        head.extend_from_slice(t.as_bytes());
        head.push(0);
    }
    p.pos = 4;
    let mut desc = Vec::new();
    while let Some(l) = p.block_line() {
        let (at, text) = (l.offset, l.text);
        p.take(at, "string table", 2 * text.len() + 24)?;
        desc.push(text.to_owned());
    }
    head.extend_from_slice(desc.join("\n").as_bytes());
    head.push(0);
    p.strings = head;

    let mut chunks: Vec<Chunk> = Vec::new();
    let mut vertices: Vec<Vertex> = Vec::new();
    let mut tmap: Vec<[Coord; 2]> = Vec::new();
    let mut skins: Vec<Skin> = Vec::new();
    // Skin -> its index: a vertex finds its skin in one lookup, not a scan of all.
    let mut skin_ids: HashMap<Skin, usize> = HashMap::new();
    let mut bones: Vec<Bone> = Vec::new();
    // How large a grid a block may declare, from the text's size (the grid itself is
    // never built: only the voxels written are kept, and meshed).
    let mut text_voxels = data.len().saturating_mul(4);
    let push = |chunks: &mut Vec<Chunk>, body| {
        chunks.push(Chunk {
            body,
            tail: Vec::new(),
        })
    };
    loop {
        // Blank lines between blocks.
        while p.lines.get(p.pos).is_some_and(|l| l.text.trim().is_empty()) {
            p.pos += 1;
        }
        let Some(l) = p.lines.get(p.pos) else { break };
        let at = l.offset;
        let (kw, arg) = l.text.split_once(' ').unwrap_or((l.text, ""));
        let (kw, arg) = (kw.trim().to_owned(), arg.trim().to_owned());
        p.pos += 1;
        p.section = kw.clone();
        match kw.as_str() {
            "End" => break,
            "Vertex" => {
                while let Some(l) = p.block_line() {
                    let at = l.offset;
                    let mut t = l.text.split_whitespace();
                    p.take_items::<Vertex>(at, "vertices", 1)?;
                    let mut c = [Coord::F64(0.0); 4];
                    for (i, c) in c.iter_mut().enumerate() {
                        *c = Coord::F64(num(&p, at, t.next(), ["x", "y", "z", "w"][i])?);
                    }
                    let mut v = Vertex {
                        coords: c,
                        color: 0,
                        skin: Idx::UNDEF,
                    };
                    let mut skin = Vec::new();
                    for tok in t {
                        if tok.starts_with('#') {
                            v.color = color(&p, at, tok)?;
                        } else {
                            let (b, w) = tok.split_once(':').unwrap_or((tok, "1"));
                            let w: f32 = num(&p, at, Some(w), "weight")?;
                            skin.push((idx(&p, at, b)?, w));
                        }
                    }
                    if !skin.is_empty() {
                        if skin.len() > 8 {
                            return Err(p.err(at, "more than 8 bones per vertex").into());
                        }
                        // Weights are kept as written (bytes of 1/255; users renormalise, as
                        // to_core and m3d.h do) unless one is above 1: then all are divided by
                        // their sum so they fit a byte.
                        let total: f32 = skin.iter().map(|s| s.1).sum();
                        let sum = if skin.iter().any(|s| s.1 > 1.0) {
                            total
                        } else {
                            1.0
                        };
                        let mut weights = vec![0u8; 8];
                        let mut ids = Vec::new();
                        for (i, (b, w)) in skin.iter().enumerate() {
                            let q = ((w / sum) * 255.0).round().clamp(1.0, 255.0) as u8;
                            if let Some(slot) = weights.get_mut(i) {
                                *slot = q;
                            }
                            ids.push(*b);
                        }
                        let s = Skin {
                            weights,
                            bones: ids,
                        };
                        let k = match skin_ids.get(&s) {
                            Some(k) => *k,
                            None => {
                                // The list's copy and the map's.
                                p.take(
                                    at,
                                    "skins",
                                    2 * (std::mem::size_of::<Skin>() + 8 + 4 * s.bones.len()) + 16,
                                )?;
                                skin_ids.insert(s.clone(), skins.len());
                                skins.push(s);
                                skins.len() - 1
                            }
                        };
                        v.skin = u32::try_from(k)
                            .ok()
                            .filter(|k| *k < Idx::MAX.0)
                            .map(Idx)
                            .ok_or_else(|| p.err(at, "more skins than an index holds"))?;
                    }
                    vertices.push(v);
                }
            }
            "Textmap" => {
                while let Some(l) = p.block_line() {
                    let at = l.offset;
                    let mut t = l.text.split_whitespace();
                    let u: f64 = num(&p, at, t.next(), "u")?;
                    let v: f64 = num(&p, at, t.next(), "v")?;
                    p.take_items::<[Coord; 2]>(at, "texture coordinates", 1)?;
                    tmap.push([Coord::F64(u), Coord::F64(v)]);
                }
            }
            "Bones" => {
                let mut stack: Vec<u32> = Vec::new();
                while let Some(l) = p.block_line() {
                    let at = l.offset;
                    let depth = l.text.bytes().take_while(|b| *b == b'/').count();
                    let rest = l.text.get(depth..).unwrap_or("");
                    let mut t = rest.splitn(3, ' ');
                    let pos = idx(&p, at, t.next().unwrap_or(""))?;
                    let ori = idx(&p, at, t.next().unwrap_or(""))?;
                    let name = t.next().unwrap_or("").trim().to_owned();
                    if depth > stack.len() {
                        return Err(p.err(at, "bone deeper than its parent + 1").into());
                    }
                    stack.truncate(depth);
                    let parent = stack.last().map_or(Idx::UNDEF, |b| Idx(*b));
                    let id = u32::try_from(bones.len())
                        .ok()
                        .filter(|b| *b < Idx::MAX.0)
                        .ok_or_else(|| p.err(at, "more bones than an index holds"))?;
                    p.take(at, "bones", std::mem::size_of::<Bone>() + 4)?;
                    stack.push(id);
                    let name = p.string(at, &name)?;
                    bones.push(Bone {
                        parent,
                        name,
                        pos,
                        ori,
                    });
                }
            }
            "Material" => {
                let name = p.string(at, &arg)?;
                let mut props = Vec::new();
                while let Some(l) = p.block_line() {
                    let (at, text) = (l.offset, l.text);
                    p.take_items::<Property>(at, "material properties", 1)?;
                    let (k, v) = text.split_once(' ').unwrap_or((text, ""));
                    let v = v.trim().to_owned();
                    let base = |n: &str| PROPS.iter().find(|p| p.0 == n).map(|p| p.1);
                    let map_kind = match k {
                        "bump" => Some(134),
                        "map_N" => Some(136),
                        "refl" => Some(193),
                        k => k.strip_prefix("map_").and_then(base).map(|b| b | 128),
                    };
                    let prop = if let Some(kind) = map_kind {
                        Property {
                            kind,
                            value: PropValue::Map(p.string(at, &v)?),
                        }
                    } else {
                        let kind =
                            base(k).ok_or_else(|| p.err(at, format!("unknown property {k:?}")))?;
                        let value = match kind {
                            0 | 1 | 2 | 4 | 5 => PropValue::Color(color(&p, at, &v)?),
                            8 => PropValue::Byte(num(&p, at, Some(&v), "il")?),
                            _ => PropValue::Float(num(&p, at, Some(&v), k)?),
                        };
                        Property { kind, value }
                    };
                    props.push(prop);
                }
                push(&mut chunks, Body::Mtrl(Material { name, props }));
            }
            "Procedural" => {
                let l = p
                    .block_line()
                    .map(|l| l.text.trim().to_owned())
                    .unwrap_or_default();
                let s = p.string(at, &l)?;
                push(&mut chunks, Body::Proc(s));
                while p.block_line().is_some() {}
            }
            "Mesh" => {
                let mut records = Vec::new();
                while let Some(l) = p.block_line() {
                    let at = l.offset;
                    let text = l.text;
                    let (k, v) = text.split_once(' ').unwrap_or((text, ""));
                    p.take_items::<MeshRecord>(at, "mesh records", 1)?;
                    match k {
                        "use" => records.push(MeshRecord::UseMaterial(p.string(at, v.trim())?)),
                        "par" => records.push(MeshRecord::UseParameter {
                            flags: 1,
                            name: p.string(at, v.trim())?,
                        }),
                        _ => {
                            let mut corners = Vec::new();
                            let mut flags = 0u8;
                            for tok in text.split_whitespace() {
                                let mut parts = tok.split('/');
                                let mut c = Corner {
                                    vertex: Idx::UNDEF,
                                    uv: Idx::UNDEF,
                                    normal: Idx::UNDEF,
                                    max: Idx::UNDEF,
                                };
                                c.vertex = idx(&p, at, parts.next().unwrap_or(""))?;
                                for (bit, slot) in
                                    [(1u8, &mut c.uv), (2, &mut c.normal), (4, &mut c.max)]
                                {
                                    match parts.next() {
                                        Some(s) if !s.is_empty() => {
                                            *slot = idx(&p, at, s)?;
                                            flags |= bit;
                                        }
                                        _ => {}
                                    }
                                }
                                corners.push(c);
                            }
                            if corners.is_empty() || corners.len() > 15 {
                                return Err(p.err(at, "a polygon has 1..=15 corners").into());
                            }
                            if corners.len() > 3 {
                                p.take_items::<Corner>(at, "polygon corners", corners.len())?;
                            }
                            records.push(MeshRecord::Polygon {
                                flags,
                                corners: corners.into(),
                            });
                        }
                    }
                }
                push(&mut chunks, Body::Mesh(Mesh { records }));
            }
            "Shape" => {
                let name = p.string(at, &arg)?;
                let mut group = Idx::UNDEF;
                let mut commands = Vec::new();
                while let Some(l) = p.block_line() {
                    let at = l.offset;
                    let text = l.text.replace(['[', ']'], " ");
                    let mut t = text.split_whitespace();
                    let k = t.next().unwrap_or("");
                    if k == "group" {
                        group = idx(&p, at, t.next().unwrap_or(""))?;
                        continue;
                    }
                    let (kind, layout) = shape::layout_by_keyword(k)
                        .ok_or_else(|| p.err(at, format!("unknown shape command {k:?}")))?;
                    let toks: Vec<&str> = t.collect();
                    // The command and an argument per token at most.
                    p.take(
                        at,
                        "shape commands",
                        std::mem::size_of::<Command>()
                            + (toks.len() + 8) * std::mem::size_of::<ArgValue>(),
                    )?;
                    let mut args = Vec::new();
                    let mut it = toks.iter();
                    let mut next_arg =
                        |a: shape::ArgKind,
                         p: &mut Parser<'_>|
                         -> std::result::Result<ArgValue, PError> {
                            let tok = it.next().copied();
                            Ok(match a {
                                shape::ArgKind::Str => {
                                    ArgValue::Str(p.string(at, tok.unwrap_or(""))?)
                                }
                                shape::ArgKind::Idx => {
                                    ArgValue::Idx(idx(p, at, tok.unwrap_or(""))?)
                                }
                                shape::ArgKind::Coord => {
                                    ArgValue::Coord(Coord::F64(num(p, at, tok, "argument")?))
                                }
                                shape::ArgKind::Int => ArgValue::Int(num(p, at, tok, "argument")?),
                            })
                        };
                    let mut k = 0;
                    while let Some(&a) = layout.get(k) {
                        let v = next_arg(shape::arg_kind(a), &mut p)?;
                        args.push(v);
                        k += 1;
                        if shape::is_variadic(a) {
                            let ArgValue::Int(n) = v else { break };
                            let rest = layout.get(k..).unwrap_or(&[]);
                            let n = usize::try_from(n)
                                .ok()
                                .filter(|n| n.saturating_mul(rest.len()) <= toks.len())
                                .ok_or_else(|| p.err(at, "variadic count beyond the line"))?;
                            for _ in 0..n {
                                for &a in rest {
                                    args.push(next_arg(shape::arg_kind(a), &mut p)?);
                                }
                            }
                            break;
                        }
                    }
                    commands.push(Command {
                        kind,
                        long_form: kind >= 0x80,
                        args,
                    });
                }
                push(
                    &mut chunks,
                    Body::Shpe(Shape {
                        name,
                        group,
                        commands,
                    }),
                );
            }
            "VoxTypes" | "Voxtypes" => {
                let mut types = Vec::new();
                while let Some(l) = p.block_line() {
                    let at = l.offset;
                    let text = l.text;
                    p.take_items::<VoxelType>(at, "voxel types", 1)?;
                    let (main, items) = text.split_once('{').unwrap_or((text, ""));
                    let mut t = main.split_whitespace();
                    let head = t.next().unwrap_or("");
                    let mut hp = head.split('/');
                    let color = color(&p, at, hp.next().unwrap_or(""))?;
                    let rotation: u8 = hp
                        .next()
                        .map_or(Ok(0), |s| num(&p, at, Some(s), "rotation"))?;
                    let shape: u16 = hp.next().map_or(Ok(0), |s| num(&p, at, Some(s), "shape"))?;
                    let name = match t.next() {
                        None | Some("-") => Str(0),
                        Some(n) => p.string(at, n)?,
                    };
                    let skin = match t.next() {
                        Some(s) => idx(&p, at, s)?,
                        None => Idx::UNDEF,
                    };
                    let mut list = Vec::new();
                    let mut it = items.trim_end_matches('}').split_whitespace();
                    while let Some(c) = it.next() {
                        let c: u16 = num(&p, at, Some(c), "item count")?;
                        // "-" is an empty name, as for the type's own name.
                        let n = match it.next() {
                            None | Some("-") => "",
                            Some(n) => n,
                        };
                        p.take_items::<(u16, Str)>(at, "voxel types", 1)?;
                        list.push((c, p.string(at, n)?));
                    }
                    types.push(VoxelType {
                        color,
                        name,
                        rotation: (rotation & 0xBF) | (((shape >> 8) as u8 & 1) << 6),
                        shape_low: shape as u8,
                        skin,
                        items: list,
                    });
                }
                push(&mut chunks, Body::Voxt(types));
            }
            "Voxel" => {
                let name = p.string(at, &arg)?;
                let mut b = VoxelBlock {
                    name,
                    pos: [0; 3],
                    size: [0; 3],
                    uncertain: 0,
                    group: 0,
                    runs: Vec::new(),
                };
                let mut values = Vec::new();
                while let Some(l) = p.block_line() {
                    let at = l.offset;
                    let mut t = l.text.split_whitespace();
                    match t.next().unwrap_or("") {
                        "uncertain" => {
                            b.uncertain = num(&p, at, t.next(), "uncertain")?;
                            b.group = t.next().map_or(Ok(0), |s| num(&p, at, Some(s), "group"))?;
                        }
                        "pos" => {
                            for v in &mut b.pos {
                                *v = num(&p, at, t.next(), "pos")?;
                            }
                        }
                        "dim" => {
                            for v in &mut b.size {
                                *v = num(&p, at, t.next(), "dim")?;
                            }
                            // Each voxel takes at least 2 bytes of text.
                            let n = b
                                .size
                                .iter()
                                .try_fold(1u64, |a, v| a.checked_mul(u64::from(*v)));
                            if n.is_none_or(|n| n.saturating_mul(2) > text_voxels as u64) {
                                return Err(p.err(at, "voxel block larger than the text").into());
                            }
                        }
                        "layer" => {}
                        first => {
                            for tok in std::iter::once(first).chain(t) {
                                // Kept here, then copied into runs of 128.
                                p.take_items::<Idx>(at, "voxels", 2)?;
                                values.push(idx(&p, at, tok)?);
                            }
                        }
                    }
                }
                text_voxels = text_voxels.saturating_sub(values.len());
                p.take_items::<Run>(at, "voxel runs", values.len().div_ceil(128))?;
                for chunk in values.chunks(128) {
                    b.runs.push(Run::Literal(chunk.to_vec()));
                }
                push(&mut chunks, Body::Voxd(b));
            }
            "Labels" => {
                let name = p.string(at, &arg)?;
                let mut l = Labels {
                    name,
                    lang: Str(0),
                    color: 0,
                    labels: Vec::new(),
                };
                while let Some(line) = p.block_line() {
                    let at = line.offset;
                    let text = line.text;
                    let (k, v) = text.split_once(' ').unwrap_or((text, ""));
                    match k {
                        "color" => l.color = color(&p, at, v.trim())?,
                        "lang" => l.lang = p.string(at, v.trim())?,
                        k => {
                            let vi = idx(&p, at, k)?;
                            let s = p.string(at, v)?;
                            p.take_items::<(Idx, Str)>(at, "labels", 1)?;
                            l.labels.push((vi, s));
                        }
                    }
                }
                push(&mut chunks, Body::Lbls(l));
            }
            "Action" => {
                let (dur, name) = arg.split_once(' ').unwrap_or((&arg, ""));
                let duration_msec: u32 = num(&p, at, Some(dur), "duration")?;
                let name = p.string(at, name.trim())?;
                let mut frames: Vec<Frame> = Vec::new();
                while let Some(l) = p.block_line() {
                    let at = l.offset;
                    let mut t = l.text.split_whitespace();
                    let k = t.next().unwrap_or("");
                    if k == "frame" {
                        p.take_items::<Frame>(at, "animation frames", 1)?;
                        frames.push(Frame {
                            msec: num(&p, at, t.next(), "msec")?,
                            transforms: Vec::new(),
                        });
                        continue;
                    }
                    let bone = idx(&p, at, k)?;
                    let pos = idx(&p, at, t.next().unwrap_or(""))?;
                    let ori = idx(&p, at, t.next().unwrap_or(""))?;
                    p.take_items::<Transform>(at, "animation frames", 1)?;
                    let f = frames
                        .last_mut()
                        .ok_or_else(|| p.err(at, "transform before any frame"))?;
                    f.transforms.push(Transform { bone, pos, ori });
                }
                if frames.len() > usize::from(u16::MAX) {
                    return Err(p.err(at, "more than 65535 frames").into());
                }
                push(
                    &mut chunks,
                    Body::Actn(Action {
                        name,
                        duration_msec,
                        frames,
                    }),
                );
            }
            "Extra" => {
                let magic: [u8; 4] = arg
                    .as_bytes()
                    .try_into()
                    .map_err(|_| p.err(at, "Extra needs a 4-letter magic"))?;
                let mut data = Vec::new();
                while let Some(l) = p.block_line() {
                    let at = l.offset;
                    for tok in l.text.split_whitespace() {
                        p.take(at, "chunk bytes", 1)?;
                        data.push(
                            u8::from_str_radix(tok, 16).map_err(|_| p.err(at, "not a hex byte"))?,
                        );
                    }
                }
                push(&mut chunks, Body::Extra { magic, data });
            }
            // These name external files this reader does not open: skipped.
            "Preview" | "Assets" => while p.block_line().is_some() {},
            _ => return Err(p.err(at, format!("unknown block {kw:?}")).into()),
        }
    }
    // Bone orientation vertices are quaternions (skin -2), as m3d.h marks them.
    for b in &bones {
        if let Some(v) = b.ori.get().and_then(|i| vertices.get_mut(i as usize)) {
            v.skin = Idx::MAX;
        }
    }
    let mut head_chunks = Vec::new();
    if !tmap.is_empty() {
        head_chunks.push(Chunk {
            body: Body::Tmap(Records {
                items: tmap,
                tail: Vec::new(),
            }),
            tail: Vec::new(),
        });
    }
    if !vertices.is_empty() {
        head_chunks.push(Chunk {
            body: Body::Vrts(Records {
                items: vertices,
                tail: Vec::new(),
            }),
            tail: Vec::new(),
        });
    }
    if !bones.is_empty() || !skins.is_empty() {
        head_chunks.push(Chunk {
            body: Body::Bone(Skeleton { bones, skins }),
            tail: Vec::new(),
        });
    }
    head_chunks.extend(chunks);
    Ok(File {
        preview: None,
        compressed: true,
        scale,
        types: Types(TYPES),
        strings: p.strings,
        chunks: head_chunks,
    })
}
