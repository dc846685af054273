//! Wavefront OBJ export (`.obj` + `.mtl`) of a meshfmt-core model, what every DCC tool
//! opens, and import ([`import`]) so OBJ files from Blender come back into any format.
//!
//! One `o` group per surface with `v`/`vt`/`vn` records and `f` triangles, `usemtl` per
//! surface, and a material library with `Kd`, `d`, `Ke`, the PBR extension's `Pr`/`Pm`,
//! and `map_Kd`/`map_Bump`/`map_Ke` for path textures. Positions are written in glTF's
//! frame (+Y up, right-handed, meters), which is what OBJ importers assume; OBJ's `vt`
//! origin is bottom-left, so `v` is written as `1 - v` (meshfmt-core follows glTF's
//! top-left convention). Floats use Rust's shortest round-trip form, so positions read
//! back bit-exact. What OBJ cannot hold (skins, skeletons, animations, morph targets,
//! tangents, a second UV set, colors, embedded pixels) is listed in the losses.
//!
//! ```
//! use meshfmt_core::{glam::Vec3, Model, Surface};
//! let model = Model {
//!     surfaces: vec![Surface {
//!         name: "tri".into(),
//!         positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
//!         indices: vec![0, 1, 2],
//!         ..Default::default()
//!     }],
//!     ..Default::default()
//! };
//! let obj = meshfmt::obj::export(&model, "tri.mtl", &meshfmt_core::Budget::default())?.value;
//! assert!(obj.obj.contains("v 1 0 0\n"));
//! assert!(obj.obj.contains("f 1 2 3\n"));
//! # Ok::<(), meshfmt::error::CliError>(())
//! ```

mod contract;
mod import;

use std::fmt::Write as _;

pub use contract::{FORMAT, Obj};
pub use import::import;

use meshfmt_core::{
    Budget, Converted, CoordinateSystem, Feature, LossKind, Model, TextureRole, TextureSource,
};

use meshfmt_core::side_files::output_reference;
use meshfmt_core::text::without_unprintable;

use crate::error::CliError;

/// The `.obj` text and its `.mtl` library (empty when the model has no materials).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjFiles {
    /// The `.obj` file.
    pub obj: String,
    /// The `.mtl` file, referenced by `mtllib` in the `.obj` when not empty.
    pub mtl: String,
}

/// An OBJ name: no whitespace (OBJ statements split on it), no control characters (a
/// line break would start a statement of the name's choosing).
fn name(s: &str, fallback: String) -> String {
    let n: String = without_unprintable(s)
        .chars()
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect();
    if n.is_empty() { fallback } else { n }
}

/// Most bytes one record of each kind takes as text (shortest round-trip floats are at
/// most 15 characters, indices at most 10 digits).
const VERTEX_LINE: u64 = 3 * 16 + 3;
const UV_LINE: u64 = 2 * 16 + 4;
const FACE_LINE: u64 = 3 * 34 + 2;

/// Upper bound of the text `export` writes: charged before writing, since names repeat
/// (a material's name on every surface that uses it, a texture path in every material
/// that binds it) and so can outgrow the model.
fn text_bytes(model: &Model) -> u64 {
    let mut n: u64 = 64;
    for s in &model.surfaces {
        let verts = s.positions.len() as u64;
        let material = s
            .material
            .and_then(|m| model.materials.get(m))
            .map_or(0, |m| m.name.len() as u64 + 16);
        n = n
            .saturating_add(s.name.len() as u64 + 16 + material)
            .saturating_add(verts.saturating_mul(2 * VERTEX_LINE + UV_LINE))
            .saturating_add((s.indices.len() as u64 / 3).saturating_mul(FACE_LINE));
    }
    for m in &model.materials {
        n = n.saturating_add(2 * m.name.len() as u64 + 256);
        for b in &m.textures {
            let path = model
                .textures
                .get(b.texture)
                .map_or(0, |t| match &t.source {
                    TextureSource::Path(p) => p.len() as u64,
                    TextureSource::Embedded(_) => 0,
                });
            n = n.saturating_add(path + 16);
        }
    }
    n
}

/// Exports `model` as OBJ text and an MTL library named `mtl_name`; the text, and a copy
/// of a model in another frame than OBJ's (glTF's), are charged to `budget` first.
pub fn export(
    model: &Model,
    mtl_name: &str,
    budget: &Budget,
) -> Result<Converted<ObjFiles>, CliError> {
    budget.charge("OBJ export", text_bytes(model))?;
    // A copy (charged) only for a model in another frame than OBJ's.
    let model = model.in_system(CoordinateSystem::GLTF, budget)?;
    let model = &*model;
    let mut out = Converted::exact(ObjFiles {
        obj: String::new(),
        mtl: String::new(),
    });
    report_dropped(model, &mut out);
    let material_names: Vec<String> = model
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| name(&m.name, format!("material{i}")))
        .collect();
    let obj = obj_text(model, mtl_name, &material_names);
    let mtl = mtl_text(model, &material_names, &mut out);
    out.value = ObjFiles { obj, mtl };
    Ok(out)
}

/// What OBJ cannot hold, for each part the model has.
fn report_dropped(model: &Model, out: &mut Converted<ObjFiles>) {
    out.drop_features(
        model,
        [
            (Feature::Skin, "OBJ has no skins"),
            (Feature::Skeleton, "OBJ has no skeletons"),
            (Feature::Animation, "OBJ has no animation"),
            (Feature::MorphTargets, "OBJ has no morph targets"),
            (Feature::Tangents, "OBJ has no tangents"),
            (Feature::Uv1, "OBJ has one UV set"),
            (Feature::Colors, "OBJ has no standard vertex colors"),
        ],
    );
}

/// The `.obj` text: one `o` group per surface, its records and faces.
fn obj_text(model: &Model, mtl_name: &str, material_names: &[String]) -> String {
    let mut obj = String::new();
    let _ = writeln!(obj, "# meshfmt {}", env!("CARGO_PKG_VERSION"));
    if !model.materials.is_empty() {
        let _ = writeln!(obj, "mtllib {mtl_name}");
    }
    // OBJ indices are global and 1-based.
    let (mut v_base, mut vt_base, mut vn_base) = (1usize, 1usize, 1usize);
    for (i, s) in model.surfaces.iter().enumerate() {
        let n = s.positions.len();
        let _ = writeln!(obj, "o {}", name(&s.name, format!("surface{i}")));
        for p in &s.positions {
            let _ = writeln!(obj, "v {} {} {}", p.x, p.y, p.z);
        }
        let uv = s.uv0.len() == n;
        let normals = s.normals.len() == n;
        if uv {
            for t in &s.uv0 {
                let _ = writeln!(obj, "vt {} {}", t.x, 1.0 - t.y);
            }
        }
        if normals {
            for v in &s.normals {
                let _ = writeln!(obj, "vn {} {} {}", v.x, v.y, v.z);
            }
        }
        if let Some(m) = s.material.and_then(|m| material_names.get(m)) {
            let _ = writeln!(obj, "usemtl {m}");
        }
        for tri in s.indices.chunks_exact(3) {
            obj.push('f');
            for &k in tri {
                let k = k as usize;
                let _ = match (uv, normals) {
                    (true, true) => write!(obj, " {}/{}/{}", v_base + k, vt_base + k, vn_base + k),
                    (true, false) => write!(obj, " {}/{}", v_base + k, vt_base + k),
                    (false, true) => write!(obj, " {}//{}", v_base + k, vn_base + k),
                    (false, false) => write!(obj, " {}", v_base + k),
                };
            }
            obj.push('\n');
        }
        v_base += n;
        vt_base += if uv { n } else { 0 };
        vn_base += if normals { n } else { 0 };
    }
    obj
}

/// The `.mtl` text, with the texture bindings OBJ cannot hold reported.
fn mtl_text(model: &Model, material_names: &[String], out: &mut Converted<ObjFiles>) -> String {
    let mut mtl = String::new();
    for (m, mat) in model.materials.iter().enumerate() {
        let c = mat.base_color;
        let _ = writeln!(mtl, "newmtl {}", material_names[m]);
        let _ = writeln!(mtl, "Kd {} {} {}", c.x, c.y, c.z);
        let _ = writeln!(mtl, "d {}", c.w);
        let _ = writeln!(
            mtl,
            "Ke {} {} {}",
            mat.emissive.x, mat.emissive.y, mat.emissive.z
        );
        let _ = writeln!(mtl, "Pr {}", mat.roughness);
        let _ = writeln!(mtl, "Pm {}", mat.metallic);
        for b in &mat.textures {
            let key = match b.role {
                TextureRole::BaseColor => "map_Kd",
                TextureRole::Normal => "map_Bump",
                TextureRole::Emissive => "map_Ke",
                _ => {
                    out.lose(
                        Feature::Textures,
                        LossKind::Dropped,
                        format!("materials[{m}]"),
                        "OBJ has no map for this texture role (metallic-roughness, occlusion)",
                    );
                    continue;
                }
            };
            match model.textures.get(b.texture).map(|t| &t.source) {
                Some(TextureSource::Path(p)) if !p.is_empty() => {
                    // Never a reference that leads out of the output's folder.
                    let r = output_reference(p);
                    out.losses
                        .extend(r.loss(p, format!("textures[{}]", b.texture)));
                    if !r.written.is_empty() {
                        let _ = writeln!(mtl, "{key} {}", r.written);
                    }
                }
                _ => out.lose(
                    Feature::Textures,
                    LossKind::Dropped,
                    format!("materials[{m}]"),
                    "embedded pixels are not written beside an OBJ (convert to .glb to keep them)",
                ),
            }
        }
        mtl.push('\n');
    }
    mtl
}
