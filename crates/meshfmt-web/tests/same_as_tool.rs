//! The page's conversion over files in memory gives what the tool's gives over the same
//! files on disk (with `--side-files` on their folder): the same files, bytes, losses and
//! warnings, for every case of `cases.json` (the browser test's list), and for each case's
//! way back. Natively, so `cargo test` checks it without a browser; the browser test
//! checks the WebAssembly build against the tool's binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use meshfmt::convert::{ConvertOptions, convert_lenient};
use meshfmt_core::side_files::FileSet;
use meshfmt_web::Request;
use serde_json::Value;

fn source(root: &Path, samples: Option<&Path>, r: &str) -> Option<PathBuf> {
    let (kind, rel) = r.split_once(':')?;
    match kind {
        "samples" => samples.map(|s| s.join(rel)),
        _ => Some(root.join("fixtures").join(rel)),
    }
}

/// Both sides of one conversion; `files` by name. Gives the page's outputs.
fn same(what: &str, files: &[(String, Vec<u8>)], options: &Value) -> Vec<(String, Vec<u8>)> {
    let request = Request::from_json(&options.to_string()).unwrap();
    let mut set = FileSet::default();
    for (n, b) in files {
        set.insert(n, b.clone()).unwrap();
    }
    let page = meshfmt_web::convert(&Arc::new(set), &request).unwrap();

    // The tool: the same files in a folder, named from it.
    let dir = std::env::temp_dir().join(format!("meshfmt-web-same-{}-{what}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (n, b) in files {
        let p = dir.join(n);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b).unwrap();
    }
    let opts = ConvertOptions {
        skeleton: request.skeleton.as_ref().map(|s| dir.join(s)),
        anims: request.anims.iter().map(|a| dir.join(a)).collect(),
        anims_dir: request.split.then(|| dir.join("out")),
        side_folders: vec![dir.clone()],
        files: None,
        ..request.options()
    };
    let output = dir.join("out").join(&page.files[0].0);
    let input = dir.join(&request.main);
    let data = std::fs::read(&input).unwrap();
    let tool = convert_lenient(&input, data, &output, &opts).unwrap();
    let _ = std::fs::remove_dir_all(&dir);

    let names = |v: Vec<String>| {
        let mut v = v;
        v.sort();
        v
    };
    let tool_files: Vec<(String, Vec<u8>)> = tool
        .outputs
        .into_iter()
        .map(|(p, b)| (p.file_name().unwrap().to_string_lossy().into_owned(), b))
        .collect();
    assert_eq!(
        names(page.files.iter().map(|f| f.0.clone()).collect()),
        names(tool_files.iter().map(|f| f.0.clone()).collect()),
        "{what}"
    );
    for (n, b) in &page.files {
        let t = &tool_files.iter().find(|f| &f.0 == n).unwrap().1;
        assert!(b == t, "{what}: {n} differs");
    }
    let report: Value = serde_json::from_str(&page.report).unwrap();
    let losses: Vec<String> = tool.losses.iter().map(ToString::to_string).collect();
    assert_eq!(
        report["losses"].as_array().unwrap().len(),
        losses.len(),
        "{what}"
    );
    assert_eq!(
        report["warnings"],
        Value::from(tool.warnings.clone()),
        "{what}"
    );
    page.files
}

#[test]
fn every_case_converts_as_the_tool_does_and_back() {
    let root = test_support::workspace_root();
    let samples = test_support::samples_or_skip("", "every_case_converts_as_the_tool_does");
    let cases: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("crates/meshfmt-web/tests/cases.json")).unwrap(),
    )
    .unwrap();
    let mut ran = 0;
    for c in cases["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let mut files = Vec::new();
        for (n, r) in c["drop"].as_object().unwrap() {
            let Some(p) = source(&root, samples.as_deref(), r.as_str().unwrap()) else {
                break;
            };
            files.push((n.clone(), std::fs::read(p).unwrap()));
        }
        if files.len() < c["drop"].as_object().unwrap().len() {
            continue; // a sample case without the samples
        }
        let out = same(name, &files, &c["options"]);
        let main = out
            .iter()
            .find(|(n, _)| n.ends_with(".glb") || n.ends_with(".gltf"))
            .unwrap()
            .0
            .clone();
        let mut back = c["back"].clone();
        back["main"] = Value::from(main);
        same(&format!("{name}-back"), &out, &back);
        ran += 1;
    }
    assert!(ran >= 1, "the fixture cases run everywhere");
    if samples.is_some() {
        assert_eq!(ran, cases["cases"].as_array().unwrap().len());
    }
}
