//! BONE and ACTN problems: parents, vertices, names and bones that point nowhere.

use crate::bones::{Action, Skeleton};
use crate::context::problems::Check;

/// Checks every bone's parent (it must come before the bone), vertices and name, and
/// every skin's bones.
pub(crate) fn skeleton(s: &Skeleton, at: &dyn Fn() -> String, out: &mut Check) {
    let (nv, nbones) = (out.vertices, out.bones);
    for (i, b) in s.bones.iter().enumerate() {
        let p = |f: &str| format!("{}.bone[{i}].{f}", at());
        out.index("bone parent", || p("parent"), b.parent, i);
        out.index("bone position", || p("pos"), b.pos, nv);
        out.index("bone orientation", || p("ori"), b.ori, nv);
        out.string("bone name", || p("name"), b.name);
    }
    for (i, s) in s.skins.iter().enumerate() {
        for b in &s.bones {
            let p = || format!("{}.skin[{i}].bone", at());
            out.index("skin bone", p, *b, nbones);
        }
    }
}

/// Checks the action's name and every transform's bone and vertices.
pub(crate) fn action(a: &Action, at: &dyn Fn() -> String, out: &mut Check) {
    let (nv, nbones) = (out.vertices, out.bones);
    out.string("action name", || format!("{}.name", at()), a.name);
    for (i, f) in a.frames.iter().enumerate() {
        for t in &f.transforms {
            let p = || format!("{}.frame[{i}]", at());
            out.index("frame bone", || format!("{}.bone", p()), t.bone, nbones);
            out.index("frame position", || format!("{}.pos", p()), t.pos, nv);
            out.index("frame orientation", || format!("{}.ori", p()), t.ori, nv);
        }
    }
}
