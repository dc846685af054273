//! The problem list the chunk modules' checks add to, and what they check against.

use std::collections::HashSet;

use meshfmt_core::Problem;

use crate::types::{Idx, NameKey, Names, Str};

/// Problems of one kind listed before the rest are only counted.
pub(crate) const PROBLEM_CAP: usize = 100;

/// The list being built, and the sizes and names the references are checked against:
/// lines of a kind past [`PROBLEM_CAP`] are counted, not made.
#[derive(Default)]
pub(crate) struct Check {
    pub(crate) lines: Vec<String>,
    pub(crate) kinds: Vec<(&'static str, usize)>,
    /// VRTS records.
    pub vertices: usize,
    /// TMAP records.
    pub tmap: usize,
    /// CMAP colours.
    pub cmap: usize,
    /// Bones.
    pub bones: usize,
    /// Skins.
    pub skins: usize,
    /// The string table's length.
    pub table: usize,
    /// True when colour fields are CMAP indices.
    pub cmap_colors: bool,
    /// Keys of the material names and use-material references.
    pub names: Names,
    /// The material names' keys.
    pub materials: HashSet<NameKey>,
}

impl Check {
    /// Lists (or, past the cap, counts) a problem of `kind`; the line is made only when
    /// it is listed.
    pub fn push(&mut self, kind: &'static str, line: impl FnOnce() -> String) {
        let n = match self.kinds.iter_mut().find(|k| k.0 == kind) {
            Some(k) => {
                k.1 += 1;
                k.1
            }
            None => {
                self.kinds.push((kind, 1));
                1
            }
        };
        if n <= PROBLEM_CAP {
            self.lines.push(line());
        }
    }

    /// An index past `len` (the sentinels are no index, not a problem).
    pub fn index(&mut self, kind: &'static str, at: impl FnOnce() -> String, i: Idx, len: usize) {
        if let Some(v) = i.get().filter(|v| *v as usize >= len) {
            self.push(kind, || {
                format!("{}: index {v} past the {len} entries", at())
            });
        }
    }

    /// A string offset past the table.
    pub fn string(&mut self, kind: &'static str, at: impl FnOnce() -> String, s: Str) {
        if s.0 as usize >= self.table && s.0 != 0 {
            self.push(kind, || {
                format!("{}: string offset {} past the table", at(), s.0)
            });
        }
    }

    /// The problems, each line's chunk path (before its first `: `) as the path, then
    /// one per kind past the cap counting the rest.
    pub(crate) fn finish(self) -> Vec<Problem> {
        let mut out: Vec<Problem> = self
            .lines
            .into_iter()
            .map(|line| match line.split_once(": ") {
                Some((path, message)) => Problem {
                    path: path.to_string(),
                    message: message.to_string(),
                },
                None => Problem {
                    path: String::new(),
                    message: line,
                },
            })
            .collect();
        for (kind, n) in self.kinds {
            if n > PROBLEM_CAP {
                out.push(Problem {
                    path: String::new(),
                    message: format!(
                        "... and {} more problems of this kind not listed: {kind}",
                        n - PROBLEM_CAP
                    ),
                });
            }
        }
        out
    }
}
