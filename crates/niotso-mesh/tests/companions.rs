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
    let (mut apr, mut bnd) = (0, 0);
    for e in std::fs::read_dir(dir.join("Appearances"))
        .unwrap()
        .flatten()
    {
        if e.path().extension().is_some_and(|x| x == "apr") {
            let bytes = std::fs::read(e.path()).unwrap();
            let a = companions::read_appearance(&bytes)
                .unwrap_or_else(|err| panic!("{}: {err}", e.path().display()));
            assert_eq!(a.write().unwrap(), bytes);
            assert_truncations_fail(&bytes, companions::read_appearance);
            apr += 1;
        }
    }
    for e in std::fs::read_dir(dir.join("Bindings")).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "bnd") {
            let bytes = std::fs::read(e.path()).unwrap();
            let b = companions::read_binding(&bytes)
                .unwrap_or_else(|err| panic!("{}: {err}", e.path().display()));
            assert_eq!(b.write().unwrap(), bytes);
            assert_truncations_fail(&bytes, companions::read_binding);
            bnd += 1;
        }
    }
    println!("companions byte-identical: {apr} .apr, {bnd} .bnd");
    assert!(apr > 0 && bnd > 0);
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
    let o = companions::read_outfit(&bytes).unwrap();
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
    assert_truncations_fail(&bytes, companions::read_outfit);
}
