//! Companion files of a conversion: animation files named by patterns (`--anim
//! 'run_*.anim'`), the loose files a Vitaboy appearance refers to, and the file names
//! clips are split into (`--anims-dir`).

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use meshfmt_core::format::FormatError;
use meshfmt_core::side_files::{SideFiles, SideFolder};
use meshfmt_core::text::{MAX_NAME_CHARS, one_line};
use niotso_mesh::appearance::parse_loose_file_name;
use niotso_mesh::companions::AssetRef;
use niotso_mesh::{Asset, Assets};

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

/// Loose files by (file id, type id, lower-case extension) in one folder.
type FolderIndex = HashMap<(u32, u32, String), String>;

/// The FreeSO loose files around a Vitaboy appearance, found by asset reference: in the
/// appearance's folder, else in the sibling folder of the asset's kind (`Meshes/`,
/// `Bindings/`, `Textures/`), else one level up, in the same sub-folder of it, then in
/// it (an appearance in `Appearances/User/` finds `Bindings/User/`, then `Meshes/`).
/// Every folder is looked in through the side-file policy
/// ([`SideFolder`]): the sibling folders only when
/// the user allowed them (`--side-files` the content folder). Each folder is listed once
/// (its names charged to the budget); each file's size is checked against the budget
/// before it is read.
pub struct LooseFiles {
    side: SideFolder,
    folders: RefCell<HashMap<String, FolderIndex>>,
    /// True once an asset was not found.
    missed: Cell<bool>,
}

impl LooseFiles {
    /// The loose files around the appearance whose side files `side` gives.
    pub fn around(side: SideFolder) -> Self {
        LooseFiles {
            side,
            folders: RefCell::new(HashMap::new()),
            missed: Cell::new(false),
        }
    }

    /// The warning when an asset was not found and sibling folders were outside the
    /// allowed folders (at most one line).
    pub fn warnings(&self) -> Vec<String> {
        let refused = self.side.refused_folders();
        if !self.missed.get() || refused.is_empty() {
            return Vec::new();
        }
        vec![format!(
            "FreeSO folders beside the appearance ({}) are outside the folders side files may come from: --side-files DIR allows the content folder",
            one_line(&refused.join(", "), MAX_NAME_CHARS)
        )]
    }

    /// The folders an asset of `type_id` is looked for in, in order, as names relative
    /// to the appearance's folder.
    fn candidates(&self, type_id: u32) -> Vec<String> {
        let mut out = vec![String::new()];
        let kind = match type_id {
            niotso_mesh::appearance::TYPE_MESH => "Meshes",
            niotso_mesh::appearance::TYPE_BINDING => "Bindings",
            niotso_mesh::appearance::TYPE_TEXTURE | niotso_mesh::appearance::TYPE_PNG => "Textures",
            niotso_mesh::appearance::TYPE_APPEARANCE => "Appearances",
            _ => return out,
        };
        out.push(format!("../{kind}"));
        if let Some(sub) = self
            .side
            .folder()
            .and_then(|p| p.file_name())
            .and_then(|f| f.to_str())
        {
            out.push(format!("../../{kind}/{sub}"));
        }
        out.push(format!("../../{kind}"));
        out
    }

    /// The name of the file for `key` in `folder` (listed on first use).
    fn lookup(&self, folder: &str, key: &(u32, u32, String)) -> Result<Option<String>, CliError> {
        let mut folders = self.folders.borrow_mut();
        if !folders.contains_key(folder) {
            let mut index = FolderIndex::new();
            for name in self.side.list(folder)? {
                if let Some(l) = parse_loose_file_name(&name) {
                    index
                        .entry((
                            l.asset.file_id,
                            l.asset.type_id,
                            l.extension.to_ascii_lowercase(),
                        ))
                        .or_insert(name);
                }
            }
            folders.insert(folder.to_string(), index);
        }
        Ok(folders
            .get(folder)
            .and_then(|index| index.get(key))
            .map(|name| {
                if folder.is_empty() {
                    name.clone()
                } else {
                    format!("{folder}/{name}")
                }
            }))
    }

    fn find_name(&self, asset: AssetRef, extensions: &[&str]) -> Result<Option<String>, CliError> {
        for folder in self.candidates(asset.type_id) {
            for ext in extensions {
                let key = (asset.file_id, asset.type_id, ext.to_ascii_lowercase());
                if let Some(p) = self.lookup(&folder, &key)? {
                    return Ok(Some(p));
                }
            }
        }
        self.missed.set(true);
        Ok(None)
    }
}

impl Assets for LooseFiles {
    fn find(&self, asset: AssetRef, extensions: &[&str]) -> niotso_mesh::Result<Option<Asset>> {
        let found = self.find_name(asset, extensions).and_then(|name| {
            let Some(name) = name else { return Ok(None) };
            let Some(bytes) = self.side.read(&name)?.found() else {
                self.missed.set(true);
                return Ok(None);
            };
            self.side
                .budget()
                .charge("companion file", bytes.len() as u64)?;
            Ok(Some(Asset {
                name: name.rsplit('/').next().unwrap_or_default().to_string(),
                bytes,
            }))
        });
        found.map_err(|e| match e {
            CliError::File(FormatError::OverBudget(b)) => niotso_mesh::Error::OverBudget(b),
            other => niotso_mesh::Error::Io(std::io::Error::other(other.to_string())),
        })
    }
}
