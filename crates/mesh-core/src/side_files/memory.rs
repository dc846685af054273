//! The in-memory half of the policy: files a user handed over by name (a browser page's
//! dropped files), and names resolved among them as [`SideFolder`](super::SideFolder)
//! resolves them on disk. Nothing here asks the file system anything.

use std::collections::BTreeMap;
use std::sync::Arc;

use parsing_primitives::Budget;

use super::log::Log;
use super::name::{Part, Refusal, lexical_parts};
use super::{SideFile, SideFiles, Unavailable, fits};
use crate::error::FormatError;

/// Files held in memory, by relative name (`actor.mesh`, `textures/wood.png`): what a
/// user dropped on a page. Names are kept with `/` separators, `.` steps dropped and
/// `..` resolved; a name that is not a plain relative name inside the set (absolute,
/// a drive or network path, a URI, control characters, `..` out of it) is refused.
///
/// ```
/// use meshfmt_core::side_files::{FileSet, Refusal};
/// let mut set = FileSet::default();
/// set.insert("models\\a.gltf", b"{}".to_vec())?;
/// assert_eq!(set.get("./models/a.gltf"), Some(&b"{}"[..]));
/// assert_eq!(set.insert("../x.bin", vec![]), Err(Refusal::Outside));
/// assert_eq!(set.names().collect::<Vec<_>>(), ["models/a.gltf"]);
/// # Ok::<(), Refusal>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileSet {
    files: BTreeMap<String, Vec<u8>>,
}

impl FileSet {
    /// Adds (or replaces) the file `name`; refused when `name` is not a relative name
    /// inside the set.
    pub fn insert(&mut self, name: &str, bytes: Vec<u8>) -> Result<(), Refusal> {
        let key = resolve(&[], &lexical_parts(name)?)?.join("/");
        self.files.insert(key, bytes);
        Ok(())
    }

    /// The bytes of the file `name` (normalized as [`insert`](Self::insert) does).
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        let key = resolve(&[], &lexical_parts(name).ok()?).ok()?.join("/");
        self.files.get(&key).map(Vec::as_slice)
    }

    /// The file `name` the user named (an input, a companion), copied, as
    /// [`read_named`](super::read_named) reads one from disk: refused before it is
    /// copied when larger than what is left of `budget` (not charged: the caller
    /// charges what it keeps); `NotFound` when the set has no such file.
    pub fn read_named(&self, name: &str, budget: &Budget) -> Result<Vec<u8>, FormatError> {
        let bytes = self.get(name).ok_or_else(|| {
            FormatError::Io(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "not among the files given",
            ))
        })?;
        fits("the input file", bytes.len() as u64, budget)?;
        Ok(bytes.to_vec())
    }

    /// Every file, by name, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files.iter().map(|(n, b)| (n.as_str(), b.as_slice()))
    }

    /// Every file's name, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// The number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when the set holds no file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// True when `key` (normalized) is a folder of the set: some file's name starts
    /// with it and a `/`.
    fn is_folder(&self, key: &str) -> bool {
        let prefix = format!("{key}/");
        self.files
            .range(prefix.clone()..)
            .next()
            .is_some_and(|(k, _)| k.starts_with(&prefix))
    }
}

/// `parts` applied to the folder `base` (steps from the set's root); `..` above the
/// root leads out of the set.
fn resolve(base: &[String], parts: &[Part<'_>]) -> Result<Vec<String>, Refusal> {
    let mut path = base.to_vec();
    for part in parts {
        match part {
            Part::Name(n) => path.push((*n).to_string()),
            Part::Up => {
                path.pop().ok_or(Refusal::Outside)?;
            }
        }
    }
    Ok(path)
}

/// The side files of one input of a [`FileSet`]: names resolve from the input's folder
/// in the set, and may lead anywhere inside the set (the files the user handed over,
/// as if `--side-files` named the set's root), never out of it. Reads are capped by the
/// budget; refusals are kept, as [`SideFolder`](super::SideFolder) keeps them.
///
/// ```
/// use std::sync::Arc;
/// use meshfmt_core::Budget;
/// use meshfmt_core::side_files::{FileSet, MemoryFolder, SideFile, SideFiles};
/// let mut set = FileSet::default();
/// set.insert("model/a.gltf", b"{}".to_vec())?;
/// set.insert("model/a.bin", vec![1, 2])?;
/// set.insert("textures/wood.png", vec![3])?;
/// let side = MemoryFolder::beside(Arc::new(set), "model/a.gltf", &Budget::default());
/// assert_eq!(side.read("a.bin")?, SideFile::Found(vec![1, 2]));
/// assert_eq!(side.read("../textures/wood.png")?, SideFile::Found(vec![3]));
/// assert!(matches!(side.read("../../etc/passwd")?, SideFile::Unavailable(_)));
/// assert_eq!(side.refusals()[0].to_string(),
///     "side file '../../etc/passwd' refused: it leads outside the folders side files may come from");
/// assert_eq!(side.list("")?, ["a.bin", "a.gltf"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct MemoryFolder {
    files: Arc<FileSet>,
    /// The input's folder, as steps from the set's root.
    base: Vec<String>,
    budget: Budget,
    log: Log,
}

impl MemoryFolder {
    /// The side files of the set's file `input` (its name in the set; it need not be
    /// there): names resolve from its folder, reads are capped by `budget` (shared).
    pub fn beside(files: Arc<FileSet>, input: &str, budget: &Budget) -> Self {
        let mut base = lexical_parts(input)
            .ok()
            .and_then(|p| resolve(&[], &p).ok())
            .unwrap_or_default();
        base.pop();
        MemoryFolder {
            files,
            base,
            budget: budget.clone(),
            log: Log::default(),
        }
    }

    /// Every name refused so far (not missing files), in order, each once.
    pub fn refusals(&self) -> Vec<Unavailable> {
        self.log.refusals()
    }

    /// `name` resolved from the input's folder: its key in the set, or why not.
    fn locate(&self, name: &str) -> Result<String, Refusal> {
        let parts = lexical_parts(name)?;
        Ok(resolve(&self.base, &parts)?.join("/"))
    }
}

impl SideFiles for MemoryFolder {
    fn read(&self, name: &str) -> Result<SideFile, FormatError> {
        let key = match self.locate(name) {
            Ok(k) => k,
            Err(r) => return Ok(SideFile::Unavailable(self.log.refuse(name, r))),
        };
        match self.files.files.get(&key) {
            Some(bytes) => {
                fits("side file", bytes.len() as u64, &self.budget)?;
                Ok(SideFile::Found(bytes.clone()))
            }
            None if self.files.is_folder(&key) => Ok(SideFile::Unavailable(
                self.log.refuse(name, Refusal::NotAFile),
            )),
            None => Ok(SideFile::Unavailable(Unavailable::missing(name))),
        }
    }

    fn list(&self, name: &str) -> Result<Vec<String>, FormatError> {
        let dir = if name.is_empty() || name == "." {
            self.base.join("/")
        } else {
            match self.locate(name) {
                Ok(k) => k,
                Err(_) => {
                    self.log.refused_folder(name);
                    return Ok(Vec::new());
                }
            }
        };
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let mut names = Vec::new();
        // Names are sorted: the folder's files are one run from its prefix on.
        let run = self.files.files.range(prefix.clone()..).map(|(k, _)| k);
        for key in run.take_while(|k| k.starts_with(&prefix)) {
            let Some(rest) = key.strip_prefix(&prefix) else {
                continue;
            };
            if rest.contains('/') {
                continue;
            }
            self.budget
                .charge("folder listing", (rest.len() as u64).saturating_mul(2) + 48)?;
            names.push(rest.to_string());
        }
        Ok(names)
    }

    fn folder_name(&self) -> Option<String> {
        self.base.last().cloned()
    }

    fn refusals(&self) -> Vec<Unavailable> {
        MemoryFolder::refusals(self)
    }

    fn refused_folders(&self) -> Vec<String> {
        self.log.refused_folders()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Limits;

    fn set(files: &[(&str, &[u8])]) -> Arc<FileSet> {
        let mut s = FileSet::default();
        for (n, b) in files {
            assert!(s.insert(n, b.to_vec()).is_ok(), "{n}");
        }
        Arc::new(s)
    }

    /// Every kind of name the disk policy refuses is refused here too, with the same
    /// refusal, and none reaches a file of the set it should not.
    #[test]
    fn names_are_refused_as_on_disk() {
        let files = set(&[("a/in.gltf", b"{}"), ("a/b.bin", b"12"), ("c/t.png", b"p")]);
        let side = MemoryFolder::beside(files, "a/in.gltf", &Budget::default());
        let cases = [
            ("/a/b.bin", Some(Refusal::Absolute)),
            ("\\\\host\\a\\b.bin", Some(Refusal::Network)),
            ("C:\\a\\b.bin", Some(Refusal::Drive)),
            ("file:///a/b.bin", Some(Refusal::Uri)),
            ("b\0.bin", Some(Refusal::Unprintable)),
            ("../../a/b.bin", Some(Refusal::Outside)),
            ("", Some(Refusal::Empty)),
            ("../c", Some(Refusal::NotAFile)),
            ("missing.bin", None),
        ];
        for (name, want) in cases {
            let Ok(SideFile::Unavailable(u)) = side.read(name) else {
                panic!("{name:?} was read");
            };
            assert_eq!(u.refusal, want, "{name:?}");
        }
        assert_eq!(side.refusals().len(), 8);
        // Inside the set, through `..` and `\`: found.
        assert_eq!(
            side.read("..\\c\\t.png").ok(),
            Some(SideFile::Found(b"p".to_vec()))
        );
        assert_eq!(
            side.read("./b.bin").ok(),
            Some(SideFile::Found(b"12".to_vec()))
        );
        assert_eq!(side.folder_name().as_deref(), Some("a"));
    }

    #[test]
    fn reads_are_capped_by_the_budget_and_listings_stay_in_their_folder() {
        let files = set(&[("x.obj", b"v"), ("big.bin", &[0; 100]), ("sub/y.png", b"y")]);
        let small = Budget::new(Limits {
            max_alloc_bytes: 50,
            ..Limits::DEFAULT
        });
        let side = MemoryFolder::beside(files.clone(), "x.obj", &small);
        assert!(matches!(
            side.read("big.bin"),
            Err(FormatError::OverBudget(_))
        ));
        assert!(matches!(side.read("x.obj"), Ok(SideFile::Found(_))));
        let side = MemoryFolder::beside(files, "x.obj", &Budget::default());
        assert_eq!(
            side.list("").ok(),
            Some(vec!["big.bin".into(), "x.obj".into()])
        );
        assert_eq!(side.list("sub").ok(), Some(vec!["y.png".into()]));
        assert_eq!(side.list("../up").ok(), Some(Vec::new()));
        assert_eq!(side.refused_folders(), ["../up"]);
        assert_eq!(side.folder_name(), None);
    }
}
