//! Model 3D files: binary `.m3d` (`3DMO`) and ASCII `.a3d` (`3dmodel`).
//!
//! **Status:** this release detects the formats ([`sniff`]); reading and writing of
//! every chunk land with the crate's format work.
//!
//! # The no-panic contract
//! Every function here takes untrusted bytes and never panics, hangs or allocates
//! beyond what the input justifies, unlike the reference loader (see the crate docs of
//! later releases for the list of its crashes we guard against).
//!
//! ```
//! assert!(m3d_format::sniff(b"3DMO\x10\x00\x00\x00"));
//! assert!(m3d_format::sniff(b"3dmodel 1.0\r\n"));
//! assert!(!m3d_format::sniff(b"glTF"));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// True for a binary model (`3DMO`) or an ASCII one (`3dmo`, as the reference checks:
/// the text starts with `3dmodel`). Never allocates.
pub fn sniff(data: &[u8]) -> bool {
    matches!(data.get(..4), Some(b"3DMO") | Some(b"3dmo"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn sniff_both_forms() {
        assert!(super::sniff(b"3DMO"));
        assert!(super::sniff(b"3dmodel"));
        assert!(!super::sniff(b"3DM"));
        assert!(!super::sniff(b"3Dmo"));
    }
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
