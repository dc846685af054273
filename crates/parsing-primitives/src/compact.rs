//! UNIGINE's variable-length "compact int" (`Stream::readInt2`/`writeInt2`).
//!
//! Layout (notes/unigine.md §1.3): the first byte holds 6 magnitude bits (bits 0-5),
//! the sign (bit 6) and a "more" flag (bit 7); each following byte holds 7 magnitude
//! bits (bits 0-6, at shifts 6, 13, 20, 27) and a "more" flag (bit 7). At most 5 bytes,
//! so magnitudes up to 2^34 - 1. Writers in the wild use the shortest form, except that
//! 63 takes two bytes (`bf 00`).
//!
//! ```
//! use parsing_primitives::compact::{compact_int, encode_compact};
//! assert_eq!(compact_int(&[0x80, 0x87, 0x01]), Ok((&[][..], 8640)));
//! let mut out = Vec::new();
//! encode_compact(8640, &mut out);
//! assert_eq!(out, [0x80, 0x87, 0x01]);
//! ```

use nom::IResult;
use nom::error::{Error as NomError, ErrorKind as NomErrorKind};

/// Largest magnitude a 5-byte compact int can hold.
pub const COMPACT_MAX: i64 = (1 << 34) - 1;

/// Longest encoding in bytes.
pub const COMPACT_MAX_LEN: usize = 5;

/// nom parser for one compact int. Fails with `Eof` when the input ends before the last
/// byte and with `TooLarge` when a fifth byte still has the "more" flag set.
pub fn compact_int(input: &[u8]) -> IResult<&[u8], i64> {
    let mut magnitude: i64 = 0;
    let mut negative = false;
    for (i, &byte) in input.iter().enumerate().take(COMPACT_MAX_LEN) {
        if i == 0 {
            magnitude = i64::from(byte & 0x3f);
            negative = byte & 0x40 != 0;
        } else {
            magnitude |= i64::from(byte & 0x7f) << (6 + 7 * (i - 1));
        }
        if byte & 0x80 == 0 {
            let value = if negative { -magnitude } else { magnitude };
            return Ok((&input[i + 1..], value));
        }
    }
    let kind = if input.len() < COMPACT_MAX_LEN {
        NomErrorKind::Eof
    } else {
        NomErrorKind::TooLarge
    };
    Err(nom::Err::Error(NomError::new(input, kind)))
}

/// The compact int held in the low `used` bytes of `w` (little-endian), for decoders
/// that find where values end themselves, several from one load. `used` must be 1 to
/// [`COMPACT_MAX_LEN`] (others are clamped); the "more" flags are not checked.
///
/// ```
/// use parsing_primitives::compact::compact_from_word;
/// assert_eq!(compact_from_word(u64::from_le_bytes([0x80, 0x87, 0x01, 0xff, 0, 0, 0, 0]), 3), 8640);
/// assert_eq!(compact_from_word(0x45, 1), -5);
/// // Clamped: 0 reads as 1 byte, 6 as 5.
/// assert_eq!(compact_from_word(0x8045, 0), -5);
/// assert_eq!(compact_from_word(0x01ff_ffff_ff3f, 6), (1 << 34) - 1);
/// ```
#[inline]
pub fn compact_from_word(w: u64, used: usize) -> i64 {
    let used = used.clamp(1, COMPACT_MAX_LEN);
    let v = w & (u64::MAX >> (64 - 8 * used));
    let magnitude = (v & 0x3f)
        | (v >> 8 & 0x7f) << 6
        | (v >> 16 & 0x7f) << 13
        | (v >> 24 & 0x7f) << 20
        | (v >> 32 & 0x7f) << 27;
    // At most 34 bits, so the cast is exact.
    let magnitude = magnitude as i64;
    if w & 0x40 != 0 { -magnitude } else { magnitude }
}

/// One compact int from the start of `input` and the bytes it used; `None` when the
/// input ends before its last byte or it runs past five bytes ([`compact_int`] without
/// nom's error, for bulk decoding).
///
/// ```
/// use parsing_primitives::compact::compact_prefix;
/// assert_eq!(compact_prefix(&[0x45, 0xff]), Some((-5, 1)));
/// assert_eq!(compact_prefix(&[0x80, 0x87, 0x01]), Some((8640, 3)));
/// assert_eq!(compact_prefix(&[0x80]), None);
/// ```
#[inline]
pub fn compact_prefix(input: &[u8]) -> Option<(i64, usize)> {
    // With eight bytes at hand (all but the last few values of an array), one load and
    // no branch on the length: where lengths vary from value to value, a byte loop
    // mispredicts.
    if let Some(word) = input.first_chunk::<8>() {
        return compact_word(u64::from_le_bytes(*word));
    }
    let first = *input.first()?;
    let sign = |m: i64| if first & 0x40 != 0 { -m } else { m };
    let mut magnitude = i64::from(first & 0x3f);
    let (mut used, mut last) = (1, first);
    while last & 0x80 != 0 {
        if used == COMPACT_MAX_LEN {
            return None;
        }
        last = *input.get(used)?;
        magnitude |= i64::from(last & 0x7f) << (6 + 7 * (used - 1));
        used += 1;
    }
    Some((sign(magnitude), used))
}

/// The compact int at the start of `w` (8 input bytes, little-endian) and the bytes it
/// takes, or `None` when none of its first five bytes ends it (too long): the one-load
/// step of [`compact_prefix`], for a decoder that already holds the word.
///
/// ```
/// use parsing_primitives::compact::compact_word;
/// assert_eq!(compact_word(u64::from_le_bytes([0x80, 0x87, 0x01, 0, 0, 0, 0, 0])), Some((8640, 3)));
/// assert_eq!(compact_word(u64::from_le_bytes([0x80; 8])), None);
/// ```
#[inline]
pub fn compact_word(w: u64) -> Option<(i64, usize)> {
    // The first byte without the "more" flag ends the value; none in five: too long.
    let ends = !w & 0x80_8080_8080;
    if ends == 0 {
        return None;
    }
    let used = ends.trailing_zeros() as usize / 8 + 1;
    Some((compact_from_word(w, used), used))
}

/// Appends the encoding UNIGINE writes for `value`: one byte for magnitudes 0..=62,
/// otherwise the shortest multi-byte form, so 63 is `bf 00` (never `3f`; seen 36 times in
/// ms13 files, notes/unigine-current.md 0.6). Returns `false` (and writes nothing) when
/// `|value| > COMPACT_MAX`.
pub fn encode_compact(value: i64, out: &mut Vec<u8>) -> bool {
    if !(-COMPACT_MAX..=COMPACT_MAX).contains(&value) {
        return false;
    }
    let magnitude = value.unsigned_abs();
    let sign = if value < 0 { 0x40 } else { 0 };
    if magnitude <= 62 {
        out.push(magnitude as u8 | sign);
        return true;
    }
    out.push((magnitude & 0x3f) as u8 | sign | 0x80);
    let mut rest = magnitude >> 6;
    loop {
        let byte = (rest & 0x7f) as u8;
        rest >>= 7;
        if rest == 0 {
            out.push(byte);
            return true;
        }
        out.push(byte | 0x80);
    }
}

/// Length in bytes of [`encode_compact`]'s output (for `|value| <= COMPACT_MAX`).
pub fn compact_len(value: i64) -> usize {
    let m = value.unsigned_abs();
    match m {
        0..=62 => 1,
        63..=0x1fff => 2,
        0x2000..=0xf_ffff => 3,
        0x10_0000..=0x7ff_ffff => 4,
        _ => 5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `compact_prefix` gives what the nom parser gives on `input` (value and bytes
    /// used, or failure).
    fn same(input: &[u8]) {
        let nom = compact_int(input)
            .ok()
            .map(|(rest, v)| (v, input.len() - rest.len()));
        assert_eq!(compact_prefix(input), nom, "{input:02x?}");
    }

    /// The bulk decoder agrees with the nom parser on every input of up to three bytes
    /// and on five- and six-byte runs of "more" bytes (value, bytes used, or failure).
    #[test]
    fn prefix_matches_the_parser() {
        same(&[]);
        for a in 0..=255u8 {
            same(&[a]);
            for b in 0..=255u8 {
                same(&[a, b]);
                same(&[a, b, 0x01]);
                same(&[a, 0x80, b]);
            }
        }
        same(&[0xff, 0xff, 0xff, 0xff, 0x7f]);
        same(&[0xff, 0xff, 0xff, 0xff, 0xff]);
        same(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x00]);
    }

    /// The same with at least eight bytes at hand (the one-load path): every pair of
    /// leading bytes, then every length and flag pattern over five bytes, followed by
    /// bytes that must not be read into the value.
    #[test]
    fn prefix_matches_the_parser_with_bytes_to_spare() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                same(&[a, b, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff]);
                same(&[a, 0x80, b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff]);
            }
        }
        for flags in 0..32u32 {
            for payload in [0x00u8, 0x2a, 0x55, 0x7f] {
                let mut input = [0xffu8; 9];
                for (i, byte) in input.iter_mut().take(5).enumerate() {
                    let more = if flags >> i & 1 != 0 { 0x80 } else { 0 };
                    *byte = more | payload | if i == 0 { 0x40 } else { 0 };
                }
                same(&input);
                same(&input[..8]);
            }
        }
    }

    fn enc(v: i64) -> Vec<u8> {
        let mut out = Vec::new();
        assert!(encode_compact(v, &mut out));
        out
    }

    /// Test vectors taken from real files (notes/unigine.md §1.3).
    #[test]
    fn vectors_from_real_files() {
        let cases: &[(&[u8], i64)] = &[
            (&[0x35], 53),
            (&[0x06], 6),
            (&[0x9a, 0x01], 90),
            (&[0xa0, 0x04], 288),
            (&[0xa4, 0x20], 2084),
            (&[0x80, 0x87, 0x01], 8640),
            (&[0xbc, 0xc0, 0x01], 12348),
            (&[0x98, 0xea, 0x01], 15000),
        ];
        for &(bytes, value) in cases {
            assert_eq!(compact_int(bytes), Ok((&[][..], value)), "{bytes:02x?}");
            assert_eq!(enc(value), bytes, "{value}");
            assert_eq!(compact_len(value), bytes.len());
        }
    }

    #[test]
    fn length_boundaries_are_minimal() {
        // 63 fits in one byte; 64..127 always take two (first byte has 6 payload bits).
        for (v, len) in [
            (0, 1),
            (62, 1),
            (63, 2),
            (64, 2),
            (127, 2),
            (8191, 2),
            (8192, 3),
            ((1 << 20) - 1, 3),
            (1 << 20, 4),
            ((1 << 27) - 1, 4),
            (1 << 27, 5),
            (COMPACT_MAX, 5),
        ] {
            let bytes = enc(v);
            assert_eq!(bytes.len(), len, "{v}");
            assert_eq!(compact_len(v), len, "{v}");
            assert_eq!(compact_int(&bytes), Ok((&[][..], v)));
            let neg = enc(-v);
            assert_eq!(compact_int(&neg), Ok((&[][..], -v)));
        }
    }

    /// Vectors from ms13/ms14 files (notes/unigine-current.md section 2).
    #[test]
    fn current_engine_vectors() {
        for (v, bytes) in [
            (63i64, &[0xbf, 0x00][..]),
            (64, &[0x80, 0x01]),
            (8190, &[0xbe, 0x7f]),
            (8193, &[0x81, 0x80, 0x01]),
            (-1, &[0x41]),
            (62, &[0x3e]),
        ] {
            assert_eq!(enc(v), bytes, "{v}");
            assert_eq!(compact_int(bytes), Ok((&[][..], v)));
        }
        // Readers still accept the one-byte 63 another writer might produce.
        assert_eq!(compact_int(&[0x3f]), Ok((&[][..], 63)));
    }

    #[test]
    fn sign_bit_is_bit_six() {
        assert_eq!(enc(-1), [0x41]);
        assert_eq!(compact_int(&[0x41]), Ok((&[][..], -1)));
    }

    #[test]
    fn out_of_range_is_refused() {
        let mut out = Vec::new();
        assert!(!encode_compact(COMPACT_MAX + 1, &mut out));
        assert!(!encode_compact(i64::MIN, &mut out));
        assert!(out.is_empty());
    }

    #[test]
    fn truncated_and_overlong_fail() {
        assert!(compact_int(&[]).is_err());
        assert!(compact_int(&[0x80]).is_err());
        assert!(compact_int(&[0x80, 0x80, 0x80]).is_err());
        assert!(matches!(
            compact_int(&[0xff; 8]),
            Err(nom::Err::Error(e)) if e.code == NomErrorKind::TooLarge
        ));
        assert!(matches!(
            compact_int(&[0xff; 4]),
            Err(nom::Err::Error(e)) if e.code == NomErrorKind::Eof
        ));
    }

    #[test]
    fn leaves_the_rest() {
        assert_eq!(compact_int(&[0x9a, 0x01, 0xaa]), Ok((&[0xaa][..], 90)));
    }

    #[test]
    fn exhaustive_round_trip_first_million() {
        let mut out = Vec::with_capacity(8);
        for v in -70_000i64..1_000_000 {
            out.clear();
            assert!(encode_compact(v, &mut out));
            assert_eq!(compact_int(&out), Ok((&[][..], v)));
        }
    }
}
