//! The payload's zlib stream: inflated within the budget, deflated at a level.

use parsing_primitives::{Budget, BudgetExceeded};

use crate::error::{Result, invalid};

/// One zlib stream of `payload` at `level` (zlib-rs, a port of zlib-ng), in a buffer of
/// deflate's worst-case size, charged first.
pub(crate) fn deflate(payload: &[u8], level: u8, budget: &Budget) -> Result<Vec<u8>> {
    let bound = zlib_rs::compress_bound(payload.len());
    budget.charge("compressed payload", bound as u64)?;
    let mut out = vec![0u8; bound];
    let config = zlib_rs::DeflateConfig::new(i32::from(level.min(9)));
    let (stream, rc) = zlib_rs::compress_slice(&mut out, payload, config);
    if !matches!(rc, zlib_rs::ReturnCode::Ok | zlib_rs::ReturnCode::StreamEnd) {
        return Err(invalid(format!("deflate failed ({rc:?})")));
    }
    let n = stream.len();
    out.truncate(n);
    Ok(out)
}

/// Why a zlib stream did not inflate.
pub(crate) enum InflateError {
    /// Corrupt, cut, or larger than
    /// [`Limits::max_alloc_bytes`](parsing_primitives::Limits::max_alloc_bytes) on its own.
    Stream(String),
    /// Larger than what the operation's budget has left.
    Budget(BudgetExceeded),
}

/// Inflates one zlib stream into at most
/// [`Limits::max_alloc_bytes`](parsing_primitives::Limits::max_alloc_bytes) bytes, charging the
/// buffer to `budget` as it grows (zlib-rs). The buffer starts at 5 times the input and
/// doubles within what the budget has left, so a stream that would inflate past either
/// stops there without allocating more. Also gives the bytes charged (the buffer before
/// it is cut to the payload's length), for handing back once the payload is dropped.
pub(crate) fn inflate(
    data: &[u8],
    budget: &Budget,
) -> std::result::Result<(Vec<u8>, u64), InflateError> {
    use zlib_rs::{Inflate, InflateFlush, Status};
    const WHAT: &str = "inflated payload";
    let limit = usize::try_from(budget.limits().max_alloc_bytes).unwrap_or(usize::MAX);
    let room = || usize::try_from(budget.remaining()).unwrap_or(usize::MAX);
    let mut z = Inflate::new(true, 15);
    // Meshes deflate to 20-50%: 5x the input usually fits without regrowth (pages
    // never written are never touched).
    let first = data
        .len()
        .saturating_mul(5)
        .clamp(64, limit.max(64))
        .min(limit.max(1))
        .min(room())
        .max(1);
    budget
        .charge(WHAT, first as u64)
        .map_err(InflateError::Budget)?;
    let mut out = vec![0u8; first];
    let (mut consumed, mut written) = (0usize, 0usize);
    loop {
        let input = data.get(consumed..).unwrap_or_default();
        let output = out.get_mut(written..).unwrap_or_default();
        let status = z
            .decompress(input, output, InflateFlush::NoFlush)
            .map_err(|e| InflateError::Stream(format!("corrupt stream ({})", e.as_str())))?;
        let (c, w) = (z.total_in() as usize, z.total_out() as usize);
        let progress = c != consumed || w != written;
        (consumed, written) = (c, w);
        match status {
            Status::StreamEnd => {
                let charged = out.len() as u64;
                out.truncate(written);
                return Ok((out, charged));
            }
            Status::Ok | Status::BufError if written == out.len() => {
                if out.len() >= limit {
                    return Err(InflateError::Stream(format!(
                        "inflates beyond the limit of {limit} bytes"
                    )));
                }
                let want = out.len().saturating_mul(2).min(limit) - out.len();
                // Within what is left, so a payload that fits is not refused for the
                // doubling; with nothing left the charge fails and names the payload.
                let step = match room() {
                    0 => want,
                    left => want.min(left),
                };
                budget
                    .charge(WHAT, step as u64)
                    .map_err(InflateError::Budget)?;
                out.resize(out.len() + step, 0);
            }
            Status::Ok | Status::BufError if consumed >= data.len() || !progress => {
                return Err(InflateError::Stream(
                    "the stream ends before its end marker".into(),
                ));
            }
            Status::Ok | Status::BufError => {}
        }
    }
}
