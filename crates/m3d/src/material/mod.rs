//! MTRL: a named material with typed properties.

pub(crate) mod ascii;
pub(crate) mod check;
pub(crate) mod core;

use parsing_primitives::{Reader, Result as PResult};

use crate::error::Result;
use crate::types::{Out, Str, Types, read_raw, read_str};

/// A property value, encoded by the property type.
#[derive(Debug, Clone, PartialEq)]
pub enum PropValue {
    /// Types 0 Kd, 1 Ka, 2 Ks, 4 Ke, 5 Tf: a ci_t colour (CMAP index or literal RGBA; 0 bytes
    /// and value 0 when ci is absent).
    Color(u32),
    /// Types 3 Ns, 6 Km, 7 d, 64 Pr, 65 Pm, 66 Ps, 67 Ni, 68 Nt: always f32.
    Float(f32),
    /// Type 8 il: u8.
    Byte(u8),
    /// Types 128..=255: a texture name (string offset).
    Map(Str),
    /// A type below 128 this crate (and m3d.h) does not know: the rest of the chunk, as
    /// stored, since its value size is unknown.
    Unknown(Vec<u8>),
}

/// One property.
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    /// Type byte (see [`PropValue`]).
    pub kind: u8,
    /// Value.
    pub value: PropValue,
}

/// A MTRL chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Name.
    pub name: Str,
    /// Properties in file order.
    pub props: Vec<Property>,
}

impl Material {
    /// The texture names (types 128..=255) this material uses.
    pub fn maps(&self) -> impl Iterator<Item = (u8, Str)> + '_ {
        self.props.iter().filter_map(|p| match p.value {
            PropValue::Map(s) => Some((p.kind, s)),
            _ => None,
        })
    }
}

pub(crate) fn read_mtrl(r: &mut Reader<'_>, t: Types) -> PResult<Material> {
    let name = r.field("name", |r| read_str(r, t))?;
    let mut props = Vec::new();
    let mut i = 0;
    while !r.is_empty() {
        // A property can be its type byte alone (colours with ci absent): ~40 bytes each.
        r.charge_for(
            "material properties",
            std::mem::size_of::<Property>() as u64,
        )?;
        let p = r.field("prop", |r| {
            r.item(i, |r| {
                let kind = r.u8()?;
                let value = match kind {
                    0 | 1 | 2 | 4 | 5 => PropValue::Color(read_raw(r, t.ci())?),
                    3 | 6 | 7 | 64..=68 => PropValue::Float(r.f32_le()?),
                    8 => PropValue::Byte(r.u8()?),
                    128..=255 => PropValue::Map(read_str(r, t)?),
                    _ => PropValue::Unknown(crate::types::rest_copy(r)?),
                };
                Ok(Property { kind, value })
            })
        })?;
        // Each property takes at least its type byte, so the loop ends.
        props.push(p);
        i += 1;
    }
    Ok(Material { name, props })
}

pub(crate) fn write_mtrl(o: &mut Out, m: &Material) -> Result<()> {
    let t = o.t;
    o.str(m.name, "MTRL.name")?;
    for p in &m.props {
        o.u8(p.kind);
        match &p.value {
            PropValue::Color(c) => o.raw(t.ci(), *c, "MTRL.color")?,
            PropValue::Float(f) => o.bytes(&f.to_le_bytes()),
            PropValue::Byte(b) => o.u8(*b),
            PropValue::Map(s) => o.str(*s, "MTRL.map")?,
            PropValue::Unknown(b) => o.bytes(b),
        }
    }
    Ok(())
}
