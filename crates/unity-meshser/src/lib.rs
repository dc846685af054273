//! Unity MeshSerializer2 compact meshes (the community script's binary format).
//!
//! Layout, all little-endian: `u16` vertex count, `u16` triangle count, `u8` format bits
//! (1 positions, 2 normals, 4 tangents, 8 UVs), then the quantized arrays.
//!
//! **Status:** this release detects the format ([`sniff`]); reading and writing land
//! with the crate's format work.
//!
//! # The no-panic contract
//! Every function here takes untrusted bytes and never panics, hangs or allocates
//! beyond what the input justifies.
//!
//! ```
//! // 1 vertex, 0 triangles, positions only: 5 + 24 + 6 bytes.
//! let mut file = vec![1, 0, 0, 0, 1];
//! file.extend_from_slice(&[0; 30]);
//! assert!(unity_meshser::sniff(&file));
//! assert!(!unity_meshser::sniff(&file[..34]));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// The original reader's cap on vertex and triangle counts.
pub const MAX_COUNT: u16 = 64000;

/// The file has no magic, so this checks structure: counts within the original's cap,
/// format bits at most 15 with positions present, and a length that matches the counts
/// exactly. Never allocates.
pub fn sniff(data: &[u8]) -> bool {
    let [v0, v1, t0, t1, format, ..] = *data else {
        return false;
    };
    let vertices = u64::from(u16::from_le_bytes([v0, v1]));
    let triangles = u64::from(u16::from_le_bytes([t0, t1]));
    if vertices > u64::from(MAX_COUNT)
        || triangles > u64::from(MAX_COUNT)
        || format > 15
        || format & 1 == 0
    {
        return false;
    }
    let mut len = 5 + 24 + 6 * vertices;
    if format & 2 != 0 {
        len += 3 * vertices;
    }
    if format & 4 != 0 {
        len += 4 * vertices;
    }
    if format & 8 != 0 {
        len += 16 + 4 * vertices;
    }
    len += 6 * triangles;
    data.len() as u64 == len
}

#[cfg(test)]
mod tests {
    #[test]
    fn exact_lengths() {
        // 3 vertices, 1 triangle, all attributes: 5 + (24+18) + 9 + 12 + (16+12) + 6 = 102.
        let mut f = vec![3, 0, 1, 0, 15];
        f.resize(102, 0);
        assert!(super::sniff(&f));
        f.push(0);
        assert!(!super::sniff(&f));
        let no_positions = [0u8, 0, 0, 0, 2];
        assert!(!super::sniff(&no_positions));
        assert!(!super::sniff(&[1, 0]));
    }
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
