//! MESH problems: undefined materials, parameter names past the table, corners that
//! point nowhere.

use crate::context::problems::Check;
use crate::mesh::{Mesh, MeshRecord};

/// Checks every record.
pub(crate) fn records(m: &Mesh, at: &dyn Fn() -> String, out: &mut Check) {
    let (nv, nt) = (out.vertices, out.tmap);
    for (i, r) in m.records.iter().enumerate() {
        match r {
            MeshRecord::UseMaterial(s) => {
                let known = out
                    .names
                    .key(*s)
                    .is_some_and(|k| out.materials.contains(&k));
                if s.0 != 0 && !known {
                    out.push("undefined material", || {
                        format!("{}.record[{i}]: material not defined", at())
                    });
                }
            }
            MeshRecord::UseParameter { name, .. } => {
                let p = || format!("{}.record[{i}]", at());
                out.string("parameter name", p, *name);
            }
            MeshRecord::Polygon { corners, .. } => {
                for (k, c) in corners.iter().enumerate() {
                    let p = |f: &str| format!("{}.record[{i}].corner[{k}].{f}", at());
                    if c.vertex.get().is_none() {
                        out.push("undefined corner vertex", || {
                            format!("{}: undefined", p("vertex"))
                        });
                    }
                    out.index("corner vertex", || p("vertex"), c.vertex, nv);
                    out.index("corner uv", || p("uv"), c.uv, nt);
                    out.index("corner normal", || p("normal"), c.normal, nv);
                    out.index("corner max", || p("max"), c.max, nv);
                }
            }
        }
    }
}
