//! Side files: the files a model names (a glTF buffer, an OBJ material library, an M3D
//! texture), and the one policy every reader of them follows.
//!
//! A name inside a file is untrusted. [`SideFolder`], the loader the `meshfmt` tool and
//! its library give every conversion, resolves a name only to a **regular file inside
//! the input's folder** (or below it), or inside a folder the user allowed
//! ([`SideFolder::allow`]):
//!
//! - refused by the name alone, before the file system is asked anything: an empty
//!   name, control characters, absolute paths (`/etc/passwd`, `\x`), drive and UNC
//!   paths (`C:\x`, `\\host\share`), URIs (`file:`, `http:`), and `..` that leads out of
//!   the allowed folders;
//! - refused after resolving: a link that leads out of them (or nowhere: the message is
//!   the same, so it says nothing about what is outside), and anything that is not a
//!   regular file (devices, FIFOs, sockets, folders);
//! - read through a reader capped by the operation's [`Budget`]: a file larger than what
//!   is left is refused before it is read, a file that grows while it is read is
//!   refused, and a file whose size reads as 0 (`/proc`-like files of unknown size) is
//!   taken as empty without being read, so a read never blocks.
//!
//! A refused name is reported like a missing one ([`SideFile::Unavailable`], one line
//! naming the reference) and the reader goes on without it where the format allows; the
//! loader keeps the refusals ([`SideFolder::refusals`]) for the tool's warnings, and
//! every path it opened ([`SideFolder::opened`]) for audits and tests.
//!
//! Files held in memory ([`FileSet`]: a browser page's dropped files) follow the same
//! policy through [`MemoryFolder`], which never asks the file system anything: names
//! resolve among the set's files alone.
//!
//! Writers never copy a reference they cannot vouch for into an output:
//! [`output_reference`] keeps a relative name that stays inside its folder and reduces
//! anything else to its file name.
//!
//! What this does not cover: a local user who can rename folders inside the allowed
//! folders while a conversion runs could swap a checked folder for a link between the
//! check and the open (the final component is opened without following links).

mod folder;
mod log;
mod memory;
mod name;

use parsing_primitives::Budget;

pub use folder::{SideFolder, read_named};
pub use memory::{FileSet, MemoryFolder};
pub use name::{OutputReference, Part, Refusal, lexical_parts, output_reference};

use crate::error::FormatError;
use crate::text::quoted;

/// Files beside the main one, by the name the main file uses for them (a `.gltf`'s
/// buffer, an `.obj`'s material library, an `.m3d`'s texture).
pub trait SideFiles {
    /// The file `name` refers to: its bytes, or why there are none to read (missing, or
    /// refused by the implementation's policy). Implementations check a file's size
    /// against the operation's budget before reading it ([`FormatError::OverBudget`]);
    /// the caller charges the bytes it keeps.
    fn read(&self, name: &str) -> Result<SideFile, FormatError>;

    /// The regular files in the folder `name` (resolved as a side file's name is; `""` is
    /// the input's own folder), by file name: for formats that find their files by what
    /// the names say rather than by a name the main file stores (FreeSO's loose files,
    /// named by asset id). A folder the policy refuses lists nothing, and is kept for
    /// [`SideFiles::refused_folders`]. The default lists nothing.
    fn list(&self, name: &str) -> Result<Vec<String>, FormatError> {
        let _ = name;
        Ok(Vec::new())
    }

    /// The name of the input's own folder (`User` for `Appearances/User/x.apr`), if
    /// known: layouts that mirror sub-folders (FreeSO's `Bindings/User/`) look for it.
    fn folder_name(&self) -> Option<String> {
        None
    }

    /// Folders [`SideFiles::list`] was asked for and refused so far, by the name asked.
    fn refused_folders(&self) -> Vec<String> {
        Vec::new()
    }

    /// Names refused so far by the implementation's policy (not missing files), in
    /// order, each once: what the tool warns about. The default keeps none.
    fn refusals(&self) -> Vec<Unavailable> {
        Vec::new()
    }
}

/// What [`SideFiles::read`] found for a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SideFile {
    /// The file's bytes.
    Found(Vec<u8>),
    /// No file may be read for the name.
    Unavailable(Unavailable),
}

impl SideFile {
    /// The bytes, or `None` when unavailable.
    pub fn found(self) -> Option<Vec<u8>> {
        match self {
            SideFile::Found(b) => Some(b),
            SideFile::Unavailable(_) => None,
        }
    }
}

/// A side file that cannot be read, and why; `Display` is one printable line naming the
/// reference (escaped and cut), never saying what is or is not outside the allowed
/// folders.
///
/// ```
/// use meshfmt_core::side_files::{Refusal, Unavailable};
/// let u = Unavailable::refused("../../etc/passwd", Refusal::Outside);
/// assert_eq!(u.to_string(), "side file '../../etc/passwd' refused: it leads outside the folders side files may come from");
/// assert_eq!(Unavailable::missing("a.bin").to_string(), "side file 'a.bin' not found beside the input");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("side file {} {}", quoted(.name), match .refusal {
    Some(r) => format!("refused: {r}"),
    None => "not found beside the input".to_string(),
})]
pub struct Unavailable {
    /// The name as the file gives it.
    pub name: String,
    /// Why the policy refused it; `None`: there is no such file.
    pub refusal: Option<Refusal>,
}

impl Unavailable {
    /// No file of that name.
    pub fn missing(name: &str) -> Self {
        Unavailable {
            name: name.to_string(),
            refusal: None,
        }
    }

    /// Refused by the policy.
    pub fn refused(name: &str, refusal: Refusal) -> Self {
        Unavailable {
            name: name.to_string(),
            refusal: Some(refusal),
        }
    }
}

/// Side files from memory: `(name, bytes)` pairs, looked up by exact name (for tests and
/// embeddings that hold their files already), all in one folder (`""`), which
/// [`SideFiles::list`] lists. Names are not resolved, so no policy is needed.
///
/// ```
/// use meshfmt_core::side_files::{SideFile, SideFiles};
/// let files = vec![("a.bin".to_string(), vec![1u8]), ("b.png".to_string(), vec![2])];
/// assert_eq!(files.read("a.bin")?, SideFile::Found(vec![1]));
/// assert_eq!(files.list("")?, ["a.bin", "b.png"]);
/// assert!(files.list("../Meshes")?.is_empty());
/// # Ok::<(), meshfmt_core::format::FormatError>(())
/// ```
impl SideFiles for Vec<(String, Vec<u8>)> {
    fn read(&self, name: &str) -> Result<SideFile, FormatError> {
        Ok(self.iter().find(|(n, _)| n == name).map_or_else(
            || SideFile::Unavailable(Unavailable::missing(name)),
            |(_, b)| SideFile::Found(b.clone()),
        ))
    }

    fn list(&self, name: &str) -> Result<Vec<String>, FormatError> {
        Ok(if name.is_empty() || name == "." {
            self.iter().map(|(n, _)| n.clone()).collect()
        } else {
            Vec::new()
        })
    }
}

/// Refuses a file of `len` bytes that does not fit what is left of `budget`, before it
/// is read or copied.
fn fits(what: &'static str, len: u64, budget: &Budget) -> Result<(), FormatError> {
    if len > budget.remaining() {
        return Err(over_budget(what, len, budget));
    }
    Ok(())
}

/// The `BudgetExceeded` for `what`, a file of `len` bytes that does not fit `budget`.
fn over_budget(what: &'static str, len: u64, budget: &Budget) -> FormatError {
    FormatError::OverBudget(parsing_primitives::BudgetExceeded {
        what,
        requested: len,
        used: budget.used(),
        limit: budget.limits().max_alloc_bytes,
    })
}
