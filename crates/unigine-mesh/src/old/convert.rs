//! mi08/ms08 (UNIGINE 1.x) to and from meshfmt-core.

use meshfmt_core::bone_tracks::BoneTracks;
use meshfmt_core::glam::{Quat, Vec2, Vec3};
use meshfmt_core::{
    Budget, Channel, Clip, Converted, Feature, LossKind, MAX_INFLUENCES, Model, Skeleton,
    Surface as CoreSurface, Transform, VertexInfluences,
};
use parsing_primitives::RawString;
use unigine_common::skeleton::{bone1x_list, skeleton_from};

use crate::common::Bounds;
use crate::convert::{
    COORDINATE_SYSTEM, DEFAULT_FPS, TRACK_KEY_BYTES, charge_skeleton, generated_normals, model,
    non_utf8_names, report_common_losses, text,
};
use crate::error::{Result, invalid};
use crate::old;
use crate::old::{
    BoneFrame, Mi08, Mi08Surface, Ms08, Ms08Surface, Ms08Weight, compress_normal, decompress_normal,
};

fn old_surface_to_core(
    name: &RawString,
    positions: &[[f32; 3]],
    normals: &[[u16; 3]],
    uv0: &[[f32; 2]],
    uv1: &[[f32; 2]],
    triangles: &[[u32; 3]],
    budget: &Budget,
) -> Result<CoreSurface> {
    let per_vertex = 2 * 12 + 8 * (u64::from(!uv0.is_empty()) + u64::from(!uv1.is_empty()));
    budget.charge(
        "converted surfaces",
        (positions.len() as u64)
            .saturating_mul(per_vertex)
            .saturating_add((triangles.len() as u64).saturating_mul(12)),
    )?;
    Ok(CoreSurface {
        name: text(name),
        positions: positions.iter().map(|p| Vec3::from_array(*p)).collect(),
        normals: normals
            .iter()
            .map(|n| Vec3::from_array(n.map(decompress_normal)).normalize_or_zero())
            .collect(),
        uv0: uv0.iter().map(|u| Vec2::from_array(*u)).collect(),
        uv1: uv1.iter().map(|u| Vec2::from_array(*u)).collect(),
        indices: triangles.iter().flatten().copied().collect(),
        ..CoreSurface::default()
    })
}

/// Common per-surface part of the old formats: positions, compressed normals, UVs,
/// triangles.
struct OldGeometry {
    positions: Vec<[f32; 3]>,
    normals: Vec<[u16; 3]>,
    uv0: Vec<[f32; 2]>,
    uv1: Vec<[f32; 2]>,
    triangles: Vec<[u32; 3]>,
}

fn old_geometry(
    index: usize,
    s: &CoreSurface,
    out: &mut Converted<()>,
    budget: &Budget,
) -> Result<OldGeometry> {
    let n = s.positions.len();
    if s.indices.len() % 3 != 0 || s.indices.iter().any(|&i| i as usize >= n) {
        return Err(invalid(format!(
            "surface {index} '{}': indices must be whole triangles within {n} vertices",
            s.name
        )));
    }
    let path = format!("surfaces[{index}]");
    // Normals (given or generated) and their compressed copy, positions, UVs and
    // triangles.
    budget.charge(
        if s.normals.len() == n {
            "normals"
        } else {
            "generated normals"
        },
        (n as u64).saturating_mul(12 + 6 + 12 + 16),
    )?;
    budget.charge("triangles", (s.indices.len() as u64).saturating_mul(4))?;
    let normals = if s.normals.len() == n {
        s.normals.clone()
    } else {
        generated_normals(s)
    };
    out.drop_present_at(
        &path,
        [
            (
                !s.tangents.is_empty(),
                Feature::Tangents,
                "UNIGINE 1.x meshes store no tangents",
            ),
            (
                !s.colors.is_empty(),
                Feature::Colors,
                "UNIGINE 1.x meshes store no colors",
            ),
            (
                !s.morph_targets.is_empty(),
                Feature::MorphTargets,
                "UNIGINE 1.x meshes have no morph targets",
            ),
        ],
    );
    let compressed: Vec<[u16; 3]> = normals
        .iter()
        .map(|v| v.to_array().map(compress_normal))
        .collect();
    if s.normals.len() == n {
        // Measured: truncation is below 2/65535 per component; renormalizing on read
        // moves components a little more.
        let e = compressed
            .iter()
            .zip(&normals)
            .map(|(c, v)| {
                (Vec3::from_array(c.map(decompress_normal)).normalize_or_zero() - *v)
                    .abs()
                    .max_element()
            })
            .fold(0.0, f32::max);
        out.lose(
            Feature::Normals,
            LossKind::Quantized {
                max_error: e.max(old::NORMAL_MAX_ERROR),
            },
            path,
            "normals compressed to u16 (truncated)",
        );
    }
    Ok(OldGeometry {
        positions: s.positions.iter().map(|p| p.to_array()).collect(),
        normals: compressed,
        uv0: if s.uv0.len() == n {
            s.uv0.iter().map(|u| u.to_array()).collect()
        } else {
            Vec::new()
        },
        uv1: if s.uv1.len() == n {
            s.uv1.iter().map(|u| u.to_array()).collect()
        } else {
            Vec::new()
        },
        triangles: s
            .indices
            .chunks_exact(3)
            .map(|t| [t[0], t[1], t[2]])
            .collect(),
    })
}

impl Mi08 {
    /// The file as a meshfmt-core model. Normals are decompressed and renormalized.
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_in(&Budget::default())
    }

    /// [`Mi08::to_core`], charging the model it builds to `budget`.
    pub(crate) fn to_core_in(&self, budget: &Budget) -> Result<Converted<Model>> {
        let mut out = Converted::exact(());
        non_utf8_names(self.surfaces.iter().map(|s| &s.name), &mut out);
        let surfaces = self
            .surfaces
            .iter()
            .map(|s| {
                old_surface_to_core(
                    &s.name,
                    &s.positions,
                    &s.normals,
                    &s.uv0,
                    &s.uv1,
                    &s.triangles,
                    budget,
                )
            })
            .collect::<Result<_>>()?;
        Ok(out.map(|()| model(surfaces, Skeleton::default(), Vec::new())))
    }

    /// Encodes a meshfmt-core model as mi08 (static geometry only).
    pub fn from_core(model: &Model) -> Result<Converted<Mi08>> {
        Mi08::from_core_in(model, &Budget::default())
    }

    /// [`Mi08::from_core`], charging what it builds to `budget`.
    pub(crate) fn from_core_in(model: &Model, budget: &Budget) -> Result<Converted<Mi08>> {
        let m = model.in_system(COORDINATE_SYSTEM, budget)?;
        let mut out = Converted::exact(());
        report_common_losses(&m, &mut out);
        out.drop_present([
            (
                m.surfaces.iter().any(|s| !s.skin.is_empty()),
                Feature::Skin,
                "mi08 is static: no skin",
            ),
            (
                !m.skeleton.is_empty(),
                Feature::Skeleton,
                "mi08 is static: no skeleton",
            ),
            (
                !m.animations.is_empty(),
                Feature::Animation,
                "mi08 is static: no animation",
            ),
        ]);
        let mut surfaces = Vec::new();
        for (i, s) in m.surfaces.iter().enumerate() {
            let g = old_geometry(i, s, &mut out, budget)?;
            surfaces.push(Mi08Surface {
                name: RawString::from(s.name.as_str()),
                bounds: Bounds::of_points(g.positions.iter()),
                positions: g.positions,
                normals: g.normals,
                uv0: g.uv0,
                uv1: g.uv1,
                triangles: g.triangles,
            });
        }
        let bounds = Bounds::of_points(surfaces.iter().flat_map(|s| s.positions.iter()));
        Ok(out.map(|()| Mi08 { bounds, surfaces }))
    }
}

impl Ms08 {
    /// The file as a meshfmt-core model: frame 0 is the bind pose (the bones' rest
    /// transforms); frames 1.. become one clip, [`DEFAULT_FPS`] apart. Weights are /255 and
    /// renormalized.
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_in(&Budget::default())
    }

    /// [`Ms08::to_core`], charging the model it builds to `budget`.
    pub(crate) fn to_core_in(&self, budget: &Budget) -> Result<Converted<Model>> {
        let mut out = Converted::exact(());
        non_utf8_names(
            self.bones
                .iter()
                .map(|b| &b.name)
                .chain(self.surfaces.iter().map(|s| &s.name)),
            &mut out,
        );
        let frame_to = |f: &BoneFrame| Transform {
            translation: Vec3::from_array(f.position),
            rotation: {
                let q = Quat::from_array(f.rotation);
                meshfmt_core::unit_quat_or_identity(q)
            },
            scale: Vec3::splat(f.scale),
        };
        let bind = self.frame(0);
        charge_skeleton(budget, self.bones.iter().map(|b| b.name.as_bytes().len()))?;
        let skeleton = skeleton_from(self.bones.iter().enumerate().map(|(i, b)| {
            let rest = bind.get(i).map(frame_to).unwrap_or_default();
            (&b.name, i64::from(b.parent), rest)
        }));
        let mut animations = Vec::new();
        let nb = self.bones.len();
        // Frames that have transforms (all of them in a file that was read); none
        // without bones, however many frames the header claims.
        let frames = (self.num_frames as usize).min(self.frames.len().checked_div(nb).unwrap_or(0));
        if self.num_frames > 1 {
            // 32 bytes of file per (frame, bone) become a dense key of three tracks.
            budget.charge(
                "animation tracks",
                (frames.saturating_sub(1) as u64)
                    .saturating_mul(nb as u64)
                    .saturating_mul(TRACK_KEY_BYTES),
            )?;
            let channels = (0..nb)
                .map(|b| {
                    let mut c = Channel {
                        bone: b,
                        ..Channel::default()
                    };
                    for f in 1..frames {
                        let Some(t) = self.frame(f).get(b).map(frame_to) else {
                            break;
                        };
                        let time = (f - 1) as f32 / DEFAULT_FPS;
                        c.push_key(time, &t);
                    }
                    c
                })
                .collect();
            animations.push(Clip {
                events: Vec::new(),
                name: "animation".into(),
                channels,
            });
        }
        let surfaces = self
            .surfaces
            .iter()
            .map(|s| {
                let mut cs = old_surface_to_core(
                    &s.name,
                    &s.positions,
                    &s.normals,
                    &s.uv0,
                    &s.uv1,
                    &s.triangles,
                    budget,
                )?;
                budget.charge(
                    "skin weights",
                    (s.positions.len() as u64).saturating_mul(size_of::<VertexInfluences>() as u64),
                )?;
                // One pass with a running offset, not a prefix sum per vertex.
                let empty: &[Ms08Weight] = &[];
                let mut per_vertex = s.weights_per_vertex();
                cs.skin = (0..s.positions.len())
                    .map(|_| {
                        let mut v = VertexInfluences::from_pairs_strongest(
                            per_vertex
                                .next()
                                .unwrap_or(empty)
                                .iter()
                                .map(|w| (u32::from(w.bone), f32::from(w.weight) / 255.0)),
                        );
                        v.normalize();
                        v
                    })
                    .collect();
                Ok(cs)
            })
            .collect::<Result<_>>()?;
        Ok(out.map(|()| model(surfaces, skeleton, animations)))
    }

    /// Encodes a meshfmt-core model as ms08: rest pose as frame 0, the first clip
    /// sampled at [`DEFAULT_FPS`] as frames 1.., weights as u8 summing to 255 (largest remainder);
    /// non-uniform scales as their x.
    pub fn from_core(model: &Model) -> Result<Converted<Ms08>> {
        Ms08::from_core_in(model, &Budget::default())
    }

    /// [`Ms08::from_core`], charging what it builds (a copy of a model in another frame,
    /// resampled frames, geometry) to `budget`.
    pub(crate) fn from_core_in(model: &Model, budget: &Budget) -> Result<Converted<Ms08>> {
        let m = model.in_system(COORDINATE_SYSTEM, budget)?;
        let mut out = Converted::exact(());
        report_common_losses(&m, &mut out);
        let nb = m.skeleton.len();
        if nb > usize::from(u16::MAX) {
            return Err(invalid(format!(
                "{nb} bones exceed the u16 bone index range"
            )));
        }
        let bones = bone1x_list(&m.skeleton);
        let (num_frames, frames) = frames_from_core(&m, &mut out, budget)?;
        let mut surfaces = Vec::new();
        for (i, s) in m.surfaces.iter().enumerate() {
            surfaces.push(surface_from_core(i, s, nb, &mut out, budget)?);
        }
        Ok(out.map(|()| Ms08 {
            bones,
            num_frames,
            frames,
            surfaces,
        }))
    }
}

/// The bind pose (frame 0) and the first clip sampled at [`DEFAULT_FPS`] as ms08 frames
/// (uniform scale: x is stored), with what that loses.
fn frames_from_core(
    m: &Model,
    out: &mut Converted<()>,
    budget: &Budget,
) -> Result<(u32, Vec<BoneFrame>)> {
    let nb = m.skeleton.len();
    // ms08 scales are uniform: x is stored. How far y and z were from it, any
    // difference counted (the reader gives back x on every axis).
    let off_x = |t: &Transform| {
        (t.scale.y - t.scale.x)
            .abs()
            .max((t.scale.z - t.scale.x).abs())
    };
    let to_frame = |t: &Transform| BoneFrame {
        position: t.translation.to_array(),
        scale: t.scale.x,
        rotation: t.rotation.to_array(),
    };
    let non_uniform = m
        .skeleton
        .bones
        .iter()
        .filter(|b| off_x(&b.rest) != 0.0)
        .count();
    // Over the sampled frames of the clip, the worst and how many.
    let (mut animated_off, mut animated_non_uniform) = (0.0f32, 0usize);
    let mut frames: Vec<BoneFrame> = m.skeleton.bones.iter().map(|b| to_frame(&b.rest)).collect();
    let mut num_frames = 1u32;
    if let Some(clip) = m.animations.first() {
        out.note_resampled(clip, 0, DEFAULT_FPS);
        // A transform per bone per frame, and the sampled pose it comes from.
        let per_frame = (nb as u64).saturating_mul(size_of::<BoneFrame>() as u64 + 40);
        let times = clip.frame_times(DEFAULT_FPS, budget, per_frame)?;
        num_frames = u32::try_from(times.len())
            .ok()
            .and_then(|n| n.checked_add(1))
            .ok_or_else(|| invalid(format!("{} frames do not fit a frame count", times.len())))?;
        // Without bones a frame is nothing but a count.
        if nb > 0 {
            let tracks = BoneTracks::of_clip(clip, nb);
            for time in times {
                for (b, t) in m.skeleton.bones.iter().zip(&tracks) {
                    let pose = t.sample(b.rest, time);
                    let off = off_x(&pose);
                    if off != 0.0 {
                        animated_non_uniform += 1;
                        animated_off = animated_off.max(off);
                    }
                    frames.push(to_frame(&pose));
                }
            }
        }
    }
    // The reader names the clip "animation", whatever it was.
    if m.animations.first().is_some_and(|c| c.name != "animation") {
        out.lose(
            Feature::Names,
            LossKind::Dropped,
            "animations[0]",
            "ms08 stores no animation name (it reads back as \"animation\")",
        );
    }
    out.keep_one_clip(m.animations.len(), "ms08");
    out.drop_events(m, "ms08");
    if non_uniform > 0 {
        out.lose(
            Feature::Skeleton,
            LossKind::Reduced,
            "",
            format!(
                "{non_uniform} non-uniform rest scales stored as their x (ms08 scale is uniform)"
            ),
        );
    }
    if animated_non_uniform > 0 {
        out.lose(
            Feature::Animation,
            LossKind::Quantized {
                max_error: animated_off,
            },
            "animations[0]",
            format!(
                "{animated_non_uniform} non-uniform scales in the clip's frames stored as their x (ms08 scale is uniform)"
            ),
        );
    }
    Ok((num_frames, frames))
}

/// A core surface as an ms08 surface: geometry, normals, and weights as bytes.
fn surface_from_core(
    i: usize,
    s: &CoreSurface,
    nb: usize,
    out: &mut Converted<()>,
    budget: &Budget,
) -> Result<Ms08Surface> {
    let g = old_geometry(i, s, out, budget)?;
    let mut weight_counts = Vec::with_capacity(g.positions.len());
    let mut weights = Vec::new();
    let mut skin_err = 0.0f32;
    for v in 0..g.positions.len() {
        let inf = s.skin.get(v).copied().unwrap_or_default();
        let before = weights.len();
        if let Some((j, _)) = inf.pairs().find(|&(j, _)| j as usize >= nb) {
            return Err(invalid(format!(
                "surface {i}: skin joint {j} out of range ({nb} bones)"
            )));
        }
        let bytes = weight_bytes(&inf);
        for ((j, _), b) in inf.pairs().zip(bytes) {
            weights.push(Ms08Weight {
                // Checked against the bone count (at most u16::MAX) above.
                bone: j as u16,
                weight: b,
            });
        }
        skin_err = skin_err.max(weight_error(&inf, &bytes));
        weight_counts.push((weights.len() - before) as u8);
    }
    if !s.skin.is_empty() {
        out.lose(
            Feature::Skin,
            LossKind::Quantized {
                max_error: skin_err,
            },
            format!("surfaces[{i}]"),
            "weights stored as u8 / 255 summing to 255 (largest remainder)",
        );
    }
    Ok(Ms08Surface {
        name: RawString::from(s.name.as_str()),
        positions: g.positions,
        normals: g.normals,
        weight_counts,
        weights,
        uv0: g.uv0,
        uv1: g.uv1,
        triangles: g.triangles,
    })
}

/// A vertex's weights (its [`VertexInfluences::pairs`], in order) as bytes summing to
/// 255 (largest remainder), so a reader that divides by 255 and one that renormalizes
/// (ours) read the same weights, each within 1/255 of the normalized one; all zero when
/// the weights sum to nothing.
fn weight_bytes(inf: &VertexInfluences) -> [u8; MAX_INFLUENCES] {
    let mut out = [0u8; MAX_INFLUENCES];
    let mut scaled = [0.0f32; MAX_INFLUENCES];
    let mut n = 0;
    for ((_, w), s) in inf.pairs().zip(&mut scaled) {
        *s = if w.is_finite() { w.max(0.0) } else { 0.0 };
        n += 1;
    }
    let total: f32 = scaled[..n].iter().sum();
    if !(total.is_finite() && total > 0.0) {
        return out;
    }
    let mut sum = 0u32;
    for (s, b) in scaled[..n].iter_mut().zip(&mut out) {
        *s = *s / total * 255.0;
        // At most 255 (each weight is at most the total).
        *b = s.floor().min(255.0) as u8;
        sum += u32::from(*b);
        *s -= f32::from(*b);
    }
    // The units floor left over go to the largest remainders (ties: earlier first).
    let mut order: [usize; MAX_INFLUENCES] = std::array::from_fn(|i| i);
    order[..n].sort_by(|&a, &b| scaled[b].total_cmp(&scaled[a]));
    for &k in order[..n].iter().take(255u32.saturating_sub(sum) as usize) {
        out[k] = out[k].saturating_add(1);
    }
    out
}

/// The worst difference between a vertex's weights and what [`Ms08::to_core`] reads
/// back from `bytes` (`b / 255`, renormalized; a zero byte drops its joint), per joint.
fn weight_error(inf: &VertexInfluences, bytes: &[u8; MAX_INFLUENCES]) -> f32 {
    let mut read = VertexInfluences::from_pairs(
        inf.pairs()
            .zip(bytes)
            .map(|((j, _), &b)| (j, f32::from(b) / 255.0)),
    );
    read.normalize();
    let weight_of = |v: &VertexInfluences, joint: u32| -> f32 {
        v.pairs().filter(|p| p.0 == joint).map(|p| p.1).sum()
    };
    inf.pairs()
        .map(|(j, _)| (weight_of(inf, j) - weight_of(&read, j)).abs())
        .fold(0.0, f32::max)
}

crate::file::with_options!(Mi08);
crate::file::with_options!(Ms08);
