//! The format writers and readers the fixtures and the conformance report exercise.
//! Each format issue adds its entries here.

use meshfmt_core::{Converted, Model};

/// bytes (and a companion file's) -> model.
pub type DecodeFn = fn(&[u8], Option<&[u8]>) -> Result<Converted<Model>, String>;

/// One format (and version) that can hold a model or part of one.
pub struct Codec {
    /// Crate name: the fixtures folder.
    pub crate_name: &'static str,
    /// Label in the report (format and version).
    pub label: &'static str,
    /// File extension of the fixtures.
    pub ext: &'static str,
    /// canonical model -> bytes, with what the format could not hold.
    pub encode: fn(&Model) -> Result<Converted<Vec<u8>>, String>,
    /// bytes (and the companion file's, if any) -> model.
    pub decode: DecodeFn,
    /// A second file the format needs beside the first (Vitaboy meshes need their
    /// .skel): its extension and encoder.
    pub companion: Option<Companion>,
}

/// A file written beside a codec's main output.
pub struct Companion {
    /// Extension.
    pub ext: &'static str,
    /// canonical model -> bytes.
    pub encode: fn(&Model) -> Result<Vec<u8>, String>,
}

fn unigine(m: &Model, version: unigine_mesh::TargetVersion) -> Result<Converted<Vec<u8>>, String> {
    let opts = unigine_mesh::WriteOptions {
        version,
        ..Default::default()
    };
    let c = unigine_mesh::MeshFile::from_core(m, &opts).map_err(|e| e.to_string())?;
    let bytes = c.value.write().map_err(|e| e.to_string())?;
    Ok(Converted {
        value: bytes,
        losses: c.losses,
    })
}

fn unigine_read(b: &[u8], _: Option<&[u8]>) -> Result<Converted<Model>, String> {
    let f = unigine_mesh::read(b).map_err(|e| e.to_string())?;
    f.to_core().map_err(|e| e.to_string())
}

fn anim(m: &Model, version: unigine_anim::TargetVersion) -> Result<Converted<Vec<u8>>, String> {
    if m.skeleton.is_empty() {
        return Err("no skeleton or animation to write".into());
    }
    let c = unigine_anim::AnimFile::from_core(m, version, unigine_anim::DEFAULT_FPS)
        .map_err(|e| e.to_string())?;
    let bytes = c.value.write().map_err(|e| e.to_string())?;
    Ok(Converted {
        value: bytes,
        losses: c.losses,
    })
}

fn anim_read(b: &[u8], _: Option<&[u8]>) -> Result<Converted<Model>, String> {
    let f = unigine_anim::read(b).map_err(|e| e.to_string())?;
    f.to_core(unigine_anim::DEFAULT_FPS)
        .map_err(|e| e.to_string())
}

fn m3d(m: &Model, ascii: bool) -> Result<Converted<Vec<u8>>, String> {
    let mut c = m3d_format::File::from_core(m, &m3d_format::WriteOptions::default())
        .map_err(|e| e.to_string())?;
    if ascii {
        c.losses.extend(c.value.ascii_losses());
    }
    let bytes = if ascii {
        c.value.write_ascii().map(String::into_bytes)
    } else {
        c.value.write()
    }
    .map_err(|e| e.to_string())?;
    Ok(Converted {
        value: bytes,
        losses: c.losses,
    })
}

fn m3d_read(b: &[u8], _: Option<&[u8]>) -> Result<Converted<Model>, String> {
    let f = m3d_format::read(b).map_err(|e| e.to_string())?;
    f.to_core().map_err(|e| e.to_string())
}

pub const CODECS: &[Codec] = &[
    Codec {
        crate_name: "unigine-mesh",
        label: "unigine-mesh ms11",
        ext: "ms11.mesh",
        encode: |m| unigine(m, unigine_mesh::TargetVersion::Ms11),
        decode: unigine_read,
        companion: None,
    },
    Codec {
        crate_name: "unigine-mesh",
        label: "unigine-mesh ms14",
        ext: "ms14.mesh",
        encode: |m| unigine(m, unigine_mesh::TargetVersion::Ms14),
        decode: unigine_read,
        companion: None,
    },
    Codec {
        crate_name: "unigine-mesh",
        label: "unigine-mesh ms15",
        ext: "ms15.mesh",
        encode: |m| unigine(m, unigine_mesh::TargetVersion::Ms15),
        decode: unigine_read,
        companion: None,
    },
    Codec {
        crate_name: "unigine-mesh",
        label: "unigine-mesh ms13",
        ext: "ms13.mesh",
        encode: |m| unigine(m, unigine_mesh::TargetVersion::Ms13),
        decode: unigine_read,
        companion: None,
    },
    Codec {
        crate_name: "unigine-mesh",
        label: "unigine-mesh ms10",
        ext: "ms10.mesh",
        encode: |m| unigine(m, unigine_mesh::TargetVersion::Ms10),
        decode: unigine_read,
        companion: None,
    },
    Codec {
        crate_name: "unigine-mesh",
        label: "unigine-mesh ms08",
        ext: "ms08.smesh",
        encode: |m| unigine(m, unigine_mesh::TargetVersion::Ms08),
        decode: unigine_read,
        companion: None,
    },
    Codec {
        crate_name: "unigine-mesh",
        label: "unigine-mesh mi08",
        ext: "mi08.mesh",
        encode: |m| unigine(m, unigine_mesh::TargetVersion::Mi08),
        decode: unigine_read,
        companion: None,
    },
    Codec {
        crate_name: "unity-meshser",
        label: "unity-meshser (Rounded)",
        ext: "bytes",
        encode: |m| {
            let opts = unity_meshser::WriteOptions::default();
            let c = unity_meshser::MeshFile::from_core(m, &opts).map_err(|e| e.to_string())?;
            let bytes = c.value.write().map_err(|e| e.to_string())?;
            Ok(Converted {
                value: bytes,
                losses: c.losses,
            })
        },
        decode: |b, _| {
            let f = unity_meshser::read(b).map_err(|e| e.to_string())?;
            f.to_core().map_err(|e| e.to_string())
        },
        companion: None,
    },
    Codec {
        crate_name: "unigine-anim",
        label: "unigine-anim an10",
        ext: "anim",
        encode: |m| anim(m, unigine_anim::TargetVersion::An10),
        decode: anim_read,
        companion: None,
    },
    Codec {
        crate_name: "unigine-anim",
        label: "unigine-anim as08",
        ext: "sanim",
        encode: |m| anim(m, unigine_anim::TargetVersion::As08),
        decode: anim_read,
        companion: None,
    },
    Codec {
        crate_name: "niotso-mesh",
        label: "niotso-mesh .mesh + .skel",
        ext: "mesh",
        encode: |m| {
            let opts = niotso_mesh::CoreOptions::default();
            let c = niotso_mesh::Mesh::from_core(m, &opts).map_err(|e| e.to_string())?;
            let bytes = c.value.write().map_err(|e| e.to_string())?;
            let mut losses = c.losses;
            // What the .skel companion cannot hold (bone scale) is lost by this
            // conversion too.
            if !m.skeleton.is_empty() {
                let s = niotso_mesh::Skel::from_core(m, "skeleton").map_err(|e| e.to_string())?;
                losses.extend(s.losses);
            }
            Ok(Converted {
                value: bytes,
                losses,
            })
        },
        decode: |b, skel| {
            let mesh = niotso_mesh::mesh::read(b).map_err(|e| e.to_string())?;
            let skel = skel
                .map(niotso_mesh::skel::read)
                .transpose()
                .map_err(|e| e.to_string())?;
            mesh.to_core(skel.as_ref(), &niotso_mesh::CoreOptions::default())
                .map_err(|e| e.to_string())
        },
        companion: Some(Companion {
            ext: "skel",
            encode: |m| {
                // Static models get the one ROOT bone the mesh writer gives them.
                let mut m = m.clone();
                if m.skeleton.is_empty() {
                    m.skeleton.bones.push(meshfmt_core::Bone {
                        name: "ROOT".into(),
                        ..Default::default()
                    });
                }
                let s = niotso_mesh::Skel::from_core(&m, "skeleton").map_err(|e| e.to_string())?;
                s.value.write().map_err(|e| e.to_string())
            },
        }),
    },
    Codec {
        crate_name: "unigine-anim",
        label: "unigine-anim an11",
        ext: "an11.anim",
        encode: |m| anim(m, unigine_anim::TargetVersion::An11),
        decode: anim_read,
        companion: None,
    },
    Codec {
        crate_name: "unigine-anim",
        label: "unigine-anim an12",
        ext: "an12.anim",
        encode: |m| anim(m, unigine_anim::TargetVersion::An12),
        decode: anim_read,
        companion: None,
    },
    Codec {
        crate_name: "m3d-format",
        label: "m3d-format binary",
        ext: "m3d",
        encode: |m| m3d(m, false),
        decode: m3d_read,
        companion: None,
    },
    Codec {
        crate_name: "m3d-format",
        label: "m3d-format ASCII",
        ext: "a3d",
        encode: |m| m3d(m, true),
        decode: m3d_read,
        companion: None,
    },
];
