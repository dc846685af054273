//! The LZ4 block encoder (the decoder is [`crate::lz4`]): greedy matching over one hash
//! table of 4-byte sequences, as LZ4's fast mode does.
//!
//! Its output depends only on the input: no pointer-width reads or hashes (lz4_flex
//! hashes 5 bytes on 64-bit targets and 4 on 32-bit ones), so a block written natively
//! and in a browser (`wasm32`) is the same, byte for byte.
//!
//! The block format's end rules hold: the last match starts at least 12 bytes before
//! the end, and the last 5 bytes are literals.

/// The shortest match a sequence holds.
const MIN_MATCH: usize = 4;
/// The block ends with at least this many literals.
const LAST_LITERALS: usize = 5;
/// The last match starts at least this many bytes before the end.
const MF_LIMIT: usize = 12;
/// The farthest back a match reaches (a 16-bit offset).
const MAX_OFFSET: usize = u16::MAX as usize;
const HASH_LOG: u32 = 14;
/// After this many bytes without a match, the search steps further each time
/// (LZ4's acceleration: incompressible data goes by quickly).
const SKIP_TRIGGER: u32 = 6;

fn u32_at(b: &[u8], at: usize) -> u32 {
    match b.get(at..at + 4) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

fn hash(seq: u32) -> usize {
    (seq.wrapping_mul(2_654_435_761) >> (32 - HASH_LOG)) as usize
}

/// A length past a nibble of 15: 255s, then the rest.
fn push_length(out: &mut Vec<u8>, mut rest: usize) {
    while rest >= 255 {
        out.push(255);
        rest -= 255;
    }
    out.push(rest as u8);
}

/// One sequence: `literals`, then a match of `len` bytes `offset` back (none for the
/// block's last sequence).
fn push_sequence(out: &mut Vec<u8>, literals: &[u8], m: Option<(usize, usize)>) {
    let lit = literals.len();
    let match_nibble = m.map_or(0, |(_, len)| (len - MIN_MATCH).min(15));
    out.push(((lit.min(15) as u8) << 4) | match_nibble as u8);
    if lit >= 15 {
        push_length(out, lit - 15);
    }
    out.extend_from_slice(literals);
    if let Some((offset, len)) = m {
        out.extend_from_slice(&(offset as u16).to_le_bytes());
        if len - MIN_MATCH >= 15 {
            push_length(out, len - MIN_MATCH - 15);
        }
    }
}

/// `input` as one LZ4 block.
pub(crate) fn compress(input: &[u8]) -> Vec<u8> {
    let n = input.len();
    let mut out = Vec::with_capacity(n / 2 + 16);
    let mut anchor = 0;
    if n > MF_LIMIT {
        let mut table = vec![0u32; 1 << HASH_LOG];
        let last_start = n - MF_LIMIT;
        let max_end = n - LAST_LITERALS;
        let mut i = 0;
        let mut misses = 0u32;
        while i <= last_start {
            let seq = u32_at(input, i);
            let h = hash(seq);
            let cand = table[h] as usize;
            table[h] = i as u32;
            if cand >= i || i - cand > MAX_OFFSET || u32_at(input, cand) != seq {
                misses += 1;
                i += 1 + (misses >> SKIP_TRIGGER) as usize;
                continue;
            }
            misses = 0;
            let (mut start, mut from) = (i, cand);
            let mut len = MIN_MATCH;
            while start + len < max_end && input[from + len] == input[start + len] {
                len += 1;
            }
            // Back over literals that match too.
            while start > anchor && from > 0 && input[start - 1] == input[from - 1] {
                start -= 1;
                from -= 1;
                len += 1;
            }
            push_sequence(&mut out, &input[anchor..start], Some((start - from, len)));
            i = start + len;
            anchor = i;
            // The position just before the next search, so runs keep matching.
            if i - 2 <= last_start {
                table[hash(u32_at(input, i - 2))] = (i - 2) as u32;
            }
        }
    }
    push_sequence(&mut out, &input[anchor..], None);
    out
}

#[cfg(test)]
mod tests {
    use super::compress;
    use crate::block::lz4_decodes_to;

    fn contents() -> Vec<Vec<u8>> {
        let mut x = 0x9e37_79b9u32;
        let mut noise = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let mut out: Vec<Vec<u8>> = (0..40)
            .map(|n| (0..n).map(|i| (i * 7 % 5) as u8).collect())
            .collect();
        out.push(vec![0; 100_000]);
        out.push((0..300_000u32).map(|_| noise() as u8).collect());
        // Floats of a smooth surface with repeats, as mesh blocks hold.
        out.push(
            (0..50_000u32)
                .flat_map(|i| ((i % 97) as f32 * 0.25).to_le_bytes())
                .collect(),
        );
        // Runs, repeats farther back than a match reaches, and noise, mixed.
        let mut mixed = Vec::new();
        for k in 0..200u32 {
            let len = (noise() % 2000) as usize;
            match k % 3 {
                0 => mixed.extend(std::iter::repeat_n((k % 251) as u8, len)),
                1 => mixed.extend((0..len).map(|_| noise() as u8)),
                _ => {
                    let back = mixed.len().min(70_000);
                    let from = mixed.len() - back;
                    let piece: Vec<u8> = mixed[from..from + back.min(len)].to_vec();
                    mixed.extend(piece);
                }
            }
        }
        out.push(mixed);
        out
    }

    /// What we write, both our decoder and lz4_flex's (an independent one) give back.
    #[test]
    fn both_decoders_give_back_every_content() {
        for c in contents() {
            let z = compress(&c);
            assert_eq!(
                lz4_flex::block::decompress(&z, c.len()).ok().as_deref(),
                Some(&c[..]),
                "{} bytes",
                c.len()
            );
            assert!(lz4_decodes_to(&z, &c), "{} bytes", c.len());
        }
    }

    /// Repeats shrink; noise grows by no more than the format's overhead.
    #[test]
    fn repeats_shrink_and_noise_barely_grows() {
        let zeros = compress(&[0; 100_000]);
        assert!(zeros.len() < 500, "{}", zeros.len());
        let c = contents();
        let noise = &c[41];
        let z = compress(noise);
        assert!(
            z.len() <= noise.len() + noise.len() / 255 + 16,
            "{} of {}",
            z.len(),
            noise.len()
        );
    }
}
