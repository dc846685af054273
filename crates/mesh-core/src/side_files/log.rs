//! What a side-file loader refused and opened, kept for the tool's warnings, audits and
//! tests: one log both loaders ([`SideFolder`](super::SideFolder),
//! [`MemoryFolder`](super::MemoryFolder)) keep alike.

use std::path::PathBuf;
use std::sync::Mutex;

use super::Unavailable;
use super::name::Refusal;

#[derive(Debug, Default)]
struct Entries {
    opened: Vec<PathBuf>,
    refused: Vec<Unavailable>,
    /// Folders `list` was asked for and refused (the FreeSO layout's siblings), by the
    /// name asked.
    refused_folders: Vec<String>,
}

/// The log, shared by a loader's threads.
#[derive(Debug, Default)]
pub(super) struct Log(Mutex<Entries>);

impl Log {
    fn with<T>(&self, f: impl FnOnce(&mut Entries) -> T) -> T {
        match self.0.lock() {
            Ok(mut l) => f(&mut l),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        }
    }

    /// Records `name` refused (once) and gives the refusal.
    pub(super) fn refuse(&self, name: &str, refusal: Refusal) -> Unavailable {
        let u = Unavailable::refused(name, refusal);
        self.with(|l| {
            if !l.refused.contains(&u) {
                l.refused.push(u.clone());
            }
        });
        u
    }

    /// Runs `f`, forgetting the refusals it records (a guess, not a name from a file).
    pub(super) fn quietly<T>(&self, f: impl FnOnce() -> T) -> T {
        let before = self.with(|l| l.refused.len());
        let out = f();
        self.with(|l| l.refused.truncate(before));
        out
    }

    pub(super) fn refusals(&self) -> Vec<Unavailable> {
        self.with(|l| l.refused.clone())
    }

    pub(super) fn opened(&self, path: PathBuf) {
        self.with(|l| l.opened.push(path));
    }

    pub(super) fn opened_paths(&self) -> Vec<PathBuf> {
        self.with(|l| l.opened.clone())
    }

    pub(super) fn refused_folder(&self, name: &str) {
        self.with(|l| l.refused_folders.push(name.to_string()));
    }

    pub(super) fn refused_folders(&self) -> Vec<String> {
        self.with(|l| l.refused_folders.clone())
    }
}
