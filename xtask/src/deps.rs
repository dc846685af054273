//! The crate dependency rules of docs/ARCHITECTURE.md, as tests: a format crate never
//! depends on another (its `[dependencies]` name none; dev-dependencies may, for
//! examples that drive one format with another), and the tool names format crates in
//! its registry list alone (`crates/meshfmt/src/formats.rs`), so a new format touches
//! the tool in one place and everything else comes from its `FormatInfo`.

/// The format crates, by folder and package name.
const FORMAT_CRATES: &[(&str, &str)] = &[
    ("unigine-mesh", "unigine-mesh"),
    ("unigine-anim", "unigine-anim"),
    ("niotso-mesh", "niotso-mesh"),
    ("unity-meshser", "unity-meshser"),
    ("m3d", "m3d-format"),
];

/// The package names in the `[dependencies]` table of a manifest (and its target
/// tables), by the text before `=` or `.workspace` on each line.
fn dependencies(manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]"
                || (line.starts_with("[target.") && line.ends_with(".dependencies]"));
            continue;
        }
        if !in_deps || line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.split(['=', '.']).next() {
            out.push(name.trim().to_string());
        }
    }
    out
}

/// Every place in `source` (a Rust file's text, comments and doc examples included) that
/// names one of `crates` as a path (`unigine_mesh::`, `m3d_format::`), by line number.
fn crate_paths(source: &str, crates: &[&str]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in source.lines().enumerate() {
        for c in crates {
            let path = format!("{}::", c.replace('-', "_"));
            let named = line.match_indices(&path).any(|(at, _)| {
                // A whole identifier: not the end of a longer one (`my_unigine_mesh::`).
                line[..at]
                    .chars()
                    .next_back()
                    .is_none_or(|ch| !(ch.is_alphanumeric() || ch == '_'))
            });
            if named {
                out.push((i + 1, c.to_string()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{FORMAT_CRATES, crate_paths, dependencies};

    #[test]
    fn no_format_crate_depends_on_another() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates");
        let mut bad = Vec::new();
        for (dir, name) in FORMAT_CRATES {
            let text = std::fs::read_to_string(root.join(dir).join("Cargo.toml"))
                .unwrap_or_else(|e| panic!("{dir}: {e}"));
            let deps = dependencies(&text);
            assert!(deps.iter().any(|d| d == "meshfmt-core"), "{dir}: {deps:?}");
            for (_, other) in FORMAT_CRATES.iter().filter(|(_, o)| o != name) {
                if deps.iter().any(|d| d == other) {
                    bad.push(format!("{name} depends on {other}"));
                }
            }
        }
        assert!(bad.is_empty(), "{bad:?}");
    }

    #[test]
    fn dependencies_are_read_from_the_dependency_tables_only() {
        let toml = "[package]\nname = \"x\"\n[dependencies]\nglam.workspace = true\nnom = { version = \"8\" }\n# unigine-mesh\n[dev-dependencies]\nunigine-mesh.workspace = true\n[target.'cfg(unix)'.dependencies]\nlibc.workspace = true\n";
        assert_eq!(dependencies(toml), ["glam", "nom", "libc"]);
    }

    #[test]
    fn the_tool_names_format_crates_in_its_registry_list_only() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/meshfmt/src");
        let names: Vec<&str> = FORMAT_CRATES
            .iter()
            .map(|(_, n)| *n)
            .chain(["unigine-common"])
            .collect();
        let mut found = Vec::new();
        for file in test_support::files_under(&src, &["rs"]) {
            if file.ends_with("formats.rs") && file.parent().is_some_and(|p| p.ends_with("src")) {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
            for (line, c) in crate_paths(&text, &names) {
                found.push(format!("{}:{line} names {c}", file.display()));
            }
        }
        assert!(found.is_empty(), "{found:#?}");
    }

    #[test]
    fn crate_paths_are_whole_identifiers() {
        let names = ["unigine-mesh", "m3d-format"];
        let text = "use unigine_mesh::FORMAT;\nlet x = my_unigine_mesh::y;\n/// m3d_format::load\n(&m3d_format::FORMAT)";
        let found: Vec<(usize, String)> = crate_paths(text, &names);
        assert_eq!(
            found,
            [
                (1, "unigine-mesh".to_string()),
                (3, "m3d-format".to_string()),
                (4, "m3d-format".to_string()),
            ]
        );
    }
}
