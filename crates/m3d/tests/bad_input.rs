//! Hostile files built by hand: a compression bomb, a voxel block of 65535^3 voxels, a
//! huge bone count in a tiny chunk, string references off the table.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use m3d_format::{Limits, ReadOptions};

/// HEAD with int8 coordinates and the given `types` bits, name "t".
fn head(types: u32) -> Vec<u8> {
    let mut h = b"HEAD\x18\x00\x00\x00".to_vec();
    h.extend_from_slice(&1.0f32.to_le_bytes()); // scale
    h.extend_from_slice(&types.to_le_bytes());
    h.extend_from_slice(b"t\0\0\0\0\0\0\0"); // name, licence, author, description (+ pad)
    h
}

fn chunk(magic: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut c = magic.to_vec();
    c.extend_from_slice(&(8 + body.len() as u32).to_le_bytes());
    c.extend_from_slice(body);
    c
}

fn file(payload: &[u8]) -> Vec<u8> {
    let mut f = b"3DMO".to_vec();
    f.extend_from_slice(&(8 + payload.len() as u32).to_le_bytes());
    f.extend_from_slice(payload);
    f
}

/// Every optional field absent, u8 vertex and string indices.
const MINIMAL: u32 = 0x03ff_cfc0;

#[test]
fn compression_bomb_is_refused_by_the_limit() {
    // 64 MiB of zeros inside a valid HEAD..OMD3 deflate to about 64 KiB.
    let mut payload = head(MINIMAL);
    payload.extend(chunk(b"zero", &vec![0u8; 64 << 20]));
    payload.extend_from_slice(b"OMD3");
    let bomb = file(&m3d_format::envelope::deflate(&payload));
    assert!(bomb.len() < 1 << 20);
    let opts = ReadOptions {
        limits: Limits {
            max_alloc_bytes: 8 << 20,
            max_elements: 1 << 20,
        },
    };
    let e = m3d_format::read_with(&bomb, &opts).unwrap_err().to_string();
    assert!(
        e.contains("inflates past the limit of 8388608 bytes"),
        "{e}"
    );
    // Under the default 1 GiB limit the same file reads (it is valid).
    let m = m3d_format::read(&bomb).unwrap();
    assert_eq!(m.chunks.extras[0].data.len(), 64 << 20);
}

#[test]
fn corrupt_zlib_is_an_error() {
    let mut payload = head(MINIMAL);
    payload.extend_from_slice(b"OMD3");
    let mut z = m3d_format::envelope::deflate(&payload);
    let mid = z.len() / 2;
    z[mid] ^= 0xff;
    let len = z.len() - 3;
    z.truncate(len);
    let e = m3d_format::read(&file(&z)).unwrap_err().to_string();
    assert!(e.contains("zlib payload at offset 8"), "{e}");
}

#[test]
fn a_voxel_block_of_65535_cubed_is_refused_before_allocating() {
    // vd = u16 (bits 22-23 = 1), vp = u8 (bits 24-25 = 0); the rest absent.
    let types = (MINIMAL & !(3 << 22) & !(3 << 24)) | (1 << 22);
    let mut voxd = vec![0u8]; // name
    voxd.extend_from_slice(&[0; 6]); // x, y, z (i16)
    voxd.extend_from_slice(&[0xff; 6]); // w, h, d = 65535
    voxd.extend_from_slice(&[0, 0, 0x80, 0x01]); // uncertain, group, one run
    let mut payload = head(types);
    payload.extend(chunk(b"VOXD", &voxd));
    payload.extend_from_slice(b"OMD3");
    let e = m3d_format::read(&file(&payload)).unwrap_err().to_string();
    assert!(
        e.contains("281462092005375 voxels exceed the element limit"),
        "{e}"
    );
    // 2 x 2 x 1 voxels: a run of 3 type-1 voxels and one literal type 0.
    let mut voxd = vec![0u8];
    voxd.extend_from_slice(&[0; 6]);
    voxd.extend_from_slice(&[2, 0, 1, 0, 2, 0]);
    voxd.extend_from_slice(&[0, 0, 0x82, 1, 0x00, 0]);
    let mut payload = head(types);
    payload.extend(chunk(b"VOXD", &voxd));
    payload.extend_from_slice(b"OMD3");
    let m = m3d_format::read(&file(&payload)).unwrap();
    assert_eq!(m.chunks.voxel_blocks[0].voxels, [1, 1, 1, 0]);
}

#[test]
fn hostile_counts_fail_fast() {
    // bi = u16, sk = u16 (bits 10-11 and 14-15 = 1): 65535 bones claimed in 4 bytes.
    let types = (MINIMAL & !(3 << 10) & !(3 << 14)) | (1 << 10) | (1 << 14);
    let mut payload = head(types);
    payload.extend(chunk(b"BONE", &[0xff, 0xff, 0, 0]));
    payload.extend_from_slice(b"OMD3");
    let e = m3d_format::read(&file(&payload)).unwrap_err().to_string();
    assert!(e.contains("BONE") && e.contains("bones"), "{e}");
    // A chunk longer than the payload.
    let mut payload = head(MINIMAL);
    payload.extend_from_slice(b"VRTS\xff\xff\xff\x7f");
    payload.extend_from_slice(b"OMD3");
    assert!(m3d_format::read(&file(&payload)).is_err());
    // The total length claims more than the buffer: only the buffer is used.
    let mut payload = head(MINIMAL);
    payload.extend_from_slice(b"OMD3");
    let mut f = file(&payload);
    f[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(m3d_format::read(&f).is_ok());
    // Invalid type widths are refused like m3d.h refuses them.
    let e = m3d_format::read(&file(&[head(MINIMAL | 3 << 2), b"OMD3".to_vec()].concat()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("vertex index width 3 is invalid"), "{e}");
}

#[test]
fn string_references_are_checked() {
    let mut payload = head(MINIMAL);
    payload.extend(chunk(b"MTRL", &[200]));
    payload.extend_from_slice(b"OMD3");
    let m = m3d_format::read(&file(&payload)).unwrap();
    // Offset 200 is past the 8-byte table: no string, not an out-of-bounds read.
    assert_eq!(m.chunks.head.string(m.chunks.materials[0].name), None);
    assert_eq!(m.chunks.head.string(0), None);
    assert_eq!(m.chunks.head.titles()[0], "t");
}
