//! MTRL problems: names past the string table.

use crate::context::problems::Check;
use crate::material::Material;

/// Checks the material's name and its map names.
pub(crate) fn material(m: &Material, at: &dyn Fn() -> String, out: &mut Check) {
    out.string("material name", || format!("{}.name", at()), m.name);
    for (k, s) in m.maps() {
        let p = || format!("{}.map {k}", at());
        out.string("material map", p, s);
    }
}
