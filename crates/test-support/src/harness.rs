//! Harnesses every decoder runs: truncation at every byte and byte flips.

use std::panic::{AssertUnwindSafe, catch_unwind};

/// Decodes every strict prefix of `bytes` and asserts each one fails (returns `Err`)
/// without panicking. Use on a complete, valid file whose format has no optional tail.
pub fn assert_truncations_fail<T, E: std::fmt::Debug>(
    bytes: &[u8],
    decode: impl Fn(&[u8]) -> Result<T, E>,
) {
    for len in 0..bytes.len() {
        let prefix = &bytes[..len];
        let outcome = catch_unwind(AssertUnwindSafe(|| decode(prefix).is_err()));
        match outcome {
            Ok(true) => {}
            Ok(false) => panic!(
                "a prefix of {len} of {} bytes decoded without error",
                bytes.len()
            ),
            Err(_) => panic!("decoder panicked on a prefix of {len} bytes"),
        }
    }
}

/// Flips each byte of `bytes` with a few masks and decodes; asserts no panic (an error
/// or a value are both fine). For inputs up to `max_positions` bytes every position is
/// tried; longer inputs are sampled evenly.
pub fn assert_flips_never_panic<T, E>(
    bytes: &[u8],
    max_positions: usize,
    decode: impl Fn(&[u8]) -> Result<T, E>,
) {
    let n = bytes.len();
    let step = n.div_ceil(max_positions.max(1)).max(1);
    let mut buf = bytes.to_vec();
    for i in (0..n).step_by(step) {
        for mask in [0x01u8, 0x80, 0xff] {
            buf[i] ^= mask;
            let ok = catch_unwind(AssertUnwindSafe(|| {
                let _ = decode(&buf);
            }));
            buf[i] ^= mask;
            assert!(ok.is_ok(), "decoder panicked with byte {i} xor {mask:#04x}");
        }
    }
}

/// Runs `cmd` (its output already redirected) and waits at most `deadline`: the exit
/// code, or `None` when it was killed at the deadline (or ended by a signal).
///
/// ```
/// use std::time::Duration;
/// let code = test_support::run_with_deadline(std::process::Command::new("true"), Duration::from_secs(10));
/// assert_eq!(code, Some(0));
/// ```
pub fn run_with_deadline(
    mut cmd: std::process::Command,
    deadline: std::time::Duration,
) -> Option<i32> {
    let started = std::time::Instant::now();
    let mut child = cmd.spawn().ok()?;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status.code(),
            Ok(None) if started.elapsed() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(5)),
            Err(_) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict(b: &[u8]) -> Result<u32, ()> {
        match b {
            [a, b2, c, d] => Ok(u32::from_le_bytes([*a, *b2, *c, *d])),
            _ => Err(()),
        }
    }

    #[test]
    fn accepts_a_strict_decoder() {
        assert_truncations_fail(&[1, 2, 3, 4], strict);
        assert_flips_never_panic(&[1, 2, 3, 4], 100, strict);
    }

    #[test]
    #[should_panic(expected = "decoded without error")]
    fn catches_a_lenient_decoder() {
        assert_truncations_fail(&[1, 2, 3], |_b: &[u8]| Ok::<(), ()>(()));
    }

    #[test]
    #[should_panic(expected = "panicked")]
    fn catches_a_panicking_decoder() {
        assert_flips_never_panic(&[0, 0], 10, |b: &[u8]| -> Result<(), ()> {
            assert_eq!(b[0], 0);
            Ok(())
        });
    }
}
