//! Unit tests of `reader`.

use super::*;

#[test]
fn scalars_both_orders() {
    let b = [0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x80, 0x3f, 0xff];
    let mut r = Reader::new("t", &b);
    assert_eq!(r.u16_le().unwrap(), 0x0201);
    assert_eq!(r.u16_be().unwrap(), 0x0304);
    assert_eq!(r.f32_le().unwrap(), 1.0);
    assert_eq!(r.i8().unwrap(), -1);
    assert!(r.is_empty());
    let mut r = Reader::new("t", &b);
    assert_eq!(r.u32_be().unwrap(), 0x01020304);
    assert_eq!(r.i32_le().unwrap(), 0x3f80_0000);
    let mut r = Reader::new("t", &b[..8]);
    assert_eq!(r.u64_le().unwrap(), 0x3f80_0000_0403_0201);
    let mut r = Reader::new("t", &[0xfe, 0xff, 0xff, 0xfe]);
    assert_eq!(r.i16_le().unwrap(), -2);
    assert_eq!(r.i16_be().unwrap(), -2);
    let mut r = Reader::new("t", &[0x3f, 0x80, 0, 0]);
    assert_eq!(r.f32_be().unwrap(), 1.0);
    let b = 1.25f64.to_le_bytes();
    let mut r = Reader::new("t", &b);
    assert_eq!(r.f64_le().unwrap(), 1.25);
    let b = (-5i64).to_le_bytes();
    let mut r = Reader::new("t", &b);
    assert_eq!(r.i64_le().unwrap(), -5);
    let b = (-5i32).to_be_bytes();
    let mut r = Reader::new("t", &b);
    assert_eq!(r.i32_be().unwrap(), -5);
    let mut r = Reader::new("t", &[7]);
    assert_eq!(r.u8().unwrap(), 7);
}

#[test]
fn short_scalar_reports_needed_and_offset() {
    let mut r = Reader::new("fmt", &[1, 2, 3]).with_base_offset(0x100);
    r.u8().unwrap();
    let e = r.u32_le().unwrap_err();
    assert_eq!(
        e.kind(),
        &ErrorKind::UnexpectedEnd {
            needed: 4,
            remaining: 2
        }
    );
    assert_eq!(e.offset(), 0x101);
    // A failed read consumes nothing.
    assert_eq!(r.position(), 1);
}

#[test]
fn path_rendering_with_labels() {
    let mut r = Reader::new("unigine-mesh", &[]);
    let e = r
        .field("surface", |r| {
            r.item(2, |r| {
                r.label(b"body");
                r.field("tindices", |r| r.u16_le())
            })
        })
        .unwrap_err();
    assert_eq!(e.path(), "surface[2] 'body'.tindices");
    // Scopes are unwound afterwards, labels included.
    assert_eq!(r.path(), "");
}

#[test]
fn the_display_from_the_issue() {
    let mut data = vec![0u8; 0x1a2c];
    data.extend_from_slice(&[0u8; 512]);
    let mut r = Reader::new("unigine-mesh", &data);
    r.skip(0x1a2c).unwrap();
    let e = r
        .field("surface", |r| {
            r.item(2, |r| {
                r.label(b"body");
                r.field("tindices", |r| r.le_array::<u16>(70000))
            })
        })
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "unigine-mesh: surface[2] 'body'.tindices: count 70000 needs 140000 bytes but 512 remain (at offset 0x1a2c)"
    );
}

#[test]
fn hostile_count_fails_before_allocating() {
    // 0x7fffffff elements in a 10-byte input.
    let mut data = 0x7fff_ffffu32.to_le_bytes().to_vec();
    data.extend_from_slice(&[0; 6]);
    let mut r = Reader::new("t", &data);
    let n = r.u32_le().unwrap();
    let e = r.le_array::<f32>(u64::from(n)).unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::CountTooLarge {
            count: 0x7fff_ffff,
            remaining: 6,
            ..
        }
    ));
    let e = r.array(u64::from(n), 1, |r| r.u8()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CountTooLarge { .. }));
    // Even zero-sized elements are capped by the element limit.
    let e = r.count(u64::MAX, 0).unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::LimitExceeded {
            what: "array length",
            ..
        }
    ));
    // Overflowing multiplication saturates instead of wrapping.
    let r = Reader::new("t", &data).with_limits(Limits::UNLIMITED);
    assert!(r.count(u64::MAX / 2 + 1, 4).is_err());
}

#[test]
fn allocation_budget() {
    let data = [0u8; 64];
    let mut r = Reader::new("t", &data).with_limits(Limits {
        max_alloc_bytes: 40,
        max_elements: 1000,
    });
    assert_eq!(r.le_array::<u32>(8).unwrap().len(), 8);
    let e = r.le_array::<u32>(3).unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::OverBudget(crate::BudgetExceeded {
            requested: 12,
            used: 32,
            limit: 40,
            ..
        })
    ));
    assert_eq!(e.offset(), 32);
    let mut r = Reader::new("t", &data).with_limits(Limits {
        max_alloc_bytes: 1 << 20,
        max_elements: 4,
    });
    assert!(r.le_array::<u8>(5).is_err());
    assert!(r.le_array::<u8>(4).is_ok());
}

#[test]
fn sub_readers_and_clones_share_the_budget() {
    let data = [0u8; 64];
    let mut r = Reader::new("t", &data).with_limits(Limits {
        max_alloc_bytes: 40,
        max_elements: 1000,
    });
    // Before budgets were shared, each sub-reader started from the parent's total and
    // forgot its own: chunk after chunk could each take the whole allowance.
    for _ in 0..2 {
        let mut sub = r.sub(16).unwrap();
        assert!(sub.le_array::<u32>(4).is_ok());
    }
    let mut sub = r.sub(16).unwrap();
    assert!(sub.le_array::<u32>(4).is_err());
    assert_eq!(r.budget().used(), 32);
    let shared = crate::Budget::new(Limits::DEFAULT);
    let a = Reader::new("t", &data).with_budget(shared.clone());
    let mut b = a.clone();
    b.charge_for("test", 7).unwrap();
    assert_eq!((a.budget().used(), shared.used()), (7, 7));
}

#[test]
fn bulk_arrays() {
    let mut data = Vec::new();
    for v in [1.0f32, 2.0, 3.0, -4.0, 5.5, 6.0] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    data.extend_from_slice(&[0x00, 0x01, 0x00, 0x02]);
    let mut r = Reader::new("t", &data[1..]);
    r.skip(3).unwrap(); // misaligned start on purpose
    let mut r = Reader::new("t", &data);
    let v: Vec<[f32; 3]> = r.le_array(2).unwrap();
    assert_eq!(v, [[1.0, 2.0, 3.0], [-4.0, 5.5, 6.0]]);
    let w: Vec<u16> = r.be_array(2).unwrap();
    assert_eq!(w, [1, 2]);
    assert!(r.finish().is_ok());
    // Misaligned input decodes the same.
    let mut shifted = vec![9u8];
    shifted.extend_from_slice(&data);
    let mut r = Reader::new("t", &shifted);
    r.u8().unwrap();
    let v: Vec<f32> = r.le_array(6).unwrap();
    assert_eq!(v, [1.0, 2.0, 3.0, -4.0, 5.5, 6.0]);
    let v: Vec<i16> = r.le_array(2).unwrap();
    assert_eq!(v, [256, 512]);
}

#[test]
fn strings() {
    let data = [
        0x05, 0, 0, 0, b'r', b'o', b'o', b't', 0, // i32 length
        0x06, b'B', b'o', b'x', b'0', b'1', 0, // compact length
        0x01, 0, // empty with NUL
        0x04, b'H', b'E', b'A', b'D', // pascal u8
        0x00, 0x03, b'a', b'b', b'c', // pascal u16 BE
    ];
    let mut r = Reader::new("t", &data);
    assert_eq!(r.i32_nul_string(1024).unwrap(), b"root");
    assert_eq!(r.compact_nul_string(1024).unwrap(), b"Box01");
    assert_eq!(r.compact_nul_string(1024).unwrap(), b"");
    assert_eq!(r.pascal_u8().unwrap(), b"HEAD");
    assert_eq!(r.pascal_u16_be().unwrap(), b"abc");
    r.finish().unwrap();
}

#[test]
fn bad_strings() {
    // Missing NUL.
    let mut r = Reader::new("t", &[0x02, b'a', b'b']);
    let e = r.compact_nul_string(10).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidValue { .. }));
    assert_eq!(e.offset(), 1);
    // Over the maximum.
    let mut r = Reader::new("t", &[0x0b]);
    assert!(matches!(
        r.compact_nul_string(10).unwrap_err().kind(),
        ErrorKind::LimitExceeded {
            what: "string length",
            ..
        }
    ));
    // Negative i32 length.
    let b = (-1i32).to_le_bytes();
    let mut r = Reader::new("t", &b);
    assert!(matches!(
        r.i32_nul_string(10).unwrap_err().kind(),
        ErrorKind::InvalidValue { .. }
    ));
    // Pascal string longer than the input.
    let mut r = Reader::new("t", &[5, b'a']);
    assert!(matches!(
        r.pascal_u8().unwrap_err().kind(),
        ErrorKind::UnexpectedEnd {
            needed: 5,
            remaining: 1
        }
    ));
}

#[test]
fn compact_errors() {
    let mut r = Reader::new("t", &[0x80, 0x80]);
    assert!(matches!(
        r.compact_int().unwrap_err().kind(),
        ErrorKind::UnexpectedEnd {
            needed: 3,
            remaining: 2
        }
    ));
    let mut r = Reader::new("t", &[0xff; 6]);
    assert!(matches!(
        r.compact_int().unwrap_err().kind(),
        ErrorKind::InvalidValue { .. }
    ));
    let mut r = Reader::new("t", &[0x41]);
    assert!(matches!(
        r.compact_count(1).unwrap_err().kind(),
        ErrorKind::InvalidValue { .. }
    ));
    let mut r = Reader::new("t", &[0x0a, 0, 0]);
    let e = r.compact_count(1).unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::CountTooLarge {
            count: 10,
            needed: 10,
            remaining: 2
        }
    ));
    assert_eq!(e.offset(), 0);
}

#[test]
fn magic_sub_and_trailing() {
    let data = *b"ms11abcdXY";
    let mut r = Reader::new("t", &data);
    r.magic(b"ms11").unwrap();
    let mut sub = r.sub(4).unwrap();
    assert_eq!(sub.offset(), 4);
    assert_eq!(sub.bytes(4).unwrap(), b"abcd");
    let e = sub.u8().unwrap_err();
    assert_eq!(e.offset(), 8);
    assert_eq!(r.peek(2).unwrap(), b"XY");
    let e = r.finish().unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::TrailingBytes { count: 2 });
    let mut r = Reader::new("t", &data);
    let e = r.magic(b"ms10").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::BadMagic { .. }));
    assert_eq!(r.array_of::<2>().unwrap(), *b"ms");
    assert_eq!(r.rest(), b"11abcdXY");
}

#[test]
fn generic_array_with_item_paths() {
    let data = [1u8, 2, 3];
    let mut r = Reader::new("t", &data);
    let e = r
        .field("faces", |r| r.array(2, 1, |r| r.u16_le()))
        .unwrap_err();
    assert_eq!(e.path(), "faces[1]");
}

#[test]
fn single_elements() {
    let data = [1u8, 0, 2, 0, 0, 3, 0, 4, 9];
    let mut r = Reader::new("t", &data);
    assert_eq!(r.le::<[u16; 2]>().unwrap(), [1, 2]);
    assert_eq!(r.be::<[u16; 2]>().unwrap(), [3, 4]);
    let e = r.le::<u16>().unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::UnexpectedEnd {
            needed: 2,
            remaining: 1
        }
    ));
    assert_eq!(r.le::<u8>().unwrap(), 9);
}

#[test]
fn item_errors_after_bulk_reads() {
    let mut r = Reader::new("t", &[]);
    let e = r.field("mesh", |r| Ok(r.invalid_item_at("faces", 3, 40, "bad")));
    let e = e.unwrap();
    assert_eq!(e.path(), "mesh.faces[3]");
    assert_eq!(e.offset(), 40);
    assert_eq!(r.path(), "");
}

#[test]
fn i32_counts() {
    let mut r = Reader::new("t", &[2, 0, 0, 0, 9, 9]);
    assert_eq!(r.i32_count(1).unwrap(), 2);
    let mut r = Reader::new("t", &[0xff, 0xff, 0xff, 0xff]);
    assert!(matches!(
        r.i32_count(1).unwrap_err().kind(),
        ErrorKind::InvalidValue { .. }
    ));
    let mut r = Reader::new("t", &[9, 0, 0, 0, 1]);
    let e = r.i32_count(1).unwrap_err();
    assert_eq!(e.offset(), 0);
    assert!(matches!(
        e.kind(),
        ErrorKind::CountTooLarge { count: 9, .. }
    ));
}

#[test]
fn a_sub_reader_of_shared_input_shares_its_own_range() {
    let data = crate::SharedBytes::from((0u8..64).collect::<Vec<u8>>());
    let mut r = Reader::new("t", &[]);
    assert!(r.shared().is_none(), "borrowed bytes are not shared");
    r = Reader::over_shared("t", &data).with_base_offset(1000);
    r.bytes(8).unwrap();
    let mut sub = r.sub(32).unwrap();
    sub.bytes(4).unwrap();
    let mut inner = sub.sub(8).unwrap();
    // Positions index each reader's own shared range: the input's bytes 12..20.
    let kept = inner.shared().and_then(|s| s.slice(2..6)).unwrap();
    assert_eq!(kept, [14u8, 15, 16, 17]);
    assert_eq!(kept.as_ptr(), data[14..].as_ptr());
    assert_eq!(inner.offset(), 1012);
    assert_eq!(inner.bytes(8).unwrap(), &data[12..20]);
    // The sub-reader's range ends where its slice does.
    assert!(sub.shared().is_some_and(|s| s.len() == 32));
    assert!(inner.shared().is_some_and(|s| s.slice(0..9).is_none()));
}
