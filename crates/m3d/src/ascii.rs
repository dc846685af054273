//! The ASCII `3dmodel` variant, read into the same [`File`] the binary form gives.
//!
//! The text has no widths, so the reader picks them: f64 coordinates (as m3d.h's ASCII
//! exporter), u32 indices and strings, literal RGBA colours, u16 voxel types.

use std::collections::HashMap;

use parsing_primitives::{Budget, Error as PError, ErrorKind};

use crate::bones::{Bone, Skeleton, Skin};
use crate::error::Result;
use crate::file::{Body, Chunk, FORMAT, File};
use crate::types::{Coord, Idx, Str, Types};
use crate::vertex::{Records, Vertex};
use crate::{asset, bones, extra, label, material, mesh, procedural, shape, vertex, voxel};

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

/// One line of the text and the byte offset it starts at.
pub(crate) struct Line<'a> {
    pub offset: u64,
    pub text: &'a str,
}

/// The text's lines, where the reader is, and the string table it builds.
pub(crate) struct Parser<'a> {
    lines: Vec<Line<'a>>,
    pos: usize,
    strings: Vec<u8>,
    interned: HashMap<String, Str>,
    section: String,
    budget: Budget,
}

pub(crate) type PResult<T> = std::result::Result<T, PError>;

impl<'a> Parser<'a> {
    /// Charges what is about to be built from the text (a line of a few bytes can make a
    /// record of tens), naming where.
    pub(crate) fn take(&self, at: u64, what: &'static str, bytes: usize) -> PResult<()> {
        self.budget
            .charge(what, bytes as u64)
            .map_err(|e| PError::new(FORMAT, at, self.section.clone(), ErrorKind::OverBudget(e)))
    }
    /// [`take`](Self::take) for `n` values of `T`.
    pub(crate) fn take_items<T>(&self, at: u64, what: &'static str, n: usize) -> PResult<()> {
        self.take(at, what, n.saturating_mul(std::mem::size_of::<T>()))
    }
    /// An invalid-value error at `at`, in the current block.
    pub(crate) fn err(&self, at: u64, message: impl Into<String>) -> PError {
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
    pub(crate) fn block_line(&mut self) -> Option<&Line<'a>> {
        let l = self.lines.get(self.pos)?;
        if l.text.trim().is_empty() {
            return None;
        }
        self.pos += 1;
        self.lines.get(self.pos - 1)
    }
    /// The offset of `s` in the string table being built (0 for the empty string).
    pub(crate) fn string(&mut self, at: u64, s: &str) -> PResult<Str> {
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

/// A number token, or an error naming `what`.
pub(crate) fn num<T: std::str::FromStr>(
    p: &Parser<'_>,
    at: u64,
    tok: Option<&str>,
    what: &str,
) -> std::result::Result<T, PError> {
    let tok = tok.ok_or_else(|| p.err(at, format!("{what} is missing")))?;
    tok.parse()
        .map_err(|_| p.err(at, format!("{what}: {tok:?} is not a number")))
}

/// A `#AABBGGRR` colour token.
pub(crate) fn color(p: &Parser<'_>, at: u64, tok: &str) -> std::result::Result<u32, PError> {
    // `#AABBGGRR`: the little-endian RGBA word printed with %08x.
    let hex = tok.strip_prefix('#').unwrap_or(tok);
    u32::from_str_radix(hex, 16).map_err(|_| p.err(at, format!("{tok:?} is not a colour")))
}

/// An index token: `.` or empty is -1, `-` is -2.
pub(crate) fn idx(p: &Parser<'_>, at: u64, tok: &str) -> std::result::Result<Idx, PError> {
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

    let mut m = Blocks {
        chunks: Vec::new(),
        vertices: Vec::new(),
        tmap: Vec::new(),
        skins: Vec::new(),
        skin_ids: HashMap::new(),
        bones: Vec::new(),
        text_voxels: data.len().saturating_mul(4),
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
        if kw == "End" {
            break;
        }
        let Some((_, read_block)) = BLOCKS.iter().find(|b| b.0 == kw) else {
            return Err(p.err(at, format!("unknown block {kw:?}")).into());
        };
        read_block(&mut p, &mut m, at, &arg)?;
    }
    Ok(m.finish(scale, p.strings))
}

/// Reads one block (its keyword line read: `at` is its offset, `arg` the rest of it).
type ReadBlock = fn(&mut Parser<'_>, &mut Blocks, u64, &str) -> PResult<()>;

/// Every block keyword and its reader (each chunk module reads its own blocks).
const BLOCKS: [(&str, ReadBlock); 15] = [
    ("Vertex", vertex::ascii::read_vertex),
    ("Textmap", vertex::ascii::read_textmap),
    ("Bones", bones::ascii::read_bones),
    ("Material", material::ascii::read_material),
    ("Procedural", procedural::read_ascii),
    ("Mesh", mesh::ascii::read_mesh),
    ("Shape", shape::ascii::read_shape),
    ("VoxTypes", voxel::ascii::read_voxtypes),
    ("Voxtypes", voxel::ascii::read_voxtypes),
    ("Voxel", voxel::ascii::read_voxel),
    ("Labels", label::ascii::read_labels),
    ("Action", bones::ascii::read_action),
    ("Extra", extra::read_ascii),
    // These name external files this reader does not open: skipped.
    ("Preview", asset::skip_ascii),
    ("Assets", asset::skip_ascii),
];

/// What the blocks build: the chunks in text order, and the lists the binary form keeps
/// in one chunk each (TMAP, VRTS, BONE), which go first.
pub(crate) struct Blocks {
    pub chunks: Vec<Chunk>,
    pub vertices: Vec<Vertex>,
    pub tmap: Vec<[Coord; 2]>,
    pub skins: Vec<Skin>,
    /// Skin -> its index: a vertex finds its skin in one lookup, not a scan of all.
    pub skin_ids: HashMap<Skin, usize>,
    pub bones: Vec<Bone>,
    /// How large a grid a block may still declare, from the text's size (the grid itself
    /// is never built: only the voxels written are kept, and meshed).
    pub text_voxels: usize,
}

impl Blocks {
    /// Appends a chunk in text order.
    pub fn push(&mut self, body: Body) {
        self.chunks.push(Chunk {
            body,
            tail: Vec::new(),
        });
    }

    fn finish(mut self, scale: f32, strings: Vec<u8>) -> File {
        // Bone orientation vertices are quaternions (skin -2), as m3d.h marks them.
        for b in &self.bones {
            if let Some(v) = b.ori.get().and_then(|i| self.vertices.get_mut(i as usize)) {
                v.skin = Idx::MAX;
            }
        }
        let chunk = |body| Chunk {
            body,
            tail: Vec::new(),
        };
        let mut head_chunks = Vec::new();
        if !self.tmap.is_empty() {
            head_chunks.push(chunk(Body::Tmap(Records {
                items: self.tmap,
                tail: Vec::new(),
            })));
        }
        if !self.vertices.is_empty() {
            head_chunks.push(chunk(Body::Vrts(Records {
                items: self.vertices,
                tail: Vec::new(),
            })));
        }
        if !self.bones.is_empty() || !self.skins.is_empty() {
            head_chunks.push(chunk(Body::Bone(Skeleton {
                bones: self.bones,
                skins: self.skins,
            })));
        }
        head_chunks.extend(self.chunks);
        File {
            preview: None,
            compressed: true,
            scale,
            types: Types(TYPES),
            strings,
            chunks: head_chunks,
        }
    }
}
