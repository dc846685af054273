//! .apr and .bnd samples rewrite byte for byte; an .oft by hand.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use niotso_mesh::companions::{self, AssetRef, Outfit};
use test_support::{ByteBuilder, assert_truncations_fail, samples_or_skip};

#[test]
fn every_appearance_and_binding_sample_round_trips() {
    let Some(dir) = samples_or_skip("niotso", "every_appearance_and_binding_sample_round_trips")
    else {
        return;
    };
    // Recursive: 6 of each are in a User/ subfolder.
    let apr = test_support::files_under(&dir.join("Appearances"), &["apr"]);
    for path in &apr {
        let bytes = std::fs::read(path).unwrap();
        let a = companions::Appearance::read(&bytes)
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        assert!(a.write().unwrap() == bytes, "{}", path.display());
        assert_truncations_fail(&bytes, companions::Appearance::read);
    }
    let bnd = test_support::files_under(&dir.join("Bindings"), &["bnd"]);
    for path in &bnd {
        let bytes = std::fs::read(path).unwrap();
        let b = companions::BindingFile::read(&bytes)
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        assert!(b.write().unwrap() == bytes, "{}", path.display());
        assert_truncations_fail(&bytes, companions::BindingFile::read);
    }
    println!(
        "companions byte-identical: {} .apr, {} .bnd",
        apr.len(),
        bnd.len()
    );
    assert_eq!(
        (apr.len(), bnd.len()),
        (120, 120),
        "the samples hold 120 .apr and 120 .bnd files (6 of each in User/)"
    );
}

#[test]
fn outfit_by_hand() {
    let b = ByteBuilder::new()
        .u32_be(1, "version")
        .u32_be(1, "unknown")
        .u32_be(0x1111, "light appearance file")
        .u32_be(12, "type 12")
        .u32_be(0x2222, "medium")
        .u32_be(12, "type")
        .u32_be(0x3333, "dark")
        .u32_be(12, "type")
        .u32_be(5, "hand group")
        .u32_be(18, "region: body");
    let bytes = b.build();
    let o = companions::Outfit::read(&bytes).unwrap();
    assert_eq!(
        o,
        Outfit {
            version: 1,
            unknown: 1,
            appearances: [
                AssetRef {
                    file_id: 0x1111,
                    type_id: 12
                },
                AssetRef {
                    file_id: 0x2222,
                    type_id: 12
                },
                AssetRef {
                    file_id: 0x3333,
                    type_id: 12
                }
            ],
            hand_group: 5,
            region: 18
        }
    );
    assert_eq!(o.write().unwrap(), bytes);
    assert_truncations_fail(&bytes, companions::Outfit::read);
}
