//! The text writer and the text form's loss list, which the chunk modules' text writers
//! write and add to.

use std::collections::HashSet;

use meshfmt_core::text::is_unprintable;
use meshfmt_core::{Feature, Loss, LossKind};
use parsing_primitives::Budget;

use crate::error::Result;
use crate::types::{Colours, Idx, Str, Types, string_at};

/// The line end m3d.h's exporter writes.
pub(crate) const NL: &str = "\r\n";

/// The text being written, charged to the budget as it grows: after every line, and
/// before any part that a few bytes of the model can make long (the slashes of a deep
/// bone, a voxel grid, a name that is the whole string table). Each chunk module writes
/// its blocks through it.
pub(crate) struct TextWriter<'f> {
    /// The model's string table.
    pub strings: &'f [u8],
    /// Its type bits.
    pub types: Types,
    pub(crate) s: String,
    pub budget: Budget,
    pub(crate) charged: usize,
    /// Its colour map, found once.
    pub colours: Colours<'f>,
}

impl<'f> TextWriter<'f> {
    /// Charges what was written since the last charge.
    pub fn settle(&mut self) -> Result<()> {
        let n = self.s.len().saturating_sub(self.charged);
        if n > 0 {
            self.budget.charge("ASCII text", n as u64)?;
            self.charged = self.s.len();
        }
        Ok(())
    }

    /// Charges `n` bytes about to be written.
    pub fn reserve(&mut self, n: usize) -> Result<()> {
        self.settle()?;
        self.budget.charge("ASCII text", n as u64)?;
        self.charged = self.charged.saturating_add(n);
        Ok(())
    }

    pub fn push_str(&mut self, s: &str) {
        self.s.push_str(s);
    }

    /// A name as one token ([`name_text`]), the copy charged (a name may be the whole
    /// table, and be referenced by every record).
    pub fn name(&mut self, s: Str) -> Result<String> {
        self.reserve(self.string(s).map_or(0, <[u8]>::len))?;
        Ok(name_text(self.strings, s))
    }

    /// The string at `s` ([`File::string`](crate::File::string)).
    pub fn string(&self, s: Str) -> Option<&'f [u8]> {
        string_at(self.strings, s)
    }
}

/// The string at `s` of `strings` as one token on its line: spaces would split it, as
/// m3d.h's exporter knows.
pub(crate) fn name_text(strings: &[u8], s: Str) -> String {
    string_at(strings, s)
        .map(|b| {
            // Any whitespace (tabs too: the reader trims them) becomes '_'; control
            // characters go (a text file is no place for an escape sequence).
            String::from_utf8_lossy(b)
                .chars()
                .filter(|&c| !is_unprintable(c) || c.is_whitespace())
                .map(|c| if c.is_whitespace() { '_' } else { c })
                .collect::<String>()
        })
        .unwrap_or_default()
}

impl std::fmt::Write for TextWriter<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.s.push_str(s);
        Ok(())
    }
}

pub(crate) fn idx_text(i: Idx) -> String {
    match i {
        Idx::UNDEF => "-1".into(),
        Idx::MAX => "-2".into(),
        Idx(v) => v.to_string(),
    }
}

/// Names in loss paths are cut here: a name may be the whole string table.
pub(crate) const PATH_NAME_MAX: usize = 1024;

/// Losses of one kind listed before the rest are only counted.
pub(crate) const LOSS_CAP: usize = 100;

/// Losses listed up to [`LOSS_CAP`] of each kind (feature, kind and reason), then counted.
#[derive(Default)]
pub(crate) struct Capped {
    pub(crate) out: Vec<Loss>,
    /// Per kind: feature, loss kind, reason, how many.
    pub(crate) kinds: Vec<(Feature, LossKind, &'static str, usize)>,
}

impl Capped {
    pub(crate) fn push(
        &mut self,
        feature: Feature,
        kind: LossKind,
        path: String,
        reason: &'static str,
    ) {
        let n = match self
            .kinds
            .iter_mut()
            .find(|k| k.0 == feature && k.1 == kind && k.2 == reason)
        {
            Some(k) => {
                k.3 += 1;
                k.3
            }
            None => {
                self.kinds.push((feature, kind.clone(), reason, 1));
                1
            }
        };
        if n <= LOSS_CAP {
            self.out.push(Loss {
                feature,
                kind,
                path,
                reason: reason.into(),
            });
        }
    }

    pub(crate) fn finish(mut self) -> Vec<Loss> {
        for (feature, kind, reason, n) in self.kinds {
            if n > LOSS_CAP {
                self.out.push(Loss {
                    feature,
                    kind,
                    path: String::new(),
                    reason: format!("{} more like this not listed: {reason}", n - LOSS_CAP),
                });
            }
        }
        self.out
    }
}

/// A name as its loss path shows it: cut at [`PATH_NAME_MAX`] bytes.
pub(crate) fn cut(b: &[u8]) -> String {
    String::from_utf8_lossy(b.get(..PATH_NAME_MAX).unwrap_or(b)).into_owned()
}

/// Why a name with whitespace changes.
pub(crate) const TOKEN: &str = "the ASCII form writes a name as one token: whitespace becomes '_', control characters are removed";

/// The losses [`File::ascii_losses`](crate::File::ascii_losses) lists; each chunk
/// module adds its own.
pub(crate) struct TextLosses<'f> {
    /// The model's string table.
    pub strings: &'f [u8],
    pub(crate) out: Capped,
    /// Materials a mesh uses, by name (a record may name it at another offset).
    pub(crate) used: HashSet<&'f [u8]>,
}

impl<'f> TextLosses<'f> {
    /// Lists (or counts) one loss.
    pub fn push(&mut self, feature: Feature, kind: LossKind, path: String, reason: &'static str) {
        self.out.push(feature, kind, path, reason);
    }

    /// The string at `s` ([`File::string`](crate::File::string)).
    pub fn string(&self, s: Str) -> Option<&'f [u8]> {
        string_at(self.strings, s)
    }

    /// The bytes of a name the text changes, for the path.
    pub fn changed(&self, s: Str) -> Option<&'f [u8]> {
        let b = self.string(s)?;
        (name_text(self.strings, s) != String::from_utf8_lossy(b)).then_some(b)
    }

    /// True when a mesh uses the material named `name`.
    pub fn used(&self, name: &[u8]) -> bool {
        self.used.contains(name)
    }

    /// A name (not a material's or a map's) the text changes, under `Names`.
    pub fn name(&mut self, what: &str, s: Str) {
        if let Some(b) = self.changed(s) {
            self.push(
                Feature::Names,
                LossKind::Reduced,
                format!("{what} '{}'", cut(b)),
                TOKEN,
            );
        }
    }
}
