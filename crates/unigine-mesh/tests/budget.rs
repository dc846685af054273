//! Memory and time (issue 16): every operation draws on one budget; each amplification
//! (output growing faster than the input) is refused under a small limit with an
//! OverBudget error naming what was being built; loops over counts that produce
//! nothing do not run; quadratic work is gone. Inputs are hand-built faithful values
//! or models, written to bytes where a read is tested.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use meshfmt_core::glam::{Quat, Vec3};
use meshfmt_core::{
    Bone, Budget, Channel, Clip, Limits, Model, MorphKind, MorphTarget as CoreMorph, Skeleton,
    Surface as CoreSurface, Track, Transform,
};
use parsing_primitives::ErrorKind;
mod common;

use common::surface;
use unigine_mesh::ms1x::{BoneInfo, EmbeddedAnimation, FrameKey, Surface};
use unigine_mesh::old::{Mi08Surface, Ms08Bone, Ms08Surface, Ms08Weight};
use unigine_mesh::spatial::{MAX_MIDPOINT_DEPTH, SpatialTree};
use unigine_mesh::{
    BindTransform, Bounds, CoreOptions, Error, MeshFile, Mi08, Ms1x, Ms1xVersion, Ms08,
    ReadOptions, TargetVersion, WriteOptions, read, read_with,
};

fn limits(bytes: u64) -> Limits {
    Limits {
        max_alloc_bytes: bytes,
        ..Limits::DEFAULT
    }
}

const MIB: u64 = 1 << 20;

/// What an OverBudget error (from a read or a conversion) was building.
fn over_budget(e: &Error) -> Option<&'static str> {
    match e {
        Error::OverBudget(b) => Some(b.what),
        Error::Decode(d) => match d.kind() {
            ErrorKind::OverBudget(b) => Some(b.what),
            _ => None,
        },
        _ => None,
    }
}

fn read_under(bytes: &[u8], budget: &Budget) -> Result<MeshFile, Error> {
    read_with(
        bytes,
        &ReadOptions {
            budget: budget.clone(),
        },
    )
}

/// Reads and converts `bytes` under one budget of what the read alone uses plus
/// `slack`: the conversion's own allocations must be refused.
fn to_core_after_read(bytes: &[u8], slack: u64) -> Error {
    let probe = Budget::default();
    read_under(bytes, &probe).unwrap();
    let budget = Budget::new(limits(probe.used() + slack));
    let file = read_under(bytes, &budget).unwrap();
    file.to_core_with(&CoreOptions { budget }).unwrap_err()
}

fn write_opts(version: TargetVersion, max: u64) -> WriteOptions {
    WriteOptions {
        version,
        budget: Budget::new(limits(max)),
    }
}

const IDENTITY: BindTransform = BindTransform {
    position: [0.0; 3],
    rotation: [0.0, 0.0, 0.0, 1.0],
    scale: [1.0; 3],
};

fn ms11(bones: usize, animations: Vec<EmbeddedAnimation>, surfaces: Vec<Surface>) -> Ms1x {
    Ms1x {
        version: Ms1xVersion::Ms11,
        bounds: Bounds::EMPTY,
        bones: (0..bones)
            .map(|i| BoneInfo {
                name: format!("b{i}").as_str().into(),
                parent: -1,
            })
            .collect(),
        bind_pose: vec![IDENTITY; bones],
        animations,
        surfaces,
    }
}

fn distinct(n: usize) -> Vec<[f32; 3]> {
    (0..n).map(|i| [i as f32, (i % 7) as f32, 0.0]).collect()
}

// ------------------------------------------------------------------------- reading

/// The byte offset of a block's two sizes (`u64 decoded, u64 stored`).
fn find_sizes(bytes: &[u8], decoded: usize, stored: usize) -> usize {
    let mut pat = (decoded as u64).to_le_bytes().to_vec();
    pat.extend((stored as u64).to_le_bytes());
    bytes.windows(16).position(|w| w == pat).unwrap()
}

fn ms14_bytes(mesh: Ms1x) -> Vec<u8> {
    let mut mesh = mesh;
    mesh.version = Ms1xVersion::Ms13;
    unigine_mesh::ms14::Ms14::from_ms13(mesh)
        .unwrap()
        .write()
        .unwrap()
}

fn ms14(bytes: &[u8]) -> unigine_mesh::ms14::Ms14 {
    match read(bytes).unwrap() {
        MeshFile::Ms14(m) => m,
        other => panic!("{}", other.version()),
    }
}

#[test]
fn hostile_ms14_block_sizes_fail_without_overflowing() {
    let bytes = ms14_bytes(ms11(
        0,
        vec![],
        vec![surface(distinct(3), 1, vec![0, 1, 2], vec![0; 3])],
    ));
    let m = ms14(&bytes);
    let b = &m.blocks[0].geometry;
    let at = find_sizes(&bytes, b.size as usize, b.stored.len());
    // Sizes near u64::MAX used to overflow `csize * 255 + 16` (a panic with overflow
    // checks); now they are an ordinary error.
    for (size, csize) in [
        (u64::MAX, u64::MAX),
        (u64::MAX, u64::MAX / 255 + 1),
        (u64::MAX, 1),
    ] {
        let mut bad = bytes.clone();
        bad[at..at + 8].copy_from_slice(&size.to_le_bytes());
        bad[at + 8..at + 16].copy_from_slice(&csize.to_le_bytes());
        assert!(
            matches!(read(&bad), Err(Error::Decode(_))),
            "{size} {csize}"
        );
    }
}

#[test]
fn a_raw_block_is_kept_once_and_parsed_in_place() {
    // Noise does not compress: the geometry block is stored raw. The reader keeps its
    // stored bytes (for a faithful rewrite) and parses the arrays straight from them:
    // what stays charged is the block once plus the decoded arrays, not a second copy.
    let mut seed = 0x1234_5678u32;
    let noise: Vec<[f32; 3]> = (0..20_000)
        .map(|_| {
            [(); 3].map(|()| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                f32::from_bits(seed >> 9 | 0x3f80_0000)
            })
        })
        .collect();
    let bytes = ms14_bytes(ms11(
        0,
        vec![],
        vec![surface(noise, 1, vec![0, 1, 2], vec![0; 3])],
    ));
    let m = ms14(&bytes);
    let size = m.blocks[0].geometry.size;
    assert_eq!(m.blocks[0].geometry.stored.len() as u64, size, "stored raw");
    let budget = Budget::new(limits(u64::MAX));
    read_under(&bytes, &budget).unwrap();
    // The positions alone are 240,000 of the block's bytes.
    let arrays = 20_000 * 12;
    assert!(size > arrays && size < arrays + 1024, "{size}");
    let used = budget.used();
    assert!(used >= size + arrays, "{used}");
    assert!(
        used < size + arrays + 16 * 1024,
        "{used} charged for {size}"
    );
    // Room for the block and its arrays, not for a third copy.
    assert!(read_under(&bytes, &Budget::new(limits(size + arrays + 16 * 1024))).is_ok());
}

// Needs an LZ4-compressed block (the `lz4` feature compresses).
#[cfg(feature = "lz4")]
#[test]
fn decoding_a_block_draws_on_the_file_budget() {
    // 100,000 vertices at the origin: a 2 MB geometry block that LZ4 stores in a few
    // KB. The window it is decoded through (512 KiB) and the arrays it decodes to
    // (1.2 MB of positions, 0.8 MB of tangents) all count against the one budget; the
    // block's reader used to get a fresh budget of its own.
    let bytes = ms14_bytes(ms11(
        0,
        vec![],
        vec![surface(
            vec![[0.0; 3]; 100_000],
            100_000,
            vec![0, 1, 2],
            vec![0; 3],
        )],
    ));
    assert!(bytes.len() < 100_000, "{}", bytes.len());
    // 2 MiB hold the window and the positions, not the tangents as well.
    let err = read_under(&bytes, &Budget::new(limits(2 * MIB))).unwrap_err();
    assert_eq!(over_budget(&err), Some("decoded data"), "{err}");
    assert!(err.to_string().contains("geometry (decoded)"), "{err}");
    assert!(err.to_string().contains("tangents"), "{err}");
    // 3 MiB hold it all.
    assert!(read_under(&bytes, &Budget::new(limits(3 * MIB))).is_ok());
    // With 256 KiB the window itself is refused.
    let err = read_under(&bytes, &Budget::new(limits(MIB / 4))).unwrap_err();
    assert_eq!(over_budget(&err), Some("decompressed block"), "{err}");
    assert!(read(&bytes).is_ok());
}

#[test]
fn counts_inside_a_block_meet_the_read_options_limits() {
    // 9,000 tangent vertices: a count inside the geometry block only (the surface
    // header holds the 3 vertices and 3 corner indices).
    let bytes = ms14_bytes(ms11(
        0,
        vec![],
        vec![surface(distinct(3), 9_000, vec![0, 1, 2], vec![0, 1, 2])],
    ));
    let read_capped = |max_elements| {
        read_with(
            &bytes,
            &ReadOptions {
                budget: Budget::new(Limits {
                    max_elements,
                    ..Limits::DEFAULT
                }),
            },
        )
    };
    assert!(read_capped(10_000).is_ok());
    // Under the count, the block's decoded content is refused as a plain read's is.
    let err = read_capped(5_000).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("9000 exceeds the limit of 5000"), "{text}");
    assert!(text.contains("(decoded)"), "{text}");
}

#[test]
fn widened_indices_are_charged_at_four_bytes() {
    // 900,000 one-byte indices of each kind become u32s: 3.6 MB each from 0.9 MB (the
    // stored arrays alone, 1.8 MB, fit in 3 MiB).
    let n = 900_000;
    let bytes = ms11(
        0,
        vec![],
        vec![surface(distinct(3), 3, vec![1; n], vec![2; n])],
    )
    .write()
    .unwrap();
    let err = read_under(&bytes, &Budget::new(limits(3 * MIB))).unwrap_err();
    assert_eq!(over_budget(&err), Some("indices"), "{err}");
    // mi08: u16 triangles become [u32; 3] (1.8 MB stored, 3.6 MB widened).
    let mi08 = Mi08 {
        bounds: Bounds::EMPTY,
        surfaces: vec![Mi08Surface {
            name: "s".into(),
            bounds: Bounds::EMPTY,
            positions: distinct(3),
            normals: vec![[0, 0, 65535]; 3],
            uv0: vec![],
            uv1: vec![],
            triangles: vec![[0, 1, 2]; 300_000],
        }],
    };
    let bytes = mi08.write().unwrap();
    let err = read_under(&bytes, &Budget::new(limits(3 * MIB))).unwrap_err();
    assert_eq!(over_budget(&err), Some("triangles"), "{err}");
}

#[test]
fn widened_tangents_and_split_vertices_are_charged() {
    // ms10 tangents are 7 bytes stored, 8 decoded: 500,000 of them are 3.5 MB read and
    // 4 MB more made.
    let mut m = ms11(
        0,
        vec![],
        vec![surface(distinct(3), 500_000, vec![0, 1, 2], vec![0; 3])],
    );
    m.version = Ms1xVersion::Ms10;
    m.surfaces[0].morph_targets[0]
        .tangents
        .iter_mut()
        .for_each(|t| t[3] = 127);
    let bytes = m.write().unwrap();
    let err = read_under(&bytes, &Budget::new(limits(5 * MIB))).unwrap_err();
    assert_eq!(over_budget(&err), Some("tangents"), "{err}");
    // ms08: 200,000 vertices of 19 bytes each (3.8 MB) are split into positions,
    // normals and weight counts, which were not charged at all.
    let n = 200_000;
    let ms08 = Ms08 {
        bones: vec![],
        num_frames: 0,
        frames: vec![],
        surfaces: vec![Ms08Surface {
            name: "s".into(),
            positions: distinct(n),
            normals: vec![[0, 0, 65535]; n],
            weight_counts: vec![0; n],
            weights: vec![],
            uv0: vec![],
            uv1: vec![],
            triangles: vec![[0, 1, 2]],
        }],
    };
    let bytes = ms08.write().unwrap();
    let err = read_under(&bytes, &Budget::new(limits(2 * MIB))).unwrap_err();
    assert_eq!(over_budget(&err), Some("vertices"), "{err}");
}

#[test]
fn frame_counts_without_bones_neither_allocate_nor_loop() {
    // A thousand embedded animations of 2^28 frames each and no bones: nothing to
    // store and nothing to loop over.
    let anims: Vec<EmbeddedAnimation> = (0..1000)
        .map(|i| EmbeddedAnimation {
            boxes: (),
            name: format!("a{i}").as_str().into(),
            bones: vec![],
            flags: 0,
            num_frames: 1 << 28,
            keys: vec![],
        })
        .collect();
    let bytes = ms11(1, anims, vec![]).write().unwrap();
    let start = Instant::now();
    let budget = Budget::new(limits(MIB));
    let file = read_under(&bytes, &budget).unwrap();
    let model = file.to_core_with(&CoreOptions { budget }).unwrap().value;
    assert_eq!(model.animations.len(), 1000);
    assert!(model.animations.iter().all(|c| c.channels.is_empty()));
    // ms08: i32::MAX frames of an empty skeleton.
    let ms08 = Ms08 {
        bones: vec![],
        num_frames: i32::MAX as u32,
        frames: vec![],
        surfaces: vec![],
    };
    let bytes = ms08.write().unwrap();
    let file = read_under(&bytes, &Budget::new(limits(MIB))).unwrap();
    let model = file.to_core().unwrap().value;
    assert_eq!(model.animations[0].channels.len(), 0);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn frame_lookups_past_the_end_are_empty() {
    let a = EmbeddedAnimation {
        boxes: (),
        name: "a".into(),
        bones: vec![0, 0],
        flags: 0,
        num_frames: 1,
        keys: vec![FrameKey::default(); 2],
    };
    assert_eq!(a.frame(0).len(), 2);
    assert!(a.frame(usize::MAX).is_empty()); // f * n used to overflow
    let m = Ms08 {
        bones: vec![
            Ms08Bone {
                name: "b".into(),
                parent: -1,
            };
            3
        ],
        num_frames: 0,
        frames: vec![],
        surfaces: vec![],
    };
    assert!(m.frame(usize::MAX / 2).is_empty());
}

// ------------------------------------------------------------------------- to_core

#[test]
fn every_coordinate_and_tangent_pair_is_charged() {
    // 255 coordinate and 255 tangent vertices (one-byte indices) and every one of the
    // 65,025 (cindex, tindex) pairs once: each becomes a core vertex of 40+ bytes from
    // two bytes of indices.
    let pairs: Vec<(u32, u32)> = (0..255u32)
        .flat_map(|c| (0..255u32).map(move |t| (c, t)))
        .collect();
    let m = ms11(
        0,
        vec![],
        vec![surface(
            distinct(255),
            255,
            pairs.iter().map(|p| p.0).collect(),
            pairs.iter().map(|p| p.1).collect(),
        )],
    );
    let bytes = m.write().unwrap();
    assert_eq!(
        read(&bytes).unwrap().to_core().unwrap().value.surfaces[0]
            .positions
            .len(),
        65_025
    );
    let err = to_core_after_read(&bytes, 2 * MIB);
    assert_eq!(over_budget(&err), Some("vertex pairs"), "{err}");
}

#[test]
fn every_morph_target_is_charged_per_core_vertex() {
    // 16 x 16 vertices make 255 distinct pairs; each of 1000 morph targets stores 320
    // bytes but becomes 24 bytes per pair (6 KB).
    let (c, t): (Vec<u32>, Vec<u32>) = (0..255u32).map(|i| (i / 16, i % 16)).unzip();
    let mut s = surface(distinct(16), 16, c, t);
    let base = s.morph_targets[0].clone();
    s.morph_targets.extend((0..1000).map(|_| base.clone()));
    let bytes = ms11(0, vec![], vec![s]).write().unwrap();
    let err = to_core_after_read(&bytes, 4 * MIB);
    assert_eq!(over_budget(&err), Some("morph targets"), "{err}");
}

#[test]
fn dense_tracks_from_one_byte_keys_are_charged() {
    // 10 bones x 10,000 frames of empty keys (one byte each): 100,000 dense keys of
    // 52 bytes each in the clip.
    let anim = EmbeddedAnimation {
        boxes: (),
        name: "a".into(),
        bones: (0..10).collect(),
        flags: 0,
        num_frames: 10_000,
        keys: vec![FrameKey::default(); 100_000],
    };
    let bytes = ms11(10, vec![anim], vec![]).write().unwrap();
    let err = to_core_after_read(&bytes, MIB);
    assert_eq!(over_budget(&err), Some("animation tracks"), "{err}");
    // ms08: 32 bytes per (frame, bone) in the file, 52 in the clip.
    let ms08 = Ms08 {
        bones: (0..10)
            .map(|i| Ms08Bone {
                name: format!("b{i}").as_str().into(),
                parent: -1,
            })
            .collect(),
        num_frames: 5000,
        frames: vec![Default::default(); 50_000],
        surfaces: vec![],
    };
    let bytes = ms08.write().unwrap();
    let err = to_core_after_read(&bytes, MIB);
    assert_eq!(over_budget(&err), Some("animation tracks"), "{err}");
}

#[test]
fn ms08_weights_are_walked_once() {
    // 200,000 vertices with one weight each: a prefix sum per vertex was 2e10 steps.
    let n = 200_000;
    let ms08 = Ms08 {
        bones: vec![Ms08Bone {
            name: "b".into(),
            parent: -1,
        }],
        num_frames: 1,
        frames: vec![Default::default()],
        surfaces: vec![Ms08Surface {
            name: "s".into(),
            positions: distinct(n),
            normals: vec![[0, 0, 65535]; n],
            weight_counts: vec![1; n],
            weights: vec![
                Ms08Weight {
                    bone: 0,
                    weight: 255
                };
                n
            ],
            uv0: vec![],
            uv1: vec![],
            triangles: vec![[0, 1, 2]],
        }],
    };
    let bytes = ms08.write().unwrap();
    let start = Instant::now();
    let model = read(&bytes).unwrap().to_core().unwrap().value;
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    let skin = &model.surfaces[0].skin;
    assert_eq!(skin.len(), n);
    assert_eq!(skin[n - 1].pairs().collect::<Vec<_>>(), vec![(0, 1.0)]);
}

// ------------------------------------------------------------------------- from_core

fn skeleton(n: usize) -> Skeleton {
    Skeleton {
        bones: (0..n)
            .map(|i| Bone {
                name: format!("b{i}"),
                parent: None,
                rest: Transform::IDENTITY,
                inverse_bind: None,
            })
            .collect(),
    }
}

fn long_clip(bones: usize, seconds: f32) -> Clip {
    Clip {
        events: Vec::new(),
        name: "long".into(),
        channels: (0..bones)
            .map(|b| Channel {
                bone: b,
                translation: Track::from_keys([(0.0, Vec3::ZERO), (seconds, Vec3::X)]),
                ..Default::default()
            })
            .collect(),
    }
}

fn animated(bones: usize, seconds: f32) -> Model {
    Model {
        coordinate_system: unigine_mesh::COORDINATE_SYSTEM,
        skeleton: skeleton(bones),
        animations: vec![long_clip(bones, seconds)],
        ..Default::default()
    }
}

#[test]
fn resampling_draws_on_the_callers_budget() {
    // 100 bones for 1000 s at 30 fps: 30,001 frames of 100 keys, some 300 MB. The
    // resamplers used a default 1 GiB budget of their own; now the caller's 16 MiB.
    let model = animated(100, 1000.0);
    for version in [
        TargetVersion::Ms11,
        TargetVersion::Ms10,
        TargetVersion::Ms08,
    ] {
        let err = MeshFile::from_core_with(&model, &write_opts(version, 16 * MIB)).unwrap_err();
        assert_eq!(
            over_budget(&err),
            Some("resampled frames"),
            "{version:?}: {err}"
        );
    }
    // A short clip fits.
    let short = animated(100, 1.0);
    for version in [TargetVersion::Ms11, TargetVersion::Ms08] {
        assert!(MeshFile::from_core_with(&short, &write_opts(version, 16 * MIB)).is_ok());
    }
}

#[test]
fn ms08_frames_of_an_empty_skeleton_are_only_counted() {
    // A clip (for a bone the skeleton does not have) 100,000 s long: 3,000,001 frames
    // of nothing. Frame 0 is the bind pose, so 3,000,002 frames, no transforms.
    let mut model = animated(0, 0.0);
    model.animations = vec![Clip {
        channels: long_clip(1, 100_000.0).channels,
        ..Default::default()
    }];
    let start = Instant::now();
    let MeshFile::Ms08(m) =
        MeshFile::from_core_with(&model, &write_opts(TargetVersion::Ms08, 64 * MIB))
            .unwrap()
            .value
    else {
        panic!()
    };
    assert_eq!(m.num_frames, 3_000_002);
    assert!(m.frames.is_empty());
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

fn grid_model(vertices: usize, triangles: usize, normals: bool) -> Model {
    let positions: Vec<Vec3> = (0..vertices)
        .map(|i| Vec3::new((i % 100) as f32, (i / 100) as f32, 0.0))
        .collect();
    let indices: Vec<u32> = (0..triangles as u32)
        .flat_map(|t| {
            let a = t % (vertices as u32 - 101);
            [a, a + 1, a + 100]
        })
        .collect();
    Model {
        coordinate_system: unigine_mesh::COORDINATE_SYSTEM,
        surfaces: vec![CoreSurface {
            name: "grid".into(),
            normals: if normals {
                vec![Vec3::Z; vertices]
            } else {
                vec![]
            },
            positions,
            indices,
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// `model` declared in glTF's frame: every writer then copies it (to UNIGINE's frame)
/// and charges the copy first.
fn in_gltf(model: Model) -> Model {
    Model {
        coordinate_system: meshfmt_core::CoordinateSystem::GLTF,
        ..model
    }
}

#[test]
fn generated_normals_are_charged() {
    // 100,000 vertices without normals, in glTF's frame: the copy of the model (1.2 MB
    // of positions) fits in 2 MiB, the generated normals (1.2 MB more) do not.
    let model = in_gltf(grid_model(100_000, 1, false));
    let err =
        MeshFile::from_core_with(&model, &write_opts(TargetVersion::Ms11, 2 * MIB)).unwrap_err();
    assert_eq!(over_budget(&err), Some("generated normals"), "{err}");
    let err =
        MeshFile::from_core_with(&model, &write_opts(TargetVersion::Mi08, 2 * MIB)).unwrap_err();
    assert_eq!(over_budget(&err), Some("generated normals"), "{err}");
    // In UNIGINE's frame there is no copy: the normals alone must not fit.
    let model = grid_model(100_000, 1, false);
    for max in [MIB, MIB + MIB / 8] {
        let err =
            MeshFile::from_core_with(&model, &write_opts(TargetVersion::Ms11, max)).unwrap_err();
        assert_eq!(over_budget(&err), Some("generated normals"), "{max}: {err}");
    }
}

#[test]
fn generated_tangents_and_copies_of_the_model_are_charged() {
    // 100,000 vertices with normals (2.4 MB of model), in glTF's frame: the copy of the
    // model and of its normals fit in 4 MiB, the generated tangents (1.6 MB more) do
    // not.
    let model = in_gltf(grid_model(100_000, 1, true));
    let err =
        MeshFile::from_core_with(&model, &write_opts(TargetVersion::Ms11, 4 * MIB)).unwrap_err();
    assert_eq!(over_budget(&err), Some("generated tangents"), "{err}");
    // The copy every mesh writer makes of a model in another frame comes first; sn10
    // copies only the skeleton and clips (none here), so the geometry costs it nothing.
    let sn10 = write_opts(TargetVersion::Sn10, 2 * MIB);
    let versions = [
        TargetVersion::Mi08,
        TargetVersion::Ms08,
        TargetVersion::Ms11,
        TargetVersion::Ms14,
        TargetVersion::Sk10,
    ];
    for version in versions {
        let err = MeshFile::from_core_with(&model, &write_opts(version, 2 * MIB)).unwrap_err();
        assert_eq!(over_budget(&err), Some("model copy"), "{version:?}: {err}");
    }
    assert!(MeshFile::from_core_with(&model, &sn10).is_ok());
    // In UNIGINE's frame only sk10 copies it (its bind pose replaces the skeleton's
    // rest transforms); the others encode the model as it is.
    let model = grid_model(100_000, 1, true);
    for version in versions {
        let err = MeshFile::from_core_with(&model, &write_opts(version, 2 * MIB)).unwrap_err();
        let copied = version == TargetVersion::Sk10;
        assert_eq!(
            over_budget(&err) == Some("model copy"),
            copied,
            "{version:?}: {err}"
        );
    }
    assert!(MeshFile::from_core_with(&model, &sn10).is_ok());
}

#[test]
fn morph_targets_without_normals_are_charged() {
    // 300 morph targets of 1000 positions each (3.6 MB) each become positions and
    // normals of every vertex (7.2 MB), in glTF's frame after a copy of the model.
    let mut model = in_gltf(grid_model(1000, 1, true));
    let s = &mut model.surfaces[0];
    s.morph_targets = (0..300)
        .map(|i| CoreMorph {
            name: format!("m{i}"),
            kind: MorphKind::Delta,
            positions: vec![Vec3::X; 1000],
            normals: vec![],
        })
        .collect();
    let err =
        MeshFile::from_core_with(&model, &write_opts(TargetVersion::Ms11, 8 * MIB)).unwrap_err();
    assert_eq!(over_budget(&err), Some("morph targets"), "{err}");
    // In UNIGINE's frame, without the copy, the morph targets alone are what fails.
    let model = Model {
        coordinate_system: unigine_mesh::COORDINATE_SYSTEM,
        ..model
    };
    let err =
        MeshFile::from_core_with(&model, &write_opts(TargetVersion::Ms11, 3 * MIB)).unwrap_err();
    assert_eq!(over_budget(&err), Some("morph targets"), "{err}");
}

#[test]
fn ms14_spatial_trees_are_charged() {
    // 100,000 triangles over 1000 vertices (1.2 MB of indices): the tree is built in
    // some 60 MB of working memory.
    let model = grid_model(1000, 100_000, true);
    let err =
        MeshFile::from_core_with(&model, &write_opts(TargetVersion::Ms14, 32 * MIB)).unwrap_err();
    assert_eq!(over_budget(&err), Some("spatial tree"), "{err}");
    assert!(MeshFile::from_core_with(&model, &write_opts(TargetVersion::Ms14, 256 * MIB)).is_ok());
}

#[test]
fn ms14_tree_working_memory_is_handed_back() {
    // Two surfaces of 100,000 triangles: each build charges 60 MB of working memory
    // (600 bytes a triangle) and keeps only the tree. Under 100 MB the second build
    // fits only if the first one's working memory was handed back.
    let mut model = grid_model(1000, 100_000, true);
    model.surfaces.push(model.surfaces[0].clone());
    let budget = Budget::new(Limits {
        max_alloc_bytes: 100 * MIB,
        ..Limits::DEFAULT
    });
    let opts = WriteOptions {
        version: TargetVersion::Ms14,
        budget: budget.clone(),
    };
    let file = MeshFile::from_core_with(&model, &opts).unwrap().value;
    let MeshFile::Ms14(m) = &file else {
        panic!("not ms14")
    };
    let kept: u64 = m.trees.iter().map(|t| t.heap_bytes()).sum();
    // What stays charged: the model copy, the file's arrays and the trees, far below
    // the two builds' 120 MB of working memory.
    assert!(budget.used() < 60 * MIB, "{} bytes", budget.used());
    assert!(
        kept > 0 && budget.used() > kept,
        "{kept} of {}",
        budget.used()
    );
}

#[test]
fn many_channels_are_checked_in_linear_time() {
    // 32,767 bones, one channel each: checking for repeated bones searched the list
    // per channel (5e8 steps).
    let n = i16::MAX as usize;
    let mut model = animated(n, 0.0);
    model.animations[0].channels.iter_mut().for_each(|c| {
        c.translation = Track::from_keys([(0.0, Vec3::X)]);
        c.rotation = Track::from_keys([(0.0, Quat::IDENTITY)]);
    });
    let start = Instant::now();
    let c = MeshFile::from_core_with(&model, &WriteOptions::default()).unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    let MeshFile::Ms1x(m) = c.value else { panic!() };
    assert_eq!(m.animations[0].bones.len(), n);
    // A repeated bone is still refused.
    model.animations[0].channels[5].bone = 3;
    let err = MeshFile::from_core_with(&model, &WriteOptions::default()).unwrap_err();
    assert!(err.to_string().contains("two channels for bone 3"), "{err}");
}

#[test]
fn hostile_positions_cannot_make_the_tree_deep() {
    // Triangles at x = 2^k (and on y and z): every midpoint split peels off one
    // triangle, so the depth grew with the number of such triangles (hundreds of
    // levels, each a pass over the rest). Past MAX_MIDPOINT_DEPTH splits are medians.
    let mut positions = Vec::new();
    for axis in 0..3 {
        for k in -120..=120 {
            let mut p = [0.0f32; 3];
            p[axis] = 2f32.powi(k);
            positions.push(p);
        }
    }
    positions.extend(std::iter::repeat_n([0.0f32; 3], 10_000));
    let cindices: Vec<u32> = (0..positions.len() as u32)
        .flat_map(|i| [i, i, i])
        .collect();
    let tree = SpatialTree::build(&cindices, &positions, 4);
    let triangles = positions.len();
    assert_eq!(tree.problems(triangles), Vec::new());
    fn depth(t: &SpatialTree, id: usize) -> usize {
        let n = &t.nodes[id];
        if n.is_leaf() {
            1
        } else {
            1 + depth(t, n.left as usize).max(depth(t, n.right as usize))
        }
    }
    let bound = MAX_MIDPOINT_DEPTH + (triangles as f64).log2().ceil() as usize + 1;
    let d = depth(&tree, 0);
    assert!(d <= bound, "depth {d} > {bound}");
}

// ------------------------------------------------------------------------- one budget

#[test]
fn one_budget_runs_through_read_to_core_and_from_core() {
    let model = meshfmt_core::canonical::skinned_arm();
    let bytes = MeshFile::from_core_with(&model, &WriteOptions::default())
        .unwrap()
        .value
        .write()
        .unwrap();
    let budget = Budget::default();
    let file = read_under(&bytes, &budget).unwrap();
    let after_read = budget.used();
    assert!(after_read > 0);
    let core = file
        .to_core_with(&CoreOptions {
            budget: budget.clone(),
        })
        .unwrap()
        .value;
    let after_core = budget.used();
    assert!(after_core > after_read);
    for version in [
        TargetVersion::Ms14,
        TargetVersion::Ms08,
        TargetVersion::Mi08,
    ] {
        let before = budget.used();
        MeshFile::from_core_with(
            &core,
            &WriteOptions {
                version,
                budget: budget.clone(),
            },
        )
        .unwrap();
        assert!(budget.used() > before, "{version:?}");
    }
    // Without a shared budget each step starts from zero: the caller's is untouched.
    let used = budget.used();
    file.to_core().unwrap();
    assert_eq!(budget.used(), used);
}

#[test]
fn normal_files_convert_under_the_default_budget() {
    for c in meshfmt_core::canonical::ALL.iter().filter(|c| !c.large) {
        let model = (c.build)();
        for version in [
            TargetVersion::Mi08,
            TargetVersion::Ms08,
            TargetVersion::Ms10,
            TargetVersion::Ms11,
            TargetVersion::Ms13,
            TargetVersion::Ms14,
            TargetVersion::Ms15,
            TargetVersion::Sk10,
            TargetVersion::Sn10,
        ] {
            let opts = WriteOptions {
                version,
                ..Default::default()
            };
            let bytes = MeshFile::from_core_with(&model, &opts)
                .unwrap()
                .value
                .write()
                .unwrap();
            let back = read(&bytes).unwrap();
            back.to_core().unwrap();
            assert_eq!(back.write().unwrap(), bytes, "{} {version:?}", c.name);
        }
    }
}
