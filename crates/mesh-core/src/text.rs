//! Text that reaches a terminal, a log or a text file: names and messages made one
//! printable line. A name inside a model is untrusted: an escape sequence or a newline
//! in it must not move a user's cursor, forge a second message line or start a new
//! statement in an OBJ or A3D file.

use std::borrow::Cow;

/// Longest name [`quoted`] prints, in characters.
pub const MAX_NAME_CHARS: usize = 120;

/// Longest message line [`one_line`] is asked to keep by the tools, in characters.
pub const MAX_LINE_CHARS: usize = 1000;

/// True for a character that must not reach a terminal or a text file as it is:
/// control characters (C0, DEL, C1), the Unicode line and paragraph separators, and the
/// bidirectional overrides and isolates (which can make text read other than it is).
///
/// ```
/// use meshfmt_core::text::is_unprintable;
/// assert!(is_unprintable('\x1b') && is_unprintable('\n') && is_unprintable('\u{202e}'));
/// assert!(!is_unprintable('é') && !is_unprintable(' '));
/// ```
pub fn is_unprintable(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{061c}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// Appends `c` escaped: `\n`, `\r`, `\t`, `\xHH` below 0x80, `\u{HHHH}` above.
fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
        c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
    }
}

/// `s` as one printable line of at most about `max_chars` characters: every
/// [unprintable](is_unprintable) character escaped (`\n`, `\x1b`, `\u{202e}`), and a
/// longer text cut, ending `... (N more characters)`. Borrows `s` when it is fine as it
/// is.
///
/// ```
/// use meshfmt_core::text::one_line;
/// assert_eq!(one_line("bad\x1b[2Jname\nnext", 100), "bad\\x1b[2Jname\\nnext");
/// assert_eq!(one_line("abcdef", 3), "abc... (3 more characters)");
/// assert!(matches!(one_line("fine", 10), std::borrow::Cow::Borrowed(_)));
/// ```
pub fn one_line(s: &str, max_chars: usize) -> Cow<'_, str> {
    let clean = !s.chars().any(is_unprintable);
    // Byte length bounds the characters: no count needed for short clean text.
    if clean && s.len() <= max_chars {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len().min(max_chars.saturating_mul(4)) + 32);
    let mut chars = s.chars();
    for (kept, c) in chars.by_ref().enumerate() {
        if kept == max_chars {
            let rest = 1 + chars.count();
            out.push_str(&format!("... ({rest} more characters)"));
            return Cow::Owned(out);
        }
        if is_unprintable(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A name from a file as a message shows it: in single quotes, [`one_line`] at
/// [`MAX_NAME_CHARS`].
///
/// ```
/// use meshfmt_core::text::quoted;
/// assert_eq!(quoted("../x\x07"), "'../x\\x07'");
/// ```
pub fn quoted(name: &str) -> String {
    format!("'{}'", one_line(name, MAX_NAME_CHARS))
}

/// `name` as a text format (OBJ, MTL, A3D) can hold it in a name field: unprintable
/// characters removed. Borrows `name` when it has none.
///
/// ```
/// use meshfmt_core::text::without_unprintable;
/// assert_eq!(without_unprintable("wall\x1b[31m\nrock"), "wall[31mrock");
/// ```
pub fn without_unprintable(name: &str) -> Cow<'_, str> {
    if name.chars().any(is_unprintable) {
        Cow::Owned(name.chars().filter(|&c| !is_unprintable(c)).collect())
    } else {
        Cow::Borrowed(name)
    }
}
