//! What our writer makes of a clip must read back as an `.anim`: these files have no
//! magic, and readers tell an `.anim` from a `.mesh` by its name (printable ASCII).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use meshfmt_core::glam::{Quat, Vec3};
use meshfmt_core::{Bone, Channel, Clip, Feature, Model, Skeleton, Track};
use niotso_mesh::{Anim, Kind, sniff_kind};

fn model(clip_name: &str) -> Model {
    Model {
        skeleton: Skeleton {
            bones: vec![Bone {
                name: "ROOT".into(),
                ..Default::default()
            }],
        },
        animations: vec![Clip {
            events: Vec::new(),
            name: clip_name.into(),
            channels: vec![Channel {
                bone: 0,
                translation: Track::from_keys([(0.0, Vec3::ZERO), (1.0, Vec3::X)]),
                rotation: Track::from_keys([(0.0, Quat::IDENTITY)]),
                ..Default::default()
            }],
        }],
        ..Default::default()
    }
}

#[test]
fn unnamed_and_non_ascii_clips_are_written_with_a_recognizable_name() {
    for (clip, written) in [
        ("", "animation"),
        ("walk\tcycle", "walk_cycle"),
        ("gehen-ä", "gehen-_"),
        ("a20-trapfall", "a20-trapfall"),
    ] {
        let c = Anim::from_core(&model(clip)).unwrap();
        assert_eq!(c.value.name.as_bytes(), written.as_bytes());
        let renamed = c.losses.iter().any(|l| l.feature == Feature::Names);
        assert_eq!(renamed, clip != written, "{clip:?}: {:?}", c.losses);
        let bytes = c.value.write().unwrap();
        assert_eq!(sniff_kind(&bytes), Some(Kind::Anim), "{clip:?}");
        let back = niotso_mesh::read_with(
            &bytes,
            &niotso_mesh::ReadOptions {
                kind: None,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(back.kind(), Kind::Anim);
    }
}
