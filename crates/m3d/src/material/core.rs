//! MTRL to and from meshfmt-core: materials, and the textures their maps name (resolved
//! as m3d.h does: an inlined ASET of the name, else a file).

use std::collections::HashMap;

use meshfmt_core::material::{
    Material as CoreMaterial, Texture, TextureBinding, TextureRole, TextureSource,
};
use meshfmt_core::model::Model;
use meshfmt_core::{Budget, Converted, Feature, LossKind};

use crate::convert::{FileNames, Losses, ReadFile, ToCore, rgba_to_vec4};
use crate::error::Result;
use crate::file::{Body, File};
use crate::material::{Material, PropValue};
use crate::types::NameKey;

/// Materials by name: the shared library's first (m3d.h lets them win), then the file's
/// own; then the textures their maps name, each resolved in the file that names it.
/// Names are matched by key, each file's string table read once.
pub(crate) fn to_core(
    cx: &mut ToCore<'_>,
    mtllib: Option<&File>,
    read_file: Option<ReadFile<'_>>,
) -> Result<()> {
    let b = &cx.budget.clone();
    let lib = mtllib.map(|l| FileNames::new(l, b)).transpose()?;
    let mut textures = Textures::default();
    let sources = lib
        .iter()
        .map(|lib| (lib, "mtllib."))
        .chain(std::iter::once((&cx.own, "")));
    for (names, prefix) in sources {
        for (ci, c) in names.file.chunks.iter().enumerate() {
            let Body::Mtrl(m) = &c.body else { continue };
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
            Owner::Lib => lib.as_ref().unwrap_or(&cx.own),
        };
        let inlined = owner.assets.get(key).copied();
        let source = texture_source(name, inlined, read_file, &mut cx.out, &mut cx.losses, b)?;
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
        let file = self.file;
        let mut cm = CoreMaterial {
            name: file.text_in(m.name, budget)?,
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
                            textures.list.push((file.text_in(*s, budget)?, key, owner));
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

/// A texture as m3d.h resolves it: an inlined asset (ASET) of the same name, decoded
/// from PNG when the `png` feature is on; else a file name (with ".png" added when the
/// name has no three-letter extension, as m3d.h asks its file callback for). The bytes
/// `read_file` returns and the decoded pixels are charged to `budget`.
fn texture_source(
    name: &str,
    inlined: Option<&[u8]>,
    read_file: Option<ReadFile<'_>>,
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
    let bytes = match (inlined, read_file) {
        (Some(b), _) => Some(b),
        (None, Some(read)) => {
            external = read(&file_name).or_else(|| (!has_ext).then(|| read(name)).flatten());
            match &external {
                // Already loaded by the caller's reader: charged as it is held.
                Some(b) => budget.charge("external texture", b.len() as u64)?,
                None => losses.lose(
                    out,
                    "texture file not found",
                    Feature::Textures,
                    LossKind::Reduced,
                    || format!("texture '{name}'"),
                    || format!("'{file_name}' not found: kept as a file name"),
                ),
            }
            external.as_deref()
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
