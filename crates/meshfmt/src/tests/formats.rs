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
