//! [`Model3d::to_core`]: the faithful chunks as a meshfmt-core model.
//!
//! - One surface per run of faces under the same material (MESH "use material"
//!   records), corners deduplicated by their (vertex, UV, normal) triple.
//! - Positions are the stored normalized coordinates times the HEAD scale (m3d.h leaves
//!   the multiplication to its callers); the frame is +Y up, right-handed, meters.
//! - Colours: CMAP entries or literal RGBA, R in the low byte, as 0..1.
//! - UVs: TMAP as stored (V down, meshfmt-core's convention).
//! - Bones: the pos vertex (times the scale) and the ori quaternion, normalized (int8
//!   quaternions are about 1% off unit); skins as (bone, byte / 255) pairs, normalized.
//! - Actions: one clip each; every bone an action touches gets a key at every frame
//!   (frames list only the bones that changed).
//! - Polygons with more than three points are fan-triangulated; shapes, voxels, labels,
//!   procedural scripts and unknown chunks have no meshfmt-core counterpart and are
//!   reported as losses.

use std::collections::HashMap;

use meshfmt_core::glam::{Quat, Vec2, Vec3, Vec4};
use meshfmt_core::{
    Bone, Channel, Clip, Converted, CoordinateSystem, Feature, LossKind, Material, Model, Surface,
    Texture, TextureBinding, TextureRole, TextureSource, Track, Transform, VertexInfluences,
};

use crate::Model3d;
use crate::chunks::{MeshRecord, PropValue};
use crate::error::{Error, Result};

/// A texture as m3d.h resolves it: an inlined asset (ASET) of the same name, decoded
/// from PNG when the `png` feature is on, else a file name (with ".png" added when the
/// name has no three-letter extension, as m3d.h asks its file callback).
fn texture_source(c: &crate::Chunks, name: &str) -> TextureSource {
    let inlined = c
        .assets
        .iter()
        .find(|(n, _)| c.head.string(*n) == Some(name))
        .map(|(_, data)| data.as_slice());
    #[cfg(feature = "png")]
    if let Some(img) = inlined.and_then(decode_png) {
        return TextureSource::Embedded(img);
    }
    let _ = inlined;
    let has_ext = name.len() > 4 && name.as_bytes()[name.len() - 4] == b'.';
    TextureSource::Path(if has_ext {
        name.to_string()
    } else {
        format!("{name}.png")
    })
}

/// An 8-bit PNG as RGBA, within 64 MiB of pixels; `None` for anything else.
#[cfg(feature = "png")]
fn decode_png(bytes: &[u8]) -> Option<meshfmt_core::RgbaImage> {
    let mut d =
        png::Decoder::new_with_limits(std::io::Cursor::new(bytes), png::Limits { bytes: 64 << 20 });
    d.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut r = d.read_info().ok()?;
    let mut buf = vec![0; r.output_buffer_size()?];
    let info = r.next_frame(&mut buf).ok()?;
    let px = buf.get(..info.buffer_size())?;
    let pixels = match info.color_type {
        png::ColorType::Rgba => px.to_vec(),
        png::ColorType::Rgb => px
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => px
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Grayscale => px.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => return None,
    };
    Some(meshfmt_core::RgbaImage {
        width: info.width,
        height: info.height,
        pixels,
    })
}

/// How many ASET chunks became embedded textures.
fn used_assets(model: &Model, c: &crate::Chunks) -> usize {
    c.assets
        .iter()
        .filter(|(n, _)| {
            model.textures.iter().any(|t| {
                matches!(t.source, TextureSource::Embedded(_))
                    && c.head.string(*n) == Some(t.name.as_str())
            })
        })
        .count()
}

/// Corner (vertex, UV, normal) -> the surface vertex made for it.
type CornerMap = HashMap<[i32; 3], u32>;

/// A unit quaternion (identity for a zero or non-finite one).
fn unit(q: Quat) -> Quat {
    if q.is_finite() && q.length_squared() > 1e-12 {
        q.normalize()
    } else {
        Quat::IDENTITY
    }
}

fn bad(message: String) -> Error {
    Error::Unsupported(format!("invalid model: {message}"))
}

impl Model3d {
    /// The model in meshfmt-core, with what it could not carry.
    pub fn to_core(&self) -> Result<Converted<Model>> {
        let c = &self.chunks;
        let h = &c.head;
        let t = h.types;
        let scale = if h.scale > 0.0 && h.scale.is_finite() {
            h.scale
        } else {
            1.0
        };
        let mut out = Converted::exact(Model {
            name: h.titles()[0].to_string(),
            coordinate_system: CoordinateSystem::GLTF,
            ..Default::default()
        });
        let vertex = |i: i32, what: &str| -> Result<&crate::chunks::Vertex> {
            usize::try_from(i)
                .ok()
                .and_then(|i| c.vertices.get(i))
                .ok_or_else(|| {
                    bad(format!(
                        "{what} index {i} out of range ({} vertices)",
                        c.vertices.len()
                    ))
                })
        };
        let colour = |v: u32| -> Vec4 {
            let rgba = if t.ci.bytes() == 4 {
                v
            } else {
                c.cmap.get(v as usize).copied().unwrap_or(0)
            };
            let b = rgba.to_le_bytes();
            Vec4::new(b[0] as f32, b[1] as f32, b[2] as f32, b[3] as f32) / 255.0
        };

        // Materials and textures.
        let mut material_index: HashMap<u32, usize> = HashMap::new();
        let mut texture_index: HashMap<u32, usize> = HashMap::new();
        for m in &c.materials {
            let mut mat = Material {
                name: h.string(m.name).unwrap_or_default().to_string(),
                metallic: 0.0,
                ..Default::default()
            };
            for &(kind, value) in &m.props {
                match (kind, value) {
                    (0, PropValue::Colour(v)) => {
                        let col = colour(v);
                        mat.base_color = Vec4::new(col.x, col.y, col.z, mat.base_color.w);
                    }
                    (4, PropValue::Colour(v)) => mat.emissive = colour(v).truncate(),
                    (7, PropValue::Float(d)) => mat.base_color.w = d,
                    (64, PropValue::Float(r)) => mat.roughness = r,
                    (65, PropValue::Float(m)) => mat.metallic = m,
                    // m3d.h drops maps whose name is empty (CesiumMan has one).
                    (128..=255, PropValue::Map(name))
                        if h.string(name).unwrap_or("").is_empty() => {}
                    (kind @ (128 | 132 | 134 | 136), PropValue::Map(name)) => {
                        let role = match kind {
                            128 => TextureRole::BaseColor,
                            132 => TextureRole::Emissive,
                            _ => TextureRole::Normal,
                        };
                        let next = out.value.textures.len();
                        let texture = *texture_index.entry(name).or_insert(next);
                        if texture == next {
                            let tex_name = h.string(name).unwrap_or_default().to_string();
                            out.value.textures.push(Texture {
                                source: texture_source(c, &tex_name),
                                name: tex_name,
                            });
                        }
                        mat.textures.push(TextureBinding {
                            role,
                            texture,
                            uv_set: 0,
                        });
                    }
                    _ => {}
                }
            }
            material_index.insert(m.name, out.value.materials.len());
            out.value.materials.push(mat);
        }

        // Skeleton.
        for (i, b) in c.bones.iter().enumerate() {
            let pos = vertex(b.pos, "bone position")?.xyzw;
            let ori = vertex(b.ori, "bone orientation")?.xyzw;
            let q = Quat::from_xyzw(ori[0] as f32, ori[1] as f32, ori[2] as f32, ori[3] as f32);
            let parent = usize::try_from(b.parent).ok();
            if parent.is_some_and(|p| p >= i) {
                return Err(bad(format!(
                    "bone {i}'s parent {} does not come before it",
                    b.parent
                )));
            }
            out.value.skeleton.bones.push(Bone {
                name: h.string(b.name).unwrap_or_default().to_string(),
                parent,
                rest: Transform {
                    translation: Vec3::new(pos[0] as f32, pos[1] as f32, pos[2] as f32) * scale,
                    rotation: unit(q),
                    scale: Vec3::ONE,
                },
                inverse_bind: None,
            });
        }
        let nbones = c.bones.len();
        let influences = |skin: i32| -> Result<Option<VertexInfluences>> {
            let Ok(s) = usize::try_from(skin) else {
                return Ok(None);
            };
            let sk = c
                .skins
                .get(s)
                .ok_or_else(|| bad(format!("skin {skin} out of range")))?;
            let mut pairs = Vec::with_capacity(sk.bones.len());
            if sk.weights.is_empty() {
                pairs.extend(sk.bones.iter().map(|&b| (b, 1.0)));
            } else {
                let nonzero = sk.weights.iter().filter(|&&w| w != 0);
                pairs.extend(
                    sk.bones
                        .iter()
                        .zip(nonzero)
                        .map(|(&b, &w)| (b, f32::from(w) / 255.0)),
                );
            }
            let mut pairs2 = Vec::with_capacity(pairs.len());
            for (b, w) in pairs {
                let b = usize::try_from(b)
                    .ok()
                    .filter(|&b| b < nbones)
                    .ok_or_else(|| bad(format!("skin {skin} names bone {b} of {nbones}")))?;
                pairs2.push((b as u32, w));
            }
            let mut inf = VertexInfluences::from_pairs_strongest(pairs2);
            inf.normalize();
            Ok(Some(inf))
        };

        // Surfaces, one per material run.
        let mut material: Option<usize> = None;
        let mut surfaces: Vec<(Option<usize>, Surface, CornerMap)> = Vec::new();
        let (mut has_uv, mut has_normal) = (false, false);
        let mut fans = 0usize;
        for rec in c.meshes.iter().flatten() {
            match rec {
                MeshRecord::UseMaterial(name) => {
                    material = if *name == 0 {
                        None
                    } else {
                        material_index.get(name).copied()
                    };
                    continue;
                }
                MeshRecord::UseParameter { .. } => continue,
                MeshRecord::Polygon { corners, .. } => {
                    if corners.len() < 3 {
                        out.lose(
                            Feature::Geometry,
                            LossKind::Dropped,
                            String::new(),
                            "points and lines are not imported",
                        );
                        continue;
                    }
                    if corners.len() > 3 {
                        fans += 1;
                    }
                    if surfaces.last().is_none_or(|s| s.0 != material) {
                        let name = material
                            .and_then(|m| out.value.materials.get(m))
                            .map_or_else(|| format!("mesh{}", surfaces.len()), |m| m.name.clone());
                        surfaces.push((
                            material,
                            Surface {
                                name,
                                material,
                                ..Default::default()
                            },
                            HashMap::new(),
                        ));
                    }
                    let Some((_, s, map)) = surfaces.last_mut() else {
                        continue;
                    };
                    let mut ids = Vec::with_capacity(corners.len());
                    for &[v, uv, n, _] in corners {
                        let key = [v, uv, n];
                        let next = s.positions.len() as u32;
                        let id = *map.entry(key).or_insert(next);
                        if id == next {
                            let vx = vertex(v, "face vertex")?;
                            let p = vx.xyzw;
                            s.positions
                                .push(Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32) * scale);
                            let tex = usize::try_from(uv).ok().and_then(|i| c.tmap.get(i));
                            if uv >= 0 && tex.is_none() {
                                return Err(bad(format!(
                                    "texture index {uv} out of range ({} entries)",
                                    c.tmap.len()
                                )));
                            }
                            s.uv0.push(
                                tex.map_or(Vec2::ZERO, |t| Vec2::new(t[0] as f32, t[1] as f32)),
                            );
                            has_uv |= tex.is_some();
                            let normal = if n >= 0 {
                                let q = vertex(n, "normal")?.xyzw;
                                has_normal = true;
                                Vec3::new(q[0] as f32, q[1] as f32, q[2] as f32).normalize_or_zero()
                            } else {
                                Vec3::ZERO
                            };
                            s.normals.push(normal);
                            if !t.ci.is_absent() {
                                s.colors.push(colour(vx.colour));
                            }
                            if let Some(inf) = influences(vx.skin)? {
                                s.skin.push(inf);
                            } else if nbones > 0 {
                                s.skin.push(VertexInfluences::default());
                            }
                        }
                        ids.push(id);
                    }
                    for k in 1..ids.len() - 1 {
                        s.indices.extend([ids[0], ids[k], ids[k + 1]]);
                    }
                }
            }
        }
        if fans > 0 {
            out.lose(
                Feature::Geometry,
                LossKind::Reduced,
                String::new(),
                format!("{fans} polygons of more than 3 points fan-triangulated"),
            );
        }
        for (_, mut s, _) in surfaces {
            if !has_uv {
                s.uv0.clear();
            }
            if !has_normal {
                s.normals.clear();
            }
            // Colour 0 (transparent black) is what vertices without a colour hold;
            // a surface whose every vertex has it has no vertex colours.
            if s.colors.iter().all(|c| *c == Vec4::ZERO) {
                s.colors.clear();
            }
            if s.skin.iter().all(|i| i.count() == 0) {
                s.skin.clear();
            }
            out.value.surfaces.push(s);
        }

        // Actions.
        for (a, act) in c.actions.iter().enumerate() {
            let mut state: Vec<(Vec3, Quat)> = out
                .value
                .skeleton
                .bones
                .iter()
                .map(|b| (b.rest.translation, b.rest.rotation))
                .collect();
            let mut touched = vec![false; nbones];
            for f in &act.frames {
                for tr in &f.transforms {
                    if let Some(x) = usize::try_from(tr.bone)
                        .ok()
                        .and_then(|b| touched.get_mut(b))
                    {
                        *x = true;
                    }
                }
            }
            let mut channels: Vec<Channel> = (0..nbones)
                .filter(|&b| touched[b])
                .map(|bone| Channel {
                    bone,
                    translation: Track::default(),
                    rotation: Track::default(),
                    scale: Track::default(),
                })
                .collect();
            for f in &act.frames {
                for tr in &f.transforms {
                    let b = usize::try_from(tr.bone)
                        .ok()
                        .filter(|&b| b < nbones)
                        .ok_or_else(|| bad(format!("action {a}: bone {} out of range", tr.bone)))?;
                    let p = vertex(tr.pos, "frame position")?.xyzw;
                    let q = vertex(tr.ori, "frame orientation")?.xyzw;
                    state[b] = (
                        Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32) * scale,
                        unit(Quat::from_xyzw(
                            q[0] as f32,
                            q[1] as f32,
                            q[2] as f32,
                            q[3] as f32,
                        )),
                    );
                }
                let time = f.msec as f32 / 1000.0;
                for ch in &mut channels {
                    // Frames are in time order in real files; a key at or before the
                    // last one replaces nothing and is skipped.
                    if ch.translation.times.last().is_some_and(|&l| time <= l) {
                        continue;
                    }
                    let (p, q) = state[ch.bone];
                    ch.translation.times.push(time);
                    ch.translation.values.push(p);
                    ch.rotation.times.push(time);
                    ch.rotation.values.push(q);
                }
            }
            out.value.animations.push(Clip {
                name: h.string(act.name).unwrap_or_default().to_string(),
                channels,
            });
        }

        let drops: [(&str, usize, Feature); 6] = [
            (
                "parametric shapes (SHPE)",
                c.shapes.len(),
                Feature::Geometry,
            ),
            (
                "voxel blocks (VOXD; not meshed here)",
                c.voxel_blocks.len(),
                Feature::Geometry,
            ),
            ("label groups (LBLS)", c.labels.len(), Feature::Names),
            (
                "inlined assets (ASET) other than decoded textures",
                c.assets.len() - used_assets(&out.value, c),
                Feature::Textures,
            ),
            (
                "procedural and unknown chunks",
                c.extras.len(),
                Feature::Geometry,
            ),
            (
                "parameter switches in MESH",
                c.meshes
                    .iter()
                    .flatten()
                    .filter(|r| matches!(r, MeshRecord::UseParameter { .. }))
                    .count(),
                Feature::Materials,
            ),
        ];
        for (what, n, feature) in drops {
            if n > 0 {
                out.lose(
                    feature,
                    LossKind::Dropped,
                    String::new(),
                    format!("{n} {what}: no meshfmt-core counterpart"),
                );
            }
        }
        Ok(out)
    }
}
