//! Bounded by construction: crafted files and models whose size or work would grow far
//! faster than their bytes. Each either gives a typed error naming what was being built
//! (under a small budget) or its value, quickly; sharing one budget across steps adds up.
//! Expected counts come from the construction (worked out in the comments), not from our
//! output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use m3d_format::{
    Action, Body, Bone, Budget, Chunk, CoreOptions, Error, File, Frame, Idx, Limits, LoadOptions,
    Material, Mesh, MeshRecord, PropValue, Property, ReadOptions, Skeleton, Str, Transform, Types,
    WriteOptions,
};
use parsing_primitives::ErrorKind;

/// The small budget of these tests.
const SMALL: Limits = Limits {
    max_alloc_bytes: 64 << 20,
    ..Limits::DEFAULT
};

/// Far longer than any of these takes now (milliseconds), far shorter than they took
/// before (minutes to hours for the quadratic ones).
const QUICK: Duration = Duration::from_secs(5);

/// Runs `f`, asserting it finished within [`QUICK`].
fn quick<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let v = f();
    let took = t.elapsed();
    assert!(took < QUICK, "{what} took {took:?}");
    v
}

/// What an over-budget error says it was building, whatever wraps it.
fn over_budget(e: &Error) -> Option<&'static str> {
    match e {
        Error::OverBudget(b) => Some(b.what),
        Error::Decode(d) | Error::Payload(d) => match d.kind() {
            ErrorKind::OverBudget(b) => Some(b.what),
            _ => None,
        },
        _ => None,
    }
}

fn assert_over<T: std::fmt::Debug>(r: Result<T, Error>, what: &str) {
    let e = r.expect_err("should be over budget");
    assert_eq!(over_budget(&e), Some(what), "{e}");
}

/// vc int8, vi/si u8, ci/ti/bi/sk/fc/hi/fi/vd/vp absent, nb 1.
const BASE: u32 = 0x03FF_CFC0;

/// `BASE` with the 2-bit fields at `shift` set to `code` (0 = 1 byte, 1 = 2, 2 = 4, 3 =
/// absent).
fn types(fields: &[(u32, u32)]) -> u32 {
    fields.iter().fold(BASE, |t, (shift, code)| {
        (t & !(3 << shift)) | (code << shift)
    })
}

const SI: u32 = 4;
const BI: u32 = 10;
const SK: u32 = 14;
const FC: u32 = 16;
const VD: u32 = 22;
const VP: u32 = 24;

struct Payload(Vec<u8>);

impl Payload {
    fn new(types: u32, strings: &[u8]) -> Payload {
        let mut p = b"HEAD".to_vec();
        p.extend_from_slice(&(16 + strings.len() as u32).to_le_bytes());
        p.extend_from_slice(&1.0f32.to_le_bytes());
        p.extend_from_slice(&types.to_le_bytes());
        p.extend_from_slice(strings);
        Payload(p)
    }

    fn chunk(mut self, magic: &[u8; 4], body: &[u8]) -> Payload {
        self.0.extend_from_slice(magic);
        self.0
            .extend_from_slice(&(8 + body.len() as u32).to_le_bytes());
        self.0.extend_from_slice(body);
        self
    }

    fn end(mut self) -> Vec<u8> {
        self.0.extend_from_slice(b"OMD3");
        self.0
    }
}

fn uncompressed(payload: &[u8]) -> Vec<u8> {
    let mut out = b"3DMO".to_vec();
    out.extend_from_slice(&(payload.len() as u32 + 8).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

fn compressed(payload: &[u8]) -> Vec<u8> {
    let z = miniz_oxide::deflate::compress_to_vec_zlib(payload, 6);
    let mut out = b"3DMO".to_vec();
    out.extend_from_slice(&(z.len() as u32 + 8).to_le_bytes());
    out.extend_from_slice(&z);
    out
}

fn small() -> ReadOptions {
    ReadOptions {
        budget: m3d_format::Budget::new(SMALL),
    }
}

fn small_load() -> LoadOptions {
    LoadOptions {
        budget: Budget::new(SMALL),
        ..LoadOptions::default()
    }
}

/// Two int8 vertices: a position at the origin (w 1) and the identity quaternion.
const TWO_VERTICES: [u8; 8] = [0, 0, 0, 127, 0, 0, 0, 127];

// ------------------------------------------------------------------ the payload

#[test]
fn the_inflated_payload_and_what_it_decodes_to_share_one_budget() {
    // One extra chunk of 6 MiB of zeros: the payload inflates to 6 MiB (its buffer grows
    // 64, 128, ... 8 MiB), then the chunk's bytes are copied (6 MiB more). 10 MiB pays
    // for either alone, not for both: before, the two were capped separately.
    let body = vec![0u8; 6 << 20];
    let payload = Payload::new(BASE, b"m\0\0\0\0").chunk(b"ZZZZ", &body).end();
    let file = compressed(&payload);
    // A fresh 10 MiB budget for each read.
    let ten = || ReadOptions {
        budget: m3d_format::Budget::new(Limits {
            max_alloc_bytes: 10 << 20,
            ..Limits::DEFAULT
        }),
    };
    assert_over(m3d_format::read_with(&file, &ten()), "chunk bytes");
    // The same bytes uncompressed need only the copy.
    let f = m3d_format::read_with(&uncompressed(&payload), &ten()).unwrap();
    assert_eq!(f.counts().extra, 1);
}

#[test]
fn the_inflated_payload_is_handed_back_once_decoded() {
    // After reading, a shared budget holds what the file keeps: the same for the
    // compressed and the uncompressed form of one payload (the inflated buffer, 8 MiB
    // here, is freed and its charge handed back for the steps that follow).
    let body = vec![0u8; 6 << 20];
    let payload = Payload::new(BASE, b"m\0\0\0\0").chunk(b"ZZZZ", &body).end();
    let used = |file: &[u8]| {
        let budget = Budget::new(Limits::DEFAULT);
        let opts = ReadOptions {
            budget: budget.clone(),
        };
        m3d_format::read_with(file, &opts).unwrap();
        budget.used()
    };
    let plain = used(&uncompressed(&payload));
    assert!(plain >= 6 << 20, "{plain}");
    assert_eq!(used(&compressed(&payload)), plain);
}

#[test]
fn a_compression_bomb_stops_at_what_the_shared_budget_has_left() {
    // 64 MiB of zeros in ~64 KB. A fresh 4 MiB budget: the stream itself is past the
    // limit (Error::Inflate, as before). A budget of 4 MiB with 3 already spent by an
    // earlier step: the payload stops at the 1 MiB left, naming it.
    let body = vec![0u8; 64 << 20];
    let payload = Payload::new(BASE, b"m\0\0\0\0").chunk(b"ZZZZ", &body).end();
    let file = compressed(&payload);
    assert!(file.len() < 1 << 20);
    let limits = Limits {
        max_alloc_bytes: 4 << 20,
        ..Limits::DEFAULT
    };
    let e = m3d_format::read_with(
        &file,
        &ReadOptions {
            budget: m3d_format::Budget::new(limits),
        },
    );
    assert!(matches!(e, Err(Error::Inflate { offset: 8, .. })), "{e:?}");
    let budget = Budget::new(limits);
    budget.charge("an earlier step", 3 << 20).unwrap();
    let opts = ReadOptions {
        budget: budget.clone(),
    };
    assert_over(m3d_format::read_with(&file, &opts), "inflated payload");
    assert!(budget.used() <= 4 << 20);
}

#[test]
fn colours_are_resolved_without_a_scan_of_the_chunks_each() {
    // 200,000 chunks, then 100,000 vertices and a material of 100,000 colour properties
    // (one byte each with ci absent): each colour looked for the colour map among all
    // chunks (2e10 steps for each of to_core and the text form).
    let mut payload = Payload::new(BASE, b"m\0\0\0\0");
    for _ in 0..200_000u32 {
        payload = payload.chunk(b"XXXX", &[]);
    }
    let mut mtrl = vec![0u8]; // name
    mtrl.resize(1 + 100_000, 0); // Kd, colour absent: 0
    let f = m3d_format::read(&uncompressed(
        &payload
            .chunk(b"VRTS", &vec![0u8; 100_000 * 4])
            .chunk(b"MTRL", &mtrl)
            .end(),
    ))
    .unwrap();
    let c = quick("to_core", || f.to_core()).unwrap();
    assert_eq!(c.value.materials.len(), 1);
    assert_eq!(
        c.value.materials[0].base_color,
        meshfmt_core::glam::Vec4::ZERO
    );
    let text = quick("write_ascii", || f.write_ascii()).unwrap();
    let kd = text.split("\r\n").filter(|l| *l == "Kd #00000000").count();
    assert_eq!(kd, 100_000);
}

#[test]
fn thousands_of_chunk_kinds_are_counted_in_linear_time() {
    // 200,000 empty chunks of distinct magics ('X' + 3 bytes of the index): the chunk
    // index path used a list scanned per chunk (2e10 comparisons).
    let mut payload = Payload::new(BASE, b"m\0\0\0\0");
    for i in 0..200_000u32 {
        let [a, b, c, _] = i.to_le_bytes();
        payload = payload.chunk(&[b'X', a, b, c], &[]);
    }
    let file = uncompressed(&payload.end());
    let f = quick("read", || m3d_format::read(&file)).unwrap();
    assert_eq!(f.counts().extra, 200_000);
    // Each is a loss in to_core: the first 100 listed, then one line counting the rest.
    let c = quick("to_core", || f.to_core()).unwrap();
    let listed = c
        .losses
        .iter()
        .filter(|l| l.path.starts_with("chunk["))
        .count();
    assert_eq!(listed, 100);
    assert!(
        c.losses
            .iter()
            .any(|l| l.reason == "199900 more like this not listed: application chunk"),
        "{:?}",
        c.losses.last()
    );
}

// ------------------------------------------------------------------ meshes

/// VRTS of 15 vertices and a MESH of `n` polygons of 15 corners (vi u8: 16 bytes each).
fn fifteen_corner_polygons(n: usize) -> Vec<u8> {
    let mut mesh = Vec::with_capacity(n * 16);
    for _ in 0..n {
        mesh.push(0xF0); // 15 corners, no flags
        mesh.extend(0..15u8);
    }
    Payload::new(BASE, b"m\0\0\0\0")
        .chunk(b"VRTS", &[0u8; 15 * 4])
        .chunk(b"MESH", &mesh)
        .end()
}

#[test]
fn polygons_of_fifteen_corners_charge_their_corners() {
    // 262,144 polygons (4 MiB): records of ~64 bytes (16 MiB) plus 15 heap corners of
    // 16 bytes each (60 MiB) pass 64 MiB; the corners were not charged before.
    let file = compressed(&fifteen_corner_polygons(1 << 18));
    assert_over(
        quick("read", || m3d_format::read_with(&file, &small())),
        "polygon corners",
    );
}

#[test]
fn loading_fans_polygons_into_triangles_on_the_same_budget() {
    // 100,000 polygons of 15 corners: 13 triangles each, 1,300,000 faces of 40 bytes
    // (52 MB). Loading alone fits 64 MiB; after reading on the same budget (~30 MiB for
    // the payload, records and corners) it does not.
    let file = compressed(&fifteen_corner_polygons(100_000));
    let l = m3d_format::read_with(&file, &small())
        .unwrap()
        .load(&small_load())
        .unwrap();
    assert_eq!(l.faces.len(), 1_300_000);
    let budget = Budget::new(SMALL);
    let f = m3d_format::read_with(
        &file,
        &ReadOptions {
            budget: budget.clone(),
        },
    )
    .unwrap();
    let read = budget.used();
    assert!(read > 20 << 20, "{read}");
    let opts = LoadOptions {
        budget: budget.clone(),
        ..LoadOptions::default()
    };
    assert_over(f.load(&opts), "triangles");
}

// ------------------------------------------------------------------ voxels

/// One voxel type and `blocks` VOXD chunks, each declaring a 256^3 grid (vd u16) in 17
/// bytes, whose one run codes 128 voxels of type 0 (a bar along x).
fn voxel_bars(blocks: usize) -> Vec<u8> {
    let t = types(&[(VD, 1), (VP, 0)]);
    let mut p = Payload::new(t, b"m\0\0\0\0").chunk(b"VOXT", &[0, 0, 0, 0]);
    let mut voxd = vec![0u8]; // name
    voxd.extend_from_slice(&[0; 6]); // pos
    for _ in 0..3 {
        voxd.extend_from_slice(&256u16.to_le_bytes());
    }
    voxd.extend_from_slice(&[0, 0]); // uncertain, group
    voxd.extend_from_slice(&[0x80 | 127, 0]); // 128 x type 0
    for _ in 0..blocks {
        p = p.chunk(b"VOXD", &voxd);
    }
    compressed(&p.end())
}

#[test]
fn voxel_grids_cost_what_their_runs_code_not_what_they_declare() {
    // 2,000 blocks declaring 256^3 voxels each (2^25 in all) in 50 KB. Each meshes as a
    // bar of 128 voxels: 4 long sides, 2 triangles each, per voxel, plus the 2 ends
    // (128 * 8 + 4 = 1028 triangles), every voxel using all 8 of its corners as new
    // vertices (1024 per block), after the 6 axis normals. Before, every block built
    // and walked its whole 64 MiB grid.
    let file = voxel_bars(2000);
    let f = quick("read", || m3d_format::read_with(&file, &small())).unwrap();
    assert_eq!(f.counts().voxel_blocks, 2000);
    let l = quick("load", || f.load(&LoadOptions::default())).unwrap();
    assert_eq!(l.faces.len(), 2000 * 1028);
    assert_eq!(l.vertices.len(), 6 + 2000 * 1024);
    // 2M vertices (49 MB) and 2M faces (82 MB) do not fit 64 MiB.
    assert_over(quick("load", || f.load(&small_load())), "meshed voxels");
    // to_core does not mesh grids over 4M voxels: a loss, and the rest converts.
    let c = quick("to_core", || {
        f.to_core_with(&CoreOptions {
            budget: Budget::new(SMALL),
            ..Default::default()
        })
    })
    .unwrap();
    assert!(c.value.surfaces.is_empty());
    assert!(
        c.losses
            .iter()
            .any(|l| l.reason.contains("voxels not meshed")),
        "{:?}",
        c.losses
    );
    // The text form writes every voxel of a grid: 2 bytes each, 32 MiB a block.
    let opts = WriteOptions {
        budget: m3d_format::Budget::new(SMALL),
        ..WriteOptions::default()
    };
    assert_over(
        quick("write_ascii", || f.write_ascii_with(&opts)),
        "ASCII text",
    );
}

#[test]
fn four_byte_voxel_sizes_do_not_overflow() {
    // vd u32: w * h * d = (2^32 - 1)^3 overflows u64 (a panic in a debug build before).
    let t = types(&[(VD, 2), (VP, 0)]);
    let mut voxd = vec![0u8];
    voxd.extend_from_slice(&[0; 12]);
    for _ in 0..3 {
        voxd.extend_from_slice(&u32::MAX.to_le_bytes());
    }
    voxd.extend_from_slice(&[0, 0, 0x80 | 127, 0]);
    let payload = Payload::new(t, b"m\0\0\0\0")
        .chunk(b"VOXT", &[0, 0, 0, 0])
        .chunk(b"VOXD", &voxd)
        .end();
    let f = m3d_format::read(&uncompressed(&payload)).unwrap();
    let Some(Body::Voxd(b)) = f.chunks.get(1).map(|c| &c.body) else {
        panic!("{:?}", f.chunks)
    };
    assert_eq!(b.size, [u32::MAX; 3]);
    let e = f.load(&LoadOptions::default()).unwrap_err();
    assert!(matches!(e, Error::Invalid(_)), "{e}");
    let c = f.to_core().unwrap();
    assert!(
        c.losses
            .iter()
            .any(|l| l.reason.contains("voxels not meshed"))
    );
    assert!(matches!(f.write_ascii(), Err(Error::Invalid(_))));
}

// ------------------------------------------------------------------ skins and shapes

#[test]
fn one_bone_skins_without_bone_bytes_charge_what_they_hold() {
    // nb 1 and bi absent: a skin reads no bytes (the count is checked at 1 byte each)
    // but holds a one-id list. The budget pays for the skin records (r.array), half the
    // lists and a bit: before, the lists were not charged and this read passed.
    let n = 100_000usize;
    let t = types(&[(BI, 3), (SK, 2)]);
    let mut bone = (n as u32).to_le_bytes().to_vec(); // numskin (numbone takes no bytes)
    bone.resize(4 + n, 0);
    let payload = Payload::new(t, b"m\0\0\0\0").chunk(b"BONE", &bone).end();
    let file = uncompressed(&payload);
    let skin = std::mem::size_of::<m3d_format::Skin>();
    let chunk = std::mem::size_of::<Chunk>();
    let limit = (5 + chunk + n * skin + n * 2) as u64;
    let opts = ReadOptions {
        budget: m3d_format::Budget::new(Limits {
            max_alloc_bytes: limit,
            ..Limits::DEFAULT
        }),
    };
    assert_over(m3d_format::read_with(&file, &opts), "skins");
    let f = m3d_format::read(&file).unwrap();
    assert_eq!(f.counts().skins, n);
}

#[test]
fn shape_commands_of_one_byte_are_charged() {
    // `mesh` (type 2) with fi absent is one byte; 4M of them held ~56 bytes each.
    let mut shpe = vec![0u8]; // name; the group takes no bytes (bi absent)
    shpe.resize(1 + (4 << 20), 2);
    let payload = Payload::new(BASE, b"m\0\0\0\0").chunk(b"SHPE", &shpe).end();
    let file = compressed(&payload);
    assert_over(
        quick("read", || m3d_format::read_with(&file, &small())),
        "shape commands",
    );
}

// ------------------------------------------------------------------ names

/// A string table of 1 MiB without a NUL, one material named at offset 1000 (the rest
/// of the table), and a MESH of 100,000 use-material records naming offsets 1..=100000
/// (si u32), then one triangle.
fn nul_less_names() -> File {
    let t = types(&[(SI, 2)]);
    let mut mesh = Vec::new();
    for i in 1..=100_000u32 {
        mesh.push(0);
        mesh.extend_from_slice(&i.to_le_bytes());
    }
    mesh.extend_from_slice(&[0x30, 0, 1, 2]);
    let payload = Payload::new(t, &vec![b'a'; 1 << 20])
        .chunk(b"VRTS", &[0u8; 3 * 4])
        .chunk(b"MTRL", &1000u32.to_le_bytes())
        .chunk(b"MESH", &mesh)
        .end();
    m3d_format::read(&compressed(&payload)).unwrap()
}

#[test]
fn names_in_a_table_without_nul_are_looked_up_once() {
    // Every name runs to the end of the table; each record's lookup scanned and hashed
    // up to 1 MiB (1e11 bytes in all).
    let f = nul_less_names();
    let c = quick("to_core", || f.to_core()).unwrap();
    // One material, the one triangle after a record naming no material.
    assert_eq!(c.value.materials.len(), 1);
    assert_eq!(c.value.materials[0].name.len(), (1 << 20) - 1000);
    assert_eq!(c.value.surfaces.len(), 1);
    assert_eq!(c.value.surfaces[0].material, None);
    // 99,999 records name no material (only offset 1000 does): 100 listed, one line for
    // the rest.
    let undefined = c
        .losses
        .iter()
        .filter(|l| l.reason == "material name not defined")
        .count();
    assert_eq!(undefined, 100);
    assert!(
        c.losses
            .iter()
            .any(|l| l.reason == "99899 more like this not listed: material name not defined")
    );
    let l = quick("load", || f.load(&LoadOptions::default())).unwrap();
    assert_eq!(l.faces.len(), 1);
    assert_eq!(l.faces[0].material, Idx::UNDEF);
    let p = quick("problems", || f.problems());
    assert_eq!(p.len(), 101);
    assert_eq!(
        p[100].to_string(),
        "... and 99899 more problems of this kind not listed: undefined material"
    );
    // The text form names the material on each record: 1e11 bytes, refused.
    let opts = WriteOptions {
        budget: m3d_format::Budget::new(SMALL),
        ..WriteOptions::default()
    };
    assert_over(
        quick("write_ascii", || f.write_ascii_with(&opts)),
        "ASCII text",
    );
}

#[test]
fn distinct_texture_names_are_counted_in_linear_time() {
    // 100,000 maps naming offsets 1..=100000 of a 200,000-byte table without NUL: every
    // name is a different suffix, so 100,000 textures (each pair was compared before).
    let mut f = File {
        strings: vec![b'a'; 200_000],
        types: Types(types(&[(SI, 2)])),
        ..File::default()
    };
    let props = (1..=100_000)
        .map(|i| Property {
            kind: 128,
            value: PropValue::Map(Str(i)),
        })
        .collect();
    f.chunks.push(Chunk {
        body: Body::Mtrl(Material {
            name: Str(0),
            props,
        }),
        tail: Vec::new(),
    });
    assert_eq!(quick("counts", || f.counts()).textures, 100_000);
    // Converting copies each name (150,000 bytes on average, 15 GB): refused.
    let opts = CoreOptions {
        budget: Budget::new(SMALL),
        ..Default::default()
    };
    assert_over(quick("to_core", || f.to_core_with(&opts)), "names");
}

// ------------------------------------------------------------------ animation

/// `nbones` bones (bi u16, fc u16) on two vertices, then `actions` ACTN chunks of
/// `frames` frames: the first moves bones 0..`moved`, the rest are empty.
fn skeleton_with_actions(nbones: u16, actions: usize, frames: u16, moved: u16) -> Vec<u8> {
    let t = types(&[(BI, 1), (FC, 1)]);
    let mut bone = nbones.to_le_bytes().to_vec();
    for i in 0..nbones {
        let parent = if i == 0 { 0xFFFF } else { i - 1 };
        bone.extend_from_slice(&parent.to_le_bytes());
        bone.extend_from_slice(&[0, 0, 1]); // name, pos, ori
    }
    let mut actn = vec![0u8];
    actn.extend_from_slice(&frames.to_le_bytes());
    actn.extend_from_slice(&u32::from(frames).to_le_bytes());
    for f in 0..frames {
        actn.extend_from_slice(&u32::from(f).to_le_bytes());
        let n = if f == 0 { moved } else { 0 };
        actn.extend_from_slice(&n.to_le_bytes());
        for b in 0..n {
            actn.extend_from_slice(&b.to_le_bytes());
            actn.extend_from_slice(&[0, 1]);
        }
    }
    let mut p = Payload::new(t, b"m\0\0\0\0")
        .chunk(b"VRTS", &TWO_VERTICES)
        .chunk(b"BONE", &bone);
    for _ in 0..actions {
        p = p.chunk(b"ACTN", &actn);
    }
    compressed(&p.end())
}

#[test]
fn dense_keys_are_charged_across_actions() {
    // 500 bones moved in frame 0 of 2,000 frames: 1M dense keys of 36 bytes (36 MB) from
    // 14 KB of frames, on a shared 60,000-bone skeleton. One action fits 64 MiB; a second
    // does not (the cap was per action, and nothing was charged).
    let one = m3d_format::read(&skeleton_with_actions(60_000, 1, 2000, 500)).unwrap();
    let opts = CoreOptions {
        budget: Budget::new(SMALL),
        ..Default::default()
    };
    let c = quick("to_core", || one.to_core_with(&opts)).unwrap();
    let clip = &c.value.animations[0];
    assert_eq!(clip.channels.len(), 500);
    assert!(
        clip.channels
            .iter()
            .all(|ch| ch.translation.times.len() == 2000)
    );
    let three = m3d_format::read(&skeleton_with_actions(60_000, 3, 2000, 500)).unwrap();
    assert_over(
        quick("to_core", || three.to_core_with(&opts)),
        "animation keys",
    );
}

#[test]
fn many_small_actions_on_a_big_skeleton_take_linear_time() {
    // 20,000 actions of one frame moving one bone, on 60,000 bones: each action set up
    // and reset per-bone state for all 60,000 bones (1.2e9 steps, 34 GB of allocations).
    let f = m3d_format::read(&skeleton_with_actions(60_000, 20_000, 1, 1)).unwrap();
    let c = quick("to_core", || f.to_core()).unwrap();
    assert_eq!(c.value.animations.len(), 20_000);
    assert!(
        c.value
            .animations
            .iter()
            .all(|a| a.channels.len() == 1 && a.channels[0].rotation.times == [0.0])
    );
}

#[test]
fn a_key_at_the_last_millisecond_is_a_value_not_a_loop() {
    // Frames at 0 and 0xFFFFFFFF ms on one bone: to_core keys them at 0 and 4294967.295 s
    // (4294967.5 in f32) without walking the time between; from_core gives two frames
    // back (the time rounds to the largest u32). Resampling it at 30 fps (1.3e8 frames)
    // is refused by meshfmt-core on the same small budget.
    let t = types(&[(BI, 1), (FC, 1)]);
    let mut actn = vec![0u8];
    actn.extend_from_slice(&2u16.to_le_bytes());
    actn.extend_from_slice(&u32::MAX.to_le_bytes());
    for ms in [0, u32::MAX] {
        actn.extend_from_slice(&ms.to_le_bytes());
        actn.extend_from_slice(&1u16.to_le_bytes());
        actn.extend_from_slice(&[0, 0, 0, 1]); // bone 0, pos 0, ori 1
    }
    let payload = Payload::new(t, b"m\0\0\0\0")
        .chunk(b"VRTS", &TWO_VERTICES)
        .chunk(b"BONE", &[1, 0, 0xFF, 0xFF, 0, 0, 1])
        .chunk(b"ACTN", &actn)
        .end();
    let f = m3d_format::read(&uncompressed(&payload)).unwrap();
    let budget = Budget::new(SMALL);
    let opts = CoreOptions {
        budget: budget.clone(),
        ..Default::default()
    };
    let c = quick("to_core", || f.to_core_with(&opts)).unwrap();
    let times = &c.value.animations[0].channels[0].translation.times;
    assert_eq!(times, &[0.0, 4_294_967.5]);
    assert!(
        c.value.animations[0]
            .frame_times(30.0, &budget, 64)
            .is_err()
    );
    let back = quick("from_core", || {
        File::from_core_with(&c.value, &WriteOptions::default())
    })
    .unwrap()
    .value;
    let Some(Body::Actn(a)) = back
        .chunks
        .iter()
        .map(|c| &c.body)
        .find(|b| matches!(b, Body::Actn(_)))
    else {
        panic!("no action")
    };
    let ms: Vec<u32> = a.frames.iter().map(|f| f.msec).collect();
    assert_eq!(ms, [0, u32::MAX]);
}

/// A model of `bones` bones in a chain and one clip whose `channels` channels (bones
/// 0..channels) each have `keys` translation keys at times no other channel has.
fn disjoint_keys(bones: usize, channels: usize, keys: usize) -> meshfmt_core::Model {
    use meshfmt_core::glam::Vec3;
    use meshfmt_core::{Channel, Clip, Model, Track};
    let mut m = Model::default();
    for i in 0..bones {
        m.skeleton.bones.push(meshfmt_core::Bone {
            name: format!("b{i}"),
            parent: i.checked_sub(1),
            rest: meshfmt_core::Transform::IDENTITY,
            inverse_bind: None,
        });
    }
    let channels = (0..channels)
        .map(|c| Channel {
            bone: c,
            translation: Track::from_keys(
                (0..keys).map(|k| ((c * keys + k) as f32 / 1000.0, Vec3::X * k as f32)),
            ),
            ..Channel::default()
        })
        .collect();
    m.animations.push(Clip {
        events: Vec::new(),
        name: "walk".into(),
        channels,
    });
    m
}

#[test]
fn from_core_checks_and_charges_frames_before_sampling() {
    // 100 channels of 1,000 keys at distinct milliseconds: 100,000 frames, past M3D's
    // 65,535, refused before 100,000 x 100 samples (1.5 GB) are built.
    let e = quick("from_core", || {
        File::from_core_with(&disjoint_keys(100, 100, 1000), &WriteOptions::default())
    })
    .unwrap_err();
    assert!(e.to_string().contains("more than 65535 frames"), "{e}");
    // 600 channels of 100 keys: 60,000 frames x 600 samples of two vertices and a
    // transform (5.6 GB): over budget before sampling.
    let opts = WriteOptions {
        budget: m3d_format::Budget::new(SMALL),
        ..WriteOptions::default()
    };
    assert_over(
        quick("from_core", || {
            File::from_core_with(&disjoint_keys(600, 600, 100), &opts)
        }),
        "action frames",
    );
}

#[test]
fn a_deep_bone_chain_in_text_is_charged_before_it_is_written() {
    // 50,000 bones, each the child of the one before: the text gives bone i as i slashes
    // then its vertices, 1.25e9 bytes in all.
    let bones = (0..50_000u32)
        .map(|i| Bone {
            parent: if i == 0 { Idx::UNDEF } else { Idx(i - 1) },
            name: Str(0),
            pos: Idx(0),
            ori: Idx(1),
        })
        .collect();
    let mut f = File {
        types: Types(types(&[(BI, 1)])),
        ..File::default()
    };
    f.chunks.push(Chunk {
        body: Body::Bone(Skeleton {
            bones,
            skins: Vec::new(),
        }),
        tail: Vec::new(),
    });
    let opts = || WriteOptions {
        budget: m3d_format::Budget::new(SMALL),
        ..WriteOptions::default()
    };
    assert_over(
        quick("write_ascii", || f.write_ascii_with(&opts())),
        "ASCII text",
    );
    // 2,000 bones (2 million slashes) fit, in a fresh budget.
    if let Some(Body::Bone(s)) = f.chunks.last_mut().map(|c| &mut c.body) {
        s.bones.truncate(2000);
    }
    let text = f.write_ascii_with(&opts()).unwrap();
    assert_eq!(text.bytes().filter(|b| *b == b'/').count(), 1999 * 2000 / 2);
}

#[test]
fn problems_are_listed_a_hundred_of_a_kind() {
    // 100,000 triangles on vertex 5 of an empty list: 300,000 corners past the list.
    let corner = m3d_format::Corner {
        vertex: Idx(5),
        uv: Idx::UNDEF,
        normal: Idx::UNDEF,
        max: Idx::UNDEF,
    };
    let records = (0..100_000)
        .map(|_| MeshRecord::Polygon {
            flags: 0,
            corners: vec![corner; 3].into(),
        })
        .collect();
    let mut f = File::default();
    f.chunks.push(Chunk {
        body: Body::Mesh(Mesh { records }),
        tail: Vec::new(),
    });
    let p = quick("problems", || f.problems());
    assert_eq!(p.len(), 101);
    assert_eq!(
        p[0].to_string(),
        "MESH[0].record[0].corner[0].vertex: index 5 past the 0 entries"
    );
    assert_eq!(p[0].path, "MESH[0].record[0].corner[0].vertex");
    assert_eq!(
        p[100].to_string(),
        "... and 299900 more problems of this kind not listed: corner vertex"
    );
}

// ------------------------------------------------------------------ ASCII

#[test]
fn the_ascii_reader_charges_the_budget_it_is_given() {
    // 1,000,000 vertex lines of 8 bytes: 24 bytes of line index and a 72-byte vertex
    // each, 96 MB from 8 MB of text.
    let mut text = String::from("3dmodel 1\nm\n\n\n\nVertex\n");
    for _ in 0..1_000_000 {
        text.push_str("0 0 0 1\n");
    }
    text.push_str("\nEnd\n");
    assert_over(
        quick("read", || m3d_format::read_with(text.as_bytes(), &small())),
        "vertices",
    );
    let budget = Budget::default();
    let f = m3d_format::read_with(
        text.as_bytes(),
        &ReadOptions {
            budget: budget.clone(),
        },
    )
    .unwrap();
    assert_eq!(f.counts().vertices, 1_000_000);
    assert!(budget.used() >= 1_000_000 * 96, "{}", budget.used());
}

#[test]
fn ascii_skins_are_found_by_lookup() {
    // 200,000 vertices with a skin each, all different (bone i): each was compared with
    // every skin before it (2e10 comparisons).
    let mut text = String::from("3dmodel 1\nm\n\n\n\nVertex\n");
    for i in 0..200_000 {
        text.push_str(&format!("0 0 0 1 {i}\n"));
    }
    text.push_str("\nEnd\n");
    let f = quick("read", || m3d_format::read(text.as_bytes())).unwrap();
    let c = f.counts();
    assert_eq!((c.vertices, c.skins), (200_000, 200_000));
}

// ------------------------------------------------------------------ sharing

#[test]
fn one_budget_runs_through_read_convert_write_and_load() {
    // A normal model converts under the default budget, and each step adds to the
    // shared total; with fresh budgets the results are the same.
    let model = test_support::textured_triangle();
    let bytes = File::from_core_with(&model, &WriteOptions::default())
        .unwrap()
        .value
        .write()
        .unwrap();
    let budget = Budget::default();
    let mut used = vec![0];
    let step = |used: &mut Vec<u64>| {
        let now = budget.used();
        assert!(now > *used.last().unwrap(), "{used:?} then {now}");
        used.push(now);
    };
    let f = m3d_format::read_with(
        &bytes,
        &ReadOptions {
            budget: budget.clone(),
        },
    )
    .unwrap();
    step(&mut used);
    let core = f
        .to_core_with(&CoreOptions {
            budget: budget.clone(),
            ..Default::default()
        })
        .unwrap();
    step(&mut used);
    let wo = WriteOptions {
        budget: budget.clone(),
        ..WriteOptions::default()
    };
    let again = File::from_core_with(&core.value, &wo).unwrap();
    step(&mut used);
    let out = again.value.write_with(&wo).unwrap();
    step(&mut used);
    let l = f
        .load(&LoadOptions {
            budget: budget.clone(),
            ..LoadOptions::default()
        })
        .unwrap();
    step(&mut used);
    let text = f.write_ascii_with(&wo).unwrap();
    step(&mut used);
    // The same results as with a fresh budget per call.
    assert_eq!(m3d_format::read(&bytes).unwrap(), f);
    assert_eq!(f.to_core().unwrap().value, core.value);
    assert_eq!(
        again.value.write().unwrap(),
        out,
        "the shared budget changes nothing written"
    );
    assert_eq!(f.load(&LoadOptions::default()).unwrap(), l);
    assert_eq!(f.write_ascii().unwrap(), text);
    assert_eq!(core.value.surfaces[0].indices.len(), 3);
}

#[test]
fn a_small_file_asking_for_everything_at_once_stays_within_its_budget() {
    // What `meshfmt info` does (read, counts, to_core) on one file holding voxel grids,
    // many-corner polygons and ten wide actions, under 64 MiB: an error naming what
    // passed it, or the value, in well under a second.
    let t = types(&[(BI, 1), (FC, 1), (VD, 1), (VP, 0)]);
    let mut p = Payload::new(t, b"m\0\0\0\0")
        .chunk(b"VRTS", &[0u8; 15 * 4])
        .chunk(b"VOXT", &[0, 0, 0, 0]);
    let mut mesh = Vec::new();
    for _ in 0..40_000 {
        mesh.push(0xF0);
        mesh.extend(0..15u8);
    }
    p = p.chunk(b"MESH", &mesh);
    let mut voxd = vec![0u8];
    voxd.extend_from_slice(&[0; 6]);
    for _ in 0..3 {
        voxd.extend_from_slice(&256u16.to_le_bytes());
    }
    voxd.extend_from_slice(&[0, 0, 0x80 | 127, 0]);
    for _ in 0..2000 {
        p = p.chunk(b"VOXD", &voxd);
    }
    let mut bone = 10_000u16.to_le_bytes().to_vec();
    for _ in 0..10_000 {
        bone.extend_from_slice(&[0xFF, 0xFF, 0, 0, 1]);
    }
    p = p.chunk(b"BONE", &bone);
    let mut actn = vec![0u8];
    actn.extend_from_slice(&1000u16.to_le_bytes());
    actn.extend_from_slice(&1000u32.to_le_bytes());
    for f in 0..1000u32 {
        actn.extend_from_slice(&f.to_le_bytes());
        let n: u16 = if f == 0 { 1000 } else { 0 };
        actn.extend_from_slice(&n.to_le_bytes());
        for b in 0..n {
            actn.extend_from_slice(&b.to_le_bytes());
            actn.extend_from_slice(&[0, 1]);
        }
    }
    for _ in 0..10 {
        p = p.chunk(b"ACTN", &actn);
    }
    let file = compressed(&p.end());
    let budget = Budget::new(SMALL);
    let r = quick("info", || -> Result<usize, Error> {
        let f = m3d_format::read_with(
            &file,
            &ReadOptions {
                budget: budget.clone(),
            },
        )?;
        let c = f.counts();
        assert_eq!((c.faces, c.voxel_blocks, c.actions), (40_000, 2000, 10));
        let core = f.to_core_with(&CoreOptions {
            budget: budget.clone(),
            ..Default::default()
        })?;
        Ok(core.value.surfaces.len())
    });
    // Ten actions of 1,000 frames x 1,000 bones are 36 MB of keys each.
    assert_over(r, "animation keys");
    assert!(budget.used() <= SMALL.max_alloc_bytes);
}

#[test]
fn action_frames_are_read_as_stored() {
    // The reading side of the animation tests: the frame records are what was written.
    let f = m3d_format::read(&skeleton_with_actions(3, 1, 2, 2)).unwrap();
    let Some(Body::Actn(a)) = f.chunks.last().map(|c| &c.body) else {
        panic!()
    };
    let want = Action {
        name: Str(0),
        duration_msec: 2,
        frames: vec![
            Frame {
                msec: 0,
                transforms: (0..2)
                    .map(|b| Transform {
                        bone: Idx(b),
                        pos: Idx(0),
                        ori: Idx(1),
                    })
                    .collect(),
            },
            Frame {
                msec: 1,
                transforms: Vec::new(),
            },
        ],
    };
    assert_eq!(a, &want);
}

#[test]
fn generated_normals_are_charged() {
    // 1,000,000 vertices (4 MB as int8) and one triangle without normals: loading makes a
    // sum per vertex (24 bytes) and a normal vertex per vertex (24 bytes) on top of the
    // 24-byte loaded vertices: 72 MB, past 64 MiB.
    let n = 1_000_000;
    let payload = Payload::new(BASE, b"m\0\0\0\0")
        .chunk(b"VRTS", &vec![0u8; n * 4])
        .chunk(b"MESH", &[0x30, 0, 1, 2])
        .end();
    let f = m3d_format::read(&compressed(&payload)).unwrap();
    assert_over(f.load(&small_load()), "generated normals");
    let without = LoadOptions {
        normals: false,
        ..small_load()
    };
    assert_eq!(f.load(&without).unwrap().vertices.len(), n);
    // With room, every vertex gets its normal appended.
    assert_eq!(
        f.load(&LoadOptions::default()).unwrap().vertices.len(),
        2 * n
    );
}

#[cfg(feature = "png")]
#[test]
fn textures_are_charged_as_they_are_decoded_or_read() {
    use meshfmt_core::{RgbaImage, TextureSource};
    // A 1024 x 1024 texture of one colour inlines as a small PNG; decoding it takes 4 MiB
    // of pixels and 4 MiB of buffer.
    let mut model = test_support::textured_triangle();
    model.textures[0].source = TextureSource::Embedded(RgbaImage {
        width: 1024,
        height: 1024,
        pixels: vec![200; 1024 * 1024 * 4],
    });
    let f = File::from_core_with(&model, &WriteOptions::default())
        .unwrap()
        .value;
    let four = Limits {
        max_alloc_bytes: 4 << 20,
        ..Limits::DEFAULT
    };
    let opts = CoreOptions {
        budget: Budget::new(four),
        ..Default::default()
    };
    assert_over(f.to_core_with(&opts), "decoded texture");
    let c = f.to_core().unwrap();
    assert!(matches!(&c.value.textures[0].source, TextureSource::Embedded(i) if i.width == 1024));
    // A texture file the caller's reader loads (5 MiB here) is charged as it is held.
    let plain = File::from_core_with(&test_support::textured_triangle(), &WriteOptions::default())
        .unwrap()
        .value;
    let side = vec![("bricks.png".to_string(), vec![0u8; 5 << 20])];
    let opts = CoreOptions {
        side_files: Some(&side),
        budget: Budget::new(four),
        ..Default::default()
    };
    assert_over(plain.to_core_with(&opts), "external texture");
}

#[test]
fn a_surface_per_material_record_is_charged() {
    // 200,000 pairs of a use-material record (2 bytes) and a triangle (4 bytes): each
    // record starts a run, so each triangle is a surface of its own (a few hundred bytes
    // with its corner map and name) from 6 bytes.
    let mut mesh = Vec::new();
    for _ in 0..200_000 {
        mesh.extend_from_slice(&[0, 1, 0x30, 0, 1, 2]); // use "m", triangle 0 1 2
    }
    let payload = Payload::new(BASE, b"\0m\0\0\0")
        .chunk(b"VRTS", &[0u8; 3 * 4])
        .chunk(b"MTRL", &[1])
        .chunk(b"MESH", &mesh)
        .end();
    let f = m3d_format::read(&compressed(&payload)).unwrap();
    let c = quick("to_core", || f.to_core()).unwrap();
    assert_eq!(c.value.surfaces.len(), 200_000);
    assert!(c.value.surfaces.iter().all(|s| s.material == Some(0)));
    let opts = CoreOptions {
        budget: Budget::new(SMALL),
        ..Default::default()
    };
    // ~1 KB each with their corners: past 64 MiB at about the 65,000th, whichever of
    // the surface's parts is charged then.
    let e = quick("to_core", || f.to_core_with(&opts)).unwrap_err();
    let what = over_budget(&e);
    assert!(
        matches!(what, Some("surfaces" | "surface vertices" | "triangles")),
        "{e}"
    );
}

#[test]
fn writing_charges_the_payload_and_the_output() {
    // 1,000,000 int8 vertices: a 4 MB payload, refused by a 2 MiB budget; with 16 MiB the
    // payload, the compressed stream and the file fit and read back the same.
    let n = 1_000_000;
    let payload = Payload::new(BASE, b"m\0\0\0\0")
        .chunk(b"VRTS", &vec![0u8; n * 4])
        .end();
    let f = m3d_format::read(&uncompressed(&payload)).unwrap();
    let two = WriteOptions {
        budget: m3d_format::Budget::new(Limits {
            max_alloc_bytes: 2 << 20,
            ..Limits::DEFAULT
        }),
        ..WriteOptions::default()
    };
    assert_over(f.write_with(&two), "payload");
    let budget = Budget::new(Limits {
        max_alloc_bytes: 16 << 20,
        ..Limits::DEFAULT
    });
    let out = f
        .write_with(&WriteOptions {
            budget: budget.clone(),
            ..WriteOptions::default()
        })
        .unwrap();
    assert!(budget.used() > (n * 4) as u64);
    assert_eq!(m3d_format::read(&out).unwrap().counts().vertices, n);
}

#[test]
fn an_ascii_load_reads_and_loads_on_one_budget() {
    // A text of 20,000 triangles. Reading it and loading what was read each charge
    // the budget; without one given, `load` makes one for both, as it does when the
    // caller shares theirs.
    let n = 20_000;
    let mut text = String::from("3dmodel 1\nmany\nMIT\nbzt\n\nVertex\n");
    for i in 0..n + 2 {
        text.push_str(&format!("{i} 0 0 1\n"));
    }
    text.push_str("\nMesh\n");
    for i in 0..n {
        text.push_str(&format!("{} {} {}\n", i, i + 1, i + 2));
    }
    text.push_str("\nEnd\n");
    let bytes = text.into_bytes();
    // What each part charges alone.
    let read_budget = Budget::new(Limits::DEFAULT);
    let file = m3d_format::read_with(
        &bytes,
        &ReadOptions {
            budget: read_budget.clone(),
        },
    )
    .unwrap();
    let load_budget = Budget::new(Limits::DEFAULT);
    let shared = |budget: &Budget| LoadOptions {
        budget: budget.clone(),
        ..LoadOptions::default()
    };
    file.load(&shared(&load_budget)).unwrap();
    let (read, load) = (read_budget.used(), load_budget.used());
    assert!(read > 0 && load > 0, "{read} {load}");
    // `load` under a limit of `bytes` and a budget of its own.
    let load_within = |max_alloc_bytes| {
        let limits = Limits {
            max_alloc_bytes,
            ..Limits::DEFAULT
        };
        m3d_format::load(
            &bytes,
            &LoadOptions {
                budget: Budget::new(limits),
                ..LoadOptions::default()
            },
        )
    };
    // A limit each part fits but not both.
    let e = load_within(read.max(load) + (read.min(load) / 2));
    assert!(over_budget(&e.unwrap_err()).is_some());
    // Room for both: it loads.
    let l = load_within(read + load).unwrap();
    assert_eq!(l.faces.len(), n);
}
