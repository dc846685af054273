//! VRTS and TMAP to meshfmt-core: vertices decoded where corners, bones and frames use
//! them, UVs decoded once. (CMAP colours are resolved through [`File::colours`].)

use meshfmt_core::Budget;
use meshfmt_core::glam::{Quat, Vec2, Vec3};

use crate::chunk::Body;
use crate::error::Result;
use crate::file::File;
use crate::types::Idx;

/// The vertex list and the header scale, looked up once.
pub(crate) struct Points<'a> {
    pub vertices: &'a [super::Vertex],
    pub scale: f32,
}

impl Points<'_> {
    /// Decoded x, y, z (times [`File::effective_scale`]) and w of vertex `i`.
    pub fn point(&self, i: Idx) -> Option<(Vec3, f32)> {
        let v = self.vertices.get(i.get()? as usize)?;
        let c = v.coords.map(|c| c.signed() as f32);
        Some((Vec3::new(c[0], c[1], c[2]) * self.scale, c[3]))
    }

    pub fn quat(&self, i: Idx) -> Option<Quat> {
        let v = self.vertices.get(i.get()? as usize)?;
        let c = v.coords.map(|c| c.signed() as f32);
        let q = Quat::from_xyzw(c[0], c[1], c[2], c[3]);
        // Quantized quaternions are slightly off unit length; m3d.h uses them as stored.
        Some(meshfmt_core::unit_quat_or_identity(q))
    }
}

/// The TMAP's UVs as core's (the first TMAP, as m3d.h keeps one), charged to `budget`.
pub(crate) fn uvs(file: &File, budget: &Budget) -> Result<Vec<Vec2>> {
    Ok(
        match file.chunks.iter().find_map(|c| match &c.body {
            Body::Tmap(t) => Some(&t.items),
            _ => None,
        }) {
            Some(items) => {
                budget.charge_items::<Vec2>("texture coordinates", items.len())?;
                items
                    .iter()
                    .map(|uv| Vec2::new(uv[0].unsigned() as f32, uv[1].unsigned() as f32))
                    .collect()
            }
            None => Vec::new(),
        },
    )
}
