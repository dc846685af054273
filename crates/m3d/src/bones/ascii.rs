//! The `Bones` and `Action` blocks (skins are written and read with the vertices).

use std::fmt::Write as _;

use crate::bones::{Action, Bone, Frame, Skeleton, Transform};
use crate::context::parse::{PResult, Parser, idx, num};
use crate::context::text::{NL, TextLosses, TextWriter, idx_text};
use crate::error::{Result, invalid};
use crate::types::Idx;

/// `Bones`: one bone a line, its depth (and so its parent) given by leading slashes;
/// they join `bones` (the BONE chunk's list).
pub(crate) fn read_bones(p: &mut Parser<'_>, bones: &mut Vec<Bone>) -> PResult<()> {
    let mut stack: Vec<u32> = Vec::new();
    while let Some(l) = p.block_line() {
        let at = l.offset;
        let depth = l.text.bytes().take_while(|b| *b == b'/').count();
        let rest = l.text.get(depth..).unwrap_or("");
        let mut t = rest.splitn(3, ' ');
        let pos = idx(p, at, t.next().unwrap_or(""))?;
        let ori = idx(p, at, t.next().unwrap_or(""))?;
        let name = t.next().unwrap_or("").trim().to_owned();
        if depth > stack.len() {
            return Err(p.err(at, "bone deeper than its parent + 1"));
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
    Ok(())
}

/// `Action DURATION NAME`: `frame MSEC` lines, each followed by its `bone pos ori` lines.
pub(crate) fn read_action(p: &mut Parser<'_>, at: u64, arg: &str) -> PResult<Action> {
    let (dur, name) = arg.split_once(' ').unwrap_or((arg, ""));
    let duration_msec: u32 = num(p, at, Some(dur), "duration")?;
    let name = p.string(at, name.trim())?;
    let mut frames: Vec<Frame> = Vec::new();
    while let Some(l) = p.block_line() {
        let at = l.offset;
        let mut t = l.text.split_whitespace();
        let k = t.next().unwrap_or("");
        if k == "frame" {
            p.take_items::<Frame>(at, "animation frames", 1)?;
            frames.push(Frame {
                msec: num(p, at, t.next(), "msec")?,
                transforms: Vec::new(),
            });
            continue;
        }
        let bone = idx(p, at, k)?;
        let pos = idx(p, at, t.next().unwrap_or(""))?;
        let ori = idx(p, at, t.next().unwrap_or(""))?;
        p.take_items::<Transform>(at, "animation frames", 1)?;
        let f = frames
            .last_mut()
            .ok_or_else(|| p.err(at, "transform before any frame"))?;
        f.transforms.push(Transform { bone, pos, ori });
    }
    if frames.len() > usize::from(u16::MAX) {
        return Err(p.err(at, "more than 65535 frames"));
    }
    Ok(Action {
        name,
        duration_msec,
        frames,
    })
}

/// BONE as a `Bones` block (skins are written with the vertices). Bones must be in
/// depth-first order: the text gives a parent only by depth.
pub(crate) fn write_bones(w: &mut TextWriter<'_>, s: &Skeleton) -> Result<()> {
    let nl = NL;
    if s.bones.is_empty() {
        return Ok(());
    }
    let _ = write!(w, "Bones{nl}");
    w.budget
        .charge_items::<usize>("ASCII text", 2 * s.bones.len())?;
    let mut depth: Vec<usize> = Vec::with_capacity(s.bones.len());
    // The text form gives each bone's parent only by its depth: the
    // nearest earlier bone one level up. So bones must be in depth-first
    // order (each parent the last bone seen at its depth).
    let mut last_at_depth: Vec<usize> = Vec::new();
    for (i, b) in s.bones.iter().enumerate() {
        let d = match b.parent.get() {
            None => 0,
            Some(p) if (p as usize) < i => depth.get(p as usize).copied().unwrap_or(0) + 1,
            Some(_) => {
                return Err(invalid(format!("bone {i}: its parent must come before it")));
            }
        };
        if let Some(p) = b.parent.get() {
            if last_at_depth.get(d - 1) != Some(&(p as usize)) {
                return Err(invalid(format!(
                    "bone {i}: the text form needs bones in depth-first order (parent {p} is not the last bone one level up)"
                )));
            }
        }
        last_at_depth.truncate(d);
        last_at_depth.push(i);
        depth.push(d);
        // A chain of n bones writes n^2 / 2 slashes: charged first.
        w.reserve(d)?;
        const SLASHES: &str = "////////////////////////////////////////////////////////////////";
        let mut left = d;
        while left > 0 {
            let k = left.min(SLASHES.len());
            w.push_str(SLASHES.get(..k).unwrap_or_default());
            left -= k;
        }
        let name = w.name(b.name)?;
        let _ = write!(w, "{} {} {name}{nl}", idx_text(b.pos), idx_text(b.ori));
        w.settle()?;
    }
    w.push_str(nl);
    Ok(())
}

/// ACTN as an `Action` block.
pub(crate) fn write_action(w: &mut TextWriter<'_>, a: &Action) -> Result<()> {
    let nl = NL;
    let name = w.name(a.name)?;
    let _ = write!(w, "Action {} {name}{nl}", a.duration_msec);
    for f in &a.frames {
        let _ = write!(w, "frame {}{nl}", f.msec);
        for t in &f.transforms {
            let _ = write!(
                w,
                "{} {} {}{nl}",
                idx_text(t.bone),
                idx_text(t.pos),
                idx_text(t.ori)
            );
        }
        w.settle()?;
    }
    w.push_str(nl);
    Ok(())
}

/// Bone names the text changes.
pub(crate) fn bone_losses(s: &Skeleton, l: &mut TextLosses<'_>) {
    for b in &s.bones {
        l.name("BONE", b.name);
    }
}
