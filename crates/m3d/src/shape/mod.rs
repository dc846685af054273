//! SHPE: parametric shapes, argument layouts from m3d.h's `m3d_commandtypes` table.

pub(crate) mod ascii;

use parsing_primitives::{ErrorKind, Reader, Result as PResult};

use crate::error::{Result, invalid};
use crate::types::{Coord, Idx, Out, Str, Types, read_coord, read_idx, read_str};

/// Argument kinds of shape commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arg {
    Mi,
    Hi,
    Fi,
    Ti,
    Vi,
    Qi,
    Vc,
    I1,
    I2,
    #[allow(dead_code, reason = "an m3d.h argument kind no command uses yet")]
    I4,
    Va,
}

use Arg::*;

/// m3d.h's table: the argument layout of every command type (index = type). Files follow
/// m3d.h where the documents disagree (`inc` has 3 arguments, `mesh` 1).
const COMMANDS: [(&str, &[Arg]); 38] = [
    ("use", &[Mi]),
    ("inc", &[Hi, Vi, Qi]),
    ("mesh", &[Fi]),
    ("div", &[Vc]),
    ("sub", &[Vc, Vc]),
    ("len", &[Vc]),
    ("dist", &[Vc, Vc]),
    ("degu", &[I1]),
    ("deg", &[I1, I1]),
    ("rangeu", &[Ti]),
    ("range", &[Ti, Ti]),
    ("paru", &[Va, Vc]),
    ("parv", &[Va, Vc]),
    ("trim", &[Va, Ti, I2]),
    ("hole", &[Va, Ti, I2]),
    ("scrv", &[Va, Ti, I2]),
    ("sp", &[Va, Vi]),
    ("bez1", &[Va, Vi]),
    ("bsp1", &[Va, Vi]),
    ("bez2", &[Va, Vi]),
    ("bsp2", &[Va, Vi]),
    ("bezun", &[Va, Vi, Ti, Vi]),
    ("bezu", &[Va, Vi, Ti]),
    ("bezn", &[Va, Vi, Vi]),
    ("bez", &[Va, Vi]),
    ("nurbsun", &[Va, Vi, Ti, Vi]),
    ("nurbsu", &[Va, Vi, Ti]),
    ("nurbsn", &[Va, Vi, Vi]),
    ("nurbs", &[Va, Vi]),
    ("conn", &[I2, Ti, I2, I2, Ti, I2]),
    ("line", &[Va, Vi]),
    ("polygon", &[Va, Vi]),
    ("circle", &[Vi, Qi, Vc]),
    ("cylinder", &[Vi, Qi, Vc, Vi, Qi, Vc]),
    ("shpere", &[Vi, Vc]),
    ("torus", &[Vi, Qi, Vc, Vc]),
    ("cone", &[Vi, Vi, Vi]),
    ("cube", &[Vi, Vi, Vi]),
];

/// One argument value as stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ArgValue {
    /// A material name (`mi`).
    Str(Str),
    /// An index (`hi`, `fi`, `ti`, `vi`, `qi`).
    Idx(Idx),
    /// A vc_t scalar.
    Coord(Coord),
    /// A fixed-size integer (`i1`, `i2`, `i4`) or a variadic count (`va`, u32).
    Int(i64),
}

/// One shape command.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// Command type (index into m3d.h's table, e.g. 17 = `bez1`).
    pub kind: u16,
    /// True when the type was stored in the two-byte form (`0x80 | low7`, `high`).
    pub long_form: bool,
    /// Arguments in file order; a variadic count is followed by its repeated arguments.
    pub args: Vec<ArgValue>,
}

impl Command {
    /// The command's keyword in the ASCII format (`"bez1"`), if the type is known.
    pub fn keyword(&self) -> Option<&'static str> {
        COMMANDS.get(usize::from(self.kind)).map(|c| c.0)
    }
}

/// A SHPE chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// Name.
    pub name: Str,
    /// Group bone, [`Idx::UNDEF`] for none.
    pub group: Idx,
    /// Commands.
    pub commands: Vec<Command>,
}

fn arg_size(a: Arg, t: Types) -> usize {
    match a {
        Mi => t.si(),
        Hi => t.hi(),
        Fi => t.fi(),
        Ti => t.ti(),
        Vi | Qi => t.vi(),
        Vc => t.vc(),
        I1 => 1,
        I2 => 2,
        I4 | Va => 4,
    }
}

fn read_arg(r: &mut Reader<'_>, a: Arg, t: Types) -> PResult<ArgValue> {
    Ok(match a {
        Mi => ArgValue::Str(read_str(r, t)?),
        Vc => ArgValue::Coord(read_coord(r, t)?),
        I1 => ArgValue::Int(i64::from(r.i8()?)),
        I2 => ArgValue::Int(i64::from(r.i16_le()?)),
        I4 => ArgValue::Int(i64::from(r.i32_le()?)),
        Va => ArgValue::Int(i64::from(r.u32_le()?)),
        _ => ArgValue::Idx(read_idx(r, arg_size(a, t))?),
    })
}

pub(crate) fn read_shpe(r: &mut Reader<'_>, t: Types) -> PResult<Shape> {
    let name = r.field("name", |r| read_str(r, t))?;
    let group = r.field("group", |r| read_idx(r, t.bi()))?;
    let mut commands = Vec::new();
    let mut i = 0;
    while !r.is_empty() {
        // A command can be its type byte alone (`mesh` with fi absent): charge what it
        // holds before building it.
        r.charge_for(
            "shape commands",
            (std::mem::size_of::<Command>() + 8 * std::mem::size_of::<ArgValue>()) as u64,
        )?;
        let c = r.field("command", |r| {
            r.item(i, |r| {
                let start = r.offset();
                let b = r.u8()?;
                let long_form = b & 0x80 != 0;
                let kind = if long_form {
                    u16::from(b & 0x7F) | (u16::from(r.u8()?) << 7)
                } else {
                    u16::from(b)
                };
                let Some((_, layout)) = COMMANDS.get(usize::from(kind)) else {
                    return Err(r.error_at(
                        start,
                        ErrorKind::InvalidValue {
                            message: format!("unknown shape command type {kind}"),
                        },
                    ));
                };
                let mut args = Vec::new();
                let mut k = 0;
                while let Some(&a) = layout.get(k) {
                    let v = r.field("arg", |r| r.item(args.len(), |r| read_arg(r, a, t)))?;
                    args.push(v);
                    k += 1;
                    if a == Va {
                        let ArgValue::Int(n) = v else { break };
                        let rest = layout.get(k..).unwrap_or(&[]);
                        let per: usize = rest.iter().map(|a| arg_size(*a, t)).sum();
                        // Checked against the bytes left before anything grows.
                        let n = r.count(n as u64, per.max(1))?;
                        r.charge_for(
                            "shape arguments",
                            (n as u64)
                                .saturating_mul(rest.len() as u64)
                                .saturating_mul(std::mem::size_of::<ArgValue>() as u64),
                        )?;
                        for _ in 0..n {
                            for &a in rest {
                                let v =
                                    r.field("arg", |r| r.item(args.len(), |r| read_arg(r, a, t)))?;
                                args.push(v);
                            }
                        }
                        break;
                    }
                }
                Ok(Command {
                    kind,
                    long_form,
                    args,
                })
            })
        })?;
        commands.push(c);
        i += 1;
    }
    Ok(Shape {
        name,
        group,
        commands,
    })
}

fn write_arg(o: &mut Out, a: Arg, v: &ArgValue) -> Result<()> {
    let t = o.t;
    match (a, v) {
        (Mi, ArgValue::Str(s)) => o.str(*s, "SHPE.arg")?,
        (Vc, ArgValue::Coord(c)) => o.coord(*c, "SHPE.arg")?,
        (I1, ArgValue::Int(n)) => {
            o.u8(i8::try_from(*n).map_err(|_| invalid("SHPE: i1 out of range"))? as u8)
        }
        (I2, ArgValue::Int(n)) => {
            o.u16(i16::try_from(*n).map_err(|_| invalid("SHPE: i2 out of range"))? as u16)
        }
        (I4, ArgValue::Int(n)) => {
            o.u32(i32::try_from(*n).map_err(|_| invalid("SHPE: i4 out of range"))? as u32)
        }
        (Va, ArgValue::Int(n)) => {
            o.u32(u32::try_from(*n).map_err(|_| invalid("SHPE: va out of range"))?)
        }
        (Hi | Fi | Ti | Vi | Qi, ArgValue::Idx(i)) => o.idx(arg_size(a, t), *i, "SHPE.arg")?,
        _ => {
            return Err(invalid(format!(
                "SHPE: argument {v:?} does not match its kind"
            )));
        }
    }
    Ok(())
}

pub(crate) fn write_shpe(o: &mut Out, s: &Shape) -> Result<()> {
    let t = o.t;
    o.str(s.name, "SHPE.name")?;
    o.idx(t.bi(), s.group, "SHPE.group")?;
    for c in &s.commands {
        let layout = COMMANDS
            .get(usize::from(c.kind))
            .map(|c| c.1)
            .ok_or_else(|| invalid(format!("SHPE: unknown command type {}", c.kind)))?;
        if c.long_form || c.kind >= 0x80 {
            o.u8(0x80 | (c.kind & 0x7F) as u8);
            o.u8(u8::try_from(c.kind >> 7).map_err(|_| invalid("SHPE: command type too large"))?);
        } else {
            o.u8(c.kind as u8);
        }
        let mut args = c.args.iter();
        let mut k = 0;
        while let Some(&a) = layout.get(k) {
            let v = args
                .next()
                .ok_or_else(|| invalid("SHPE: too few arguments"))?;
            write_arg(o, a, v)?;
            k += 1;
            if a == Va {
                let rest = layout.get(k..).unwrap_or(&[]);
                let ArgValue::Int(n) = v else { break };
                for _ in 0..*n {
                    for &a in rest {
                        let v = args
                            .next()
                            .ok_or_else(|| invalid("SHPE: too few arguments"))?;
                        write_arg(o, a, v)?;
                    }
                }
                break;
            }
        }
        if args.next().is_some() {
            return Err(invalid("SHPE: too many arguments"));
        }
    }
    Ok(())
}

/// How the ASCII reader parses an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArgKind {
    Str,
    Idx,
    Coord,
    Int,
}

pub(crate) fn arg_kind(a: Arg) -> ArgKind {
    match a {
        Mi => ArgKind::Str,
        Hi | Fi | Ti | Vi | Qi => ArgKind::Idx,
        Vc => ArgKind::Coord,
        I1 | I2 | I4 | Va => ArgKind::Int,
    }
}

pub(crate) fn is_variadic(a: Arg) -> bool {
    a == Va
}

pub(crate) fn layout_by_keyword(k: &str) -> Option<(u16, &'static [Arg])> {
    COMMANDS
        .iter()
        .position(|c| c.0 == k)
        .and_then(|i| Some((u16::try_from(i).ok()?, COMMANDS.get(i)?.1)))
}
