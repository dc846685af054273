//! VRTS problems: colour indices past the CMAP, skin indices past the skins.

use crate::context::problems::Check;
use crate::types::{Idx, Vertex};
use crate::vertex::Records;

/// Checks every vertex's colour (when colours are CMAP indices) and skin.
pub(crate) fn vertices(v: &Records<Vertex>, at: &dyn Fn() -> String, out: &mut Check) {
    let (ncmap, nskins) = (out.cmap, out.skins);
    for (i, v) in v.items.iter().enumerate() {
        if out.cmap_colors && v.color as usize >= ncmap {
            out.push("vertex colour", || {
                format!(
                    "{}.vertex[{i}].color: index {} past the {ncmap} colours",
                    at(),
                    v.color
                )
            });
        }
        if v.skin != Idx::MAX {
            let p = || format!("{}.vertex[{i}].skin", at());
            out.index("vertex skin", p, v.skin, nskins);
        }
    }
}
