//! JSON text the tool writes by hand (`info --json`, `--report`): one escaping for both.

use std::fmt::Write as _;

/// `s` as a JSON string literal, escaped per RFC 8259 (quotes, backslashes and control
/// characters).
///
/// ```
/// assert_eq!(meshfmt::json::string("a\"b\n\x1b"), r#""a\"b\n\u001b""#);
/// ```
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
