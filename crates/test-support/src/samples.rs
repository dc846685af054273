//! Locating the third-party samples (never copied into the repository).
//!
//! Where: `$MESHFMT_SAMPLES` (a path) if set, else `../shared/samples` beside the
//! workspace root.
//!
//! Whether they must be there: with `MESHFMT_REQUIRE_SAMPLES` set to anything but empty or
//! `0` (CI sets `1`), a missing samples folder, subfolder or named file makes the test
//! fail (panic). Without it the test prints a notice and returns (skipped, visibly), so a
//! clone without the samples still builds and tests everything else. (A switch of its
//! own, not a value of `MESHFMT_SAMPLES`: that one is a path for the benches and
//! `fuzz/run.sh` too.)

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The variable that makes missing samples a failure instead of a skip.
pub const REQUIRE_SAMPLES_VAR: &str = "MESHFMT_REQUIRE_SAMPLES";

/// The workspace root (two levels above this crate).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| here.to_path_buf())
}

fn dir_from(samples_var: Option<OsString>) -> PathBuf {
    match samples_var {
        Some(d) => PathBuf::from(d),
        None => workspace_root().join("../shared/samples"),
    }
}

fn required_from(require_var: Option<OsString>) -> bool {
    require_var.is_some_and(|v| !v.is_empty() && v != "0")
}

/// Where the samples are looked for: `$MESHFMT_SAMPLES` if set, else `../shared/samples`
/// beside the workspace root (whether or not it exists).
pub fn samples_location() -> PathBuf {
    dir_from(std::env::var_os("MESHFMT_SAMPLES"))
}

/// True when `MESHFMT_REQUIRE_SAMPLES` is set to anything but empty or `0`: missing
/// samples then fail the tests that use them.
pub fn samples_required() -> bool {
    required_from(std::env::var_os(REQUIRE_SAMPLES_VAR))
}

/// The samples folder ([`samples_location`]); `None` when it does not exist (whatever
/// [`samples_required`] says: this only looks).
pub fn samples_dir() -> Option<PathBuf> {
    let dir = samples_location();
    dir.is_dir().then_some(dir)
}

/// What to do about one looked-up path: found, skip (with this notice) or fail (with
/// this message).
#[derive(Debug, Clone, PartialEq)]
enum Found {
    Yes(PathBuf),
    Skip(String),
    Fail(String),
}

/// `root/sub` (and `root/sub/file` when given), decided from the two variables' values.
fn find(
    samples_var: Option<OsString>,
    require_var: Option<OsString>,
    sub: &str,
    file: Option<&str>,
    test: &str,
) -> Found {
    let root = dir_from(samples_var);
    let dir = root.join(sub);
    let (path, exists, what) = match file {
        None => (dir.clone(), dir.is_dir(), format!("samples folder '{sub}'")),
        Some(f) => {
            let p = dir.join(f);
            let ok = p.is_file();
            (p, ok, format!("sample file '{sub}/{f}'"))
        }
    };
    if exists {
        return Found::Yes(path);
    }
    if required_from(require_var) {
        Found::Fail(format!(
            "{test}: {what} not found at {} and {REQUIRE_SAMPLES_VAR} is set, so the samples \
             are required (set MESHFMT_SAMPLES to the samples folder, or unset \
             {REQUIRE_SAMPLES_VAR} to skip)",
            path.display()
        ))
    } else {
        Found::Skip(format!(
            "NOTICE: {test} skipped: {what} not found at {} (set MESHFMT_SAMPLES or put \
             shared/ beside the workspace; {REQUIRE_SAMPLES_VAR}=1 makes this a failure)",
            path.display()
        ))
    }
}

#[track_caller]
fn settle(found: Found) -> Option<PathBuf> {
    match found {
        Found::Yes(p) => Some(p),
        Found::Skip(notice) => {
            // Written to the stderr handle, not with eprintln!, so the test harness does
            // not capture it: the skip shows in every run's output.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "{notice}");
            None
        }
        Found::Fail(message) => panic!("{message}"),
    }
}

#[track_caller]
fn lookup(sub: &str, file: Option<&str>, test: &str) -> Option<PathBuf> {
    settle(find(
        std::env::var_os("MESHFMT_SAMPLES"),
        std::env::var_os(REQUIRE_SAMPLES_VAR),
        sub,
        file,
        test,
    ))
}

/// `samples folder/sub` when it exists. Otherwise, when [`samples_required`], panics
/// naming the test and the path; else prints a notice naming the test and returns `None`
/// so the test can return early (skipped, visibly).
///
/// ```
/// // A folder no samples set has: None (and a notice), or a panic under the switch.
/// let r = std::panic::catch_unwind(|| test_support::samples_or_skip("no-such-format", "doc"));
/// assert_eq!(r.is_err(), test_support::samples_required());
/// ```
#[track_caller]
pub fn samples_or_skip(sub: &str, test: &str) -> Option<PathBuf> {
    lookup(sub, None, test)
}

/// `samples folder/sub/name` when that file exists; otherwise the same skip-or-fail as
/// [`samples_or_skip`] (for the named files a test needs: expected results, a particular
/// sample).
#[track_caller]
pub fn sample_file_or_skip(sub: &str, name: &str, test: &str) -> Option<PathBuf> {
    lookup(sub, Some(name), test)
}

/// Every file below `dir` whose extension is one of `extensions` (all files when
/// empty), sorted; a link is listed as a file, never followed into (a link to a folder
/// above would list forever). Missing or unreadable folders give no files: tests over
/// samples assert how many files they checked.
pub fn files_under(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
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
    use super::*;

    #[test]
    fn root_has_the_workspace_manifest() {
        assert!(super::workspace_root().join("Cargo.toml").is_file());
        assert!(super::workspace_root().join("crates").is_dir());
    }

    #[test]
    fn the_switch_is_on_for_any_value_but_empty_or_zero() {
        assert!(!required_from(None));
        assert!(!required_from(Some("".into())));
        assert!(!required_from(Some("0".into())));
        assert!(required_from(Some("1".into())));
        assert!(required_from(Some("yes".into())));
    }

    #[test]
    fn missing_samples_skip_or_fail_by_the_switch() {
        // This crate's own folder stands in for a samples folder: it has src/lib.rs and no
        // "nothing-here".
        let root = || Some(OsString::from(env!("CARGO_MANIFEST_DIR")));
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        for require in [None, Some(OsString::from("1"))] {
            assert_eq!(
                find(root(), require.clone(), "src", None, "t"),
                Found::Yes(src.clone())
            );
            assert_eq!(
                find(root(), require.clone(), "src", Some("lib.rs"), "t"),
                Found::Yes(src.join("lib.rs"))
            );
        }
        let missing = [
            find(root(), None, "nothing-here", None, "t"),
            find(root(), None, "src", Some("nothing-here.json"), "t"),
            // A folder is not the file asked for.
            find(root(), None, ".", Some("src"), "t"),
        ];
        for m in &missing {
            assert!(
                matches!(m, Found::Skip(n) if n.starts_with("NOTICE: t skipped")),
                "{m:?}"
            );
        }
        let on = || Some(OsString::from("1"));
        let failed = [
            find(root(), on(), "nothing-here", None, "t"),
            find(root(), on(), "src", Some("nothing-here.json"), "t"),
        ];
        for f in &failed {
            assert!(
                matches!(f, Found::Fail(m) if m.starts_with("t: ") && m.contains("nothing-here")),
                "{f:?}"
            );
        }
        assert!(std::panic::catch_unwind(|| settle(failed[0].clone())).is_err());
        assert_eq!(settle(Found::Skip(String::new())), None);
    }
}
