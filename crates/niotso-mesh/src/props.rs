//! Property lists (`.skel` bones and `.anim` motions): sets of key/value Pascal strings.

use parsing_primitives::{RawString, Reader, Writer};

use crate::error::Result;

/// One set of (key, value) pairs.
pub type PropSet = Vec<(RawString, RawString)>;

/// `u32 n; n x { u32 n_pairs; n_pairs x (pstr key, pstr value) }`.
pub type PropsList = Vec<PropSet>;

/// Reads a [`PropsList`] (big-endian counts).
pub(crate) fn read_props_list(r: &mut Reader<'_>) -> parsing_primitives::Result<PropsList> {
    let n = r.u32_be()?;
    r.array(u64::from(n), 4, |r| {
        let pairs = r.u32_be()?;
        r.array(u64::from(pairs), 2, |r| {
            let k = RawString::from(r.pascal_u8()?);
            let v = RawString::from(r.pascal_u8()?);
            Ok((k, v))
        })
    })
}

fn count(w: &Writer, n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| w.invalid(format!("count {n} does not fit 32 bits")).into())
}

/// Writes a [`PropsList`].
pub(crate) fn write_props_list(w: &mut Writer, list: &PropsList) -> Result<()> {
    let n = count(w, list.len())?;
    w.u32_be(n);
    for set in list {
        let n = count(w, set.len())?;
        w.u32_be(n);
        for (k, v) in set {
            w.pascal_u8(k.as_bytes())?;
            w.pascal_u8(v.as_bytes())?;
        }
    }
    Ok(())
}
