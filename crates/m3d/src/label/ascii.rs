//! The `Labels` block.

use std::fmt::Write as _;

use crate::context::parse::{PResult, Parser, color, idx};
use meshfmt_core::{Feature, LossKind};

use crate::context::text::{NL, TextLosses, TextWriter, cut, idx_text};
use crate::error::Result;
use crate::label::Labels;
use crate::types::{Idx, Str};

/// `Labels NAME`: `color`, `lang` and one `vertex text` a line.
pub(crate) fn read_labels(p: &mut Parser<'_>, at: u64, arg: &str) -> PResult<Labels> {
    let name = p.string(at, arg)?;
    let mut l = Labels {
        name,
        lang: Str(0),
        color: 0,
        labels: Vec::new(),
    };
    while let Some(line) = p.block_line() {
        let at = line.offset;
        let text = line.text;
        let (k, v) = text.split_once(' ').unwrap_or((text, ""));
        match k {
            "color" => l.color = color(p, at, v.trim())?,
            "lang" => l.lang = p.string(at, v.trim())?,
            k => {
                let vi = idx(p, at, k)?;
                let s = p.string(at, v)?;
                p.take_items::<(Idx, Str)>(at, "labels", 1)?;
                l.labels.push((vi, s));
            }
        }
    }
    Ok(l)
}

/// LBLS as a `Labels` block.
pub(crate) fn write_labels(w: &mut TextWriter<'_>, l: &Labels) -> Result<()> {
    let nl = NL;
    let name = w.name(l.name)?;
    let _ = write!(w, "Labels {name}{nl}");
    if w.types.ci() != 0 {
        let rgba = w.colours.rgba(l.color);
        let _ = write!(w, "color #{rgba:08x}{nl}");
    }
    if l.lang.0 != 0 {
        let lang = w.name(l.lang)?;
        let _ = write!(w, "lang {lang}{nl}");
    }
    for (v, s) in &l.labels {
        w.reserve(w.string(*s).map_or(0, <[u8]>::len))?;
        let text = w
            .string(*s)
            .map(|b| {
                meshfmt_core::text::without_unprintable(
                    &String::from_utf8_lossy(b).replace(['\r', '\n'], " "),
                )
                .into_owned()
            })
            .unwrap_or_default();
        let _ = write!(w, "{} {text}{nl}", idx_text(*v));
        w.settle()?;
    }
    w.push_str(nl);
    Ok(())
}

/// The group name and language the text changes.
pub(crate) fn losses(x: &Labels, l: &mut TextLosses<'_>) {
    l.name("LBLS", x.name);
    l.name("LBLS lang", x.lang);
    for (i, (_, s)) in x.labels.iter().enumerate() {
        let text = l.string(*s).unwrap_or_default();
        if String::from_utf8_lossy(text)
            .chars()
            .any(meshfmt_core::text::is_unprintable)
        {
            l.push(
                Feature::Names,
                LossKind::Reduced,
                format!(
                    "LBLS '{}' label {i}",
                    cut(l.string(x.name).unwrap_or_default())
                ),
                "a label is one line: line breaks become spaces, control characters are removed",
            );
        }
    }
}
