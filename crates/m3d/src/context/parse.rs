//! The text reader's parser: the lines, where it is, the string table it builds, and the
//! token readers every block uses.

use std::collections::HashMap;

use parsing_primitives::lines::{is_space, tokens_charged};
use parsing_primitives::{Credit, Error as PError, ErrorKind};

use crate::error::FORMAT;
use crate::types::{Idx, Str};

/// One line of the text and the byte offset it starts at.
pub(crate) struct Line<'a> {
    pub offset: u64,
    pub text: &'a str,
}

/// The text's lines, where the reader is, and the string table it builds.
pub(crate) struct Parser<'a> {
    pub(crate) lines: Vec<Line<'a>>,
    pub(crate) pos: usize,
    pub(crate) strings: Vec<u8>,
    pub(crate) interned: HashMap<String, Str>,
    /// The block being read (its keyword), for error paths.
    pub(crate) section: &'a str,
    /// Charges in blocks: a text makes many small records, and the shared total
    /// should not move once per line.
    pub(crate) credit: Credit<'a>,
    /// One token list for every line of the text (taken by a block's reader, then put
    /// back), so splitting a line allocates nothing once the list has grown.
    pub(crate) tokens: Vec<&'a str>,
}

pub(crate) type PResult<T> = std::result::Result<T, PError>;

impl<'a> Parser<'a> {
    /// Charges what is about to be built from the text (a line of a few bytes can make a
    /// record of tens), naming where.
    pub(crate) fn take(&mut self, at: u64, what: &'static str, bytes: usize) -> PResult<()> {
        self.credit
            .charge_for(what, bytes as u64)
            .map_err(|e| PError::new(FORMAT, at, self.section, ErrorKind::OverBudget(e)))
    }
    /// [`take`](Self::take) for `n` values of `T`.
    pub(crate) fn take_items<T>(&mut self, at: u64, what: &'static str, n: usize) -> PResult<()> {
        self.take(at, what, n.saturating_mul(std::mem::size_of::<T>()))
    }
    /// An invalid-value error at `at`, in the current block.
    pub(crate) fn err(&self, at: u64, message: impl Into<String>) -> PError {
        PError::new(
            FORMAT,
            at,
            self.section,
            ErrorKind::InvalidValue {
                message: message.into(),
            },
        )
    }
    /// The next non-blank line of the current block, or `None` at the blank line ending it.
    pub(crate) fn block_line(&mut self) -> Option<&Line<'a>> {
        let l = self.lines.get(self.pos)?;
        if blank(l.text) {
            return None;
        }
        self.pos += 1;
        self.lines.get(self.pos - 1)
    }
    /// Splits `text` (the line at `at`) into `toks`, the list's growth charged first.
    pub(crate) fn split(&mut self, at: u64, text: &'a str, toks: &mut Vec<&'a str>) -> PResult<()> {
        tokens_charged(text, toks, &mut self.credit, "tokens")
            .map_err(|e| PError::new(FORMAT, at, self.section, ErrorKind::OverBudget(e)))
    }

    /// How many lines the current block has left (up to its blank line): the block
    /// readers charge and size their lists from it once (an over-budget error then
    /// names the block's first line).
    pub(crate) fn block_len(&self) -> usize {
        let rest = self.lines.get(self.pos..).unwrap_or_default();
        rest.iter().take_while(|l| !blank(l.text)).count()
    }
    /// The offset of `s` in the string table being built (0 for the empty string).
    pub(crate) fn string(&mut self, at: u64, s: &str) -> PResult<Str> {
        if s.is_empty() {
            return Ok(Str(0));
        }
        // One copy per distinct string; a map keeps this linear on big texts.
        if let Some(at) = self.interned.get(s) {
            return Ok(*at);
        }
        let Ok(offset) = u32::try_from(self.strings.len()) else {
            return Err(self.err(at, "string table beyond 4 GiB"));
        };
        // The table's copy and the map's.
        self.take(at, "string table", 2 * s.len() + 64)?;
        self.strings.extend_from_slice(s.as_bytes());
        self.strings.push(0);
        self.interned.insert(s.to_owned(), Str(offset));
        Ok(Str(offset))
    }
}

/// `text.trim().is_empty()`, deciding on the first byte for most lines: an ASCII byte
/// that is not whitespace settles it (only non-ASCII text needs `trim`'s Unicode
/// rules).
pub(crate) fn blank(text: &str) -> bool {
    match text.bytes().find(|b| !is_space(b)) {
        None => true,
        Some(b) if b < 0x80 => false,
        Some(_) => text.trim().is_empty(),
    }
}

/// A number token, or an error naming `what`.
pub(crate) fn num<T: std::str::FromStr>(
    p: &Parser<'_>,
    at: u64,
    tok: Option<&str>,
    what: &str,
) -> std::result::Result<T, PError> {
    let tok = tok.ok_or_else(|| p.err(at, format!("{what} is missing")))?;
    tok.parse()
        .map_err(|_| p.err(at, format!("{what}: {tok:?} is not a number")))
}

/// A coordinate token as `f64`: [`num`], with plain decimals (`-1.25`, `0.07`, `3`)
/// taken on a fast path that gives the same value.
pub(crate) fn coord(
    p: &Parser<'_>,
    at: u64,
    tok: Option<&str>,
    what: &str,
) -> std::result::Result<f64, PError> {
    match tok.and_then(plain_decimal) {
        Some(v) => Ok(v),
        None => num(p, at, tok, what),
    }
}

/// Exact powers of ten as `f64` (10^22 is the largest).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `[+-]digits[.digits]` with at most 15 significant digits and 22 decimals: the
/// digits as an integer (below 2^53, exact) divided by an exact power of ten, one
/// correctly rounded operation, so the value `str::parse` gives. `None` for anything
/// else (exponents, longer mantissas, `inf`, empty).
pub(crate) fn plain_decimal(t: &str) -> Option<f64> {
    let b = t.as_bytes();
    let (negative, digits) = match b.first()? {
        b'-' => (true, b.get(1..)?),
        b'+' => (false, b.get(1..)?),
        _ => (false, b),
    };
    let (mut mantissa, mut significant, mut decimals) = (0u64, 0u32, 0usize);
    let (mut dot, mut any) = (false, false);
    for &c in digits {
        match c {
            b'0'..=b'9' => {
                any = true;
                mantissa = mantissa * 10 + u64::from(c - b'0');
                significant += u32::from(mantissa != 0);
                decimals += usize::from(dot);
                if significant > 15 {
                    return None;
                }
            }
            b'.' if !dot => dot = true,
            _ => return None,
        }
    }
    let scale = POW10.get(decimals).filter(|_| any)?;
    let v = mantissa as f64 / scale;
    Some(if negative { -v } else { v })
}

/// A `#AABBGGRR` colour token.
pub(crate) fn color(p: &Parser<'_>, at: u64, tok: &str) -> std::result::Result<u32, PError> {
    // `#AABBGGRR`: the little-endian RGBA word printed with %08x. Eight digits, as
    // written, in one pass ([`hex8`]); anything else as from_str_radix takes it.
    let hex = tok.strip_prefix('#').unwrap_or(tok);
    if let Some(v) = hex8(hex) {
        return Ok(v);
    }
    u32::from_str_radix(hex, 16).map_err(|_| p.err(at, format!("{tok:?} is not a colour")))
}

/// Exactly eight hex digits as their value, checked and folded in one pass
/// (from_str_radix is several times slower on them).
pub(crate) fn hex8(hex: &str) -> Option<u32> {
    let digits: &[u8; 8] = hex.as_bytes().try_into().ok()?;
    let mut v = 0u32;
    for &b in digits {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return None,
        };
        v = v << 4 | u32::from(d);
    }
    Some(v)
}

/// A plain index token, as nearly every index is: `.` (-1), or 1 to 9 decimal digits
/// (below 10^9, so below the sentinels); `None` for anything else, empty included.
pub(crate) fn plain_idx(tok: &[u8]) -> Option<Idx> {
    match tok {
        b"." => Some(Idx::UNDEF),
        t if (1..=9).contains(&t.len()) && t.iter().all(u8::is_ascii_digit) => Some(Idx(t
            .iter()
            .fold(0u32, |v, b| v * 10 + u32::from(b - b'0')))),
        _ => None,
    }
}

/// An index token: `.` or empty is -1, `-` is -2.
pub(crate) fn idx(p: &Parser<'_>, at: u64, tok: &str) -> std::result::Result<Idx, PError> {
    if let Some(v) = plain_idx(tok.as_bytes()) {
        return Ok(v);
    }
    match tok {
        "" => Ok(Idx::UNDEF),
        "-" => Ok(Idx::MAX),
        t => {
            let v: i64 = num(p, at, Some(t), "index")?;
            match v {
                -1 => Ok(Idx::UNDEF),
                -2 => Ok(Idx::MAX),
                v => u32::try_from(v)
                    .ok()
                    .filter(|v| *v < Idx::MAX.0)
                    .map(Idx)
                    .ok_or_else(|| p.err(at, format!("index {v} out of range"))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{blank, hex8, plain_decimal};

    /// The word-at-a-time hex reader agrees with from_str_radix on every byte value at
    /// every position (among valid digits) and on strings of other lengths.
    #[test]
    fn hex8_agrees_with_from_str_radix() {
        let expect = |s: &[u8]| {
            let ok = s.len() == 8 && s.iter().all(|b| b.is_ascii_hexdigit());
            ok.then(|| u32::from_str_radix(std::str::from_utf8(s).ok()?, 16).ok())
                .flatten()
        };
        let bases: [&[u8; 8]; 3] = [b"ff743f3f", b"0A9bC8d7", b"FfFfFfFf"];
        for base in bases {
            assert_eq!(
                hex8(std::str::from_utf8(base).unwrap_or_default()),
                expect(base)
            );
            for at in 0..8 {
                for b in 0..=255u8 {
                    let mut s = *base;
                    s[at] = b;
                    // Only valid UTF-8 reaches it (a &str).
                    if let Ok(t) = std::str::from_utf8(&s) {
                        assert_eq!(hex8(t), expect(&s), "{s:02x?}");
                    }
                }
            }
        }
        for s in ["", "ff743f3", "ff743f3f0", "#ff743f3", "ff743f3é"] {
            assert_eq!(hex8(s), None, "{s}");
        }
    }

    #[test]
    fn blank_is_trim_is_empty() {
        for t in [
            "",
            " ",
            "\t\r",
            "\x0b\x0c",
            "\u{a0}",
            " \u{2003} ",
            "x",
            " x",
            "\u{a0}x",
            "é",
            "\u{85}",
            "\x1f",
            "\x7f",
        ] {
            assert_eq!(blank(t), t.trim().is_empty(), "{t:?}");
        }
    }

    /// The fast path gives what `str::parse::<f64>` gives, bit for bit, on every token
    /// it takes, and leaves the others (exponents, long mantissas) to it.
    #[test]
    fn plain_decimals_parse_as_str_parse_does() {
        let mut tokens: Vec<String> = [
            "0",
            "-0",
            "+0",
            "0.0",
            "-0.0",
            "5.",
            ".5",
            "-.5",
            "1.95",
            "-2.34",
            "0.07",
            "0.1",
            "0.2",
            "0.3",
            "123456789012345",
            "1234567890123456",
            "0.000000000000000000001",
            "0.0000000000000000000001",
            "9007199254740993",
            "3.4028235",
            "1e5",
            "inf",
            "",
            "-",
            ".",
            "1..2",
            "1.2.3",
            "12a",
            "0x10",
            "00000000000000000000000000001.5",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Pseudo-random decimals of 1 to 17 digits with a dot anywhere.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = 1 + (x % 17) as usize;
            let mut s: String = (0..len)
                .map(|i| char::from(b'0' + ((x >> (3 * i + 5)) % 10) as u8))
                .collect();
            let dot = (x >> 60) as usize % (len + 1);
            s.insert(dot, '.');
            if x & 1 == 1 {
                s.insert(0, '-');
            }
            tokens.push(s);
        }
        let mut fast = 0;
        for t in &tokens {
            if let Some(v) = plain_decimal(t) {
                fast += 1;
                let want = t.parse::<f64>().map(f64::to_bits);
                assert_eq!(want, Ok(v.to_bits()), "{t}");
            }
        }
        assert!(fast > tokens.len() / 2, "{fast} of {}", tokens.len());
    }
}
