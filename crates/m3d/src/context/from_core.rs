//! What from_core's chunk steps share: the string table, colour and index helpers, and
//! the [`FromCore`] context holding the lists several chunks add to.

use std::collections::HashMap;

use meshfmt_core::glam::{Quat, Vec3, Vec4};
use meshfmt_core::{Budget, Converted, Model};

use crate::error::{Result, invalid};
use crate::types::{Coord, Idx, SkinList, Str, Vertex};

/// The string table being built: one copy of each distinct string.
pub(crate) struct Strings {
    pub(crate) table: Vec<u8>,
    pub(crate) seen: HashMap<String, Str>,
    pub(crate) budget: Budget,
}

impl Strings {
    /// The offset of `s` (0 for the empty string), added when new.
    pub fn add(&mut self, s: &str) -> Result<Str> {
        if s.is_empty() {
            return Ok(Str(0));
        }
        if let Some(at) = self.seen.get(s) {
            return Ok(*at);
        }
        // The table's copy and the map's.
        self.budget
            .charge("string table", 2 * s.len() as u64 + 64)?;
        let at =
            Str(u32::try_from(self.table.len()).map_err(|_| invalid("string table too large"))?);
        // NUL ends a string in the table; one inside a name would cut it.
        self.table
            .extend(s.bytes().map(|b| if b == 0 { b' ' } else { b }));
        self.table.push(0);
        self.seen.insert(s.to_owned(), at);
        Ok(at)
    }
}

/// A core colour as 8-bit RGBA (R in the low byte).
pub(crate) fn vec4_to_rgba(c: Vec4) -> u32 {
    let q = |x: f32| (x.clamp(0.0, 1.0) * 255.0).round() as u8;
    u32::from_le_bytes([q(c.x), q(c.y), q(c.z), q(c.w)])
}

/// True when 8-bit RGBA holds the colour exactly (as the reader gives it back).
pub(crate) fn rgba_exact(c: Vec4) -> bool {
    let [r, g, b, a] = vec4_to_rgba(c).to_le_bytes();
    Vec4::new(f32::from(r), f32::from(g), f32::from(b), f32::from(a)) / 255.0 == c
}

/// `n` as an index, below the sentinels.
pub(crate) fn idx(n: usize) -> Result<Idx> {
    u32::try_from(n)
        .ok()
        .filter(|n| *n < Idx::MAX.0)
        .map(Idx)
        .ok_or_else(|| invalid(format!("index {n} too large")))
}

/// Four f32 coordinates.
pub(crate) fn f32s(v: [f32; 4]) -> [Coord; 4] {
    v.map(Coord::F32)
}

/// What the conversion builds that several chunk modules add to, and the model they
/// read (each module gives back its own chunks).
pub(crate) struct FromCore<'m> {
    /// The model, in M3D's coordinate system and bone order.
    pub model: &'m Model,
    /// The losses.
    pub out: Converted<()>,
    /// The string table.
    pub strings: Strings,
    /// What positions are divided by.
    pub scale: f32,
    /// VRTS: surface positions and normals, bone and frame poses.
    pub vertices: Vec<Vertex>,
    /// TMAP.
    pub tmap: Vec<[Coord; 2]>,
    /// BONE's skins.
    pub skins: SkinList,
    /// The materials written, in model order: the name (surfaces come back named after
    /// it) and its string (use-material records name it).
    pub materials: Vec<(String, Str)>,
    /// The name each texture is written under, by index: a name a reader resolves to a
    /// file (`NAME.png`), so one that would lead out of the model's folder is reduced
    /// to its file name ([`meshfmt_core::side_files::output_reference`]).
    pub texture_names: Vec<String>,
    /// The budget everything built is charged to.
    pub budget: Budget,
}

impl FromCore<'_> {
    /// A position vertex and an orientation (quaternion, skin -2) vertex, as bones and
    /// frames have them.
    pub fn bone_vertex(&mut self, t: Vec3, r: Quat) -> Result<(Idx, Idx)> {
        let p = t / self.scale;
        self.vertices.push(Vertex {
            coords: f32s([p.x, p.y, p.z, 1.0]),
            color: 0,
            skin: Idx::UNDEF,
        });
        self.vertices.push(Vertex {
            coords: f32s([r.x, r.y, r.z, r.w]),
            color: 0,
            skin: Idx::MAX,
        });
        Ok((idx(self.vertices.len() - 2)?, idx(self.vertices.len() - 1)?))
    }
}
