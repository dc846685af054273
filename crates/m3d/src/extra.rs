//! Unknown chunks (`Extra`), kept verbatim (binary form: read.rs reads them, write.rs
//! writes them), in the text form.

use std::fmt::Write as _;

use crate::context::parse::{PResult, Parser};
use meshfmt_core::{Feature, LossKind};

use crate::context::text::{NL, TextLosses, TextWriter, cut};
use crate::error::Result;

/// `Extra MAGIC`: the chunk bytes as hex, 16 a line.
pub(crate) fn read_ascii(p: &mut Parser<'_>, at: u64, arg: &str) -> PResult<([u8; 4], Vec<u8>)> {
    let magic: [u8; 4] = arg
        .as_bytes()
        .try_into()
        .map_err(|_| p.err(at, "Extra needs a 4-letter magic"))?;
    let mut data = Vec::new();
    while let Some(l) = p.block_line() {
        let at = l.offset;
        for tok in l.text.split_whitespace() {
            p.take(at, "chunk bytes", 1)?;
            data.push(u8::from_str_radix(tok, 16).map_err(|_| p.err(at, "not a hex byte"))?);
        }
    }
    Ok((magic, data))
}

/// True when the text form can name a chunk of this magic: four printable ASCII
/// characters (a control byte would break the line; other bytes would not read back).
fn printable(magic: &[u8; 4]) -> bool {
    magic.iter().all(u8::is_ascii_graphic)
}

/// An unknown chunk the text form cannot name is left out.
pub(crate) fn ascii_losses(magic: &[u8; 4], l: &mut TextLosses<'_>) {
    if !printable(magic) {
        l.push(
            Feature::Geometry,
            LossKind::Dropped,
            format!("chunk {}", cut(magic)),
            "the ASCII form names a chunk by its magic: one that is not four printable characters is left out",
        );
    }
}

/// An unknown chunk as an `Extra` block of hex bytes (nothing when its magic is not
/// printable: see [`ascii_losses`]).
pub(crate) fn write_ascii(w: &mut TextWriter<'_>, magic: &[u8; 4], data: &[u8]) -> Result<()> {
    if !printable(magic) {
        return Ok(());
    }
    let nl = NL;
    let _ = write!(w, "Extra {}{nl}", String::from_utf8_lossy(magic));
    for row in data.chunks(16) {
        let hex: Vec<String> = row.iter().map(|b| format!("{b:02x}")).collect();
        let _ = write!(w, "{}{nl}", hex.join(" "));
        w.settle()?;
    }
    w.push_str(nl);
    Ok(())
}
