//! What the drivers hand the chunk modules, one context per operation: the text
//! reader's parser, the text writer and the text form's losses, the problem list, and
//! what to_core's and from_core's chunk steps share. They name no chunk module, so
//! every chunk module may use them.

pub(crate) mod from_core;
pub(crate) mod parse;
pub(crate) mod problems;
pub(crate) mod text;
pub(crate) mod to_core;
