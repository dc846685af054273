//! UNIGINE animation files: `.anim` and `.sanim`.
//!
//! | magic | extension | engine |
//! |---|---|---|
//! | `as08` | `.sanim` | UNIGINE 1.x |
//! | `an10` | `.anim` | UNIGINE 2.0 - 2.18 |
//! | `an11` | `.anim` | UNIGINE 2.19+ |
//! | `an12` | `.anim` | documented, no public sample |
//!
//! **Status:** this release detects the formats ([`sniff`]); reading and writing land
//! with the crate's format work.
//!
//! # The no-panic contract
//! Every function here takes untrusted bytes and never panics, hangs or allocates
//! beyond what the input justifies.
//!
//! ```
//! assert!(unigine_anim::sniff(b"an10\x02"));
//! assert!(!unigine_anim::sniff(b"ms10"));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// Every animation magic this crate knows.
pub const MAGICS: [&[u8; 4]; 4] = [b"as08", b"an10", b"an11", b"an12"];

/// True when `data` starts with a UNIGINE animation magic. Never allocates.
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
        assert!(!super::sniff(b"an1"));
        assert!(!super::sniff(b"an13"));
    }
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
