//! The adult Vitaboy skeleton fixture. No original .skel is public; the hierarchy is the
//! one notes/niotso.md section 4 gives (29 bones, arms off NECK); the offsets are
//! invented, round numbers in TSO units (1/3 m), identity rest rotations.

use niotso_mesh::skel::{Skel, SkelBone};

/// (name, parent, translation).
pub const ADULT: [(&str, &str, [f32; 3]); 29] = [
    ("ROOT", "NULL", [0.0, 0.0, 0.0]),
    ("PELVIS", "ROOT", [0.0, 3.0, 0.0]),
    ("SPINE", "PELVIS", [0.0, 0.3, 0.0]),
    ("SPINE1", "SPINE", [0.421, 0.0, 0.0]),
    ("SPINE2", "SPINE1", [0.4, 0.0, 0.0]),
    ("NECK", "SPINE2", [0.4, 0.0, 0.0]),
    ("HEAD", "NECK", [0.3, 0.0, 0.0]),
    ("L_ARM", "NECK", [0.0, 0.0, 0.5]),
    ("L_ARM1", "L_ARM", [0.8, 0.0, 0.0]),
    ("L_ARM2", "L_ARM1", [0.8, 0.0, 0.0]),
    ("L_HAND", "L_ARM2", [0.6, 0.0, 0.0]),
    ("L_FINGER0", "L_HAND", [0.2, 0.0, 0.0]),
    ("R_ARM", "NECK", [0.0, 0.0, -0.5]),
    ("R_ARM1", "R_ARM", [0.8, 0.0, 0.0]),
    ("R_ARM2", "R_ARM1", [0.8, 0.0, 0.0]),
    ("R_HAND", "R_ARM2", [0.6, 0.0, 0.0]),
    ("R_FINGER0", "R_HAND", [0.2, 0.0, 0.0]),
    ("L_LEG", "PELVIS", [0.0, 0.241, 0.3]),
    ("L_LEG1", "L_LEG", [1.2, 0.0, 0.0]),
    ("L_FOOT", "L_LEG1", [1.2, 0.0, 0.0]),
    ("L_TOE0", "L_FOOT", [0.3, 0.0, 0.0]),
    ("L_TOE01", "L_TOE0", [0.1, 0.0, 0.0]),
    ("L_TOE02", "L_TOE01", [0.1, 0.0, 0.0]),
    ("R_LEG", "PELVIS", [0.0, 0.241, -0.3]),
    ("R_LEG1", "R_LEG", [1.2, 0.0, 0.0]),
    ("R_FOOT", "R_LEG1", [1.2, 0.0, 0.0]),
    ("R_TOE0", "R_FOOT", [0.3, 0.0, 0.0]),
    ("R_TOE01", "R_TOE0", [0.1, 0.0, 0.0]),
    ("R_TOE02", "R_TOE01", [0.1, 0.0, 0.0]),
];

pub fn adult() -> Skel {
    Skel {
        version: 1,
        name: "adult".into(),
        bones: ADULT
            .iter()
            .map(|(name, parent, t)| SkelBone {
                unknown: 1,
                name: (*name).into(),
                parent: (*parent).into(),
                has_props: 1,
                props: Vec::new(),
                translation: *t,
                rotation: [0.0, 0.0, 0.0, 1.0],
                can_translate: 1,
                can_rotate: 1,
                can_blend: 1,
                wiggle_value: 0.0,
                wiggle_power: 0.0,
            })
            .collect(),
    }
}
