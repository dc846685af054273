//! ASET: an inlined asset (binary form in file.rs). The text form only names files, so
//! its blocks are skipped and inlined assets are not written.

use meshfmt_core::{Feature, LossKind};

use crate::ascii::{Blocks, PResult, Parser};
use crate::ascii_write::{TextLosses, cut};
use crate::types::Str;

/// `Preview` and `Assets` blocks name external files this reader does not open: skipped.
pub(crate) fn skip_ascii(p: &mut Parser<'_>, _m: &mut Blocks, _at: u64, _arg: &str) -> PResult<()> {
    while p.block_line().is_some() {}
    Ok(())
}

/// Each inlined asset (an embedded texture) is dropped by the text form.
pub(crate) fn ascii_losses(name: Str, l: &mut TextLosses<'_>) {
    let name = l.file.string(name).unwrap_or_default();
    l.push(
        Feature::Textures,
        LossKind::Dropped,
        format!("ASET '{}'", cut(name)),
        "the ASCII form does not inline assets: the pixels are not written",
    );
}
