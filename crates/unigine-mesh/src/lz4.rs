//! A plain LZ4 block decoded through a small window: the content comes out a piece at a
//! time, so a block of any size is read in a fixed amount of memory (the window, which
//! stays in cache) rather than decoded whole into a buffer of its own size first.
//!
//! The window keeps the last [`HISTORY`] bytes decoded (the farthest back an LZ4 match
//! can reach) and the bytes not yet consumed; when it is full, that tail slides to its
//! front. A sequence that does not fit is decoded in parts ([`Pending`]).
//!
//! The stream must decode to exactly its declared size, end with a run of literals
//! (as `lz4_decodes_to` in `block.rs` and the LZ4 block format require), and every
//! match must point inside what was decoded; anything else is [`Corrupt`].

/// The farthest back an LZ4 match reaches (a 16-bit offset).
const HISTORY: usize = 1 << 16;

/// The window: history plus room to decode ahead of the reader.
pub(crate) const WINDOW: usize = 1 << 19;

/// Fixed-size copies on the hot paths, where both sides have room for them.
const WILD: usize = 16;

/// The longest match a token holds without length bytes (15 + 4 would take one).
const SHORT_MATCH: usize = 18;

/// The stream does not decode to its declared size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Corrupt;

/// What the decoder was doing when the window filled.
#[derive(Debug, Clone, Copy)]
enum Pending {
    /// At a sequence's token.
    Token,
    /// `left` literals still to copy; `nibble` is the token's match-length nibble.
    Literals { left: usize, nibble: u8 },
    /// `left` bytes of a match `offset` back still to copy.
    Match { offset: usize, left: usize },
    /// The stream ended after a run of literals.
    Done,
    /// The stream was found corrupt: every later call fails too.
    Failed,
}

/// An LZ4 block being decoded (see the module docs).
pub(crate) struct Lz4Window<'s> {
    src: &'s [u8],
    at: usize,
    buf: Vec<u8>,
    /// First byte not yet consumed.
    start: usize,
    /// End of what is decoded.
    end: usize,
    /// Content offset of `buf[0]`.
    base: u64,
    /// The declared decoded size.
    size: u64,
    pending: Pending,
    /// The block is stored raw: `src` is the content, read in place.
    raw: bool,
}

impl<'s> Lz4Window<'s> {
    /// A decoder of `src`, an LZ4 block declared to decode to `size` bytes.
    pub(crate) fn new(src: &'s [u8], size: u64) -> Self {
        let window = usize::try_from(size).map_or(WINDOW, |s| s.min(WINDOW));
        Lz4Window {
            src,
            at: 0,
            buf: vec![0; window],
            start: 0,
            end: 0,
            base: 0,
            size,
            pending: Pending::Token,
            raw: false,
        }
    }

    /// A block stored raw: `content` read in place, through the same interface.
    pub(crate) fn raw(content: &'s [u8]) -> Self {
        Lz4Window {
            src: content,
            at: content.len(),
            buf: Vec::new(),
            start: 0,
            end: content.len(),
            base: 0,
            size: content.len() as u64,
            pending: Pending::Done,
            raw: true,
        }
    }

    /// Content offset of the next byte to consume.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.start as u64
    }

    /// Content bytes not yet consumed (decoded or not).
    pub(crate) fn remaining(&self) -> u64 {
        self.size - self.offset()
    }

    /// The decoded bytes not yet consumed: at least `want` of them unless the content
    /// ends first (`want` capped at the window less [`HISTORY`] when the content does
    /// not fit the window whole).
    pub(crate) fn fill(&mut self, want: usize) -> Result<&[u8], Corrupt> {
        if self.raw {
            return Ok(self.src.get(self.start..).unwrap_or_default());
        }
        let cap = match self.buf.len() as u64 >= self.size {
            true => self.buf.len(),
            false => self.buf.len() - HISTORY,
        };
        if matches!(self.pending, Pending::Failed) {
            return Err(Corrupt);
        }
        let want = want.min(cap).max(1);
        while self.end - self.start < want && !matches!(self.pending, Pending::Done) {
            if self.end == self.buf.len() {
                self.slide();
            }
            if let Err(e) = self.decode() {
                self.pending = Pending::Failed;
                return Err(e);
            }
        }
        Ok(&self.buf[self.start..self.end])
    }

    /// Marks `n` of the bytes [`fill`](Self::fill) gave as consumed.
    pub(crate) fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
    }

    /// Decodes the rest without keeping it: whether the whole stream is sound.
    pub(crate) fn check_rest(&mut self) -> Result<(), Corrupt> {
        loop {
            let n = self.fill(usize::MAX)?.len();
            if n == 0 {
                return Ok(());
            }
            self.consume(n);
        }
    }

    /// Moves the unconsumed bytes and the history before them to the window's front.
    fn slide(&mut self) {
        let from = self.start.min(self.end.saturating_sub(HISTORY));
        self.buf.copy_within(from..self.end, 0);
        self.base += from as u64;
        self.start -= from;
        self.end -= from;
    }

    /// Decodes until the window is full or the stream ends.
    fn decode(&mut self) -> Result<(), Corrupt> {
        // Never past the declared size: the window's end or the content's, whichever
        // comes first.
        let limit = usize::try_from(self.size - self.base)
            .map_or(self.buf.len(), |s| s.min(self.buf.len()));
        loop {
            if matches!(self.pending, Pending::Token) {
                self.sequences(limit)?;
            }
            match self.pending {
                Pending::Done => return Ok(()),
                Pending::Failed => return Err(Corrupt),
                Pending::Token => {
                    let token = *self.src.get(self.at).ok_or(Corrupt)?;
                    self.at += 1;
                    let left = length(self.src, &mut self.at, token >> 4)?;
                    self.pending = Pending::Literals {
                        left,
                        nibble: token & 15,
                    };
                }
                Pending::Literals { left, nibble } => {
                    let (src, at, end) = (self.src, self.at, self.end);
                    // Short runs: one fixed copy when both sides have room.
                    if left <= WILD && at + WILD <= src.len() && end + WILD <= limit {
                        self.buf[end..end + WILD].copy_from_slice(&src[at..at + WILD]);
                        self.at += left;
                        self.end += left;
                    } else {
                        let k = left.min(limit - end);
                        let lit = src.get(at..at + k).ok_or(Corrupt)?;
                        self.buf[end..end + k].copy_from_slice(lit);
                        self.at += k;
                        self.end += k;
                        if k < left {
                            self.pending = Pending::Literals {
                                left: left - k,
                                nibble,
                            };
                            return self.full();
                        }
                    }
                    if self.at == self.src.len() {
                        self.pending = Pending::Done;
                        return match self.base + self.end as u64 == self.size {
                            true => Ok(()),
                            false => Err(Corrupt),
                        };
                    }
                    let o = self.src.get(self.at..self.at + 2).ok_or(Corrupt)?;
                    let offset = usize::from(u16::from_le_bytes([o[0], o[1]]));
                    self.at += 2;
                    let left = length(self.src, &mut self.at, nibble)?
                        .checked_add(4)
                        .ok_or(Corrupt)?;
                    // Inside what was decoded (the window keeps the history).
                    if offset == 0 || offset as u64 > self.base + self.end as u64 {
                        return Err(Corrupt);
                    }
                    self.pending = Pending::Match { offset, left };
                }
                Pending::Match { offset, left } => {
                    let end = self.end;
                    if left <= WILD && offset >= WILD && end + WILD <= limit {
                        let (done, ahead) = self.buf.split_at_mut(end);
                        ahead[..WILD].copy_from_slice(&done[end - offset..end - offset + WILD]);
                        self.end += left;
                    } else {
                        let k = left.min(limit - end);
                        copy_match(&mut self.buf, end, offset, k);
                        self.end += k;
                        if k < left {
                            self.pending = Pending::Match {
                                offset,
                                left: left - k,
                            };
                            return self.full();
                        }
                    }
                    self.pending = Pending::Token;
                }
            }
            if self.end == limit {
                return Ok(());
            }
        }
    }

    /// The hot loop: whole sequences while both the input and the window have room
    /// for them and for the fixed-size copies; the first one that does not fit is left
    /// to [`decode`](Self::decode)'s step by step handling (`pending` stays `Token`).
    fn sequences(&mut self, limit: usize) -> Result<(), Corrupt> {
        let src = self.src;
        let buf = self.buf.get_mut(..limit).ok_or(Corrupt)?;
        let (mut at, mut end) = (self.at, self.end);
        // Bytes decoded before `buf[0]`: a match may reach back into them only
        // through the history the window keeps.
        let before = self.base;
        loop {
            // A token, up to two length bytes each side, the offset and a literal run of
            // up to WILD bytes all fit before the input's last WILD + 8 bytes.
            if at + 2 * WILD + 8 > src.len() || end + 2 * WILD > limit {
                break;
            }
            let token = src[at];
            if token & 0x0f != 0x0f && token < 0xf0 {
                // Up to 14 literals and a match of up to 18 (neither length goes on in
                // more bytes), as most sequences are: fixed-size copies, the room for
                // them checked above (input: 40 bytes, window: 32).
                let lit = usize::from(token >> 4);
                let a = at + 1;
                buf[end..end + WILD].copy_from_slice(&src[a..a + WILD]);
                let lit_end = a + lit;
                let offset = usize::from(u16::from_le_bytes([src[lit_end], src[lit_end + 1]]));
                let len = usize::from(token & 0x0f) + 4;
                let mend = end + lit;
                if offset == 0 || offset as u64 > before + mend as u64 {
                    return Err(Corrupt);
                }
                copy_match_with_room(buf, mend, offset, len);
                at = lit_end + 2;
                end = mend + len;
                continue;
            }
            let mut a = at + 1;
            let lit = length(src, &mut a, token >> 4)?;
            // The literals, the offset after them and room for wild copies.
            // Saturating: a hostile length must not wrap (32-bit targets).
            if a.saturating_add(lit).saturating_add(2 + WILD) > src.len()
                || end.saturating_add(lit).saturating_add(WILD) > limit
            {
                break;
            }
            if lit <= WILD {
                buf[end..end + WILD].copy_from_slice(&src[a..a + WILD]);
            } else {
                buf[end..end + lit].copy_from_slice(&src[a..a + lit]);
            }
            let lit_end = a + lit;
            let offset = usize::from(u16::from_le_bytes([src[lit_end], src[lit_end + 1]]));
            let mut m = lit_end + 2;
            let len = length(src, &mut m, token & 15)?
                .checked_add(4)
                .ok_or(Corrupt)?;
            let mend = end + lit;
            if offset == 0 || offset as u64 > before + mend as u64 {
                return Err(Corrupt);
            }
            if mend.saturating_add(len).saturating_add(WILD) > limit {
                break;
            }
            copy_match_with_room(buf, mend, offset, len);
            at = m;
            end = mend + len;
        }
        self.at = at;
        self.end = end;
        Ok(())
    }

    /// A sequence still has bytes to write but the window is full: the caller slides
    /// it, unless the declared content ends here (the stream decodes to more).
    fn full(&self) -> Result<(), Corrupt> {
        match self.base + self.end as u64 == self.size {
            true => Err(Corrupt),
            false => Ok(()),
        }
    }
}

/// A sequence length read at `src[*at..]`: the token's `nibble`, continued by bytes of
/// 255 until a smaller one when it is 15 (`at` moves past them).
pub(crate) fn length(src: &[u8], at: &mut usize, nibble: u8) -> Result<usize, Corrupt> {
    let mut n = usize::from(nibble);
    if nibble == 15 {
        loop {
            let b = *src.get(*at).ok_or(Corrupt)?;
            *at += 1;
            n = n.checked_add(usize::from(b)).ok_or(Corrupt)?;
            if b != 255 {
                return Ok(n);
            }
        }
    }
    Ok(n)
}

/// [`copy_match`] where `buf` has room for [`SHORT_MATCH`] bytes at `at` (the hot loop
/// checks it): a short match that does not overlap its own output is one fixed-size
/// copy, whatever its offset. The ranges may overlap past `len`: `copy_within` keeps
/// memmove's meaning, and what it writes past `len` is overwritten next. A short match
/// that does overlap (a repeat of its last few bytes, a fifth of the sequences in a
/// mesh's geometry block) takes two 8-byte copies rather than [`copy_match`]'s loop.
#[inline(always)]
fn copy_match_with_room(buf: &mut [u8], at: usize, offset: usize, len: usize) {
    if len <= SHORT_MATCH && offset >= len {
        buf.copy_within(at - offset..at - offset + SHORT_MATCH, at);
    } else if len <= 2 * CHUNK {
        short_overlapping_match(buf, at, offset, len);
    } else {
        copy_match(buf, at, offset, len);
    }
}

/// The copy unit of [`short_overlapping_match`].
const CHUNK: usize = 8;

/// How far back the second chunk of a short overlapping match is copied from: a
/// multiple of the offset (`d`, under 8) of at least a chunk, so that chunk copy does
/// not overlap what it writes.
const PATTERN_STEP: [usize; CHUNK] = [0, 8, 8, 9, 8, 10, 12, 14];

/// A match of up to two chunks that overlaps its output (`offset < len <= 16`, room for
/// 16 bytes at `at`): two fixed-size copies. Under 8 back, the first chunk is the
/// `offset` bytes before `at` repeated.
// Out of line: inlined into the hot loop it slowed the other sequences (a tree block
// with few such matches decoded 4% slower); called, both block kinds decode faster.
#[inline(never)]
fn short_overlapping_match(buf: &mut [u8], at: usize, offset: usize, len: usize) {
    let step = match PATTERN_STEP.get(offset) {
        Some(&step) => {
            let mut v = [0u8; CHUNK];
            v.copy_from_slice(&buf[at - offset..at - offset + CHUNK]);
            let pattern = repeat(u64::from_le_bytes(v), offset);
            buf[at..at + CHUNK].copy_from_slice(&pattern.to_le_bytes());
            step
        }
        None => {
            buf.copy_within(at - offset..at - offset + CHUNK, at);
            offset
        }
    };
    if len > CHUNK {
        buf.copy_within(at + CHUNK - step..at + 2 * CHUNK - step, at + CHUNK);
    }
}

/// The low `d` bytes of `v` (1 to 7) repeated through all eight.
#[inline(always)]
fn repeat(v: u64, d: usize) -> u64 {
    let mut p = v & (u64::MAX >> (64 - 8 * d));
    let mut w = d;
    while w < CHUNK {
        p |= p << (8 * w);
        w *= 2;
    }
    p
}

/// Copies `len` bytes from `offset` back to `buf[at..]`, as LZ4 does: where the ranges
/// overlap, the bytes just written are read again (a repeating pattern).
fn copy_match(buf: &mut [u8], at: usize, offset: usize, len: usize) {
    if offset >= len {
        buf.copy_within(at - offset..at - offset + len, at);
    } else if offset == 1 {
        let b = buf[at - 1];
        buf[at..at + len].fill(b);
    } else {
        // Each copy reads only bytes already written, and `done` stays a multiple of
        // `offset`, so the pattern carries on: copies of `offset`, 2, 4... times its
        // length.
        let mut done = 0;
        while done < len {
            let k = (done + offset).min(len - done);
            buf.copy_within(at - offset..at - offset + k, at + done);
            done += k;
        }
    }
}

#[cfg(all(test, feature = "lz4"))]
mod tests {
    use super::*;

    /// Decodes all of `src` through the window, consuming `step` bytes at a time.
    fn through_window(src: &[u8], size: u64, step: usize) -> Result<Vec<u8>, Corrupt> {
        let mut w = Lz4Window::new(src, size);
        let mut out = Vec::new();
        loop {
            let got = w.fill(step)?;
            if got.is_empty() {
                return Ok(out);
            }
            let n = got.len().min(step);
            out.extend_from_slice(&got[..n]);
            w.consume(n);
        }
    }

    /// Content with long runs, short repeats, overlapping matches and noise.
    fn content(len: usize, seed: u64) -> Vec<u8> {
        let mut next = crate::test_rng(seed);
        let mut v = Vec::with_capacity(len);
        while v.len() < len {
            match next() % 4 {
                0 => v.extend(std::iter::repeat_n(next() as u8, (next() % 3000) as usize)),
                1 => {
                    let back = (next() % 70_000) as usize;
                    let n = (next() % 40) as usize;
                    for _ in 0..n {
                        let b = v.len().checked_sub(back.max(1)).map_or(7, |k| v[k]);
                        v.push(b);
                    }
                }
                2 => v.extend((0..(next() % 20)).map(|_| next() as u8)),
                _ => v.extend_from_slice(b"vertex tangent uv0 uv1 "),
            }
        }
        v.truncate(len);
        v
    }

    #[test]
    fn decodes_what_lz4_flex_encodes_at_any_reading_pace() {
        for (len, seed) in [(0, 1), (1, 2), (17, 3), (70_000, 4), (1_500_000, 5)] {
            let c = content(len, seed);
            let z = lz4_flex::block::compress(&c);
            for step in [1, 7, 4096, WINDOW, usize::MAX] {
                assert_eq!(
                    through_window(&z, len as u64, step),
                    Ok(c.clone()),
                    "{len} {step}"
                );
            }
        }
    }

    /// Mesh-like content: short matches (4 to 18 bytes, the one-token case) at every
    /// offset from 1 to 40, overlapping their own output where the offset is below the
    /// length and reaching just past it where not, between short literal runs.
    #[test]
    fn short_matches_at_small_offsets_decode_exactly() {
        let mut next = crate::test_rng(0x2545_f491_4f6c_dd1d);
        let mut c: Vec<u8> = (0..64).map(|_| next() as u8).collect();
        while c.len() < 300_000 {
            let offset = 1 + (next() % 40) as usize;
            let len = 4 + (next() % 15) as usize;
            for _ in 0..len {
                c.push(c[c.len() - offset]);
            }
            c.extend((0..next() % 6).map(|_| next() as u8));
        }
        let z = lz4_flex::block::compress(&c);
        for step in [1, 4096, usize::MAX] {
            assert_eq!(
                through_window(&z, c.len() as u64, step),
                Ok(c.clone()),
                "{step}"
            );
        }
    }

    /// Every offset from 1 to 20 with every one-token match length (4 to 18), the
    /// match overlapping its output or not, each in a stream long enough for the hot
    /// loop to take it: decoded as a byte-by-byte copy would.
    #[test]
    fn one_token_matches_at_every_small_offset_decode_exactly() {
        for offset in 1..=20usize {
            for len in 4..=18usize {
                // `offset` literals, the match, then ten sequences of one literal and
                // a 4-byte match one back, then five closing literals.
                let lits: Vec<u8> = (0..offset as u8)
                    .map(|b| b.wrapping_mul(37) ^ 0x5a)
                    .collect();
                let lit_nibble = u8::try_from(offset.min(15)).unwrap_or(15);
                let mut src = vec![(lit_nibble << 4) | (len - 4) as u8];
                if offset >= 15 {
                    src.push((offset - 15) as u8);
                }
                src.extend(&lits);
                src.extend([offset as u8, 0]);
                let mut expected = lits.clone();
                for _ in 0..len {
                    expected.push(expected[expected.len() - offset]);
                }
                for k in 0..10u8 {
                    src.extend([0x10, k, 1, 0]);
                    expected.extend([k; 5]);
                }
                src.extend([0x50, 1, 2, 3, 4, 5]);
                expected.extend([1, 2, 3, 4, 5]);
                for step in [1, 4096] {
                    assert_eq!(
                        through_window(&src, expected.len() as u64, step),
                        Ok(expected.clone()),
                        "offset {offset} length {len} step {step}"
                    );
                }
            }
        }
    }

    /// A short sequence (both lengths in its token) whose match has offset 0, or
    /// reaches before the start, is corrupt: the one-token path checks it as the
    /// general one does (the stream is long enough for that path to take it).
    #[test]
    fn short_sequences_with_bad_offsets_are_corrupt() {
        for offset in [[0u8, 0], [2, 0], [0xff, 0xff]] {
            // One literal 'x', then a match of 8 at `offset`; padding after.
            let mut src = vec![0x14, b'x', offset[0], offset[1]];
            src.extend([0x10; 60]);
            assert_eq!(through_window(&src, 1000, 4096), Err(Corrupt), "{offset:?}");
        }
        // Offset 1 is sound there: nine 'x', fifteen times nine 'y', then 5 literals.
        let mut src = vec![0x14, b'x', 1, 0];
        for _ in 0..15 {
            src.extend([0x14, b'y', 1, 0]);
        }
        src.extend([0x50, b'a', b'b', b'c', b'd', b'e']);
        let mut expected = vec![b'x'; 9];
        expected.extend([b'y'; 9 * 15]);
        expected.extend(b"abcde");
        assert_eq!(through_window(&src, 149, 4096), Ok(expected));
    }

    #[test]
    fn a_stream_that_decodes_to_another_size_is_corrupt() {
        let c = content(200_000, 9);
        let z = lz4_flex::block::compress(&c);
        for size in [0, 1, 199_999, 200_001, 10_000_000] {
            assert_eq!(through_window(&z, size, 4096), Err(Corrupt), "{size}");
        }
        // Cut short, or a match reaching before the start.
        assert_eq!(
            through_window(&z[..z.len() - 1], 200_000, 4096),
            Err(Corrupt)
        );
        assert_eq!(through_window(&[0x10, b'a', 5, 0], 5, 1), Err(Corrupt));
        // Once corrupt, always corrupt: no later call hands out more bytes.
        let mut w = Lz4Window::new(&[0x10, b'a', 5, 0], 5);
        assert_eq!(w.fill(1).map(<[u8]>::to_vec), Err(Corrupt));
        assert_eq!(w.fill(1).map(<[u8]>::to_vec), Err(Corrupt));
        assert_eq!(w.check_rest(), Err(Corrupt));
        // Overlapping matches: 'a', then 7 copies from one back ("aaaaaaaa"); "ab",
        // then 6 from two back ("abababab").
        assert_eq!(
            through_window(&[0x13, b'a', 1, 0, 0x00], 8, 1),
            Ok(b"aaaaaaaa".to_vec())
        );
        assert_eq!(
            through_window(&[0x22, b'a', b'b', 2, 0, 0x00], 8, 3),
            Ok(b"abababab".to_vec())
        );
    }

    #[test]
    fn hostile_streams_end_in_an_error_not_a_hang() {
        for seed in 0..300u64 {
            let mut next = crate::test_rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let bytes: Vec<u8> = (0..(seed % 60)).map(|_| next() as u8).collect();
            for size in [0, 3, 64, 100_000] {
                let r = through_window(&bytes, size, 5);
                if let Ok(out) = r {
                    assert_eq!(out.len() as u64, size);
                }
            }
        }
    }
}
