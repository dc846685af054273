//! FreeSO's loose files found through a side-file loader: the [`Assets`] an appearance
//! is assembled from when it is read from a folder (the format contract, and any tool
//! that holds a [`SideFiles`]).

use std::cell::RefCell;
use std::collections::HashMap;

use meshfmt_core::Budget;
use meshfmt_core::format::FormatError;
use meshfmt_core::side_files::SideFiles;

use crate::appearance::{
    TYPE_APPEARANCE, TYPE_BINDING, TYPE_MESH, TYPE_PNG, TYPE_TEXTURE, parse_loose_file_name,
};
use crate::companions::AssetRef;
use crate::error::{Error, Result};
use crate::options::{Asset, Assets};

/// Loose files by (file id, type id, lower-case extension) in one folder.
type FolderIndex = HashMap<(u32, u32, String), String>;

/// The FreeSO loose files around an appearance, found by asset reference: in the
/// appearance's folder, else in the sibling folder of the asset's kind (`Meshes/`,
/// `Bindings/`, `Textures/`), else one level up, in the same sub-folder of it, then in
/// it (an appearance in `Appearances/User/` finds `Bindings/User/`, then `Meshes/`).
/// Every folder is looked in through the side-file loader, so its policy decides
/// (the `meshfmt` tool's [`SideFolder`](meshfmt_core::side_files::SideFolder) lists
/// the sibling folders only when the user allowed them). Each folder is listed once;
/// each file read is charged to the budget.
///
/// ```
/// use meshfmt_core::Budget;
/// use niotso_mesh::companions::AssetRef;
/// use niotso_mesh::{Assets, loose::LooseFiles};
/// // No loader lists anything: nothing is found.
/// let files: Vec<(String, Vec<u8>)> = vec![];
/// let loose = LooseFiles::around(&files, Budget::default());
/// assert!(loose.find(AssetRef { file_id: 1, type_id: 9 }, &["mesh"])?.is_none());
/// # Ok::<(), niotso_mesh::Error>(())
/// ```
pub struct LooseFiles<'a> {
    side: &'a dyn SideFiles,
    budget: Budget,
    folders: RefCell<HashMap<String, FolderIndex>>,
}

impl<'a> LooseFiles<'a> {
    /// The loose files `side` gives (names relative to the appearance's folder), read
    /// under `budget`.
    pub fn around(side: &'a dyn SideFiles, budget: Budget) -> Self {
        LooseFiles {
            side,
            budget,
            folders: RefCell::new(HashMap::new()),
        }
    }

    /// The folders an asset of `type_id` is looked for in, in order, as names relative
    /// to the appearance's folder.
    fn candidates(&self, type_id: u32) -> Vec<String> {
        let mut out = vec![String::new()];
        let kind = match type_id {
            TYPE_MESH => "Meshes",
            TYPE_BINDING => "Bindings",
            TYPE_TEXTURE | TYPE_PNG => "Textures",
            TYPE_APPEARANCE => "Appearances",
            _ => return out,
        };
        out.push(format!("../{kind}"));
        if let Some(sub) = self.side.folder_name() {
            out.push(format!("../../{kind}/{sub}"));
        }
        out.push(format!("../../{kind}"));
        out
    }

    /// The name of the file for `key` in `folder` (listed on first use).
    fn lookup(&self, folder: &str, key: &(u32, u32, String)) -> Result<Option<String>> {
        let mut folders = self.folders.borrow_mut();
        if !folders.contains_key(folder) {
            let mut index = FolderIndex::new();
            for name in self.side.list(folder).map_err(error)? {
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

    fn find_name(&self, asset: AssetRef, extensions: &[&str]) -> Result<Option<String>> {
        for folder in self.candidates(asset.type_id) {
            for ext in extensions {
                let key = (asset.file_id, asset.type_id, ext.to_ascii_lowercase());
                if let Some(p) = self.lookup(&folder, &key)? {
                    return Ok(Some(p));
                }
            }
        }
        Ok(None)
    }
}

impl Assets for LooseFiles<'_> {
    fn find(&self, asset: AssetRef, extensions: &[&str]) -> Result<Option<Asset>> {
        let Some(name) = self.find_name(asset, extensions)? else {
            return Ok(None);
        };
        let Some(bytes) = self.side.read(&name).map_err(error)?.found() else {
            return Ok(None);
        };
        self.budget.charge("companion file", bytes.len() as u64)?;
        Ok(Some(Asset {
            name: name.rsplit('/').next().unwrap_or_default().to_string(),
            bytes,
        }))
    }
}

/// A loader's error as this crate's: over budget stays over budget, the rest is I/O.
fn error(e: FormatError) -> Error {
    match e {
        FormatError::OverBudget(b) => Error::OverBudget(b),
        FormatError::Io(io) => Error::Io(io),
        other => Error::Io(std::io::Error::other(other.to_string())),
    }
}
