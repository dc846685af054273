//! The LZ4 blocks of the block-based layouts (ms14, ms15, sk10): `u64 decoded size,
//! u64 stored size, bytes`, the bytes in plain LZ4 block format, or the content itself
//! when both sizes are equal (notes/unigine-current.md section 4).
//!
//! The engine's LZ4 output cannot be reproduced by any public compressor setting, so a
//! byte-identical rewrite needs each block's stored bytes. Only those are kept: a
//! block's content is parsed as it decodes, through a small window ([`parse_block`]),
//! so it is never held whole (a file would otherwise hold every compressed block
//! twice), and the writer checks new content against a block without decoding it into
//! memory ([`StoredBlock::holds`]).

use parsing_primitives::{ErrorKind, Reader, SharedBytes};

use crate::error::{Result, invalid};
use crate::input::BlockReader;
use crate::lz4::{Lz4Window, WINDOW};

/// A block as the file stored it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredBlock {
    /// The decoded size.
    pub size: u64,
    /// The bytes after the two sizes: LZ4, or the content itself when their length
    /// equals `size`. A file read from shared bytes ([`crate::read_shared`]) keeps a
    /// range of them here, not a copy.
    pub stored: SharedBytes,
}

/// A block where it sits in the input, before its stored bytes are kept in a
/// [`StoredBlock`] (which a reader does beside decoding it, not before).
#[derive(Debug, Clone)]
pub(crate) struct BlockView<'a> {
    /// The decoded size.
    pub size: u64,
    /// The bytes after the two sizes.
    pub stored: &'a [u8],
    /// The same bytes as a range of the input, when the reader's input was shared.
    pub shared: Option<SharedBytes>,
}

impl BlockView<'_> {
    /// True when the block is stored raw.
    fn is_raw(&self) -> bool {
        self.stored.len() as u64 == self.size
    }
}

/// An empty buffer as long as each block's stored bytes, for [`keep_stored`] to copy
/// them into (none for a block kept as a range of shared input): made on the thread
/// whose allocator the file's memory should come from.
pub(crate) fn stored_buffers(views: &[BlockView<'_>]) -> Vec<Vec<u8>> {
    (views.iter())
        .map(|v| match v.shared {
            Some(_) => Vec::new(),
            None => Vec::with_capacity(v.stored.len()),
        })
        .collect()
}

/// Each block kept: its range of the shared input, else its stored bytes copied into
/// its buffer from [`stored_buffers`].
pub(crate) fn keep_stored(views: &[BlockView<'_>], buffers: Vec<Vec<u8>>) -> Vec<StoredBlock> {
    (views.iter().zip(buffers))
        .map(|(v, mut copy)| StoredBlock {
            size: v.size,
            stored: match &v.shared {
                Some(range) => range.clone(),
                None => {
                    copy.extend_from_slice(v.stored);
                    copy.into()
                }
            },
        })
        .collect()
}

/// Largest expansion LZ4 allows: 255 bytes out per byte in, plus slack.
const LZ4_MAX_RATIO: u64 = 255;

/// Whether `csize` stored bytes can decode to `size` bytes at all.
fn plausible(size: u64, csize: u64) -> bool {
    csize <= size && size <= csize.saturating_mul(LZ4_MAX_RATIO).saturating_add(16)
}

impl StoredBlock {
    /// The block as a view of its bytes (what the readers parse).
    #[cfg(test)]
    pub(crate) fn view(&self) -> BlockView<'_> {
        BlockView {
            size: self.size,
            stored: &self.stored,
            shared: None,
        }
    }

    /// True when the block is stored raw (its bytes are its content).
    pub fn is_raw(&self) -> bool {
        self.stored.len() as u64 == self.size
    }

    /// The decoded content.
    ///
    /// ```
    /// use unigine_mesh::ms14::StoredBlock;
    /// // LZ4: one literal 'a', then a match of 4 + 3 at offset 1 (token 0x13).
    /// let b = StoredBlock { size: 8, stored: vec![0x13, b'a', 1, 0, 0x00].into() };
    /// assert_eq!(b.content()?, b"aaaaaaaa");
    /// assert!(b.holds(b"aaaaaaaa"));
    /// assert!(!b.holds(b"aaaaaaab"));
    /// # Ok::<(), unigine_mesh::Error>(())
    /// ```
    pub fn content(&self) -> Result<Vec<u8>> {
        self.decode()
            .ok_or_else(|| invalid("the block's stored bytes do not decode to its size"))
    }

    /// True when `content` is what the block decodes to (the writer keeps the stored
    /// bytes of such a block). Checked in one pass without decoding into memory.
    pub fn holds(&self, content: &[u8]) -> bool {
        if content.len() as u64 != self.size {
            return false;
        }
        if self.is_raw() {
            return self.stored == content;
        }
        lz4_decodes_to(&self.stored, content)
    }

    /// The content: the stored bytes themselves when raw, else decoded by the crate's
    /// own decoder (no feature needed to read), piece by piece through its window into
    /// the result. `None` when the stored bytes do not decode to `size`.
    fn decode(&self) -> Option<Vec<u8>> {
        if !plausible(self.size, self.stored.len() as u64) {
            return None;
        }
        if self.is_raw() {
            return Some(self.stored.to_vec());
        }
        // At most 255 times the stored bytes (`plausible`).
        let mut out = Vec::with_capacity(usize::try_from(self.size).ok()?);
        let mut window = Lz4Window::new(&self.stored, self.size);
        loop {
            let piece = window.fill(WINDOW).ok()?;
            if piece.is_empty() {
                return (out.len() as u64 == self.size).then_some(out);
            }
            out.extend_from_slice(piece);
            let n = piece.len();
            window.consume(n);
        }
    }
}

/// True when the LZ4 block `src` decodes to exactly `content`. Walks the sequences
/// and compares instead of writing: a literal run must equal the content at that
/// point, and a match copying `len` bytes from `offset` back must find
/// `content[pos..pos + len] == content[pos - offset..][..len]`, which, while the
/// output so far equals the content, is what the copy would produce (overlapping
/// ranges included). Any stream the decoder rejects is rejected here.
pub(crate) fn lz4_decodes_to(src: &[u8], content: &[u8]) -> bool {
    let length = |src, at: &mut usize, nibble| crate::lz4::length(src, at, nibble).ok();
    let walk = || -> Option<bool> {
        let (mut at, mut pos) = (0usize, 0usize);
        loop {
            let token = *src.get(at)?;
            at += 1;
            let literals = length(src, &mut at, token >> 4)?;
            let lit = src.get(at..at.checked_add(literals)?)?;
            if content.get(pos..pos + literals)? != lit {
                return Some(false);
            }
            at += literals;
            pos += literals;
            if at == src.len() {
                return Some(pos == content.len());
            }
            let offset = usize::from(u16::from_le_bytes([*src.get(at)?, *src.get(at + 1)?]));
            at += 2;
            let len = length(src, &mut at, token & 15)?.checked_add(4)?;
            if offset == 0 || offset > pos {
                return None;
            }
            let end = pos.checked_add(len)?;
            if content.get(pos..end)? != content.get(pos - offset..end - offset)? {
                return Some(false);
            }
            pos += len;
        }
    };
    walk() == Some(true)
}

/// One block at the reader's position; `at` in errors is the block's first byte.
pub(crate) fn read_block<'a>(
    r: &mut Reader<'a>,
    what: &'static str,
) -> parsing_primitives::Result<BlockView<'a>> {
    r.field(what, |r| {
        let at = r.offset();
        let [size, csize] = r.le::<[u64; 2]>()?;
        if csize > size {
            return Err(r.invalid_at(
                at,
                format!("compressed size {csize} exceeds the decoded size {size}"),
            ));
        }
        // A hostile size must fail before anything is allocated.
        if !plausible(size, csize) {
            return Err(r.invalid_at(
                at,
                format!("{csize} compressed bytes cannot decode to {size}"),
            ));
        }
        let at = r.position();
        let stored = r.bytes(usize::try_from(csize).unwrap_or(usize::MAX))?;
        let shared = (r.shared()).and_then(|input| input.slice(at..at + stored.len()));
        // Charged here, for the copy the reader keeps (none when it keeps a range of
        // shared input: the caller's buffer, which the caller accounts for).
        if shared.is_none() {
            r.charge_for("stored block", csize)?;
        }
        Ok(BlockView {
            size,
            stored,
            shared,
        })
    })
}

/// Item `s` of the `field` list of blocks (read at file offset `at`): its content, read
/// by `parse` as it decodes, through a [`BlockReader`] (a raw block in place) on `r`'s
/// budget, so no buffer of the block's size is made. The window is charged to `r`'s
/// budget while it is in use. A block whose stream does not decode to its size is
/// reported as corrupt (at the byte after its two sizes) whether or not `parse` failed
/// first, as when it was decoded whole before being parsed.
pub(crate) fn parse_block<T>(
    r: &mut Reader<'_>,
    (field, s): (&'static str, usize),
    (at, block): (u64, &BlockView<'_>),
    parse: impl FnOnce(&mut BlockReader<'_>) -> parsing_primitives::Result<T>,
) -> parsing_primitives::Result<T> {
    let budget = r.budget().clone();
    r.field(field, |r| {
        r.item(s, |r| {
            // The error for a stream that does not decode to its size, named as the
            // block's (made here, where the block's path is).
            let corrupt = r.field("block", |r| Ok(r.invalid_at(at + 16, "corrupt LZ4 block")))?;
            if block.is_raw() {
                let mut b = BlockReader::new(Lz4Window::raw(block.stored), budget, corrupt);
                return parse(&mut b);
            }
            if !plausible(block.size, block.stored.len() as u64) {
                return Err(corrupt);
            }
            let held = block.size.min(WINDOW as u64);
            r.field("block", |r| {
                match budget.charge("decompressed block", held) {
                    Ok(()) => Ok(()),
                    Err(e) => Err(r.error_at(at + 16, ErrorKind::OverBudget(e))),
                }
            })?;
            let window = Lz4Window::new(block.stored, block.size);
            let mut b = BlockReader::new(window, budget.clone(), corrupt);
            let out = parse(&mut b);
            let rest = b.check_rest();
            budget.release(held);
            rest.and(out)
        })
    })
}

/// LZ4 of `content` (our encoder: the same bytes on every target), or `None` when that
/// does not shrink it (the block is then stored raw).
#[cfg(feature = "lz4")]
fn compress(content: &[u8]) -> Option<Vec<u8>> {
    let c = crate::lz4_write::compress(content);
    (c.len() < content.len()).then_some(c)
}

#[cfg(not(feature = "lz4"))]
fn compress(_: &[u8]) -> Option<Vec<u8>> {
    None
}

/// A list of blocks ready to write, each as its decoded size and the bytes it stores.
pub(crate) struct Prepared<'a> {
    blocks: Vec<(u64, Stored<'a>)>,
}

/// What a prepared block stores.
enum Stored<'a> {
    /// The original block at its index, which [holds](StoredBlock::holds) the same
    /// content: its stored bytes are written back.
    Kept(&'a StoredBlock),
    /// New bytes: LZ4, or the content itself where LZ4 does not shrink it (the content
    /// is not kept otherwise: each is dropped once compressed).
    New(Vec<u8>),
}

impl Stored<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Stored::Kept(o) => &o.stored,
            Stored::New(b) => b,
        }
    }
}

/// Checks each content against its original and compresses the ones not kept.
pub(crate) fn prepare<'a>(contents: Vec<Vec<u8>>, originals: &[&'a StoredBlock]) -> Prepared<'a> {
    let blocks = contents
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let size = c.len() as u64;
            match originals.get(i).copied().filter(|o| o.holds(&c)) {
                Some(o) => (size, Stored::Kept(o)),
                None => (size, Stored::New(compress(&c).unwrap_or(c))),
            }
        })
        .collect();
    Prepared { blocks }
}

impl Prepared<'_> {
    /// The blocks one after the other; returns each one's file offset.
    pub(crate) fn write(&self, w: &mut parsing_primitives::Writer) -> Vec<i64> {
        let mut offsets = Vec::with_capacity(self.blocks.len());
        for (size, stored) in &self.blocks {
            offsets.push(i64::try_from(w.len()).unwrap_or(i64::MAX));
            let bytes = stored.bytes();
            w.u64_le(*size).u64_le(bytes.len() as u64);
            w.bytes(bytes);
        }
        offsets
    }

    /// The bytes [`write`](Self::write) writes.
    pub(crate) fn written_len(&self) -> usize {
        self.blocks.iter().map(|(_, s)| 16 + s.bytes().len()).sum()
    }

    /// Whether block `i` keeps its original.
    #[cfg(test)]
    fn keeps(&self, i: usize) -> bool {
        matches!(self.blocks.get(i), Some((_, Stored::Kept(_))))
    }
}

/// The memory estimate to write: `stored` for a mesh built in memory (no original
/// blocks: the builder set it) or while every block keeps its original (same count);
/// otherwise `stored` scaled by new / original decoded size (the new decoded size when
/// `stored` is not positive).
pub(crate) fn memory_estimate_for(
    stored: i64,
    prepared: &[&Prepared<'_>],
    originals: &[&StoredBlock],
) -> i64 {
    let blocks = || prepared.iter().flat_map(|p| &p.blocks);
    let unchanged =
        blocks().count() == originals.len() && blocks().all(|(_, s)| matches!(s, Stored::Kept(_)));
    if unchanged || originals.is_empty() {
        return stored;
    }
    let new: u128 = blocks().map(|(size, _)| u128::from(*size)).sum();
    let old: u128 = originals.iter().map(|b| u128::from(b.size)).sum();
    let scaled = match u128::try_from(stored) {
        // Rounded to nearest: (stored * new + old / 2) / old.
        Ok(s) if s > 0 && old > 0 => s
            .saturating_mul(new)
            .saturating_add(old / 2)
            .checked_div(old)
            .unwrap_or(new),
        _ => new,
    };
    i64::try_from(scaled).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implausible_sizes_decode_to_nothing() {
        // Stored longer than decoded, and more than LZ4's 255:1 expansion.
        for (size, stored) in [(2, vec![0u8; 3]), (16 + 255 * 2 + 1, vec![0u8; 2])] {
            let b = StoredBlock {
                size,
                stored: stored.into(),
            };
            assert!(b.decode().is_none(), "{}", b.size);
            assert!(b.content().is_err());
        }
        // A raw block is its own content.
        let b = StoredBlock {
            size: 3,
            stored: vec![1, 2, 3].into(),
        };
        assert_eq!(b.decode().as_deref(), Some(&[1u8, 2, 3][..]));
        assert!(b.holds(&[1, 2, 3]) && !b.holds(&[1, 2, 4]) && !b.holds(&[1, 2]));
    }

    #[test]
    fn a_streamed_block_is_charged_its_window_and_reports_as_a_whole_decode_did() {
        use crate::input::Input;
        use parsing_primitives::{Budget, Limits};
        // One literal 'a', then a match of 7 at offset 1: eight 'a'.
        let b = StoredBlock {
            size: 8,
            stored: vec![0x13, b'a', 1, 0, 0x00].into(),
        };
        let budget = Budget::new(Limits::DEFAULT);
        let mut r = Reader::new("t", &[]).with_budget(budget.clone());
        let got = parse_block(&mut r, ("blocks", 0), (0, &b.view()), |g| {
            Ok((g.le::<[u8; 8]>()?, budget.used()))
        });
        // Charged the window (the block's size, under 512 KiB) while in use.
        assert_eq!(got.ok(), Some((*b"aaaaaaaa", 8)));
        assert_eq!(budget.used(), 0);
        // An error in the content: its offset in the content, its path under the
        // block's.
        let e = parse_block(&mut r, ("blocks", 3), (0, &b.view()), |g| {
            g.field("x", |g| {
                g.le::<[u8; 5]>()?;
                g.le::<u32>()
            })
        });
        assert!(
            matches!(&e, Err(e) if e.offset() == 5 && e.path() == "x"
                && matches!(e.kind(), ErrorKind::UnexpectedEnd { needed: 4, remaining: 3 })),
            "{e:?}"
        );
        // Unread content is trailing bytes.
        let e = parse_block(&mut r, ("blocks", 0), (0, &b.view()), |g| {
            g.le::<u8>()?;
            g.finish()
        });
        assert!(
            matches!(&e, Err(e) if matches!(e.kind(), ErrorKind::TrailingBytes { count: 7 })),
            "{e:?}"
        );
        // A stream that decodes to more than its size is corrupt, even when the parse
        // failed before reaching the fault (named at the byte after the two sizes).
        let bad = StoredBlock {
            size: 7,
            stored: vec![0x13, b'a', 1, 0, 0x00].into(),
        };
        let e = parse_block(&mut r, ("blocks", 1), (100, &bad.view()), |g| {
            Err::<(), _>(g.invalid_at(0, "parse failed first"))
        });
        assert!(
            matches!(&e, Err(e) if e.offset() == 116 && e.to_string().contains("corrupt LZ4")
                && e.path() == "blocks[1].block"),
            "{e:?}"
        );
        assert_eq!(budget.used(), 0);
    }

    // Needs LZ4-compressed blocks to stream (the `lz4` feature compresses).
    #[cfg(feature = "lz4")]
    #[test]
    fn a_tree_larger_than_the_window_reads_as_from_its_decoded_bytes() {
        use crate::spatial::SpatialTree;
        // A 300 x 300 grid of quads: 180,000 triangles, a content of several window
        // lengths, so node records and arrays are cut by the window's end.
        let n = 300u32;
        let positions: Vec<[f32; 3]> = (0..=n)
            .flat_map(|y| (0..=n).map(move |x| [x as f32, y as f32, ((x * y) % 7) as f32]))
            .collect();
        let at = |x: u32, y: u32| y * (n + 1) + x;
        let indices: Vec<u32> = (0..n)
            .flat_map(|y| (0..n).map(move |x| (x, y)))
            .flat_map(|(x, y)| {
                [at(x, y), at(x + 1, y), at(x, y + 1)].into_iter().chain([
                    at(x + 1, y),
                    at(x + 1, y + 1),
                    at(x, y + 1),
                ])
            })
            .collect();
        let content = SpatialTree::build(&indices, &positions, 4).write().ok();
        let content = content.unwrap_or_default();
        assert!(content.len() > 4 * WINDOW, "{}", content.len());
        let stored = compress(&content).unwrap_or_default();
        let block = StoredBlock {
            size: content.len() as u64,
            stored: stored.into(),
        };
        let mut r = Reader::new("t", &[]);
        let streamed = parse_block(&mut r, ("trees", 0), (0, &block.view()), |t| {
            SpatialTree::read_from(t)
        });
        let whole = SpatialTree::read(&content);
        assert!(whole.is_ok());
        assert_eq!(streamed, whole);
        // The same content cut short fails alike, offsets and paths included.
        let cut = &content[..content.len() - 100];
        let block = StoredBlock {
            size: cut.len() as u64,
            stored: compress(cut).unwrap_or_default().into(),
        };
        let streamed = parse_block(&mut r, ("trees", 0), (0, &block.view()), |t| {
            SpatialTree::read_from(t)
        });
        let whole = SpatialTree::read(cut);
        assert!(whole.is_err());
        assert_eq!(streamed, whole);
    }

    // Compares against blocks the `lz4` feature compresses.
    #[cfg(feature = "lz4")]
    #[test]
    fn holds_agrees_with_decoding() {
        // Contents with runs, repeats and noise, compressed by our encoder: each block
        // holds its own content and no content with one byte changed, or cut short.
        let mut seed = 0x9e37_79b9u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            seed >> 8
        };
        let mut compressed = 0;
        for case in 0..200 {
            let n = (next() % 4000) as usize + 1;
            let alphabet = [2, 4, 256][case % 3];
            let mut content: Vec<u8> = (0..n).map(|_| (next() % alphabet) as u8).collect();
            if case % 2 == 0 {
                // Long runs and self-overlapping matches.
                for i in (0..n).step_by(97) {
                    let end = (i + 40).min(n);
                    content[i..end].fill(7);
                }
            }
            if case % 5 == 0 {
                // A run of 300 and more, then 300 and more bytes of noise: match and
                // literal lengths past 15 + 255, with extension bytes of 255.
                let run = 300 + (next() % 700) as usize;
                content.extend(std::iter::repeat_n(9u8, run));
                content.extend((0..300 + run).map(|_| next() as u8));
            }
            let n = content.len();
            let Some(stored) = compress(&content) else {
                continue;
            };
            compressed += 1;
            let b = StoredBlock {
                size: n as u64,
                stored: stored.into(),
            };
            assert_eq!(b.content().ok().as_deref(), Some(&content[..]));
            assert!(b.holds(&content), "case {case}");
            let mut edited = content.clone();
            let k = next() as usize % n;
            edited[k] ^= 1;
            assert!(!b.holds(&edited), "case {case} byte {k}");
            assert!(!b.holds(&content[..n - 1]), "case {case}");
            // Garbage stored bytes: holds says what decoding says.
            let mut garbage = b.stored.to_vec();
            let j = next() as usize % garbage.len();
            garbage[j] = next() as u8;
            let bad = StoredBlock {
                stored: garbage.into(),
                ..b.clone()
            };
            let decoded = bad.content().ok();
            assert_eq!(
                bad.holds(&content),
                decoded.as_deref() == Some(&content[..]),
                "case {case}"
            );
        }
        // Most cases compress (noise over 256 values may not).
        assert!(compressed >= 150, "{compressed}");
    }

    #[test]
    fn the_estimate_scales_only_when_a_block_changed() {
        let a = StoredBlock {
            size: 4,
            stored: vec![1, 2, 3, 4].into(),
        };
        let b = StoredBlock {
            size: 2,
            stored: vec![5, 6].into(),
        };
        let originals = [&a, &b];
        let same = prepare(vec![vec![1, 2, 3, 4], vec![5, 6]], &originals);
        assert!(same.keeps(0) && same.keeps(1));
        assert_eq!(memory_estimate_for(100, &[&same], &originals), 100);
        // One block grew from 2 to 5 bytes: 100 * 9 / 6 = 150.
        let grown = prepare(vec![vec![1, 2, 3, 4], vec![5, 6, 7, 8, 9]], &originals);
        assert!(grown.keeps(0) && !grown.keeps(1));
        assert_eq!(memory_estimate_for(100, &[&grown], &originals), 150);
        // No estimate stored: the new decoded size.
        assert_eq!(memory_estimate_for(0, &[&grown], &originals), 9);
        // Built in memory: as set.
        assert_eq!(memory_estimate_for(7, &[&grown], &[]), 7);
        // What is written: a kept block's stored bytes, a new block's raw content
        // (5 bytes do not compress), each after its two sizes.
        assert_eq!(grown.written_len(), 16 + 4 + 16 + 5);
        let mut w = parsing_primitives::Writer::new("t");
        assert_eq!(grown.write(&mut w), [0, 20]);
        assert_eq!(w.into_inner().len(), grown.written_len());
    }
}
