//! LBLS: text labels attached to vertices.

pub(crate) mod ascii;
pub(crate) mod check;

use parsing_primitives::{Reader, Result as PResult};

use crate::error::Result;
use crate::types::{Idx, Out, Str, Types, read_idx, read_raw, read_str};

/// A LBLS chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labels {
    /// Group name.
    pub name: Str,
    /// Language code.
    pub lang: Str,
    /// ci_t colour.
    pub color: u32,
    /// `(vertex, text)` records. m3d.h over-counts these (it divides the whole payload
    /// length by the record size); this is the real number.
    pub labels: Vec<(Idx, Str)>,
}

pub(crate) fn read_lbls(r: &mut Reader<'_>, t: Types) -> PResult<Labels> {
    let name = r.field("name", |r| read_str(r, t))?;
    let lang = r.field("lang", |r| read_str(r, t))?;
    let color = r.field("color", |r| read_raw(r, t.ci()))?;
    let size = t.vi() + t.si();
    let n = r.remaining() / size.max(1);
    let labels = r.field("label", |r| {
        r.array(n as u64, size.max(1), |r| {
            Ok((read_idx(r, t.vi())?, read_str(r, t)?))
        })
    })?;
    Ok(Labels {
        name,
        lang,
        color,
        labels,
    })
}

pub(crate) fn write_lbls(o: &mut Out, l: &Labels) -> Result<()> {
    let t = o.t;
    o.str(l.name, "LBLS.name")?;
    o.str(l.lang, "LBLS.lang")?;
    o.raw(t.ci(), l.color, "LBLS.color")?;
    for (v, s) in &l.labels {
        o.idx(t.vi(), *v, "LBLS.vertex")?;
        o.str(*s, "LBLS.text")?;
    }
    Ok(())
}
