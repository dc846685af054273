//! The GLB container: a 12-byte header, a JSON chunk padded with spaces and a BIN chunk
//! padded with zeros, each to a multiple of 4 bytes (glTF 2.0 spec, section 4.4).

use crate::error::CliError;

const JSON: u32 = 0x4E4F_534A;
const BIN: u32 = 0x004E_4942;

/// The `.glb` bytes for a JSON document and its binary buffer (omitted when empty).
pub fn write(json: &[u8], bin: &[u8]) -> Result<Vec<u8>, CliError> {
    let json_len = json.len().next_multiple_of(4);
    let bin_len = bin.len().next_multiple_of(4);
    let total = 12 + 8 + json_len + if bin.is_empty() { 0 } else { 8 + bin_len };
    let total32 = u32::try_from(total)
        .map_err(|_| CliError::format("gltf", format!("{total} bytes do not fit a GLB file")))?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    // Both lengths are below `total`, which fits a u32.
    out.extend_from_slice(&(json_len as u32).to_le_bytes());
    out.extend_from_slice(&JSON.to_le_bytes());
    out.extend_from_slice(json);
    out.resize(20 + json_len, b' ');
    if !bin.is_empty() {
        out.extend_from_slice(&(bin_len as u32).to_le_bytes());
        out.extend_from_slice(&BIN.to_le_bytes());
        out.extend_from_slice(bin);
        out.resize(total, 0);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn layout_by_hand() -> Result<(), crate::error::CliError> {
        let glb = super::write(b"{}", &[1, 2, 3, 4, 5])?;
        // 12 header + 8 + 4 (JSON "{}" + 2 spaces) + 8 + 8 (5 bytes + 3 zeros) = 40.
        assert_eq!(glb.len(), 40);
        assert_eq!(&glb[..12], b"glTF\x02\x00\x00\x00\x28\x00\x00\x00");
        assert_eq!(&glb[12..24], b"\x04\x00\x00\x00JSON{}  ");
        assert_eq!(&glb[24..32], b"\x08\x00\x00\x00BIN\x00");
        assert_eq!(&glb[32..], [1, 2, 3, 4, 5, 0, 0, 0]);
        let empty = super::write(b"{}", &[])?;
        assert_eq!(empty.len(), 24);
        Ok(())
    }
}
