//! The `Mesh` block.

use std::fmt::Write as _;

use parsing_primitives::lines::split_ascii;

use crate::context::parse::{PResult, Parser, idx};
use crate::context::text::{NL, TextLosses, TextWriter, idx_text};
use crate::error::Result;
use crate::mesh::{Corner, Corners, Mesh, MeshRecord};
use crate::types::Idx;

/// `Mesh`: `use NAME`, `par NAME` and polygon lines (`v[/uv[/normal[/max]]] ...`).
pub(crate) fn read_mesh(p: &mut Parser<'_>, at: u64) -> PResult<Mesh> {
    // One record a line: charged and sized once, so the list grows once.
    let n = p.block_len();
    p.take_items::<MeshRecord>(at, "mesh records", n)?;
    let mut records = Vec::with_capacity(n);
    // The parser's token list, for the block's lines.
    let mut toks = std::mem::take(&mut p.tokens);
    while let Some(l) = p.block_line() {
        let at = l.offset;
        let text = l.text;
        // Polygon lines start with an index: only the others can be `use` or `par`.
        // A bare `use` (Blender's exporter writes one for faces without a material)
        // names the empty string.
        let word = match text.as_bytes().first() {
            Some(b'u' | b'p') => Some(text.split_once(' ').unwrap_or((text, ""))),
            _ => None,
        };
        match word {
            Some(("use", v)) => records.push(MeshRecord::UseMaterial(p.string(at, v.trim())?)),
            Some(("par", v)) => records.push(MeshRecord::UseParameter {
                flags: 1,
                name: p.string(at, v.trim())?,
            }),
            _ => {
                // Built in place: no list per polygon (triangles stay inline).
                let mut corners = Corners::new();
                let mut flags = 0u8;
                p.split(at, text, &mut toks)?;
                for &tok in &toks {
                    if corners.len() == 15 {
                        return Err(p.err(at, "a polygon has 1..=15 corners"));
                    }
                    let mut parts = split_ascii(tok, b'/');
                    let mut c = Corner {
                        vertex: Idx::UNDEF,
                        uv: Idx::UNDEF,
                        normal: Idx::UNDEF,
                        max: Idx::UNDEF,
                    };
                    c.vertex = idx(p, at, parts.next().unwrap_or(""))?;
                    for (bit, slot) in [(1u8, &mut c.uv), (2, &mut c.normal), (4, &mut c.max)] {
                        match parts.next() {
                            Some(s) if !s.is_empty() => {
                                *slot = idx(p, at, s)?;
                                flags |= bit;
                            }
                            _ => {}
                        }
                    }
                    corners.push(c);
                }
                if corners.is_empty() {
                    return Err(p.err(at, "a polygon has 1..=15 corners"));
                }
                if corners.len() > 3 {
                    p.take_items::<Corner>(at, "polygon corners", corners.len())?;
                }
                records.push(MeshRecord::Polygon { flags, corners });
            }
        }
    }
    p.tokens = toks;
    Ok(Mesh { records })
}

/// MESH as a `Mesh` block.
pub(crate) fn write_mesh(w: &mut TextWriter<'_>, m: &Mesh) -> Result<()> {
    let nl = NL;
    let _ = write!(w, "Mesh{nl}");
    for r in &m.records {
        match r {
            MeshRecord::UseMaterial(s) => {
                let name = w.name(*s)?;
                let _ = write!(w, "use {name}{nl}");
            }
            MeshRecord::UseParameter { name, .. } => {
                let name = w.name(*name)?;
                let _ = write!(w, "par {name}{nl}");
            }
            MeshRecord::Polygon { corners, .. } => {
                let parts: Vec<String> = corners
                    .iter()
                    .map(|c| {
                        let f = |i: Idx| i.get().map(|v| v.to_string()).unwrap_or_default();
                        let mut s = idx_text(c.vertex);
                        let tail = [f(c.uv), f(c.normal), f(c.max)];
                        let keep = tail
                            .iter()
                            .rposition(|t| !t.is_empty())
                            .map_or(0, |k| k + 1);
                        for t in tail.iter().take(keep) {
                            s.push('/');
                            s.push_str(t);
                        }
                        s
                    })
                    .collect();
                let _ = write!(w, "{}{nl}", parts.join(" "));
            }
        }
        w.settle()?;
    }
    w.push_str(nl);
    Ok(())
}

/// Parameter names the text changes.
pub(crate) fn losses(m: &Mesh, l: &mut TextLosses<'_>) {
    for r in &m.records {
        if let MeshRecord::UseParameter { name, .. } = r {
            l.name("MESH parameter", *name);
        }
    }
}
