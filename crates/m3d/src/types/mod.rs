//! The stored value kinds every chunk shares: the HEAD type bits, the values they
//! select (index, coordinate, string, colour), the vertex and skin records other chunks
//! index, how bytes decode into them (one place per width rule) and encode back, and
//! names matched by content.

mod bits;
mod colours;
mod cursor;
mod indexed;
mod names;
mod sink;
mod values;

pub(crate) use self::bits::ListLengths;
pub use self::bits::Types;
pub(crate) use self::colours::Colours;
pub(crate) use self::cursor::{
    Cur, Declined, Fields, read_coord, read_idx, read_raw, read_str, rest_copy,
};
pub(crate) use self::indexed::SkinList;
pub use self::indexed::{Skin, Vertex};
pub(crate) use self::names::{NameKey, Names, string_at};
pub(crate) use self::sink::Out;
pub use self::values::{Coord, Idx, Str};
pub(crate) use self::values::{idx_le, le};
