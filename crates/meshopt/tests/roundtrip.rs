//! Encode-then-decode gives the input back: vertex buffers at strides 4..=64 and counts
//! 0..=600 (across block and group boundaries), triangle lists (including degenerate
//! triangles; each triangle may come back rotated), index sequences, the glTF entry
//! point, and the filters (within their precision).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_meshopt::{
    DecodeError, EncodeError, ExpMode, Filter, Mode, decode_filter_exp, decode_filter_oct,
    decode_filter_quat, decode_gltf_buffer, decode_index_buffer, decode_index_sequence,
    decode_vertex_buffer, encode_filter_exp, encode_filter_oct, encode_filter_quat,
    encode_index_buffer, encode_index_sequence, encode_vertex_buffer, encoded_vertex_bound,
};
use proptest::prelude::*;

/// splitmix64, for data derived from a proptest seed.
fn rng(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *seed;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `count * stride` bytes: random (`spread` 255), or a walk whose bytes change by at
/// most `spread` from one element to the next (all the group widths), or constant.
fn vertex_data(count: usize, stride: usize, spread: u8, mut seed: u64) -> Vec<u8> {
    let mut data = vec![0u8; count * stride];
    let mut value = [0u8; 64];
    for element in data.chunks_mut(stride) {
        for (b, v) in element.iter_mut().zip(value.iter_mut()) {
            let r = rng(&mut seed) as u8;
            *v = if spread == 255 {
                r
            } else {
                v.wrapping_add(r % (spread + 1)).wrapping_sub(spread / 2)
            };
            *b = *v;
        }
    }
    data
}

fn canonical(tris: &[u32]) -> Vec<[u32; 3]> {
    tris.chunks(3)
        .map(|t| {
            (0..3)
                .map(|r| [t[r], t[(r + 1) % 3], t[(r + 2) % 3]])
                .min()
                .unwrap()
        })
        .collect()
}

proptest! {
    #[test]
    fn vertex_round_trip(
        stride4 in 1usize..=16,
        count in 0usize..=600,
        spread in prop::sample::select(vec![0u8, 1, 3, 6, 14, 40, 255]),
        seed in any::<u64>(),
    ) {
        let stride = stride4 * 4;
        let data = vertex_data(count, stride, spread, seed);
        let encoded = encode_vertex_buffer(&data, count, stride).unwrap();
        prop_assert!(encoded.len() <= encoded_vertex_bound(count, stride));
        let mut decoded = vec![0xcd; data.len()];
        decode_vertex_buffer(&mut decoded, count, stride, &encoded).unwrap();
        prop_assert_eq!(&decoded, &data);

        let mut gltf = vec![0; data.len()];
        decode_gltf_buffer(&mut gltf, count, stride, &encoded, Mode::Attributes, Filter::None).unwrap();
        prop_assert_eq!(&gltf, &data);
    }

    #[test]
    fn triangle_round_trip(
        tris in prop::collection::vec((0u32..64, 0u32..64, 0u32..64), 0..400),
        base in prop::sample::select(vec![0u32, 1000, 1 << 20, u32::MAX - 100]),
        degenerate in 0u32..4,
    ) {
        let indices: Vec<u32> = tris
            .iter()
            .flat_map(|&(a, b, c)| {
                let b = if degenerate == 1 { a } else { b };
                [a, b, c].map(|i| i.wrapping_add(base))
            })
            .collect();
        let encoded = encode_index_buffer(&indices).unwrap();
        let mut decoded = vec![0; indices.len()];
        decode_index_buffer(&mut decoded, &encoded).unwrap();
        prop_assert_eq!(canonical(&decoded), canonical(&indices));
    }

    #[test]
    fn mesh_like_triangle_round_trip(n in 1u32..30, seed in any::<u64>(), swaps in 0usize..50) {
        // a grid, with some triangles swapped out of order
        let mut tris: Vec<[u32; 3]> = Vec::new();
        for y in 0..n {
            for x in 0..n {
                let v = y * (n + 1) + x;
                tris.push([v, v + 1, v + n + 1]);
                tris.push([v + 1, v + n + 2, v + n + 1]);
            }
        }
        let mut seed = seed;
        for _ in 0..swaps {
            let i = rng(&mut seed) as usize % tris.len();
            let j = rng(&mut seed) as usize % tris.len();
            tris.swap(i, j);
        }
        let indices: Vec<u32> = tris.concat();
        let encoded = encode_index_buffer(&indices).unwrap();
        let mut decoded = vec![0; indices.len()];
        decode_index_buffer(&mut decoded, &encoded).unwrap();
        prop_assert_eq!(canonical(&decoded), canonical(&indices));

        // through the glTF entry point as u16 and u32 bytes
        for size in [2usize, 4] {
            let mut bytes = vec![0; indices.len() * size];
            decode_gltf_buffer(&mut bytes, indices.len(), size, &encoded, Mode::Triangles, Filter::None).unwrap();
            let values: Vec<u32> = if size == 2 {
                bytes.chunks(2).map(|c| u32::from(u16::from_le_bytes([c[0], c[1]]))).collect()
            } else {
                bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
            };
            prop_assert_eq!(&values, &decoded);
        }
    }

    #[test]
    fn sequence_round_trip(values in prop::collection::vec(0u32..(1 << 30), 0..600), small in any::<bool>()) {
        let values: Vec<u32> = if small { values.iter().map(|v| v % 300).collect() } else { values };
        let encoded = encode_index_sequence(&values);
        let mut decoded = vec![0; values.len()];
        decode_index_sequence(&mut decoded, &encoded).unwrap();
        prop_assert_eq!(&decoded, &values);

        let mut bytes = vec![0; values.len() * 4];
        decode_gltf_buffer(&mut bytes, values.len(), 4, &encoded, Mode::Indices, Filter::None).unwrap();
        let from_bytes: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        prop_assert_eq!(&from_bytes, &values);
    }

    #[test]
    fn oct_round_trip(
        v in prop::collection::vec((-1f32..1.0, -1f32..1.0, -1f32..1.0), 1..100),
        bits in 4u32..=16,
    ) {
        for stride in [4usize, 8] {
            let bits = if stride == 4 { bits.min(8) } else { bits };
            let floats: Vec<f32> = v
                .iter()
                .flat_map(|&(x, y, z)| {
                    let l = (x * x + y * y + z * z).sqrt().max(1e-3);
                    [x / l, y / l, z / l, 1.0]
                })
                .collect();
            let count = v.len();
            let mut bytes = encode_filter_oct(&floats, count, stride, bits).unwrap();
            decode_filter_oct(&mut bytes, count, stride).unwrap();
            let (max, decoded): (f32, Vec<f32>) = if stride == 4 {
                (127.0, bytes.iter().map(|&b| f32::from(b as i8)).collect())
            } else {
                (32767.0, bytes.chunks(2).map(|c| f32::from(i16::from_le_bytes([c[0], c[1]]))).collect())
            };
            // octahedral error at K bits, plus the output quantization
            let tolerance = 4.0 / ((1u32 << (bits - 1)) - 1) as f32 + 2.0 / max;
            for (d, f) in decoded.chunks(4).zip(floats.chunks(4)) {
                if f[0] * f[0] + f[1] * f[1] + f[2] * f[2] < 0.5 {
                    continue;
                }
                for k in 0..3 {
                    prop_assert!((d[k] / max - f[k]).abs() <= tolerance, "{:?} vs {:?} ({} bits)", d, f, bits);
                }
                prop_assert_eq!(d[3], max);
            }
        }
    }

    #[test]
    fn quat_round_trip(
        q in prop::collection::vec((-1f32..1.0, -1f32..1.0, -1f32..1.0, -1f32..1.0), 1..100),
        bits in 4u32..=16,
    ) {
        let floats: Vec<f32> = q
            .iter()
            .flat_map(|&(x, y, z, w)| {
                let l = (x * x + y * y + z * z + w * w).sqrt().max(1e-3);
                [x / l, y / l, z / l, w / l]
            })
            .collect();
        let count = q.len();
        let mut bytes = encode_filter_quat(&floats, count, 8, bits).unwrap();
        decode_filter_quat(&mut bytes, count, 8).unwrap();
        let tolerance = 3.0 / ((1u32 << (bits - 1)) - 1) as f32 + 2.0 / 32767.0;
        for (d, f) in bytes.chunks(8).zip(floats.chunks(4)) {
            let d: Vec<f32> = d.chunks(2).map(|c| f32::from(i16::from_le_bytes([c[0], c[1]])) / 32767.0).collect();
            if f.iter().map(|c| c * c).sum::<f32>() < 0.5 {
                continue;
            }
            // q and -q are the same rotation
            let dot: f32 = d.iter().zip(f).map(|(a, b)| a * b).sum();
            let sign = if dot < 0.0 { -1.0 } else { 1.0 };
            for k in 0..4 {
                prop_assert!((d[k] * sign - f[k]).abs() <= tolerance, "{:?} vs {:?} ({} bits)", d, f, bits);
            }
        }
    }

    #[test]
    fn exp_round_trip(
        values in prop::collection::vec((-1f32..1.0, -60i32..60), 1..200),
        stride4 in 1usize..=4,
        mode in prop::sample::select(vec![ExpMode::Separate, ExpMode::SharedVector, ExpMode::SharedComponent]),
        bits in 1u32..=24,
    ) {
        let stride = stride4 * 4;
        let floats: Vec<f32> = values.iter().map(|&(m, e)| m * 2f32.powi(e)).collect();
        let count = floats.len() / stride4;
        let floats = &floats[..count * stride4];
        let mut bytes = encode_filter_exp(floats, count, stride, bits, mode).unwrap();
        decode_filter_exp(&mut bytes, count, stride).unwrap();
        let decoded: Vec<f32> = bytes.chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        for (e, (d, f)) in decoded.chunks(stride4).zip(floats.chunks(stride4)).enumerate() {
            // the error is half a unit of the K-bit mantissa at the exponent used
            let vector_max = f.iter().fold(0f32, |m, v| m.max(v.abs()));
            for (k, (&dv, &fv)) in d.iter().zip(f).enumerate() {
                let reference = match mode {
                    ExpMode::SharedComponent => floats
                        .chunks(stride4)
                        .fold(0f32, |m, v| m.max(v[k].abs())),
                    ExpMode::SharedVector => vector_max,
                    _ => fv.abs(),
                };
                let tolerance = reference * 2f32.powi(1 - bits as i32) + f32::MIN_POSITIVE;
                prop_assert!((dv - fv).abs() <= tolerance, "element {} {:?} vs {:?}", e, d, f);
            }
        }
    }
}

#[test]
fn vertex_arguments_are_checked() {
    for stride in [0, 2, 6, 260, 512] {
        assert!(matches!(
            encode_vertex_buffer(&[], 0, stride),
            Err(EncodeError::Argument { name: "stride", .. })
        ));
        assert!(matches!(
            decode_vertex_buffer(&mut [], 0, stride, &[0xa0; 40]),
            Err(DecodeError::Argument { name: "stride", .. })
        ));
    }
    assert!(matches!(
        encode_vertex_buffer(&[0; 7], 2, 4),
        Err(EncodeError::InputLength {
            expected: 8,
            found: 7
        })
    ));
    assert!(matches!(
        encode_vertex_buffer(&[], usize::MAX / 2, 8),
        Err(EncodeError::Argument { name: "count", .. })
    ));
    assert!(matches!(
        decode_vertex_buffer(&mut [0; 8], 3, 4, &[0xa0; 40]),
        Err(DecodeError::OutputLength {
            expected: 12,
            found: 8
        })
    ));
    assert!(matches!(
        encode_index_buffer(&[0, 1]),
        Err(EncodeError::Argument {
            name: "index count",
            ..
        })
    ));
    assert!(matches!(
        decode_index_buffer(&mut [0; 4], &encode_index_buffer(&[]).unwrap()),
        Err(DecodeError::Argument { .. })
    ));
    assert!(encode_filter_oct(&[0.0; 4], 1, 4, 9).is_err());
    assert!(encode_filter_oct(&[0.0; 4], 1, 12, 8).is_err());
    assert!(encode_filter_quat(&[0.0; 4], 1, 8, 3).is_err());
    assert!(encode_filter_exp(&[0.0; 4], 1, 16, 25, ExpMode::Separate).is_err());
    assert!(encode_filter_exp(&[0.0; 3], 1, 16, 20, ExpMode::Separate).is_err());
    assert!(decode_filter_quat(&mut [0; 8], 1, 4).is_err());
    assert!(decode_filter_exp(&mut [0; 8], 1, 6).is_err());
    let seq = encode_index_sequence(&[1, 2, 3]);
    assert!(matches!(
        decode_gltf_buffer(&mut [0; 6], 3, 2, &seq, Mode::Indices, Filter::Octahedral),
        Err(DecodeError::Argument { name: "filter", .. })
    ));
    assert!(matches!(
        decode_gltf_buffer(&mut [0; 9], 3, 3, &seq, Mode::Indices, Filter::None),
        Err(DecodeError::Argument { name: "stride", .. })
    ));
    let mut out = [0; 6];
    decode_gltf_buffer(&mut out, 3, 2, &seq, Mode::Indices, Filter::None).unwrap();
    assert_eq!(out, [1, 0, 2, 0, 3, 0]);
}

#[test]
fn empty_buffers_have_the_minimal_encodings() {
    let v = encode_vertex_buffer(&[], 0, 12).unwrap();
    assert_eq!(v.len(), 1 + 32);
    decode_vertex_buffer(&mut [], 0, 12, &v).unwrap();
    let i = encode_index_buffer(&[]).unwrap();
    assert_eq!(i.len(), 1 + 16);
    decode_index_buffer(&mut [], &i).unwrap();
    let s = encode_index_sequence(&[]);
    assert_eq!(s, [0xd1, 0, 0, 0, 0]);
    decode_index_sequence(&mut [], &s).unwrap();
}

#[test]
fn errors_display_their_offset() {
    let data = vec![1u8; 64];
    let encoded = encode_vertex_buffer(&data, 16, 4).unwrap();
    let mut out = [0u8; 64];
    let err = decode_vertex_buffer(&mut out, 16, 4, &encoded[..encoded.len() - 3]).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("byte"), "{text}");
    let err = decode_vertex_buffer(&mut out, 16, 4, &[0x10; 64]).unwrap_err();
    assert_eq!(
        err,
        DecodeError::BadHeader {
            found: 0x10,
            expected: 0xa0
        }
    );
    assert_eq!(
        decode_vertex_buffer(&mut out, 16, 4, &[0xa5; 64]).unwrap_err(),
        DecodeError::UnsupportedVersion { found: 0xa5 }
    );
}
