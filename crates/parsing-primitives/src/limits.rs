//! Bounds against hostile headers.

/// Caps an operation enforces on top of "a count must fit in the bytes left".
///
/// Counts are always checked against the remaining input, which already bounds most
/// allocations by a small multiple of the input size. `Limits` adds absolute caps for
/// the cases the input size does not bound: decompressed payloads (M3D zlib, UNIGINE
/// LZ4), resampled animations, generated geometry, instanced meshes. An operation draws
/// on one [`Budget`](crate::Budget) made from these limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most bytes one operation may allocate for what its input asks for, in total
    /// (see [`Budget`](crate::Budget)).
    pub max_alloc_bytes: u64,
    /// Most elements in any one array.
    pub max_elements: u64,
}

impl Limits {
    /// 1 GiB of decoded data and 2^28 elements per array: far above any real asset,
    /// far below what would take a 24 GiB machine down.
    pub const DEFAULT: Limits = Limits {
        max_alloc_bytes: 1 << 30,
        max_elements: 1 << 28,
    };

    /// No absolute caps (counts are still checked against the input length).
    pub const UNLIMITED: Limits = Limits {
        max_alloc_bytes: u64::MAX,
        max_elements: u64::MAX,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}
