//! [`File::from_core`]: a meshfmt-core model as a Model 3D file.

use std::collections::HashMap;

use meshfmt_core::glam::{Quat, Vec3, Vec4};
use meshfmt_core::skin::VertexInfluences;
use meshfmt_core::{
    Budget, Converted, CoordinateSystem, Feature, LossKind, Model, TextureRole, TextureSource,
};

use crate::bones::{Action, Bone, Frame, Skeleton, Skin, Transform};
use crate::error::{Result, invalid};
use crate::file::{Body, Chunk, File, Precision, WriteOptions};
use crate::material::{Material, PropValue, Property};
use crate::mesh::{Corner, Mesh, MeshRecord};
use crate::types::{Coord, Idx, Str, Types};
use crate::vertex::{Records, Vertex};

struct Strings {
    table: Vec<u8>,
    seen: HashMap<String, Str>,
    budget: Budget,
}

impl Strings {
    fn add(&mut self, s: &str) -> Result<Str> {
        if s.is_empty() {
            return Ok(Str(0));
        }
        if let Some(at) = self.seen.get(s) {
            return Ok(*at);
        }
        // The table's copy and the map's.
        self.budget
            .charge("string table", 2 * s.len() as u64 + 64)?;
        let at =
            Str(u32::try_from(self.table.len()).map_err(|_| invalid("string table too large"))?);
        // NUL ends a string in the table; one inside a name would cut it.
        self.table
            .extend(s.bytes().map(|b| if b == 0 { b' ' } else { b }));
        self.table.push(0);
        self.seen.insert(s.to_owned(), at);
        Ok(at)
    }
}

fn vec4_to_rgba(c: Vec4) -> u32 {
    let q = |x: f32| (x.clamp(0.0, 1.0) * 255.0).round() as u8;
    u32::from_le_bytes([q(c.x), q(c.y), q(c.z), q(c.w)])
}

/// True when 8-bit RGBA holds the colour exactly (as the reader gives it back).
fn rgba_exact(c: Vec4) -> bool {
    let [r, g, b, a] = vec4_to_rgba(c).to_le_bytes();
    Vec4::new(f32::from(r), f32::from(g), f32::from(b), f32::from(a)) / 255.0 == c
}

fn idx(n: usize) -> Result<Idx> {
    u32::try_from(n)
        .ok()
        .filter(|n| *n < Idx::MAX.0)
        .map(Idx)
        .ok_or_else(|| invalid(format!("index {n} too large")))
}

fn f32s(v: [f32; 4]) -> [Coord; 4] {
    v.map(Coord::F32)
}

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
    /// narrow as the counts allow; `opts` sets [`File::compressed`] and the coordinate
    /// [`Precision`] (f32 by default; int8/int16 report their error bound). What it
    /// builds is charged to the options' budget; an action is checked against the
    /// 65,535-frame limit, and its frames charged, before they are sampled.
    ///
    /// ```
    /// let model = meshfmt_core::Model::default();
    /// let f = m3d_format::File::from_core(&model, &m3d_format::WriteOptions::default())?;
    /// assert_eq!(f.value.counts().vertices, 0);
    /// # Ok::<(), m3d_format::Error>(())
    /// ```
    pub fn from_core(model: &Model, opts: &WriteOptions) -> Result<Converted<File>> {
        let budget = Budget::shared_or_new(opts.budget.as_ref(), opts.limits);
        let b = &budget;
        // M3D is Y up, right-handed, counter-clockwise (what to_core declares).
        let converted;
        let model = if model.coordinate_system == CoordinateSystem::GLTF {
            model
        } else {
            b.charge("model copy", model.heap_bytes())?;
            let mut m = model.clone();
            m.convert_to(CoordinateSystem::GLTF);
            converted = m;
            &converted
        };
        let mut out = Converted::exact(File::default());
        // Bones parents-first and depth-first, the order the text form can nest.
        let reordered;
        let model = match model.skeleton.depth_first_order() {
            Some(order) if order.iter().enumerate().any(|(i, o)| i != *o) => {
                b.charge("model copy", model.heap_bytes())?;
                let mut m = model.clone();
                m.reorder_bones(&order);
                out.lose(
                    Feature::Skeleton,
                    LossKind::Reduced,
                    "skeleton",
                    "bones reordered depth-first (parents before children, as M3D nests them)",
                );
                reordered = m;
                &reordered
            }
            _ => model,
        };
        let mut strings = Strings {
            table: Vec::new(),
            seen: HashMap::new(),
            budget: budget.clone(),
        };
        b.charge("string table", model.name.len() as u64 + 4)?;
        strings.table.extend(model.name.bytes().filter(|b| *b != 0));
        strings.table.extend_from_slice(&[0, 0, 0, 0]);

        let any_uv = model.surfaces.iter().any(|s| !s.uv0.is_empty());
        let any_skin = model.surfaces.iter().any(|s| !s.skin.is_empty());
        let has_bones = !model.skeleton.bones.is_empty();
        // vc f32, vi u32, si u32, ci u32 (literal RGBA), ti u32 or absent, bi u32 or absent,
        // nb 8, sk u32 or absent, fc u32 or absent, hi/fi/vd/vp absent.
        let absent = |on: bool| if on { 2u32 } else { 3 };
        let types = 2
            | (2 << 2)
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
            | (3 << 24);

        let mut extent = 0.0f32;
        for p in model.surfaces.iter().flat_map(|s| &s.positions) {
            extent = extent.max(p.abs().max_element());
        }
        for b in &model.skeleton.bones {
            extent = extent.max(b.rest.translation.abs().max_element());
        }
        let scale = if extent.is_finite() && extent > 0.0 {
            extent
        } else {
            1.0
        };

        let mut vertices: Vec<Vertex> = Vec::new();
        let mut tmap = Vec::new();
        let mut skins: Vec<Skin> = Vec::new();
        let mut skin_ids: HashMap<Skin, usize> = HashMap::new();
        let mut records = Vec::new();
        // Textures: map properties name them; embedded pixels are inlined as PNG (ASET).
        #[cfg_attr(not(feature = "png"), allow(unused_mut))]
        let mut assets = Vec::new();
        for (ti, t) in model.textures.iter().enumerate() {
            let path = format!("textures[{ti}]");
            match &t.source {
                TextureSource::Path(p) if *p != t.name && *p != format!("{}.png", t.name) => {
                    out.lose(
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
                        b.charge("inlined textures", png.len() as u64)?;
                        assets.push(Chunk {
                            body: Body::Aset {
                                name: strings.add(&t.name)?,
                                data: png,
                            },
                            tail: Vec::new(),
                        });
                        continue;
                    }
                    let _ = img;
                    out.lose(
                        Feature::Textures,
                        LossKind::Dropped,
                        path,
                        "embedded pixels not inlined (not a valid image, or the png feature is off)",
                    );
                }
            }
        }
        let mut materials = Vec::new();
        // The names written, which surfaces come back named after.
        let mut material_names: Vec<String> = Vec::new();
        for (mi, m) in model.materials.iter().enumerate() {
            if !rgba_exact(m.base_color) || !rgba_exact(m.emissive.extend(1.0)) {
                out.lose(
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
                        out.lose(
                            Feature::Textures,
                            LossKind::Dropped,
                            format!("materials[{mi}]"),
                            "a packed metallic-roughness texture has no M3D map type (map_Pr and map_Pm are single-channel)",
                        );
                        continue;
                    }
                };
                let name = model
                    .textures
                    .get(t.texture)
                    .map(|t| t.name.as_str())
                    .unwrap_or("");
                if name.is_empty() {
                    // The reader (like m3d.h) takes a map with an empty name for no texture.
                    out.lose(
                        Feature::Textures,
                        LossKind::Dropped,
                        format!("materials[{mi}]"),
                        "a texture without a name cannot be referenced",
                    );
                    continue;
                }
                if t.uv_set != 0 {
                    out.lose(
                        Feature::Textures,
                        LossKind::Reduced,
                        format!("materials[{mi}]"),
                        "M3D has one UV set: the texture is read back on UV0",
                    );
                }
                props.push(Property {
                    kind,
                    value: PropValue::Map(strings.add(name)?),
                });
            }
            // A material needs a name: MESH records find it by name.
            let name = if m.name.is_empty() {
                out.lose(
                    Feature::Materials,
                    LossKind::Reduced,
                    format!("materials[{mi}]"),
                    format!("an M3D material needs a name: named 'material{mi}'"),
                );
                format!("material{mi}")
            } else {
                m.name.clone()
            };
            material_names.push(name.clone());
            materials.push(Chunk {
                body: Body::Mtrl(Material {
                    name: strings.add(&name)?,
                    props,
                }),
                tail: Vec::new(),
            });
        }
        let mut colours_quantized = false;
        // The worst difference the skin bytes make to a weight, as the reader gives it back.
        let mut skin_error = 0.0f32;
        for (si, s) in model.surfaces.iter().enumerate() {
            if s.indices.is_empty() {
                // M3D surfaces are runs of faces: one without faces cannot be stored.
                out.lose(
                    Feature::Geometry,
                    LossKind::Reduced,
                    format!("surfaces[{si}]"),
                    "a surface without triangles has no M3D counterpart",
                );
                out.lose(
                    Feature::Names,
                    LossKind::Dropped,
                    format!("surfaces[{si}]"),
                    "dropped with its surface",
                );
                continue;
            }
            let mat_name = s
                .material
                .and_then(|m| material_names.get(m))
                .map_or("", String::as_str);
            if s.name != mat_name {
                out.lose(
                    Feature::Names,
                    LossKind::Dropped,
                    format!("surfaces[{si}]"),
                    "M3D has no surface names: surfaces come back named after their material",
                );
            }
            colours_quantized |= s.colors.iter().any(|c| !rgba_exact(*c));
            let mut used = vec![false; s.positions.len()];
            for &i in &s.indices {
                if let Some(u) = used.get_mut(i as usize) {
                    *u = true;
                }
            }
            if used.contains(&false) {
                out.lose(
                    Feature::Geometry,
                    LossKind::Reduced,
                    format!("surfaces[{si}]"),
                    "vertices no triangle uses are written but not read back",
                );
            }
            let mat = s
                .material
                .and_then(|m| materials.get(m))
                .and_then(|c| match &c.body {
                    Body::Mtrl(m) => Some(m.name),
                    _ => None,
                });
            records.push(MeshRecord::UseMaterial(mat.unwrap_or(Str(0))));
            if !s.tangents.is_empty() {
                out.lose(
                    Feature::Tangents,
                    LossKind::Dropped,
                    format!("surfaces[{si}]"),
                    "M3D has no tangents",
                );
            }
            if !s.uv1.is_empty() {
                out.lose(
                    Feature::Uv1,
                    LossKind::Dropped,
                    format!("surfaces[{si}]"),
                    "M3D has one UV set",
                );
            }
            if !s.morph_targets.is_empty() {
                out.lose(
                    Feature::MorphTargets,
                    LossKind::Dropped,
                    format!("surfaces[{si}]"),
                    "M3D has no morph targets",
                );
            }
            // A vertex per position and per normal, a TMAP entry per UV, a record per
            // triangle.
            b.charge_items::<Vertex>(
                "vertices",
                s.positions.len().saturating_add(s.normals.len()),
            )?;
            b.charge_items::<[Coord; 2]>("texture coordinates", s.uv0.len())?;
            b.charge_items::<MeshRecord>("mesh records", s.triangle_count().saturating_add(1))?;
            let base = vertices.len();
            for (i, p) in s.positions.iter().enumerate() {
                // Colour 0 is "no colour" to the reader (as in real files).
                let color = s.colors.get(i).map_or(0, |c| vec4_to_rgba(*c));
                let skin = match s.skin.get(i) {
                    Some(inf) if inf.count() > 0 => {
                        let (sk, error) = skin_of(inf);
                        skin_error = skin_error.max(error);
                        let n = skins.len();
                        let id = match skin_ids.get(&sk) {
                            Some(id) => *id,
                            None => {
                                // The list's copy and the map's.
                                b.charge(
                                    "skins",
                                    2 * (std::mem::size_of::<Skin>() + 8 + 4 * sk.bones.len())
                                        as u64
                                        + 16,
                                )?;
                                skin_ids.insert(sk.clone(), n);
                                skins.push(sk);
                                n
                            }
                        };
                        idx(id)?
                    }
                    _ => Idx::UNDEF,
                };
                let q = *p / scale;
                vertices.push(Vertex {
                    coords: f32s([q.x, q.y, q.z, 1.0]),
                    color,
                    skin,
                });
            }
            let nbase = vertices.len();
            for n in &s.normals {
                vertices.push(Vertex {
                    coords: f32s([n.x, n.y, n.z, 0.0]),
                    color: 0,
                    skin: Idx::UNDEF,
                });
            }
            let tbase = tmap.len();
            for uv in &s.uv0 {
                tmap.push([Coord::F32(uv.x), Coord::F32(uv.y)]);
            }
            let has_n = s.normals.len() == s.positions.len();
            let has_uv = s.uv0.len() == s.positions.len();
            let flags = u8::from(has_uv) | (u8::from(has_n) << 1);
            for t in s.triangles() {
                let mut corners = Vec::with_capacity(3);
                for v in t {
                    let v = v as usize;
                    corners.push(Corner {
                        vertex: idx(base + v)?,
                        uv: if has_uv { idx(tbase + v)? } else { Idx::UNDEF },
                        normal: if has_n { idx(nbase + v)? } else { Idx::UNDEF },
                        max: Idx::UNDEF,
                    });
                }
                records.push(MeshRecord::Polygon {
                    flags,
                    corners: corners.into(),
                });
            }
        }
        if colours_quantized {
            out.lose(
                Feature::Colors,
                LossKind::Quantized {
                    // Half a step, plus f32 noise in the decoder's division.
                    max_error: 0.5 / 255.0 + f32::EPSILON,
                },
                "",
                "vertex colours are stored as 8-bit RGBA",
            );
        }
        if skin_error > 0.0 {
            out.lose(
                Feature::Skin,
                LossKind::Quantized {
                    max_error: skin_error,
                },
                "",
                "skin weights are stored as bytes summing to 255 (the worst difference made)",
            );
        }

        // Bones: a position vertex and an orientation (quaternion, skin -2) vertex each.
        let bone_vertex = |vertices: &mut Vec<Vertex>, t: Vec3, r: Quat| -> Result<(Idx, Idx)> {
            let p = t / scale;
            vertices.push(Vertex {
                coords: f32s([p.x, p.y, p.z, 1.0]),
                color: 0,
                skin: Idx::UNDEF,
            });
            vertices.push(Vertex {
                coords: f32s([r.x, r.y, r.z, r.w]),
                color: 0,
                skin: Idx::MAX,
            });
            Ok((idx(vertices.len() - 2)?, idx(vertices.len() - 1)?))
        };
        b.charge(
            "bones",
            (model.skeleton.bones.len() as u64).saturating_mul(
                2 * std::mem::size_of::<Vertex>() as u64 + std::mem::size_of::<Bone>() as u64,
            ),
        )?;
        let mut bones = Vec::new();
        for (i, b) in model.skeleton.bones.iter().enumerate() {
            if (b.rest.scale - Vec3::ONE).abs().max_element() > 1e-6 {
                out.lose(
                    Feature::Skeleton,
                    LossKind::Dropped,
                    format!("skeleton.bones[{i}]"),
                    "M3D bones have no scale",
                );
            }
            let (pos, ori) = bone_vertex(&mut vertices, b.rest.translation, b.rest.rotation)?;
            let parent = match b.parent {
                Some(p) if p < i => idx(p)?,
                Some(_) => {
                    return Err(invalid(format!("bone {i}: its parent must come before it")));
                }
                None => Idx::UNDEF,
            };
            bones.push(Bone {
                parent,
                name: strings.add(&b.name)?,
                pos,
                ori,
            });
        }
        let mut actions = Vec::new();
        for (ci, clip) in model.animations.iter().enumerate() {
            // Frames at whole milliseconds, each holding the values at the key it stands
            // for (not at the rounded time: a key keeps its value, only its time moves).
            let nkeys = clip.channels.iter().fold(0usize, |n, c| {
                n.saturating_add(c.translation.times.len())
                    .saturating_add(c.rotation.times.len())
            });
            b.charge_items::<(u32, f32)>("animation keys", nkeys)?;
            let mut keys: Vec<(u32, f32)> = clip
                .channels
                .iter()
                .flat_map(|c| c.translation.times.iter().chain(&c.rotation.times))
                .map(|t| ((t.max(0.0) * 1000.0).round() as u32, *t))
                .collect();
            keys.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            keys.dedup_by_key(|k| k.0);
            if keys
                .iter()
                .any(|(ms, t)| (*ms as f32 / 1000.0 - t).abs() > 1e-6)
            {
                out.lose(
                    Feature::Animation,
                    LossKind::Reduced,
                    format!("animations[{ci}]"),
                    "key times rounded to whole milliseconds (up to 0.5 ms off)",
                );
            }
            if clip.channels.iter().any(|c| !c.scale.is_empty()) {
                out.lose(
                    Feature::Animation,
                    LossKind::Dropped,
                    format!("animations[{ci}]"),
                    "M3D actions have no scale keys",
                );
            }
            // Every frame samples every channel: frames (the distinct key times of all
            // channels) x channels, quadratic when the channels' times do not meet. The
            // frame limit is checked and the frames charged before any is built.
            if keys.len() > usize::from(u16::MAX) {
                return Err(invalid(format!("animation {ci}: more than 65535 frames")));
            }
            let sampled = clip
                .channels
                .iter()
                .filter(|c| c.bone < model.skeleton.bones.len())
                .count();
            let per_key = 2 * std::mem::size_of::<Vertex>() + std::mem::size_of::<Transform>();
            b.charge(
                "action frames",
                (keys.len() as u64).saturating_mul(
                    (sampled as u64).saturating_mul(per_key as u64)
                        + std::mem::size_of::<Frame>() as u64,
                ),
            )?;
            let mut frames = Vec::with_capacity(keys.len());
            for &(ms, t) in &keys {
                let mut transforms = Vec::new();
                for c in &clip.channels {
                    let Some(rest) = model.skeleton.bones.get(c.bone) else {
                        continue;
                    };
                    let tr = c.translation.sample(t).unwrap_or(rest.rest.translation);
                    let ro = c.rotation.sample(t).unwrap_or(rest.rest.rotation);
                    let (pos, ori) = bone_vertex(&mut vertices, tr, ro)?;
                    transforms.push(Transform {
                        bone: idx(c.bone)?,
                        pos,
                        ori,
                    });
                }
                frames.push(Frame {
                    msec: ms,
                    transforms,
                });
            }
            let duration_msec = keys.last().map_or(0, |k| k.0);
            actions.push(Chunk {
                body: Body::Actn(Action {
                    name: strings.add(&clip.name)?,
                    duration_msec,
                    frames,
                }),
                tail: Vec::new(),
            });
        }

        let chunk = |body| Chunk {
            body,
            tail: Vec::new(),
        };
        let f = &mut out.value;
        f.compressed = opts.compress;
        f.scale = scale;
        f.types = Types(types);
        if !tmap.is_empty() {
            f.chunks.push(chunk(Body::Tmap(Records {
                items: tmap,
                tail: Vec::new(),
            })));
        }
        f.chunks.push(chunk(Body::Vrts(Records {
            items: vertices,
            tail: Vec::new(),
        })));
        if !bones.is_empty() || !skins.is_empty() {
            f.chunks.push(chunk(Body::Bone(Skeleton { bones, skins })));
        }
        f.chunks.extend(materials);
        if !records.is_empty() {
            f.chunks.push(chunk(Body::Mesh(Mesh { records })));
        }
        f.chunks.extend(actions);
        f.chunks.extend(assets);
        f.strings = strings.table;
        narrow_indices(f);
        quantize(&mut out, opts.precision);
        Ok(out)
    }
}

/// A vertex's influences as M3D skin bytes, and the worst difference they make to a
/// weight once read back. The format wants the bytes of a point to sum to 255 and readers
/// (m3d.h, ours) divide by 255 and renormalise, so the weights (normalised) are shared
/// out by largest remainder: each byte is within one step of its share, and the sum is
/// exactly 255 (rounding each alone can miss it by several steps, which renormalising
/// then spreads over every weight). A weight whose share rounds to no byte is not
/// stored (the format keeps no bone for a zero weight).
fn skin_of(inf: &VertexInfluences) -> (Skin, f32) {
    let pairs: Vec<(u32, f32)> = inf.pairs().collect();
    // Negative or non-finite weights count as nothing; all nothing shares equally.
    let usable = |w: f32| {
        if w.is_finite() && w > 0.0 {
            f64::from(w)
        } else {
            0.0
        }
    };
    let total: f64 = pairs.iter().map(|p| usable(p.1)).sum();
    let share = |w: f32| -> f64 {
        if total > 0.0 && total.is_finite() {
            usable(w) / total * 255.0
        } else {
            255.0 / pairs.len() as f64
        }
    };
    let shares: Vec<f64> = pairs.iter().map(|p| share(p.1)).collect();
    let mut bytes: Vec<u8> = shares
        .iter()
        .map(|s| s.floor().clamp(0.0, 255.0) as u8)
        .collect();
    // The steps left go to the largest remainders (ties to the earlier pair).
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| {
        let rem = |i: usize| shares.get(i).copied().unwrap_or(0.0) - bytes_at(&bytes, i);
        rem(b).total_cmp(&rem(a)).then(a.cmp(&b))
    });
    let sum: u32 = bytes.iter().map(|b| u32::from(*b)).sum();
    let left = 255u32.saturating_sub(sum) as usize;
    for &i in order.iter().cycle().take(left) {
        if let Some(b) = bytes.get_mut(i) {
            *b = b.saturating_add(1);
        }
    }
    let mut weights = vec![0u8; 8];
    let mut bones = Vec::new();
    for ((j, _), b) in pairs.iter().zip(&bytes).filter(|(_, b)| **b != 0) {
        if let Some(slot) = weights.get_mut(bones.len()) {
            *slot = *b;
            bones.push(Idx(*j));
        }
    }
    // What the reader makes of them (convert.rs): byte / 255, renormalised.
    let mut back = VertexInfluences::from_pairs_strongest(
        bones
            .iter()
            .zip(weights.iter().filter(|w| **w != 0))
            .map(|(b, w)| (b.0, f32::from(*w) / 255.0)),
    );
    back.normalize();
    // Compared joint by joint, a joint missing on one side weighing 0.
    let weight_of =
        |v: &[(u32, f32)], j: u32| -> f32 { v.iter().filter(|p| p.0 == j).map(|p| p.1).sum() };
    let read: Vec<(u32, f32)> = back.pairs().collect();
    let kept = pairs.iter().map(|&(j, w)| (w - weight_of(&read, j)).abs());
    let added = read
        .iter()
        .filter(|r| !pairs.iter().any(|p| p.0 == r.0))
        .map(|&(j, _)| weight_of(&read, j));
    let error = kept.chain(added).fold(0.0f32, f32::max);
    (Skin { weights, bones }, error)
}

fn bytes_at(bytes: &[u8], i: usize) -> f64 {
    bytes.get(i).map_or(0.0, |b| f64::from(*b))
}

/// Index fields as narrow as the counts allow, as real files have them: 1 byte up to 254
/// entries (255 and 254 are m3d.h's -1 and -2), 2 bytes up to 65,534, else 4.
fn narrow_indices(f: &mut File) {
    let width = |count: usize| -> u32 {
        match count {
            0..=254 => 0,
            255..=65534 => 1,
            _ => 2,
        }
    };
    let (mut tmap, mut vertices, mut bones, mut skins, mut per_frame) = (0, 0, 0, 0, 0);
    for c in &f.chunks {
        match &c.body {
            Body::Tmap(t) => tmap = t.items.len(),
            Body::Vrts(v) => vertices = v.items.len(),
            Body::Bone(s) => (bones, skins) = (s.bones.len(), s.skins.len()),
            Body::Actn(a) => {
                per_frame = a
                    .frames
                    .iter()
                    .map(|fr| fr.transforms.len())
                    .fold(per_frame, usize::max);
            }
            _ => {}
        }
    }
    let mut t = f.types.0;
    let mut set = |shift: u32, code: u32| {
        // Absent fields (3) stay absent.
        if (t >> shift) & 3 != 3 {
            t = (t & !(3 << shift)) | (code << shift);
        }
    };
    set(2, width(vertices));
    set(4, width(f.strings.len()));
    set(8, width(tmap));
    set(10, width(bones));
    set(14, width(skins));
    set(16, width(per_frame));
    f.types = Types(t);
}

/// Stores every coordinate at `precision`, reporting the error that costs.
fn quantize(out: &mut Converted<File>, precision: Precision) {
    let (code, steps) = match precision {
        Precision::Int8 => (0u32, 127.0f64),
        Precision::Int16 => (1, 32767.0),
        Precision::Float => return,
        Precision::Double => (3, 0.0),
    };
    let f = &mut out.value;
    f.types = Types((f.types.0 & !3) | code);
    let signed = |c: &mut Coord| {
        let v = c.signed();
        *c = match precision {
            Precision::Int8 => Coord::I8((v * 127.0).round().clamp(-127.0, 127.0) as i8),
            Precision::Int16 => Coord::I16((v * 32767.0).round().clamp(-32767.0, 32767.0) as i16),
            _ => Coord::F64(v),
        };
    };
    let mut uv_clamped = false;
    let mut unsigned = |c: &mut Coord| {
        let v = c.unsigned();
        uv_clamped |= !(0.0..=1.0).contains(&v) && precision != Precision::Double;
        *c = match precision {
            Precision::Int8 => Coord::I8((v * 255.0).round().clamp(0.0, 255.0) as u8 as i8),
            Precision::Int16 => Coord::I16((v * 65535.0).round().clamp(0.0, 65535.0) as u16 as i16),
            _ => Coord::F64(v),
        };
    };
    let mut any_uv = false;
    for c in &mut f.chunks {
        match &mut c.body {
            Body::Vrts(v) => v
                .items
                .iter_mut()
                .flat_map(|v| &mut v.coords)
                .for_each(&signed),
            Body::Tmap(t) => {
                any_uv = true;
                t.items.iter_mut().flatten().for_each(&mut unsigned);
            }
            _ => {}
        }
    }
    if steps == 0.0 {
        return;
    }
    let scale = f64::from(f.effective_scale());
    let step = 0.5 / steps;
    let what = if code == 0 { "int8" } else { "int16" };
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
        let uv_step = 0.5 / if code == 0 { 255.0 } else { 65535.0 };
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
