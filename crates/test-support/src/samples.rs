//! Locating the third-party samples (never copied into the repository).

use std::path::{Path, PathBuf};

/// The workspace root (two levels above this crate).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| here.to_path_buf())
}

/// The samples folder: `$MESHFMT_SAMPLES` if set, else `../shared/samples` beside the
/// workspace root; `None` when it does not exist.
pub fn samples_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("MESHFMT_SAMPLES") {
        Some(d) => PathBuf::from(d),
        None => workspace_root().join("../shared/samples"),
    };
    dir.is_dir().then_some(dir)
}

/// `samples_dir()/sub` when it exists; otherwise prints a notice naming the test and
/// returns `None` so the test can return early (skipped, visibly).
pub fn samples_or_skip(sub: &str, test: &str) -> Option<PathBuf> {
    let dir = samples_dir().map(|d| d.join(sub)).filter(|d| d.is_dir());
    if dir.is_none() {
        // Written to the stderr handle, not with eprintln!, so the test harness does not
        // capture it: the skip shows in every run's output.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "NOTICE: {test} skipped: samples folder '{sub}' not found \
             (set MESHFMT_SAMPLES or put shared/ beside the workspace)"
        );
    }
    dir
}

/// Every file below `dir` whose extension is one of `extensions` (all files when
/// empty), sorted. Missing or unreadable folders give no files.
pub fn files_under(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if extensions.is_empty()
                || p.extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(|x| extensions.contains(&x))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn root_has_the_workspace_manifest() {
        assert!(super::workspace_root().join("Cargo.toml").is_file());
        assert!(super::workspace_root().join("crates").is_dir());
    }
}
