//! The `Vertex` and `Textmap` blocks (CMAP has none: the text writes colours literally).

use std::fmt::Write as _;

use crate::context::parse::{PResult, Parser, color, coord, idx, num};
use crate::context::text::{NL, TextWriter, idx_text};
use crate::error::Result;
use crate::types::{Coord, Idx, Skin, SkinList, Vertex};
use crate::vertex::Records;

/// `Vertex`: one VRTS record a line (`x y z w [#colour] [bone[:weight]...]`); the
/// skins the lines name join `skins` (the BONE chunk's list), one per distinct skin.
pub(crate) fn read_vertex(
    p: &mut Parser<'_>,
    at: u64,
    vertices: &mut Vec<Vertex>,
    skins: &mut SkinList,
) -> PResult<()> {
    // One vertex a line: charged and sized once, so the list grows once.
    let n = p.block_len();
    p.take_items::<Vertex>(at, "vertices", n)?;
    vertices.reserve_exact(n);
    // The parser's token list, for the block's lines.
    let mut toks = std::mem::take(&mut p.tokens);
    while let Some(l) = p.block_line() {
        let (at, text) = (l.offset, l.text);
        p.split(at, text, &mut toks)?;
        let mut t = toks.iter().copied();
        let mut c = [Coord::F64(0.0); 4];
        for (i, c) in c.iter_mut().enumerate() {
            *c = Coord::F64(coord(p, at, t.next(), ["x", "y", "z", "w"][i])?);
        }
        let mut v = Vertex {
            coords: c,
            color: 0,
            skin: Idx::UNDEF,
        };
        let mut skin = Vec::new();
        for tok in t {
            if tok.starts_with('#') {
                v.color = color(p, at, tok)?;
            } else {
                // Refused at the ninth bone, not after reading a line of them.
                if skin.len() == 8 {
                    return Err(p.err(at, "more than 8 bones per vertex"));
                }
                let (b, w) = tok.split_once(':').unwrap_or((tok, "1"));
                let w: f32 = num(p, at, Some(w), "weight")?;
                skin.push((idx(p, at, b)?, w));
            }
        }
        if !skin.is_empty() {
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
            let k = skins.id(s, |n| p.take(at, "skins", n))?;
            v.skin = u32::try_from(k)
                .ok()
                .filter(|k| *k < Idx::MAX.0)
                .map(Idx)
                .ok_or_else(|| p.err(at, "more skins than an index holds"))?;
        }
        vertices.push(v);
    }
    p.tokens = toks;
    Ok(())
}

/// `Textmap`: one `u v` pair a line.
pub(crate) fn read_textmap(p: &mut Parser<'_>, at: u64, tmap: &mut Vec<[Coord; 2]>) -> PResult<()> {
    // One pair a line: charged and sized once, so the list grows once.
    let n = p.block_len();
    p.take_items::<[Coord; 2]>(at, "texture coordinates", n)?;
    tmap.reserve_exact(n);
    // The parser's token list, for the block's lines.
    let mut toks = std::mem::take(&mut p.tokens);
    while let Some(l) = p.block_line() {
        let (at, text) = (l.offset, l.text);
        p.split(at, text, &mut toks)?;
        let mut t = toks.iter().copied();
        let u = coord(p, at, t.next(), "u")?;
        let v = coord(p, at, t.next(), "v")?;
        tmap.push([Coord::F64(u), Coord::F64(v)]);
    }
    p.tokens = toks;
    Ok(())
}

/// TMAP as a `Textmap` block (UVs as decoded).
pub(crate) fn write_textmap(w: &mut TextWriter<'_>, t: &Records<[Coord; 2]>) -> Result<()> {
    let nl = NL;
    let _ = write!(w, "Textmap{nl}");
    for uv in &t.items {
        let _ = write!(w, "{} {}{nl}", uv[0].unsigned(), uv[1].unsigned());
        w.settle()?;
    }
    w.push_str(nl);
    Ok(())
}

/// VRTS as a `Vertex` block: coordinates as decoded, colours literal, skins as
/// `bone[:weight]` lists (of `skins`, the BONE chunk's).
pub(crate) fn write_vertex(
    w: &mut TextWriter<'_>,
    v: &Records<Vertex>,
    skins: &[Skin],
) -> Result<()> {
    let nl = NL;
    let _ = write!(w, "Vertex{nl}");
    for v in &v.items {
        let c = v.coords.map(|c| c.signed());
        let _ = write!(w, "{} {} {} {}", c[0], c[1], c[2], c[3]);
        let rgba = w.colours.rgba(v.color);
        if w.types.ci() != 0 && rgba != 0 {
            let _ = write!(w, " #{rgba:08x}");
        }
        if let Some(s) = v.skin.get().and_then(|s| skins.get(s as usize)) {
            let single = s.bones.len() == 1 && s.weights.iter().filter(|w| **w != 0).eq([&255u8]);
            if s.weights.is_empty() || single {
                for b in &s.bones {
                    let _ = write!(w, " {}", idx_text(*b));
                }
            } else {
                let ws = s.weights.iter().filter(|w| **w != 0);
                for (b, wt) in s.bones.iter().zip(ws) {
                    let _ = write!(w, " {}:{}", idx_text(*b), f32::from(*wt) / 255.0);
                }
            }
        }
        w.push_str(nl);
        w.settle()?;
    }
    w.push_str(nl);
    Ok(())
}
