//! Test helpers shared by every meshfmt crate (never published).
//!
//! - [`samples_dir`] / [`samples_or_skip`]: the third-party sample files, found through
//!   `MESHFMT_SAMPLES` or `../shared/samples` beside the workspace root;
//! - [`ByteBuilder`]: hand-assembled fixtures, one commented field per line;
//! - [`assert_truncations_fail`] and [`assert_flips_never_panic`]: the harnesses every
//!   decoder runs;
//! - [`assert_close`] and friends: float comparison with a stated bound;
//! - [`Rng`]: a deterministic generator for property tests;
//! - [`canonical`]: meshfmt-core's canonical models, re-exported.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod bytes;
mod compare;
mod harness;
mod models;
mod rng;
mod samples;

pub use bytes::ByteBuilder;
pub use compare::{assert_close, assert_close_vec2, assert_close_vec3, assert_close_vec4};
pub use harness::{assert_flips_never_panic, assert_truncations_fail};
pub use meshfmt_core::canonical;
pub use models::textured_triangle;
pub use rng::Rng;
pub use samples::{files_under, samples_dir, samples_or_skip, workspace_root};
