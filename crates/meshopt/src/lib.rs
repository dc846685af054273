//! EXT_meshopt_compression in pure Rust: the vertex, index and filter codecs, and the
//! vertex cache and vertex fetch optimizations that make their input compress well.
#![forbid(unsafe_code)]

mod error;
mod filter;
mod gltf;
mod index;
mod vcache;
mod vertex;
mod vfetch;

pub use error::{DecodeError, EncodeError};
pub use filter::{
    ExpMode, decode_filter_exp, decode_filter_oct, decode_filter_quat, encode_filter_exp,
    encode_filter_oct, encode_filter_quat,
};
pub use gltf::{Filter, Mode, decode_gltf_buffer};
pub use index::{
    decode_index_buffer, decode_index_sequence, encode_index_buffer, encode_index_sequence,
};
pub use vcache::{InvalidIndex, optimize_vertex_cache, optimize_vertex_cache_strip};
pub use vertex::{decode_vertex_buffer, encode_vertex_buffer, encoded_vertex_bound};
pub use vfetch::{
    analyze_vertex_cache, optimize_vertex_fetch_remap, remap_index_buffer, remap_vertex_buffer,
};
