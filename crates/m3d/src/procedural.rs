//! PROC: a procedural script name (its binary form is one string, read and written in
//! file.rs), in the text form and its losses.

use std::fmt::Write as _;

use crate::ascii::parse::{Blocks, PResult, Parser};
use crate::ascii_write::text::{NL, TextWriter};
use crate::chunk::Body;
use crate::error::Result;
use crate::types::Str;

/// `Procedural`: the script name on the next line.
pub(crate) fn read_ascii(p: &mut Parser<'_>, m: &mut Blocks, at: u64, _arg: &str) -> PResult<()> {
    let l = p
        .block_line()
        .map(|l| l.text.trim().to_owned())
        .unwrap_or_default();
    let s = p.string(at, &l)?;
    m.push(Body::Proc(s));
    while p.block_line().is_some() {}
    Ok(())
}

/// PROC as a `Procedural` block.
pub(crate) fn write_ascii(w: &mut TextWriter<'_>, s: &Str) -> Result<()> {
    let nl = NL;
    let name = w.name(*s)?;
    let _ = write!(w, "Procedural{nl}{name}{nl}{nl}");
    Ok(())
}
