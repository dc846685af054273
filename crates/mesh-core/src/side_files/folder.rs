//! The file-system half of the policy: resolving a name under the allowed folders and
//! reading what it leads to through a reader capped by the budget.

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

use parsing_primitives::Budget;

use super::log::Log;
use super::name::{Part, Refusal, lexical_parts};
use super::{SideFile, SideFiles, Unavailable, fits, over_budget};
use crate::error::FormatError;

/// The side files of one input, under the policy of [this module](super): names resolve
/// from the input's folder to regular files inside it, or inside a folder added with
/// [`allow`](Self::allow). Every refusal and every path opened is kept.
///
/// ```
/// use meshfmt_core::{Budget, Limits};
/// use meshfmt_core::side_files::{SideFile, SideFiles, SideFolder};
/// let dir = std::env::temp_dir().join(format!("meshfmt-doc-side-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("model"))?;
/// std::fs::write(dir.join("model/buffer.bin"), [1, 2, 3])?;
/// std::fs::write(dir.join("secret.txt"), b"not yours")?;
/// let side = SideFolder::beside(&dir.join("model/a.gltf"), &Budget::new(Limits::DEFAULT));
/// assert_eq!(side.read("buffer.bin")?, SideFile::Found(vec![1, 2, 3]));
/// assert!(matches!(side.read("../secret.txt")?, SideFile::Unavailable(_)));
/// assert_eq!(side.refusals()[0].to_string(),
///     "side file '../secret.txt' refused: it leads outside the folders side files may come from");
/// assert_eq!(side.opened(), [dir.join("model/buffer.bin").canonicalize()?]);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct SideFolder {
    /// The input's folder, canonical; `None` when it cannot be resolved (then no name
    /// resolves).
    base: Option<PathBuf>,
    /// Every folder names may lead into, canonical, `base` first.
    allowed: Vec<PathBuf>,
    budget: Budget,
    log: Log,
}

impl SideFolder {
    /// The side files of the input at `input`: names resolve from its folder (the
    /// current folder for a bare file name), reads are capped by `budget` (shared).
    pub fn beside(input: &Path, budget: &Budget) -> Self {
        let dir = match input.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        Self::in_folder(dir, budget)
    }

    /// The side files of an input in `dir`.
    pub fn in_folder(dir: &Path, budget: &Budget) -> Self {
        let base = dir.canonicalize().ok();
        SideFolder {
            allowed: base.iter().cloned().collect(),
            base,
            budget: budget.clone(),
            log: Log::default(),
        }
    }

    /// Side files of an input that has no folder (bytes held in memory): no name
    /// resolves, so every side file is reported missing.
    ///
    /// ```
    /// use meshfmt_core::Budget;
    /// use meshfmt_core::side_files::{SideFile, SideFiles, SideFolder};
    /// let side = SideFolder::nowhere(&Budget::default());
    /// assert!(matches!(side.read("buffer.bin")?, SideFile::Unavailable(_)));
    /// assert!(side.folder().is_none() && side.opened().is_empty());
    /// # Ok::<(), meshfmt_core::format::FormatError>(())
    /// ```
    pub fn nowhere(budget: &Budget) -> Self {
        SideFolder {
            base: None,
            allowed: Vec::new(),
            budget: budget.clone(),
            log: Log::default(),
        }
    }

    /// Lets names lead into `dir` too (`meshfmt --side-files DIR`): a name is still
    /// resolved from the input's folder, so `../textures/wood.png` reads from a sibling
    /// folder once that folder (or one above it) is allowed. Fails when `dir` cannot be
    /// resolved.
    pub fn allow(&mut self, dir: &Path) -> std::io::Result<()> {
        let dir = dir.canonicalize()?;
        if !std::fs::metadata(&dir)?.is_dir() {
            return Err(std::io::Error::new(
                ErrorKind::InvalidInput,
                format!("{}: not a folder", dir.display()),
            ));
        }
        if !self.allowed.contains(&dir) {
            self.allowed.push(dir);
        }
        Ok(())
    }

    /// The input's folder, canonical (`None` when it could not be resolved).
    pub fn folder(&self) -> Option<&Path> {
        self.base.as_deref()
    }

    /// The budget reads are capped by.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// Every name refused so far (not missing files), in order, each once.
    pub fn refusals(&self) -> Vec<Unavailable> {
        self.log.refusals()
    }

    /// Every file opened so far, by canonical path, in order.
    pub fn opened(&self) -> Vec<PathBuf> {
        self.log.opened_paths()
    }

    /// Folders [`list`](Self::list) refused so far, by the name asked.
    pub fn refused_folders(&self) -> Vec<String> {
        self.log.refused_folders()
    }

    fn refuse(&self, name: &str, refusal: Refusal) -> Unavailable {
        self.log.refuse(name, refusal)
    }

    fn inside(&self, path: &Path) -> bool {
        self.allowed.iter().any(|root| path.starts_with(root))
    }

    /// The allowed root `path` is in (the longest), for walking its steps.
    fn root_of(&self, path: &Path) -> Option<&Path> {
        self.allowed
            .iter()
            .filter(|root| path.starts_with(root))
            .max_by_key(|root| root.as_os_str().len())
            .map(PathBuf::as_path)
    }

    /// `name` resolved from the input's folder: the canonical path of what it leads to,
    /// checked to be inside the allowed folders (links followed), or why not. Asks the
    /// file system only about paths inside the allowed folders.
    fn locate(&self, name: &str) -> Result<PathBuf, Unavailable> {
        let parts = lexical_parts(name).map_err(|r| self.refuse(name, r))?;
        let Some(base) = &self.base else {
            return Err(Unavailable::missing(name));
        };
        let mut path = base.clone();
        for part in parts {
            match part {
                Part::Name(n) => path.push(n),
                Part::Up => {
                    if !path.pop() {
                        return Err(self.refuse(name, Refusal::Outside));
                    }
                }
            }
        }
        if !self.inside(&path) {
            return Err(self.refuse(name, Refusal::Outside));
        }
        match path.canonicalize() {
            Ok(real) if self.inside(&real) => Ok(real),
            Ok(_) => Err(self.refuse(name, Refusal::Link)),
            // A dangling link reads as one that leads outside: the message must not tell
            // whether its target exists.
            Err(_) if self.link_on_the_way(&path) => Err(self.refuse(name, Refusal::Link)),
            Err(_) => Err(Unavailable::missing(name)),
        }
    }

    /// True when a step of `path` below its allowed root is a link.
    fn link_on_the_way(&self, path: &Path) -> bool {
        let Some(root) = self.root_of(path) else {
            return false;
        };
        path.ancestors()
            .take_while(|a| a.starts_with(root) && *a != root)
            .any(|a| std::fs::symlink_metadata(a).is_ok_and(|m| m.file_type().is_symlink()))
    }

    /// The regular files in the folder `name` (resolved as a side-file name is), by file
    /// name, each name's length charged (twice, plus 48 bytes of bookkeeping). A folder
    /// outside the allowed folders is refused quietly (kept in
    /// [`refused_folders`](Self::refused_folders), not in the refusals: the folders
    /// are the caller's guesses, not names from a file); a missing one lists nothing.
    pub fn list(&self, name: &str) -> Result<Vec<String>, FormatError> {
        let dir = if name.is_empty() || name == "." {
            match &self.base {
                Some(b) => b.clone(),
                None => return Ok(Vec::new()),
            }
        } else {
            match self.locate_quietly(name) {
                Ok(Some(d)) => d,
                Ok(None) => return Ok(Vec::new()),
                Err(()) => {
                    self.log.refused_folder(name);
                    return Ok(Vec::new());
                }
            }
        };
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Ok(Vec::new());
        };
        let mut names = Vec::new();
        for e in entries.flatten() {
            let Ok(t) = e.file_type() else { continue };
            if !(t.is_file() || t.is_symlink()) {
                continue;
            }
            let Some(n) = e.file_name().to_str().map(str::to_string) else {
                continue;
            };
            self.budget
                .charge("folder listing", (n.len() as u64).saturating_mul(2) + 48)?;
            names.push(n);
        }
        Ok(names)
    }

    /// [`locate`](Self::locate) without recording a refusal: `Err(())` when refused,
    /// `Ok(None)` when missing.
    fn locate_quietly(&self, name: &str) -> Result<Option<PathBuf>, ()> {
        match self.log.quietly(|| self.locate(name)) {
            Ok(p) => Ok(Some(p)),
            Err(u) => {
                if u.refusal.is_some() {
                    Err(())
                } else {
                    Ok(None)
                }
            }
        }
    }

    /// Reads the regular file at the canonical `path` found for `name`.
    fn read_located(&self, name: &str, path: &Path) -> Result<SideFile, FormatError> {
        // Checked before opening: opening a FIFO would wait for a writer.
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => return Ok(SideFile::Unavailable(self.refuse(name, Refusal::NotAFile))),
            Err(_) => return Ok(SideFile::Unavailable(Unavailable::missing(name))),
        }
        let file = match open_no_follow(path) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Ok(SideFile::Unavailable(Unavailable::missing(name)));
            }
            // Swapped for a link since the check.
            Err(e) if is_link_error(&e) => {
                return Ok(SideFile::Unavailable(self.refuse(name, Refusal::Link)));
            }
            Err(e) => return Err(io_error(name, e)),
        };
        self.log.opened(path.to_path_buf());
        let meta = file.metadata().map_err(|e| io_error(name, e))?;
        if !meta.is_file() {
            return Ok(SideFile::Unavailable(self.refuse(name, Refusal::NotAFile)));
        }
        match read_exactly(file, meta.len(), &self.budget).map_err(|e| match e {
            FormatError::Io(io) => io_error(name, io),
            other => other,
        })? {
            Some(bytes) => Ok(SideFile::Found(bytes)),
            None => Ok(SideFile::Unavailable(self.refuse(name, Refusal::Changed))),
        }
    }
}

impl SideFiles for SideFolder {
    fn read(&self, name: &str) -> Result<SideFile, FormatError> {
        match self.locate(name) {
            Ok(path) => self.read_located(name, &path),
            Err(u) => Ok(SideFile::Unavailable(u)),
        }
    }

    fn list(&self, name: &str) -> Result<Vec<String>, FormatError> {
        SideFolder::list(self, name)
    }

    fn folder_name(&self) -> Option<String> {
        self.base
            .as_deref()
            .and_then(Path::file_name)
            .and_then(|f| f.to_str())
            .map(str::to_string)
    }

    fn refused_folders(&self) -> Vec<String> {
        SideFolder::refused_folders(self)
    }

    fn refusals(&self) -> Vec<Unavailable> {
        SideFolder::refusals(self)
    }
}

/// An I/O error reading the side file `name`, naming it (escaped).
fn io_error(name: &str, e: std::io::Error) -> FormatError {
    FormatError::Io(std::io::Error::new(
        e.kind(),
        format!("side file {}: {e}", crate::text::quoted(name)),
    ))
}

/// True for the error opening a link without following it gives (`ELOOP`).
fn is_link_error(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// Opens `path` for reading without following a link in its last step and, on Unix,
/// without waiting on a FIFO.
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    o.open(path)
}

/// Reads the `len` bytes a regular file says it holds, refusing first when they do not
/// fit what is left of `budget`; `None` when the file holds more than `len` (it grew).
/// A size of 0 is taken as empty without reading: `/proc`-like files report 0 whatever
/// they produce, and reading some of them blocks.
fn read_exactly(file: File, len: u64, budget: &Budget) -> Result<Option<Vec<u8>>, FormatError> {
    fits("side file", len, budget)?;
    if len == 0 {
        return Ok(Some(Vec::new()));
    }
    let cap = usize::try_from(len).map_err(|_| over_budget("side file", len, budget))?;
    let mut bytes = Vec::with_capacity(cap);
    let mut reader = file.take(len);
    reader.read_to_end(&mut bytes)?;
    // A regular file at its end answers at once.
    let mut probe = [0u8; 1];
    let mut file = reader.into_inner();
    if file.read(&mut probe)? > 0 {
        return Ok(None);
    }
    Ok(Some(bytes))
}

/// Reads a file the user named (an input, `--anim`, `--skeleton`): links followed and
/// any kind of file accepted, as the user asked, but never more than what is left of
/// `budget`: a regular file larger than that is refused before it is read, and any file
/// (a pipe, a device, a file that grows or lies about its size) is read through a reader
/// that stops one byte past it. The bytes are not charged (the caller charges what it
/// keeps).
///
/// ```
/// use meshfmt_core::{Budget, Limits, side_files::read_named};
/// let path = std::env::temp_dir().join(format!("meshfmt-doc-named-{}", std::process::id()));
/// std::fs::write(&path, [7u8; 100])?;
/// assert_eq!(read_named(&path, &Budget::new(Limits::DEFAULT))?.len(), 100);
/// let small = Budget::new(Limits { max_alloc_bytes: 10, ..Limits::DEFAULT });
/// assert!(read_named(&path, &small).is_err());
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_named(path: &Path, budget: &Budget) -> Result<Vec<u8>, FormatError> {
    let file = File::open(path)?;
    let remaining = budget.remaining();
    let hint = match file.metadata() {
        Ok(m) if m.is_file() => {
            if m.len() > remaining {
                return Err(over_budget("the input file", m.len(), budget));
            }
            m.len()
        }
        _ => 0,
    };
    let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    file.take(remaining.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > remaining {
        return Err(over_budget("the input file", bytes.len() as u64, budget));
    }
    Ok(bytes)
}
