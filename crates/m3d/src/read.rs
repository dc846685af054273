//! Reading a file: either form, told apart by its first bytes (the text form in
//! `ascii`), and the binary form here: the envelope (3DMO, PRVW, zlib), HEAD and the
//! chunk list, each chunk read through [`CHUNKS`](crate::chunk::CHUNKS).

use std::collections::HashMap;

use parsing_primitives::{Budget, ErrorKind, Reader, Result as PResult};

use crate::chunk::{self, Body, Chunk, HEAD, MODEL, OMD3, PRVW};
use crate::error::FORMAT;
use crate::error::{Error, Result};
use crate::file::File;
use crate::options::ReadOptions;
use crate::types::{Types, rest_copy};
use crate::zlib::{InflateError, inflate};

/// Reads a binary Model 3D file with default options.
///
/// ```
/// let file = m3d_format::File::default();
/// let bytes = file.write()?;
/// let back = m3d_format::read(&bytes)?;
/// assert_eq!(back, file);
/// # Ok::<(), m3d_format::Error>(())
/// ```
pub fn read(data: &[u8]) -> Result<File> {
    read_with(data, &ReadOptions::default())
}

/// Reads a binary (`3DMO`) or ASCII (`3dmodel`) Model 3D file, drawing on one budget
/// (`opts.budget`, or a fresh one of `opts.budget.limits()`): the inflated payload and everything
/// decoded from it are charged to it.
///
/// ```
/// use m3d_format::{Error, File, Limits, ReadOptions};
/// let bytes = File::default().write()?;
/// let tiny = ReadOptions { budget: m3d_format::Budget::new(Limits { max_alloc_bytes: 8, ..Limits::DEFAULT }), ..ReadOptions::default() };
/// let e = m3d_format::read_with(&bytes, &tiny).unwrap_err();
/// assert!(matches!(e, Error::Inflate { .. } | Error::OverBudget(_)), "{e}");
/// # Ok::<(), m3d_format::Error>(())
/// ```
pub fn read_with(data: &[u8], opts: &ReadOptions) -> Result<File> {
    read_in(data, &opts.budget.clone())
}

/// [`read_with`], charging `budget`.
pub(crate) fn read_in(data: &[u8], budget: &Budget) -> Result<File> {
    if data.starts_with(b"3dmo") {
        return crate::ascii::read(data, budget);
    }
    read_binary(data, budget)
}

/// The binary form (`3DMO`), after [`read_with`] has told it from the
/// text form.
pub(crate) fn read_binary(data: &[u8], budget: &Budget) -> Result<File> {
    let mut r = Reader::new(FORMAT, data).with_budget(budget.clone());
    r.magic(&MODEL)?;
    let at = r.offset();
    let total = r.field("length", |r| r.u32_le())? as usize;
    if total < 8 || total > data.len() {
        return Err(r
            .invalid_at(
                at,
                format!("total length {total} is not within 8..={}", data.len()),
            )
            .into());
    }
    // Bytes past the stated total length are ignored (as m3d.h does).
    let mut r = r.sub(total - 8)?;
    let mut preview = None;
    if r.peek(4).ok() == Some(&PRVW) {
        r.field("PRVW", |r| {
            r.skip(4)?;
            let at = r.offset();
            let len = r.u32_le()? as usize;
            if len < 8 {
                return Err(r.invalid_at(at, format!("chunk length {len} is below 8")));
            }
            let bytes = r.bytes(len - 8)?;
            r.charge_for("preview", bytes.len() as u64)?;
            preview = Some(bytes.to_vec());
            Ok(())
        })?;
    }
    if r.peek(4).ok() == Some(&HEAD) {
        let mut f = read_chunks(&mut r)?;
        f.preview = preview;
        f.compressed = false;
        return Ok(f);
    }
    let start = r.offset();
    let (payload, charged) = inflate(r.rest(), budget).map_err(|e| match e {
        InflateError::Stream(message) => Error::Inflate {
            offset: start,
            message,
        },
        InflateError::Budget(e) => Error::OverBudget(e),
    })?;
    let mut f = read_payload_in(&payload, budget).map_err(|e| match e {
        Error::Decode(d) => Error::Payload(d),
        other => other,
    })?;
    // The file holds what it decoded, not the payload: its charge is handed back.
    drop(payload);
    budget.release(charged);
    f.preview = preview;
    Ok(f)
}

/// Reads an uncompressed payload, `HEAD` through `OMD3` (what a compressed file inflates
/// to), drawing on `opts.budget`. Error offsets are
/// within the payload.
pub fn read_payload(payload: &[u8], opts: &ReadOptions) -> Result<File> {
    read_payload_in(payload, &opts.budget.clone())
}

fn read_payload_in(payload: &[u8], budget: &Budget) -> Result<File> {
    let mut r = Reader::new(FORMAT, payload).with_budget(budget.clone());
    Ok(read_chunks(&mut r)?)
}

/// How many chunks the headers chain through, from their lengths alone (a cut or bad
/// header stops the count: the reader then reports it).
fn count_chunks(mut b: &[u8]) -> usize {
    let mut n = 0usize;
    while let Some(h) = b.get(..8).filter(|h| !h.starts_with(&OMD3)) {
        let len = h
            .get(4..8)
            .and_then(|l| <[u8; 4]>::try_from(l).ok())
            .map_or(0, |l| u32::from_le_bytes(l) as usize);
        if len < 8 {
            break;
        }
        n += 1;
        b = b.get(len..).unwrap_or_default();
    }
    n
}

fn read_chunks(r: &mut Reader<'_>) -> PResult<File> {
    // As m3d.h: the payload must end with OMD3 (which also makes a cut file fail at once).
    if !r.rest().ends_with(&OMD3) {
        let end = r.offset() + r.remaining() as u64;
        return Err(r.invalid_at(end, "the payload does not end with OMD3"));
    }
    let (scale, types, strings) = r.field("HEAD", |r| {
        r.magic(&HEAD)?;
        let at = r.offset();
        let len = r.u32_le()? as usize;
        if len < 16 {
            return Err(r.invalid_at(at, format!("HEAD length {len} is below 16")));
        }
        let scale = r.f32_le()?;
        let tat = r.offset();
        let types = Types(r.u32_le()?);
        if types.vi() == 0 || types.si() == 0 {
            return Err(r.invalid_at(tat, "vi_t and si_t cannot be 3 (8 bytes)"));
        }
        let strings = r.field("strings", |r| {
            let b = r.bytes(len - 16)?;
            r.charge_for("string table", b.len() as u64)?;
            Ok(b.to_vec())
        })?;
        Ok((scale, types, strings))
    })?;
    // Chunks take 8 bytes at least and ~100 in memory: counted and charged up front.
    let n = count_chunks(r.rest());
    r.charge_for(
        "chunk list",
        (n as u64).saturating_mul(std::mem::size_of::<Chunk>() as u64),
    )?;
    let mut chunks = Vec::with_capacity(n);
    // Chunks seen of each magic, for the `MAGIC[i]` path step (a map: there can be
    // millions of chunks).
    let mut seen: HashMap<[u8; 4], usize> = HashMap::new();
    loop {
        if r.peek(4)? == OMD3 {
            r.skip(4)?;
            r.finish()?;
            break;
        }
        let magic: [u8; 4] = r.array_of()?;
        let at = r.offset();
        let len = r.u32_le()? as usize;
        if len < 8 {
            return Err(r.invalid_at(at, format!("chunk length {len} is below 8")));
        }
        let mut sub = r.sub(len - 8)?;
        let index = {
            let n = seen.entry(magic).or_insert(0);
            *n += 1;
            *n - 1
        };
        let kind = chunk::kind(magic);
        let body = sub.field(kind.map_or("chunk", |k| k.name), |r| {
            r.item(index, |r| match kind {
                Some(k) => (k.read)(r, types),
                None if magic == HEAD => Err(r.error(ErrorKind::InvalidValue {
                    message: "a second HEAD chunk".into(),
                })),
                None => Ok(Body::Extra {
                    magic,
                    data: rest_copy(r)?,
                }),
            })
        })?;
        let tail = rest_copy(&mut sub)?;
        chunks.push(Chunk { body, tail });
    }
    Ok(File {
        preview: None,
        compressed: true,
        scale,
        types,
        strings,
        chunks,
    })
}
