//! The `Material` block.

use std::fmt::Write as _;

use meshfmt_core::{Feature, LossKind};

use crate::context::parse::{PResult, Parser, color, num};
use crate::context::text::{NL, TOKEN, TextLosses, TextWriter, cut};
use crate::error::{Result, invalid};
use crate::material::{Material, PropValue, Property};

/// Material property names and types (m3d.h's table; `map_X` is 128 + the type of X).
const PROPS: [(&str, u8); 14] = [
    ("Kd", 0),
    ("Ka", 1),
    ("Ks", 2),
    ("Ns", 3),
    ("Ke", 4),
    ("Tf", 5),
    ("Km", 6),
    ("d", 7),
    ("il", 8),
    ("Pr", 64),
    ("Pm", 65),
    ("Ps", 66),
    ("Ni", 67),
    ("Nt", 68),
];

/// `Material NAME`: one `property value` a line (`map_X name` for a texture).
pub(crate) fn read_material(p: &mut Parser<'_>, at: u64, arg: &str) -> PResult<Material> {
    let name = p.string(at, arg)?;
    let mut props = Vec::new();
    while let Some(l) = p.block_line() {
        let (at, text) = (l.offset, l.text);
        p.take_items::<Property>(at, "material properties", 1)?;
        let (k, v) = text.split_once(' ').unwrap_or((text, ""));
        let v = v.trim().to_owned();
        let base = |n: &str| PROPS.iter().find(|p| p.0 == n).map(|p| p.1);
        let map_kind = match k {
            "bump" => Some(134),
            "map_N" => Some(136),
            "refl" => Some(193),
            k => k.strip_prefix("map_").and_then(base).map(|b| b | 128),
        };
        let prop = if let Some(kind) = map_kind {
            Property {
                kind,
                value: PropValue::Map(p.string(at, &v)?),
            }
        } else {
            let kind = base(k).ok_or_else(|| p.err(at, format!("unknown property {k:?}")))?;
            let value = match kind {
                0 | 1 | 2 | 4 | 5 => PropValue::Color(color(p, at, &v)?),
                8 => PropValue::Byte(num(p, at, Some(&v), "il")?),
                _ => PropValue::Float(num(p, at, Some(&v), k)?),
            };
            Property { kind, value }
        };
        props.push(prop);
    }
    Ok(Material { name, props })
}

/// MTRL as a `Material` block.
pub(crate) fn write_material(w: &mut TextWriter<'_>, m: &Material) -> Result<()> {
    let nl = NL;
    let name = w.name(m.name)?;
    let _ = write!(w, "Material {name}{nl}");
    for p in &m.props {
        let base = PROPS.iter().find(|x| x.1 == p.kind & 0x7F).map(|x| x.0);
        match (&p.value, base) {
            (PropValue::Map(s), Some(b)) => {
                let name = w.name(*s)?;
                let _ = write!(w, "map_{b} {name}{nl}");
            }
            (PropValue::Color(c), Some(b)) => {
                let rgba = w.colours.rgba(*c);
                let _ = write!(w, "{b} #{rgba:08x}{nl}");
            }
            (PropValue::Float(f), Some(b)) => {
                let _ = write!(w, "{b} {f}{nl}");
            }
            (PropValue::Byte(v), Some(b)) => {
                let _ = write!(w, "{b} {v}{nl}");
            }
            _ => {
                return Err(invalid(format!(
                    "material property type {} has no ASCII name",
                    p.kind
                )));
            }
        }
        w.settle()?;
    }
    w.push_str(nl);
    Ok(())
}

/// A material's name and map names the text changes: the name under `Materials` (and
/// `Names` when a mesh uses it: surfaces are named after their material), maps under
/// `Textures`.
pub(crate) fn losses(m: &Material, l: &mut TextLosses<'_>) {
    if let Some(b) = l.changed(m.name) {
        let path = format!("MTRL '{}'", cut(b));
        l.push(Feature::Materials, LossKind::Reduced, path.clone(), TOKEN);
        if l.used(b) {
            l.push(Feature::Names, LossKind::Reduced, path, TOKEN);
        }
    }
    for p in &m.props {
        if let PropValue::Map(s) = p.value {
            if let Some(b) = l.changed(s) {
                let material = l.string(m.name).unwrap_or_default();
                l.push(
                    Feature::Textures,
                    LossKind::Reduced,
                    format!("MTRL '{}' map '{}'", cut(material), cut(b)),
                    TOKEN,
                );
            }
        }
    }
}
