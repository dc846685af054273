//! Two independent halves of a large read, write or build on two threads
//! ([`parsing_primitives::threads::beside`]: on one where none can start).

pub(crate) use parsing_primitives::threads::beside;

/// Meshes of this many triangles or more split their work over two threads (ms14
/// tree blocks, spatial tree builds); smaller ones stay on the caller's thread.
pub(crate) const THREADED_TRIANGLES: usize = 1 << 16;
