//! Every binary sample against the reference loader's results (expected_counts.json,
//! 'raw' = counts as stored: m3d.h with post-processing off), and the crafted files
//! that crash or confuse the reference. Skipped with a notice without the samples.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use m3d_format::chunks::{MeshRecord, PropValue};
use serde_json::Value;
use test_support::samples_or_skip;

/// FNV-1a 64 over little-endian u32s, from the basis the reference's digest tool uses
/// (0x14650fb0739d0383: the digest of an empty list in expected_counts.json).
fn fnv(words: impl Iterator<Item = u32>) -> u64 {
    let mut h = 0x1465_0fb0_739d_0383u64;
    for w in words {
        for b in w.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-3 * b.abs().max(1.0)
}

#[test]
fn binary_samples_match_the_reference_raw_counts() {
    let Some(dir) = samples_or_skip("m3d", "m3d reference counts") else {
        return;
    };
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected_counts.json")).unwrap())
            .unwrap();
    let mut checked = 0;
    for (name, results) in expected["files"].as_object().unwrap() {
        if !name.ends_with(".m3d") {
            continue; // the ASCII form is not read yet
        }
        let raw = &results["raw"];
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let m = m3d_format::read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let c = &m.chunks;
        let n = |k: &str| raw[k].as_u64().unwrap_or_else(|| panic!("{name}: {k}")) as usize;
        let titles = c.head.titles();
        assert_eq!(titles[0], raw["name"].as_str().unwrap(), "{name}");
        assert_eq!(c.vertices.len(), n("numvertex"), "{name} vertices");
        assert_eq!(c.triangle_count(), n("numface"), "{name} faces");
        assert_eq!(c.tmap.len(), n("numtmap"), "{name} tmap");
        assert_eq!(c.cmap.len(), n("numcmap"), "{name} cmap");
        assert_eq!(c.bones.len(), n("numbone"), "{name} bones");
        assert_eq!(c.skins.len(), n("numskin"), "{name} skins");
        assert_eq!(c.materials.len(), n("nummaterial"), "{name} materials");
        assert_eq!(c.shapes.len(), n("numshape"), "{name} shapes");
        assert_eq!(c.voxel_types.len(), n("numvoxtype"), "{name} voxel types");
        assert_eq!(c.voxel_blocks.len(), n("numvoxel"), "{name} voxel blocks");
        assert_eq!(c.assets.len(), n("numinlined"), "{name} inlined");
        // m3d.h lists every ASET among the extras too (its main loop has no ASET branch).
        assert_eq!(
            c.extras.len() + c.assets.len(),
            n("numextra"),
            "{name} extras"
        );
        // m3d.h drops actions without frames.
        let actions = c.actions.iter().filter(|a| !a.frames.is_empty()).count();
        assert_eq!(actions, n("numaction"), "{name} actions");
        for (a, want) in c.actions.iter().zip(raw["actions"].as_array().unwrap()) {
            assert_eq!(
                c.head.string(a.name).unwrap_or(""),
                want["name"].as_str().unwrap()
            );
            assert_eq!(
                u64::from(a.duration_msec),
                want["durationmsec"].as_u64().unwrap()
            );
            assert_eq!(a.frames.len() as u64, want["numframe"].as_u64().unwrap());
            let total: usize = a.frames.iter().map(|f| f.transforms.len()).sum();
            assert_eq!(
                total as u64,
                want["numtransform_total"].as_u64().unwrap(),
                "{name}"
            );
        }
        for (mat, want) in c.materials.iter().zip(raw["materials"].as_array().unwrap()) {
            assert_eq!(
                c.head.string(mat.name).unwrap_or(""),
                want["name"].as_str().unwrap()
            );
            // m3d.h drops texture properties whose name is empty (CesiumMan's map_Kd
            // points at an empty string); we keep them, as stored.
            let props: Vec<_> = mat
                .props
                .iter()
                .filter(|(_, v)| !matches!(v, PropValue::Map(o) if c.head.string(*o).unwrap_or("").is_empty()))
                .collect();
            assert_eq!(
                props.len() as u64,
                want["numprop"].as_u64().unwrap(),
                "{name}"
            );
            for (&&(kind, value), w) in props.iter().zip(want["props"].as_array().unwrap()) {
                assert_eq!(u64::from(kind), w[0].as_u64().unwrap(), "{name}");
                match value {
                    // The reference prints the resolved RGBA (CMAP entry for 8/16-bit
                    // colour indices).
                    PropValue::Colour(v) => {
                        let rgba = if c.head.types.ci.bytes() == 4 {
                            v
                        } else {
                            c.cmap.get(v as usize).copied().unwrap_or(0)
                        };
                        assert_eq!(u64::from(rgba), w[1].as_u64().unwrap(), "{name}")
                    }
                    PropValue::Float(f) => {
                        assert!(close(f64::from(f), w[1].as_f64().unwrap()), "{name}")
                    }
                    PropValue::Byte(b) => {
                        assert_eq!(u64::from(b), w[1].as_u64().unwrap(), "{name}")
                    }
                    PropValue::Map(_) => {}
                }
            }
        }
        // Digests, as expected_counts.json defines them.
        let d = &raw["digest"];
        let sum = c.vertices.iter().fold([0.0f64; 4], |mut s, v| {
            for (s, x) in s.iter_mut().zip(v.xyzw) {
                *s += f64::from(x as f32);
            }
            s
        });
        for (k, want) in d["vertex_sum"].as_array().unwrap().iter().enumerate() {
            assert!(
                close(sum[k], want.as_f64().unwrap()),
                "{name} vertex_sum[{k}] {} vs {want}",
                sum[k]
            );
        }
        if let Some(ts) = d["tmap_sum"].as_array() {
            let s = c
                .tmap
                .iter()
                .fold([0.0f64; 2], |s, t| [s[0] + t[0], s[1] + t[1]]);
            for (k, want) in ts.iter().enumerate() {
                assert!(close(s[k], want.as_f64().unwrap()), "{name} tmap_sum[{k}]");
            }
        }
        // face_fnv: per corner a (vertex, texcoord, normal) u32 triple, 0xffffffff undefined.
        let faces: Vec<[i32; 9]> = c
            .meshes
            .iter()
            .flatten()
            .filter_map(|r| match r {
                MeshRecord::Polygon { corners, .. } if corners.len() == 3 => Some([
                    corners[0][0],
                    corners[0][1],
                    corners[0][2],
                    corners[1][0],
                    corners[1][1],
                    corners[1][2],
                    corners[2][0],
                    corners[2][1],
                    corners[2][2],
                ]),
                _ => None,
            })
            .collect();
        let digest = format!("{:016x}", fnv(faces.iter().flatten().map(|&v| v as u32)));
        assert_eq!(digest, d["face_fnv"].as_str().unwrap(), "{name} face_fnv");
        checked += 1;
    }
    assert!(checked >= 12, "{checked}");
    println!(
        "m3d: {checked} binary samples match the reference's raw counts, actions, materials and digests"
    );
}

#[test]
fn crafted_files_give_errors_or_correct_values() {
    let Some(dir) = samples_or_skip("m3d", "m3d crafted files") else {
        return;
    };
    let read = |n: &str| std::fs::read(dir.join("crafted").join(n)).unwrap();
    // LBLS with exactly one record: one label (m3d.h over-counts 2).
    let m = m3d_format::read(&read("label_one.m3d")).unwrap();
    assert_eq!(m.chunks.labels.len(), 1);
    assert_eq!(m.chunks.labels[0].labels.len(), 1);
    // Vertex index 0xFF is the -1 sentinel: reading keeps it, conversion refuses it
    // (m3d.h's normal generation reads vertex[0xFFFFFFFF] and crashes).
    let m = m3d_format::read(&read("face_ff_index.m3d")).unwrap();
    let has_undef = m.chunks.meshes.iter().flatten().any(
        |r| matches!(r, MeshRecord::Polygon { corners, .. } if corners.iter().any(|c| c[0] == -1)),
    );
    assert!(has_undef);
    let e = m.to_core().unwrap_err().to_string();
    assert!(e.contains("face vertex index -1 out of range"), "{e}");
    // No trailing OMD3: an error naming it.
    let e = m3d_format::read(&read("no_omd3.m3d"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("OMD3"), "{e}");
    // A quad (m3d.h gives up with UNKMESH): one 4-point polygon, two triangles in core.
    let m = m3d_format::read(&read("quad.m3d")).unwrap();
    let quads = m
        .chunks
        .meshes
        .iter()
        .flatten()
        .filter(|r| matches!(r, MeshRecord::Polygon { corners, .. } if corners.len() == 4))
        .count();
    assert_eq!(quads, 1);
    let core = m.to_core().unwrap();
    assert_eq!(core.value.surfaces[0].indices.len(), 6);
    assert!(
        core.losses
            .iter()
            .any(|l| l.to_string().contains("fan-triangulated"))
    );
    // int8 -128 decodes to -128 / 127 = -1.0078740, as m3d.h.
    let m = m3d_format::read(&read("int8_min.m3d")).unwrap();
    let min = m
        .chunks
        .vertices
        .iter()
        .map(|v| v.xyzw[0])
        .fold(f64::INFINITY, f64::min);
    assert_eq!(min, -128.0 / 127.0);
    // Twelve 1-byte colour properties with ci absent (m3d.h overflows its heap): twelve
    // properties of value 0... each type byte followed by zero value bytes.
    let m = m3d_format::read(&read("mtrl_many_1byte_props.m3d")).unwrap();
    assert!(
        m.chunks.materials[0].props.len() >= 12,
        "{:?}",
        m.chunks.materials[0].props
    );
    // The ASCII file with a 400-character name: not read yet, a typed error.
    let e = m3d_format::read(&read("ascii_longname.a3d"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("ASCII"), "{e}");
}

#[test]
fn every_truncation_of_every_sample_is_an_error() {
    let Some(dir) = samples_or_skip("m3d", "m3d truncations") else {
        return;
    };
    let mut n = 0;
    for p in test_support::files_under(&dir, &["m3d"]) {
        let bytes = std::fs::read(&p).unwrap();
        let Ok(m) = m3d_format::read(&bytes) else {
            continue;
        };
        // The inflated payload, truncated at every byte, as an uncompressed file.
        let env = m3d_format::envelope::split(&bytes, &m3d_format::Limits::DEFAULT).unwrap();
        let payload = &env.payload;
        let step = (payload.len() / 400).max(1);
        for cut in (0..payload.len()).step_by(step) {
            let mut file = b"3DMO".to_vec();
            file.extend_from_slice(&(8 + cut as u32).to_le_bytes());
            file.extend_from_slice(&payload[..cut]);
            assert!(
                m3d_format::read(&file).is_err(),
                "{}: payload cut at {cut} reads",
                p.display()
            );
        }
        // And the file itself (zlib streams cut short).
        for cut in (0..bytes.len()).step_by((bytes.len() / 200).max(1)) {
            let _ = m3d_format::read(&bytes[..cut]).map(|m| m.to_core());
        }
        let _ = m.to_core();
        n += 1;
    }
    assert!(n >= 12, "{n}");
}
