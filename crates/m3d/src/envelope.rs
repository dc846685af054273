//! The `3DMO` envelope: total length, optional PRVW preview, then HEAD..OMD3 either as
//! plain chunks or as one zlib stream (notes/m3d.md section 1).

use parsing_primitives::{Limits, Reader};

use crate::FORMAT_NAME;
use crate::error::{Error, Result};

/// The envelope's parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    /// The PRVW chunk's content (a PNG), if any.
    pub preview: Option<Vec<u8>>,
    /// True when HEAD..OMD3 was zlib-compressed.
    pub compressed: bool,
    /// HEAD..OMD3, inflated.
    pub payload: Vec<u8>,
}

/// Splits a binary file into preview and (inflated) payload. The stored total length
/// is trusted only up to the buffer's end, unlike m3d.h.
pub fn split(data: &[u8], limits: &Limits) -> Result<Envelope> {
    let mut r = Reader::new(FORMAT_NAME, data).with_limits(*limits);
    r.field("magic", |r| r.magic(b"3DMO"))?;
    let total = r.field("total_len", |r| r.u32_le())? as usize;
    let end = total.min(data.len()).max(8);
    let mut r = Reader::new(FORMAT_NAME, data.get(..end).unwrap_or(data)).with_limits(*limits);
    r.skip(8)?;
    let mut preview = None;
    if r.peek(4).ok() == Some(b"PRVW".as_slice()) {
        preview = Some(r.field("PRVW", |r| {
            r.skip(4)?;
            let at = r.offset();
            let len = r.u32_le()? as usize;
            if len < 8 {
                return Err(r.invalid_at(at, format!("chunk length {len} is below 8")));
            }
            Ok(r.bytes(len - 8)?.to_vec())
        })?);
    }
    let at = r.offset();
    let rest = r.rest();
    if rest.starts_with(b"HEAD") {
        return Ok(Envelope {
            preview,
            compressed: false,
            payload: rest.to_vec(),
        });
    }
    let payload = inflate(rest, limits.max_alloc_bytes).map_err(|message| Error::Inflate {
        offset: at,
        message,
    })?;
    Ok(Envelope {
        preview,
        compressed: true,
        payload,
    })
}

/// Inflates a zlib stream (RFC 1950) into at most `cap` bytes: a compression bomb is an
/// error, not an allocation.
pub fn inflate(stream: &[u8], cap: u64) -> std::result::Result<Vec<u8>, String> {
    let cap = usize::try_from(cap).unwrap_or(usize::MAX);
    miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(stream, cap).map_err(|e| {
        match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => {
                format!("inflates past the limit of {cap} bytes")
            }
            s => format!("corrupt zlib stream ({s:?})"),
        }
    })
}

/// Compresses a payload as m3d.h's exporter does (zlib, best compression).
pub fn deflate(payload: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(payload, 10)
}
