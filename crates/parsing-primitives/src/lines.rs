//! Text split into lines by a word-at-a-time scan, and lines into tokens on bytes, for
//! the text formats (M3D's ASCII variant, OBJ), whose lines are short.

use crate::budget::{BudgetExceeded, Credit};

/// The position of the first `b'\n'` in `bytes`, looking at eight bytes at a time.
///
/// ```
/// use parsing_primitives::lines::find_newline;
/// assert_eq!(find_newline(b"0 1 2\n3 4 5\n"), Some(5));
/// assert_eq!(find_newline(b"no newline here"), None);
/// ```
pub fn find_newline(bytes: &[u8]) -> Option<usize> {
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for w in words.by_ref() {
        let flags = newline_flags(padded(w));
        if flags != 0 {
            return Some(at + (flags.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|k| at + k)
}

/// The first eight of `bytes` as a word, zero past their end when there are fewer (zero
/// is never a newline).
#[inline]
fn padded(bytes: &[u8]) -> [u8; 8] {
    match bytes.first_chunk::<8>() {
        Some(word) => *word,
        None => {
            let mut word = [0u8; 8];
            word.iter_mut().zip(bytes).for_each(|(w, b)| *w = *b);
            word
        }
    }
}

/// The bytes of `word` equal to `\n`, as the high bit of each (exactly: no false
/// flags, so every newline of a word can be taken from them).
#[inline]
fn newline_flags(word: [u8; 8]) -> u64 {
    const LOWS: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const NEWLINES: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    // Bytes equal to '\n' become zero; the high bit is then set exactly for the other
    // bytes (no carry crosses a byte: each lane adds at most 0x7f + 0x7f).
    let x = u64::from_le_bytes(word) ^ NEWLINES;
    !((((x & LOWS) + LOWS) | x) | LOWS)
}

/// How many `\n` bytes `bytes` holds: eight bytes a step (a byte-by-byte count is
/// several times slower on a text's worth of lines).
///
/// ```
/// assert_eq!(parsing_primitives::lines::count_newlines(b"a\nbb\n\nccc"), 3);
/// ```
pub fn count_newlines(bytes: &[u8]) -> usize {
    let mut words = bytes.chunks_exact(8);
    let mut n = 0;
    for w in words.by_ref() {
        n += newline_flags(padded(w)).count_ones() as usize;
    }
    n + words.remainder().iter().filter(|&&b| b == b'\n').count()
}

/// The lines of `text` and the byte offset each starts at, as `text.split('\n')` gives
/// them (an empty last line after a final newline included; `\r` kept).
///
/// ```
/// use parsing_primitives::lines::split_lines;
/// let lines: Vec<_> = split_lines("a\r\nbc\n").collect();
/// assert_eq!(lines, [(0, "a\r"), (3, "bc"), (6, "")]);
/// ```
pub fn split_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    // The next line's start; the next byte not yet scanned; the newlines found in the
    // last word scanned (which starts at `word`) and not yet used.
    let (mut start, mut scan, mut word, mut flags) = (0, 0, 0, 0u64);
    let mut done = false;
    // One scan over the text, eight bytes a step, every newline of a word taken from
    // its flags (lines are short: a search per line costs more than the line).
    std::iter::from_fn(move || {
        loop {
            if flags != 0 {
                let nl = word + (flags.trailing_zeros() / 8) as usize;
                flags &= flags - 1;
                let from = start;
                start = nl + 1;
                // '\n' is ASCII: both ends are character boundaries.
                return Some((from, text.get(from..nl)?));
            }
            if scan >= bytes.len() {
                if done {
                    return None;
                }
                done = true;
                return Some((start, text.get(start..)?));
            }
            word = scan;
            let rest = bytes.get(scan..).unwrap_or_default();
            match rest.first_chunk::<8>() {
                Some(w) => {
                    flags = newline_flags(*w);
                    scan += 8;
                }
                None => {
                    flags = newline_flags(padded(rest));
                    scan = bytes.len();
                }
            }
        }
    })
}

/// `text.split(sep)` for an ASCII `sep` (`/` between a face corner's indices, `#`
/// before a comment), found by a byte scan rather than a searcher set up per call.
///
/// ```
/// use parsing_primitives::lines::split_ascii;
/// assert_eq!(split_ascii("1//3", b'/').collect::<Vec<_>>(), ["1", "", "3"]);
/// assert_eq!(split_ascii("v 1 # note", b'#').next(), Some("v 1 "));
/// ```
pub fn split_ascii(text: &str, sep: u8) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.bytes().position(|b| b == sep) {
            // An ASCII byte: both sides of it are character boundaries.
            Some(k) => {
                rest = r.get(k + 1..);
                r.get(..k)
            }
            None => rest.take(),
        }
    })
}

/// The whitespace-separated tokens of `line` into `out` (cleared first), as
/// `split_whitespace` gives them: ASCII lines (nearly all) are split on bytes (tab to
/// carriage return and space, the ASCII characters Unicode calls white space), others by
/// `split_whitespace` itself.
///
/// ```
/// let mut out = Vec::new();
/// parsing_primitives::lines::tokens(" f 1/2/3\t4/5/6 ", &mut out);
/// assert_eq!(out, ["f", "1/2/3", "4/5/6"]);
/// ```
pub fn tokens<'a>(line: &'a str, out: &mut Vec<&'a str>) {
    out.clear();
    if !line.is_ascii() {
        out.extend(line.split_whitespace());
        return;
    }
    let b = line.as_bytes();
    let space = |c: u8| is_space(&c);
    // Two tight scans a token (past the white space, then to its end) rather than one
    // loop carrying a state: about 10% faster on OBJ lines.
    let mut i = 0;
    while i < b.len() {
        while b.get(i).is_some_and(|&c| space(c)) {
            i += 1;
        }
        let start = i;
        while b.get(i).is_some_and(|&c| !space(c)) {
            i += 1;
        }
        // ASCII: every position is a character boundary.
        if let Some(t) = line.get(start..i).filter(|t| !t.is_empty()) {
            out.push(t);
        }
    }
}

/// Whether `c` separates tokens in an ASCII line: tab to carriage return and space, the
/// ASCII characters Unicode calls white space (as [`tokens`] splits).
///
/// ```
/// use parsing_primitives::lines::is_space;
/// assert!(is_space(&b'\x0b') && is_space(&b' ') && !is_space(&b'\x1f'));
/// ```
#[inline]
pub fn is_space(c: &u8) -> bool {
    matches!(c, b'\t'..=b'\r' | b' ')
}

/// [`tokens`] into a list reused line after line, its growth charged to `credit` (as
/// `what`) before it grows: a line of `n` bytes has at most `n / 2 + 1` tokens, so the
/// list is sized for that first, and only what it grows by is charged. A long line of
/// hostile input is refused before its list is allocated.
///
/// ```
/// use parsing_primitives::{Budget, Credit, Limits, lines::tokens_charged};
/// let budget = Budget::new(Limits { max_alloc_bytes: 1000, ..Limits::DEFAULT });
/// let mut credit = Credit::new(&budget, "text");
/// let mut out = Vec::new();
/// tokens_charged("v 1 2 3", &mut out, &mut credit, "tokens")?;
/// assert_eq!(out, ["v", "1", "2", "3"]);
/// // 500 tokens (at most 501 for its length) of 16 bytes would exceed the budget:
/// // refused, the list not grown.
/// let long = "1 ".repeat(500);
/// assert!(tokens_charged(&long, &mut out, &mut credit, "tokens").is_err());
/// assert!(out.capacity() < 100);
/// # Ok::<(), parsing_primitives::BudgetExceeded>(())
/// ```
pub fn tokens_charged<'a>(
    line: &'a str,
    out: &mut Vec<&'a str>,
    credit: &mut Credit<'_>,
    what: &'static str,
) -> Result<(), BudgetExceeded> {
    out.clear();
    let most = line.len() / 2 + 1;
    if most > out.capacity() {
        let more =
            ((most - out.capacity()) as u64).saturating_mul(std::mem::size_of::<&str>() as u64);
        credit.charge_for(what, more)?;
        out.reserve_exact(most);
    }
    tokens(line, out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte splitter agrees with `split_whitespace` on ASCII white space (vertical tab
    /// and form feed included), on control characters that are not white space, and on
    /// lines with Unicode white space (which take `split_whitespace` itself).
    #[test]
    fn tokens_split_as_split_whitespace_does() {
        let lines = [
            "",
            "   ",
            "v 1 2 3",
            "  f 1/2/3\t4/5/6  7/8/9 ",
            "v\x0b1\x0c2\r3",
            "g a\x1fb c",
            "o name\u{a0}with\u{2003}spaces",
            "usemtl é ü",
        ];
        let mut out = Vec::new();
        for l in lines {
            tokens(l, &mut out);
            assert_eq!(out, l.split_whitespace().collect::<Vec<_>>(), "{l:?}");
        }
    }

    #[test]
    fn count_newlines_agrees_with_a_byte_count() {
        // Every length up to 40, bytes drawn among '\n' and bytes next to it in value
        // (0x0b, 0x8a, 0x09, 0xff, 0x00).
        let fill = [b'a', 0x0b, 0x8a, 0x09, 0xff, 0x00, 0x0a ^ 0x80, b'\n'];
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for len in 0..40 {
            for _ in 0..50 {
                let bytes: Vec<u8> = (0..len).map(|_| fill[(next() % 8) as usize]).collect();
                let naive = bytes.iter().filter(|&&b| b == b'\n').count();
                assert_eq!(count_newlines(&bytes), naive, "{bytes:02x?}");
            }
        }
        assert_eq!(count_newlines(&[b'\n'; 64]), 64);
    }

    /// A seeded xorshift64: the same cases every run.
    fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// What `text.split('\n')` gives, with each line's offset.
    fn split_by_str(text: &str) -> Vec<(usize, &str)> {
        let mut offset = 0;
        text.split('\n')
            .map(|l| {
                let at = offset;
                offset += l.len() + 1;
                (at, l)
            })
            .collect()
    }

    #[test]
    fn find_newline_agrees_with_a_byte_search() {
        // Every length up to 40 and every newline position, with bytes that trip the
        // word trick's false flags (0x0b, 0x8a, 0x0a + 0x80...) around them.
        let fill = [b'a', 0x0b, 0x8a, 0x09, 0xff, 0x00, 0x0a ^ 0x80];
        for len in 0..40 {
            for nl in 0..=len {
                for f in fill {
                    let mut v = vec![f; len];
                    if let Some(b) = v.get_mut(nl) {
                        *b = b'\n';
                    }
                    // A second newline later, which must not win.
                    if nl + 3 < len {
                        v[nl + 3] = b'\n';
                    }
                    let want = v.iter().position(|&b| b == b'\n');
                    assert_eq!(find_newline(&v), want, "{v:?}");
                }
            }
        }
    }

    #[test]
    fn split_ascii_is_what_split_gives() {
        for text in ["", "/", "1", "1/2/3", "1//3", "/2/", "é/ü//", "a#b#", "#"] {
            for sep in [b'/', b'#'] {
                let want: Vec<&str> = text.split(char::from(sep)).collect();
                assert_eq!(split_ascii(text, sep).collect::<Vec<_>>(), want, "{text:?}");
            }
        }
    }

    #[test]
    fn lines_are_what_split_gives() {
        for text in [
            "",
            "\n",
            "one",
            "one\n",
            "one\ntwo",
            "3dmodel 1\r\nname\r\n\r\nVertex\n0 0 0 1\n\nEnd\n",
            "é\nüñ\n\n\u{2028}x",
            "a long line of more than eight bytes\nand another one, longer still\n",
        ] {
            assert_eq!(
                split_lines(text).collect::<Vec<_>>(),
                split_by_str(text),
                "{text:?}"
            );
        }
        // Every length up to 40 with newlines drawn by a seeded generator among bytes
        // that trip word tricks (0x0b, 0x8a, 0x8a ^ 0x80...), and multi-byte characters.
        let fill = ["a", "\x0b", "\u{8a}", "\x09", "\x00", "\n", "\n", "é"];
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for len in 0..40 {
            for _ in 0..40 {
                let text: String = (0..len).map(|_| fill[(next() % 8) as usize]).collect();
                let want = split_by_str(&text);
                assert_eq!(split_lines(&text).collect::<Vec<_>>(), want, "{text:?}");
                assert_eq!(count_newlines(text.as_bytes()), want.len() - 1, "{text:?}");
            }
        }
    }
}
