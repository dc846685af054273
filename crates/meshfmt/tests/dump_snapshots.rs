//! `meshfmt dump` of one fixture per format family, as insta snapshots: a readable
//! record of what each reader decodes (review changes with `cargo insta review`).
#![allow(clippy::expect_used)]

use std::process::Command;

fn dump(rel: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel);
    let out = Command::new(env!("CARGO_BIN_EXE_meshfmt"))
        .args(["dump", "--max-items", "6"])
        .arg(&path)
        .output()
        .expect("the meshfmt binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 dump")
}

#[test]
fn unigine_mesh_skinned_arm() {
    insta::assert_snapshot!(dump("unigine-mesh/skinned_arm.ms11.mesh"));
}

#[test]
fn unigine_mesh_ms14_cube() {
    insta::assert_snapshot!(dump("unigine-mesh/cube.ms14.mesh"));
}

#[test]
fn unigine_anim_skinned_arm() {
    insta::assert_snapshot!(dump("unigine-anim/skinned_arm.anim"));
}

#[test]
fn vitaboy_cube() {
    insta::assert_snapshot!(dump("niotso-mesh/cube.mesh"));
}

#[test]
fn unity_meshser_cube() {
    insta::assert_snapshot!(dump("unity-meshser/cube.bytes"));
}
