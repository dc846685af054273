//! UNIGINE mesh files: `.mesh` and `.smesh`.
//!
//! | magic | extension | engine | contents |
//! |---|---|---|---|
//! | `mi08` | `.mesh` | UNIGINE 1.x | static mesh |
//! | `ms08` | `.smesh` | UNIGINE 1.x | skinned mesh with animations |
//! | `ms10`, `ms11` | `.mesh` | UNIGINE 2.0 - 2.x | static or skinned mesh, compact ints |
//! | `ms13`, `ms14` | `.mesh` | UNIGINE 2.19+ | ms14 stores geometry in LZ4 blocks |
//!
//! **Status:** this release detects the formats ([`sniff`]); reading and writing land
//! with the crate's format work. The API will follow the meshfmt shape: `read(&[u8])`
//! into faithful per-version types, `write`, and conversion to and from `meshfmt-core`.
//!
//! # The no-panic contract
//! Every function here takes untrusted bytes and never panics, hangs or allocates
//! beyond what the input justifies.
//!
//! ```
//! assert!(unigine_mesh::sniff(b"ms11\x01\x05root\x00"));
//! assert!(!unigine_mesh::sniff(b"an10"));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// Every mesh magic this crate knows, in file order.
pub const MAGICS: [&[u8; 4]; 7] = [
    b"mi08", b"ms08", b"ms10", b"ms11", b"ms13", b"ms14", b"ms15",
];

/// True when `data` starts with a UNIGINE mesh magic. Never allocates.
pub fn sniff(data: &[u8]) -> bool {
    data.get(..4)
        .is_some_and(|head| MAGICS.iter().any(|m| head == &m[..]))
}

#[cfg(test)]
mod tests {
    #[test]
    fn sniff_magics() {
        for m in super::MAGICS {
            assert!(super::sniff(m));
        }
        assert!(!super::sniff(b"ms1"));
        assert!(!super::sniff(b"ms12"));
        assert!(!super::sniff(b""));
    }
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
