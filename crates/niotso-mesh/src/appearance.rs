//! A Vitaboy appearance (`.apr`) assembled into one meshfmt-core model: the appearance
//! lists bindings (`.bnd`, type 11), each binding names a mesh (type 9) and a texture
//! (type 20) by asset reference (notes/niotso.md section 6); [`Appearance::to_core_with`]
//! finds them through an [`Assets`] lookup and makes one skinned surface per binding,
//! all on one skeleton.
//!
//! Files are found by asset reference, not by name: FreeSO's loose files are named
//! `name.<file_id:8 hex><type_id:8 hex>.ext` ([`loose_file_suffix`],
//! [`parse_loose_file_name`]), and a tool implements [`Assets`] over its folders.
//!
//! ```
//! use meshfmt_core::canonical;
//! use niotso_mesh::appearance::{TYPE_BINDING, TYPE_MESH};
//! use niotso_mesh::companions::{Appearance, AssetRef, BindingFile, TaggedRef};
//! use niotso_mesh::{Asset, Assets, CoreOptions, Mesh, Skel};
//!
//! // One binding (file 2) naming one mesh (file 3), no texture.
//! let arm = canonical::skinned_arm();
//! let mesh = Mesh::from_core(&arm)?.value.write()?;
//! let skel = Skel::from_core(&arm)?.value;
//! let bnd = BindingFile {
//!     version: 1,
//!     bone: "upper".into(),
//!     mesh: TaggedRef { tag: 8, asset: Some((0, AssetRef { file_id: 3, type_id: TYPE_MESH })) },
//!     texture: TaggedRef { tag: 0, asset: None },
//! }
//! .write()?;
//! struct Memory(Vec<(AssetRef, Asset)>);
//! impl Assets for Memory {
//!     fn find(&self, asset: AssetRef, _: &[&str]) -> niotso_mesh::Result<Option<Asset>> {
//!         Ok(self.0.iter().find(|(a, _)| *a == asset).map(|(_, f)| f.clone()))
//!     }
//! }
//! let files = Memory(vec![
//!     (AssetRef { file_id: 2, type_id: TYPE_BINDING }, Asset { name: "arm.000000020000000b.bnd".into(), bytes: bnd }),
//!     (AssetRef { file_id: 3, type_id: TYPE_MESH }, Asset { name: "arm.0000000300000009.mesh".into(), bytes: mesh }),
//! ]);
//! let apr = Appearance {
//!     version: 1,
//!     thumbnail: AssetRef::default(),
//!     bindings: vec![AssetRef { file_id: 2, type_id: TYPE_BINDING }],
//! };
//! let opts = CoreOptions { skeleton: Some(&skel), assets: Some(&files), ..Default::default() };
//! let model = apr.to_core_with(&opts)?.value;
//! assert_eq!(model.surfaces.len(), 1);
//! assert_eq!(model.surfaces[0].name, "arm");
//! assert_eq!(model.skeleton.len(), 2);
//! # Ok::<(), niotso_mesh::Error>(())
//! ```

use std::collections::HashMap;

use meshfmt_core::{
    Converted, Feature, Loss, LossKind, Material, Model, Texture, TextureBinding, TextureRole,
    TextureSource,
};
use parsing_primitives::RawString;

use crate::ReadOptions;
use crate::companions::{Appearance, AssetRef, BindingFile};
use crate::convert::NATIVE;
use crate::error::{Error, Result, invalid};
use crate::index::map_bytes;
use crate::mesh::Mesh;
use crate::options::{Assets, CoreOptions};
use crate::skel::{Skel, SkelBone};

/// Type id of a `.mesh`.
pub const TYPE_MESH: u32 = 9;
/// Type id of a `.bnd` binding.
pub const TYPE_BINDING: u32 = 11;
/// Type id of an `.apr` appearance.
pub const TYPE_APPEARANCE: u32 = 12;
/// Type id of a PNG image (appearance thumbnails).
pub const TYPE_PNG: u32 = 14;
/// Type id of a JPEG texture (FreeSO stores its PNG textures under it too).
pub const TYPE_TEXTURE: u32 = 20;

/// Extensions a texture's loose file may have, in the order they are tried.
pub const TEXTURE_EXTENSIONS: [&str; 3] = ["png", "jpg", "jpeg"];

/// No files at all: what an appearance converted without [`CoreOptions::assets`] finds.
struct NoAssets;

impl Assets for NoAssets {
    fn find(&self, _: AssetRef, _: &[&str]) -> Result<Option<crate::options::Asset>> {
        Ok(None)
    }
}

/// The end of a FreeSO loose file's name for `asset`: `.<file_id:8 hex><type_id:8 hex>.ext`.
///
/// ```
/// use niotso_mesh::{appearance::loose_file_suffix, companions::AssetRef};
/// let mesh = AssetRef { file_id: 0xd93f5685, type_id: 9 };
/// assert_eq!(loose_file_suffix(mesh, "mesh"), ".d93f568500000009.mesh");
/// ```
pub fn loose_file_suffix(asset: AssetRef, extension: &str) -> String {
    format!(".{:08x}{:08x}.{extension}", asset.file_id, asset.type_id)
}

/// A FreeSO loose file name taken apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LooseName<'a> {
    /// The name before the ids (`au-blue`).
    pub name: &'a str,
    /// File and type id.
    pub asset: AssetRef,
    /// The extension, as written (no dot).
    pub extension: &'a str,
}

/// Reads `name.<file_id:8 hex><type_id:8 hex>.ext` (hex digits of either case); `None`
/// for any other file name.
///
/// ```
/// use niotso_mesh::{appearance::parse_loose_file_name, companions::AssetRef};
/// let n = parse_loose_file_name("au-blue.d93f568500000009.mesh").ok_or("not loose")?;
/// assert_eq!((n.name, n.extension), ("au-blue", "mesh"));
/// assert_eq!(n.asset, AssetRef { file_id: 0xd93f5685, type_id: 9 });
/// assert_eq!(parse_loose_file_name("au-blue.mesh"), None);
/// # Ok::<(), &str>(())
/// ```
pub fn parse_loose_file_name(file_name: &str) -> Option<LooseName<'_>> {
    let (rest, extension) = file_name.rsplit_once('.')?;
    let (name, ids) = rest.rsplit_once('.')?;
    if ids.len() != 16 || !ids.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let file_id = u32::from_str_radix(ids.get(..8)?, 16).ok()?;
    let type_id = u32::from_str_radix(ids.get(8..)?, 16).ok()?;
    Some(LooseName {
        name,
        asset: AssetRef { file_id, type_id },
        extension,
    })
}

/// The part of a loose file name before its ids (the whole name without its extension
/// for other names).
fn display_name(file_name: &str) -> String {
    match parse_loose_file_name(file_name) {
        Some(n) => n.name.to_string(),
        None => std::path::Path::new(file_name)
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
    }
}

fn reference(asset: AssetRef) -> String {
    format!("{:08x}{:08x}", asset.file_id, asset.type_id)
}

/// Reads a companion file; a file that does not decode is an error naming it.
fn decoded<T>(name: &str, r: Result<T>) -> Result<T> {
    r.map_err(|e| match e {
        Error::OverBudget(b) => Error::OverBudget(b),
        Error::Io(io) => Error::Io(io),
        other => invalid(format!("{name}: {other}")),
    })
}

/// A skeleton of `names` (each once, in order), every bone a root at the origin: what
/// meshes pose on when no `.skel` is given.
fn flat_skel<'a>(names: impl Iterator<Item = &'a RawString>) -> Skel {
    let mut seen = HashMap::new();
    let mut bones = Vec::new();
    for n in names {
        if seen.insert(n.as_bytes(), ()).is_none() {
            bones.push(SkelBone {
                unknown: 1,
                name: n.clone(),
                parent: RawString::from("NULL"),
                has_props: 0,
                props: Vec::new(),
                translation: [0.0; 3],
                rotation: [0.0, 0.0, 0.0, 1.0],
                can_translate: 0,
                can_rotate: 1,
                can_blend: 0,
                wiggle_value: 0.0,
                wiggle_power: 0.0,
            });
        }
    }
    Skel {
        version: 1,
        name: RawString::from("flat"),
        bones,
    }
}

/// One binding's parts, found and read.
struct Part {
    /// Index in the appearance's binding list.
    index: usize,
    binding: BindingFile,
    mesh_name: String,
    mesh: Mesh,
}

impl Appearance {
    /// The appearance as one model in [`NATIVE`] coordinates: for each binding (in
    /// order) whose `.bnd` and mesh are found, one surface named after the mesh file,
    /// skinned to `skel` (bones matched by name, as [`Mesh::to_core`] does), with a
    /// material carrying the binding's texture when found: a PNG decoded into pixels
    /// (with this crate's `png` feature), anything else (JPEG) kept as a path texture
    /// naming the file. Every reference that is not found, a mesh whose bones `skel`
    /// lacks, and a texture kept as a path is reported as a loss at
    /// `bindings[i]`; a companion file that does not decode is an error naming it.
    ///
    /// The files come from `options.assets` (none: every binding is reported
    /// missing). Without `options.skeleton`, bones are roots at the origin (one skeleton
    /// of every mesh's bone names) and the loss says so, as for a lone `.mesh`.
    ///
    /// Runs under `options`' budget (shared with the assets' reads when the caller gives
    /// both the same one).
    pub fn to_core_with(&self, options: &CoreOptions<'_>) -> Result<Converted<Model>> {
        let budget = options.budget.clone();
        let skel = options.skeleton;
        let assets: &dyn Assets = options.assets.unwrap_or(&NoAssets);
        let read = ReadOptions {
            budget: budget.clone(),
            ..ReadOptions::default()
        };
        let core = CoreOptions {
            skeleton: None,
            ..options.clone()
        };
        let mut out = Converted::exact(());
        let parts = self.find_parts(assets, &read, &mut out)?;
        let owned;
        let skel = match skel {
            Some(s) => s,
            None => {
                owned = flat_skel_of(&parts, &budget, &mut out)?;
                &owned
            }
        };
        let mut model = skel.to_core_with(&core)?.value;
        model.coordinate_system = NATIVE;
        budget.charge("bone names", skel.name_index_bytes())?;
        let names = skel.name_index();
        for part in parts {
            let path = format!("bindings[{}]", part.index);
            let bone = &part.binding.bone;
            if names.find(bone.as_bytes()).is_none() {
                out.lose(
                    Feature::Skeleton,
                    LossKind::Reduced,
                    path.clone(),
                    format!(
                        "the binding's bone '{bone}' is not in skeleton '{}' (the mesh's own bones place it)",
                        skel.name
                    ),
                );
            }
            let posed = CoreOptions {
                skeleton: Some(skel),
                ..core.clone()
            };
            let converted = match part.mesh.to_core_with(&posed) {
                Ok(c) => c,
                Err(Error::Invalid(why)) => {
                    out.lose(
                        Feature::Geometry,
                        LossKind::Dropped,
                        path,
                        format!("{}: {why}", part.mesh_name),
                    );
                    continue;
                }
                Err(e) => return Err(e),
            };
            drop(part.mesh);
            for l in converted.losses {
                out.losses.push(Loss {
                    path: if l.path.is_empty() {
                        path.clone()
                    } else {
                        format!("{path}.{}", l.path)
                    },
                    ..l
                });
            }
            let Some(mut surface) = converted.value.surfaces.into_iter().next() else {
                continue;
            };
            surface.name = display_name(&part.mesh_name);
            if let Some((_, tex_ref)) = part.binding.texture.asset {
                let material = texture_material(
                    tex_ref,
                    &surface.name,
                    assets,
                    &budget,
                    &mut model,
                    &path,
                    &mut out.losses,
                )?;
                surface.material = material;
            }
            model.surfaces.push(surface);
        }
        Ok(out.map(|()| model))
    }

    /// The bindings whose `.bnd` and mesh are found, read; every reference that is not
    /// found is reported at `bindings[i]`.
    fn find_parts(
        &self,
        assets: &dyn Assets,
        read: &ReadOptions,
        out: &mut Converted<()>,
    ) -> Result<Vec<Part>> {
        let mut parts = Vec::with_capacity(self.bindings.len());
        for (index, &r) in self.bindings.iter().enumerate() {
            let path = format!("bindings[{index}]");
            if r.type_id != TYPE_BINDING {
                out.lose(
                    Feature::Geometry,
                    LossKind::Dropped,
                    path,
                    format!(
                        "reference {} has type {} where a binding (11) belongs",
                        reference(r),
                        r.type_id
                    ),
                );
                continue;
            }
            let Some(bnd) = assets.find(r, &["bnd"])? else {
                out.lose(
                    Feature::Geometry,
                    LossKind::Dropped,
                    path,
                    format!(
                        "binding not found (a file named *{})",
                        loose_file_suffix(r, "bnd")
                    ),
                );
                continue;
            };
            let binding = decoded(&bnd.name, BindingFile::read_with(&bnd.bytes, read))?;
            drop(bnd);
            let Some((_, mesh_ref)) = binding.mesh.asset else {
                out.lose(
                    Feature::Geometry,
                    LossKind::Dropped,
                    path,
                    "the binding names no mesh",
                );
                continue;
            };
            let Some(found) = assets.find(mesh_ref, &["mesh"])? else {
                out.lose(
                    Feature::Geometry,
                    LossKind::Dropped,
                    path,
                    format!(
                        "mesh not found (a file named *{})",
                        loose_file_suffix(mesh_ref, "mesh")
                    ),
                );
                continue;
            };
            let mesh = decoded(&found.name, crate::mesh::read_with(&found.bytes, read))?;
            parts.push(Part {
                index,
                binding,
                mesh_name: found.name,
                mesh,
            });
        }
        Ok(parts)
    }
}

/// Without a `.skel`: one skeleton of every part's bone names, roots at the origin
/// (charged first; the loss says so).
fn flat_skel_of(
    parts: &[Part],
    budget: &meshfmt_core::Budget,
    out: &mut Converted<()>,
) -> Result<Skel> {
    let names: u64 = parts
        .iter()
        .flat_map(|p| &p.mesh.bone_names)
        .map(|n| n.len() as u64)
        .sum();
    let count: usize = parts.iter().map(|p| p.mesh.bone_names.len()).sum();
    budget.charge(
        "skeleton",
        (count as u64)
            .saturating_mul(std::mem::size_of::<SkelBone>() as u64)
            .saturating_add(map_bytes(count, 24))
            .saturating_add(names),
    )?;
    let owned = flat_skel(parts.iter().flat_map(|p| &p.mesh.bone_names));
    if !parts.is_empty() {
        out.lose(
            Feature::Skeleton,
            LossKind::Reduced,
            "",
            "no .skel given: bones at the origin, vertices left in bone-local space",
        );
    }
    Ok(owned)
}

/// The material of a binding's texture (added to `model` with its texture), or `None`
/// when the texture is not found (reported).
fn texture_material(
    tex_ref: AssetRef,
    surface: &str,
    assets: &dyn Assets,
    budget: &meshfmt_core::Budget,
    model: &mut Model,
    path: &str,
    losses: &mut Vec<Loss>,
) -> Result<Option<usize>> {
    let Some(found) = assets.find(tex_ref, &TEXTURE_EXTENSIONS)? else {
        losses.push(Loss {
            feature: Feature::Textures,
            kind: LossKind::Dropped,
            path: path.to_string(),
            reason: format!(
                "texture not found (a file named *.{}.png or .jpg)",
                reference(tex_ref)
            ),
        });
        return Ok(None);
    };
    let source = match decode_png(&found.bytes, budget)? {
        Some(image) => TextureSource::Embedded(image),
        None => {
            losses.push(Loss {
                feature: Feature::Textures,
                kind: LossKind::Reduced,
                path: path.to_string(),
                reason: format!(
                    "'{}' is kept as a path texture: {}",
                    found.name,
                    if found.bytes.starts_with(PNG_MAGIC) {
                        "its PNG does not decode here"
                    } else {
                        "JPEG pixels are not decoded"
                    }
                ),
            });
            TextureSource::Path(found.name.clone())
        }
    };
    model.textures.push(Texture {
        name: display_name(&found.name),
        source,
    });
    model.materials.push(Material {
        name: surface.to_string(),
        metallic: 0.0,
        textures: vec![TextureBinding {
            role: TextureRole::BaseColor,
            texture: model.textures.len() - 1,
            uv_set: 0,
        }],
        ..Material::default()
    });
    Ok(Some(model.materials.len() - 1))
}

const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The pixels of a PNG, charged to `budget`; `None` for anything else (or without the
/// `png` feature).
#[cfg(feature = "png")]
fn decode_png(
    bytes: &[u8],
    budget: &meshfmt_core::Budget,
) -> Result<Option<meshfmt_core::RgbaImage>> {
    if !bytes.starts_with(PNG_MAGIC) {
        return Ok(None);
    }
    let max = usize::try_from(budget.remaining()).unwrap_or(usize::MAX);
    Ok(meshfmt_core::RgbaImage::decode_png_in(bytes, max, budget)?)
}

#[cfg(not(feature = "png"))]
fn decode_png(
    _bytes: &[u8],
    _budget: &meshfmt_core::Budget,
) -> Result<Option<meshfmt_core::RgbaImage>> {
    Ok(None)
}
