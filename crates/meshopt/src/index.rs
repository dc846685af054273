//! Mode 1, `TRIANGLES`, and mode 2, `INDICES`: the index codecs.
//!
//! `TRIANGLES` (header `0xe1`; version 0, `0xe0`, is also read) codes each triangle in
//! one byte against a 16-entry FIFO of recent edges and one of recent vertices, with
//! extra bytes (varint deltas to the last explicit index) for the rest, and ends with a
//! 16-byte `codeaux` table. `INDICES` (header `0xd1`) stores each index as a varint
//! zigzag delta to one of two baselines. Appendix A of the EXT_meshopt_compression spec
//! defines both.
//!
//! [`encode_index_buffer`] makes the choices of meshoptimizer's
//! `meshopt_encodeIndexBuffer` (version 1, its fixed `codeaux` table) and
//! [`encode_index_sequence`] those of `meshopt_encodeIndexSequence` (switch baselines
//! when the delta reaches 30), so the output is byte-identical to meshoptimizer's. The
//! decoders accept exactly the streams `meshopt_decodeIndexBuffer` and
//! `meshopt_decodeIndexSequence` accept, and never panic or allocate.

use crate::error::{DecodeError, EncodeError};

const INDEX_HEADER: u8 = 0xe0;
const SEQUENCE_HEADER: u8 = 0xd0;
const ENCODE_VERSION: u8 = 1;
const MAX_VERSION: u8 = 1;

/// meshoptimizer's `kCodeAuxEncodingTable`: the (vertex FIFO) pairs a one-byte code can
/// name, written at the end of every triangle stream.
const CODEAUX_TABLE: [u8; 16] = [
    0x00, 0x76, 0x87, 0x56, 0x67, 0x78, 0xa9, 0x86, 0x65, 0x89, 0x68, 0x98, 0x01, 0x69, 0, 0,
];

/// The edge and vertex FIFOs both sides keep; unset entries hold `u32::MAX`.
struct Fifos {
    edges: [[u32; 2]; 16],
    edge_at: usize,
    vertices: [u32; 16],
    vertex_at: usize,
}

impl Fifos {
    fn new() -> Fifos {
        Fifos {
            edges: [[u32::MAX; 2]; 16],
            edge_at: 0,
            vertices: [u32::MAX; 16],
            vertex_at: 0,
        }
    }

    /// The edge `back` entries before the most recent (0 is the most recent).
    #[inline]
    fn edge(&self, back: usize) -> [u32; 2] {
        self.edges[self.edge_at.wrapping_sub(1 + back) & 15]
    }

    /// The vertex `back` entries before the next slot (1 is the most recent).
    #[inline]
    fn vertex(&self, back: usize) -> u32 {
        self.vertices[self.vertex_at.wrapping_sub(back) & 15]
    }

    #[inline]
    fn push_edge(&mut self, a: u32, b: u32) {
        self.edges[self.edge_at & 15] = [a, b];
        self.edge_at = (self.edge_at + 1) & 15;
    }

    /// Writes `v` at the next slot and advances only when `advance` (as the reference
    /// decoder does; the slot is never read before it is written again).
    #[inline]
    fn push_vertex(&mut self, v: u32, advance: bool) {
        self.vertices[self.vertex_at & 15] = v;
        self.vertex_at = (self.vertex_at + usize::from(advance)) & 15;
    }

    /// Which of the 15 most recent edges the triangle has, and how to rotate it so that
    /// (a, b) is that edge.
    fn find_edge(&self, a: u32, b: u32, c: u32) -> Option<(usize, usize)> {
        (0..16).find_map(|i| {
            let [e0, e1] = self.edge(i);
            if e0 == a && e1 == b {
                Some((i, 0))
            } else if e0 == b && e1 == c {
                Some((i, 1))
            } else if e0 == c && e1 == a {
                Some((i, 2))
            } else {
                None
            }
        })
    }

    /// How far back `v` is in the vertex FIFO (0 is the most recent).
    fn find_vertex(&self, v: u32) -> Option<usize> {
        (0..16).find(|&i| self.vertex(i + 1) == v)
    }
}

fn push_varint(data: &mut Vec<u8>, mut v: u32) {
    loop {
        let more = v > 127;
        data.push((v & 127) as u8 | if more { 128 } else { 0 });
        v >>= 7;
        if !more {
            break;
        }
    }
}

/// The zigzag delta of `index` to `last`, as a varint.
fn push_index(data: &mut Vec<u8>, index: u32, last: u32) {
    let d = index.wrapping_sub(last);
    push_varint(data, (d << 1) ^ ((d as i32) >> 31) as u32);
}

/// Encodes a triangle list with the EXT_meshopt_compression `TRIANGLES` codec (header
/// `0xe1`). Any `u32` values round-trip, triangle by triangle with the same winding,
/// but a triangle may come back rotated (`b, c, a` or `c, a, b` for `a, b, c`), as with
/// meshoptimizer. The codec is smallest when the triangles are ordered for vertex cache
/// locality and the vertices in order of first use.
///
/// # Errors
///
/// [`EncodeError::Argument`] when `indices.len()` is not a multiple of 3.
///
/// ```
/// use meshfmt_meshopt::{decode_index_buffer, encode_index_buffer};
///
/// // a 2 x 2 quad grid
/// let indices = [0, 1, 3, 1, 4, 3, 1, 2, 4, 2, 5, 4, 3, 4, 6, 4, 7, 6, 4, 5, 7, 5, 8, 7];
/// let encoded = encode_index_buffer(&indices)?;
/// assert_eq!(encoded[0], 0xe1);
///
/// let mut decoded = [0u32; 24];
/// decode_index_buffer(&mut decoded, &encoded)?;
/// // the same triangles, each possibly rotated
/// let canonical = |t: &[u32]| {
///     let r = (0..3).min_by_key(|&r| t[r]).unwrap_or(0);
///     [t[r], t[(r + 1) % 3], t[(r + 2) % 3]]
/// };
/// for (d, i) in decoded.chunks(3).zip(indices.chunks(3)) {
///     assert_eq!(canonical(d), canonical(i));
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn encode_index_buffer(indices: &[u32]) -> Result<Vec<u8>, EncodeError> {
    if indices.len() % 3 != 0 {
        return Err(EncodeError::Argument {
            name: "index count",
            value: indices.len(),
            requirement: "the triangle codec needs a multiple of 3",
        });
    }
    let triangles = indices.len() / 3;
    let fecmax = 13;

    let mut code = Vec::with_capacity(1 + triangles + triangles / 4 + 16);
    let mut data = Vec::with_capacity(triangles / 4);
    code.push(INDEX_HEADER | ENCODE_VERSION);

    let mut fifo = Fifos::new();
    let mut next = 0u32;
    let mut last = 0u32;

    for triangle in indices.chunks_exact(3) {
        let &[i0, i1, i2] = triangle else {
            continue;
        };
        let rotate = |r: usize| match r {
            1 => (i1, i2, i0),
            2 => (i2, i0, i1),
            _ => (i0, i1, i2),
        };

        match fifo.find_edge(i0, i1, i2) {
            Some((fe, rotation)) if fe < 15 => {
                let (a, b, c) = rotate(rotation);

                let mut fec = match fifo.find_vertex(c) {
                    Some(fc) if (1..fecmax).contains(&fc) => fc,
                    _ if c == next => {
                        next = next.wrapping_add(1);
                        0
                    }
                    _ => 15,
                };
                if fec == 15 {
                    // last-1 and last+1 as their own codes, for strip-like runs
                    if c.wrapping_add(1) == last {
                        fec = 13;
                        last = c;
                    }
                    if c == last.wrapping_add(1) {
                        fec = 14;
                        last = c;
                    }
                }

                code.push(((fe << 4) | fec) as u8);
                if fec == 15 {
                    push_index(&mut data, c, last);
                    last = c;
                }
                if fec == 0 || fec >= fecmax {
                    fifo.push_vertex(c, true);
                }
                fifo.push_edge(c, b);
                fifo.push_edge(a, c);
            }
            _ => {
                let rotation = if i1 == next {
                    1
                } else if i2 == next {
                    2
                } else {
                    0
                };
                let (a, b, c) = rotate(rotation);

                // 0, 1, 2 after the start restarts `next` (concatenated meshes)
                let reset = a == 0 && b == 1 && c == 2 && next > 0;
                if reset {
                    next = 0;
                    fifo.vertices = [u32::MAX; 16];
                }

                let fb = fifo.find_vertex(b);
                let fc = fifo.find_vertex(c);

                let mut fresh = |v: u32, found: Option<usize>| match found {
                    Some(f) if f < 14 => f + 1,
                    _ if v == next => {
                        next = next.wrapping_add(1);
                        0
                    }
                    _ => 15,
                };
                let fea = fresh(a, None);
                let feb = fresh(b, fb);
                let fec = fresh(c, fc);

                let codeaux = ((feb << 4) | fec) as u8;
                let table_index = CODEAUX_TABLE.iter().position(|&t| t == codeaux);
                match table_index {
                    Some(i) if fea == 0 && i < 14 && !reset => code.push(0xf0 | i as u8),
                    _ => {
                        code.push(0xf0 | 14 | fea as u8);
                        data.push(codeaux);
                    }
                }

                if fea == 15 {
                    push_index(&mut data, a, last);
                    last = a;
                }
                if feb == 15 {
                    push_index(&mut data, b, last);
                    last = b;
                }
                if fec == 15 {
                    push_index(&mut data, c, last);
                    last = c;
                }

                fifo.push_vertex(a, true);
                if feb == 0 || feb == 15 {
                    fifo.push_vertex(b, true);
                }
                if fec == 0 || fec == 15 {
                    fifo.push_vertex(c, true);
                }
                fifo.push_edge(b, a);
                fifo.push_edge(c, b);
                fifo.push_edge(a, c);
            }
        }
    }

    code.extend_from_slice(&data);
    code.extend_from_slice(&CODEAUX_TABLE);
    Ok(code)
}

/// Where decoded indices go: `u32`s, or little-endian bytes of 2 or 4 per index.
pub(crate) trait IndexSink {
    /// How many indices it holds.
    fn count(&self) -> usize;
    /// Stores index `i` (in range by construction; out of range is ignored).
    fn put(&mut self, i: usize, v: u32);
}

impl IndexSink for [u32] {
    fn count(&self) -> usize {
        self.len()
    }
    #[inline]
    fn put(&mut self, i: usize, v: u32) {
        if let Some(o) = self.get_mut(i) {
            *o = v;
        }
    }
}

/// Indices as little-endian `u16` bytes (truncated, as glTF's 2-byte indices are).
pub(crate) struct U16Bytes<'a>(pub(crate) &'a mut [u8]);

impl IndexSink for U16Bytes<'_> {
    fn count(&self) -> usize {
        self.0.len() / 2
    }
    #[inline]
    fn put(&mut self, i: usize, v: u32) {
        if let Some(o) = self.0.get_mut(i * 2..i * 2 + 2) {
            o.copy_from_slice(&(v as u16).to_le_bytes());
        }
    }
}

/// Indices as little-endian `u32` bytes.
pub(crate) struct U32Bytes<'a>(pub(crate) &'a mut [u8]);

impl IndexSink for U32Bytes<'_> {
    fn count(&self) -> usize {
        self.0.len() / 4
    }
    #[inline]
    fn put(&mut self, i: usize, v: u32) {
        if let Some(o) = self.0.get_mut(i * 4..i * 4 + 4) {
            o.copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// A read position in an index stream.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    #[inline]
    fn byte(&mut self, reading: &'static str) -> Result<u8, DecodeError> {
        let b = self
            .bytes
            .get(self.pos)
            .copied()
            .ok_or(DecodeError::Truncated {
                offset: self.pos,
                reading,
            })?;
        self.pos += 1;
        Ok(b)
    }

    /// A varint of up to 5 bytes (as the reference reads it: the fifth byte's high bit
    /// does not continue).
    #[inline]
    fn varint(&mut self) -> Result<u32, DecodeError> {
        let lead = self.byte("varint")?;
        if lead < 128 {
            return Ok(u32::from(lead));
        }
        let mut result = u32::from(lead & 127);
        let mut shift = 7;
        for _ in 0..4 {
            let group = self.byte("varint")?;
            result |= u32::from(group & 127) << shift;
            shift += 7;
            if group < 128 {
                break;
            }
        }
        Ok(result)
    }

    /// A zigzag delta to `last`.
    #[inline]
    fn index(&mut self, last: u32) -> Result<u32, DecodeError> {
        let v = self.varint()?;
        Ok(last.wrapping_add((v >> 1) ^ (v & 1).wrapping_neg()))
    }
}

/// Checks the header byte of an index stream: `Ok(version)`.
fn header(encoded: &[u8], expected: u8) -> Result<u8, DecodeError> {
    let &h = encoded.first().ok_or(DecodeError::Truncated {
        offset: 0,
        reading: "header byte",
    })?;
    if h & 0xf0 != expected {
        return Err(DecodeError::BadHeader { found: h, expected });
    }
    if h & 0x0f > MAX_VERSION {
        return Err(DecodeError::UnsupportedVersion { found: h });
    }
    Ok(h & 0x0f)
}

/// Decodes a `TRIANGLES` stream (version 1, `0xe1`, or 0, `0xe0`) into `out`, whose
/// length is the index count (a multiple of 3). `encoded` must be exactly the stream:
/// its `codeaux` table is found from its end.
///
/// Never panics and allocates nothing, whatever `encoded` holds.
///
/// # Errors
///
/// [`DecodeError::Argument`] when `out.len()` is not a multiple of 3; the other
/// variants when `encoded` is not a valid stream of that many indices.
///
/// ```
/// use meshfmt_meshopt::{decode_index_buffer, encode_index_buffer};
///
/// let indices = [0, 1, 2, 2, 1, 3, 7, 7, 7];
/// let encoded = encode_index_buffer(&indices)?;
/// let mut decoded = [0u32; 9];
/// decode_index_buffer(&mut decoded, &encoded)?;
/// assert_eq!(decoded, [0, 1, 2, 2, 1, 3, 7, 7, 7]);
/// // a stream cut short is refused
/// assert!(decode_index_buffer(&mut decoded, &encoded[..encoded.len() - 1]).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decode_index_buffer(out: &mut [u32], encoded: &[u8]) -> Result<(), DecodeError> {
    decode_triangles(out, encoded)
}

pub(crate) fn decode_triangles<S: IndexSink + ?Sized>(
    out: &mut S,
    encoded: &[u8],
) -> Result<(), DecodeError> {
    let count = out.count();
    if count % 3 != 0 {
        return Err(DecodeError::Argument {
            name: "index count",
            value: count,
            requirement: "the triangle codec needs a multiple of 3",
        });
    }
    let triangles = count / 3;
    if encoded.len() < 1 + triangles + 16 {
        return Err(DecodeError::Truncated {
            offset: 0,
            reading: "triangle codes and codeaux table",
        });
    }
    let version = header(encoded, INDEX_HEADER)?;
    let fecmax = if version >= 1 { 13 } else { 15 };

    let codes = encoded.get(1..1 + triangles).unwrap_or_default();
    // every triangle's extra data starts before the table, and takes at most 16 bytes
    let safe_end = encoded.len() - 16;
    let mut table = [0u8; 16];
    for (t, &b) in table.iter_mut().zip(encoded.iter().skip(safe_end)) {
        *t = b;
    }
    let mut data = Cursor {
        bytes: encoded,
        pos: 1 + triangles,
    };
    let check_room = |data: &Cursor<'_>| {
        if data.pos > safe_end {
            Err(DecodeError::Truncated {
                offset: data.pos,
                reading: "triangle data",
            })
        } else {
            Ok(())
        }
    };

    let mut fifo = Fifos::new();
    let mut next = 0u32;
    let mut last = 0u32;

    for (t, &code) in codes.iter().enumerate() {
        let (a, b, c);
        if code < 0xf0 {
            let fe = usize::from(code >> 4);
            [a, b] = fifo.edge(fe);
            let fec = code & 15;
            if fec < fecmax {
                let fresh = fec == 0;
                c = if fresh {
                    next
                } else {
                    fifo.vertex(usize::from(fec) + 1)
                };
                next = next.wrapping_add(u32::from(fresh));
                fifo.push_vertex(c, fresh);
            } else {
                check_room(&data)?;
                c = if fec == 13 {
                    last.wrapping_sub(1)
                } else if fec == 14 {
                    last.wrapping_add(1)
                } else {
                    data.index(last)?
                };
                last = c;
                fifo.push_vertex(c, true);
            }
            fifo.push_edge(c, b);
            fifo.push_edge(a, c);
        } else if code < 0xfe {
            let codeaux = table[usize::from(code & 15)];
            let feb = codeaux >> 4;
            let fec = codeaux & 15;

            a = next;
            next = next.wrapping_add(1);
            b = if feb == 0 {
                next
            } else {
                fifo.vertex(usize::from(feb))
            };
            next = next.wrapping_add(u32::from(feb == 0));
            c = if fec == 0 {
                next
            } else {
                fifo.vertex(usize::from(fec))
            };
            next = next.wrapping_add(u32::from(fec == 0));

            fifo.push_vertex(a, true);
            fifo.push_vertex(b, feb == 0);
            fifo.push_vertex(c, fec == 0);
            fifo.push_edge(b, a);
            fifo.push_edge(c, b);
            fifo.push_edge(a, c);
        } else {
            check_room(&data)?;
            let codeaux = data.byte("codeaux byte")?;
            let fea = if code == 0xfe { 0 } else { 15 };
            let feb = codeaux >> 4;
            let fec = codeaux & 15;
            if codeaux == 0 {
                next = 0;
            }

            let mut take = |fe: u8, fifo: &Fifos| {
                if fe == 0 {
                    let v = next;
                    next = next.wrapping_add(1);
                    v
                } else {
                    fifo.vertex(usize::from(fe))
                }
            };
            let mut va = if fea == 0 { take(0, &fifo) } else { 0 };
            let mut vb = take(feb, &fifo);
            let mut vc = take(fec, &fifo);
            if fea == 15 {
                va = data.index(last)?;
                last = va;
            }
            if feb == 15 {
                vb = data.index(last)?;
                last = vb;
            }
            if fec == 15 {
                vc = data.index(last)?;
                last = vc;
            }
            (a, b, c) = (va, vb, vc);

            fifo.push_vertex(a, true);
            fifo.push_vertex(b, feb == 0 || feb == 15);
            fifo.push_vertex(c, fec == 0 || fec == 15);
            fifo.push_edge(b, a);
            fifo.push_edge(c, b);
            fifo.push_edge(a, c);
        }
        out.put(t * 3, a);
        out.put(t * 3 + 1, b);
        out.put(t * 3 + 2, c);
    }

    if data.pos != safe_end {
        return Err(DecodeError::TrailingBytes {
            offset: data.pos,
            tail: safe_end,
        });
    }
    Ok(())
}

/// Encodes a sequence of indices of any topology (strips, lines, points, sparse
/// accessor indices) with the EXT_meshopt_compression `INDICES` codec (header `0xd1`).
///
/// The codec stores each index as a delta of at most ±2^30 to one of two baselines, so
/// the sequence round-trips exactly when consecutive indices of each baseline differ by
/// less than 2^30, which holds whenever every index is below 2^30 (as in any real
/// mesh); a larger jump is stored modulo 2^31 (as meshoptimizer does).
///
/// ```
/// use meshfmt_meshopt::{decode_index_sequence, encode_index_sequence};
///
/// let strip = [0, 1, 2, 3, 4, 5, 100, 6, 101, 7];
/// let encoded = encode_index_sequence(&strip);
/// assert_eq!(encoded[0], 0xd1);
/// let mut decoded = [0u32; 10];
/// decode_index_sequence(&mut decoded, &encoded)?;
/// assert_eq!(decoded, strip);
/// # Ok::<(), meshfmt_meshopt::DecodeError>(())
/// ```
pub fn encode_index_sequence(indices: &[u32]) -> Vec<u8> {
    let mut data = Vec::with_capacity(1 + indices.len() + indices.len() / 8 + 4);
    data.push(SEQUENCE_HEADER | ENCODE_VERSION);

    let mut last = [0u32; 2];
    let mut current = 0usize;
    for &index in indices {
        // switch baselines as soon as the delta does not fit in a byte with the sign
        // and baseline bits (a delta of exactly 2^31 counts as large, as in the
        // reference build)
        let cd = index.wrapping_sub(last[current & 1]) as i32;
        current ^= usize::from(cd.unsigned_abs() >= 30);

        let d = index.wrapping_sub(last[current & 1]);
        let v = (d << 1) ^ ((d as i32) >> 31) as u32;
        push_varint(&mut data, (v << 1) | current as u32);
        last[current & 1] = index;
    }
    data.extend_from_slice(&[0; 4]);
    data
}

/// Decodes an `INDICES` stream (`0xd1`) into `out`, whose length is the index count.
/// `encoded` must be exactly the stream: its 4-byte tail is found from its end.
///
/// Never panics and allocates nothing, whatever `encoded` holds.
///
/// # Errors
///
/// The variants for a stream that is not a valid sequence of `out.len()` indices.
///
/// ```
/// use meshfmt_meshopt::{decode_index_sequence, encode_index_sequence};
///
/// let lines = [0, 1, 1, 2, 2, 3, 3, 0];
/// let encoded = encode_index_sequence(&lines);
/// let mut decoded = [0u32; 8];
/// decode_index_sequence(&mut decoded, &encoded)?;
/// assert_eq!(decoded, lines);
/// assert!(decode_index_sequence(&mut decoded, &encoded[1..]).is_err());
/// # Ok::<(), meshfmt_meshopt::DecodeError>(())
/// ```
pub fn decode_index_sequence(out: &mut [u32], encoded: &[u8]) -> Result<(), DecodeError> {
    decode_sequence(out, encoded)
}

pub(crate) fn decode_sequence<S: IndexSink + ?Sized>(
    out: &mut S,
    encoded: &[u8],
) -> Result<(), DecodeError> {
    let count = out.count();
    if encoded.len() < count.saturating_add(5) {
        return Err(DecodeError::Truncated {
            offset: 0,
            reading: "index deltas and tail",
        });
    }
    header(encoded, SEQUENCE_HEADER)?;

    let safe_end = encoded.len() - 4;
    let mut data = Cursor {
        bytes: encoded,
        pos: 1,
    };
    let mut last = [0u32; 2];
    for i in 0..count {
        if data.pos >= safe_end {
            return Err(DecodeError::Truncated {
                offset: data.pos,
                reading: "index delta",
            });
        }
        let v = data.varint()?;
        let current = (v & 1) as usize;
        let v = v >> 1;
        let index = last[current & 1].wrapping_add((v >> 1) ^ (v & 1).wrapping_neg());
        last[current & 1] = index;
        out.put(i, index);
    }

    if data.pos != safe_end {
        return Err(DecodeError::TrailingBytes {
            offset: data.pos,
            tail: safe_end,
        });
    }
    Ok(())
}
