//! The byte sink the binary writer encodes chunks into, at the widths the type bits
//! give.

use super::{Coord, Idx, Str, Types};
use crate::error::{Result, invalid};

/// A byte sink that knows the widths.
pub(crate) struct Out {
    pub buf: Vec<u8>,
    pub t: Types,
    /// Re-encoding at other widths ([`WriteOptions::narrow`](crate::WriteOptions)):
    /// coordinates are converted to `t`'s `vc_t` and stored tails dropped, as m3d_save
    /// writes a model.
    pub convert: bool,
}

impl Out {
    pub fn new(t: Types) -> Out {
        Out {
            buf: Vec::new(),
            t,
            convert: false,
        }
    }
    /// Bytes after a chunk's records or body, kept unless re-encoding.
    pub fn tail(&mut self, b: &[u8]) {
        if !self.convert {
            self.bytes(b);
        }
    }
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    pub fn idx(&mut self, width: usize, v: Idx, what: &str) -> Result<()> {
        if width == 0 && self.convert && v != Idx::UNDEF {
            return Err(invalid(format!("{what}: index {} needs a field", v.0)));
        }
        let narrow = |top: u32| -> Result<u32> {
            match v {
                Idx::UNDEF => Ok(top),
                Idx::MAX => Ok(top - 1),
                Idx(x) if x < top - 1 => Ok(x),
                Idx(x) => Err(invalid(format!(
                    "{what}: index {x} does not fit the {width}-byte field"
                ))),
            }
        };
        match width {
            1 => self.u8(narrow(0xFF)? as u8),
            2 => self.u16(narrow(0xFFFF)? as u16),
            4 => self.u32(v.0),
            _ => {}
        }
        Ok(())
    }
    pub fn raw(&mut self, width: usize, v: u32, what: &str) -> Result<()> {
        let fits = match width {
            1 => v <= 0xFF,
            2 => v <= 0xFFFF,
            // An absent field reads as 0.
            0 if self.convert => v == 0,
            _ => true,
        };
        if !fits {
            return Err(invalid(format!(
                "{what}: value {v} does not fit the {width}-byte field"
            )));
        }
        match width {
            1 => self.u8(v as u8),
            2 => self.u16(v as u16),
            4 => self.u32(v),
            _ => {}
        }
        Ok(())
    }
    pub fn str(&mut self, s: Str, what: &str) -> Result<()> {
        self.raw(self.t.si(), s.0, what)
    }
    /// A vertex or shape coordinate (signed when quantized).
    pub fn coord(&mut self, c: Coord, what: &str) -> Result<()> {
        self.converted(c, what, false)
    }
    /// A texture coordinate (unsigned when quantized).
    pub fn uv(&mut self, c: Coord, what: &str) -> Result<()> {
        self.converted(c, what, true)
    }
    fn converted(&mut self, c: Coord, what: &str, texture: bool) -> Result<()> {
        if !self.convert {
            return self.stored_coord(c, what);
        }
        let (q, clamped) = c.at_width(self.t.vc(), texture);
        if clamped {
            let range = if texture { "0..1" } else { "-1..1" };
            return Err(invalid(format!(
                "{what}: {} lies outside {range}, which the {}-byte vc_t cannot store",
                c.signed(),
                self.t.vc()
            )));
        }
        self.stored_coord(q, what)
    }
    fn stored_coord(&mut self, c: Coord, what: &str) -> Result<()> {
        match (self.t.vc(), c) {
            (1, Coord::I8(v)) => self.u8(v as u8),
            (2, Coord::I16(v)) => self.u16(v as u16),
            (4, Coord::F32(v)) => self.bytes(&v.to_le_bytes()),
            (8, Coord::F64(v)) => self.bytes(&v.to_le_bytes()),
            _ => {
                return Err(invalid(format!(
                    "{what}: coordinate {c:?} does not match the {}-byte vc_t",
                    self.t.vc()
                )));
            }
        }
        Ok(())
    }
}
