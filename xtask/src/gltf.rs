//! `cargo xtask gltf OUT`: every committed fixture exported to glTF in OUT (as .glb, and
//! the skinned arm also as .gltf with a separate and with an embedded buffer), for the
//! Khronos validator that `.ci/run` runs on OUT; each also compressed for delivery
//! (`.quantized.glb`: KHR_mesh_quantization; `.meshopt.glb`: and EXT_meshopt_compression).

use std::path::Path;
use std::process::ExitCode;

use meshfmt::gltf::{Compression, Container, export_with};

pub fn run(out: &Path) -> ExitCode {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    if let Err(e) = std::fs::create_dir_all(out) {
        eprintln!("{}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    let mut files = Vec::new();
    let mut stack = vec![fixtures.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if !p.extension().is_some_and(|x| x == "txt" || x == "md") {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut written, mut failed) = (0, 0);
    for p in &files {
        let Ok(data) = std::fs::read(p) else { continue };
        let rel = p
            .strip_prefix(&fixtures)
            .unwrap_or(p)
            .to_string_lossy()
            .replace(['/', '\\'], "_");
        let Ok(f) = meshfmt::formats::detect(&data, &rel) else {
            continue;
        };
        let cx = meshfmt_core::format::Context::new(&rel);
        let model = match f.read(&data, &cx).and_then(|file| file.to_core(&cx)) {
            Ok(m) => m.value,
            Err(e) => {
                eprintln!("{rel}: {e}");
                failed += 1;
                continue;
            }
        };
        let mut containers = vec![
            (Container::Glb, None, format!("{rel}.glb")),
            (
                Container::Glb,
                Some(Compression::QUANTIZED),
                format!("{rel}.quantized.glb"),
            ),
            (
                Container::Glb,
                Some(Compression::MESHOPT),
                format!("{rel}.meshopt.glb"),
            ),
        ];
        if rel.starts_with("unigine-mesh_skinned_arm.ms11") {
            containers.push((
                Container::Separate(format!("{rel}.bin")),
                None,
                format!("{rel}.gltf"),
            ));
            containers.push((Container::Embedded, None, format!("{rel}.embedded.gltf")));
        }
        for (container, compression, name) in containers {
            match export_with(
                &model,
                container,
                compression,
                &meshfmt_core::Budget::default(),
            ) {
                Ok(g) => {
                    let mut ok = std::fs::write(out.join(&name), &g.value.main).is_ok();
                    if let Some(bin) = &g.value.buffer {
                        ok &= std::fs::write(out.join(format!("{rel}.bin")), bin).is_ok();
                    }
                    if ok {
                        written += 1;
                    } else {
                        failed += 1;
                    }
                }
                Err(e) => {
                    eprintln!("{name}: {e}");
                    failed += 1;
                }
            }
        }
    }
    println!(
        "gltf: {written} files written to {}, {failed} failures",
        out.display()
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
