//! Telling a Model 3D file, and its form, from its first bytes (a leaf: no parsing).

use crate::chunk;

/// True for a binary model (`3DMO`) or an ASCII one (`3dmo`, as the reference checks:
/// the text starts with `3dmodel`). Never allocates.
pub fn sniff(data: &[u8]) -> bool {
    matches!(data.get(..4), Some(b"3DMO") | Some(b"3dmo"))
}

/// Which form a file is in, as [`sniff_variant`] tells from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Variant {
    /// Binary `3DMO`; `compressed` when HEAD..OMD3 is a zlib stream.
    Binary {
        /// True for the usual zlib-compressed payload.
        compressed: bool,
        /// True when a PRVW preview image sits before the payload.
        preview: bool,
    },
    /// ASCII `3dmodel` text.
    Ascii,
}

/// The form of a Model 3D file (the format has no version number), without parsing or
/// allocating; `None` when [`sniff`] is false. The file can still be invalid.
///
/// ```
/// use m3d_format::{Variant, sniff_variant};
/// assert_eq!(sniff_variant(b"3dmodel 1\r\n"), Some(Variant::Ascii));
/// assert_eq!(
///     sniff_variant(b"3DMO\x20\0\0\0HEAD"),
///     Some(Variant::Binary { compressed: false, preview: false })
/// );
/// assert_eq!(sniff_variant(b"glTF"), None);
/// ```
pub fn sniff_variant(data: &[u8]) -> Option<Variant> {
    match data.get(..4)? {
        b"3dmo" => Some(Variant::Ascii),
        b"3DMO" => {
            let preview = data.get(8..12) == Some(&chunk::PRVW);
            let mut at = 8usize;
            if preview {
                let len = data.get(12..16)?;
                let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
                at = at.checked_add(len)?;
            }
            let compressed = data.get(at..at.checked_add(4)?) != Some(&chunk::HEAD);
            Some(Variant::Binary {
                compressed,
                preview,
            })
        }
        _ => None,
    }
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
