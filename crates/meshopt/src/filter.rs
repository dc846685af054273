//! The filters of the `ATTRIBUTES` mode (Appendix B of the EXT_meshopt_compression
//! spec): transforms applied to each element after the attribute codec decodes it.
//!
//! - `OCTAHEDRAL`: unit vectors as K-bit octahedral x, y and a K-bit 1.0 in z, in four
//!   `i8` (stride 4) or four `i16` (stride 8); w passes through (a tangent's sign).
//! - `QUATERNION`: unit quaternions as the three smallest components scaled by √2 in
//!   K bits and the index of the largest in the low 2 bits of a K-bit 1.0, four `i16`.
//! - `EXPONENTIAL`: each `f32` as a 32-bit integer, an 8-bit signed exponent over a
//!   24-bit signed mantissa.
//!
//! The encoders follow meshoptimizer's `meshopt_encodeFilterOct`, `_Quat` and `_Exp`
//! operation for operation in `f32`, so their bytes are identical to meshoptimizer's for
//! the same floats. The decoders follow the arithmetic of meshoptimizer's SIMD filter
//! decoders (the ones its WebAssembly build, and so three.js, runs): the same operation
//! order and round-half-to-even, so they give the same bytes as that decoder for any
//! input, including inputs the spec leaves unspecified.

use crate::error::{DecodeError, EncodeError, decode_len, encode_len};

/// How [`encode_filter_exp`] picks exponents (meshoptimizer's `meshopt_EncodeExpMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ExpMode {
    /// An exponent per component of each element (best quality).
    Separate,
    /// One exponent per element, the largest of its components (smaller output; what
    /// meshoptimizer's JavaScript encoder uses by default).
    #[default]
    SharedVector,
    /// One exponent per component across all elements (smallest output).
    SharedComponent,
    /// An exponent per component, but never below 0 (values below 2^-bits lose their
    /// precision, which compresses better when they do not matter).
    Clamped,
}

/// Rounding to nearest, ties to even, for |v| < 2^22: adding 1.5 * 2^23 leaves the
/// integer in the low mantissa bits (the trick meshoptimizer's SIMD decoders use).
const FSNAP: f32 = 12_582_912.0;

/// meshoptimizer's `meshopt_quantizeSnorm`: clamp to [-1, 1], scale to `n` bits, round
/// half away from zero.
fn quantize_snorm(v: f32, n: u32) -> i32 {
    let scale = ((1i32 << (n - 1)) - 1) as f32;
    let round = if v >= 0.0 { 0.5 } else { -0.5 };
    let v = if v >= -1.0 { v } else { -1.0 };
    let v = if v <= 1.0 { v } else { 1.0 };
    (v * scale + round) as i32
}

fn argument(name: &'static str, value: usize, requirement: &'static str) -> EncodeError {
    EncodeError::Argument {
        name,
        value,
        requirement,
    }
}

fn check_values(values: &[f32], count: usize, per: usize) -> Result<(), EncodeError> {
    let expected = encode_len(count, per)?;
    if values.len() == expected {
        Ok(())
    } else {
        Err(EncodeError::InputLength {
            expected,
            found: values.len(),
        })
    }
}

/// Encodes unit vectors for the `OCTAHEDRAL` filter: `values` holds `x, y, z, w` per
/// element (`count * 4` floats); `w` is stored as a normalized integer of the full
/// component width (a tangent's sign; anything for normals). `stride` is 4 (`i8`
/// components, `bits` at most 8) or 8 (`i16`), `bits` (K) in 2..=16.
///
/// # Errors
///
/// [`EncodeError::Argument`] for a stride or bit count outside those, and
/// [`EncodeError::InputLength`] when `values` is not `count * 4` long.
///
/// ```
/// use meshfmt_meshopt::{decode_filter_oct, encode_filter_oct};
///
/// let normals = [0.0, 0.0, 1.0, 0.0, 0.6, 0.0, -0.8, 1.0];
/// let mut bytes = encode_filter_oct(&normals, 2, 8, 12)?;
/// decode_filter_oct(&mut bytes, 2, 8)?;
/// let first: Vec<i16> = bytes[..8].chunks(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect();
/// assert_eq!(first, [0, 0, 32767, 0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn encode_filter_oct(
    values: &[f32],
    count: usize,
    stride: usize,
    bits: u32,
) -> Result<Vec<u8>, EncodeError> {
    if stride != 4 && stride != 8 {
        return Err(argument(
            "stride",
            stride,
            "the octahedral filter needs 4 or 8",
        ));
    }
    if !(2..=16).contains(&bits) || (stride == 4 && bits > 8) {
        return Err(argument(
            "bits",
            bits as usize,
            "the octahedral filter needs 2..=8 bits at stride 4, 2..=16 at stride 8",
        ));
    }
    check_values(values, count, 4)?;

    let mut out = Vec::with_capacity(count * stride);
    let width = stride as u32 * 2;
    for n in values.chunks_exact(4) {
        let &[nx, ny, nz, nw] = n else { continue };
        let nl = nx.abs() + ny.abs() + nz.abs();
        let ns = if nl == 0.0 { 0.0 } else { 1.0 / nl };
        let nx = nx * ns;
        let ny = ny * ns;

        let sign = |v: f32| if v >= 0.0 { 1.0 } else { -1.0 };
        let u = if nz >= 0.0 {
            nx
        } else {
            (1.0 - ny.abs()) * sign(nx)
        };
        let v = if nz >= 0.0 {
            ny
        } else {
            (1.0 - nx.abs()) * sign(ny)
        };

        let components = [
            quantize_snorm(u, bits),
            quantize_snorm(v, bits),
            quantize_snorm(1.0, bits),
            quantize_snorm(nw, width),
        ];
        for c in components {
            if stride == 4 {
                out.push(c as u8);
            } else {
                out.extend_from_slice(&(c as i16).to_le_bytes());
            }
        }
    }
    Ok(out)
}

/// Encodes unit quaternions for the `QUATERNION` filter: `values` holds `x, y, z, w`
/// per element (`count * 4` floats); `stride` must be 8, `bits` (K) in 4..=16.
///
/// # Errors
///
/// [`EncodeError::Argument`] for another stride or bit count, and
/// [`EncodeError::InputLength`] when `values` is not `count * 4` long.
///
/// ```
/// use meshfmt_meshopt::{decode_filter_quat, encode_filter_quat};
///
/// let identity = [0.0, 0.0, 0.0, 1.0];
/// let mut bytes = encode_filter_quat(&identity, 1, 8, 12)?;
/// decode_filter_quat(&mut bytes, 1, 8)?;
/// let q: Vec<i16> = bytes.chunks(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect();
/// assert_eq!(q, [0, 0, 0, 32767]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn encode_filter_quat(
    values: &[f32],
    count: usize,
    stride: usize,
    bits: u32,
) -> Result<Vec<u8>, EncodeError> {
    if stride != 8 {
        return Err(argument("stride", stride, "the quaternion filter needs 8"));
    }
    if !(4..=16).contains(&bits) {
        return Err(argument(
            "bits",
            bits as usize,
            "the quaternion filter needs 4..=16",
        ));
    }
    check_values(values, count, 4)?;

    let scaler = 2.0f32.sqrt();
    let mut out = Vec::with_capacity(count * 8);
    for q in values.chunks_exact(4) {
        let &[q0, q1, q2, q3] = q else { continue };
        let q = [q0, q1, q2, q3];
        let mut qc = 0;
        for (i, c) in q.iter().enumerate().skip(1) {
            if c.abs() > q[qc & 3].abs() {
                qc = i;
            }
        }
        // double cover: the largest component is stored as positive
        let sign = if q[qc & 3] < 0.0 { -1.0 } else { 1.0 };
        let mut d = [0i32; 4];
        for (k, dk) in d.iter_mut().take(3).enumerate() {
            *dk = quantize_snorm(q[(qc + k + 1) & 3] * scaler * sign, bits);
        }
        d[3] = (quantize_snorm(1.0, bits) & !3) | qc as i32;
        for c in d {
            out.extend_from_slice(&(c as i16).to_le_bytes());
        }
    }
    Ok(out)
}

/// meshoptimizer's `optlog2`: the exponent of `v` plus one (zero and denormals give
/// -126, which the callers clamp).
fn optlog2(v: f32) -> i32 {
    ((v.to_bits() >> 23) & 0xff) as i32 - 127 + 1
}

/// meshoptimizer's `optexp2`: 2^e from its bits (wrapping outside the normal range).
fn optexp2(e: i32) -> f32 {
    f32::from_bits((e.wrapping_add(127) as u32) << 23)
}

/// Encodes floats for the `EXPONENTIAL` filter: `values` holds `stride / 4` floats per
/// element (`count * stride / 4`), `stride` a multiple of 4 in 4..=256, `bits` the
/// mantissa bits in 1..=24, `mode` how exponents are shared.
///
/// # Errors
///
/// [`EncodeError::Argument`] for a stride or bit count outside those, and
/// [`EncodeError::InputLength`] when `values` is not `count * stride / 4` long.
///
/// ```
/// use meshfmt_meshopt::{ExpMode, decode_filter_exp, encode_filter_exp};
///
/// let times = [0.0, 0.5, 1.0, 1.5];
/// let mut bytes = encode_filter_exp(&times, 4, 4, 24, ExpMode::Separate)?;
/// decode_filter_exp(&mut bytes, 4, 4)?;
/// let decoded: Vec<f32> = bytes.chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
/// assert_eq!(decoded, times);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn encode_filter_exp(
    values: &[f32],
    count: usize,
    stride: usize,
    bits: u32,
    mode: ExpMode,
) -> Result<Vec<u8>, EncodeError> {
    if stride == 0 || stride % 4 != 0 || stride > 256 {
        return Err(argument(
            "stride",
            stride,
            "the exponential filter needs a multiple of 4 in 4..=256",
        ));
    }
    if !(1..=24).contains(&bits) {
        return Err(argument(
            "bits",
            bits as usize,
            "the exponential filter needs 1..=24",
        ));
    }
    let per = stride / 4;
    check_values(values, count, per)?;

    const MIN_EXP: i32 = -100;
    const MANTISSA_MASK: i32 = (1 << 24) - 1;
    const MANTISSA_MAX: i32 = MANTISSA_MASK >> 1;

    let mut component_exp = [if mode == ExpMode::Separate {
        0
    } else {
        MIN_EXP
    }; 64];
    if mode == ExpMode::SharedComponent {
        for v in values.chunks_exact(per) {
            for (ce, &x) in component_exp.iter_mut().zip(v) {
                *ce = (*ce).max(optlog2(x));
            }
        }
    }

    let mut out = Vec::with_capacity(count * stride);
    for v in values.chunks_exact(per) {
        let mut vector_exp = MIN_EXP;
        match mode {
            ExpMode::SharedVector => {
                for &x in v {
                    vector_exp = vector_exp.max(optlog2(x));
                }
            }
            ExpMode::Separate => {
                for (ce, &x) in component_exp.iter_mut().zip(v) {
                    // zeros keep the last exponent: the stream stays more compressible
                    if x != 0.0 {
                        *ce = optlog2(x).max(MIN_EXP);
                    }
                }
            }
            ExpMode::Clamped => {
                for (ce, &x) in component_exp.iter_mut().zip(v) {
                    *ce = optlog2(x).max(0);
                }
            }
            ExpMode::SharedComponent => {}
        }

        for (&ce, &x) in component_exp.iter().zip(v) {
            let exp = if mode == ExpMode::SharedVector {
                vector_exp
            } else {
                ce
            };
            // the mantissa as a K-bit signed integer
            let exp = exp - (bits as i32 - 1);
            let round = if x >= 0.0 { 0.5 } else { -0.5 };
            let m = ((x * optexp2(-exp) + round) as i32).min(MANTISSA_MAX);
            let d = (m & MANTISSA_MASK) as u32 | ((exp as u32) << 24);
            out.extend_from_slice(&d.to_le_bytes());
        }
    }
    Ok(out)
}

fn decode_argument(name: &'static str, value: usize, requirement: &'static str) -> DecodeError {
    DecodeError::Argument {
        name,
        value,
        requirement,
    }
}

fn check_data(data: &[u8], count: usize, stride: usize) -> Result<(), DecodeError> {
    let expected = decode_len(count, stride)?;
    if data.len() == expected {
        Ok(())
    } else {
        Err(DecodeError::OutputLength {
            expected,
            found: data.len(),
        })
    }
}

/// `None` when `filter` can apply to elements of `stride` bytes.
pub(crate) fn filter_stride_problem(filter: crate::Filter, stride: usize) -> Option<DecodeError> {
    let problem = match filter {
        crate::Filter::None => None,
        crate::Filter::Octahedral => {
            (stride != 4 && stride != 8).then_some("the octahedral filter needs 4 or 8")
        }
        crate::Filter::Quaternion => (stride != 8).then_some("the quaternion filter needs 8"),
        crate::Filter::Exponential => (stride == 0 || stride % 4 != 0)
            .then_some("the exponential filter needs a multiple of 4"),
    };
    problem.map(|requirement| decode_argument("stride", stride, requirement))
}

/// `x + copysign(t, x)` as the SIMD decoder computes it (`t` is 0 or negative).
#[inline]
fn oct_fixup(v: f32, t: f32) -> f32 {
    v + f32::from_bits(t.to_bits() ^ (v.to_bits() & 0x8000_0000))
}

/// Decodes x, y, z of one octahedral vector in place (`one` is z's bits as read).
#[inline]
fn oct_decode(x: i32, y: i32, one: i32, max: f32) -> [i32; 3] {
    let x = x as f32;
    let y = y as f32;
    let z = one as f32 - (x.abs() + y.abs());
    // min(z, 0) on the bits, as the SIMD decoder does
    let t = if (z.to_bits() as i32) < 0 { z } else { 0.0 };
    let x = oct_fixup(x, t);
    let y = oct_fixup(y, t);
    let ll = x * x + (y * y + z * z);
    let s = max / ll.sqrt();
    [
        (x * s + FSNAP).to_bits() as i32,
        (y * s + FSNAP).to_bits() as i32,
        (z * s + FSNAP).to_bits() as i32,
    ]
}

/// Applies the `OCTAHEDRAL` filter in place to `count` elements of `stride` bytes (4:
/// `i8` components, 8: `i16` components, little-endian), leaving unit vectors as
/// normalized integers of the component width and w unchanged. Any bytes are accepted;
/// elements the spec calls invalid decode to unspecified values (the same as
/// meshoptimizer's decoder gives).
///
/// # Errors
///
/// [`DecodeError::Argument`] for a stride other than 4 or 8, and
/// [`DecodeError::OutputLength`] when `data` is not `count * stride` bytes long.
///
/// ```
/// use meshfmt_meshopt::decode_filter_oct;
///
/// // K = 8: x = 0, y = 0, 1.0 = 127; w = 5 passes through
/// let mut bytes = [0, 0, 127, 5];
/// decode_filter_oct(&mut bytes, 1, 4)?;
/// assert_eq!(bytes, [0, 0, 127, 5]);
/// # Ok::<(), meshfmt_meshopt::DecodeError>(())
/// ```
pub fn decode_filter_oct(data: &mut [u8], count: usize, stride: usize) -> Result<(), DecodeError> {
    if let Some(e) = filter_stride_problem(crate::Filter::Octahedral, stride) {
        return Err(e);
    }
    check_data(data, count, stride)?;
    if stride == 4 {
        for e in data.chunks_exact_mut(4) {
            let &mut [x, y, z, _] = e else { continue };
            let r = oct_decode(
                i32::from(x as i8),
                i32::from(y as i8),
                i32::from(z as i8),
                127.0,
            );
            for (o, v) in e.iter_mut().zip(r) {
                *o = v as u8;
            }
        }
    } else {
        for e in data.chunks_exact_mut(8) {
            let &mut [x0, x1, y0, y1, z0, z1, _, _] = e else {
                continue;
            };
            let r = oct_decode(
                i32::from(i16::from_le_bytes([x0, x1])),
                i32::from(i16::from_le_bytes([y0, y1])),
                // z as unsigned 15 bits, as the SIMD decoder reads it
                i32::from(u16::from_le_bytes([z0, z1]) & 0x7fff),
                32767.0,
            );
            for (o, v) in e.chunks_exact_mut(2).zip(r) {
                o.copy_from_slice(&(v as u16).to_le_bytes());
            }
        }
    }
    Ok(())
}

/// Applies the `QUATERNION` filter in place to `count` elements of 8 bytes (four
/// little-endian `i16`), leaving unit quaternions as normalized `i16` x, y, z, w. Any
/// bytes are accepted.
///
/// # Errors
///
/// [`DecodeError::Argument`] for a stride other than 8, and
/// [`DecodeError::OutputLength`] when `data` is not `count * 8` bytes long.
///
/// ```
/// use meshfmt_meshopt::decode_filter_quat;
///
/// // K = 16: x, y, z = 0 and the largest component (index 3, w) is 1.0
/// let one = (32767i16 & !3) | 3;
/// let mut bytes: Vec<u8> = [0i16, 0, 0, one].iter().flat_map(|v| v.to_le_bytes()).collect();
/// decode_filter_quat(&mut bytes, 1, 8)?;
/// assert_eq!(&bytes[6..], &32767i16.to_le_bytes());
/// # Ok::<(), meshfmt_meshopt::DecodeError>(())
/// ```
pub fn decode_filter_quat(data: &mut [u8], count: usize, stride: usize) -> Result<(), DecodeError> {
    if let Some(e) = filter_stride_problem(crate::Filter::Quaternion, stride) {
        return Err(e);
    }
    check_data(data, count, stride)?;
    let scale = 32767.0f32 / 2.0f32.sqrt();
    for e in data.chunks_exact_mut(8) {
        let &mut [x0, x1, y0, y1, z0, z1, c0, c1] = e else {
            continue;
        };
        let x = f32::from(i16::from_le_bytes([x0, x1]));
        let y = f32::from(i16::from_le_bytes([y0, y1]));
        let z = f32::from(i16::from_le_bytes([z0, z1]));
        let c = i16::from_le_bytes([c0, c1]);
        let s = f32::from(c | 3);

        let ws = s * s;
        let ww = (ws + ws) - (x * x + (y * y + z * z));
        let w = if (ww.to_bits() as i32) < 0 { 0.0 } else { ww }.sqrt();
        let ss = scale / s;

        let snap = |v: f32| (v * ss + FSNAP).to_bits() as u16;
        let wxyz = u64::from(snap(w))
            | u64::from(snap(x)) << 16
            | u64::from(snap(y)) << 32
            | u64::from(snap(z)) << 48;
        // the largest component's index rotates the components into place
        let out = wxyz.rotate_left(u32::from(c as u16 & 3) * 16);
        e.copy_from_slice(&out.to_le_bytes());
    }
    Ok(())
}

/// Applies the `EXPONENTIAL` filter in place to `count` elements of `stride` bytes (a
/// multiple of 4): each little-endian `i32` `e << 24 | m` becomes the `f32` `m * 2^e`.
/// Any bytes are accepted (exponents outside [-100, 100] give what meshoptimizer's
/// decoder gives).
///
/// # Errors
///
/// [`DecodeError::Argument`] for a stride that is not a positive multiple of 4, and
/// [`DecodeError::OutputLength`] when `data` is not `count * stride` bytes long.
///
/// ```
/// use meshfmt_meshopt::decode_filter_exp;
///
/// // e = -1, m = 3: 1.5
/// let mut bytes = ((-1i32 << 24) | 3).to_le_bytes();
/// decode_filter_exp(&mut bytes, 1, 4)?;
/// assert_eq!(f32::from_le_bytes(bytes), 1.5);
/// # Ok::<(), meshfmt_meshopt::DecodeError>(())
/// ```
pub fn decode_filter_exp(data: &mut [u8], count: usize, stride: usize) -> Result<(), DecodeError> {
    if let Some(e) = filter_stride_problem(crate::Filter::Exponential, stride) {
        return Err(e);
    }
    check_data(data, count, stride)?;
    for word in data.chunks_exact_mut(4) {
        let &mut [b0, b1, b2, b3] = word else {
            continue;
        };
        let v = i32::from_le_bytes([b0, b1, b2, b3]);
        let e = v >> 24;
        let scale = f32::from_bits((e.wrapping_add(127) << 23) as u32);
        let m = ((v << 8) >> 8) as f32;
        word.copy_from_slice(&(scale * m).to_le_bytes());
    }
    Ok(())
}
