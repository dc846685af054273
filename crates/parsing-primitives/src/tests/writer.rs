//! Unit tests of `writer`.

use super::*;
use crate::Reader;

#[test]
fn scalars_match_hand_bytes() {
    let mut w = Writer::new("t");
    w.u16_le(0x0102)
        .u16_be(0x0102)
        .u32_be(0x01020304)
        .f32_le(1.0)
        .i8(-1)
        .i16_be(-2)
        .f32_be(1.0);
    assert_eq!(
        w.as_slice(),
        [
            2, 1, 1, 2, 1, 2, 3, 4, 0, 0, 0x80, 0x3f, 0xff, 0xff, 0xfe, 0x3f, 0x80, 0, 0
        ]
    );
}

#[test]
fn everything_reads_back() {
    let mut w = Writer::new("t");
    w.u8(7)
        .i16_le(-3)
        .u32_le(70000)
        .i32_le(-70000)
        .u64_le(1 << 40)
        .i64_le(-(1 << 40))
        .f64_le(0.1)
        .i32_be(-9);
    w.compact_u32(u32::MAX);
    w.i32_nul_string(b"root").unwrap();
    w.compact_nul_string(b"").unwrap();
    w.pascal_u8(b"HEAD").unwrap();
    w.pascal_u16_be(b"a20-trapfall").unwrap();
    w.le_slice(&[[1.0f32, 2.0, 3.0]]);
    w.be_slice(&[1u32, 2]);
    let bytes = w.into_inner();
    let mut r = Reader::new("t", &bytes);
    assert_eq!(r.u8().unwrap(), 7);
    assert_eq!(r.i16_le().unwrap(), -3);
    assert_eq!(r.u32_le().unwrap(), 70000);
    assert_eq!(r.i32_le().unwrap(), -70000);
    assert_eq!(r.u64_le().unwrap(), 1 << 40);
    assert_eq!(r.i64_le().unwrap(), -(1 << 40));
    assert_eq!(r.f64_le().unwrap(), 0.1);
    assert_eq!(r.i32_be().unwrap(), -9);
    assert_eq!(r.compact_int().unwrap(), i64::from(u32::MAX));
    assert_eq!(r.i32_nul_string(100).unwrap(), b"root");
    assert_eq!(r.compact_nul_string(100).unwrap(), b"");
    assert_eq!(r.pascal_u8().unwrap(), b"HEAD");
    assert_eq!(r.pascal_u16_be().unwrap(), b"a20-trapfall");
    assert_eq!(r.le_array::<[f32; 3]>(1).unwrap(), [[1.0, 2.0, 3.0]]);
    assert_eq!(r.be_array::<u32>(2).unwrap(), [1, 2]);
    r.finish().unwrap();
}

#[test]
fn string_limits() {
    let mut w = Writer::new("t");
    assert!(w.pascal_u8(&[b'a'; 256]).is_err());
    assert!(w.pascal_u8(&[b'a'; 255]).is_ok());
    assert!(w.pascal_u16_be(&vec![b'a'; 65536]).is_err());
    assert!(w.compact_nul_string(b"a\0b").is_err());
    assert!(w.i32_nul_string(b"a\0").is_err());
    let e = w.compact_count(usize::MAX).unwrap_err();
    assert!(e.to_string().contains("too large"));
}

#[test]
fn back_patching() {
    let mut w = Writer::new("t");
    w.bytes(b"HEAD");
    let len = w.reserve_u32_le();
    w.bytes(&[1, 2, 3]);
    w.patch_len_u32_le(len, len.offset() - 4).unwrap();
    assert_eq!(w.as_slice(), b"HEAD\x0b\x00\x00\x00\x01\x02\x03");
    let p = w.reserve(2);
    assert!(w.patch(p, &[1]).is_err());
    w.patch(p, &[9, 8]).unwrap();
    assert_eq!(&w.as_slice()[11..], [9, 8]);
    assert_eq!(p.end(), 13);
}

#[test]
fn io_write() {
    use std::io::Write;
    let mut w = Writer::new("t");
    w.write_all(b"abc").unwrap();
    w.flush().unwrap();
    assert_eq!(w.len(), 3);
    assert!(!w.is_empty());
}

#[test]
fn signed_compact_ints() {
    // notes/unigine-current.md 4.4: a leaf's children are -1, stored as `41`.
    let mut w = Writer::new("t");
    w.compact_i64(-1).unwrap().compact_i64(-62).unwrap();
    assert_eq!(w.as_slice(), [0x41, 0x7e]);
    // -63 needs the continuation: 0x40 | 0x80 | (63 & 0x3f), then 63 >> 6 = 0.
    w.compact_i64(-63).unwrap();
    assert_eq!(&w.as_slice()[2..], [0xff, 0x00]);
    let mut r = Reader::new("t", w.as_slice());
    assert_eq!(r.compact_int().unwrap(), -1);
    assert_eq!(r.compact_int().unwrap(), -62);
    assert_eq!(r.compact_int().unwrap(), -63);
    assert!(w.compact_i64(1 << 40).is_err());
    assert!(w.compact_i64(-(1 << 40)).is_err());
}
