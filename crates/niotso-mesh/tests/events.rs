//! Timed property lists ("timeprops": sounds, hand changes) of `.anim` motions as clip
//! events, and back.

use niotso_mesh::anim::{Anim, Motion, TimedProps};
use niotso_mesh::{CoreOptions, WriteOptions};
use parsing_primitives::RawString;

fn motion(bone: &str, time_props: Vec<Vec<TimedProps>>) -> Motion {
    Motion {
        unknown: 1,
        bone_name: bone.into(),
        frame_count: 2,
        duration: 66.0,
        has_translation: 1,
        has_rotation: 1,
        first_translation: 0,
        first_rotation: 0,
        has_props: 1,
        props: Vec::new(),
        has_time_props: u8::from(!time_props.is_empty()),
        time_props,
    }
}

fn set(pairs: &[(&str, &str)]) -> Vec<(RawString, RawString)> {
    pairs
        .iter()
        .map(|(k, v)| (RawString::from(*k), RawString::from(*v)))
        .collect()
}

fn anim() -> Anim {
    Anim {
        version: 2,
        name: "wave".into(),
        duration: 66.0,
        distance: 0.0,
        is_moving: 0,
        translations: vec![[0.0; 3], [0.0; 3]],
        rotations: vec![[0.0, 0.0, 0.0, 1.0]; 2],
        motions: vec![
            motion("ROOT", vec![]),
            // Two items: one set at 500 ms; two sets (a sound and a hand change) at 1250.
            motion(
                "R_HAND",
                vec![vec![
                    (500, vec![set(&[("sound", "step")])]),
                    (
                        1250,
                        vec![
                            set(&[("sound", "clap"), ("volume", "0.5")]),
                            set(&[("righthand", "cup")]),
                        ],
                    ),
                ]],
            ),
        ],
    }
}

#[test]
fn timeprops_become_events_on_their_bone() -> Result<(), Box<dyn std::error::Error>> {
    let m = anim().to_core_with(&CoreOptions::default())?;
    assert!(m.losses.is_empty(), "{:?}", m.losses);
    let clip = &m.value.animations[0];
    let got: Vec<(f32, Option<usize>, String)> = clip
        .events
        .iter()
        .map(|e| (e.time, e.bone, e.label()))
        .collect();
    // R_HAND is motion 1, so bone 1 of the flat skeleton; times are milliseconds.
    assert_eq!(
        got,
        [
            (0.5, Some(1), "sound=step".to_string()),
            (1.25, Some(1), "sound=clap;volume=0.5".to_string()),
            (1.25, Some(1), "righthand=cup".to_string()),
        ]
    );
    Ok(())
}

#[test]
fn events_come_back_as_the_same_timeprops() -> Result<(), Box<dyn std::error::Error>> {
    let original = anim();
    let model = original.to_core_with(&CoreOptions::default())?.value;
    let back = Anim::from_core_with(&model, &WriteOptions::default())?;
    let hand = back
        .value
        .motions
        .iter()
        .find(|m| m.bone_name.to_string() == "R_HAND")
        .ok_or("no hand")?;
    assert_eq!(hand.has_time_props, 1);
    assert_eq!(hand.time_props, original.motions[1].time_props);
    let root = back
        .value
        .motions
        .iter()
        .find(|m| m.bone_name.to_string() == "ROOT")
        .ok_or("no root")?;
    assert_eq!((root.has_time_props, root.time_props.len()), (0, 0));
    Ok(())
}

#[test]
fn an_event_on_no_motion_goes_to_the_first_and_says_so() -> Result<(), Box<dyn std::error::Error>> {
    let mut model = anim().to_core_with(&CoreOptions::default())?.value;
    model.animations[0].events[0].bone = None;
    let back = Anim::from_core_with(&model, &WriteOptions::default())?;
    assert!(
        back.losses
            .iter()
            .any(|l| l.reason.contains("1 events on no animated bone"))
    );
    let first = &back.value.motions[0];
    assert_eq!(
        first.time_props,
        vec![vec![(500, vec![set(&[("sound", "step")])])]]
    );
    Ok(())
}

#[test]
fn a_bone_with_events_and_no_keys_gets_a_keyless_motion() -> Result<(), Box<dyn std::error::Error>>
{
    let mut model = anim().to_core_with(&CoreOptions::default())?.value;
    model.animations[0].channels.retain(|c| c.bone != 1);
    let back = Anim::from_core_with(&model, &WriteOptions::default())?;
    assert!(
        back.losses.iter().all(|l| !l.reason.contains("events")),
        "{:?}",
        back.losses
    );
    let hand = back
        .value
        .motions
        .iter()
        .find(|m| m.bone_name.to_string() == "R_HAND")
        .ok_or("no hand")?;
    assert_eq!(
        (hand.has_translation, hand.has_rotation, hand.frame_count),
        (0, 0, 0)
    );
    assert_eq!(hand.time_props, anim().motions[1].time_props);
    // It reads back, events and all.
    let bytes = back.value.write()?;
    let again = niotso_mesh::anim::read(&bytes)?
        .to_core_with(&CoreOptions::default())?
        .value;
    assert_eq!(again.animations[0].events.len(), 3);
    Ok(())
}
