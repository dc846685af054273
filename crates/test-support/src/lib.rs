//! Test helpers shared by every meshfmt crate (never published).
//!
//! - [`samples_or_skip`] / [`sample_file_or_skip`]: the third-party sample files, found
//!   through `$MESHFMT_SAMPLES` (a path) or `../shared/samples` beside the workspace root.
//!   A test whose samples are missing prints a notice and skips, unless
//!   `MESHFMT_REQUIRE_SAMPLES` is set (to anything but empty or `0`; CI sets `1`): then it
//!   fails. Tests over samples also assert how many files they checked;
//! - [`ByteBuilder`]: hand-assembled fixtures, one commented field per line;
//! - [`assert_truncations_fail`] and [`assert_flips_never_panic`]: the harnesses every
//!   decoder runs;
//! - [`assert_close`] and friends: float comparison with a stated bound;
//! - [`Rng`]: a deterministic generator for property tests;
//! - [`canonical`]: meshfmt-core's canonical models, re-exported;
//! - [`workloads`]: the benchmarks' generated models and in-memory sample sets;
//! - [`smallest_fitting`]: the smallest budget an operation fits in, by bisection.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod bench;
mod bytes;
mod compare;
mod harness;
mod models;
mod rng;
mod samples;
pub mod workloads;

pub use bytes::ByteBuilder;
pub use compare::{assert_close, assert_close_vec2, assert_close_vec3, assert_close_vec4};
pub use harness::{assert_flips_never_panic, assert_truncations_fail, run_with_deadline};
pub use meshfmt_core::canonical;
pub use models::textured_triangle;
pub use rng::Rng;
pub use samples::{
    REQUIRE_SAMPLES_VAR, files_under, sample_file_or_skip, samples_dir, samples_location,
    samples_or_skip, samples_required, workspace_root,
};

/// The smallest value in `lo..=hi` for which `fits` holds, by bisection: `fits` must be
/// false at `lo` and true at `hi`, and hold from some value on (a memory budget an
/// operation fits in). Panics otherwise, as a test would.
///
/// ```
/// assert_eq!(test_support::smallest_fitting(0, 1000, |v| v * v >= 600), 25);
/// ```
pub fn smallest_fitting(mut lo: u64, mut hi: u64, mut fits: impl FnMut(u64) -> bool) -> u64 {
    assert!(
        fits(hi) && !fits(lo),
        "fits must be false at {lo} and true at {hi}"
    );
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}
