//! Companion files of a conversion: animation files named by patterns (`--anim
//! 'run_*.anim'`), and the file names clips are split into (`--anims-dir`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::error::CliError;

/// True when `name` matches `pattern`: `*` any run of characters (none included), `?`
/// exactly one character, anything else itself (case-sensitive). Linear in the lengths
/// times the stars' backtracking, never recursive.
///
/// ```
/// use meshfmt::companions::glob_match;
/// assert!(glob_match("run_*.anim", "run_fwd.anim"));
/// assert!(glob_match("walk_??.anim", "walk_lt.anim"));
/// assert!(!glob_match("run_*.anim", "walk_fwd.anim"));
/// assert!(glob_match("*", ""));
/// ```
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut i, mut j) = (0usize, 0usize);
    // Where the last star was, and where in `name` it started matching.
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        match p.get(i) {
            Some('*') => {
                star = Some((i, j));
                i += 1;
            }
            Some(&c) if c == '?' || c == n[j] => {
                i += 1;
                j += 1;
            }
            _ => match star {
                // Let the last star take one more character.
                Some((si, sj)) => {
                    i = si + 1;
                    j = sj + 1;
                    star = Some((si, sj + 1));
                }
                None => return false,
            },
        }
    }
    p[i.min(p.len())..].iter().all(|&c| c == '*')
}

fn has_wildcard(s: &str) -> bool {
    s.contains(['*', '?'])
}

/// The files a `--anim` value names: the path itself, or with `*`/`?` in its file name,
/// every file of its folder whose name matches, sorted by name. Wildcards in the folder
/// part, and a pattern that matches nothing, are usage errors.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("meshfmt-doc-glob-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// for f in ["run_fwd.anim", "run_lt.anim", "idle.anim"] {
///     std::fs::write(dir.join(f), b"")?;
/// }
/// let found = meshfmt::companions::expand(&dir.join("run_*.anim").to_string_lossy())?;
/// assert_eq!(found, [dir.join("run_fwd.anim"), dir.join("run_lt.anim")]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn expand(pattern: &str) -> Result<Vec<PathBuf>, CliError> {
    let path = Path::new(pattern);
    let dir = path.parent().unwrap_or(Path::new(""));
    if has_wildcard(&dir.to_string_lossy()) {
        return Err(CliError::Usage(format!(
            "--anim '{pattern}': wildcards are expanded in the file name only, not in folders"
        )));
    }
    let Some(file) = path.file_name().map(|f| f.to_string_lossy().into_owned()) else {
        return Ok(vec![path.to_path_buf()]);
    };
    if !has_wildcard(&file) {
        return Ok(vec![path.to_path_buf()]);
    }
    let listed = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let entries = std::fs::read_dir(listed).map_err(|source| CliError::Io {
        path: listed.display().to_string(),
        source,
    })?;
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file() || t.is_symlink()))
        .filter_map(|e| {
            let name = e.file_name();
            let name = name.to_str()?;
            glob_match(&file, name).then(|| dir.join(name))
        })
        .collect();
    if found.is_empty() {
        return Err(CliError::Usage(format!(
            "--anim '{pattern}' matches no file in {}",
            listed.display()
        )));
    }
    found.sort();
    Ok(found)
}

/// Names Windows reserves for devices, whatever the extension.
const RESERVED: [&str; 22] = [
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// Longest file stem made from a clip name.
const MAX_STEM: usize = 100;

/// A file stem for a clip named `name` that every file system takes: ASCII letters,
/// digits, `-` and `_` kept, anything else (spaces, dots, slashes, non-ASCII) made `_`,
/// at most 100 characters; `clip` for an empty name, a `_` after a name Windows
/// reserves (`CON`, `NUL`, ...).
///
/// ```
/// use meshfmt::companions::safe_stem;
/// assert_eq!(safe_stem("Take 001|run/fast"), "Take_001_run_fast");
/// assert_eq!(safe_stem("ébène"), "_b_ne");
/// assert_eq!(safe_stem(""), "clip");
/// assert_eq!(safe_stem("con"), "con_");
/// ```
pub fn safe_stem(name: &str) -> String {
    let mut s: String = name
        .chars()
        .take(MAX_STEM)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        s.push_str("clip");
    }
    if RESERVED.contains(&s.to_ascii_uppercase().as_str()) {
        s.push('_');
    }
    s
}

/// File stems for clips named `names`, in order: [`safe_stem`] of each, and when two
/// would be the same file (compared ignoring case, as on Windows and macOS) the later
/// gets `-2`, `-3`, ... (the first number that is free).
///
/// ```
/// use meshfmt::companions::clip_file_stems;
/// let names = ["idle", "Idle", "run fast", "run_fast", "idle-2"];
/// assert_eq!(clip_file_stems(&names), ["idle", "Idle-2", "run_fast", "run_fast-2", "idle-2-2"]);
/// ```
pub fn clip_file_stems<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    let mut taken = HashSet::new();
    // The next number to try per stem, so n equal names cost n tries, not n squared.
    let mut next: HashMap<String, u64> = HashMap::new();
    names
        .iter()
        .map(|n| {
            let base = safe_stem(n.as_ref());
            let key = base.to_ascii_lowercase();
            let mut stem = base.clone();
            while !taken.insert(stem.to_ascii_lowercase()) {
                let k = next.entry(key.clone()).or_insert(2);
                stem = format!("{base}-{k}");
                *k += 1;
            }
            stem
        })
        .collect()
}
