//! PROC: a procedural script name (its binary form is one string, read through chunk.rs's
//! table and written in write.rs), in the text form and its losses.

use std::fmt::Write as _;

use crate::context::parse::{PResult, Parser};
use crate::context::text::{NL, TextWriter};
use crate::error::Result;
use crate::types::Str;

/// `Procedural`: the script name on the next line.
pub(crate) fn read_ascii(p: &mut Parser<'_>, at: u64) -> PResult<Str> {
    let l = p
        .block_line()
        .map(|l| l.text.trim().to_owned())
        .unwrap_or_default();
    let s = p.string(at, &l)?;
    while p.block_line().is_some() {}
    Ok(s)
}

/// PROC as a `Procedural` block.
pub(crate) fn write_ascii(w: &mut TextWriter<'_>, s: &Str) -> Result<()> {
    let nl = NL;
    let name = w.name(*s)?;
    let _ = write!(w, "Procedural{nl}{name}{nl}{nl}");
    Ok(())
}
