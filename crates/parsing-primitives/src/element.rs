//! Plain-old-data elements that bulk array reads and writes handle in one copy.

use bytemuck::Pod;

/// A fixed-size element of a bulk array: the integer and float scalars, and arrays of
/// them (`[f32; 3]` for a position, `[u16; 3]` for a triangle).
///
/// Bulk reads copy the bytes in one `memcpy` (through bytemuck, so alignment never
/// matters) and then fix the byte order only when the host's differs from the file's.
pub trait Element: Pod {
    /// Reverses the byte order of every scalar in `items`.
    fn swap_bytes(items: &mut [Self]);
}

macro_rules! int_element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            fn swap_bytes(items: &mut [Self]) {
                for v in items {
                    *v = v.swap_bytes();
                }
            }
        }
    )*};
}
int_element!(u8, i8, u16, i16, u32, i32, u64, i64);

impl Element for f32 {
    fn swap_bytes(items: &mut [Self]) {
        for v in items {
            *v = f32::from_bits(v.to_bits().swap_bytes());
        }
    }
}

impl Element for f64 {
    fn swap_bytes(items: &mut [Self]) {
        for v in items {
            *v = f64::from_bits(v.to_bits().swap_bytes());
        }
    }
}

impl<T: Element, const N: usize> Element for [T; N]
where
    [T; N]: Pod,
{
    fn swap_bytes(items: &mut [Self]) {
        T::swap_bytes(bytemuck::cast_slice_mut(items));
    }
}

/// Byte order of a bulk array in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endian {
    /// Least significant byte first.
    Little,
    /// Most significant byte first.
    Big,
}

impl Endian {
    /// The host's byte order.
    pub const NATIVE: Endian = if cfg!(target_endian = "big") {
        Endian::Big
    } else {
        Endian::Little
    };
}

/// Decodes `bytes` (exactly `n * size_of::<T>()` long) into a vector in one copy.
pub(crate) fn decode_array<T: Element>(bytes: &[u8], endian: Endian) -> Vec<T> {
    // Aligned input is copied in one go. Other input is copied into a zeroed output:
    // measured faster than element-by-element unaligned loads (twice as fast for
    // `[f32; 3]` arrays in cache).
    let mut out = match bytemuck::try_cast_slice::<u8, T>(bytes) {
        Ok(items) => items.to_vec(),
        Err(_) => {
            let mut out = vec![T::zeroed(); bytes.len() / std::mem::size_of::<T>().max(1)];
            bytemuck::cast_slice_mut::<T, u8>(&mut out).copy_from_slice(bytes);
            out
        }
    };
    if endian != Endian::NATIVE {
        T::swap_bytes(&mut out);
    }
    out
}

/// Appends the file bytes of `items` to `out`.
pub(crate) fn encode_array<T: Element>(items: &[T], endian: Endian, out: &mut Vec<u8>) {
    if endian == Endian::NATIVE {
        out.extend_from_slice(bytemuck::cast_slice(items));
    } else {
        let mut swapped = items.to_vec();
        T::swap_bytes(&mut swapped);
        out.extend_from_slice(bytemuck::cast_slice(&swapped));
    }
}

/// The little-endian elements `bytes` holds, in one copy (a trailing partial element
/// is left out): the bulk decode for arrays that are not read through a [`Reader`].
///
/// ```
/// let bytes = [0, 0, 128, 63, 0, 0, 0, 64, 9];
/// assert_eq!(parsing_primitives::le_elements::<f32>(&bytes), vec![1.0, 2.0]);
/// ```
///
/// [`Reader`]: crate::Reader
pub fn le_elements<T: Element>(bytes: &[u8]) -> Vec<T> {
    let whole = bytes.len() / std::mem::size_of::<T>().max(1) * std::mem::size_of::<T>();
    decode_array(&bytes[..whole], Endian::Little)
}

/// `items` as little-endian bytes, in one copy.
///
/// ```
/// assert_eq!(parsing_primitives::le_bytes(&[1.0f32]), vec![0, 0, 128, 63]);
/// ```
pub fn le_bytes<T: Element>(items: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(std::mem::size_of_val(items));
    encode_array(items, Endian::Little, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_both_orders() {
        let bytes = [1u8, 2, 3, 4, 5, 6, 7, 8];
        let le: Vec<u16> = decode_array(&bytes, Endian::Little);
        assert_eq!(le, [0x0201, 0x0403, 0x0605, 0x0807]);
        let be: Vec<u16> = decode_array(&bytes, Endian::Big);
        assert_eq!(be, [0x0102, 0x0304, 0x0506, 0x0708]);
        let be32: Vec<[u32; 2]> = decode_array(&bytes, Endian::Big);
        assert_eq!(be32, [[0x01020304, 0x05060708]]);
    }

    #[test]
    fn aligned_and_unaligned_input_decode_alike() {
        // The same 12 bytes at every offset of a buffer: some starts are aligned for
        // u32 (one copy), the others are copied into a zeroed output.
        let bytes: Vec<u8> = (1..=12).collect();
        for shift in 0..4 {
            let mut buf = vec![0u8; shift];
            buf.extend_from_slice(&bytes);
            let le: Vec<u32> = decode_array(&buf[shift..], Endian::Little);
            assert_eq!(le, [0x0403_0201, 0x0807_0605, 0x0c0b_0a09], "shift {shift}");
            let be: Vec<[u16; 2]> = decode_array(&buf[shift..], Endian::Big);
            assert_eq!(be, [[0x0102, 0x0304], [0x0506, 0x0708], [0x090a, 0x0b0c]]);
        }
    }

    #[test]
    fn floats_from_known_bytes() {
        // 1.0f32 = 0x3f800000, -2.5 = 0xc0200000
        let le = [0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0];
        let v: Vec<f32> = decode_array(&le, Endian::Little);
        assert_eq!(v, [1.0, -2.5]);
        let be = [0x3f, 0x80, 0x00, 0x00];
        let v: Vec<f32> = decode_array(&be, Endian::Big);
        assert_eq!(v, [1.0]);
    }

    #[test]
    fn encode_round_trip_both_orders() {
        let items = [[1.5f32, -0.0, f32::MAX], [3.0, 4.0, 5.0]];
        for endian in [Endian::Little, Endian::Big] {
            let mut out = vec![0xAA];
            encode_array(&items, endian, &mut out);
            assert_eq!(out.len(), 1 + 24);
            let back: Vec<[f32; 3]> = decode_array(&out[1..], endian);
            assert_eq!(back, items);
        }
        let mut out = Vec::new();
        encode_array(&[0x0102u16], Endian::Big, &mut out);
        assert_eq!(out, [1, 2]);
    }
}
