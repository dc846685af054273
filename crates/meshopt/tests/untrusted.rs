//! The decoders on untrusted bytes: random, truncated and mutated streams never panic
//! (a panic fails the test), every strict prefix of a valid stream is refused, and huge
//! counts are refused before any work.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_meshopt::{
    DecodeError, Filter, Mode, decode_filter_exp, decode_filter_oct, decode_filter_quat,
    decode_gltf_buffer, decode_index_buffer, decode_index_sequence, decode_vertex_buffer,
    encode_index_buffer, encode_index_sequence, encode_vertex_buffer,
};
use proptest::prelude::*;

const MODES: [Mode; 3] = [Mode::Attributes, Mode::Triangles, Mode::Indices];
const FILTERS: [Filter; 4] = [
    Filter::None,
    Filter::Octahedral,
    Filter::Quaternion,
    Filter::Exponential,
];

/// Every decoder on `bytes`, for `count` elements at `stride` (results ignored: only a
/// panic fails).
fn decode_all(bytes: &[u8], count: usize, stride: usize) {
    let mut out = vec![0u8; count * stride];
    let _ = decode_vertex_buffer(&mut out, count, stride, bytes);
    let mut indices = vec![0u32; count];
    let _ = decode_index_sequence(&mut indices, bytes);
    let mut tris = vec![0u32; count / 3 * 3];
    let _ = decode_index_buffer(&mut tris, bytes);
    for mode in MODES {
        for filter in FILTERS {
            let _ = decode_gltf_buffer(&mut out, count, stride, bytes, mode, filter);
        }
    }
    let mut raw = bytes.to_vec();
    let n = raw.len() / 8;
    raw.truncate(n * 8);
    let _ = decode_filter_oct(&mut raw, n * 2, 4);
    let _ = decode_filter_oct(&mut raw, n, 8);
    let _ = decode_filter_quat(&mut raw, n, 8);
    let _ = decode_filter_exp(&mut raw, n, 8);
}

fn valid_streams(seed: u8, count: usize, stride: usize) -> Vec<(Mode, Vec<u8>)> {
    let data: Vec<u8> = (0..count * stride)
        .map(|i| (i as u8).wrapping_mul(seed) / 7)
        .collect();
    let tris: Vec<u32> = (0..count as u32 / 3 * 3)
        .map(|i| (i / 2 + u32::from(seed) * (i % 3)) % 300)
        .collect();
    let seq: Vec<u32> = (0..count as u32).map(|i| i * 3 % 101).collect();
    vec![
        (
            Mode::Attributes,
            encode_vertex_buffer(&data, count, stride).unwrap(),
        ),
        (Mode::Triangles, encode_index_buffer(&tris).unwrap()),
        (Mode::Indices, encode_index_sequence(&seq)),
    ]
}

proptest! {
    #[test]
    fn random_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..4000),
        header in prop::sample::select(vec![None, Some(0xa0u8), Some(0xa1), Some(0xe0), Some(0xe1), Some(0xd1)]),
        count in 0usize..700,
        stride4 in 1usize..=16,
    ) {
        let mut bytes = bytes;
        if let (Some(h), Some(first)) = (header, bytes.first_mut()) {
            *first = h;
        }
        decode_all(&bytes, count, stride4 * 4);
        decode_all(&bytes, count, 2);
    }

    #[test]
    fn mutated_streams(
        seed in 1u8..=255,
        count in 0usize..600,
        stride4 in 1usize..=8,
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let stride = stride4 * 4;
        for (_, stream) in valid_streams(seed, count, stride) {
            let mut stream = stream;
            for (at, value) in &flips {
                let i = at.index(stream.len());
                stream[i] = *value;
            }
            decode_all(&stream, count, stride);
        }
    }

    #[test]
    fn truncated_streams_are_refused(seed in 1u8..=255, count in 0usize..300, stride4 in 1usize..=8) {
        let stride = stride4 * 4;
        for (mode, stream) in valid_streams(seed, count, stride) {
            let (n, s) = match mode {
                Mode::Attributes => (count, stride),
                Mode::Triangles => (count / 3 * 3, 4),
                Mode::Indices => (count, 4),
            };
            let mut out = vec![0u8; n * s];
            decode_gltf_buffer(&mut out, n, s, &stream, mode, Filter::None).unwrap();
            for len in 0..stream.len() {
                prop_assert!(
                    decode_gltf_buffer(&mut out, n, s, &stream[..len], mode, Filter::None).is_err(),
                    "{:?}: prefix of {} bytes of {} accepted", mode, len, stream.len()
                );
            }
            // and so is a stream with a byte too many
            let mut longer = stream.clone();
            longer.push(0);
            prop_assert!(decode_gltf_buffer(&mut out, n, s, &longer, mode, Filter::None).is_err());
        }
    }
}

#[test]
fn huge_counts_are_refused_without_work() {
    let stream = encode_vertex_buffer(&[], 0, 4).unwrap();
    assert!(matches!(
        decode_vertex_buffer(&mut [], usize::MAX / 2, 4, &stream),
        Err(DecodeError::Argument { name: "count", .. })
    ));
    assert!(matches!(
        decode_vertex_buffer(&mut [0; 16], 1 << 40, 4, &stream),
        Err(DecodeError::OutputLength { .. })
    ));
    assert!(
        decode_gltf_buffer(
            &mut [],
            usize::MAX,
            4,
            &stream,
            Mode::Triangles,
            Filter::None
        )
        .is_err()
    );
    // a million indices from a 20-byte stream: refused up front
    let mut out = vec![0u32; 1 << 20];
    assert!(decode_index_sequence(&mut out, &[0xd1; 20]).is_err());
    assert!(decode_index_buffer(&mut out[..999_999], &[0xe1; 20]).is_err());
}

#[test]
fn every_byte_value_after_each_header() {
    // small streams of a single repeated byte, every header: exercises every group
    // width, control and channel value
    for header in [0xa0u8, 0xa1, 0xe0, 0xe1, 0xd1] {
        for fill in 0..=255u8 {
            for len in [1usize, 17, 33, 40, 80, 300] {
                let mut bytes = vec![fill; len];
                bytes[0] = header;
                for count in [0usize, 1, 3, 16, 17, 48] {
                    decode_all(&bytes, count, 4);
                    decode_all(&bytes, count, 16);
                }
            }
        }
    }
}
