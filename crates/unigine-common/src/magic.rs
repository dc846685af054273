//! Magic sniffing and version-family dispatch: every UNIGINE file starts with a
//! four-byte magic of a two-letter family and a two-digit version (`ms11`, `an10`).

use parsing_primitives::Reader;

/// True when `data` starts with one of `magics`. Never allocates.
pub fn sniff(data: &[u8], magics: &[&[u8; 4]]) -> bool {
    data.get(..4)
        .is_some_and(|head| magics.iter().any(|m| head == &m[..]))
}

/// True for a magic of one of `families` (`b"ms"`) followed by two digits: a file of
/// a known family whose version may be unknown (`ms16`), which readers reject as an
/// unsupported version rather than as another format.
pub fn looks_versioned(magic: &[u8; 4], families: &[&[u8; 2]]) -> bool {
    families.iter().any(|f| magic[..2] == f[..])
        && magic[2].is_ascii_digit()
        && magic[3].is_ascii_digit()
}

/// The first four bytes without consuming them (zeros when the reader holds four
/// bytes, which [`Reader::peek`] guarantees on success).
pub fn peek_magic(r: &Reader<'_>) -> parsing_primitives::Result<[u8; 4]> {
    Ok(r.peek(4)?.try_into().unwrap_or([0; 4]))
}

/// What a magic is to a reader of one family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dispatch<V> {
    /// A known version.
    Known(V),
    /// A known family with an unknown version number (the magic as text).
    UnsupportedVersion,
    /// Not this family at all.
    Foreign,
}

/// Looks `magic` up in `(magic, version)` pairs, telling unknown versions of the
/// `families` apart from other formats.
pub fn dispatch<'t, V>(
    magic: &[u8; 4],
    table: impl IntoIterator<Item = (&'t [u8; 4], V)>,
    families: &[&[u8; 2]],
) -> Dispatch<V> {
    match table.into_iter().find(|(m, _)| *m == magic) {
        Some((_, v)) => Dispatch::Known(v),
        None if looks_versioned(magic, families) => Dispatch::UnsupportedVersion,
        None => Dispatch::Foreign,
    }
}

/// The magic as text (every UNIGINE magic is ASCII; anything else gives "").
pub const fn magic_name(magic: &'static [u8; 4]) -> &'static str {
    match std::str::from_utf8(magic) {
        Ok(s) => s,
        Err(_) => "",
    }
}

/// The version names of `magics`, `default` first and the others in their order: the
/// list a format contract offers (the first is what it writes when not told).
pub const fn names_default_first<const N: usize>(
    magics: [&'static [u8; 4]; N],
    default: &[u8; 4],
) -> [&'static str; N] {
    let mut out = [""; N];
    let mut n = 1;
    let mut i = 0;
    while i < N {
        let m = magics[i];
        let is_default =
            m[0] == default[0] && m[1] == default[1] && m[2] == default[2] && m[3] == default[3];
        if is_default {
            out[0] = magic_name(m);
        } else if n < N {
            out[n] = magic_name(m);
            n += 1;
        }
        i += 1;
    }
    out
}

/// A format contract's description from its versions in order: `"{kind} (v1, v2 .ext,
/// ...)"`, each version followed by the extension that implies it, if any.
pub fn describe<'a>(
    kind: &str,
    versions: impl Iterator<Item = (&'a str, Option<&'a str>)>,
) -> String {
    let list: Vec<String> = versions
        .map(|(name, ext)| match ext {
            Some(ext) => format!("{name} .{ext}"),
            None => name.to_string(),
        })
        .collect();
    format!("{kind} ({})", list.join(", "))
}

/// A format contract's extensions: `base` (the versions without an extension of their
/// own), then each implied extension once, in order.
pub fn extensions<'a>(
    base: &'a str,
    implied: impl Iterator<Item = Option<&'a str>>,
) -> Vec<&'a str> {
    let mut out = vec![base];
    for ext in implied.flatten() {
        if !out.contains(&ext) {
            out.push(ext);
        }
    }
    out
}
