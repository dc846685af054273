//! Unit tests of `formats`.

use super::*;

#[test]
fn content_beats_extension() {
    assert_eq!(
        detect(b"an10\x00", "x.mesh").map(|f| f.info().name).ok(),
        Some("unigine-anim")
    );
    assert_eq!(
        detect(b"garbage", "x.SANIM").map(|f| f.info().name).ok(),
        Some("unigine-anim")
    );
    assert!(matches!(
        detect(b"garbage", "x.mesh"),
        Err(CliError::UnknownFormat { .. })
    ));
    assert!(matches!(
        detect(b"garbage", "x.bin"),
        Err(CliError::UnknownFormat { .. })
    ));
    assert!(matches!(
        detect(b"garbage", "x"),
        Err(CliError::UnknownFormat { .. })
    ));
}

#[test]
fn names_are_unique() {
    for (i, a) in FORMATS.iter().enumerate() {
        assert!(
            FORMATS[i + 1..]
                .iter()
                .all(|b| b.info().name != a.info().name)
        );
        assert_eq!(
            by_name(a.info().name).map(|f| f.info().name),
            Some(a.info().name)
        );
    }
}

#[test]
fn every_registered_format_states_consistent_facts() {
    for f in FORMATS {
        assert_eq!(f.info().problems(), [], "{}", f.info().name);
    }
}

/// An extension only one format claims beats a format recognized by structure alone,
/// and a magic beats both.
#[test]
fn a_claimed_extension_beats_structure() {
    // An appearance: version 1, thumbnail (0, 0), no bindings.
    let apr = [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    assert_eq!(
        detect(&apr, "x.apr").map(|f| f.info().name).ok(),
        Some("niotso-mesh")
    );
    assert_eq!(
        detect(b"ms11", "x.apr").map(|f| f.info().name).ok(),
        Some("unigine-mesh")
    );
    let model = meshfmt_core::canonical::cube();
    let unity = by_name("unity-meshser").map(|f| encode(f, &model, "c.bytes", &Budget::default()));
    let bytes = unity
        .and_then(Result::ok)
        .map(|c| c.value)
        .unwrap_or_default();
    assert_eq!(
        detect(&bytes, "c.bin").map(|f| f.info().name).ok(),
        Some("unity-meshser")
    );
}
