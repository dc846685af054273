//! Names by content: keys that match equal strings of a string table with a hash
//! lookup, and the string at an offset.

use super::Str;

/// What a string says, as a key: equal strings (of one table or of two) get equal keys,
/// so names are matched with a hash lookup instead of a comparison or scan per use. The
/// key is the length and two polynomial hashes modulo 2^61 - 1 with bases drawn once per
/// process, so a crafted file cannot aim two names at one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct NameKey {
    len: usize,
    h: [u64; 2],
}

impl NameKey {
    /// The empty string's key (what a name at offset 0 or past the table matches as).
    pub const EMPTY: NameKey = NameKey { len: 0, h: [0; 2] };

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The key of `bytes` (a string without NULs), for names not in a table (a lossy
    /// text, say). Takes the string's length in time.
    pub fn of(bytes: &[u8]) -> NameKey {
        let [b0, b1] = bases();
        bytes.iter().rev().fold(NameKey::EMPTY, |k, &c| NameKey {
            len: k.len.saturating_add(1),
            h: [mul_add(k.h[0], b0, c), mul_add(k.h[1], b1, c)],
        })
    }
}

const P61: u64 = (1 << 61) - 1;

fn bases() -> [u64; 2] {
    use std::hash::BuildHasher;
    static BASES: std::sync::OnceLock<[u64; 2]> = std::sync::OnceLock::new();
    *BASES.get_or_init(|| {
        let s = std::collections::hash_map::RandomState::new();
        // Above 256 so one byte never carries into the next.
        [1u8, 2].map(|i| 257 + s.hash_one(i) % (P61 - 257))
    })
}

fn mul_add(h: u64, base: u64, c: u8) -> u64 {
    let v = (u128::from(h) * u128::from(base) + u128::from(c)) % u128::from(P61);
    v as u64
}

/// The [`NameKey`]s of the strings at some offsets of one string table, found in one
/// right-to-left pass over the table: O(table + offsets log offsets) however long the
/// strings are (a table without NULs makes every string run to its end).
#[derive(Debug, Default)]
pub(crate) struct Names {
    keys: Vec<(u32, NameKey)>,
}

impl Names {
    /// Keys for `offsets` into `table` (offset 0 and offsets past the table get none, as
    /// [`File::string`](crate::File::string) gives them no string). The offset list is
    /// charged to `budget` when there is one.
    pub fn new(
        table: &[u8],
        offsets: impl IntoIterator<Item = Str>,
        budget: Option<&parsing_primitives::Budget>,
    ) -> std::result::Result<Names, parsing_primitives::BudgetExceeded> {
        let mut wanted: Vec<u32> = Vec::new();
        for s in offsets {
            if s.0 != 0 && s.0 as usize <= table.len() {
                if let Some(b) = budget {
                    b.charge_items::<u32>("name index", 1)?;
                }
                wanted.push(s.0);
            }
        }
        wanted.sort_unstable();
        wanted.dedup();
        if let Some(b) = budget {
            b.charge_items::<(u32, NameKey)>("name index", wanted.len())?;
        }
        let mut keys = Vec::with_capacity(wanted.len());
        let [b0, b1] = bases();
        let mut key = NameKey::EMPTY;
        let mut pos = table.len();
        // Largest offset first: the hash of the string at `pos` extends the one at pos + 1.
        for &off in wanted.iter().rev() {
            while pos > off as usize {
                pos -= 1;
                let c = table.get(pos).copied().unwrap_or(0);
                key = if c == 0 {
                    NameKey::EMPTY
                } else {
                    NameKey {
                        len: key.len.saturating_add(1),
                        h: [mul_add(key.h[0], b0, c), mul_add(key.h[1], b1, c)],
                    }
                };
            }
            keys.push((off, key));
        }
        keys.reverse();
        Ok(Names { keys })
    }

    /// The key of the string at `s`, if `s` was asked for and names a string.
    pub fn key(&self, s: Str) -> Option<NameKey> {
        let i = self.keys.binary_search_by_key(&s.0, |k| k.0).ok()?;
        self.keys.get(i).map(|k| k.1)
    }
}
/// The string at offset `s` of a string table: bytes up to the NUL (or the table
/// end); `None` for offset 0 or past the table.
pub(crate) fn string_at(strings: &[u8], s: Str) -> Option<&[u8]> {
    if s.0 == 0 {
        return None;
    }
    let rest = strings.get(s.0 as usize..)?;
    Some(rest.split(|b| *b == 0).next().unwrap_or(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_strings_get_equal_keys_wherever_they_are() -> std::result::Result<(), String> {
        // 0: NUL, 1: "ab", 3: NUL, 4: "xab", 7: NUL, 8: "ab" running to the table's end.
        let table = b"\0ab\0xab\0ab";
        let asked = [1, 4, 5, 8, 0, 11, 10, 3].map(Str);
        let n = Names::new(table, asked, None).map_err(|e| e.to_string())?;
        let ab = Some(NameKey::of(b"ab"));
        assert_eq!(n.key(Str(1)), ab);
        assert_eq!(n.key(Str(5)), ab, "the tail of \"xab\"");
        assert_eq!(n.key(Str(8)), ab, "no NUL after it");
        assert_eq!(n.key(Str(4)), Some(NameKey::of(b"xab")));
        assert_ne!(n.key(Str(4)), ab);
        assert_eq!(
            n.key(Str(3)),
            Some(NameKey::EMPTY),
            "a NUL: the empty string"
        );
        assert_eq!(n.key(Str(10)), Some(NameKey::EMPTY), "the table's end");
        assert_eq!(n.key(Str(0)), None, "offset 0 is no string");
        assert_eq!(n.key(Str(11)), None, "past the table");
        assert_eq!(n.key(Str(2)), None, "not asked for");
        Ok(())
    }

    #[test]
    fn keys_tell_lengths_and_bytes_apart() {
        assert_ne!(NameKey::of(b"a"), NameKey::of(b"aa"));
        assert_ne!(NameKey::of(b"ab"), NameKey::of(b"ba"));
        assert_eq!(NameKey::of(b""), NameKey::EMPTY);
        assert!(NameKey::of(b"").is_empty() && !NameKey::of(b"x").is_empty());
    }
}
