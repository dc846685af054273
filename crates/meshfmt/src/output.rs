//! Writing a conversion's files so that nothing surprises: all or nothing, and never
//! over a file the user did not name.
//!
//! Every file is first written to a new temporary file in its own folder (created
//! exclusively, so a link planted there is never followed), and only when all of them
//! are complete are they moved into place: a conversion that fails leaves nothing
//! behind. The main output (the file the user named) replaces what is there, as `cp`
//! does; the files written beside it (a glTF's `.bin`, an OBJ's `.mtl`, a Vitaboy
//! `.skel`, the clips of `--anims-dir`) are created only where nothing is, a link
//! included, unless `force` is set: they are moved into place with a hard link, which
//! fails rather than replace, and a replaced link is replaced itself, never followed.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::convert::Outputs;
use crate::error::CliError;

/// Numbers temporary files apart within one process (batch conversions run in
/// parallel).
static NEXT_TEMPORARY: AtomicU64 = AtomicU64::new(0);

fn io(path: &Path, source: std::io::Error) -> CliError {
    CliError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// A new, empty temporary file beside `target`, created exclusively.
fn temporary_beside(target: &Path) -> Result<(PathBuf, std::fs::File), CliError> {
    // Cut, so the temporary's name stays within the 255 bytes file systems allow.
    let name: String = target
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned())
        .chars()
        .take(64)
        .collect();
    let dir = target.parent().unwrap_or(Path::new(""));
    loop {
        let n = NEXT_TEMPORARY.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".{name}.{}-{n}.meshfmt-tmp", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io(target, e)),
        }
    }
}

/// What to remove if the write does not complete.
#[derive(Default)]
struct Undo {
    temporaries: Vec<PathBuf>,
    created: Vec<PathBuf>,
}

impl Undo {
    fn run(&self) {
        for p in self.temporaries.iter().chain(&self.created) {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Moves the finished temporary `tmp` to `target`: replacing what is there when
/// `replace`, else only where nothing is.
fn put_in_place(tmp: &Path, target: &Path, replace: bool) -> Result<(), CliError> {
    if replace {
        return std::fs::rename(tmp, target).map_err(|e| io(target, e));
    }
    match std::fs::hard_link(tmp, target) {
        Ok(()) => {
            let _ = std::fs::remove_file(tmp);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(exists(target)),
        // A file system without hard links: checked, then moved (a file appearing in
        // between would be replaced).
        Err(_) => {
            if std::fs::symlink_metadata(target).is_ok() {
                return Err(exists(target));
            }
            std::fs::rename(tmp, target).map_err(|e| io(target, e))
        }
    }
}

fn exists(target: &Path) -> CliError {
    CliError::Exists(target.display().to_string())
}

/// Writes a conversion's `outputs` (the main output first, then the files beside it):
/// all of them or none. The main output replaces a file that is there; the others are
/// created only where nothing is (not even a link) unless `force`. Gives the paths
/// written.
///
/// ```
/// use meshfmt::output::write_outputs;
/// let dir = std::env::temp_dir().join(format!("meshfmt-doc-out-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let outputs = vec![(dir.join("a.gltf"), b"{}".to_vec()), (dir.join("a.bin"), vec![0; 4])];
/// write_outputs(&outputs, false)?;
/// // Again: the .bin is there now, so nothing is written without force.
/// let e = write_outputs(&outputs, false).unwrap_err();
/// assert!(e.to_string().ends_with("a.bin: already exists (--force replaces it)"));
/// write_outputs(&outputs, true)?;
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_outputs(outputs: &Outputs, force: bool) -> Result<Vec<PathBuf>, CliError> {
    let mut seen = HashSet::new();
    for (path, _) in outputs {
        if !seen.insert(path) {
            return Err(CliError::Usage(format!(
                "{}: two outputs of one conversion have this name",
                path.display()
            )));
        }
    }
    // Refused before anything is written.
    for (path, _) in outputs.iter().skip(1) {
        if !force && std::fs::symlink_metadata(path).is_ok() {
            return Err(exists(path));
        }
    }
    let mut undo = Undo::default();
    let result = write_all(outputs, force, &mut undo);
    if result.is_err() {
        undo.run();
    }
    result
}

fn write_all(outputs: &Outputs, force: bool, undo: &mut Undo) -> Result<Vec<PathBuf>, CliError> {
    use std::io::Write as _;
    let mut finished = Vec::with_capacity(outputs.len());
    for (path, bytes) in outputs {
        let (tmp, mut file) = temporary_beside(path)?;
        undo.temporaries.push(tmp.clone());
        file.write_all(bytes).map_err(|e| io(path, e))?;
        file.flush().map_err(|e| io(path, e))?;
        finished.push(tmp);
    }
    // The files beside the output first, the output itself last: a refusal leaves the
    // user's named file as it was.
    let order = (1..outputs.len()).chain(std::iter::once(0));
    let mut written = Vec::with_capacity(outputs.len());
    for i in order.filter(|&i| i < outputs.len()) {
        let (target, _) = &outputs[i];
        let main = i == 0;
        put_in_place(&finished[i], target, main || force)?;
        undo.temporaries.retain(|t| t != &finished[i]);
        if !main && !force {
            undo.created.push(target.clone());
        }
        written.push(target.clone());
    }
    // In the order given.
    written.rotate_right(1);
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::write_outputs;
    use std::path::PathBuf;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("meshfmt-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).map_err(|e| e.to_string()).ok();
        d
    }

    fn names(d: &std::path::Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .map(|r| {
                r.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }

    /// A refusal or a failure half way leaves the folder as it was: no output, no
    /// temporary, the named output not replaced.
    #[test]
    fn a_failed_write_leaves_nothing_behind() {
        let d = scratch("atomic");
        std::fs::write(d.join("a.gltf"), b"old").ok();
        std::fs::write(d.join("a.bin"), b"keep").ok();
        let outputs = vec![
            (d.join("a.gltf"), b"new".to_vec()),
            (d.join("a.bin"), vec![1]),
        ];
        assert!(write_outputs(&outputs, false).is_err());
        assert_eq!(names(&d), ["a.bin", "a.gltf"]);
        assert_eq!(
            std::fs::read(d.join("a.gltf")).ok().as_deref(),
            Some(&b"old"[..])
        );
        // The second file's folder does not exist: the first is not left in place.
        let outputs = vec![
            (d.join("b.gltf"), b"new".to_vec()),
            (d.join("no-such-folder/b.bin"), vec![1]),
        ];
        assert!(write_outputs(&outputs, false).is_err());
        assert_eq!(names(&d), ["a.bin", "a.gltf"]);
        // A name near the 255-byte limit still gets a temporary.
        let long = d.join(format!("{}.glb", "n".repeat(240)));
        assert!(write_outputs(&vec![(long.clone(), vec![2])], false).is_ok());
        assert!(long.exists());
        let _ = std::fs::remove_dir_all(&d);
    }
}
