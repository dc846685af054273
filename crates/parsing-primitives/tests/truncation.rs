//! Every primitive, truncated at every byte, fails with a positioned error and never
//! panics; the whole input decodes to the values written.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use parsing_primitives::{ErrorKind, Reader, Result, Writer};

fn encode() -> Vec<u8> {
    let mut w = Writer::new("t");
    w.bytes(b"ms11");
    w.u8(1)
        .i8(-1)
        .u16_le(2)
        .i16_le(-3)
        .u32_le(4)
        .i32_le(-5)
        .u64_le(6)
        .i64_le(-7);
    w.f32_le(0.5)
        .f64_le(0.25)
        .u16_be(8)
        .i16_be(-9)
        .u32_be(10)
        .i32_be(-11)
        .f32_be(1.5);
    w.compact_u32(8640);
    w.i32_nul_string(b"root").unwrap();
    w.compact_nul_string(b"Box01").unwrap();
    w.pascal_u8(b"HEAD").unwrap();
    w.pascal_u16_be(b"a20").unwrap();
    w.compact_u32(2);
    w.le_slice(&[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    w.be_slice(&[7u16, 8]);
    w.into_inner()
}

#[derive(Debug, PartialEq)]
struct Decoded {
    ints: Vec<i64>,
    floats: Vec<f64>,
    strings: Vec<Vec<u8>>,
    positions: Vec<[f32; 3]>,
    be: Vec<u16>,
}

fn decode(bytes: &[u8]) -> Result<Decoded> {
    let mut r = Reader::new("t", bytes);
    r.magic(b"ms11")?;
    let ints = vec![
        i64::from(r.u8()?),
        i64::from(r.i8()?),
        i64::from(r.u16_le()?),
        i64::from(r.i16_le()?),
        i64::from(r.u32_le()?),
        i64::from(r.i32_le()?),
        r.u64_le()? as i64,
        r.i64_le()?,
    ];
    let mut floats = vec![f64::from(r.f32_le()?), r.f64_le()?];
    let mut ints = ints;
    ints.push(i64::from(r.u16_be()?));
    ints.push(i64::from(r.i16_be()?));
    ints.push(i64::from(r.u32_be()?));
    ints.push(i64::from(r.i32_be()?));
    floats.push(f64::from(r.f32_be()?));
    ints.push(r.compact_int()?);
    let strings = vec![
        r.i32_nul_string(1024)?.to_vec(),
        r.compact_nul_string(1024)?.to_vec(),
        r.pascal_u8()?.to_vec(),
        r.pascal_u16_be()?.to_vec(),
    ];
    let n = r.compact_count(12)?;
    let positions = r.field("positions", |r| r.le_array(n as u64))?;
    let be = r.be_array(2)?;
    r.finish()?;
    Ok(Decoded {
        ints,
        floats,
        strings,
        positions,
        be,
    })
}

#[test]
fn full_input_decodes() {
    let d = decode(&encode()).unwrap();
    assert_eq!(d.ints, [1, -1, 2, -3, 4, -5, 6, -7, 8, -9, 10, -11, 8640]);
    assert_eq!(d.floats, [0.5, 0.25, 1.5]);
    assert_eq!(
        d.strings,
        [
            b"root".to_vec(),
            b"Box01".to_vec(),
            b"HEAD".to_vec(),
            b"a20".to_vec()
        ]
    );
    assert_eq!(d.positions, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    assert_eq!(d.be, [7, 8]);
}

#[test]
fn truncated_at_every_byte_fails_cleanly() {
    let bytes = encode();
    for len in 0..bytes.len() {
        let err = decode(&bytes[..len]).expect_err("a truncated input must not decode");
        assert!(
            err.offset() <= len as u64,
            "offset {} past the end {len}",
            err.offset()
        );
        assert!(
            matches!(
                err.kind(),
                ErrorKind::UnexpectedEnd { .. } | ErrorKind::CountTooLarge { .. }
            ),
            "len {len}: {err}"
        );
    }
}

#[test]
fn extra_byte_is_trailing() {
    let mut bytes = encode();
    bytes.push(0);
    let err = decode(&bytes).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::TrailingBytes { count: 1 });
    assert_eq!(err.offset(), bytes.len() as u64 - 1);
}

#[test]
fn flipping_any_byte_never_panics() {
    let bytes = encode();
    for i in 0..bytes.len() {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= mask;
            let _ = decode(&b);
        }
    }
}
