//! The crate dependency rule of docs/ARCHITECTURE.md, as a test: a format crate never
//! depends on another (its `[dependencies]` name none; dev-dependencies may, for
//! examples that drive one format with another).

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

#[cfg(test)]
mod tests {
    use super::{FORMAT_CRATES, dependencies};

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
}
