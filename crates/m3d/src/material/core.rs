//! MTRL to and from meshfmt-core: materials, and the textures their maps name (resolved
//! as m3d.h does: an inlined ASET of the name, else a file).

use std::collections::HashMap;

use meshfmt_core::glam::Vec3;
use meshfmt_core::material::{
    Material as CoreMaterial, Texture, TextureBinding, TextureRole, TextureSource,
};
use meshfmt_core::model::Model;
use meshfmt_core::{Budget, Converted, Feature, LossKind};

use meshfmt_core::format::FormatError;
use meshfmt_core::side_files::{SideFile, SideFiles, Unavailable};
use meshfmt_core::text::quoted;

use crate::context::from_core::{FromCore, rgba_exact, vec4_to_rgba};
use crate::context::to_core::{FileNames, Losses, ToCore, rgba_to_vec4};
use crate::error::{Error, Result};
use crate::material::{Material, PropValue, Property};
use crate::types::NameKey;

/// Materials by name: the shared library's first (m3d.h lets them win), then the file's
/// own (`own`: the file's MTRL chunks and their chunk indices; `lib`: the library's
/// names and its); then the textures their maps name, each resolved in the file that
/// names it. Names are matched by key, each file's string table read once.
pub(crate) fn to_core<'m, M: Iterator<Item = (usize, &'m Material)>>(
    cx: &mut ToCore<'_>,
    lib: Option<(&FileNames<'_>, M)>,
    own: M,
    side_files: Option<&dyn SideFiles>,
) -> Result<()> {
    let b = &cx.budget.clone();
    let mut textures = Textures::default();
    let lib_names = lib.as_ref().map(|l| l.0);
    let sources = lib
        .map(|(names, materials)| (names, "mtllib.", materials))
        .into_iter()
        .chain(std::iter::once((&cx.own, "", own)));
    for (names, prefix, materials) in sources {
        for (ci, m) in materials {
            let key = names.key(m.name);
            if cx.materials.contains_key(&key) {
                cx.losses.lose(
                    &mut cx.out,
                    "a material of this name is already defined (the library's wins)",
                    Feature::Materials,
                    LossKind::Dropped,
                    || format!("{prefix}MTRL[{ci}]"),
                    || "a material of this name is already defined (the library's wins)",
                );
                continue;
            }
            b.charge("materials", std::mem::size_of::<CoreMaterial>() as u64 + 48)?;
            let cm = names.core_material(
                m,
                prefix,
                ci,
                &mut textures,
                &mut cx.out,
                &mut cx.losses,
                b,
            )?;
            cx.materials.insert(key, cx.out.value.materials.len());
            cx.out.value.materials.push(cm);
        }
    }
    b.charge_items::<Texture>("textures", textures.list.len())?;
    for (name, key, owner) in &textures.list {
        let owner = match owner {
            Owner::File => &cx.own,
            Owner::Lib => lib_names.unwrap_or(&cx.own),
        };
        let inlined = owner.assets.get(key).copied();
        let source = texture_source(name, inlined, side_files, &mut cx.out, &mut cx.losses, b)?;
        if matches!(source, TextureSource::Embedded(_)) {
            cx.embedded.insert(*key);
        }
        cx.out.value.textures.push(Texture {
            name: name.clone(),
            source,
        });
    }
    Ok(())
}

/// Which file a texture is resolved in.
#[derive(Debug, Clone, Copy)]
enum Owner {
    File,
    Lib,
}

/// Textures by name (their key), in first-use order, with the file that names them.
#[derive(Default)]
struct Textures {
    list: Vec<(String, NameKey, Owner)>,
    index: HashMap<NameKey, usize>,
}

impl FileNames<'_> {
    /// One MTRL as a meshfmt-core material; its maps join `textures` (by name, with this
    /// file as the place to find them inlined).
    #[allow(
        clippy::too_many_arguments,
        reason = "the conversion's shared state, passed down"
    )]
    fn core_material(
        &self,
        m: &Material,
        prefix: &str,
        ci: usize,
        textures: &mut Textures,
        out: &mut Converted<Model>,
        losses: &mut Losses,
        budget: &Budget,
    ) -> Result<CoreMaterial> {
        let mut cm = CoreMaterial {
            name: self.text_in(m.name, budget)?,
            ..CoreMaterial::default()
        };
        // OBJ-like materials are not metals.
        cm.metallic = 0.0;
        for p in &m.props {
            match (p.kind, &p.value) {
                (0, PropValue::Color(c)) => cm.base_color = rgba_to_vec4(self.colours.rgba(*c)),
                (4, PropValue::Color(c)) => {
                    cm.emissive = rgba_to_vec4(self.colours.rgba(*c)).truncate();
                }
                (7, PropValue::Float(d)) => cm.base_color.w = *d,
                (64, PropValue::Float(v)) => cm.roughness = *v,
                (65, PropValue::Float(v)) => cm.metallic = *v,
                (k @ (128 | 129 | 132 | 136), PropValue::Map(s)) => {
                    let key = self.key(*s);
                    if key.is_empty() {
                        continue;
                    }
                    let t = match textures.index.get(&key) {
                        Some(t) => *t,
                        None => {
                            let owner = if prefix.is_empty() {
                                Owner::File
                            } else {
                                Owner::Lib
                            };
                            textures.list.push((self.text_in(*s, budget)?, key, owner));
                            textures.index.insert(key, textures.list.len() - 1);
                            textures.list.len() - 1
                        }
                    };
                    let role = match k {
                        128 => TextureRole::BaseColor,
                        129 => TextureRole::Occlusion,
                        132 => TextureRole::Emissive,
                        _ => TextureRole::Normal,
                    };
                    budget.charge_items::<TextureBinding>("materials", 1)?;
                    cm.textures.push(TextureBinding {
                        role,
                        texture: t,
                        uv_set: 0,
                    });
                }
                (k, _) => losses.lose(
                    out,
                    "material property without a meshfmt-core counterpart",
                    Feature::Materials,
                    LossKind::Dropped,
                    || format!("{prefix}MTRL[{ci}]"),
                    || format!("property type {k} has no meshfmt-core counterpart"),
                ),
            }
        }
        Ok(cm)
    }
}

/// A side file's failure (the budget, or reading) as this crate's error.
fn side_error(e: FormatError) -> Error {
    match e {
        FormatError::OverBudget(b) => Error::OverBudget(b),
        FormatError::Io(io) => Error::Io(io),
        other => Error::Invalid(other.to_string()),
    }
}

/// A texture as m3d.h resolves it: an inlined asset (ASET) of the same name, decoded
/// from PNG when the `png` feature is on; else a file name (with ".png" added when the
/// name has no three-letter extension, as m3d.h asks its file callback for). The bytes
/// `read_file` returns and the decoded pixels are charged to `budget`.
fn texture_source(
    name: &str,
    inlined: Option<&[u8]>,
    side_files: Option<&dyn SideFiles>,
    out: &mut Converted<Model>,
    losses: &mut Losses,
    budget: &Budget,
) -> Result<TextureSource> {
    let has_ext = name.len() > 4 && name.as_bytes().get(name.len() - 4) == Some(&b'.');
    let file_name = if has_ext {
        name.to_string()
    } else {
        format!("{name}.png")
    };
    // Inlined first; then, as m3d.h asks its callback, NAME.png and NAME.
    let external;
    let bytes = match (inlined, side_files) {
        (Some(b), _) => Some(b),
        (None, Some(side)) => {
            external = match side.read(&file_name).map_err(side_error)? {
                SideFile::Unavailable(u) if !has_ext => {
                    match side.read(name).map_err(side_error)? {
                        SideFile::Found(b) => Ok(b),
                        SideFile::Unavailable(_) => Err(u),
                    }
                }
                found => found
                    .found()
                    .ok_or_else(|| Unavailable::missing(&file_name)),
            };
            match &external {
                // Already loaded by the caller's reader: charged as it is held.
                Ok(b) => budget.charge("external texture", b.len() as u64)?,
                Err(u) => losses.lose(
                    out,
                    "texture file not available",
                    Feature::Textures,
                    LossKind::Reduced,
                    || format!("texture {}", quoted(name)),
                    || format!("{u}: kept as a file name"),
                ),
            }
            external.as_deref().ok()
        }
        (None, None) => None,
    };
    #[cfg(feature = "png")]
    if let Some(b) = bytes {
        if let Some(img) = meshfmt_core::RgbaImage::decode_png_in(b, 64 << 20, budget)? {
            return Ok(TextureSource::Embedded(img));
        }
    }
    if bytes.is_some() {
        losses.lose(
            out,
            "texture image not decoded",
            Feature::Textures,
            LossKind::Reduced,
            || format!("texture '{name}'"),
            || "image kept as a file name (not an 8-bit PNG, or the png feature is off)",
        );
    }
    Ok(TextureSource::Path(file_name))
}

/// Materials: base colour, roughness, metallic, emissive and the maps M3D has a type
/// for; a material without a name is given one (MESH records find it by name). The
/// MTRL chunks, in model order.
pub(crate) fn from_core(cx: &mut FromCore<'_>) -> Result<Vec<Material>> {
    let model = cx.model;
    let mut out = Vec::new();
    for (mi, m) in model.materials.iter().enumerate() {
        if !rgba_exact(m.base_color) || !rgba_exact(m.emissive.extend(1.0)) {
            cx.out.lose(
                Feature::Materials,
                LossKind::Reduced,
                format!("materials[{mi}]"),
                "base and emissive colours are stored as 8-bit RGBA (error <= 1/510)",
            );
        }
        let mut props = vec![
            Property {
                kind: 0,
                value: PropValue::Color(vec4_to_rgba(m.base_color)),
            },
            Property {
                kind: 64,
                value: PropValue::Float(m.roughness),
            },
            Property {
                kind: 65,
                value: PropValue::Float(m.metallic),
            },
        ];
        if m.emissive != Vec3::ZERO {
            props.push(Property {
                kind: 4,
                value: PropValue::Color(vec4_to_rgba(m.emissive.extend(1.0))),
            });
        }
        for t in &m.textures {
            let kind = match t.role {
                TextureRole::BaseColor => 128,
                TextureRole::Emissive => 132,
                TextureRole::Normal => 136,
                // map_Ka: "ambient occlusion color texture map" in the format document.
                TextureRole::Occlusion => 129,
                _ => {
                    cx.out.lose(
                        Feature::Textures,
                        LossKind::Dropped,
                        format!("materials[{mi}]"),
                        "a packed metallic-roughness texture has no M3D map type (map_Pr and map_Pm are single-channel)",
                    );
                    continue;
                }
            };
            let name = cx.texture_names.get(t.texture).cloned().unwrap_or_default();
            if name.is_empty() {
                // The reader (like m3d.h) takes a map with an empty name for no texture.
                cx.out.lose(
                    Feature::Textures,
                    LossKind::Dropped,
                    format!("materials[{mi}]"),
                    "a texture without a name cannot be referenced",
                );
                continue;
            }
            if t.uv_set != 0 {
                cx.out.lose(
                    Feature::Textures,
                    LossKind::Reduced,
                    format!("materials[{mi}]"),
                    "M3D has one UV set: the texture is read back on UV0",
                );
            }
            props.push(Property {
                kind,
                value: PropValue::Map(cx.strings.add(&name)?),
            });
        }
        // A material needs a name: MESH records find it by name.
        let name = if m.name.is_empty() {
            cx.out.lose(
                Feature::Materials,
                LossKind::Reduced,
                format!("materials[{mi}]"),
                format!("an M3D material needs a name: named 'material{mi}'"),
            );
            format!("material{mi}")
        } else {
            m.name.clone()
        };
        let s = cx.strings.add(&name)?;
        cx.materials.push((name, s));
        out.push(Material { name: s, props });
    }
    Ok(out)
}
