//! LBLS problems: vertices and texts that point nowhere.

use crate::context::problems::Check;
use crate::label::Labels;

/// Checks every label's vertex and text.
pub(crate) fn labels(l: &Labels, at: &dyn Fn() -> String, out: &mut Check) {
    let nv = out.vertices;
    for (i, (v, s)) in l.labels.iter().enumerate() {
        let p = |f: &str| format!("{}.label[{i}].{f}", at());
        out.index("label vertex", || p("vertex"), *v, nv);
        out.string("label text", || p("text"), *s);
    }
}
