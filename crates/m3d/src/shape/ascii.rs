//! The `Shape` block.

use std::fmt::Write as _;

use parsing_primitives::Error as PError;

use crate::context::parse::{PResult, Parser, coord, idx, num};
use crate::context::text::{NL, TextWriter, idx_text};
use crate::error::{Result, invalid};
use crate::shape::{self, ArgValue, Command, Shape};
use crate::types::{Coord, Idx};

/// `Shape NAME`: `group BONE` and one command a line (`keyword args [ repeated ]`).
pub(crate) fn read_shape(p: &mut Parser<'_>, at: u64, arg: &str) -> PResult<Shape> {
    let name = p.string(at, arg)?;
    let mut group = Idx::UNDEF;
    let mut commands = Vec::new();
    while let Some(l) = p.block_line() {
        let at = l.offset;
        // Brackets only group a variadic list: read as spaces (copied only when present).
        let text = match l.text.contains(['[', ']']) {
            true => std::borrow::Cow::Owned(l.text.replace(['[', ']'], " ")),
            false => std::borrow::Cow::Borrowed(l.text),
        };
        let mut t = text.split_whitespace();
        let k = t.next().unwrap_or("");
        if k == "group" {
            group = idx(p, at, t.next().unwrap_or(""))?;
            continue;
        }
        let (kind, layout) = shape::layout_by_keyword(k)
            .ok_or_else(|| p.err(at, format!("unknown shape command {k:?}")))?;
        let toks: Vec<&str> = t.collect();
        // The command and an argument per token at most.
        p.take(
            at,
            "shape commands",
            std::mem::size_of::<Command>() + (toks.len() + 8) * std::mem::size_of::<ArgValue>(),
        )?;
        let mut args = Vec::with_capacity(toks.len());
        let mut it = toks.iter();
        let mut next_arg =
            |a: shape::ArgKind, p: &mut Parser<'_>| -> std::result::Result<ArgValue, PError> {
                let tok = it.next().copied();
                Ok(match a {
                    shape::ArgKind::Str => ArgValue::Str(p.string(at, tok.unwrap_or(""))?),
                    shape::ArgKind::Idx => ArgValue::Idx(idx(p, at, tok.unwrap_or(""))?),
                    shape::ArgKind::Coord => {
                        ArgValue::Coord(Coord::F64(coord(p, at, tok, "argument")?))
                    }
                    shape::ArgKind::Int => ArgValue::Int(num(p, at, tok, "argument")?),
                })
            };
        let mut k = 0;
        while let Some(&a) = layout.get(k) {
            let v = next_arg(shape::arg_kind(a), p)?;
            args.push(v);
            k += 1;
            if shape::is_variadic(a) {
                let ArgValue::Int(n) = v else { break };
                let rest = layout.get(k..).unwrap_or(&[]);
                let n = usize::try_from(n)
                    .ok()
                    .filter(|n| n.saturating_mul(rest.len()) <= toks.len())
                    .ok_or_else(|| p.err(at, "variadic count beyond the line"))?;
                for _ in 0..n {
                    for &a in rest {
                        args.push(next_arg(shape::arg_kind(a), p)?);
                    }
                }
                break;
            }
        }
        commands.push(Command {
            kind,
            long_form: kind >= 0x80,
            args,
        });
    }
    Ok(Shape {
        name,
        group,
        commands,
    })
}

/// SHPE as a `Shape` block.
pub(crate) fn write_shape(w: &mut TextWriter<'_>, s: &Shape) -> Result<()> {
    let nl = NL;
    let name = w.name(s.name)?;
    let _ = write!(w, "Shape {name}{nl}");
    if let Some(g) = s.group.get() {
        let _ = write!(w, "group {g}{nl}");
    }
    for c in &s.commands {
        let kw = c
            .keyword()
            .ok_or_else(|| invalid("unknown shape command"))?;
        let mut text = kw.to_owned();
        let layout = crate::shape::layout_by_keyword(kw)
            .map(|l| l.1)
            .unwrap_or(&[]);
        let va = layout.iter().position(|a| crate::shape::is_variadic(*a));
        for (i, a) in c.args.iter().enumerate() {
            let v = match a {
                ArgValue::Str(s) => w.name(*s)?,
                ArgValue::Idx(i) => idx_text(*i),
                ArgValue::Coord(c) => c.signed().to_string(),
                ArgValue::Int(n) => n.to_string(),
            };
            text.push(' ');
            text.push_str(&v);
            if Some(i) == va {
                text.push('[');
            }
        }
        if va.is_some_and(|k| k < c.args.len()) {
            text.push_str(" ]");
        }
        w.reserve(text.len())?;
        let _ = write!(w, "{text}{nl}");
        w.settle()?;
    }
    w.push_str(nl);
    Ok(())
}
