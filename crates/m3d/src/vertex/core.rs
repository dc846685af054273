//! TMAP to meshfmt-core: the UVs, decoded once. (VRTS is decoded where corners, bones
//! and frames use it, through [`Points`](crate::context::to_core::Points); CMAP colours
//! through [`File::colours`](crate::File).)

use meshfmt_core::Budget;
use meshfmt_core::glam::Vec2;

use crate::error::Result;
use crate::types::Coord;
use crate::vertex::Records;

/// The UVs of `tmap` (the first TMAP, as m3d.h keeps one) as core's, charged to
/// `budget`.
pub(crate) fn uvs(tmap: Option<&Records<[Coord; 2]>>, budget: &Budget) -> Result<Vec<Vec2>> {
    Ok(match tmap {
        Some(t) => {
            budget.charge_items::<Vec2>("texture coordinates", t.items.len())?;
            t.items
                .iter()
                .map(|uv| Vec2::new(uv[0].unsigned() as f32, uv[1].unsigned() as f32))
                .collect()
        }
        None => Vec::new(),
    })
}
