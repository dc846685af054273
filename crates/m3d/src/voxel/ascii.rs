//! The `VoxTypes` and `Voxel` blocks.

use std::fmt::Write as _;

use parsing_primitives::lines::is_space;

use crate::context::parse::{PResult, Parser, color, hex8, idx, num, plain_idx};
use crate::context::text::{NL, TextLosses, TextWriter};
use crate::error::{Result, invalid};
use crate::types::{Idx, Str};
use crate::voxel::{Run, VoxelBlock, VoxelType};

/// `VoxTypes`: one type a line (`#colour/rotation/shape name [skin] [{ count name ... }]`).
pub(crate) fn read_voxtypes(p: &mut Parser<'_>, at: u64) -> PResult<Vec<VoxelType>> {
    // One type a line: charged and sized once, so the list grows once.
    let n = p.block_len();
    p.take_items::<VoxelType>(at, "voxel types", n)?;
    let mut types = Vec::with_capacity(n);
    while let Some(l) = p.block_line() {
        let at = l.offset;
        let text = l.text;
        // A colour alone (`#aabbggrr`), as most types are: no name, shape or items.
        let hex = text.strip_prefix('#').unwrap_or_default();
        let alone = match hex8(hex) {
            Some(v) => Some(v),
            None if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                Some(color(p, at, text)?)
            }
            None => None,
        };
        if let Some(color) = alone {
            types.push(VoxelType {
                color,
                name: Str(0),
                rotation: 0,
                shape_low: 0,
                skin: Idx::UNDEF,
                items: Vec::new(),
            });
            continue;
        }
        let (main, items) = text.split_once('{').unwrap_or((text, ""));
        let mut t = main.split_whitespace();
        let head = t.next().unwrap_or("");
        let mut hp = head.split('/');
        let color = color(p, at, hp.next().unwrap_or(""))?;
        let rotation: u8 = hp
            .next()
            .map_or(Ok(0), |s| num(p, at, Some(s), "rotation"))?;
        let shape: u16 = hp.next().map_or(Ok(0), |s| num(p, at, Some(s), "shape"))?;
        let name = match t.next() {
            None | Some("-") => Str(0),
            Some(n) => p.string(at, n)?,
        };
        let skin = match t.next() {
            Some(s) => idx(p, at, s)?,
            None => Idx::UNDEF,
        };
        let mut list = Vec::new();
        let mut it = items.trim_end_matches('}').split_whitespace();
        while let Some(c) = it.next() {
            let c: u16 = num(p, at, Some(c), "item count")?;
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
    Ok(types)
}

/// `Voxel NAME`: `uncertain`, `pos`, `dim`, then `layer` lines and rows of voxel types,
/// kept as literal runs of 128, up to the block's voxel count. `text_voxels` is how
/// large a grid a block may still declare, from the text's size (the grid itself is
/// never built: only the voxels written are kept).
pub(crate) fn read_voxel(
    p: &mut Parser<'_>,
    at: u64,
    arg: &str,
    text_voxels: &mut usize,
) -> PResult<VoxelBlock> {
    let name = p.string(at, arg)?;
    let mut b = VoxelBlock {
        name,
        pos: [0; 3],
        size: [0; 3],
        uncertain: 0,
        group: 0,
        runs: Vec::new(),
    };
    let mut values = Vec::new();
    // The voxels `dim` declares (none without a `dim` line).
    let mut count = 0usize;
    // The parser's token list, for the block's lines.
    let mut toks = std::mem::take(&mut p.tokens);
    while let Some(l) = p.block_line() {
        let (at, text) = (l.offset, l.text);
        // A row of plain values, as nearly every row is: read from its bytes, its
        // values charged as the general path below charges them (no token list is
        // made, so none is charged).
        if let Some(n) = plain_row_len(text.as_bytes()) {
            p.take_items::<Idx>(at, "voxels", 2 * n)?;
            values.reserve(n);
            values.extend(plain_row(text.as_bytes()));
            continue;
        }
        // Keyword lines are few and short: split as they are read (the token list is
        // for rows, whose values it counts before they are charged).
        let mut t = text.split_whitespace();
        match t.next().unwrap_or("") {
            "uncertain" => {
                b.uncertain = num(p, at, t.next(), "uncertain")?;
                b.group = t.next().map_or(Ok(0), |s| num(p, at, Some(s), "group"))?;
            }
            "pos" => {
                for v in &mut b.pos {
                    *v = num(p, at, t.next(), "pos")?;
                }
            }
            "dim" => {
                for v in &mut b.size {
                    *v = num(p, at, t.next(), "dim")?;
                }
                // Each voxel takes at least 2 bytes of text.
                let n = b
                    .size
                    .iter()
                    .try_fold(1u64, |a, v| a.checked_mul(u64::from(*v)));
                let Some(n) = n.filter(|n| n.saturating_mul(2) <= *text_voxels as u64) else {
                    return Err(p.err(at, "voxel block larger than the text"));
                };
                // At most half the text's length: fits.
                count = usize::try_from(n).unwrap_or(usize::MAX);
                // Room for the first run's voxels, charged (the rows charge again as they
                // come: at most 512 bytes twice).
                let first = count.min(128);
                p.take_items::<Idx>(at, "voxels", first)?;
                values.reserve_exact(first);
            }
            "layer" => {}
            _ => {
                // A row: charged at once (the list, and the runs a longer block is cut
                // into), then read.
                p.split(at, text, &mut toks)?;
                p.take_items::<Idx>(at, "voxels", 2 * toks.len())?;
                values.reserve(toks.len());
                for &tok in &toks {
                    values.push(idx(p, at, tok)?);
                }
            }
        }
    }
    p.tokens = toks;
    *text_voxels = text_voxels.saturating_sub(values.len());
    // The block holds `dim`'s voxels: rows past them (or any, without a `dim` line) are
    // not part of it, as a binary VOXD's runs end at its voxel count.
    if values.len() > count {
        values.truncate(count);
        values.shrink_to_fit();
    }
    p.take_items::<Run>(at, "voxel runs", values.len().div_ceil(128))?;
    if values.len() <= 128 {
        // One run (or none): the list itself, not a copy.
        if !values.is_empty() {
            b.runs = vec![Run::Literal(values)];
        }
    } else {
        b.runs.reserve_exact(values.len().div_ceil(128));
        for chunk in values.chunks(128) {
            b.runs.push(Run::Literal(chunk.to_vec()));
        }
    }
    Ok(b)
}

/// How many values a row of plain voxel values ([`plain_idx`]) holds, or `None` for a
/// row with anything else, which the general path reads (and names what is wrong in it).
fn plain_row_len(row: &[u8]) -> Option<usize> {
    let mut n = 0;
    for t in row.split(is_space).filter(|t| !t.is_empty()) {
        plain_idx(t)?;
        n += 1;
    }
    Some(n)
}

/// The values of a row [`plain_row_len`] accepted, as [`idx`] reads them (empty tokens,
/// between two spaces, are no value).
fn plain_row(row: &[u8]) -> impl Iterator<Item = Idx> + '_ {
    row.split(is_space).filter_map(plain_idx)
}

/// VOXT as a `VoxTypes` block.
pub(crate) fn write_voxtypes(w: &mut TextWriter<'_>, types: &[VoxelType]) -> Result<()> {
    let nl = NL;
    let _ = write!(w, "VoxTypes{nl}");
    for t in types {
        let shape = (u16::from(t.rotation & 0x40) << 2) | u16::from(t.shape_low);
        let name = match w.name(t.name)? {
            n if n.is_empty() => "-".to_owned(),
            n => n,
        };
        let rgba = w.colours.rgba(t.color);
        let _ = write!(w, "#{rgba:08x}/{}/{} {name}", t.rotation & 0xBF, shape);
        if let Some(s) = t.skin.get() {
            let _ = write!(w, " {s}");
        }
        if !t.items.is_empty() {
            w.push_str(" {");
            for (n, s) in &t.items {
                // An empty name would shift every later count/name pair.
                let name = match w.name(*s)? {
                    t if t.is_empty() => "-".to_owned(),
                    t => t,
                };
                let _ = write!(w, " {n} {name}");
            }
            w.push_str(" }");
        }
        w.push_str(nl);
        w.settle()?;
    }
    w.push_str(nl);
    Ok(())
}

/// VOXD as a `Voxel` block: every voxel of the grid, a layer at a time.
pub(crate) fn write_voxel(w: &mut TextWriter<'_>, b: &VoxelBlock) -> Result<()> {
    let nl = NL;
    let name = w.name(b.name)?;
    let _ = write!(w, "Voxel {name}{nl}");
    let _ = write!(w, "uncertain {} {}{nl}", b.uncertain, b.group);
    let _ = write!(w, "pos {} {} {}{nl}", b.pos[0], b.pos[1], b.pos[2]);
    let _ = write!(w, "dim {} {} {}{nl}", b.size[0], b.size[1], b.size[2]);
    let n = b
        .voxel_count()
        .filter(|n| *n <= 1 << 26)
        .ok_or_else(|| invalid("voxel block too large for text"))?;
    let [width, _, d] = b.size.map(|x| x.max(1) as usize);
    // Every voxel of the grid is written (a '.' past the coded ones): a
    // few bytes of runs can declare 2^26 of them, so the text is charged
    // first: two bytes a voxel, a line end a row, a "layer" line a layer.
    let rows = n / width;
    w.reserve(
        n.saturating_mul(2)
            .saturating_add(rows.saturating_mul(2))
            .saturating_add((rows / d).saturating_mul(7)),
    )?;
    let coded = b.coded_voxels(n, &w.budget)?;
    for i in 0..rows {
        if i % d == 0 {
            let _ = write!(w, "layer{nl}");
        }
        for k in 0..width {
            if k > 0 {
                w.push_str(" ");
            }
            let v = coded.get(i * width + k).copied().unwrap_or(Idx::UNDEF);
            voxel_text(w, v);
        }
        w.push_str(nl);
    }
    w.push_str(nl);
    w.settle()?;
    Ok(())
}

fn voxel_text(w: &mut TextWriter<'_>, i: Idx) {
    match i {
        Idx::UNDEF => w.push_str("."),
        Idx::MAX => w.push_str("-"),
        Idx(v) => {
            let _ = write!(w, "{v}");
        }
    }
}

/// Voxel type and item names the text changes.
pub(crate) fn voxtype_losses(types: &[VoxelType], l: &mut TextLosses<'_>) {
    for t in types {
        l.name("VOXT", t.name);
        for (_, s) in &t.items {
            l.name("VOXT item", *s);
        }
    }
}
