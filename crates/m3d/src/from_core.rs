//! [`File::from_core`]: a meshfmt-core model as a Model 3D file. This is the driver:
//! each chunk module builds its chunks from the model ([`FromCore`] holds what several
//! of them add to) and this puts them in file order.

use std::borrow::Cow;
use std::collections::HashMap;

use meshfmt_core::{Budget, Converted, CoordinateSystem, Feature, LossKind, Model};

use crate::bones::{Action, Bone, Skeleton};
use crate::chunk::{Body, Chunk};
use crate::context::from_core::{FromCore, Strings};
use crate::error::Result;
use crate::file::File;
use crate::material::Material;
use crate::mesh::{Mesh, MeshRecord};
use crate::options::{Precision, WriteOptions};
use crate::types::{SkinList, Str, Types};
use crate::vertex::Records;
use crate::{asset, bones, material, mesh};

impl File {
    /// A file from a meshfmt-core model: f32 coordinates normalised by the largest
    /// absolute coordinate (which becomes the header scale), u32 indices, literal RGBA
    /// colours, 8 bones per skin. Positions and normals are separate vertices; each surface
    /// becomes a run of triangles after a use-material record. Clips become actions keyed
    /// at every time any channel has a key. Losses: tangents, the second UV set, morph
    /// targets, bone scale, skin weights as bytes summing to 255 (the worst difference
    /// they make reported), non-linear interpolation, a name for an unnamed material. A
    /// model in another coordinate system is converted to M3D's (Y up, right-handed); bones
    /// are put in depth-first order when they are not (reported). Index fields are as
    /// narrow as the counts allow. Compressed, f32 coordinates; see
    /// [`File::from_core_with`].
    ///
    /// ```
    /// let model = meshfmt_core::Model::default();
    /// let f = m3d_format::File::from_core(&model)?;
    /// assert_eq!(f.value.counts().vertices, 0);
    /// # Ok::<(), m3d_format::Error>(())
    /// ```
    pub fn from_core(model: &Model) -> Result<Converted<File>> {
        File::from_core_with(model, &WriteOptions::default())
    }

    /// [`File::from_core`] as `opts` ask: they set [`File::compressed`] and the
    /// coordinate [`Precision`] (int8/int16 report their error bound). What it builds is
    /// charged to the options' budget; an action is checked against the 65,535-frame
    /// limit, and its frames charged, before they are sampled.
    pub fn from_core_with(model: &Model, opts: &WriteOptions) -> Result<Converted<File>> {
        let budget = opts.budget.clone();
        let b = &budget;
        let mut out = Converted::exact(());
        let model = prepared(model, &mut out, b)?;
        let model = model.as_ref();
        let mut strings = Strings {
            table: Vec::new(),
            seen: HashMap::new(),
            budget: budget.clone(),
        };
        b.charge("string table", model.name.len() as u64 + 4)?;
        strings.table.extend(model.name.bytes().filter(|b| *b != 0));
        strings.table.extend_from_slice(&[0, 0, 0, 0]);
        let mut cx = FromCore {
            model,
            out,
            strings,
            scale: scale_for(model),
            vertices: Vec::new(),
            tmap: Vec::new(),
            skins: SkinList::default(),
            materials: Vec::new(),
            texture_names: Vec::new(),
            budget: budget.clone(),
        };
        let chunks = Chunks {
            assets: asset::from_core(&mut cx)?,
            materials: material::core::from_core(&mut cx)?,
            records: mesh::core::from_core(&mut cx)?,
            bones: bones::core::skeleton_from_core(&mut cx)?,
            actions: bones::core::actions_from_core(&mut cx)?,
        };
        let mut out = file(cx, chunks, types_for(model));
        out.value.compressed = opts.compress;
        out.value.types = out.value.types.narrowed(out.value.list_lengths());
        quantize(&mut out, opts.precision);
        Ok(out)
    }
}

/// What the chunk modules built for their own chunks.
struct Chunks {
    assets: Vec<(Str, Vec<u8>)>,
    materials: Vec<Material>,
    records: Vec<MeshRecord>,
    bones: Vec<Bone>,
    actions: Vec<Action>,
}

/// The file, its chunks in file order: TMAP, VRTS, BONE, MTRL, MESH, ACTN, ASET.
fn file(cx: FromCore<'_>, c: Chunks, types: u32) -> Converted<File> {
    let chunk = |body| Chunk {
        body,
        tail: Vec::new(),
    };
    let mut f = File {
        scale: cx.scale,
        types: Types(types),
        ..File::default()
    };
    if !cx.tmap.is_empty() {
        f.chunks.push(chunk(Body::Tmap(Records {
            items: cx.tmap,
            tail: Vec::new(),
        })));
    }
    f.chunks.push(chunk(Body::Vrts(Records {
        items: cx.vertices,
        tail: Vec::new(),
    })));
    if !c.bones.is_empty() || !cx.skins.skins.is_empty() {
        f.chunks.push(chunk(Body::Bone(Skeleton {
            bones: c.bones,
            skins: cx.skins.skins,
        })));
    }
    f.chunks
        .extend(c.materials.into_iter().map(|m| chunk(Body::Mtrl(m))));
    if !c.records.is_empty() {
        f.chunks
            .push(chunk(Body::Mesh(Mesh { records: c.records })));
    }
    f.chunks
        .extend(c.actions.into_iter().map(|a| chunk(Body::Actn(a))));
    f.chunks.extend(
        c.assets
            .into_iter()
            .map(|(name, data)| chunk(Body::Aset { name, data })),
    );
    f.strings = cx.strings.table;
    Converted {
        value: f,
        losses: cx.out.losses,
    }
}

/// The model in M3D's coordinate system (Y up, right-handed, counter-clockwise: what
/// to_core declares) with its bones parents-first and depth-first, the order the text
/// form can nest (a loss when they were not); copied only when it changes.
fn prepared<'m>(model: &'m Model, out: &mut Converted<()>, b: &Budget) -> Result<Cow<'m, Model>> {
    let model = model.in_system(CoordinateSystem::GLTF, b)?;
    match model.skeleton.depth_first_order() {
        Some(order) if order.iter().enumerate().any(|(i, o)| i != *o) => {
            // A copy made for the frame is reordered in place, not copied again.
            let mut m = match model {
                Cow::Owned(m) => m,
                Cow::Borrowed(m) => {
                    b.charge("model copy", m.heap_bytes())?;
                    m.clone()
                }
            };
            m.reorder_bones(&order);
            out.lose(
                Feature::Skeleton,
                LossKind::Reduced,
                "skeleton",
                "bones reordered depth-first (parents before children, as M3D nests them)",
            );
            Ok(Cow::Owned(m))
        }
        _ => Ok(model),
    }
}

/// vc f32, vi u32, si u32, ci u32 (literal RGBA), ti u32 or absent, bi u32 or absent,
/// nb 8, sk u32 or absent, fc u32 or absent, hi/fi/vd/vp absent.
fn types_for(model: &Model) -> u32 {
    let any_uv = model.surfaces.iter().any(|s| !s.uv0.is_empty());
    let any_skin = model.surfaces.iter().any(|s| !s.skin.is_empty());
    let has_bones = !model.skeleton.bones.is_empty();
    let absent = |on: bool| if on { 2u32 } else { 3 };
    2 | (2 << 2)
        | (2 << 4)
        | (2 << 6)
        | (absent(any_uv) << 8)
        | (absent(has_bones || any_skin) << 10)
        | (3 << 12)
        | (absent(any_skin) << 14)
        | (absent(!model.animations.is_empty()) << 16)
        | (3 << 18)
        | (3 << 20)
        | (3 << 22)
        | (3 << 24)
}

/// The header scale: the largest absolute coordinate of the positions and bones (1 when
/// there is none), which positions are divided by.
fn scale_for(model: &Model) -> f32 {
    let mut extent = 0.0f32;
    for p in model.surfaces.iter().flat_map(|s| &s.positions) {
        extent = extent.max(p.abs().max_element());
    }
    for b in &model.skeleton.bones {
        extent = extent.max(b.rest.translation.abs().max_element());
    }
    if extent.is_finite() && extent > 0.0 {
        extent
    } else {
        1.0
    }
}

/// Stores every coordinate at `precision` ([`store_coordinates`]), reporting the error
/// that costs.
fn quantize(out: &mut Converted<File>, precision: Precision) {
    let uv_clamped = store_coordinates(&mut out.value, precision);
    let Some((what, steps, uv_steps)) = precision.steps() else {
        return;
    };
    let f = &out.value;
    let any_uv = f.chunks.iter().any(|c| matches!(c.body, Body::Tmap(_)));
    let scale = f64::from(f.effective_scale());
    let step = 0.5 / steps;
    for (feature, bound) in [
        (Feature::Geometry, step * scale),
        (Feature::Normals, step),
        (Feature::Skeleton, step * scale.max(1.0)),
        (Feature::Animation, step * scale.max(1.0)),
    ] {
        out.lose(
            feature,
            LossKind::Quantized {
                max_error: bound as f32,
            },
            "",
            format!("coordinates stored as {what}"),
        );
    }
    if any_uv {
        let uv_step = 0.5 / uv_steps;
        out.lose(
            Feature::Uv0,
            LossKind::Quantized {
                max_error: uv_step as f32,
            },
            "",
            format!("texture coordinates stored as unsigned {what}"),
        );
        if uv_clamped {
            out.lose(
                Feature::Uv0,
                LossKind::Reduced,
                "",
                "texture coordinates outside 0..1 clamped (quantized UVs are unsigned)",
            );
        }
    }
}

/// Stores every VRTS and TMAP coordinate of `f` at `precision` (m3d.h's meanings, see
/// [`Coord::at_width`](crate::types::Coord)) and sets `vc_t` to match; nothing changes
/// when the file already has that width. Whether a texture coordinate outside 0..1 was
/// clamped (quantized UVs are unsigned).
fn store_coordinates(f: &mut File, precision: Precision) -> bool {
    let t = f.types.with_vc(precision.code());
    if t == f.types {
        return false;
    }
    f.types = t;
    let width = t.vc();
    let mut uv_clamped = false;
    for c in &mut f.chunks {
        match &mut c.body {
            Body::Vrts(v) => {
                for x in v.items.iter_mut().flat_map(|v| &mut v.coords) {
                    *x = x.at_width(width, false).0;
                }
            }
            Body::Tmap(m) => {
                for x in m.items.iter_mut().flatten() {
                    let (q, clamped) = x.at_width(width, true);
                    *x = q;
                    uv_clamped |= clamped;
                }
            }
            _ => {}
        }
    }
    uv_clamped
}
