//! Our EXT_meshopt_compression output decoded by the reference decoder (npm
//! meshoptimizer, the one three.js uses): every view of every canonical model and of a
//! large grid decodes, byte for byte, to what our own decoder gives (which the
//! importer reads, and `compress.rs` checks against the uncompressed values).
//! Needs node and `.ci/node_modules/meshoptimizer` (`npm ci --prefix .ci`); without
//! them the test says so and passes, unless MESHFMT_REQUIRE_MESHOPT_REF=1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::Command;

use gltf_json as json;
use meshfmt::gltf::{Compression, Container, export_with};
use meshfmt_core::{Budget, canonical};
use meshfmt_meshopt::{Filter, Mode, decode_gltf_buffer};

fn our_decoding(glb: &[u8]) -> Vec<u8> {
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let doc: json::Root = json::deserialize::from_slice(&glb[20..20 + len]).unwrap();
    let at = 20 + len;
    let bin_len = u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    let bin = &glb[at + 8..at + 8 + bin_len];
    let mut out = Vec::new();
    for v in &doc.buffer_views {
        let Some(ext) = v
            .extensions
            .as_ref()
            .and_then(|e| e.others.get("EXT_meshopt_compression"))
        else {
            continue;
        };
        let n = |k: &str| ext.get(k).and_then(|x| x.as_u64()).unwrap_or(0) as usize;
        let (offset, length, stride, count) = (
            n("byteOffset"),
            n("byteLength"),
            n("byteStride"),
            n("count"),
        );
        let mode = match ext["mode"].as_str().unwrap() {
            "ATTRIBUTES" => Mode::Attributes,
            "TRIANGLES" => Mode::Triangles,
            _ => Mode::Indices,
        };
        let filter = match ext.get("filter").and_then(|f| f.as_str()) {
            Some("OCTAHEDRAL") => Filter::Octahedral,
            Some("QUATERNION") => Filter::Quaternion,
            Some("EXPONENTIAL") => Filter::Exponential,
            _ => Filter::None,
        };
        let mut target = vec![0u8; count * stride];
        decode_gltf_buffer(
            &mut target,
            count,
            stride,
            &bin[offset..offset + length],
            mode,
            filter,
        )
        .unwrap();
        out.extend_from_slice(&target);
    }
    out
}

#[test]
fn reference_decoder_reads_our_views_as_we_do() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let module = root.join(".ci/node_modules/meshoptimizer");
    let node_ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !module.join("index.js").is_file() || !node_ok {
        assert!(
            std::env::var_os("MESHFMT_REQUIRE_MESHOPT_REF").is_none(),
            "node or {} missing (npm ci --prefix .ci)",
            module.display()
        );
        eprintln!(
            "notice: node or the meshoptimizer module is missing: the reference check is skipped"
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("meshfmt-meshopt-ref-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    for c in canonical::ALL {
        let model = (c.build)();
        let glb = export_with(
            &model,
            Container::Glb,
            Some(Compression::MESHOPT),
            &Budget::default(),
        )
        .unwrap()
        .value
        .main;
        let path = dir.join(format!("{}.glb", c.name));
        std::fs::write(&path, &glb).unwrap();
        files.push((path, glb));
    }
    let out = Command::new("node")
        .arg(root.join("crates/meshfmt/tests/meshopt_reference.mjs"))
        .arg(&module)
        .args(files.iter().map(|f| &f.0))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut views = 0;
    for (path, glb) in &files {
        let theirs = std::fs::read(path.with_extension("glb.decoded")).unwrap();
        let ours = our_decoding(glb);
        assert!(!ours.is_empty(), "{}: no compressed views", path.display());
        assert_eq!(theirs.len(), ours.len(), "{}", path.display());
        assert!(
            theirs == ours,
            "{}: the reference decodes differently",
            path.display()
        );
        views += 1;
    }
    assert_eq!(views, canonical::ALL.len());
    std::fs::remove_dir_all(&dir).ok();
}
