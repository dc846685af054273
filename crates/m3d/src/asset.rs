//! ASET: an inlined asset (binary form: chunk.rs reads it, write.rs writes it). The text
//! form only names files, so its blocks are skipped and inlined assets are not written;
//! from_core inlines embedded textures as PNG assets (to_core resolves them with the
//! materials' maps).

use meshfmt_core::side_files::output_reference;
use meshfmt_core::{Feature, LossKind, TextureSource};

use crate::context::from_core::FromCore;
use crate::context::parse::Parser;
use crate::context::text::{TextLosses, cut};
use crate::error::Result;
use crate::types::Str;

/// `Preview` and `Assets` blocks name external files this reader does not open: skipped.
pub(crate) fn skip_ascii(p: &mut Parser<'_>) {
    while p.block_line().is_some() {}
}

/// Each inlined asset (an embedded texture) is dropped by the text form.
pub(crate) fn ascii_losses(name: Str, l: &mut TextLosses<'_>) {
    let name = l.string(name).unwrap_or_default();
    l.push(
        Feature::Textures,
        LossKind::Dropped,
        format!("ASET '{}'", cut(name)),
        "the ASCII form does not inline assets: the pixels are not written",
    );
}

/// Textures: map properties name them; embedded pixels are inlined as PNG (ASET). A
/// path that is not the texture's name is a loss (M3D stores names). The ASET chunks'
/// names and bytes.
pub(crate) fn from_core(cx: &mut FromCore<'_>) -> Result<Vec<(Str, Vec<u8>)>> {
    let mut assets = Vec::new();
    for (ti, t) in cx.model.textures.iter().enumerate() {
        let path = format!("textures[{ti}]");
        // A reader resolves the name to a file: never one out of the model's folder.
        let name = output_reference(&t.name);
        cx.out.losses.extend(name.loss(&t.name, path.clone()));
        cx.texture_names.push(name.written);
        match &t.source {
            TextureSource::Path(p) if *p != t.name && *p != format!("{}.png", t.name) => {
                cx.out.lose(
                    Feature::Textures,
                    LossKind::Reduced,
                    path,
                    format!(
                        "M3D stores a texture name, not a path: '{p}' comes back as '{}.png'",
                        t.name
                    ),
                );
            }
            TextureSource::Path(_) => {}
            TextureSource::Embedded(img) => {
                #[cfg(feature = "png")]
                if let Some(png) = img.encode_png() {
                    cx.budget.charge("inlined textures", png.len() as u64)?;
                    assets.push((cx.strings.add(&cx.texture_names[ti])?, png));
                    continue;
                }
                let _ = img;
                cx.out.lose(
                    Feature::Textures,
                    LossKind::Dropped,
                    path,
                    "embedded pixels not inlined (not a valid image, or the png feature is off)",
                );
            }
        }
    }
    Ok(assets)
}
