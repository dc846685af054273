//! `to_core` on the real samples, and bones against expected_pose.jsonl (the reference
//! loader's bind poses and `m3d_frame` results).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/json.rs"]
mod json;

use m3d_format::{Body, File, Idx};
use test_support::{sample_file_or_skip, samples_or_skip};

/// The one sample that is not a readable file: crafted/no_omd3.m3d (no end chunk).
const UNREADABLE: &str = "no_omd3.m3d";

#[test]
fn every_sample_converts_and_validates() {
    let Some(dir) = samples_or_skip("m3d", "every_sample_converts_and_validates") else {
        return;
    };
    let (mut converted, mut refused) = (0, 0);
    for path in test_support::files_under(&dir, &["m3d", "a3d"]) {
        let read = m3d_format::read(&std::fs::read(&path).unwrap());
        if path.file_name().is_some_and(|n| n == UNREADABLE) {
            assert!(read.is_err(), "{}: read", path.display());
            refused += 1;
            continue;
        }
        let f = read.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let c = f
            .to_core()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let counts = f.counts();
        // Every stored triangle whose vertices exist becomes one core triangle.
        let dropped = c
            .losses
            .iter()
            .filter(|l| l.reason.contains("undefined vertex"))
            .count();
        // ... and voxels are meshed into triangles, as m3d_load meshes them.
        let voxels = m3d_format::LoadOptions {
            voxels: true,
            ..m3d_format::LoadOptions::raw()
        };
        let meshed = f.load(&voxels).unwrap().faces.len() - counts.triangles;
        assert_eq!(
            c.value.triangle_count() + dropped,
            counts.triangles + meshed,
            "{}",
            path.display()
        );
        assert_eq!(c.value.skeleton.len(), counts.bones, "{}", path.display());
        assert_eq!(
            c.value.animations.len(),
            counts.actions,
            "{}",
            path.display()
        );
        assert_eq!(
            c.value.materials.len(),
            counts.materials,
            "{}",
            path.display()
        );
        let problems = meshfmt_core::validate(&c.value);
        assert!(problems.is_empty(), "{}: {problems:?}", path.display());
        // Voxels, shapes, labels... are reported, not dropped silently.
        if counts.shapes + counts.voxel_blocks + counts.labels > 0 {
            assert!(!c.losses.is_empty(), "{}", path.display());
        }
        converted += 1;
    }
    assert_eq!(
        (converted, refused),
        (21, 1),
        "the samples hold 22 .m3d/.a3d files: 15 real, 7 crafted of which {UNREADABLE} does not read"
    );
}

#[test]
fn bones_match_the_reference_bind_poses_and_frames() {
    let Some(path) = sample_file_or_skip(
        "m3d",
        "expected_pose.jsonl",
        "bones_match_the_reference_bind_poses_and_frames",
    ) else {
        return;
    };
    let dir = path.parent().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let exp = json::parse(line);
        let name = exp.get("file").str();
        let f: File = m3d_format::read(&std::fs::read(dir.join(name)).unwrap()).unwrap();
        let core = f.to_core().unwrap().value;
        let bones = exp.get("bones").arr();
        assert_eq!(core.skeleton.len(), bones.len(), "{name}");
        let stored = f
            .chunks
            .iter()
            .find_map(|c| match &c.body {
                Body::Bone(s) => Some(s.bones.clone()),
                _ => None,
            })
            .unwrap();
        for (i, (b, e)) in core.skeleton.bones.iter().zip(bones).enumerate() {
            assert_eq!(b.name, e.get("name").str(), "{name} bone {i}");
            let parent = e.get("parent").num();
            assert_eq!(
                b.parent.map_or(-1.0, |p| p as f64),
                parent,
                "{name} bone {i}"
            );
            assert_eq!(
                stored[i].pos.0 as f64,
                e.get("pos").num(),
                "{name} bone {i} pos"
            );
            assert_eq!(
                stored[i].ori.0 as f64,
                e.get("ori").num(),
                "{name} bone {i} ori"
            );
            // pos_xyz is normalised (m3d.h keeps it unscaled); core holds it times scale.
            let p: Vec<f32> = e
                .get("pos_xyz")
                .arr()
                .iter()
                .map(|v| v.num() as f32)
                .collect();
            let want = [p[0] * f.scale, p[1] * f.scale, p[2] * f.scale];
            test_support::assert_close(
                &format!("{name} bone {i} pos"),
                &b.rest.translation.to_array(),
                &want,
                1e-4 * f.scale.max(1.0),
            );
            // The reference quaternion is as stored (not unit); core's is normalised.
            let q: Vec<f32> = e
                .get("ori_xyzw")
                .arr()
                .iter()
                .map(|v| v.num() as f32)
                .collect();
            let q = meshfmt_core::glam::Quat::from_xyzw(q[0], q[1], q[2], q[3]).normalize();
            assert!(b.rest.rotation.dot(q).abs() > 0.9999, "{name} bone {i} ori");
        }
        // m3d.h's inverse bind matrices (row-major, translation in 3, 7, 11) are built from
        // unscaled positions and quaternions as stored, not normalised: int8 ones are ~1%
        // off unit length and the error compounds down the chain (6% at CesiumMan's bone 4).
        // Ours use scaled positions and unit quaternions. So each row is compared after
        // dividing it by the length of its 3x3 part, with the translation divided by scale,
        // within 0.1: a non-unit quaternion also skews m3d.h's matrix (not only scales it),
        // seen up to 0.036 at CesiumMan's bone 8; a wrong bone or axis would be off by ~1.
        let ours = core.skeleton.inverse_bind_matrices();
        for (i, (m, e)) in ours.iter().zip(bones).enumerate() {
            let want: Vec<f32> = e
                .get("inv_bind_mat4")
                .arr()
                .iter()
                .map(|v| v.num() as f32)
                .collect();
            let got = m.transpose().to_cols_array(); // row-major like m3d.h
            for r in 0..3 {
                let row = |m: &[f32], scale: f32| {
                    let n = (m[r * 4] * m[r * 4]
                        + m[r * 4 + 1] * m[r * 4 + 1]
                        + m[r * 4 + 2] * m[r * 4 + 2])
                        .sqrt();
                    [
                        m[r * 4] / n,
                        m[r * 4 + 1] / n,
                        m[r * 4 + 2] / n,
                        m[r * 4 + 3] / n / scale,
                    ]
                };
                let (g, w) = (row(&got, f.scale), row(&want, 1.0));
                test_support::assert_close(
                    &format!("{name} bone {i} inv_bind row {r}"),
                    &g,
                    &w,
                    0.1,
                );
            }
        }
        for action in exp.get("actions").arr() {
            let a = f
                .chunks
                .iter()
                .find_map(|c| match &c.body {
                    Body::Actn(a)
                        if f.string(a.name) == Some(action.get("name").str().as_bytes()) =>
                    {
                        Some(a)
                    }
                    _ => None,
                })
                .unwrap();
            assert_eq!(a.frames.len(), action.get("numframe").usize());
            assert_eq!(a.duration_msec as f64, action.get("durationmsec").num());
            for (k, pose) in action.get("m3d_frame").obj() {
                let k: usize = k.parse().unwrap();
                let want: Vec<(u32, u32)> = pose
                    .arr()
                    .iter()
                    .map(|p| (p.arr()[0].num() as u32, p.arr()[1].num() as u32))
                    .collect();
                // m3d_frame(.., 0) returns the bind pose when the first frame's msec is not 0
                // (the model is still in its bind pose before the first key); frame_pose
                // always applies frame 0, so compare with the bind pose there.
                let pose = if k == 0 && a.frames[0].msec != 0 {
                    stored.iter().map(|b| (b.pos, b.ori)).collect()
                } else {
                    a.frame_pose(&stored, k).unwrap()
                };
                let got: Vec<(u32, u32)> = pose.iter().map(|(p, o)| (p.0, o.0)).collect();
                assert_eq!(got, want, "{name} frame {k}");
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 3, "expected_pose.jsonl lists 3 files");
}

#[test]
fn canonical_models_survive_from_core_write_read_to_core() {
    for c in meshfmt_core::canonical::ALL {
        let model = (c.build)();
        let conv = File::from_core_with(&model, &m3d_format::WriteOptions::default()).unwrap();
        let bytes = conv.value.write().unwrap();
        let back = m3d_format::read(&bytes).unwrap();
        assert_eq!(back, conv.value, "{}: binary round trip", c.name);
        let core = back.to_core().unwrap().value;
        assert_eq!(core.triangle_count(), model.triangle_count(), "{}", c.name);
        assert_eq!(core.skeleton.len(), model.skeleton.len(), "{}", c.name);
        assert_eq!(core.animations.len(), model.animations.len(), "{}", c.name);
        assert_eq!(core.materials.len(), model.materials.len(), "{}", c.name);
        // f32 coordinates: positions come back to within float rounding of the scale.
        let bound = 1e-5 * back.effective_scale().max(1.0);
        let mut want: Vec<[f32; 3]> = model
            .surfaces
            .iter()
            .flat_map(|s| {
                s.triangles()
                    .flat_map(move |t| t.map(|i| s.positions[i as usize].to_array()))
            })
            .collect();
        let mut got: Vec<[f32; 3]> = core
            .surfaces
            .iter()
            .flat_map(|s| {
                s.triangles()
                    .flat_map(move |t| t.map(|i| s.positions[i as usize].to_array()))
            })
            .collect();
        assert_eq!(want.len(), got.len(), "{}", c.name);
        if model.surfaces.len() == core.surfaces.len() {
            for (w, g) in want.iter_mut().zip(got.iter_mut()) {
                test_support::assert_close(c.name, g, w, bound);
            }
        }
        for (a, b) in core.skeleton.bones.iter().zip(&model.skeleton.bones) {
            assert_eq!(a.parent, b.parent, "{}", c.name);
            test_support::assert_close(
                c.name,
                &a.rest.translation.to_array(),
                &b.rest.translation.to_array(),
                bound,
            );
            assert!(
                a.rest.rotation.dot(b.rest.rotation).abs() > 0.99999,
                "{}",
                c.name
            );
        }
        assert!(meshfmt_core::validate(&core).is_empty(), "{}", c.name);
    }
}

#[test]
fn external_textures_come_from_the_callers_loader() {
    use meshfmt_core::format::FormatError;
    use meshfmt_core::side_files::{SideFile, SideFiles};
    use meshfmt_core::{RgbaImage, TextureSource};
    let file = File::from_core_with(&test_support::textured_triangle(), &Default::default())
        .unwrap()
        .value;
    let img = RgbaImage {
        width: 1,
        height: 1,
        pixels: vec![10, 20, 30, 255],
    };
    let png = img.encode_png().unwrap();
    /// Side files from memory that record every name asked.
    struct Asked {
        files: Vec<(String, Vec<u8>)>,
        asked: std::cell::RefCell<Vec<String>>,
    }
    impl SideFiles for Asked {
        fn read(&self, name: &str) -> Result<SideFile, FormatError> {
            self.asked.borrow_mut().push(name.to_string());
            self.files.read(name)
        }
    }
    let side = Asked {
        files: vec![("bricks.png".into(), png)],
        asked: Default::default(),
    };
    let opts = m3d_format::CoreOptions {
        side_files: Some(&side),
        mtllib: None,
        ..Default::default()
    };
    let c = file.to_core_with(&opts).unwrap();
    assert_eq!(
        *side.asked.borrow(),
        ["bricks.png"],
        "NAME.png first, as m3d.h asks"
    );
    assert_eq!(c.value.textures[0].source, TextureSource::Embedded(img));
    assert!(c.losses.is_empty(), "{:?}", c.losses);

    // Side files that hold nothing: m3d.h then tries the bare name; a loss, not an error.
    let none = Asked {
        files: Vec::new(),
        asked: Default::default(),
    };
    let opts = m3d_format::CoreOptions {
        side_files: Some(&none),
        mtllib: None,
        ..Default::default()
    };
    let c = file.to_core_with(&opts).unwrap();
    assert_eq!(*none.asked.borrow(), ["bricks.png", "bricks"]);
    assert_eq!(
        c.value.textures[0].source,
        TextureSource::Path("bricks.png".into())
    );
    assert!(
        c.losses
            .iter()
            .any(|l| l.reason.contains("'bricks.png' not found beside the input")),
        "{:?}",
        c.losses
    );
    // Without a loader the name is kept quietly.
    assert!(file.to_core().unwrap().losses.is_empty());
}

#[test]
fn a_material_library_supplies_the_materials_a_model_uses() {
    let full = File::from_core_with(&test_support::textured_triangle(), &Default::default())
        .unwrap()
        .value;
    // The object without its MTRL chunk (what m3dconv -m leaves), and a library that
    // holds only the material.
    let mut object = full.clone();
    object.chunks.retain(|c| !matches!(c.body, Body::Mtrl(_)));
    let mut lib = full.clone();
    lib.chunks.retain(|c| matches!(c.body, Body::Mtrl(_)));

    let alone = object.to_core().unwrap();
    assert_eq!(alone.value.surfaces[0].material, None);
    assert!(
        alone
            .losses
            .iter()
            .any(|l| l.reason.contains("not defined"))
    );

    let opts = m3d_format::CoreOptions {
        side_files: None,
        mtllib: Some(&lib),
        ..Default::default()
    };
    let shared = object.to_core_with(&opts).unwrap();
    assert_eq!(shared.value.surfaces[0].material, Some(0));
    assert_eq!(shared.value.materials[0].name, "wall");
    assert_eq!(shared.value.materials[0].base_color.x, 1.0);
    assert_eq!(shared.value.textures[0].name, "bricks");

    // A model that defines the library's material again: the library's wins, reported.
    let both = full.to_core_with(&opts).unwrap();
    assert_eq!(both.value.materials.len(), 1);
    assert!(
        both.losses
            .iter()
            .any(|l| l.reason.contains("already defined"))
    );
}

#[test]
fn bones_out_of_depth_first_order_are_reordered_for_both_forms() {
    use meshfmt_core::glam::{Quat, Vec3};
    use meshfmt_core::{Bone, Channel, Clip, Surface, Track, VertexInfluences};
    // Roots "a" and "b", and "c" a child of "a" listed after "b": the text form nests
    // bones, so "c" must follow "a".
    let bone = |name: &str, parent, x: f32| Bone {
        name: name.into(),
        parent,
        rest: meshfmt_core::Transform {
            translation: Vec3::new(x, 0.0, 0.0),
            ..Default::default()
        },
        ..Bone::default()
    };
    let mut model = meshfmt_core::Model::default();
    model.skeleton.bones = vec![
        bone("a", None, 1.0),
        bone("b", None, 2.0),
        bone("c", Some(0), 3.0),
    ];
    model.surfaces.push(Surface {
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        indices: vec![0, 1, 2],
        skin: vec![VertexInfluences::single(2); 3],
        ..Surface::default()
    });
    model.animations.push(Clip {
        events: Vec::new(),
        name: "turn".into(),
        channels: vec![Channel {
            bone: 2,
            rotation: Track {
                times: vec![0.0, 1.0],
                values: vec![Quat::IDENTITY, Quat::from_rotation_y(1.0)],
                ..Default::default()
            },
            ..Default::default()
        }],
    });
    let c = File::from_core_with(&model, &Default::default()).unwrap();
    assert!(
        c.losses.iter().any(|l| l.reason.contains("depth-first")),
        "{:?}",
        c.losses
    );
    for bytes in [
        c.value.write().unwrap(),
        c.value.write_ascii().unwrap().into_bytes(),
    ] {
        let back = m3d_format::read(&bytes).unwrap().to_core().unwrap().value;
        let names: Vec<&str> = back
            .skeleton
            .bones
            .iter()
            .map(|b| b.name.as_str())
            .collect();
        assert_eq!(names, ["a", "c", "b"]);
        assert_eq!(back.skeleton.bones[1].parent, Some(0));
        assert_eq!(back.skeleton.bones[1].rest.translation.x, 3.0);
        // The skin and the channel follow "c" to its new index.
        assert!(back.surfaces[0].skin.iter().all(|v| v.joints[0] == 1));
        assert_eq!(
            back.animations[0]
                .channels
                .iter()
                .find(|ch| !ch.rotation.is_empty())
                .unwrap()
                .bone,
            1
        );
    }
}

#[test]
fn from_core_writes_every_precision_within_its_bound_and_narrow_indices() {
    use m3d_format::{Precision, WriteOptions};
    for c in meshfmt_core::canonical::ALL.iter().filter(|c| !c.large) {
        let model = (c.build)();
        for precision in [
            Precision::Int8,
            Precision::Int16,
            Precision::Float,
            Precision::Double,
        ] {
            let opts = WriteOptions {
                precision,
                ..WriteOptions::default()
            };
            let conv = File::from_core_with(&model, &opts).unwrap();
            let bound = conv
                .losses
                .iter()
                .find_map(|l| match (l.feature, &l.kind) {
                    (
                        meshfmt_core::Feature::Geometry,
                        meshfmt_core::LossKind::Quantized { max_error },
                    ) => Some(*max_error),
                    _ => None,
                })
                .unwrap_or(0.0);
            let expect = match precision {
                Precision::Int8 => 0.5 / 127.0,
                Precision::Int16 => 0.5 / 32767.0,
                _ => 0.0,
            } * conv.value.effective_scale();
            assert!(
                (bound - expect).abs() <= 1e-6 * expect.max(1.0),
                "{} {precision:?}: {bound}",
                c.name
            );
            let bytes = conv.value.write().unwrap();
            let back = m3d_format::read(&bytes).unwrap();
            // The narrowest index widths: the small canonical models have < 255 vertices.
            assert_eq!(back.types.vi(), 1, "{}", c.name);
            assert_eq!(
                back.types.vc(),
                [1, 2, 4, 8][precision as usize],
                "{}",
                c.name
            );
            let core = back.to_core().unwrap().value;
            for (s, t) in model
                .surfaces
                .iter()
                .filter(|s| !s.indices.is_empty())
                .zip(&core.surfaces)
            {
                for (p, q) in s.positions.iter().zip(&t.positions) {
                    let e = (*p - *q).abs().max_element();
                    assert!(
                        e <= bound + 1e-6 * conv.value.effective_scale(),
                        "{} {precision:?}: {e} > {bound}",
                        c.name
                    );
                }
            }
        }
    }
}

#[test]
fn a_huge_voxel_grid_is_not_meshed_by_to_core() {
    use m3d_format::{Chunk, Run, Str, VoxelBlock, VoxelType};
    // 1024 x 1024 x 200 voxels from one RLE run: within the read limits (the grid is not
    // stored), but meshing it would take gigabytes. to_core reports it instead.
    let mut f = File::default();
    f.chunks.push(Chunk {
        body: Body::Voxt(vec![VoxelType {
            color: 0xff00_00ff,
            name: Str(0),
            rotation: 0,
            shape_low: 0,
            skin: Idx::UNDEF,
            items: Vec::new(),
        }]),
        tail: Vec::new(),
    });
    f.chunks.push(Chunk {
        body: Body::Voxd(VoxelBlock {
            name: Str(0),
            pos: [0; 3],
            size: [1024, 1024, 200],
            uncertain: 0,
            group: 0,
            runs: vec![Run::Repeat(128, Idx(0))],
        }),
        tail: Vec::new(),
    });
    let c = f.to_core().unwrap();
    assert!(c.value.surfaces.is_empty());
    assert!(
        c.losses
            .iter()
            .any(|l| l.reason.contains("voxels not meshed")),
        "{:?}",
        c.losses
    );
}
