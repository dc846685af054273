//! Mode 0, `ATTRIBUTES`: the vertex codec.
//!
//! The stream is a header byte (`0xa0` for version 0, `0xa1` for version 1), attribute
//! blocks of up to 256 elements, and a tail block holding the first element verbatim,
//! padded to 32 bytes (version 1: followed by one channel byte per 4 bytes of the
//! element, padded to 24 bytes). Within a block each byte of the element is a column
//! of deltas to the previous element, stored in groups of 16 with a 2-bit header per
//! group choosing its bit width (Appendix A of the EXT_meshopt_compression spec).
//!
//! [`encode_vertex_buffer`] writes version 0, the bitstream EXT_meshopt_compression
//! specifies, and makes the same choices as meshoptimizer's
//! `meshopt_encodeVertexBufferLevel(.., version = 0)` (`encodeVertexBlock`,
//! `encodeBytes`: the smallest group encoding, ties going to the previous group's bit
//! width), so its output is byte-identical to meshoptimizer's. [`decode_vertex_buffer`]
//! reads versions 0 and 1 and accepts exactly the streams `meshopt_decodeVertexBuffer`
//! accepts.

use crate::error::{DecodeError, EncodeError, decode_len, encode_len};

/// The header byte of version 0 (the version is its low nibble).
const HEADER: u8 = 0xa0;
/// The largest version [`decode_vertex_buffer`] reads.
const MAX_VERSION: u8 = 1;
const BLOCK_SIZE_BYTES: usize = 8192;
const BLOCK_MAX_SIZE: usize = 256;
const GROUP: usize = 16;
/// The decoder wants this many bytes left before each group (the most a group takes).
const GROUP_DECODE_LIMIT: usize = 24;
const TAIL_MIN_V0: usize = 32;
const TAIL_MIN_V1: usize = 24;
const BITS_V0: [u8; 4] = [0, 2, 4, 8];
const BITS_V1: [u8; 5] = [0, 1, 2, 4, 8];

/// Elements per attribute block: `min((8192 / stride) & !15, 256)`.
fn block_elements(stride: usize) -> usize {
    ((BLOCK_SIZE_BYTES / stride.max(1)) & !(GROUP - 1)).clamp(GROUP, BLOCK_MAX_SIZE)
}

/// `None` when `stride` is one the attribute codec takes (a multiple of 4 in 4..=256).
fn stride_problem(stride: usize) -> Option<&'static str> {
    (stride == 0 || stride > 256 || stride % 4 != 0)
        .then_some("the attribute codec needs a multiple of 4 in 4..=256")
}

/// The most bytes [`encode_vertex_buffer`] writes for `count` elements of `stride`
/// bytes (the same bound as meshoptimizer's `meshopt_encodeVertexBufferBound`, which
/// also covers version 1). Saturates instead of overflowing; for a stride the encoder
/// refuses the value has no meaning, but the call does not panic.
///
/// ```
/// let bound = meshfmt_meshopt::encoded_vertex_bound(1000, 16);
/// let encoded = meshfmt_meshopt::encode_vertex_buffer(&vec![7; 16_000], 1000, 16)?;
/// assert!(encoded.len() <= bound);
/// # Ok::<(), meshfmt_meshopt::EncodeError>(())
/// ```
pub fn encoded_vertex_bound(count: usize, stride: usize) -> usize {
    let block = block_elements(stride);
    let blocks = count.div_ceil(block);
    let control = stride / 4;
    let header = (block / GROUP).div_ceil(4);
    let tail = (stride + stride / 4).max(TAIL_MIN_V0.max(TAIL_MIN_V1));
    let per_block = stride.saturating_mul(control + header + block);
    1usize
        .saturating_add(blocks.saturating_mul(per_block))
        .saturating_add(tail)
}

/// Encodes `count` elements of `stride` bytes (`data.len() == count * stride`) with the
/// EXT_meshopt_compression attribute codec, version 0 (header `0xa0`).
///
/// # Errors
///
/// [`EncodeError::Argument`] when `stride` is not a multiple of 4 in 4..=256, and
/// [`EncodeError::InputLength`] when `data` is not `count * stride` bytes long.
///
/// ```
/// use meshfmt_meshopt::{decode_vertex_buffer, encode_vertex_buffer};
///
/// // 100 positions as 3 x u16 + padding, stride 8
/// let data: Vec<u8> = (0..100u16)
///     .flat_map(|i| [i, i * 2, 7, 0])
///     .flat_map(u16::to_le_bytes)
///     .collect();
/// let encoded = encode_vertex_buffer(&data, 100, 8)?;
/// assert_eq!(encoded[0], 0xa0);
/// assert!(encoded.len() < data.len());
///
/// let mut decoded = vec![0; data.len()];
/// decode_vertex_buffer(&mut decoded, 100, 8, &encoded)?;
/// assert_eq!(decoded, data);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn encode_vertex_buffer(
    data: &[u8],
    count: usize,
    stride: usize,
) -> Result<Vec<u8>, EncodeError> {
    if let Some(requirement) = stride_problem(stride) {
        return Err(EncodeError::Argument {
            name: "stride",
            value: stride,
            requirement,
        });
    }
    let len = encode_len(count, stride)?;
    if data.len() != len {
        return Err(EncodeError::InputLength {
            expected: len,
            found: data.len(),
        });
    }

    let mut out = Vec::with_capacity(encoded_vertex_bound(count, stride));
    out.push(HEADER);

    // the baseline: the first element (zeros when there is none)
    let mut first = [0u8; 256];
    for (f, &b) in first.iter_mut().zip(data.iter().take(stride)) {
        *f = b;
    }
    let mut last = first;

    let block_bytes = block_elements(stride) * stride;
    for block in data.chunks(block_bytes) {
        encode_block(&mut out, block, stride, &mut last);
    }

    let tail_pad = stride.max(TAIL_MIN_V0);
    out.resize(out.len() + (tail_pad - stride), 0);
    out.extend(first.iter().take(stride));
    Ok(out)
}

/// One attribute block: the columns of byte deltas of `block` (whole elements), each
/// encoded with [`encode_bytes`]. Leaves the block's last element in `last`.
fn encode_block(out: &mut Vec<u8>, block: &[u8], stride: usize, last: &mut [u8; 256]) {
    let elements = block.len() / stride;
    let groups = elements.div_ceil(GROUP);
    // the padding elements of the last group encode as zero deltas
    let mut deltas = [0u8; BLOCK_MAX_SIZE];

    for (k, last_k) in last.iter_mut().enumerate().take(stride) {
        let mut previous = *last_k;
        let column = block.iter().skip(k).step_by(stride);
        for (delta, &value) in deltas.iter_mut().zip(column) {
            *delta = zigzag8(value.wrapping_sub(previous));
            previous = value;
        }
        *last_k = previous;
        encode_bytes(out, &deltas, groups);
    }
}

#[inline]
fn zigzag8(v: u8) -> u8 {
    (((v as i8) >> 7) as u8) ^ (v << 1)
}

#[inline]
fn unzigzag8(v: u8) -> u8 {
    (v & 1).wrapping_neg() ^ (v >> 1)
}

#[inline]
fn unzigzag16(v: u16) -> u16 {
    (v & 1).wrapping_neg() ^ (v >> 1)
}

/// One data block: the 2-bit group headers, then each group of 16 deltas in the
/// smallest of the four version 0 encodings (meshoptimizer's `encodeBytes`: on a tie
/// the bit width of the previous group wins, and nothing replaces a tie with 8 bits).
fn encode_bytes(out: &mut Vec<u8>, deltas: &[u8; BLOCK_MAX_SIZE], groups: usize) {
    let header_at = out.len();
    out.resize(header_at + groups.div_ceil(4), 0);

    let mut last_bits = u8::MAX;
    for (g, group) in deltas.chunks_exact(GROUP).take(groups).enumerate() {
        let mut any = 0u8;
        let mut over2 = 0usize;
        let mut over4 = 0usize;
        for &b in group {
            any |= b;
            over2 += usize::from(b >= 3);
            over4 += usize::from(b >= 15);
        }
        let sizes = [
            if any == 0 { 0 } else { usize::MAX },
            GROUP / 4 + over2,
            GROUP / 2 + over4,
        ];

        let mut best = 3;
        let mut best_size = GROUP;
        for (k, &size) in sizes.iter().enumerate() {
            if size < best_size || (size == best_size && BITS_V0[k] == last_bits && best != 3) {
                best = k;
                best_size = size;
            }
        }

        if let Some(h) = out.get_mut(header_at + g / 4) {
            *h |= (best as u8) << ((g % 4) * 2);
        }
        let bits = BITS_V0[best & 3];
        match bits {
            0 => {}
            8 => out.extend_from_slice(group),
            _ => {
                let sentinel = (1u8 << bits) - 1;
                for packed in group.chunks_exact(8 / bits as usize) {
                    let byte = packed
                        .iter()
                        .fold(0u8, |acc, &v| (acc << bits) | v.min(sentinel));
                    out.push(byte);
                }
                out.extend(group.iter().filter(|&&v| v >= sentinel));
            }
        }
        last_bits = bits;
    }
}

/// Decodes `count` elements of `stride` bytes into `out` (`out.len() == count *
/// stride`) from an EXT_meshopt_compression attribute stream, version 0 or 1. `encoded`
/// must be exactly the stream (its `byteLength`): the tail block is found from its end.
///
/// Never panics and allocates nothing, whatever `encoded` holds.
///
/// # Errors
///
/// [`DecodeError::Argument`] for a stride the codec does not take,
/// [`DecodeError::OutputLength`] when `out` is not `count * stride` bytes long, and the
/// other variants when `encoded` is not a valid stream for `count` and `stride`.
///
/// ```
/// use meshfmt_meshopt::{decode_vertex_buffer, encode_vertex_buffer};
///
/// let data: Vec<u8> = (0..=255).collect();
/// let encoded = encode_vertex_buffer(&data, 64, 4)?;
/// let mut decoded = [0u8; 256];
/// decode_vertex_buffer(&mut decoded, 64, 4, &encoded)?;
/// assert_eq!(decoded[..], data[..]);
///
/// // a stream cut short is refused
/// assert!(decode_vertex_buffer(&mut decoded, 64, 4, &encoded[..encoded.len() - 1]).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decode_vertex_buffer(
    out: &mut [u8],
    count: usize,
    stride: usize,
    encoded: &[u8],
) -> Result<(), DecodeError> {
    if let Some(requirement) = stride_problem(stride) {
        return Err(DecodeError::Argument {
            name: "stride",
            value: stride,
            requirement,
        });
    }
    let len = decode_len(count, stride)?;
    if out.len() != len {
        return Err(DecodeError::OutputLength {
            expected: len,
            found: out.len(),
        });
    }

    let &header = encoded.first().ok_or(DecodeError::Truncated {
        offset: 0,
        reading: "header byte",
    })?;
    if header & 0xf0 != HEADER {
        return Err(DecodeError::BadHeader {
            found: header,
            expected: HEADER,
        });
    }
    let version = header & 0x0f;
    if version > MAX_VERSION {
        return Err(DecodeError::UnsupportedVersion { found: header });
    }

    let v1 = version == 1;
    let tail_size = stride + if v1 { stride / 4 } else { 0 };
    let tail_pad = tail_size.max(if v1 { TAIL_MIN_V1 } else { TAIL_MIN_V0 });
    if encoded.len() - 1 < tail_pad {
        return Err(DecodeError::Truncated {
            offset: 1,
            reading: "tail block",
        });
    }
    let tail_at = encoded.len() - tail_size;
    let tail = encoded.get(tail_at..).unwrap_or_default();

    let mut last = [0u8; 256];
    for (l, &b) in last.iter_mut().zip(tail.iter().take(stride)) {
        *l = b;
    }
    let mut channels = [0u8; 64];
    if v1 {
        for (c, &b) in channels.iter_mut().zip(tail.iter().skip(stride)) {
            *c = b;
        }
    }

    let mut decoder = BlockDecoder {
        encoded,
        pos: 1,
        stride,
        version,
        channels_at: tail_at + stride,
    };
    let block_bytes = block_elements(stride) * stride;
    for block in out.chunks_mut(block_bytes) {
        decoder.block(block, &mut last, &channels)?;
    }

    let end = encoded.len() - tail_pad;
    if decoder.pos != end {
        return Err(DecodeError::TrailingBytes {
            offset: decoder.pos,
            tail: end,
        });
    }
    Ok(())
}

/// The read position in a vertex stream and what every block needs.
struct BlockDecoder<'a> {
    encoded: &'a [u8],
    pos: usize,
    stride: usize,
    version: u8,
    /// Where the channel bytes are in the tail (version 1), for error offsets.
    channels_at: usize,
}

impl BlockDecoder<'_> {
    fn left(&self) -> usize {
        self.encoded.len().saturating_sub(self.pos)
    }

    /// One attribute block into `block` (whole elements), deltas from `last`, which it
    /// leaves holding the block's last element.
    fn block(
        &mut self,
        block: &mut [u8],
        last: &mut [u8; 256],
        channels: &[u8; 64],
    ) -> Result<(), DecodeError> {
        let elements = block.len() / self.stride;
        let aligned = elements.div_ceil(GROUP) * GROUP;

        let control_size = if self.version == 0 {
            0
        } else {
            self.stride / 4
        };
        if self.left() < control_size {
            return Err(DecodeError::Truncated {
                offset: self.pos,
                reading: "control bytes",
            });
        }
        let control_at = self.pos;
        self.pos += control_size;

        let mut columns = [[0u8; BLOCK_MAX_SIZE]; 4];
        for k4 in 0..self.stride / 4 {
            let control = if self.version == 0 {
                0
            } else {
                self.encoded.get(control_at + k4).copied().unwrap_or(0)
            };
            for (j, column) in columns.iter_mut().enumerate() {
                let column = column.get_mut(..aligned).unwrap_or_default();
                match (control >> (j * 2)) & 3 {
                    3 => {
                        // literal: the elements' deltas as bytes, no padding
                        let literal = self.encoded.get(self.pos..self.pos + elements).ok_or(
                            DecodeError::Truncated {
                                offset: self.pos,
                                reading: "literal deltas",
                            },
                        )?;
                        for (c, &b) in column.iter_mut().zip(literal) {
                            *c = b;
                        }
                        self.pos += elements;
                    }
                    2 => column.fill(0),
                    ctrl => {
                        let bits = if self.version == 0 {
                            BITS_V0
                        } else if ctrl == 0 {
                            [BITS_V1[0], BITS_V1[1], BITS_V1[2], BITS_V1[3]]
                        } else {
                            [BITS_V1[1], BITS_V1[2], BITS_V1[3], BITS_V1[4]]
                        };
                        self.bytes(column, bits)?;
                    }
                }
            }

            let channel = if self.version == 0 {
                0
            } else {
                channels.get(k4).copied().unwrap_or(0)
            };
            let k = k4 * 4;
            let last4 = last.get_mut(k..k + 4).unwrap_or_default();
            match channel & 3 {
                0 => {
                    for (j, (column, last_j)) in columns.iter().zip(last4).enumerate() {
                        let mut p = *last_j;
                        for (element, &d) in block.chunks_exact_mut(self.stride).zip(column) {
                            p = p.wrapping_add(unzigzag8(d));
                            if let Some(b) = element.get_mut(k + j) {
                                *b = p;
                            }
                        }
                        *last_j = p;
                    }
                }
                1 => {
                    for (half, last2) in last4.chunks_exact_mut(2).enumerate() {
                        let (lo, hi) = (&columns[(half * 2) & 3], &columns[(half * 2 + 1) & 3]);
                        let mut p = u16::from_le_bytes([
                            last2.first().copied().unwrap_or(0),
                            last2.get(1).copied().unwrap_or(0),
                        ]);
                        let deltas = lo.iter().zip(hi.iter());
                        for (element, (&l, &h)) in block.chunks_exact_mut(self.stride).zip(deltas) {
                            p = p.wrapping_add(unzigzag16(u16::from_le_bytes([l, h])));
                            if let Some(b) = element.get_mut(k + half * 2..k + half * 2 + 2) {
                                b.copy_from_slice(&p.to_le_bytes());
                            }
                        }
                        last2.copy_from_slice(&p.to_le_bytes());
                    }
                }
                2 => {
                    let rot = (32 - u32::from(channel >> 4)) & 31;
                    let mut p = u32::from_le_bytes([
                        last4.first().copied().unwrap_or(0),
                        last4.get(1).copied().unwrap_or(0),
                        last4.get(2).copied().unwrap_or(0),
                        last4.get(3).copied().unwrap_or(0),
                    ]);
                    let [c0, c1, c2, c3] = &columns;
                    let deltas = c0.iter().zip(c1).zip(c2).zip(c3);
                    for (element, (((&b0, &b1), &b2), &b3)) in
                        block.chunks_exact_mut(self.stride).zip(deltas)
                    {
                        p ^= u32::from_le_bytes([b0, b1, b2, b3]).rotate_left(rot);
                        if let Some(b) = element.get_mut(k..k + 4) {
                            b.copy_from_slice(&p.to_le_bytes());
                        }
                    }
                    last4.copy_from_slice(&p.to_le_bytes());
                }
                _ => {
                    return Err(DecodeError::Invalid {
                        offset: self.channels_at + k4,
                        reading: "channel mode",
                    });
                }
            }
        }
        Ok(())
    }

    /// One data block of `column.len()` (a multiple of 16) deltas, group widths from
    /// `bits` by the 2-bit group headers.
    fn bytes(&mut self, column: &mut [u8], bits: [u8; 4]) -> Result<(), DecodeError> {
        let groups = column.len() / GROUP;
        let header_size = groups.div_ceil(4);
        let header =
            self.encoded
                .get(self.pos..self.pos + header_size)
                .ok_or(DecodeError::Truncated {
                    offset: self.pos,
                    reading: "group headers",
                })?;
        self.pos += header_size;

        for (g, out) in column.chunks_exact_mut(GROUP).enumerate() {
            // the reference decoder wants this much left before every group (the tail
            // block guarantees it for a valid stream)
            let Some(window) = self.encoded.get(self.pos..self.pos + GROUP_DECODE_LIMIT) else {
                return Err(DecodeError::Truncated {
                    offset: self.pos,
                    reading: "byte group",
                });
            };
            let mut src = [0u8; 32];
            src[..GROUP_DECODE_LIMIT].copy_from_slice(window);
            let h = header.get(g / 4).copied().unwrap_or(0);
            let width = bits[usize::from((h >> ((g % 4) * 2)) & 3)];
            self.pos += decode_group(&src, out, width);
        }
        Ok(())
    }
}

/// One group of 16 deltas of `bits` bits from `src` (the next 24 bytes of the stream,
/// zero-padded to 32); returns the bytes it takes.
#[inline]
fn decode_group(src: &[u8; 32], out: &mut [u8], bits: u8) -> usize {
    match bits {
        0 => {
            out.fill(0);
            0
        }
        8 => {
            for (o, &s) in out.iter_mut().zip(src.iter()) {
                *o = s;
            }
            GROUP
        }
        _ => {
            let per_byte = 8 / usize::from(bits);
            let sentinel = (1u8 << bits) - 1;
            let mut var = GROUP / per_byte;
            for (i, o) in out.iter_mut().enumerate() {
                let byte = src[(i / per_byte) & 31];
                let enc = if bits == 1 {
                    // 1-bit groups are stored with their bits reversed
                    (byte >> (i % 8)) & 1
                } else {
                    (byte >> (8 - usize::from(bits) * (i % per_byte + 1))) & sentinel
                };
                if enc == sentinel {
                    *o = src[var & 31];
                    var += 1;
                } else {
                    *o = enc;
                }
            }
            var
        }
    }
}
