//! The textures m3d_load decodes: every distinct non-empty map name of the materials, in
//! order of first use, found among the inlined assets (ASET) by exact name and decoded
//! when it is a PNG. Names are matched through keys found in one pass over the string
//! table ([`Names`]), so a table of long overlapping names costs its length, not more.

use std::collections::{HashMap, HashSet};

use parsing_primitives::Budget;

use crate::chunk::Body;
use crate::error::Result;
use crate::file::File;
use crate::types::{NameKey, Names, Str};

/// One texture a material names, as m3d_load holds it (`m3dtx_t`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LoadedTexture {
    /// The map name as the material gives it.
    pub name: String,
    /// Width in pixels (0 when not decoded).
    pub width: u32,
    /// Height in pixels (0 when not decoded).
    pub height: u32,
    /// RGBA, 8 bits per channel, rows top to bottom; empty when no inlined asset has the
    /// name, the asset is not a PNG, it does not decode, or the crate is built without
    /// the `png` feature. (m3d.h keeps the PNG's own channel count; this is always RGBA.)
    pub pixels: Vec<u8>,
}

/// The textures of a read file: the map names of its MTRL chunks, decoded from its ASET
/// chunks, charged to `budget`.
pub(crate) fn of_file(file: &File, budget: &Budget) -> Result<Vec<LoadedTexture>> {
    // Textures are the maps materials name: none without a material.
    if !file.chunks.iter().any(|c| matches!(c.body, Body::Mtrl(_))) {
        return Ok(Vec::new());
    }
    let maps = file.chunks.iter().flat_map(|c| match &c.body {
        Body::Mtrl(m) => m.props.as_slice(),
        _ => &[],
    });
    let maps: Vec<Str> = maps
        .filter_map(|p| match p.value {
            crate::material::PropValue::Map(s) => Some(s),
            _ => None,
        })
        .collect();
    let assets: Vec<(Str, &[u8])> = file
        .chunks
        .iter()
        .filter_map(|c| match &c.body {
            Body::Aset { name, data } => Some((*name, data.as_slice())),
            _ => None,
        })
        .collect();
    decode(&file.strings, &maps, &assets, budget)
}

/// The textures named by `maps` (string offsets, in material order) among `assets`
/// (name offset and bytes, in file order: the first of a name wins, as m3d.h's loop).
pub(crate) fn decode(
    strings: &[u8],
    maps: &[Str],
    assets: &[(Str, &[u8])],
    budget: &Budget,
) -> Result<Vec<LoadedTexture>> {
    if maps.is_empty() {
        return Ok(Vec::new());
    }
    let names = Names::new(
        strings,
        maps.iter().copied().chain(assets.iter().map(|a| a.0)),
        Some(budget),
    )?;
    budget.charge("texture index", (assets.len() as u64).saturating_mul(48))?;
    let mut by_name: HashMap<NameKey, &[u8]> = HashMap::with_capacity(assets.len());
    for (name, data) in assets {
        if let Some(k) = names.key(*name).filter(|k| !k.is_empty()) {
            by_name.entry(k).or_insert(data);
        }
    }
    let mut seen: HashSet<NameKey> = HashSet::new();
    let mut out = Vec::new();
    for &m in maps {
        // m3d.h's failsafe: a map with an empty name is no texture.
        let Some(key) = names.key(m).filter(|k| !k.is_empty()) else {
            continue;
        };
        if !seen.insert(key) {
            continue;
        }
        let bytes = crate::types::string_at(strings, m).unwrap_or_default();
        budget.charge(
            "texture names",
            bytes.len() as u64 + std::mem::size_of::<LoadedTexture>() as u64,
        )?;
        let mut t = LoadedTexture {
            name: String::from_utf8_lossy(bytes).into_owned(),
            ..LoadedTexture::default()
        };
        if let Some(data) = by_name.get(&key) {
            decode_png(data, budget, &mut t)?;
        }
        out.push(t);
    }
    Ok(out)
}

#[cfg(feature = "png")]
fn decode_png(data: &[u8], budget: &Budget, t: &mut LoadedTexture) -> Result<()> {
    if !data.starts_with(b"\x89PNG") {
        return Ok(());
    }
    let max = usize::try_from(budget.limits().max_alloc_bytes).unwrap_or(usize::MAX);
    if let Some(img) = meshfmt_core::RgbaImage::decode_png_in(data, max, budget)? {
        (t.width, t.height, t.pixels) = (img.width, img.height, img.pixels);
    }
    Ok(())
}

#[cfg(not(feature = "png"))]
fn decode_png(_: &[u8], _: &Budget, _: &mut LoadedTexture) -> Result<()> {
    Ok(())
}
