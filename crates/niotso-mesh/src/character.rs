//! A whole Vitaboy character written from a model: the inverse of
//! [`Appearance::to_core_with`](crate::companions::Appearance::to_core_with). The
//! skeleton goes to a `.skel`; each surface becomes a part: its own `.mesh`, a `.bnd`
//! binding the mesh (and its texture, a PNG) to the bone that carries most of its
//! weight, and the `.apr` appearance lists the bindings. Files are named as FreeSO's
//! loose files are (`name.<file id><type id>.ext`, [`loose_file_suffix`]), so an
//! appearance read from the folder they are written to finds its parts by asset id.
//!
//! ```
//! use meshfmt_core::canonical;
//! use niotso_mesh::character::Character;
//! let arm = canonical::skinned_arm();
//! let c = Character::from_core(&arm)?.value;
//! let files = c.files("arm")?;
//! // The .skel, then per part: its .mesh and its .bnd.
//! assert_eq!(files.len(), 3);
//! assert!(files[0].0 == "arm.skel" && files[1].0.ends_with("00000009.mesh"));
//! assert_eq!(c.appearance.bindings.len(), 1);
//! # Ok::<(), niotso_mesh::Error>(())
//! ```

use std::collections::HashSet;

use meshfmt_core::{Converted, Feature, LossKind, Model, Surface, TextureRole, TextureSource};
use parsing_primitives::RawString;

use crate::appearance::{TYPE_BINDING, TYPE_MESH, TYPE_TEXTURE, loose_file_suffix};
use crate::companions::{Appearance, AssetRef, BindingFile, TaggedRef};
use crate::error::{Result, invalid};
use crate::mesh::Mesh;
use crate::options::WriteOptions;
use crate::skel::Skel;

/// One part of a character: a surface's mesh, its binding, its texture.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The name its files take (the surface's, made file-name safe).
    pub name: String,
    /// The mesh and its asset id.
    pub mesh: (AssetRef, Mesh),
    /// The binding and its asset id.
    pub binding: (AssetRef, BindingFile),
    /// The texture's PNG bytes and asset id, when the surface's material has a base
    /// color texture with pixels.
    pub texture: Option<(AssetRef, Vec<u8>)>,
}

/// A character: its skeleton, parts and appearance, ready to be written as files.
#[derive(Debug, Clone, PartialEq)]
pub struct Character {
    /// The skeleton (written as `STEM.skel`).
    pub skel: Skel,
    /// One part per surface with geometry.
    pub parts: Vec<Part>,
    /// The appearance listing the parts' bindings.
    pub appearance: Appearance,
}

/// A file id for `key` not in `taken` (FNV-1a of the key, then the next free one), so
/// two characters written into one folder rarely share an id and one never shares one
/// within itself.
fn file_id(key: &str, taken: &mut HashSet<u32>) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in key.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    while !taken.insert(h) {
        h = h.wrapping_add(1);
    }
    h
}

/// A name a loose file can carry: ASCII letters, digits, `-` and `_` kept, anything else
/// made `_`; `part` when empty.
fn safe_name(name: &str) -> String {
    let s: String = name
        .chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "part".into() } else { s }
}

/// The bone carrying most of the surface's weight (the first root when it has no skin).
fn main_bone(model: &Model, s: &Surface) -> usize {
    let mut weight = vec![0f64; model.skeleton.bones.len()];
    for v in &s.skin {
        for (j, w) in v.joints.iter().zip(v.weights) {
            if let Some(slot) = weight.get_mut(*j as usize) {
                *slot += f64::from(w);
            }
        }
    }
    let heaviest = weight
        .iter()
        .enumerate()
        .filter(|(_, w)| **w > 0.0)
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i);
    heaviest
        .or_else(|| model.skeleton.bones.iter().position(|b| b.parent.is_none()))
        .unwrap_or(0)
}

/// The PNG of a surface's base color texture, when it has pixels.
fn texture_png(model: &Model, s: &Surface, out: &mut Converted<()>, path: &str) -> Option<Vec<u8>> {
    let material = model.materials.get(s.material?)?;
    let binding = material
        .textures
        .iter()
        .find(|t| t.role == TextureRole::BaseColor)?;
    let texture = model.textures.get(binding.texture)?;
    match &texture.source {
        #[cfg(feature = "png")]
        TextureSource::Embedded(img) => {
            let png = img.encode_png();
            if png.is_none() {
                out.lose(
                    Feature::Textures,
                    LossKind::Dropped,
                    path,
                    "the texture's pixels do not encode as PNG",
                );
            }
            png
        }
        #[cfg(not(feature = "png"))]
        TextureSource::Embedded(_) => {
            out.lose(
                Feature::Textures,
                LossKind::Dropped,
                path,
                "textures are written as PNG only with niotso-mesh's png feature",
            );
            None
        }
        TextureSource::Path(p) => {
            out.lose(
                Feature::Textures,
                LossKind::Dropped,
                path,
                format!("the texture is a path ('{p}'), not pixels to write"),
            );
            None
        }
    }
}

impl Character {
    /// [`Character::from_core_with`] with the default options.
    pub fn from_core(model: &Model) -> Result<Converted<Character>> {
        Character::from_core_with(model, &WriteOptions::default())
    }

    /// The character of `model`: its skeleton ([`Skel::from_core_with`], named
    /// `options.skeleton_name`), and for each surface with triangles a part whose mesh is
    /// [`Mesh::from_core_with`] of that surface alone, bound to its heaviest bone. Every
    /// loss of those conversions is reported at the surface's path; clips are not part
    /// of a character (they go to `.anim` files, one each).
    pub fn from_core_with(model: &Model, options: &WriteOptions) -> Result<Converted<Character>> {
        if model.skeleton.is_empty() {
            return Err(invalid("a character needs a skeleton: the model has none"));
        }
        let mut out = Converted::exact(());
        out.drop_present([(
            !model.animations.is_empty(),
            Feature::Animation,
            "a character's clips go to .anim files of their own, one each",
        )]);
        let skel = Skel::from_core_with(model, options)?;
        out.losses.extend(skel.losses);
        let skel = skel.value;
        // A loss every part repeats (the skeleton's) is reported once.
        let mut seen: HashSet<String> = out.losses.iter().map(ToString::to_string).collect();
        let mut taken = HashSet::new();
        let mut names = HashSet::new();
        let mut parts = Vec::new();
        for (i, s) in model.surfaces.iter().enumerate() {
            let path = format!("surfaces[{i}]");
            if s.triangle_count() == 0 {
                out.lose(
                    Feature::Geometry,
                    LossKind::Dropped,
                    path,
                    "a surface without triangles makes no part",
                );
                continue;
            }
            // One surface, the skeleton and its material: what the part's mesh holds.
            let one = Model {
                name: s.name.clone(),
                coordinate_system: model.coordinate_system,
                surfaces: vec![Surface {
                    material: None,
                    ..s.clone()
                }],
                skeleton: model.skeleton.clone(),
                ..Model::default()
            };
            options.budget.charge("character part", one.heap_bytes())?;
            let mesh = Mesh::from_core_with(&one, options)?;
            drop(one);
            for mut l in mesh.losses {
                // The part's one surface is surface `i` of the model.
                l.path = match l.path.strip_prefix("surfaces[0]") {
                    Some(rest) => format!("{path}{rest}"),
                    None => l.path,
                };
                if seen.insert(l.to_string()) {
                    out.losses.push(l);
                }
            }
            let mut name = safe_name(&s.name);
            while !names.insert(name.to_ascii_lowercase()) {
                name.push('_');
            }
            let mesh_ref = AssetRef {
                file_id: file_id(&format!("{name}.mesh"), &mut taken),
                type_id: TYPE_MESH,
            };
            let texture = texture_png(model, s, &mut out, &path).map(|png| {
                let r = AssetRef {
                    file_id: file_id(&format!("{name}.png"), &mut taken),
                    type_id: TYPE_TEXTURE,
                };
                (r, png)
            });
            let bone = model
                .skeleton
                .bones
                .get(main_bone(model, s))
                .map_or_else(String::new, |b| b.name.clone());
            let tagged = |r: Option<AssetRef>| TaggedRef {
                tag: if r.is_some() { 8 } else { 0 },
                asset: r.map(|r| (0, r)),
            };
            let binding = BindingFile {
                version: 1,
                bone: RawString::from(bone.as_str()),
                mesh: tagged(Some(mesh_ref)),
                texture: tagged(texture.as_ref().map(|t| t.0)),
            };
            let binding_ref = AssetRef {
                file_id: file_id(&format!("{name}.bnd"), &mut taken),
                type_id: TYPE_BINDING,
            };
            parts.push(Part {
                name,
                mesh: (mesh_ref, mesh.value),
                binding: (binding_ref, binding),
                texture,
            });
        }
        let appearance = Appearance {
            version: 1,
            thumbnail: AssetRef::default(),
            bindings: parts.iter().map(|p| p.binding.0).collect(),
        };
        Ok(out.map(|()| Character {
            skel,
            parts,
            appearance,
        }))
    }

    /// The `.apr`'s bytes.
    pub fn write(&self) -> Result<Vec<u8>> {
        self.appearance.write()
    }

    /// The files beside the `.apr`, by name: `STEM.skel`, then per part its `.mesh`,
    /// `.bnd` and texture `.png`, each named `PART.<file id><type id>.ext`.
    pub fn files(&self, stem: &str) -> Result<Vec<(String, Vec<u8>)>> {
        let mut out = vec![(format!("{stem}.skel"), self.skel.write()?)];
        for p in &self.parts {
            out.push((
                format!("{}{}", p.name, loose_file_suffix(p.mesh.0, "mesh")),
                p.mesh.1.write()?,
            ));
            out.push((
                format!("{}{}", p.name, loose_file_suffix(p.binding.0, "bnd")),
                p.binding.1.write()?,
            ));
            if let Some((r, png)) = &p.texture {
                out.push((
                    format!("{}{}", p.name, loose_file_suffix(*r, "png")),
                    png.clone(),
                ));
            }
        }
        Ok(out)
    }
}
