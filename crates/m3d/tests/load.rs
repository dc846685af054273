//! m3d_load's post-processing ([`File::load`]) on the real samples, against the reference
//! loader's results: expected_counts.json's "raw" and "default" sets (voxels meshed,
//! normals generated, weights cross-referenced) and expected_pose.jsonl (per-bone weight
//! counts, inverse bind matrices, m3d_frame and m3d_pose).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/json.rs"]
mod json;

use m3d_format::{File, Idx, LoadOptions, Loaded, Precision, WriteOptions};
use test_support::sample_file_or_skip;

/// FNV-1a 64 from the reference harness's basis (see samples.rs).
fn fnv(words: impl IntoIterator<Item = u32>) -> String {
    let mut h: u64 = 0x1465_0fb0_739d_0383;
    for b in words.into_iter().flat_map(u32::to_le_bytes) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The reference's digests, as the harness defines them (face_fnv and vertex_sum are
/// stated in expected_counts.json; the others are the natural reading of their names,
/// and they agree on every sample): FNV over (vertex, uv, normal) per face corner, over
/// each face's material, over each vertex's (colour, skin), over the first four bone ids
/// of each skin (m3d.h's M3D_NUMBONE), and the sum of every bone's weight list.
fn check_digests(name: &str, l: &Loaded, d: &json::Json) {
    let faces = l
        .faces
        .iter()
        .flat_map(|f| (0..3).flat_map(move |k| [f.vertex[k].0, f.uv[k].0, f.normal[k].0]));
    assert_eq!(fnv(faces), d.get("face_fnv").str(), "{name}: face_fnv");
    let mats = l.faces.iter().map(|f| f.material.0);
    assert_eq!(
        fnv(mats),
        d.get("face_material_fnv").str(),
        "{name}: materials"
    );
    let vcs = l.vertices.iter().flat_map(|v| [v.color, v.skin.0]);
    assert_eq!(
        fnv(vcs),
        d.get("vertex_color_skin_fnv").str(),
        "{name}: colour/skin"
    );
    let ids = l
        .skins
        .iter()
        .flat_map(|s| s.bones[..4].iter().map(|b| b.0));
    assert_eq!(
        fnv(ids),
        d.get("skin_boneid_fnv").str(),
        "{name}: skin bones"
    );
    let weights: f64 = l
        .bones
        .iter()
        .flat_map(|b| b.weights.iter().map(|w| f64::from(w.1)))
        .sum();
    let want = d.get("bone_weight_sum").num();
    assert!(
        (weights - want).abs() < 1e-3,
        "{name}: weights {weights} vs {want}"
    );
}

fn vertex_sum(vertices: impl IntoIterator<Item = [f32; 4]>) -> [f64; 4] {
    let mut s = [0f64; 4];
    for v in vertices {
        for (acc, c) in s.iter_mut().zip(v) {
            *acc += f64::from(c);
        }
    }
    s
}

fn assert_sum(name: &str, got: [f64; 4], want: &json::Json) {
    let want: Vec<f64> = want.arr().iter().map(json::Json::num).collect();
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g - w).abs() <= 1e-4 * w.abs().max(1.0),
            "{name}: vertex_sum {got:?} vs {want:?}"
        );
    }
}

/// A model loaded as stored (`LoadOptions::raw()`) against the reference's raw set `r`:
/// counts, vertex sum and digests.
fn check_raw(name: &str, raw: &Loaded, r: &json::Json) {
    assert_eq!(raw.vertices.len(), r.get("numvertex").usize(), "{name}");
    assert_eq!(raw.faces.len(), r.get("numface").usize(), "{name}");
    assert_sum(
        name,
        vertex_sum(raw.vertices.iter().map(|v| v.xyzw)),
        r.get("digest").get("vertex_sum"),
    );
    check_digests(name, raw, r.get("digest"));
}

/// m3d.h's f32 `_m3d_rsq`, to rebuild the reference's approximate normals here.
fn rsq(x: f32) -> f32 {
    let y = f32::from_bits(0x5f37_59df_u32.wrapping_sub(x.to_bits() >> 1));
    y * (1.5 - x * 0.5 * y * y)
}

/// The normals m3d_load generates, computed its way (approximate normalisation), from
/// the model before generation: one per vertex, with the length of the sum it normalised.
fn reference_normals(raw: &Loaded) -> Vec<([f32; 3], f32)> {
    let p = |i: Idx| {
        let v = raw.vertices[i.0 as usize].xyzw;
        [v[0], v[1], v[2]]
    };
    let mut sums = vec![[0f32; 3]; raw.vertices.len()];
    for f in raw.faces.iter().filter(|f| f.normal[0] == Idx::UNDEF) {
        let [v0, v1, v2] = f.vertex.map(p);
        let a = [v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]];
        let b = [v2[0] - v0[0], v2[1] - v0[1], v2[2] - v0[2]];
        let mut n = [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ];
        let w = rsq(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        n = n.map(|c| c * w);
        for v in f.vertex {
            for k in 0..3 {
                sums[v.0 as usize][k] += n[k];
            }
        }
    }
    sums.into_iter()
        .map(|s| {
            let len2 = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
            (s.map(|c| c * rsq(len2)), len2.sqrt())
        })
        .collect()
}

/// The samples folder and its expected_counts.json; `None` (skipped) when missing, a
/// failure under MESHFMT_REQUIRE_SAMPLES.
fn samples(test: &str) -> Option<(std::path::PathBuf, json::Json)> {
    let path = sample_file_or_skip("m3d", "expected_counts.json", test)?;
    let text = std::fs::read_to_string(&path).unwrap();
    Some((path.parent().unwrap().to_path_buf(), json::parse(&text)))
}

#[test]
fn loaded_models_match_the_reference_raw_and_default_sets() {
    let Some((dir, exp)) = samples("loaded_models_match_the_reference_raw_and_default_sets") else {
        return;
    };
    let files = exp.get("files").obj();
    let mut checked = 0;
    for (name, entry) in files {
        let f: File = m3d_format::read(&std::fs::read(dir.join(name)).unwrap()).unwrap();
        // As stored.
        let raw = f.load(&LoadOptions::raw()).unwrap();
        check_raw(name, &raw, entry.get("raw"));

        // After post-processing. Known reference bug: m3d.h's ASCII voxel parser reads
        // every voxel as type 0, so for voxel.a3d the right answer is its binary twin's.
        let mut d = entry.get("default");
        if name == "voxel.a3d" {
            assert_ne!(
                d.get("numvertex").usize(),
                38,
                "the reference bug is visible"
            );
            d = files["voxel.m3d"].get("default");
        }
        let l = f.load(&LoadOptions::default()).unwrap();
        // The one-pass load gives the same model, raw and processed.
        let bytes = std::fs::read(dir.join(name)).unwrap();
        assert!(
            m3d_format::load(&bytes, &LoadOptions::default()).unwrap() == l,
            "{name}"
        );
        assert!(
            m3d_format::load(&bytes, &LoadOptions::raw()).unwrap() == raw,
            "{name}"
        );
        // Inlined PNG textures decoded as m3d.h decodes them (name, size).
        let want = d.get("textures").arr();
        assert_eq!(l.textures.len(), want.len(), "{name}: textures");
        for (t, w) in l.textures.iter().zip(want) {
            assert_eq!(t.name, w.get("name").str(), "{name}");
            assert_eq!(t.width as usize, w.get("w").usize(), "{name}: {}", t.name);
            assert_eq!(t.height as usize, w.get("h").usize(), "{name}: {}", t.name);
            assert_eq!(t.pixels.len(), 4 * t.width as usize * t.height as usize);
        }
        assert_eq!(
            l.vertices.len(),
            d.get("numvertex").usize(),
            "{name}: vertices"
        );
        assert_eq!(l.faces.len(), d.get("numface").usize(), "{name}: faces");
        assert_eq!(
            l.generated_normals,
            matches!(d.get("gen_normals"), json::Json::Bool(true)),
            "{name}"
        );
        check_digests(name, &l, d.get("digest"));
        if l.generated_normals {
            // m3d.h normalises with an approximation (0.17% off at worst) and ours are
            // exact: its sum is matched by the approximate normals rebuilt here, and ours
            // are unit vectors within 0.5% of them.
            let n = raw.vertices.len();
            let approx = reference_normals(&raw);
            let sum = vertex_sum(
                raw.vertices
                    .iter()
                    .map(|v| v.xyzw)
                    .chain(approx.iter().map(|(a, _)| [a[0], a[1], a[2], 0.0])),
            );
            assert_sum(name, sum, d.get("digest").get("vertex_sum"));
            for (v, (a, sum)) in l.vertices[n..].iter().zip(&approx) {
                let len = (v.xyzw[0].powi(2) + v.xyzw[1].powi(2) + v.xyzw[2].powi(2)).sqrt();
                if len == 0.0 {
                    // The faces around this vertex cancel exactly (double-sided sheets in
                    // WusonBlitz); m3d.h's approximation leaves a residue it blows up to a
                    // unit vector, pointing nowhere in particular.
                    assert!(*sum < 0.01, "{name}: {sum}");
                    continue;
                }
                assert!((len - 1.0).abs() < 1e-6, "{name}: {len}");
                for k in 0..3 {
                    assert!((v.xyzw[k] - a[k]).abs() < 5e-3, "{name}: {v:?} vs {a:?}");
                }
            }
        } else {
            assert_sum(
                name,
                vertex_sum(l.vertices.iter().map(|v| v.xyzw)),
                d.get("digest").get("vertex_sum"),
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 15, "expected_counts.json lists 15 files");
}

/// A narrowed write ([`WriteOptions::narrow`]) of every sample (coordinates at the
/// precision m3d.h holds them: the file's own for binary files, f32 for ASCII text)
/// loads to the reference's raw set, as the sample does; its index fields are never
/// wider than the sample's, and ASCII text (read with u32 fields) gets the widths its
/// counts call for.
#[test]
fn narrowed_writes_of_every_sample_load_as_the_reference_loads_the_sample() {
    let Some((dir, exp)) =
        samples("narrowed_writes_of_every_sample_load_as_the_reference_loads_the_sample")
    else {
        return;
    };
    let mut checked = 0;
    for (name, entry) in exp.get("files").obj() {
        let f: File = m3d_format::read(&std::fs::read(dir.join(name)).unwrap()).unwrap();
        let precision = match f.types.vc() {
            1 => Precision::Int8,
            2 => Precision::Int16,
            8 if name.ends_with(".m3d") => Precision::Double,
            _ => Precision::Float,
        };
        let o = WriteOptions {
            narrow: true,
            precision,
            ..WriteOptions::default()
        };
        let bytes = f.write_with(&o).unwrap();
        let n = m3d_format::read(&bytes).unwrap();
        let widths = |f: &File| [f.types.vi(), f.types.si(), f.types.ti(), f.types.bi()];
        for (narrow, own) in widths(&n).into_iter().zip(widths(&f)) {
            assert!(narrow <= own || own == 0, "{name}: {:?}", widths(&n));
        }
        if name.ends_with(".a3d") {
            let vertices = f.vertices().len();
            let want = if vertices <= 254 { 1 } else { 2 };
            assert_eq!(n.types.vi(), want, "{name}: {vertices} vertices");
            assert_eq!(n.types.vc(), 4, "{name}");
        }
        let raw = m3d_format::load(&bytes, &LoadOptions::raw()).unwrap();
        check_raw(name, &raw, entry.get("raw"));
        checked += 1;
    }
    assert_eq!(checked, 15, "expected_counts.json lists 15 files");
}

fn close(what: &str, got: &[f32], want: &json::Json, tol: f32) {
    let want: Vec<f32> = want.arr().iter().map(|v| v.num() as f32).collect();
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{what}: {got:?} vs {want:?}"
        );
    }
}

#[test]
fn weights_bind_matrices_frames_and_poses_match_the_reference() {
    let Some(path) = sample_file_or_skip(
        "m3d",
        "expected_pose.jsonl",
        "weights_bind_matrices_frames_and_poses_match_the_reference",
    ) else {
        return;
    };
    let dir = path.parent().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut checked = 0;
    let mut drift = 0f32;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let exp = json::parse(line);
        let name = exp.get("file").str();
        let f: File = m3d_format::read(&std::fs::read(dir.join(name)).unwrap()).unwrap();
        let l = f.load(&LoadOptions::default()).unwrap();
        let bones = exp.get("bones").arr();
        assert_eq!(l.bones.len(), bones.len(), "{name}");
        for (i, (b, e)) in l.bones.iter().zip(bones).enumerate() {
            assert_eq!(b.name, e.get("name").str(), "{name} bone {i}");
            assert_eq!(
                b.weights.len(),
                e.get("numweight").usize(),
                "{name} bone {i}"
            );
            close(
                &format!("{name} bone {i} inverse bind"),
                &b.inverse_bind,
                e.get("inv_bind_mat4"),
                1e-5,
            );
        }
        for (ai, action) in exp.get("actions").arr().iter().enumerate() {
            for (k, want) in action.get("m3d_frame").obj() {
                let got = l.frame(ai, k.parse().unwrap()).unwrap();
                let want: Vec<(u32, u32)> = want
                    .arr()
                    .iter()
                    .map(|p| (p.arr()[0].num() as u32, p.arr()[1].num() as u32))
                    .collect();
                let got: Vec<(u32, u32)> = got.iter().map(|(p, o)| (p.0, o.0)).collect();
                assert_eq!(got, want, "{name} m3d_frame {k}");
            }
            for (ms, want) in action.get("m3d_pose").obj() {
                let msec = ms.parse().unwrap();
                let pose = l.pose_like_m3d_h(ai, msec).unwrap();
                assert_eq!(pose.len(), want.arr().len());
                for (i, (p, w)) in pose.iter().zip(want.arr()).enumerate() {
                    close(
                        &format!("{name} m3d_pose {ms} ms bone {i}"),
                        &p.matrix,
                        w,
                        1e-5,
                    );
                }
                // Known reference bug: m3d_pose lets the blend factor drift from bone to
                // bone. The corrected pose equals it on keys (and where the factor's
                // correction vanishes) and differs between them by design, by less than
                // 0.05 in a matrix entry (0.0205 at most on the samples: aliveai_character
                // at 6199 ms).
                let fixed = l.pose(ai, msec).unwrap();
                let mut worst = 0f32;
                for (a, b) in fixed.iter().zip(&pose) {
                    for (x, y) in a.matrix.iter().zip(b.matrix) {
                        worst = worst.max((x - y).abs());
                    }
                }
                println!("{name} {ms} ms: corrected pose differs by {worst}");
                assert!(worst < 0.05, "{name} {ms}: {worst}");
                drift = drift.max(worst);
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 3, "expected_pose.jsonl lists 3 files");
    assert!(drift > 1e-4, "some sample shows the drift");
    // The figure the READMEs quote.
    assert!(drift <= 0.0206, "the samples' largest difference: {drift}");
}

/// The one-pass load against read-then-load on one input: the same model, or both
/// refusing it (models compared as text, where NaN equals NaN).
fn same_as_checked(what: &str, bytes: &[u8]) {
    let opts = LoadOptions::default();
    let checked = m3d_format::read(bytes).and_then(|f| f.load(&opts));
    let one = m3d_format::load(bytes, &opts);
    match (&checked, &one) {
        (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "{what}"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}"),
        _ => panic!(
            "{what}: checked {:?} vs one-pass {:?}",
            checked.is_ok(),
            one.is_ok()
        ),
    }
}

#[test]
fn one_pass_load_equals_read_then_load_on_fixtures_crafted_files_and_damage() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/m3d-format");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "m3d" || x == "a3d"))
        .collect();
    assert!(
        files.len() >= 4,
        "fixtures/m3d-format holds the M3D fixtures"
    );
    if let Some(m3d) = test_support::samples_or_skip("m3d", "one_pass_load_equals_read_then_load") {
        let crafted = test_support::files_under(&m3d.join("crafted"), &["m3d", "a3d"]);
        assert!(crafted.len() >= 7, "the crafted M3D samples");
        files.extend(crafted);
        files.push(m3d.join("seagull.m3d"));
    }
    files.sort();
    for p in &files {
        let bytes = std::fs::read(p).unwrap();
        let name = p.display().to_string();
        same_as_checked(&name, &bytes);
        // Every cut and a byte flipped every few bytes: refused alike, or loaded alike.
        let step = (bytes.len() / 300).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            same_as_checked(&format!("{name} cut at {cut}"), &bytes[..cut]);
        }
        for at in (0..bytes.len()).step_by(step) {
            let mut b = bytes.clone();
            b[at] ^= 0x5a;
            same_as_checked(&format!("{name} byte {at} flipped"), &b);
        }
    }
}

/// A model large enough to be inflated on a second thread (and in many pieces) loads
/// as read-then-load loads it, and refuses what that refuses when cut or damaged.
#[test]
fn one_pass_load_of_a_large_model_equals_read_then_load() {
    use meshfmt_core::glam::{Vec2, Vec3};
    let n = 300usize;
    let m = n + 1;
    let mut s = meshfmt_core::Surface {
        name: "grid".into(),
        ..Default::default()
    };
    for j in 0..m {
        for i in 0..m {
            let (x, y) = (i as f32 / n as f32, j as f32 / n as f32);
            s.positions
                .push(Vec3::new(x, (x * 13.0).sin() * (y * 7.0).cos(), y));
            s.uv0.push(Vec2::new(x, y));
        }
    }
    for j in 0..n {
        for i in 0..n {
            let a = (j * m + i) as u32;
            let (b, c) = (a + 1, a + m as u32);
            s.indices.extend([a, c, b, b, c, c + 1]);
        }
    }
    let model = meshfmt_core::Model {
        surfaces: vec![s],
        ..Default::default()
    };
    let bytes = File::from_core_with(&model, &Default::default())
        .unwrap()
        .value
        .write()
        .unwrap();
    assert!(
        bytes.len() > 300 << 10,
        "{} bytes: past the threaded size",
        bytes.len()
    );
    same_as_checked("grid", &bytes);
    let l = m3d_format::load(&bytes, &LoadOptions::default()).unwrap();
    assert_eq!(l.faces.len(), 2 * n * n);
    same_on_one_thread("grid", &bytes);
    for at in [9, 100, bytes.len() / 2, bytes.len() - 5] {
        same_as_checked(&format!("grid cut at {at}"), &bytes[..at]);
        same_on_one_thread(&format!("grid cut at {at}"), &bytes[..at]);
        let mut b = bytes.clone();
        b[at] ^= 0x5a;
        same_as_checked(&format!("grid byte {at} flipped"), &b);
        same_on_one_thread(&format!("grid byte {at} flipped"), &b);
    }
}

/// Where no thread can start (`wasm32-unknown-unknown`: a browser page), the inflater
/// runs on the loading thread: the same model, or the same refusal, as with two.
fn same_on_one_thread(what: &str, bytes: &[u8]) {
    let opts = LoadOptions::default();
    let two = format!("{:?}", m3d_format::load(bytes, &opts));
    let one =
        parsing_primitives::threads::one_thread(|| format!("{:?}", m3d_format::load(bytes, &opts)));
    assert_eq!(one, two, "{what}");
}

#[test]
fn a_bare_use_line_names_no_material() {
    // Blender's exporter writes `use` alone for faces without a material (CRLF lines
    // here, as it writes them).
    let text = "3dmodel 1\r\nbare\r\nMIT\r\nbzt\r\n\r\nVertex\r\n0 0 0 1\r\n1 0 0 1\r\n0 1 0 1\r\n\r\nMesh\r\nuse\r\n0 1 2\r\n\r\nEnd\r\n";
    let file = m3d_format::read(text.as_bytes()).unwrap();
    let mesh = file
        .chunks
        .iter()
        .find_map(|c| match &c.body {
            m3d_format::Body::Mesh(m) => Some(m),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        mesh.records.first(),
        Some(&m3d_format::MeshRecord::UseMaterial(m3d_format::Str(0)))
    );
    let l = m3d_format::load(text.as_bytes(), &LoadOptions::default()).unwrap();
    assert_eq!(l.faces.len(), 1);
    assert_eq!(l.faces[0].material, Idx::UNDEF);
}
