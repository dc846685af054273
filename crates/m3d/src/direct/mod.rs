//! Decoding once: a binary file straight into [`Loaded`], without building the faithful
//! [`File`](crate::File) or holding the inflated payload: the payload is inflated in
//! pieces (on a second thread for large files, so parsing overlaps inflating) and parsed
//! as it comes ([`stream`]), the large arrays record by record into their loaded form
//! ([`records`]), the small chunks through their own decoders. Whatever this path does
//! not take (an ASCII file, a chunk that does not decode, a limit or the budget reached)
//! is left to the checked path, [`read_with`](crate::read_with) then
//! [`File::load`](crate::File::load), which gives the same model or the typed error with
//! its offset.

mod records;
mod stream;

use parsing_primitives::{Budget, threads};

use crate::chunk::{HEAD, MODEL, PRVW};
use crate::error::Result;
use crate::load::{LoadOptions, Loaded};
use crate::read::read_in;
use stream::Parser;

/// A Model 3D file loaded the way m3d.h's `m3d_load` leaves it: what
/// `read_with(data)?.load(opts)` gives, without keeping the faithful file or the whole
/// inflated payload in between. Binary files take the one-pass path; ASCII
/// files, and binary files it refuses, take the checked path, so errors are the same
/// typed errors with offsets. With a shared budget, a file the one-pass path refuses
/// is charged twice.
///
/// ```
/// use meshfmt_core::{Model, Surface, glam::Vec3};
/// let model = Model {
///     surfaces: vec![Surface {
///         positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
///         indices: vec![0, 1, 2],
///         ..Surface::default()
///     }],
///     ..Model::default()
/// };
/// let bytes = m3d_format::File::from_core(&model)?.value.write()?;
/// let opts = m3d_format::LoadOptions::default();
/// let loaded = m3d_format::load(&bytes, &opts)?;
/// assert_eq!(loaded, m3d_format::read(&bytes)?.load(&opts)?);
/// assert_eq!(loaded.faces.len(), 1);
/// # Ok::<(), m3d_format::Error>(())
/// ```
pub fn load(data: &[u8], opts: &LoadOptions) -> Result<Loaded> {
    // Only binary files have a one-pass path (and a budget made for it).
    if let Some(body) = envelope(data) {
        let budget = opts.budget.clone();
        if let Some(mut l) = one_pass(body, opts, &budget) {
            l.run_steps(opts)?;
            return Ok(l);
        }
    }
    // The checked path: read, then load, both charging one budget (a budget for each
    // would let the two together use twice the limit), lent to the read and moved into
    // the result: not cloned (a clone and its drop are two atomic operations; five of
    // them were 4% of loading voxel.a3d). Without a budget from the caller it is a
    // fresh one: what the one-pass path charged before it refused the file is not
    // carried over.
    let budget = opts.budget.clone();
    read_in(data, &budget)?.load_owned(opts, budget)
}

/// The one-pass load of the body inside the envelope, `None` for anything it leaves to
/// the checked path.
fn one_pass(body: &[u8], opts: &LoadOptions, budget: &Budget) -> Option<Loaded> {
    let mut parser = Parser::new(opts, budget.clone());
    if body.starts_with(&HEAD) {
        parser.feed(body)?;
    } else if body.len() < THREADED {
        // Small files: a window about their inflated size, not a whole piece.
        let window = body.len().saturating_mul(4).clamp(4 << 10, PIECE);
        inflate_pieces(body, &mut vec![0u8; window], |piece| parser.feed(piece))?;
    } else {
        inflate_beside(body, &mut parser)?;
    }
    parser.finish()
}

/// The one-pass load with the payload cut into pieces of `piece` bytes (inflated
/// without a second thread), then post-processed as [`load`] does: `None` where the
/// one-pass path leaves the file to the checked one. For fuzzing the piece boundaries.
#[doc(hidden)]
pub fn load_in_pieces(data: &[u8], opts: &LoadOptions, piece: usize) -> Option<Loaded> {
    let budget = opts.budget.clone();
    let body = envelope(data)?;
    let mut parser = Parser::new(opts, budget);
    let mut feed_all = |mut b: &[u8]| -> Option<()> {
        while !b.is_empty() {
            let (head, tail) = b.split_at(piece.max(1).min(b.len()));
            parser.feed(head)?;
            b = tail;
        }
        Some(())
    };
    if body.starts_with(&HEAD) {
        feed_all(body)?;
    } else {
        inflate_pieces(body, &mut vec![0u8; piece.max(1)], feed_all)?;
    }
    let mut l = parser.finish()?;
    l.run_steps(opts).ok()?;
    Some(l)
}

/// Bytes per inflated piece: small enough to stay in cache while it is parsed.
const PIECE: usize = 256 << 10;

/// Compressed inputs from this size on are inflated on a second thread.
const THREADED: usize = 256 << 10;

/// One step of inflating the zlib stream `z` into `out`: the bytes written and whether
/// the stream ended; `None` for a corrupt stream or one cut before its end (no progress).
fn inflate_step(st: &mut zlib_rs::Inflate, z: &[u8], out: &mut [u8]) -> Option<(usize, bool)> {
    use zlib_rs::{InflateFlush, Status};
    let (before_in, before_out) = (st.total_in(), st.total_out());
    let input = z.get(st.total_in() as usize..)?;
    let status = st.decompress(input, out, InflateFlush::NoFlush).ok()?;
    let got = (st.total_out() - before_out) as usize;
    match status {
        Status::StreamEnd => Some((got, true)),
        _ if got == 0 && st.total_in() == before_in => None,
        _ => Some((got, false)),
    }
}

/// Inflates the zlib stream `z` into `window` piece by piece, handing each piece to
/// `sink`; `None` for a corrupt or cut stream (or when `sink` refuses a piece).
fn inflate_pieces(
    z: &[u8],
    window: &mut [u8],
    mut sink: impl FnMut(&[u8]) -> Option<()>,
) -> Option<()> {
    let mut st = zlib_rs::Inflate::new(true, 15);
    loop {
        let (got, end) = inflate_step(&mut st, z, window)?;
        if got > 0 {
            sink(window.get(..got)?)?;
        }
        if end {
            return Some(());
        }
    }
}

/// [`inflate_pieces`] on a second thread, the pieces parsed on this one as they come;
/// their buffers go back to the inflater to be filled again. Where no thread can start
/// (`wasm32-unknown-unknown`), both run here, one piece at a time.
fn inflate_beside(z: &[u8], parser: &mut Parser<'_>) -> Option<()> {
    use std::sync::mpsc::sync_channel;
    let (full_tx, full_rx) = sync_channel::<(Vec<u8>, usize)>(2);
    let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(4);
    for _ in 0..3 {
        empty_tx.send(vec![0u8; PIECE]).ok()?;
    }
    std::thread::scope(|s| {
        let spawned = threads::spawn_scoped(s, move || {
            let mut st = zlib_rs::Inflate::new(true, 15);
            let mut buf = empty_rx.recv().ok()?;
            loop {
                let (got, end) = inflate_step(&mut st, z, &mut buf)?;
                if end {
                    return (got == 0 || full_tx.send((buf, got)).is_ok()).then_some(());
                }
                // A step that wrote nothing keeps its buffer (never one lost to the pool).
                if got > 0 {
                    full_tx.send((buf, got)).ok()?;
                    buf = empty_rx.recv().ok()?;
                }
            }
        });
        let Some(inflater) = spawned else {
            return inflate_pieces(z, &mut vec![0u8; PIECE], |piece| parser.feed(piece));
        };
        let mut ok = Some(());
        while let Ok((buf, got)) = full_rx.recv() {
            if ok.is_some() {
                ok = buf.get(..got).and_then(|piece| parser.feed(piece));
            }
            if ok.is_none() {
                break;
            }
            // The inflater may have finished and dropped its end: nothing to refill.
            let _ = empty_tx.send(buf);
        }
        drop(full_rx);
        drop(empty_tx);
        let inflated = inflater.join().ok().flatten();
        ok.and(inflated)
    })
}

/// The bytes after `3DMO`, its length and any preview: HEAD..OMD3 or its zlib stream.
fn envelope(data: &[u8]) -> Option<&[u8]> {
    let total = u32_at(data.strip_prefix(&MODEL)?, 0)? as usize;
    if total < 8 || total > data.len() {
        return None;
    }
    let body = data.get(8..total)?;
    match body.strip_prefix(&PRVW) {
        Some(rest) => {
            let len = u32_at(rest, 0)? as usize;
            (len >= 8).then_some(())?;
            body.get(len..)
        }
        None => Some(body),
    }
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let bytes = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(bytes.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every M3D fixture (and sample, when present) parsed from pieces of awkward sizes
    /// gives what one piece gives: records, headers and the string table cut anywhere.
    #[test]
    fn pieces_cut_anywhere_parse_alike() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files: Vec<std::path::PathBuf> = Vec::new();
        for dir in ["../../fixtures/m3d-format", "../../../shared/samples/m3d"] {
            if let Ok(entries) = std::fs::read_dir(root.join(dir)) {
                files.extend(entries.flatten().map(|e| e.path()));
            }
        }
        files.retain(|p| p.extension().is_some_and(|x| x == "m3d"));
        assert!(files.len() >= 4);
        let opts = LoadOptions::default();
        let mut checked = 0;
        for p in files {
            let Ok(data) = std::fs::read(&p) else {
                continue;
            };
            let Some(body) = envelope(&data) else {
                continue;
            };
            let payload = if body.starts_with(&HEAD) {
                body.to_vec()
            } else {
                match crate::zlib::inflate(body, &Budget::default()) {
                    Ok((p, _)) => p,
                    Err(_) => continue,
                }
            };
            let mut whole = Parser::new(&opts, Budget::default());
            let whole = whole.feed(&payload).and_then(|()| whole.finish());
            for sizes in [
                &[1usize][..],
                &[2, 3, 7],
                &[255, 256, 257],
                &[64, 1, 1000, 13],
            ] {
                let mut parser = Parser::new(&opts, Budget::default());
                let mut rest = payload.as_slice();
                let mut ok = Some(());
                for &n in sizes.iter().cycle() {
                    if rest.is_empty() || ok.is_none() {
                        break;
                    }
                    let (piece, tail) = rest.split_at(n.min(rest.len()));
                    ok = parser.feed(piece);
                    rest = tail;
                }
                let pieces = ok.and_then(|()| parser.finish());
                assert_eq!(
                    format!("{pieces:?}"),
                    format!("{whole:?}"),
                    "{} in pieces of {sizes:?}",
                    p.display()
                );
            }
            checked += 1;
        }
        assert!(checked >= 4, "{checked} files");
    }
}
