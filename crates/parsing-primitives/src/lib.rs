//! Checked reading and writing primitives shared by the meshfmt format crates.
//!
//! Every decoder in meshfmt takes untrusted bytes. This crate is where that is made safe
//! once, so the format crates stay small:
//!
//! - [`Reader`]: the one cursor all byte access goes through. Scalars (little- and
//!   big-endian) use nom's *complete* parsers; bulk arrays ([`Reader::le_array`]) are
//!   decoded in one copy through bytemuck, never one parser call per float.
//! - Counts read from a file are checked against the bytes left **before** anything is
//!   allocated ([`Reader::count`], [`Reader::array`]), and against [`Limits`].
//! - One [`Budget`] per operation: every decoded array is charged to it before it is
//!   allocated, and sub-readers, blocks and later steps (conversions, writers) share it.
//! - One [`Error`] type: byte offset, a context path (`surface[2] 'body'.tindices`) and
//!   an [`ErrorKind`]. Its `Display` is one line.
//! - [`Writer`]: the encoder side, with the same vocabulary plus back-patching.
//! - [`compact`]: UNIGINE's variable-length integers; [`RawString`]: names kept as bytes;
//!   [`lines`]: line splitting and tokens for the text formats; [`Credit`]: budget charges
//!   taken a block at a time; [`SharedBytes`]: a shared input a decoder keeps ranges of
//!   ([`Reader::over_shared`]) where it must keep stored bytes as they are;
//!   [`threads`]: work split over two threads, on one where none can start.
//!
//! # The no-panic contract
//! No function in this crate panics, hangs or allocates more than its [`Budget`]
//! allows on any input. Format crates inherit the contract by doing all byte access through
//! [`Reader`].
//!
//! # Example
//! ```
//! use parsing_primitives::{Reader, ErrorKind};
//! // A count of 0x7fffffff in a 10-byte input fails at once, allocating nothing.
//! let data = [0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0, 0, 0];
//! let mut r = Reader::new("example", &data);
//! let n = r.u32_le()?;
//! let err = r.field("positions", |r| r.le_array::<[f32; 3]>(u64::from(n))).unwrap_err();
//! assert!(matches!(err.kind(), ErrorKind::CountTooLarge { remaining: 6, .. }));
//! # Ok::<(), parsing_primitives::Error>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod budget;
pub mod compact;
mod element;
mod error;
mod limits;
pub mod lines;
mod reader;
mod shared;
mod text;
pub mod threads;
mod writer;

pub use budget::{Budget, BudgetExceeded, Credit};
pub use element::{Element, Endian, le_bytes, le_elements};
pub use error::{Error, ErrorKind, Result};
pub use limits::Limits;
pub use reader::{Reader, Segment, check_count, path_text};
pub use shared::SharedBytes;
pub use text::RawString;
pub use writer::{Patch, Writer};

/// The nom version this crate builds on, re-exported so format crates can write their
/// own nom parsers against the same types.
pub use nom;

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
