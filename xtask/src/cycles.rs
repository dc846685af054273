//! The module import graph of every crate, for the test that keeps it acyclic
//! (docs/ARCHITECTURE.md: imports go one way), and the same graph between a crate's
//! top-level files and folders, for crates whose folders stand in layers. A module's
//! edges are the modules its `crate::` and `super::` paths name (a path resolves to its
//! longest prefix that is a module; a module imported by name in `use crate::{..}` and
//! then used as `name::sub::item` counts as `name::sub`); test modules and comments are
//! left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`a::b`, empty for the crate root) to the source text of its file.
fn modules(src: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let Ok(rel) = p.strip_prefix(src) else {
                continue;
            };
            let mut parts: Vec<String> = rel
                .with_extension("")
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            if parts
                .last()
                .is_some_and(|l| l == "mod" || l == "lib" || l == "main")
            {
                parts.pop();
            }
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            // Unit tests may import anything.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let code: String = code
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            out.insert(parts.join("::"), code);
        }
    }
    out
}

/// The `::`-separated identifier path starting at `s`.
fn path_at(s: &str) -> String {
    let mut end = 0;
    let b = s.as_bytes();
    while end < b.len() {
        let c = b[end];
        if c.is_ascii_alphanumeric() || c == b'_' {
            end += 1;
        } else if c == b':' && b.get(end + 1) == Some(&b':') {
            let next = b.get(end + 2).copied().unwrap_or(b' ');
            if next.is_ascii_alphanumeric() || next == b'_' {
                end += 2;
            } else {
                break;
            }
        } else {
            break;
        }
    }
    s[..end].to_string()
}

/// Every crate module `from` names: resolved paths after `crate::` and `super::`.
fn edges(from: &str, code: &str, names: &BTreeSet<String>) -> BTreeSet<String> {
    let resolve = |path: &str| -> Option<String> {
        let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
        (1..=parts.len())
            .rev()
            .map(|k| parts[..k].join("::"))
            .find(|c| names.contains(c))
    };
    let mut out = BTreeSet::new();
    let mut add = |r: Option<String>| {
        if let Some(r) = r.filter(|r| {
            !r.is_empty()
                && r != from
                && !r.starts_with(&format!("{from}::"))
                && !from.starts_with(&format!("{r}::"))
        }) {
            out.insert(r);
        }
    };
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + 7..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = group.split('}').next().unwrap_or_default();
            for item in group.split(',') {
                let item = path_at(item.trim());
                add(resolve(&item));
                // `use crate::{mesh, ..}` then `mesh::ascii::read`.
                if let Some(head) = item.rsplit("::").next().filter(|h| !h.is_empty()) {
                    for (j, _) in code.match_indices(&format!("{head}::")) {
                        let before = code[..j].chars().next_back().unwrap_or(' ');
                        if !before.is_ascii_alphanumeric() && before != '_' && before != ':' {
                            add(resolve(&format!(
                                "{item}::{}",
                                path_at(&code[j + head.len() + 2..])
                            )));
                        }
                    }
                }
            }
        } else {
            add(resolve(&path_at(rest)));
        }
    }
    let parent = from.rsplit_once("::").map_or("", |p| p.0);
    for (i, _) in code.match_indices("super::") {
        let p = path_at(&code[i + 7..]);
        let full = if parent.is_empty() {
            p
        } else {
            format!("{parent}::{p}")
        };
        add(resolve(&full));
    }
    out
}

/// The import cycles of the crate whose sources are in `src`: each a list of modules
/// that reach each other (Tarjan's strongly connected components of more than one).
pub fn cycles(src: &Path) -> Vec<Vec<String>> {
    strongly_connected(&graph(src))
}

/// The import cycles between the rooms of `src` ([`rooms`]). None means every room
/// imports only rooms below it.
pub fn room_cycles(src: &Path) -> Vec<Vec<String>> {
    strongly_connected(&rooms(src))
}

/// The rooms of `src` (its top-level files and folders, a folder standing for every
/// module in it; the crate root, which re-exports the public API, left out) and the
/// rooms each imports.
pub fn rooms(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let room = |m: &str| m.split("::").next().unwrap_or_default().to_string();
    let mut rooms: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, to) in graph(src) {
        if m.is_empty() {
            continue;
        }
        let edges = rooms.entry(room(&m)).or_default();
        edges.extend(to.iter().map(|t| room(t)).filter(|t| *t != room(&m)));
    }
    rooms
}

/// Each module of `src` and the modules it imports.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules(src);
    let names: BTreeSet<String> = mods.keys().cloned().collect();
    mods.iter()
        .map(|(m, code)| (m.clone(), edges(m, code, &names)))
        .collect()
}

/// Tarjan's strongly connected components of more than one node.
fn strongly_connected(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, (usize, usize)>,
        stack: Vec<&'g str>,
        on: BTreeSet<&'g str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g str) {
            self.index.insert(v, (self.next, self.next));
            self.next += 1;
            self.stack.push(v);
            self.on.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.index[w].1.min(self.index[v].1);
                    self.index.entry(v).and_modify(|e| e.1 = low);
                } else if self.on.contains(w) {
                    let low = self.index[w].0.min(self.index[v].1);
                    self.index.entry(v).and_modify(|e| e.1 = low);
                }
            }
            if self.index[v].0 == self.index[v].1 {
                let mut comp = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    comp.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    comp.sort();
                    self.out.push(comp);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.out
}

#[cfg(test)]
mod tests {
    #[test]
    fn no_crate_has_a_module_import_cycle() {
        let crates = test_support::workspace_root().join("crates");
        let mut checked = 0;
        for e in std::fs::read_dir(&crates).into_iter().flatten().flatten() {
            let src = e.path().join("src");
            if src.is_dir() {
                let c = super::cycles(&src);
                assert!(c.is_empty(), "{}: {c:?}", e.path().display());
                checked += 1;
            }
        }
        assert!(checked >= 10, "{checked} crates");
    }

    #[test]
    fn a_cycle_is_found() {
        let dir = std::env::temp_dir().join(format!("xtask-cycles-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\n").unwrap();
        std::fs::write(dir.join("a/mod.rs"), "use crate::b::B;\n").unwrap();
        std::fs::write(dir.join("b.rs"), "use crate::{a};\nfn f() { a::g(); }\n").unwrap();
        assert_eq!(super::cycles(&dir), [["a".to_string(), "b".to_string()]]);
        std::fs::write(dir.join("b.rs"), "pub struct B;\n").unwrap();
        assert!(super::cycles(&dir).is_empty());
    }

    /// docs/ARCHITECTURE.md (crates/m3d): the folders and top-level files of
    /// crates/m3d/src stand in layers (leaves, chunk modules, the file, drivers), each
    /// importing only rooms below it; a chunk module imports only the leaves.
    #[test]
    fn m3d_rooms_import_only_rooms_below() {
        let src = test_support::workspace_root().join("crates/m3d/src");
        let c = super::room_cycles(&src);
        assert!(c.is_empty(), "rooms of crates/m3d/src in a circle: {c:?}");
        let rooms = super::rooms(&src);
        let leaves = ["error", "options", "zlib", "types", "loaded", "context"];
        let chunks = [
            "vertex",
            "bones",
            "mesh",
            "material",
            "shape",
            "voxel",
            "label",
            "procedural",
            "asset",
            "extra",
        ];
        let not_leaves = |room: &str| -> Vec<&String> {
            let imports = rooms.get(room).into_iter().flatten();
            imports.filter(|r| !leaves.contains(&r.as_str())).collect()
        };
        for r in chunks.iter().chain(&leaves) {
            let up = not_leaves(r);
            assert!(up.is_empty(), "{r} imports {up:?}, which are not leaves");
        }
    }

    #[test]
    fn a_room_cycle_is_found() {
        let dir = std::env::temp_dir().join(format!("xtask-rooms-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\npub use a::x::X;\n").unwrap();
        std::fs::write(dir.join("a/mod.rs"), "pub mod x;\npub mod y;\n").unwrap();
        std::fs::write(dir.join("a/x.rs"), "use crate::b::B;\n").unwrap();
        // No module cycle, but the folder a/ and b.rs import each other.
        std::fs::write(dir.join("b.rs"), "use crate::a::y::Y;\n").unwrap();
        std::fs::write(dir.join("a/y.rs"), "pub struct Y;\n").unwrap();
        assert!(super::cycles(&dir).is_empty());
        assert_eq!(
            super::room_cycles(&dir),
            [["a".to_string(), "b".to_string()]]
        );
        std::fs::write(dir.join("b.rs"), "pub struct B;\n").unwrap();
        assert!(super::room_cycles(&dir).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
