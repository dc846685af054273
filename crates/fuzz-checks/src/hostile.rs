//! A hostile corpus of our own: small files built to make a reader, a conversion or a
//! writer do far more work than their size suggests (compression and amplification
//! bombs, built *after* compression where the container compresses), one or more per
//! container. `tests/hostile.rs` runs each through every reader, conversion and writer
//! under a capped allocator; `cargo xtask hostile` runs each through the `meshfmt` tool.
//!
//! ```
//! let corpus = fuzz_checks::hostile::corpus();
//! assert!(corpus.iter().any(|h| h.family == "m3d"));
//! assert!(corpus.iter().all(|h| h.bytes.len() < 16 << 20));
//! ```

use m3d_format::{
    Action, Body, Bone as M3dBone, Chunk, Coord, File as M3dFile, Frame, Idx, Records, Run,
    Skeleton as M3dSkeleton, Str, Transform as M3dTransform, Types, Vertex, VoxelBlock, VoxelType,
};

/// One hostile input.
#[derive(Debug, Clone)]
pub struct Hostile {
    /// Short name, also the file stem `cargo xtask hostile` writes.
    pub name: &'static str,
    /// Family (the fuzz target family it belongs to).
    pub family: &'static str,
    /// File extension it is written with.
    pub ext: &'static str,
    /// What it attacks.
    pub attack: &'static str,
    /// The file.
    pub bytes: Vec<u8>,
}

impl Hostile {
    /// `name.ext`.
    pub fn file_name(&self) -> String {
        format!("{}.{}", self.name, self.ext)
    }
}

/// Every hostile input, built in memory (each under 16 MiB, most far smaller).
pub fn corpus() -> Vec<Hostile> {
    let mut out = Vec::new();
    out.extend(m3d());
    out.extend(unigine());
    out.extend(gltf());
    out.extend(obj());
    out.extend(vitaboy());
    out
}

fn entry(
    name: &'static str,
    family: &'static str,
    ext: &'static str,
    attack: &'static str,
    bytes: Vec<u8>,
) -> Hostile {
    Hostile {
        name,
        family,
        ext,
        attack,
        bytes,
    }
}

// ------------------------------------------------------------------------------ M3D

/// M3D type bits: `vc` int8, every width as given (0 u8, 1 u16, 2 u32, 3 absent).
fn m3d_types(fields: &[(u32, u32)]) -> Types {
    // Default: vc int8, vi/si u8, everything else absent.
    let mut bits: u32 = 0x03FF_CFC0;
    for &(shift, value) in fields {
        bits = (bits & !(3 << shift)) | (value << shift);
    }
    Types(bits)
}

/// The bytes of one chunk (magic, length, body) as our writer encodes it.
fn m3d_chunk(types: Types, strings: &[u8], body: Body) -> Vec<u8> {
    let file = M3dFile {
        types,
        strings: strings.to_vec(),
        chunks: vec![Chunk {
            body,
            tail: Vec::new(),
        }],
        ..M3dFile::default()
    };
    let payload = file.payload().unwrap_or_default();
    let head = payload
        .get(4..8)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u32::from_le_bytes) as usize;
    payload
        .get(head..payload.len().saturating_sub(4))
        .unwrap_or_default()
        .to_vec()
}

/// A compressed M3D file: HEAD, then each chunk repeated as often as given, then OMD3,
/// the payload deflated (so the file is small however large the payload).
fn m3d_file(types: Types, strings: &[u8], chunks: &[(Vec<u8>, usize)]) -> Vec<u8> {
    let mut payload = Vec::new();
    payload.extend_from_slice(b"HEAD");
    payload.extend_from_slice(&(strings.len() as u32 + 16).to_le_bytes());
    payload.extend_from_slice(&1.0f32.to_le_bytes());
    payload.extend_from_slice(&types.0.to_le_bytes());
    payload.extend_from_slice(strings);
    for (chunk, times) in chunks {
        for _ in 0..*times {
            payload.extend_from_slice(chunk);
        }
    }
    payload.extend_from_slice(b"OMD3");
    let z = miniz_oxide::deflate::compress_to_vec_zlib(&payload, 6);
    let mut out = b"3DMO".to_vec();
    out.extend_from_slice(&(z.len() as u32 + 8).to_le_bytes());
    out.extend_from_slice(&z);
    out
}

fn vertex(x: i8, w: i8, skin: Idx) -> Vertex {
    Vertex {
        coords: [Coord::I8(x), Coord::I8(0), Coord::I8(0), Coord::I8(w)],
        color: 0,
        skin,
    }
}

fn m3d() -> Vec<Hostile> {
    let names = b"\0\0\0\0bomb\0";
    let mut out = Vec::new();

    // 300 VRTS chunks of 65,536 records each: 77 MiB of payload in a ~80 KB file, and
    // each record decodes to a struct several times its 4 bytes.
    let t = m3d_types(&[]);
    let vrts = m3d_chunk(
        t,
        names,
        Body::Vrts(Records {
            items: vec![vertex(0, 127, Idx::UNDEF); 65_536],
            tail: Vec::new(),
        }),
    );
    out.push(entry(
        "m3d-vertex-chunks",
        "m3d",
        "m3d",
        "zlib payload of many vertex chunks (each chunk used to get a fresh budget)",
        m3d_file(t, names, &[(vrts, 300)]),
    ));

    // 40 voxel blocks of 2048 x 2048 x 1, each one run of one voxel type: a few bytes
    // per block for 4M voxels to mesh.
    let t = m3d_types(&[(22, 1), (24, 0), (6, 2)]);
    let voxt = m3d_chunk(
        t,
        names,
        Body::Voxt(vec![VoxelType {
            color: 0xff00_00ff,
            name: Str(4),
            rotation: 0,
            shape_low: 0,
            skin: Idx::UNDEF,
            items: Vec::new(),
        }]),
    );
    let voxd = m3d_chunk(
        t,
        names,
        Body::Voxd(VoxelBlock {
            name: Str(4),
            pos: [0, 0, 0],
            size: [2048, 1, 2048],
            uncertain: 0,
            group: 0,
            runs: vec![Run::Repeat(128, Idx(0)); 2048 * 2048 / 128],
        }),
    );
    out.push(entry(
        "m3d-voxel-blocks",
        "m3d",
        "m3d",
        "voxel blocks whose grids and meshes dwarf their runs",
        m3d_file(t, names, &[(voxt, 1), (voxd, 40)]),
    ));

    // A skeleton of two bones and an action whose one frame is at 0xFFFFFFFF ms: every
    // writer that resamples at 30 fps is asked for 1.3e8 frames.
    let t = m3d_types(&[(10, 0), (16, 0)]);
    let bones = M3dSkeleton {
        bones: vec![
            M3dBone {
                parent: Idx::UNDEF,
                name: Str(4),
                pos: Idx(0),
                ori: Idx(1),
            },
            M3dBone {
                parent: Idx(0),
                name: Str(4),
                pos: Idx(0),
                ori: Idx(1),
            },
        ],
        skins: Vec::new(),
    };
    let quat = vertex(0, 127, Idx::MAX);
    let vrts = m3d_chunk(
        t,
        names,
        Body::Vrts(Records {
            items: vec![vertex(1, 127, Idx::UNDEF), quat],
            tail: Vec::new(),
        }),
    );
    let bone = m3d_chunk(t, names, Body::Bone(bones));
    let actn = m3d_chunk(
        t,
        names,
        Body::Actn(Action {
            name: Str(4),
            duration_msec: u32::MAX,
            frames: vec![Frame {
                msec: u32::MAX,
                transforms: vec![M3dTransform {
                    bone: Idx(1),
                    pos: Idx(0),
                    ori: Idx(1),
                }],
            }],
        }),
    );
    out.push(entry(
        "m3d-frame-time",
        "m3d",
        "m3d",
        "an action frame at 0xFFFFFFFF ms (resampling writers)",
        m3d_file(t, names, &[(vrts.clone(), 1), (bone, 1), (actn, 1)]),
    ));

    // A chain of 60,000 bones: the ASCII form nests bones with one '/' per level, so
    // its text grows with the square of the chain (1.8e9 bytes).
    let t = m3d_types(&[(10, 1), (16, 0)]);
    let chain = M3dSkeleton {
        bones: (0..60_000u32)
            .map(|i| M3dBone {
                parent: if i == 0 { Idx::UNDEF } else { Idx(i - 1) },
                name: Str(4),
                pos: Idx(0),
                ori: Idx(1),
            })
            .collect(),
        skins: Vec::new(),
    };
    let bone = m3d_chunk(t, names, Body::Bone(chain));
    out.push(entry(
        "m3d-bone-chain",
        "m3d",
        "m3d",
        "a 60,000-bone chain (ASCII writer, world matrices, depth-first order)",
        m3d_file(t, names, &[(vrts, 1), (bone, 1)]),
    ));
    out
}

// ------------------------------------------------------------------------------ UNIGINE

/// An LZ4 block (plain block format) that decodes to `n` zero bytes (n >= 13): one
/// literal, one match of offset 1 run to the end, the five literals LZ4 requires last.
pub fn lz4_zeros(n: usize) -> Vec<u8> {
    let n = n.max(13);
    let code = n - 6 - 4;
    let mut out = vec![0x10 | code.min(15) as u8, 0, 1, 0];
    if code >= 15 {
        let mut rest = code - 15;
        while rest >= 255 {
            out.push(255);
            rest -= 255;
        }
        out.push(rest as u8);
    }
    out.extend_from_slice(&[0x50, 0, 0, 0, 0, 0]);
    out
}

fn unigine() -> Vec<Hostile> {
    let mut out = Vec::new();
    // A one-surface ms14 whose geometry block claims (and LZ4-decodes to) 256 MiB of
    // zeros from 1 MiB.
    let cube = meshfmt_core::canonical::cube();
    let opts = unigine_mesh::WriteOptions {
        version: unigine_mesh::TargetVersion::Ms14,
        ..Default::default()
    };
    if let Ok(bytes) = unigine_mesh::MeshFile::from_core_with(&cube, &opts)
        .map_err(|e| e.to_string())
        .and_then(|c| c.value.write().map_err(|e| e.to_string()))
    {
        // The file ends with a marker, the i64 offset of the (only) geometry block, a
        // marker; the block is u64 size, u64 compressed size, bytes.
        let n = bytes.len();
        let at = i64::from_le_bytes(bytes[n - 12..n - 4].try_into().unwrap_or([0; 8])) as usize;
        let csize = u64::from_le_bytes(bytes[at + 8..at + 16].try_into().unwrap_or([0; 8]));
        let size = 256usize << 20;
        let block = lz4_zeros(size);
        let mut bomb = bytes[..at].to_vec();
        bomb.extend_from_slice(&(size as u64).to_le_bytes());
        bomb.extend_from_slice(&(block.len() as u64).to_le_bytes());
        bomb.extend_from_slice(&block);
        bomb.extend_from_slice(&bytes[at + 16 + csize as usize..]);
        out.push(entry(
            "ms14-lz4-block",
            "unigine_mesh",
            "mesh",
            "an LZ4 geometry block decoding to 256 MiB",
            bomb,
        ));
    }
    // An an10 file of 2,000 animations that animate no bone over 2^28 - 1 frames each: a
    // frame loop that produces nothing would run 5e11 times.
    let anim = unigine_anim::an10::An10 {
        bounds: unigine_anim::an10::EMPTY_BOUNDS,
        bones: vec![unigine_anim::an10::BoneInfo {
            name: parsing_primitives_name("root"),
            parent: -1,
        }],
        bind_pose: vec![meshfmt_core::Transform::IDENTITY],
        animations: (0..2000)
            .map(|_| unigine_anim::an10::Animation {
                name: parsing_primitives_name("idle"),
                bones: Vec::new(),
                boxes: unigine_anim::an10::Boxes {
                    translation: unigine_anim::an10::EMPTY_BOX,
                    scale: unigine_anim::an10::EMPTY_BOX,
                },
                flags: 0,
                num_frames: (1 << 28) - 1,
                keys: Vec::new(),
            })
            .collect(),
    };
    if let Ok(bytes) = anim.write() {
        out.push(entry(
            "an10-empty-frames",
            "unigine_anim",
            "anim",
            "2,000 animations of 2^28 frames that animate no bone",
            bytes,
        ));
    }
    out
}

fn parsing_primitives_name(s: &str) -> parsing_primitives::RawString {
    parsing_primitives::RawString::from(s)
}

// ------------------------------------------------------------------------------ glTF

/// A GLB of a JSON document and a binary chunk.
fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut j = json.as_bytes().to_vec();
    j.resize(j.len().next_multiple_of(4), b' ');
    let mut b = bin.to_vec();
    b.resize(b.len().next_multiple_of(4), 0);
    let total = 12 + 8 + j.len() + if b.is_empty() { 0 } else { 8 + b.len() };
    let mut out = b"glTF".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    if !b.is_empty() {
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&b);
    }
    out
}

fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

fn gltf() -> Vec<Hostile> {
    let mut out = Vec::new();
    let asset = r#""asset":{"version":"2.0"}"#;

    // One 30,000-vertex mesh instanced by 20,000 nodes: 7 GB of copies from 460 KB.
    let n = 30_000;
    let bin = vec![0u8; n * 12];
    let nodes: Vec<String> = (0..20_000).map(|_| r#"{"mesh":0}"#.to_string()).collect();
    let json = format!(
        r#"{{{asset},"buffers":[{{"byteLength":{}}}],"bufferViews":[{{"buffer":0,"byteLength":{}}}],"accessors":[{{"bufferView":0,"componentType":5126,"count":{n},"type":"VEC3","min":[0,0,0],"max":[0,0,0]}}],"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],"nodes":[{}],"scenes":[{{"nodes":[0]}}]}}"#,
        bin.len(),
        bin.len(),
        nodes.join(",")
    );
    out.push(entry(
        "gltf-instancing",
        "gltf",
        "glb",
        "one mesh instanced by 20,000 nodes",
        glb(&json, &bin),
    ));

    // 200,000 nodes in one chain, a triangle at the bottom: quadratic walks take hours.
    let depth = 200_000;
    let bin = floats(&[0., 0., 0., 1., 0., 0., 0., 1., 0.]);
    let mut nodes: Vec<String> = (0..depth - 1)
        .map(|i| format!(r#"{{"children":[{}],"translation":[0,0.001,0]}}"#, i + 1))
        .collect();
    nodes.push(r#"{"mesh":0}"#.into());
    let json = format!(
        r#"{{{asset},"buffers":[{{"byteLength":36}}],"bufferViews":[{{"buffer":0,"byteLength":36}}],"accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],"nodes":[{}],"scenes":[{{"nodes":[0]}}]}}"#,
        nodes.join(",")
    );
    out.push(entry(
        "gltf-deep-chain",
        "gltf",
        "glb",
        "a 200,000-node chain (cycle check, world matrices)",
        glb(&json, &bin),
    ));

    // A two-joint skin animated at key times 0 and 1e20 s (and 0 and 1e7 s): every
    // writer that resamples at 30 fps is asked for an impossible number of frames.
    for (name, last) in [("gltf-key-time-1e20", 1e20f32), ("gltf-key-time-1e7", 1e7)] {
        let mut bin = floats(&[0., 0., 0., 1., 0., 0., 0., 1., 0.]); // 0: positions
        bin.extend(floats(&[0., last])); // 36: times
        bin.extend(floats(&[
            0.,
            0.,
            0.,
            1.,
            0.,
            0.,
            std::f32::consts::FRAC_1_SQRT_2,
            std::f32::consts::FRAC_1_SQRT_2,
        ])); // 44: rotations
        bin.extend([0u8; 12]); // 76: joints (u8 x 4 x 3)
        bin.extend(floats(&[1., 0., 0., 0., 1., 0., 0., 0., 1., 0., 0., 0.])); // 88: weights
        let json = format!(
            r#"{{{asset},"buffers":[{{"byteLength":{}}}],"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":8}},{{"buffer":0,"byteOffset":44,"byteLength":32}},{{"buffer":0,"byteOffset":76,"byteLength":12}},{{"buffer":0,"byteOffset":88,"byteLength":48}}],"accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},{{"bufferView":1,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[{last}]}},{{"bufferView":2,"componentType":5126,"count":2,"type":"VEC4"}},{{"bufferView":3,"componentType":5121,"count":3,"type":"VEC4"}},{{"bufferView":4,"componentType":5126,"count":3,"type":"VEC4"}}],"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"JOINTS_0":3,"WEIGHTS_0":4}}}}]}}],"skins":[{{"joints":[1,2]}}],"nodes":[{{"mesh":0,"skin":0}},{{"children":[2]}},{{}}],"animations":[{{"channels":[{{"sampler":0,"target":{{"node":2,"path":"rotation"}}}}],"samplers":[{{"input":1,"output":2}}]}}],"scenes":[{{"nodes":[0,1]}}]}}"#,
            bin.len()
        );
        out.push(entry(
            name,
            "gltf",
            "glb",
            "an animation key far in the future (resampling writers)",
            glb(&json, &bin),
        ));
    }

    // 5,000 channels sharing one sampler of 100,000 keys: 4 GB of key copies.
    let keys = 100_000;
    let mut bin = floats(&[0., 0., 0., 1., 0., 0., 0., 1., 0.]);
    bin.extend(floats(&(0..keys).map(|k| k as f32).collect::<Vec<_>>()));
    bin.extend(vec![0u8; keys * 12]);
    let channels: Vec<String> = (0..5000)
        .map(|_| r#"{"sampler":0,"target":{"node":1,"path":"translation"}}"#.to_string())
        .collect();
    let json = format!(
        r#"{{{asset},"buffers":[{{"byteLength":{}}}],"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":{}}},{{"buffer":0,"byteOffset":{},"byteLength":{}}}],"accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},{{"bufferView":1,"componentType":5126,"count":{keys},"type":"SCALAR","min":[0],"max":[{}]}},{{"bufferView":2,"componentType":5126,"count":{keys},"type":"VEC3"}}],"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],"skins":[{{"joints":[1]}}],"nodes":[{{"mesh":0}},{{}}],"animations":[{{"channels":[{}],"samplers":[{{"input":1,"output":2}}]}}],"scenes":[{{"nodes":[0,1]}}]}}"#,
        bin.len(),
        keys * 4,
        36 + keys * 4,
        keys * 12,
        keys - 1,
        channels.join(",")
    );
    out.push(entry(
        "gltf-shared-sampler",
        "gltf",
        "glb",
        "5,000 channels reading one 100,000-key sampler",
        glb(&json, &bin),
    ));
    out
}

// ------------------------------------------------------------------------------ OBJ

fn obj() -> Vec<Hostile> {
    let mut out = Vec::new();
    // One face of 1.5 million corners (a fan of as many triangles).
    let mut fan = String::from("v 0 0 0\nv 1 0 0\nv 0 1 0\nf");
    for _ in 0..500_000 {
        fan.push_str(" 1 2 3");
    }
    fan.push('\n');
    out.push(entry(
        "obj-fan",
        "obj",
        "obj",
        "one polygon of 1.5 million corners",
        fan.into_bytes(),
    ));
    // A 400 KB group name, then 50,000 `usemtl` switches with a face each: each
    // surface carries the name (20 GB of copies).
    let mut text = String::from("v 0 0 0\nv 1 0 0\nv 0 1 0\ng ");
    text.push_str(&"g".repeat(400_000));
    text.push('\n');
    for _ in 0..50_000 {
        text.push_str("usemtl m\nf 1 2 3\n");
    }
    out.push(entry(
        "obj-long-group",
        "obj",
        "obj",
        "a long group name repeated into 50,000 surfaces",
        text.into_bytes(),
    ));
    out
}

// ------------------------------------------------------------------------------ Vitaboy

fn vitaboy() -> Vec<Hostile> {
    let mut out = Vec::new();
    // 10,000 motions all reading one shared pool of 60,000 frames: 21 GB of keys from
    // 1.9 MB.
    let frames = 60_000u32;
    let motion = niotso_mesh::anim::Motion {
        unknown: 0,
        bone_name: parsing_primitives::RawString::from("ROOT"),
        frame_count: frames,
        duration: 1000.0,
        has_translation: 1,
        has_rotation: 1,
        first_translation: 0,
        first_rotation: 0,
        has_props: 0,
        props: Vec::new(),
        has_time_props: 0,
        time_props: Vec::new(),
    };
    let anim = niotso_mesh::Anim {
        version: 2,
        name: parsing_primitives::RawString::from("bomb"),
        duration: 1000.0,
        distance: 0.0,
        is_moving: 0,
        translations: vec![[0.0; 3]; frames as usize],
        rotations: vec![[0.0, 0.0, 0.0, 1.0]; frames as usize],
        motions: vec![motion; 10_000],
    };
    if let Ok(bytes) = anim.write() {
        out.push(entry(
            "vitaboy-shared-pool",
            "vitaboy",
            "anim",
            "10,000 motions sharing one 60,000-frame key pool",
            bytes,
        ));
    }
    out
}
