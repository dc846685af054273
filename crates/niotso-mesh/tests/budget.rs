//! Memory and time: every amplification a file can ask for is charged to the operation's
//! budget before it is built, and lookups that used to scan per element are linear.
//! Expected values are computed by hand from the layout and the notes' formulas.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use niotso_mesh::WriteOptions;
use std::time::{Duration, Instant};

use meshfmt_core::glam::Vec3;
use meshfmt_core::{Channel, Clip, Model, Track, canonical};
use niotso_mesh::anim::{Anim, Motion};
use niotso_mesh::mesh::{self, Binding, Blend, MAX_BINDING_DIAGNOSTICS, Mesh};
use niotso_mesh::skel::{Skel, SkelBone};
use niotso_mesh::skinning::{bone_worlds, deform};
use niotso_mesh::{
    Budget, CoreOptions, DEFAULT_SKELETON_NAME, Error, Kind, Limits, ReadOptions, VitaboyFile,
    anim, companions, skel,
};
use parsing_primitives::ErrorKind;
use test_support::ByteBuilder;

const MIB: u64 = 1 << 20;

fn limits(max_alloc_bytes: u64) -> Limits {
    Limits {
        max_alloc_bytes,
        ..Limits::DEFAULT
    }
}

fn core_opts(budget: &Budget) -> CoreOptions<'static> {
    CoreOptions {
        budget: budget.clone(),
        ..CoreOptions::default()
    }
}

fn tight(max_alloc_bytes: u64) -> CoreOptions<'static> {
    CoreOptions {
        budget: Budget::new(limits(max_alloc_bytes)),
        ..CoreOptions::default()
    }
}

fn write_opts(budget: &Budget) -> WriteOptions {
    WriteOptions {
        budget: budget.clone(),
        ..WriteOptions::default()
    }
}

/// The `what` of an over-budget error.
fn over_budget<T: std::fmt::Debug>(r: Result<T, Error>) -> meshfmt_core::BudgetExceeded {
    match r {
        Err(Error::OverBudget(e)) => e,
        other => panic!("expected OverBudget, got {other:?}"),
    }
}

fn bone(name: &str, parent: &str, t: [f32; 3]) -> SkelBone {
    SkelBone {
        unknown: 1,
        name: name.into(),
        parent: parent.into(),
        has_props: 1,
        props: Vec::new(),
        translation: t,
        rotation: [0.0, 0.0, 0.0, 1.0],
        can_translate: 1,
        can_rotate: 1,
        can_blend: 1,
        wiggle_value: 0.0,
        wiggle_power: 0.0,
    }
}

fn motion(bone: &str, frames: u32, first_t: i32, first_r: i32) -> Motion {
    Motion {
        unknown: 1,
        bone_name: bone.into(),
        frame_count: frames,
        duration: 0.0,
        has_translation: u8::from(first_t >= 0),
        has_rotation: u8::from(first_r >= 0),
        first_translation: first_t,
        first_rotation: first_r,
        has_props: 0,
        props: Vec::new(),
        has_time_props: 0,
        time_props: Vec::new(),
    }
}

/// An `.anim` of `motions` motions that all play the same pool of `frames` frames
/// (translation `(f, 0, 0)` and identity rotation at frame `f`), assembled by hand.
fn shared_pool_anim(motions: u32, frames: u32) -> Vec<u8> {
    let t: Vec<f32> = (0..frames).flat_map(|f| [f as f32, 0.0, 0.0]).collect();
    let q: Vec<f32> = (0..frames).flat_map(|_| [0.0, 0.0, 0.0, 1.0]).collect();
    let mut b = ByteBuilder::new()
        .u32_be(2, "version")
        .u16_be(6, "name length (u16 BE)")
        .bytes(b"shared", "name")
        .f32_le(2000.0, "duration")
        .f32_le(0.0, "distance")
        .u8(0, "is_moving")
        .u32_be(frames, "translation count")
        .f32s_le(&t, "translations")
        .u32_be(frames, "rotation count")
        .f32s_le(&q, "rotations")
        .u32_be(motions, "motion count");
    for _ in 0..motions {
        b = b
            .u32_be(1, "unknown")
            .u8(4, "bone name length")
            .bytes(b"HEAD", "bone name")
            .u32_be(frames, "frame count: the whole pool")
            .f32_le(2000.0, "duration")
            .u8(1, "has translation")
            .u8(1, "has rotation")
            .i32_be(0, "first translation")
            .i32_be(0, "first rotation")
            .u8(0, "has props")
            .u8(0, "has time props");
    }
    b.build()
}

#[test]
fn motions_sharing_one_pool_are_charged_per_motion() {
    // 10,000 motions x 60,000 frames x (time + Vec3 + time + Quat = 36 bytes) is 21.6 GB
    // of keys from a 2 MB file: this used to allocate until the machine gave out.
    let bytes = shared_pool_anim(10_000, 60_000);
    assert!(bytes.len() < 2_100_000);
    let a = anim::read(&bytes).unwrap();
    assert_eq!(a.motions.len(), 10_000);
    // All the keys are charged before any is built: 10,000 x 60,000 x 36 bytes.
    let start = Instant::now();
    let e = over_budget(a.to_core_with(&CoreOptions {
        skeleton: None,
        ..tight(16 * MIB).clone()
    }));
    assert_eq!(e.what, "animation keys");
    assert_eq!(e.requested, 10_000 * 60_000 * (4 + 12 + 4 + 16));
    // Charged so far: a bone (with room for its name, 3 bytes per byte when made
    // valid UTF-8) and a channel per motion.
    let per_motion =
        std::mem::size_of::<meshfmt_core::Bone>() + 3 * 4 + std::mem::size_of::<Channel>();
    assert_eq!(e.used, 10_000 * per_motion as u64);
    // The default budget (1 GiB) refuses it too.
    let e = over_budget(a.to_core_with(&CoreOptions {
        skeleton: None,
        fps: 30.0,
        ..CoreOptions::default()
    }));
    assert_eq!(e.what, "animation keys");
    assert_eq!(e.limit, 1 << 30);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );

    // One motion on the same pool converts, with every frame as a key at f / 30 s.
    let one = anim::read(&shared_pool_anim(1, 60_000)).unwrap();
    let model = one
        .to_core_with(&CoreOptions {
            skeleton: None,
            fps: 30.0,
            ..CoreOptions::default()
        })
        .unwrap()
        .value;
    let t = &model.animations[0].channels[0].translation;
    assert_eq!(t.times.len(), 60_000);
    assert_eq!(t.values[59_999], Vec3::new(59_999.0, 0.0, 0.0));
    assert_eq!(t.times[3], 3.0 / 30.0);
}

#[test]
fn motions_built_in_code_never_loop_past_their_pool() {
    // A frame count of u32::MAX on a 2-frame pool (the reader would refuse it): two
    // keys, at once, instead of 4 billion empty iterations.
    let a = Anim {
        version: 2,
        name: "long".into(),
        duration: 0.0,
        distance: 0.0,
        is_moving: 0,
        translations: vec![[1.0, 0.0, 0.0], [2.0, 0.0, 0.0]],
        rotations: vec![],
        motions: vec![motion("HEAD", u32::MAX, 0, 5)],
    };
    let start = Instant::now();
    let model = a
        .to_core_with(&CoreOptions {
            skeleton: None,
            fps: 30.0,
            ..CoreOptions::default()
        })
        .unwrap()
        .value;
    let c = &model.animations[0].channels[0];
    assert_eq!(c.translation.values, [Vec3::X, Vec3::new(2.0, 0.0, 0.0)]);
    assert!(c.rotation.is_empty(), "rotation 5 of an empty pool");
    assert!(start.elapsed() < Duration::from_secs(5));
}

/// A chain of `n` bones `B0 <- B1 <- ...`, each 1 unit along +x from its parent.
fn chain(n: usize) -> Skel {
    Skel {
        version: 1,
        name: "chain".into(),
        bones: (0..n)
            .map(|i| {
                let parent = if i == 0 {
                    "NULL".to_string()
                } else {
                    format!("B{}", i - 1)
                };
                bone(&format!("B{i}"), &parent, [1.0, 0.0, 0.0])
            })
            .collect(),
    }
}

#[test]
fn a_65000_bone_chain_converts_in_linear_time() {
    const N: usize = 65_000;
    let bytes = chain(N).write().unwrap();
    let skel = skel::read(&bytes).unwrap();
    let start = Instant::now();

    // Parents by name (quadratic before: a scan of the bones before each bone).
    let core = skel.to_core().unwrap().value;
    assert_eq!(core.skeleton.bones[N - 1].parent, Some(N - 2));
    assert!((1..N).all(|i| core.skeleton.bones[i].parent == Some(i - 1)));

    // One vertex per bone at its bone's origin, one binding each: bone i's world
    // origin is i + 1 units along x (quadratic before: a name scan per binding).
    let mesh = Mesh {
        version: 2,
        bone_names: skel.bones.iter().map(|b| b.name.clone()).collect(),
        faces: vec![],
        bindings: (0..N as i32)
            .map(|i| Binding {
                bone_index: i,
                first_real: i,
                real_count: 1,
                first_blend: -1,
                blend_count: 0,
            })
            .collect(),
        uvs: vec![[0.0; 2]; N],
        blends: vec![],
        third_count: N as u32,
        real_vertices: vec![[0.0, 0.0, 0.0, 0.0, 1.0, 0.0]; N],
        blend_vertices: vec![],
    };
    let model = mesh
        .to_core_with(&CoreOptions {
            skeleton: Some(&skel),
            ..CoreOptions::default()
        })
        .unwrap()
        .value;
    let p = &model.surfaces[0].positions;
    assert_eq!(p[0], Vec3::X);
    assert_eq!(p[N - 1], Vec3::new(N as f32, 0.0, 0.0));

    // Back to a mesh: one binding per bone (a filter of every vertex per bone before).
    let back = Mesh::from_core(&model).unwrap().value;
    assert_eq!(back.bindings.len(), N);
    assert_eq!(back.bindings[N - 1].first_real, N as i32 - 1);

    // An animation moving every bone 2 units from its parent at frame 0: bone i's world
    // origin is 2 (i + 1) (a motion scan per bone before).
    let anim = Anim {
        version: 2,
        name: "stretch".into(),
        duration: 0.0,
        distance: 0.0,
        is_moving: 0,
        translations: vec![[2.0, 0.0, 0.0]; N],
        rotations: vec![],
        motions: (0..N)
            .map(|i| motion(&format!("B{i}"), 1, i as i32, -1))
            .collect(),
    };
    let worlds = bone_worlds(&skel, Some((&anim, 0)));
    assert_eq!(
        worlds[N - 1].transform_point3(Vec3::ZERO),
        Vec3::new(2.0 * N as f32, 0.0, 0.0)
    );
    let clip = anim
        .to_core_with(&CoreOptions {
            skeleton: Some(&skel),
            fps: 30.0,
            ..CoreOptions::default()
        })
        .unwrap()
        .value;
    assert_eq!(clip.animations[0].channels[N - 1].bone, N - 1);
    // Each step took 4 to 25 s before (release build), about 74 s in all.
    let elapsed = start.elapsed();
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

/// ROOT at the origin and MOVED at (5, 0, 0), both roots.
fn two_roots() -> Skel {
    Skel {
        version: 1,
        name: "two".into(),
        bones: vec![
            bone("ROOT", "NULL", [0.0; 3]),
            bone("MOVED", "NULL", [5.0, 0.0, 0.0]),
        ],
    }
}

#[test]
fn overlapping_bindings_follow_the_last_one_in_one_pass() {
    // By hand: 4 vertices at local (1, 0, 0); [0, 4) on ROOT, then [1, 3) on MOVED:
    // vertices 1 and 2 end at (6, 0, 0), 0 and 3 stay at (1, 0, 0).
    let small = Mesh {
        version: 2,
        bone_names: vec!["ROOT".into(), "MOVED".into()],
        faces: vec![],
        bindings: vec![
            Binding {
                bone_index: 0,
                first_real: 0,
                real_count: 4,
                first_blend: -1,
                blend_count: 0,
            },
            Binding {
                bone_index: 1,
                first_real: 1,
                real_count: 2,
                first_blend: -1,
                blend_count: 0,
            },
        ],
        uvs: vec![[0.0; 2]; 4],
        blends: vec![],
        third_count: 4,
        real_vertices: vec![[1.0, 0.0, 0.0, 0.0, 1.0, 0.0]; 4],
        blend_vertices: vec![],
    };
    let skel = two_roots();
    let moved = Vec3::new(6.0, 0.0, 0.0);
    let model = small
        .to_core_with(&CoreOptions {
            skeleton: Some(&skel),
            ..CoreOptions::default()
        })
        .unwrap()
        .value;
    let s = &model.surfaces[0];
    assert_eq!(s.positions, [Vec3::X, moved, moved, Vec3::X]);
    let joints: Vec<u32> = s.skin.iter().map(|v| v.joints[0]).collect();
    assert_eq!(joints, [0, 1, 1, 0]);
    let (posed, _) = deform(&small, &skel, &bone_worlds(&skel, None)).unwrap();
    assert_eq!(posed, s.positions);

    // 50,000 bindings all covering the same 100,000 vertices (5e9 vertex transforms
    // before, composing every binding's matrix: 6 s for 5,000 bindings in a release
    // build, so about a minute): the last, on MOVED, wins.
    const R: usize = 100_000;
    let big = Mesh {
        bindings: (0..50_000)
            .map(|k| Binding {
                bone_index: k % 2,
                first_real: 0,
                real_count: R as i32,
                first_blend: 0,
                blend_count: 1,
            })
            .collect(),
        uvs: vec![[0.0; 2]; R],
        real_vertices: vec![[1.0, 0.0, 0.0, 0.0, 1.0, 0.0]; R],
        blends: vec![Blend {
            weight: 0x8000,
            other_vertex: 0,
        }],
        blend_vertices: vec![[0.0, 1.0, 0.0, 0.0, 1.0, 0.0]],
        third_count: R as u32 + 1,
        ..small
    };
    let bytes = big.write().unwrap();
    let big = mesh::read(&bytes).unwrap();
    let start = Instant::now();
    let model = big
        .to_core_with(&CoreOptions {
            skeleton: Some(&skel),
            ..CoreOptions::default()
        })
        .unwrap()
        .value;
    let s = &model.surfaces[0];
    assert!(s.positions[1..].iter().all(|&p| p == moved));
    // Vertex 0 is pulled fully (weight 1.0) onto the blend vertex, also on MOVED.
    assert_eq!(s.positions[0], moved);
    assert!(s.skin.iter().all(|v| v.pairs().eq([(1, 1.0)])));
    let (posed, _) = deform(&big, &skel, &bone_worlds(&skel, None)).unwrap();
    assert_eq!(posed[0], Vec3::new(5.0, 1.0, 0.0));
    assert_eq!(posed[R - 1], moved);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

/// One real vertex on bone 0 tugged by one blend vertex per tug, tug `j` on bone
/// `bones[j]` with raw weight `weights[j]`.
fn tugged_vertex(bones: &[i32], weights: &[i32]) -> Mesh {
    let m = bones.len();
    let names = 1 + bones.iter().copied().max().unwrap_or(0) as usize;
    let mut bindings = vec![Binding {
        bone_index: 0,
        first_real: 0,
        real_count: 1,
        first_blend: -1,
        blend_count: 0,
    }];
    bindings.extend(bones.iter().enumerate().map(|(j, &b)| Binding {
        bone_index: b,
        first_real: 0,
        real_count: 0,
        first_blend: j as i32,
        blend_count: 1,
    }));
    Mesh {
        version: 2,
        bone_names: (0..names)
            .map(|i| format!("T{i}").as_str().into())
            .collect(),
        faces: vec![],
        bindings,
        uvs: vec![[0.0; 2]],
        blends: weights
            .iter()
            .map(|&weight| Blend {
                weight,
                other_vertex: 0,
            })
            .collect(),
        third_count: 1 + m as u32,
        real_vertices: vec![[0.0; 6]],
        blend_vertices: vec![[0.0; 6]; m],
    }
}

/// The notes' tug, one blend at a time: scale every weight by 1 - w, add w to the
/// blend's bone. Sorted strongest first, at most 8 (meshfmt-core keeps 8).
fn reference_tugs(bones: &[i32], weights: &[i32]) -> Vec<(u32, f64)> {
    let mut w: Vec<(u32, f64)> = vec![(0, 1.0)];
    for (&b, &raw) in bones.iter().zip(weights) {
        let t = f64::from(raw) / 32768.0;
        w.iter_mut().for_each(|x| x.1 *= 1.0 - t);
        match w.iter_mut().find(|x| x.0 == b as u32) {
            Some(x) => x.1 += t,
            None => w.push((b as u32, t)),
        }
    }
    w.sort_by(|a, b| b.1.total_cmp(&a.1));
    w.truncate(8);
    w
}

fn skin_of_vertex_0(mesh: &Mesh) -> Vec<(u32, f32)> {
    let model = mesh
        .to_core_with(&CoreOptions {
            skeleton: None,
            ..CoreOptions::default()
        })
        .unwrap()
        .value;
    model.surfaces[0].skin[0].pairs().collect()
}

#[test]
fn tugs_match_the_notes_formula_one_by_one_or_many() {
    // Few tugs (step by step, as the readers do) and many (40, over the step-by-step
    // limit): both give the notes' weights.
    for m in [3usize, 40] {
        let bones: Vec<i32> = (0..m).map(|j| [1, 0, 2][j % 3]).collect();
        let weights: Vec<i32> = (0..m).map(|j| 0x1000 * (1 + (j % 7) as i32)).collect();
        let got = skin_of_vertex_0(&tugged_vertex(&bones, &weights));
        let want = reference_tugs(&bones, &weights);
        assert_eq!(got.len(), want.len(), "{m} tugs");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.0, w.0, "{m} tugs: {got:?} vs {want:?}");
            assert!((f64::from(g.1) - w.1).abs() < 1e-6, "{m} tugs: {got:?}");
        }
    }
}

#[test]
fn a_vertex_tugged_100000_times_is_linear() {
    // Each tug (weight 0.5) from its own bone: the list of bones on the vertex grows to
    // 100,001 and used to be scanned and rescaled per tug (5e9 steps; 0.4 s for 10,000
    // tugs in a release build, so about 40 s). The last tug
    // keeps 1/2, the one before 1/4, ... (exact powers of two).
    const M: i32 = 100_000;
    let bones: Vec<i32> = (1..=M).collect();
    let mesh = tugged_vertex(&bones, &vec![0x4000; M as usize]);
    let start = Instant::now();
    let got = skin_of_vertex_0(&mesh);
    let want: Vec<(u32, f32)> = (0..8)
        .map(|k| ((M - k) as u32, 0.5f32.powi(k + 1)))
        .collect();
    assert_eq!(got, want);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn bad_bindings_give_a_bounded_number_of_reports() {
    // 100,000 bindings naming bone 7 of 1: 16 lines, then one line for the rest.
    let mesh = Mesh {
        version: 2,
        bone_names: vec!["HEAD".into()],
        faces: vec![],
        bindings: vec![
            Binding {
                bone_index: 7,
                first_real: 0,
                real_count: 0,
                first_blend: -1,
                blend_count: 0,
            };
            100_000
        ],
        uvs: vec![],
        blends: vec![],
        third_count: 0,
        real_vertices: vec![],
        blend_vertices: vec![],
    };
    let d = mesh.diagnostics();
    assert_eq!(MAX_BINDING_DIAGNOSTICS, 16);
    assert_eq!(d.len(), 17);
    assert!(d[15].starts_with("binding 15: bone index 7 out of range"));
    assert_eq!(
        d[16],
        "99984 more bindings with a bone index out of range, resolved the same way"
    );
    let losses = mesh
        .to_core_with(&CoreOptions {
            skeleton: None,
            ..CoreOptions::default()
        })
        .unwrap()
        .losses;
    assert_eq!(losses.len(), 17);
}

#[test]
fn a_stale_third_count_is_written_as_r_plus_n() {
    // R = 1 real and N = 1 blend vertex: the third count sits before the 2 vertex
    // records (48 bytes) at the end of the file.
    let mut m = Mesh {
        version: 2,
        bone_names: vec!["HEAD".into()],
        faces: vec![],
        bindings: vec![Binding {
            bone_index: 0,
            first_real: 0,
            real_count: 1,
            first_blend: 0,
            blend_count: 1,
        }],
        uvs: vec![[0.0; 2]],
        blends: vec![Blend {
            weight: 0x4000,
            other_vertex: 0,
        }],
        third_count: 0,
        real_vertices: vec![[0.0; 6]],
        blend_vertices: vec![[0.0; 6]],
    };
    let third = |m: &Mesh| {
        let b = m.write().unwrap();
        let at = b.len() - 48 - 4;
        u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
    };
    for (stored, written) in [(1, 1), (2, 2), (0, 2), (5, 2), (u32::MAX, 2)] {
        m.third_count = stored;
        assert_eq!(m.stale_third_count(), stored != written, "{stored}");
        assert_eq!(third(&m), written, "stored {stored}");
    }
}

#[test]
fn resampling_charges_a_translation_and_a_rotation_per_channel_and_frame() {
    // One channel with keys at 0 s and 1000 s: 30,001 frames at 30 fps, each costing its
    // time (4 bytes) and a key of each pool (12 + 16 bytes).
    let mut model = canonical::skinned_arm();
    model.animations = vec![Clip {
        events: Vec::new(),
        name: "slow".into(),
        channels: vec![Channel {
            bone: 0,
            translation: Track::from_keys([(0.0, Vec3::ZERO), (1000.0, Vec3::X)]),
            ..Channel::default()
        }],
    }];
    let tight = WriteOptions {
        budget: Budget::new(limits(900_000)),
        ..WriteOptions::default()
    };
    let e = over_budget(Anim::from_core_with(&model, &tight));
    assert_eq!(e.what, "resampled frames");
    assert_eq!(e.requested, 30_001 * (4 + 12 + 16));
    let a = Anim::from_core_with(
        &model,
        &WriteOptions {
            fps: 30.0,
            ..WriteOptions::default()
        },
    )
    .unwrap()
    .value;
    assert_eq!(a.translations.len(), 30_001);
    assert_eq!(a.motions[0].frame_count, 30_001);
    // A keyframe far beyond any budget is refused, not allocated.
    model.animations[0].channels[0].translation.times[1] = 1e20;
    assert_eq!(
        over_budget(Anim::from_core_with(
            &model,
            &WriteOptions {
                fps: 30.0,
                ..WriteOptions::default()
            }
        ))
        .what,
        "resampled frames"
    );
}

#[test]
fn a_big_model_is_refused_before_it_is_merged() {
    // 10 million vertices (600 MB of surface in this model) against a 16 MiB budget:
    // nothing is merged or copied, and only the refused charge was asked for.
    let model = Model {
        surfaces: vec![meshfmt_core::Surface {
            positions: vec![Vec3::ZERO; 10_000_000],
            ..Default::default()
        }],
        ..Model::default()
    };
    let budget = Budget::new(limits(16 * MIB));
    let start = Instant::now();
    let e = over_budget(Mesh::from_core_with(&model, &write_opts(&budget)));
    assert_eq!(e.what, "merged surface");
    assert_eq!(budget.used(), 0);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

/// A real mesh as a file: the canonical skinned arm (20 vertices, 3 bones).
fn arm_files() -> (Vec<u8>, Skel) {
    let model = canonical::skinned_arm();
    let mesh = Mesh::from_core(&model).unwrap().value;
    let skel = Skel::from_core_with(
        &model,
        &WriteOptions {
            skeleton_name: "arm".into(),
            ..WriteOptions::default()
        },
    )
    .unwrap()
    .value;
    (mesh.write().unwrap(), skel)
}

#[test]
fn one_budget_accumulates_across_read_to_core_and_from_core() {
    let (bytes, skel) = arm_files();
    let budget = Budget::default();
    let read = ReadOptions {
        budget: budget.clone(),
        ..ReadOptions::default()
    };
    let file = niotso_mesh::read_with(
        &bytes,
        &ReadOptions {
            kind: Some(Kind::Mesh),
            ..read.clone()
        },
    )
    .unwrap();
    let after_read = budget.used();
    // At least the 20 real vertices' records and UVs (24 + 8 bytes each).
    assert!(after_read >= 20 * 32, "{after_read}");
    let opts = core_opts(&budget);
    let model = file
        .to_core_with(&CoreOptions {
            skeleton: Some(&skel),
            ..opts.clone()
        })
        .unwrap()
        .value;
    let after_to_core = budget.used();
    // At least the surface: 20 x (position, normal, UV, influences).
    assert!(after_to_core >= after_read + 20 * (12 + 12 + 8 + 64));
    let back = VitaboyFile::from_core_with(
        &model,
        &WriteOptions {
            kind: Kind::Mesh,
            budget: opts.budget.clone(),
            ..WriteOptions::default()
        },
    )
    .unwrap()
    .value;
    let after_from_core = budget.used();
    assert!(after_from_core > after_to_core);
    assert_eq!(back.write().unwrap(), bytes, "the round trip is exact");

    // The same three steps under one budget that only pays for the first two: the
    // third is refused, though a fresh default budget pays for it.
    let limit = after_to_core + (after_from_core - after_to_core) / 2;
    let budget = Budget::new(limits(limit));
    let read = ReadOptions {
        budget: budget.clone(),
        ..ReadOptions::default()
    };
    let file = niotso_mesh::read_with(
        &bytes,
        &ReadOptions {
            kind: Some(Kind::Mesh),
            ..read.clone()
        },
    )
    .unwrap();
    let opts = core_opts(&budget);
    let model = file
        .to_core_with(&CoreOptions {
            skeleton: Some(&skel),
            ..opts.clone()
        })
        .unwrap()
        .value;
    assert!(matches!(
        VitaboyFile::from_core_with(
            &model,
            &WriteOptions {
                kind: Kind::Mesh,
                budget: opts.budget.clone(),
                ..WriteOptions::default()
            }
        ),
        Err(Error::OverBudget(_))
    ));
    assert!(
        VitaboyFile::from_core_with(
            &model,
            &WriteOptions {
                kind: Kind::Mesh,
                ..WriteOptions::default()
            }
        )
        .is_ok()
    );

    // Skeletons and animations draw on the same budget; the .skel gets the tool's name.
    let budget = Budget::default();
    let opts = core_opts(&budget);
    let arm = canonical::skinned_arm();
    let VitaboyFile::Skel(s) = VitaboyFile::from_core_with(
        &arm,
        &WriteOptions {
            kind: Kind::Skel,
            budget: opts.budget.clone(),
            ..WriteOptions::default()
        },
    )
    .unwrap()
    .value
    else {
        panic!("asked for a skeleton")
    };
    assert_eq!(s.name.as_str(), Some(DEFAULT_SKELETON_NAME));
    let after_skel = budget.used();
    // The arm's 2 bones, at least.
    assert!(after_skel >= 2 * std::mem::size_of::<SkelBone>() as u64);
    let a = VitaboyFile::from_core_with(
        &arm,
        &WriteOptions {
            kind: Kind::Anim,
            budget: opts.budget.clone(),
            ..WriteOptions::default()
        },
    )
    .unwrap()
    .value;
    let after_anim = budget.used();
    assert!(after_anim > after_skel);
    a.to_core_with(&CoreOptions {
        skeleton: Some(&s),
        ..opts.clone()
    })
    .unwrap();
    assert!(budget.used() > after_anim);
}

#[test]
fn readers_charge_the_callers_budget() {
    // A mesh read under 100 bytes: its arrays do not fit.
    let (bytes, _) = arm_files();
    let small = ReadOptions {
        budget: Budget::new(limits(100)),
        ..ReadOptions::default()
    };
    match mesh::read_with(&bytes, &small) {
        Err(Error::Decode(e)) => assert!(matches!(e.kind(), ErrorKind::OverBudget(_)), "{e}"),
        other => panic!("{other:?}"),
    }
    // An .apr with 3 bindings: exactly its 3 references of 8 bytes are charged.
    let apr = ByteBuilder::new()
        .u32_be(1, "version")
        .u32_be(7, "thumbnail file")
        .u32_be(14, "thumbnail type (PNG)")
        .u32_be(3, "binding count")
        .bytes(&[0; 24], "3 bindings")
        .build();
    let budget = Budget::default();
    let opts = ReadOptions {
        budget: budget.clone(),
        ..ReadOptions::default()
    };
    assert_eq!(
        companions::Appearance::read_with(&apr, &opts)
            .unwrap()
            .bindings
            .len(),
        3
    );
    assert_eq!(budget.used(), 24);
    // Companions take the same leniency switches.
    let mut long = apr.clone();
    long.push(0);
    assert!(companions::Appearance::read(&long).is_err());
    let lenient = ReadOptions {
        allow_trailing_bytes: true,
        ..ReadOptions::default()
    };
    assert!(companions::Appearance::read_with(&long, &lenient).is_ok());
}

#[test]
fn every_kind_takes_any_version_when_asked() {
    let skel_v3 = b"\x00\x00\x00\x03\x05adult\x00\x00";
    assert!(skel::read(skel_v3).is_err());
    let any = ReadOptions {
        any_version: true,
        ..ReadOptions::default()
    };
    assert_eq!(skel::read_with(skel_v3, &any).unwrap().version, 3);
    let mut a = shared_pool_anim(1, 1);
    a[3] = 9; // version 9
    assert!(anim::read(&a).is_err());
    assert_eq!(anim::read_with(&a, &any).unwrap().version, 9);
}
