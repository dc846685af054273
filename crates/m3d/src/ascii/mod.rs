//! The ASCII `3dmodel` variant, read into the same [`File`] the binary form gives.
//!
//! The text has no widths, so the reader picks them: f64 coordinates (as m3d.h's ASCII
//! exporter), u32 indices and strings, literal RGBA colours, u16 voxel types.

mod blocks;

use std::collections::HashMap;

use parsing_primitives::lines::split_lines;
use parsing_primitives::{Budget, Credit, Error as PError, ErrorKind};

use self::blocks::Blocks;
use crate::chunk::Body;
use crate::context::parse::{Line, PResult, Parser, blank};
use crate::error::{FORMAT, Result};
use crate::file::File;
use crate::types::SkinList;
use crate::{asset, bones, extra, label, material, mesh, procedural, shape, vertex, voxel};

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
    // One line per newline, counted and charged first (from the credit the parser then
    // uses), so the list is allocated once at its size.
    let mut credit = Credit::new(budget, "text");
    let n = parsing_primitives::lines::count_newlines(data).saturating_add(1);
    credit.charge_for(
        "text lines",
        (n as u64).saturating_mul(std::mem::size_of::<Line<'_>>() as u64),
    )?;
    let mut lines = Vec::with_capacity(n);
    for (offset, raw) in split_lines(text) {
        lines.push(Line {
            offset: offset as u64,
            text: raw.strip_suffix('\r').unwrap_or(raw),
        });
    }
    let mut p = Parser {
        lines,
        pos: 0,
        strings: Vec::new(),
        interned: HashMap::new(),
        section: "header",
        credit,
        tokens: Vec::new(),
    };
    let first = p.lines.first().map_or("", |l| l.text);
    let scale: f32 = match first.strip_prefix("3dmodel") {
        Some(rest) => rest.trim().parse().unwrap_or(1.0),
        None => return Err(p.err(0, "does not start with 3dmodel").into()),
    };
    let scale = if scale > 0.0 { scale } else { 1.0 };
    // name, license, author lines, then description lines up to a blank line.
    // Sized for those lines and their ends, so it is allocated once, and charged twice
    // that: the table grows on from here by doubling as names are added (an over-budget
    // error names the name line).
    let size: usize = (1..p.lines.len())
        .map_while(|i| {
            let l = p.lines.get(i)?;
            (i < 4 || !blank(l.text)).then_some(l.text.len() + 1)
        })
        .sum();
    let at = p.lines.get(1).map_or(0, |l| l.offset);
    p.take(at, "string table", 2 * (size + 1))?;
    let mut head = Vec::with_capacity(size + 1);
    for i in 1..4 {
        let t = p.lines.get(i).map_or("", |l| l.text);
        head.extend_from_slice(t.as_bytes());
        head.push(0);
    }
    p.pos = 4;
    let mut first = true;
    while let Some(l) = p.block_line() {
        let text = l.text;
        if !first {
            head.push(b'\n');
        }
        head.extend_from_slice(text.as_bytes());
        first = false;
    }
    head.push(0);
    p.strings = head;

    let mut m = Blocks {
        chunks: Vec::new(),
        vertices: Vec::new(),
        tmap: Vec::new(),
        skins: SkinList::default(),
        bones: Vec::new(),
        text_voxels: data.len().saturating_mul(4),
    };
    loop {
        // Blank lines between blocks.
        while p.lines.get(p.pos).is_some_and(|l| blank(l.text)) {
            p.pos += 1;
        }
        let Some(l) = p.lines.get(p.pos) else { break };
        let at = l.offset;
        let (kw, arg) = l.text.split_once(' ').unwrap_or((l.text, ""));
        let (kw, arg) = (kw.trim(), arg.trim());
        p.pos += 1;
        p.section = kw;
        if kw == "End" {
            break;
        }
        let Some((_, read_block)) = BLOCKS.iter().find(|b| b.0 == kw) else {
            return Err(p.err(at, format!("unknown block {kw:?}")).into());
        };
        read_block(&mut p, &mut m, at, arg)?;
    }
    Ok(m.finish(scale, p.strings))
}

/// Reads one block (its keyword line read: `at` is its offset, `arg` the rest of it).
type ReadBlock = fn(&mut Parser<'_>, &mut Blocks, u64, &str) -> PResult<()>;

/// Every block keyword and its reader (each chunk module reads its own blocks; these
/// put what they read where the file holds it).
const BLOCKS: [(&str, ReadBlock); 15] = [
    ("Vertex", |p, m, at, _| {
        vertex::ascii::read_vertex(p, at, &mut m.vertices, &mut m.skins)
    }),
    ("Textmap", |p, m, at, _| {
        vertex::ascii::read_textmap(p, at, &mut m.tmap)
    }),
    ("Bones", |p, m, _, _| {
        bones::ascii::read_bones(p, &mut m.bones)
    }),
    ("Material", |p, m, at, arg| {
        m.push(Body::Mtrl(material::ascii::read_material(p, at, arg)?));
        Ok(())
    }),
    ("Procedural", |p, m, at, _| {
        m.push(Body::Proc(procedural::read_ascii(p, at)?));
        Ok(())
    }),
    ("Mesh", |p, m, at, _| {
        m.push(Body::Mesh(mesh::ascii::read_mesh(p, at)?));
        Ok(())
    }),
    ("Shape", |p, m, at, arg| {
        m.push(Body::Shpe(shape::ascii::read_shape(p, at, arg)?));
        Ok(())
    }),
    ("VoxTypes", read_voxtypes),
    ("Voxtypes", read_voxtypes),
    ("Voxel", |p, m, at, arg| {
        let block = voxel::ascii::read_voxel(p, at, arg, &mut m.text_voxels)?;
        m.push(Body::Voxd(block));
        Ok(())
    }),
    ("Labels", |p, m, at, arg| {
        m.push(Body::Lbls(label::ascii::read_labels(p, at, arg)?));
        Ok(())
    }),
    ("Action", |p, m, at, arg| {
        m.push(Body::Actn(bones::ascii::read_action(p, at, arg)?));
        Ok(())
    }),
    ("Extra", |p, m, at, arg| {
        let (magic, data) = extra::read_ascii(p, at, arg)?;
        m.push(Body::Extra { magic, data });
        Ok(())
    }),
    // These name external files this reader does not open: skipped.
    ("Preview", skip),
    ("Assets", skip),
];

/// `VoxTypes` (or `Voxtypes`).
fn read_voxtypes(p: &mut Parser<'_>, m: &mut Blocks, at: u64, _: &str) -> PResult<()> {
    let x = voxel::ascii::read_voxtypes(p, at)?;
    m.push(Body::Voxt(x));
    Ok(())
}

/// A block whose lines are skipped.
fn skip(p: &mut Parser<'_>, _: &mut Blocks, _: u64, _: &str) -> PResult<()> {
    asset::skip_ascii(p);
    Ok(())
}
