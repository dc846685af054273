//! Files like other tools write them, made here because no public ones exist: they go
//! through the samples conformance (read, rewrite, every codec, read back, compare) as
//! the third-party samples do, from `cargo xtask fixtures`.
//!
//! MeshSerializer2 (the original script, specs/003): normals and tangents as bytes, so
//! decoded they are not unit length; Unity meshes whose own normals are not unit length
//! (scaled or hand-edited); no names at all.

use std::path::PathBuf;

use meshfmt_core::glam::{Vec3, Vec4};
use meshfmt_core::{Model, canonical};
use unity_meshser::{MeshFile, WriteOptions};

/// (relative path under fixtures/, bytes) of each quirk file.
pub fn files() -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let script = WriteOptions::compatible(true);
    let mut add = |name: &str, model: &Model| {
        if let Ok(f) = MeshFile::from_core_with(model, &script) {
            if let Ok(bytes) = f.value.write() {
                out.push((PathBuf::from(format!("quirks/{name}.bytes")), bytes));
            }
        }
    };
    // A skinned arm whose normals and tangents run from 0.6 to 1.4 times unit length,
    // as a Unity mesh scaled without renormalizing would hold them.
    let mut arm = canonical::skinned_arm3();
    for s in &mut arm.surfaces {
        let n = s.normals.len().max(1) as f32;
        for (i, v) in s.normals.iter_mut().enumerate() {
            *v *= 0.6 + 0.8 * i as f32 / n;
        }
        for (i, t) in s.tangents.iter_mut().enumerate() {
            let k = 1.4 - 0.8 * i as f32 / n;
            *t = (t.truncate() * k).extend(t.w);
        }
        s.name.clear();
    }
    arm.name.clear();
    add("unity_scaled_normals", &arm);
    // Diagonal normals (every component off the byte grid) and zero-length ones.
    let mut cube = canonical::cube();
    for s in &mut cube.surfaces {
        for (i, v) in s.normals.iter_mut().enumerate() {
            *v = match i % 3 {
                0 => Vec3::new(1.0, 1.0, 1.0).normalize(),
                1 => Vec3::new(0.3, -0.8, 0.2),
                _ => Vec3::ZERO,
            };
        }
        if s.tangents.is_empty() {
            s.tangents = vec![Vec4::new(0.5, 0.5, 0.0, -1.0); s.positions.len()];
        }
        s.name.clear();
    }
    add("unity_diagonal_normals", &cube);
    out
}

/// Runs every quirk file through the samples checks (written to a scratch folder: the
/// check reads files); the failures, one line each.
pub fn check() -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("meshfmt-quirks-{}", std::process::id()));
    let mut failures = Vec::new();
    for (rel, bytes) in files() {
        let path = dir.join(&rel);
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, &bytes));
        if let Err(e) = written {
            failures.push(format!("{}: {e}", path.display()));
            continue;
        }
        match crate::samples::check_one(&path) {
            Some((line, ok)) => {
                println!("{line}");
                if !ok {
                    failures.push(line);
                }
            }
            None => failures.push(format!("{}: not checked", rel.display())),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    failures
}
