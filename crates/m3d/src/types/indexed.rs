//! The records other chunks point at by index, shared by every chunk module: a VRTS
//! vertex (bones, frames, corners and labels name them) and a BONE skin (vertices name
//! them; the text form writes them with the vertices).

use std::collections::HashMap;

use super::{Coord, Idx};

/// One VRTS record as stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vertex {
    /// x, y, z, w; positions are normalised to the unit cube (multiply x, y, z by
    /// [`File::scale`](crate::File)); `w` is 1 for positions, the scalar part of quaternions.
    pub coords: [Coord; 4],
    /// Colour field: CMAP index (ci u8/u16), literal RGBA with R in the low byte (ci u32),
    /// 0 when ci is absent.
    pub color: u32,
    /// Skin index; [`Idx::MAX`] marks a quaternion (bone orientation) vertex.
    pub skin: Idx,
}

/// One skin record.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Skin {
    /// `nb` weight bytes (255 = 1.0); empty when nb = 1 (the weight is implicitly 1).
    pub weights: Vec<u8>,
    /// One bone id per non-zero weight (exactly one when nb = 1).
    pub bones: Vec<Idx>,
}

/// Skins, and each one's index: a skin met again is found in one lookup, not a scan.
#[derive(Debug, Default)]
pub(crate) struct SkinList {
    /// The skins, in the order first met.
    pub skins: Vec<Skin>,
    ids: HashMap<Skin, usize>,
}

impl SkinList {
    /// The index of `skin`, added when new: `charge` pays for the list's copy and the
    /// map's first.
    pub fn id<E>(
        &mut self,
        skin: Skin,
        charge: impl FnOnce(usize) -> Result<(), E>,
    ) -> Result<usize, E> {
        if let Some(k) = self.ids.get(&skin) {
            return Ok(*k);
        }
        charge(2 * (std::mem::size_of::<Skin>() + 8 + 4 * skin.bones.len()) + 16)?;
        self.ids.insert(skin.clone(), self.skins.len());
        self.skins.push(skin);
        Ok(self.skins.len() - 1)
    }
}
