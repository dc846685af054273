//! ms10/ms11/ms13 content to and from meshfmt-core (also the content of ms14, ms15
//! and sk10): the index split, tangent frames, skin weights, bones and embedded
//! animations (see [`crate::convert`] for the index mapping).

use std::collections::HashMap;

use meshfmt_core::glam::{Quat, Vec2, Vec3, Vec4};
use meshfmt_core::quantize::renormalization_error;
use meshfmt_core::{
    Budget, Channel, Clip, Converted, Feature, LossKind, Model, MorphKind,
    MorphTarget as CoreMorph, Skeleton, Surface as CoreSurface, Track, Transform, VertexInfluences,
};
use parsing_primitives::RawString;
use unigine_common::skeleton::{bone_infos, skeleton_from};

use crate::common::{BindTransform, Bounds, first_out_of_range};
use crate::convert::{
    COORDINATE_SYSTEM, DEFAULT_FPS, TRACK_KEY_BYTES, bind_to_transform, charge_skeleton,
    generated_normals, model, non_utf8_names, report_common_losses, text, transform_to_bind,
};
use crate::error::{Result, invalid};
use crate::ms1x::{
    BoneInfo, EmbeddedAnimation, FrameKey, MorphTarget, Ms1x, Ms1xVersion, Surface, VertexWeights,
};
use crate::options::{CoreOptions, TargetVersion, WriteOptions};
use crate::tangent;

/// Heap bytes per triangle corner while [`Ms1x::to_core`] pairs coordinate and tangent
/// indices: a hash entry and an order entry (with growth slack) and the output index.
const PAIR_BYTES: u64 = 56;

impl Ms1x {
    /// The file as a meshfmt-core model (see the module docs for the index mapping).
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_in(&Budget::default())
    }

    /// [`Ms1x::to_core`], charging the model it builds to `budget`: the vertex pairs
    /// and core vertices of every surface, each morph target, the dense animation
    /// tracks.
    pub(crate) fn to_core_in(&self, budget: &Budget) -> Result<Converted<Model>> {
        let mut out = Converted::exact(());
        non_utf8_names(
            self.bones
                .iter()
                .map(|b| &b.name)
                .chain(self.surfaces.iter().map(|s| &s.name))
                .chain(self.animations.iter().map(|a| &a.name)),
            &mut out,
        );
        charge_skeleton(budget, self.bones.iter().map(|b| b.name.as_bytes().len()))?;
        let skeleton = skeleton_from(
            self.bones
                .iter()
                .zip(&self.bind_pose)
                .map(|(b, t)| (&b.name, i64::from(b.parent), bind_to_transform(t))),
        );
        let mut surfaces = Vec::with_capacity(self.surfaces.len());
        for (i, s) in self.surfaces.iter().enumerate() {
            surfaces.push(self.surface_to_core(i, s, &mut out, budget)?);
        }
        let animations = self
            .animations
            .iter()
            .map(|a| animation_to_clip(a, &self.bind_pose, budget))
            .collect::<Result<_>>()?;
        Ok(out.map(|()| model(surfaces, skeleton, animations)))
    }

    fn surface_to_core(
        &self,
        index: usize,
        s: &Surface,
        out: &mut Converted<()>,
        budget: &Budget,
    ) -> Result<CoreSurface> {
        let at = |what: String| invalid(format!("surface {index} '{}': {what}", s.name));
        let Some(base) = s.morph_targets.first() else {
            return Err(at(
                "no morph target (the base geometry is morph target 0)".into()
            ));
        };
        // What reading guarantees, checked again for values built or edited in memory.
        let (nv, nt) = (base.vertices.len(), base.tangents.len());
        if s.cindices.len() != s.tindices.len() {
            return Err(at(format!(
                "{} cindices and {} tindices",
                s.cindices.len(),
                s.tindices.len()
            )));
        }
        if let Some((_, i)) = first_out_of_range(&s.cindices, nv) {
            return Err(at(format!("cindex {i} out of range ({nv} vertices)")));
        }
        if let Some((_, i)) = first_out_of_range(&s.tindices, nt) {
            return Err(at(format!("tindex {i} out of range ({nt} tangents)")));
        }
        for (name, len, n) in [
            ("weights", s.weights.len(), nv),
            ("uv0", s.uv0.len(), nt),
            ("uv1", s.uv1.len(), nt),
            ("colors", s.colors.len(), nt),
        ] {
            if len != 0 && len != n {
                return Err(at(format!("{len} {name} for {n} vertices")));
            }
        }
        for (m, mt) in s.morph_targets.iter().enumerate().skip(1) {
            if mt.vertices.len() != base.vertices.len() || mt.tangents.len() != base.tangents.len()
            {
                return Err(invalid(format!(
                    "surface {index} '{}': morph target {m} has {} vertices and {} tangents, the base {} and {}",
                    s.name,
                    mt.vertices.len(),
                    mt.tangents.len(),
                    base.vertices.len(),
                    base.tangents.len()
                )));
            }
        }
        if !base.name.is_empty() {
            out.lose(
                Feature::Names,
                LossKind::Dropped,
                format!("surfaces[{index}]"),
                "the base morph target's name has no place in meshfmt-core",
            );
        }
        // One core vertex per distinct (cindex, tindex) pair: up to one per corner,
        // each far bigger than the one or two bytes its indices take in the file.
        budget.charge(
            "vertex pairs",
            (s.cindices.len() as u64).saturating_mul(PAIR_BYTES),
        )?;
        // Key: the pair packed in a u64 and multiplied by an odd constant, a bijection,
        // so the pre-mixed hasher needs no further work.
        let mut pairs: HashMap<u64, u32, std::hash::BuildHasherDefault<Premixed>> =
            HashMap::default();
        let mut order: Vec<(u32, u32)> = Vec::new();
        let mut indices = Vec::with_capacity(s.cindices.len());
        for (&c, &t) in s.cindices.iter().zip(&s.tindices) {
            let next = order.len() as u32;
            let key = ((u64::from(c) << 32) | u64::from(t)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let v = *pairs.entry(key).or_insert_with(|| {
                order.push((c, t));
                next
            });
            indices.push(v);
        }
        let mut per_vertex = (2 * size_of::<Vec3>() + size_of::<Vec4>()) as u64;
        for (present, size) in [
            (!s.uv0.is_empty(), size_of::<Vec2>()),
            (!s.uv1.is_empty(), size_of::<Vec2>()),
            (!s.colors.is_empty(), size_of::<Vec4>()),
            (!s.weights.is_empty(), size_of::<VertexInfluences>()),
        ] {
            if present {
                per_vertex += size as u64;
            }
        }
        let vertices = order.len() as u64;
        budget.charge("converted vertices", vertices.saturating_mul(per_vertex))?;
        // Every extra morph target becomes a position and a normal per core vertex.
        let morphs = s.morph_targets.len().saturating_sub(1) as u64;
        budget.charge(
            "morph targets",
            morphs.saturating_mul(vertices).saturating_mul(24),
        )?;
        let mut cs = CoreSurface {
            name: text(&s.name),
            indices,
            ..CoreSurface::default()
        };
        // Indices were checked above, so every `get` below finds its value.
        let zero_t = [0i16, 0, 0, 32767];
        for &(c, t) in &order {
            let (c, t) = (c as usize, t as usize);
            cs.positions.push(Vec3::from_array(
                base.vertices.get(c).copied().unwrap_or_default(),
            ));
            let q = base.tangents.get(t).copied().unwrap_or(zero_t);
            let (n, tan) = tangent::to_normal_tangent(self.version, q);
            cs.normals.push(n);
            cs.tangents.push(tan);
            if let Some(uv) = s.uv0.get(t) {
                cs.uv0.push(Vec2::from_array(*uv));
            }
            if let Some(uv) = s.uv1.get(t) {
                cs.uv1.push(Vec2::from_array(*uv));
            }
            if let Some(col) = s.colors.get(t) {
                cs.colors
                    .push(Vec4::from_array(col.map(|b| f32::from(b) / 255.0)));
            }
            if let Some(w) = s.weights.get(c) {
                cs.skin.push(weights_to_core(w));
            }
        }
        for mt in s.morph_targets.iter().skip(1) {
            cs.morph_targets.push(CoreMorph {
                name: text(&mt.name),
                kind: MorphKind::Absolute,
                positions: order
                    .iter()
                    .map(|&(c, _)| {
                        Vec3::from_array(mt.vertices.get(c as usize).copied().unwrap_or_default())
                    })
                    .collect(),
                normals: order
                    .iter()
                    .map(|&(_, t)| {
                        let q = mt.tangents.get(t as usize).copied().unwrap_or(zero_t);
                        tangent::to_normal_tangent(self.version, q).0
                    })
                    .collect(),
            });
        }
        Ok(cs)
    }

    /// [`Ms1x::to_core`] under `options`' budget.
    pub fn to_core_with(&self, options: &CoreOptions) -> Result<Converted<Model>> {
        self.to_core_in(&options.budget)
    }

    /// Encodes a meshfmt-core model as ms11, reporting every loss.
    pub fn from_core(model: &Model) -> Result<Converted<Ms1x>> {
        Ms1x::from_core_in(model, Ms1xVersion::Ms11, &Budget::default())
    }

    /// Encodes a meshfmt-core model as `options.version` (ms10, ms11 or ms13: the
    /// layouts this type holds; another version is an error), under their budget.
    pub fn from_core_with(model: &Model, options: &WriteOptions) -> Result<Converted<Ms1x>> {
        let version = match options.version {
            TargetVersion::Ms10 => Ms1xVersion::Ms10,
            TargetVersion::Ms11 => Ms1xVersion::Ms11,
            TargetVersion::Ms13 => Ms1xVersion::Ms13,
            other => {
                return Err(invalid(format!(
                    "Ms1x holds ms10, ms11 and ms13, not {other:?} (use MeshFile::from_core_with)"
                )));
            }
        };
        Ms1x::from_core_in(model, version, &options.budget)
    }

    /// [`Ms1x::from_core`], charging what it builds to `budget`: the copy of a model in
    /// another frame (one in UNIGINE's is encoded as it is), generated normals and
    /// tangents, morph targets, the vertex split, resampled animation frames.
    pub(crate) fn from_core_in(
        model: &Model,
        version: Ms1xVersion,
        budget: &Budget,
    ) -> Result<Converted<Ms1x>> {
        let m = model.in_system(COORDINATE_SYSTEM, budget)?;
        let mut out = Converted::exact(());
        report_common_losses(&m, &mut out);
        let bones = bones_from_core(&m.skeleton, &mut out)?;
        let bind_pose = m
            .skeleton
            .bones
            .iter()
            .map(|b| transform_to_bind(&b.rest))
            .collect();
        let mut surfaces = Vec::with_capacity(m.surfaces.len());
        for (i, s) in m.surfaces.iter().enumerate() {
            surfaces.push(surface_from_core(
                i,
                s,
                version,
                m.skeleton.len(),
                &mut out,
                budget,
            )?);
        }
        let mut animations = Vec::with_capacity(m.animations.len());
        if version == Ms1xVersion::Ms13 {
            if !m.animations.is_empty() {
                out.lose(
                    Feature::Animation,
                    LossKind::Dropped,
                    "",
                    "ms13 meshes hold no animations (write an .anim)",
                );
            }
        } else {
            // One flag per bone, shared by the clips (each clears what it set).
            let mut seen = vec![false; m.skeleton.len()];
            for (i, clip) in m.animations.iter().enumerate() {
                let a = clip_to_embedded(i, clip, &m.skeleton, &mut seen, &mut out, budget)?;
                animations.push(a);
            }
        }
        let bounds = Bounds::of_points(
            surfaces
                .iter()
                .flat_map(|s: &Surface| s.morph_targets[0].vertices.iter()),
        );
        Ok(out.map(|()| Ms1x {
            version,
            bounds,
            bones,
            bind_pose,
            animations,
            surfaces,
        }))
    }
}

fn weights_to_core(w: &VertexWeights) -> VertexInfluences {
    let n = usize::from(w.count.min(4));
    let mut v = VertexInfluences::from_pairs(
        (0..n).map(|k| (w.bones[k].max(0) as u32, f32::from(w.weights[k]) / 65535.0)),
    );
    v.normalize();
    v
}

fn quat_from_i16(q: [i16; 4]) -> Quat {
    let q = Quat::from_array(q.map(|v| f32::from(v) / 32767.0));
    meshfmt_core::unit_quat_or_identity(q)
}

/// The `i16` vector nearest `q` in direction, so that a key read by
/// [`quat_from_i16`] (and normalized) writes back to the same integers.
fn quat_to_i16(q: Quat) -> [i16; 4] {
    meshfmt_core::quantize::snorm16::encode_direction(q.to_array())
}

/// Keys resolved frame by frame: unflagged components carry the previous frame's
/// value, starting from the bind pose. Every (frame, bone) key, one byte in the file at
/// least, becomes a dense key of each track: charged first.
fn animation_to_clip(
    a: &EmbeddedAnimation,
    bind: &[BindTransform],
    budget: &Budget,
) -> Result<Clip> {
    let nb = a.bones.len();
    // Frames that have keys (all of them in a file that was read); none without bones,
    // however many frames the header claims.
    let frames = (a.num_frames as usize).min(a.keys.len().checked_div(nb).unwrap_or(0));
    budget.charge(
        "animation tracks",
        (frames as u64)
            .saturating_mul(nb as u64)
            .saturating_mul(TRACK_KEY_BYTES),
    )?;
    let mut channels = Vec::with_capacity(nb);
    for (slot, &bone) in a.bones.iter().enumerate() {
        let bone = bone as usize;
        let start = bind
            .get(bone)
            .copied()
            .map(|b| bind_to_transform(&b))
            .unwrap_or(Transform::IDENTITY);
        let (mut t, mut r, mut s) = (start.translation, start.rotation, start.scale);
        let mut flags = 0u8;
        let mut channel = Channel {
            bone,
            ..Channel::default()
        };
        for f in 0..frames {
            let Some(k) = a.keys.get(f * nb + slot) else {
                break;
            };
            flags |= k.flags();
            for i in 0..3 {
                if let Some(v) = k.translation[i] {
                    t[i] = v;
                }
                if let Some(v) = k.scale[i] {
                    s[i] = v;
                }
            }
            if let Some(q) = k.rotation {
                r = quat_from_i16(q);
            }
            let time = f as f32 / DEFAULT_FPS;
            channel.push_key(
                time,
                &Transform {
                    translation: t,
                    rotation: r,
                    scale: s,
                },
            );
        }
        if flags & 0x07 == 0 {
            channel.translation = Track::default();
        }
        if flags & 0x08 == 0 {
            channel.rotation = Track::default();
        }
        if flags & 0x70 == 0 {
            channel.scale = Track::default();
        }
        channels.push(channel);
    }
    Ok(Clip {
        events: Vec::new(),
        name: a.name.to_string_lossy(),
        channels,
    })
}

fn clip_to_embedded(
    index: usize,
    clip: &Clip,
    skeleton: &Skeleton,
    seen: &mut [bool],
    out: &mut Converted<()>,
    budget: &Budget,
) -> Result<EmbeddedAnimation> {
    out.note_resampled(clip, index, DEFAULT_FPS);
    out.drop_clip_events(clip, index, "a UNIGINE mesh");
    let mut bones = Vec::new();
    let mut channels = Vec::new();
    // A flag per skeleton bone (bones_from_core bounds the count by i16::MAX), not a
    // search of the list per channel.
    for c in &clip.channels {
        let Some(seen) = seen.get_mut(c.bone) else {
            return Err(invalid(format!(
                "animation {index}: channel for bone {} of {}",
                c.bone,
                skeleton.len()
            )));
        };
        if *seen {
            return Err(invalid(format!(
                "animation {index}: two channels for bone {}",
                c.bone
            )));
        }
        *seen = true;
        bones.push(c.bone as i16);
        channels.push(c);
    }
    for &b in &bones {
        if let Some(s) = seen.get_mut(b as usize) {
            *s = false;
        }
    }
    // Translations and scales are stored as f32; rotations are rounded to i16 and
    // renormalized when read.
    out.lose(
        Feature::Animation,
        LossKind::Quantized {
            max_error: tangent::RENORMALIZED_COMPONENT_MAX_ERROR,
        },
        format!("animations[{index}]"),
        "rotations stored as i16 / 32767",
    );
    // A key per channel and the values sampled for it, per frame.
    let per_frame = (bones.len() as u64).saturating_mul(size_of::<FrameKey>() as u64 + 40);
    let times = clip.frame_times(DEFAULT_FPS, budget, per_frame)?;
    let mut keys = Vec::with_capacity(times.len().saturating_mul(bones.len()));
    let mut previous: Vec<FrameKey> = vec![FrameKey::default(); bones.len()];
    for (f, &time) in times.iter().enumerate() {
        for (slot, c) in channels.iter().enumerate() {
            let full = FrameKey {
                translation: match c.translation.sample(time) {
                    Some(t) => t.to_array().map(Some),
                    None => [None; 3],
                },
                rotation: c.rotation.sample(time).map(quat_to_i16),
                scale: match c.scale.sample(time) {
                    Some(s) => s.to_array().map(Some),
                    None => [None; 3],
                },
            };
            // Frame 0 carries everything; later frames only what changed.
            let key = if f == 0 {
                full
            } else {
                let p = &previous[slot];
                let changed = |a: Option<f32>, b: Option<f32>| {
                    if a.map(f32::to_bits) == b.map(f32::to_bits) {
                        None
                    } else {
                        a
                    }
                };
                FrameKey {
                    translation: [0, 1, 2].map(|i| changed(full.translation[i], p.translation[i])),
                    rotation: if full.rotation == p.rotation {
                        None
                    } else {
                        full.rotation
                    },
                    scale: [0, 1, 2].map(|i| changed(full.scale[i], p.scale[i])),
                }
            };
            previous[slot] = full;
            keys.push(key);
        }
    }
    let flags = keys.iter().fold(0, |a, k| a | k.flags());
    let num_frames = u32::try_from(times.len()).map_err(|_| invalid("too many frames"))?;
    Ok(EmbeddedAnimation {
        boxes: (),
        name: RawString::from(clip.name.as_str()),
        bones,
        flags,
        num_frames,
        keys,
    })
}

fn bones_from_core(skeleton: &Skeleton, out: &mut Converted<()>) -> Result<Vec<BoneInfo>> {
    let bones = bone_infos(skeleton).map_err(invalid)?;
    let derived = skeleton.rest_world_matrices();
    let explicit = skeleton
        .bones
        .iter()
        .zip(&derived)
        .filter(|(b, w)| {
            b.inverse_bind
                .is_some_and(|ib| !(ib * **w).abs_diff_eq(meshfmt_core::glam::Mat4::IDENTITY, 1e-4))
        })
        .count();
    if explicit > 0 {
        out.lose(Feature::Skeleton, LossKind::Reduced, "skeleton", format!("{explicit} inverse bind matrices differ from the bind pose; UNIGINE derives them from it"));
    }
    Ok(bones)
}

/// Interns fixed-width keys (bit patterns of a vertex's attributes) in one arena, so
/// splitting a million vertices allocates nothing per vertex.
#[derive(Default)]
struct KeyTable {
    arena: Vec<u32>,
    width: usize,
    /// Key hash to the first id with that hash; collisions chain through `next`.
    first: HashMap<u64, u32, std::hash::BuildHasherDefault<Premixed>>,
    next: Vec<u32>,
}

impl KeyTable {
    /// The id of `key` and whether it is new (ids count up from 0).
    fn intern(&mut self, key: &[u32]) -> (u32, bool) {
        if self.next.is_empty() {
            self.width = key.len();
        }
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &k in key {
            h = (h.rotate_left(5) ^ u64::from(k)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
        let w = self.width;
        let mut id = self.first.get(&h).copied();
        while let Some(i) = id {
            let at = i as usize * w;
            if self.arena.get(at..at + w) == Some(key) {
                return (i, false);
            }
            id = Some(self.next[i as usize]).filter(|&n| n != u32::MAX);
        }
        let new = self.next.len() as u32;
        let prev = self.first.insert(h, new);
        self.next.push(prev.unwrap_or(u32::MAX));
        self.arena.extend_from_slice(key);
        (new, true)
    }
}

/// A hasher for keys that are already well mixed.
#[derive(Default)]
struct Premixed(u64);

impl std::hash::Hasher for Premixed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

fn bits3(v: Vec3) -> [u32; 3] {
    v.to_array().map(f32::to_bits)
}

/// The core surface as ms1x content: checks, the normals and tangents to store
/// (generated when absent), the loss report, and the split into coordinate and tangent
/// vertices (see the module docs of [`crate::convert`]).
fn surface_from_core(
    index: usize,
    s: &CoreSurface,
    version: Ms1xVersion,
    bones: usize,
    out: &mut Converted<()>,
    budget: &Budget,
) -> Result<Surface> {
    let path = format!("surfaces[{index}]");
    check_core_surface(index, s)?;
    let (normals, tangents) = frames_to_store(s, budget)?;
    report_skin_and_color_losses(s, &path, out);
    charge_vertex_split(s, budget)?;
    let morph_normals = morph_normals(index, s, &normals)?;
    let split = split_vertices(s, version, bones, &normals, &tangents, &morph_normals)?;
    let Split {
        mut out_surface,
        base,
        extra,
        cmap,
        tmap,
    } = split;
    report_frame_losses(
        s,
        version,
        &normals,
        &tangents,
        &base.tangents,
        &tmap,
        &path,
        out,
    );
    out_surface.cindices = s.indices.iter().map(|&i| cmap[i as usize]).collect();
    out_surface.tindices = s.indices.iter().map(|&i| tmap[i as usize]).collect();
    out_surface.bounds = Bounds::of_points(base.vertices.iter());
    out_surface.morph_targets.push(base);
    out_surface.morph_targets.extend(extra);
    Ok(out_surface)
}

/// Whole triangles, indices in range, and every attribute per vertex or absent.
fn check_core_surface(index: usize, s: &CoreSurface) -> Result<()> {
    let n = s.positions.len();
    if s.indices.len() % 3 != 0 {
        return Err(invalid(format!(
            "surface {index} '{}': {} indices is not whole triangles",
            s.name,
            s.indices.len()
        )));
    }
    if let Some(&i) = s.indices.iter().find(|&&i| i as usize >= n) {
        return Err(invalid(format!(
            "surface {index} '{}': index {i} out of range ({n} vertices)",
            s.name
        )));
    }
    for (name, len) in [
        ("normals", s.normals.len()),
        ("tangents", s.tangents.len()),
        ("uv0", s.uv0.len()),
        ("uv1", s.uv1.len()),
        ("colors", s.colors.len()),
        ("skin", s.skin.len()),
    ] {
        if len != 0 && len != n {
            return Err(invalid(format!(
                "surface {index} '{}': {len} {name} for {n} vertices",
                s.name
            )));
        }
    }
    Ok(())
}

/// The normals and tangents to store: the surface's own, or generated ones (normals
/// from the faces, tangents orthogonal to them), charged first.
fn frames_to_store(s: &CoreSurface, budget: &Budget) -> Result<(Vec<Vec3>, Vec<Vec4>)> {
    let n64 = s.positions.len() as u64;
    let generate =
        |given: bool, made: &'static str, copied: &'static str| if given { copied } else { made };
    budget.charge(
        generate(!s.normals.is_empty(), "generated normals", "normals"),
        n64.saturating_mul(12),
    )?;
    budget.charge(
        generate(!s.tangents.is_empty(), "generated tangents", "tangents"),
        n64.saturating_mul(16),
    )?;
    let normals = if s.normals.is_empty() {
        generated_normals(s)
    } else {
        s.normals.clone()
    };
    let tangents: Vec<Vec4> = if s.tangents.is_empty() {
        normals
            .iter()
            .map(|n| n.any_orthonormal_vector().extend(1.0))
            .collect()
    } else {
        s.tangents.clone()
    };
    Ok((normals, tangents))
}

/// What storing skin weights (four, u16) and colors (u8) loses.
fn report_skin_and_color_losses(s: &CoreSurface, path: &str, out: &mut Converted<()>) {
    if !s.skin.is_empty() && s.skin.iter().any(|v| v.count() > 4) {
        out.lose(
            Feature::Skin,
            LossKind::Reduced,
            path,
            "more than 4 influences: the 4 strongest kept, renormalized",
        );
    }
    if !s.skin.is_empty() {
        out.lose(
            Feature::Skin,
            LossKind::Quantized {
                max_error: 4.0 / 65535.0,
            },
            path,
            "weights stored as u16 / 65535, truncated",
        );
    }
    if !s.colors.is_empty() {
        let e = s
            .colors
            .iter()
            .map(|c| {
                let q = c
                    .to_array()
                    .map(|x| f32::from((x.clamp(0.0, 1.0) * 255.0).round() as u8) / 255.0);
                (Vec4::from_array(q) - *c).abs().max_element()
            })
            .fold(0.0, f32::max);
        out.lose(
            Feature::Colors,
            LossKind::Quantized { max_error: e },
            path,
            "colors stored as u8",
        );
    }
}

/// Charges the morph targets and the vertex split to `budget` before they are built.
fn charge_vertex_split(s: &CoreSurface, budget: &Budget) -> Result<()> {
    let n64 = s.positions.len() as u64;
    // Each morph target becomes absolute positions and normals per vertex (its own or
    // the base normals), whatever it stores.
    let nm = s.morph_targets.len() as u64;
    budget.charge("morph targets", nm.saturating_mul(n64).saturating_mul(24))?;
    // The vertex split, per vertex: the interned keys (position, skin and morph
    // positions; quantized frames, UVs and color) with growth slack, two hash entries,
    // chain links and maps, and the output arrays; then two indices per corner.
    let has = |v: bool| u64::from(v);
    let key_words = 3
        + 9 * has(!s.skin.is_empty())
        + 3 * nm
        + 4
        + 4 * nm
        + 2 * has(!s.uv0.is_empty())
        + 2 * has(!s.uv1.is_empty())
        + has(!s.colors.is_empty());
    let output = (1 + nm) * 20
        + 8 * has(!s.uv0.is_empty())
        + 8 * has(!s.uv1.is_empty())
        + 4 * has(!s.colors.is_empty())
        + size_of::<VertexWeights>() as u64 * has(!s.skin.is_empty());
    budget.charge(
        "vertex split",
        n64.saturating_mul(key_words * 4 * 2 + 64 + 16 + 8 + output)
            .saturating_add((s.indices.len() as u64).saturating_mul(8)),
    )?;
    Ok(())
}

/// Each morph target's normals per vertex, absolute (its own or the base normals).
fn morph_normals(index: usize, s: &CoreSurface, normals: &[Vec3]) -> Result<Vec<Vec<Vec3>>> {
    let n = s.positions.len();
    let mut morph_normals: Vec<Vec<Vec3>> = Vec::new();
    for mt in &s.morph_targets {
        if mt.positions.len() != n || (!mt.normals.is_empty() && mt.normals.len() != n) {
            return Err(invalid(format!(
                "surface {index} '{}': morph target '{}' does not match the vertex count",
                s.name, mt.name
            )));
        }
        morph_normals.push(match (mt.kind, mt.normals.is_empty()) {
            (_, true) => normals.to_vec(),
            (MorphKind::Absolute, false) => mt.normals.clone(),
            (MorphKind::Delta, false) => mt
                .normals
                .iter()
                .zip(normals)
                .map(|(d, b)| (*d + *b).normalize_or(*b))
                .collect(),
        });
    }
    Ok(morph_normals)
}

/// A surface split into coordinate and tangent vertices, with each core vertex's
/// coordinate (`cmap`) and tangent (`tmap`) index.
struct Split {
    out_surface: Surface,
    base: MorphTarget,
    extra: Vec<MorphTarget>,
    cmap: Vec<u32>,
    tmap: Vec<u32>,
}

/// Splits core vertices: bit-identical position, skin and morph positions share a
/// coordinate vertex; the same quantized frames, UVs and color share a tangent vertex.
fn split_vertices(
    s: &CoreSurface,
    version: Ms1xVersion,
    bones: usize,
    normals: &[Vec3],
    tangents: &[Vec4],
    morph_normals: &[Vec<Vec3>],
) -> Result<Split> {
    let n = s.positions.len();
    let morphs: Vec<Vec<Vec3>> = s
        .morph_targets
        .iter()
        .map(|mt| mt.absolute_positions(&s.positions))
        .collect();
    let skin: Vec<VertexWeights> = s
        .skin
        .iter()
        .map(|v| weights_from_core(v, bones))
        .collect::<Result<_>>()?;
    let mut ckeys = KeyTable::default();
    let mut tkeys = KeyTable::default();
    let (mut ck, mut tk, mut morph_tq): (Vec<u32>, Vec<u32>, Vec<[i16; 4]>) = Default::default();
    let mut cmap = Vec::with_capacity(n);
    let mut tmap = Vec::with_capacity(n);
    let mut base = MorphTarget {
        name: RawString::default(),
        vertices: Vec::new(),
        tangents: Vec::new(),
    };
    let mut extra: Vec<MorphTarget> = s
        .morph_targets
        .iter()
        .map(|m| MorphTarget {
            name: RawString::from(m.name.as_str()),
            vertices: Vec::new(),
            tangents: Vec::new(),
        })
        .collect();
    let mut out_surface = Surface {
        name: RawString::from(s.name.as_str()),
        bounds: Bounds::of_points(std::iter::empty()),
        // ms13 stores lightmap settings; real files use channel 1 at resolution 3 on
        // surfaces with a second UV set.
        lightmap: if version == Ms1xVersion::Ms13 && !s.uv1.is_empty() {
            [1, 3]
        } else {
            [0, 0]
        },
        morph_targets: Vec::new(),
        weights: Vec::new(),
        uv0: Vec::new(),
        uv1: Vec::new(),
        colors: Vec::new(),
        cindices: Vec::new(),
        tindices: Vec::new(),
    };
    for v in 0..n {
        let tq = tangent::encode(version, normals[v], tangents[v]);
        morph_tq.clear();
        morph_tq.extend(
            morph_normals
                .iter()
                .map(|mn| tangent::encode(version, mn[v], tangents[v])),
        );
        let color = s.colors.get(v).map(|c| {
            c.to_array()
                .map(|x| (x.clamp(0.0, 1.0) * 255.0).round() as u8)
        });
        // Coordinate key: position, skin, morph positions.
        ck.clear();
        ck.extend(bits3(s.positions[v]));
        if let Some(w) = skin.get(v) {
            ck.push(u32::from(w.count));
            ck.extend(w.bones.iter().map(|&b| b as u16 as u32));
            ck.extend(w.weights.iter().map(|&x| u32::from(x)));
        }
        for m in &morphs {
            ck.extend(bits3(m[v]));
        }
        // Tangent key: quantized frames, UVs, color.
        tk.clear();
        tk.extend(tq.iter().map(|&x| x as u16 as u32));
        for q in &morph_tq {
            tk.extend(q.iter().map(|&x| x as u16 as u32));
        }
        if let Some(uv) = s.uv0.get(v) {
            tk.extend(uv.to_array().map(f32::to_bits));
        }
        if let Some(uv) = s.uv1.get(v) {
            tk.extend(uv.to_array().map(f32::to_bits));
        }
        if let Some(c) = color {
            tk.push(u32::from_le_bytes(c));
        }
        let (c, new_c) = ckeys.intern(&ck);
        if new_c {
            base.vertices.push(s.positions[v].to_array());
            for (m, e) in morphs.iter().zip(extra.iter_mut()) {
                e.vertices.push(m[v].to_array());
            }
            if let Some(w) = skin.get(v) {
                out_surface.weights.push(*w);
            }
        }
        let (t, new_t) = tkeys.intern(&tk);
        if new_t {
            base.tangents.push(tq);
            for (q, e) in morph_tq.iter().zip(extra.iter_mut()) {
                e.tangents.push(*q);
            }
            if let Some(uv) = s.uv0.get(v) {
                out_surface.uv0.push(uv.to_array());
            }
            if let Some(uv) = s.uv1.get(v) {
                out_surface.uv1.push(uv.to_array());
            }
            if let Some(c) = color {
                out_surface.colors.push(c);
            }
        }
        cmap.push(c);
        tmap.push(t);
    }
    Ok(Split {
        out_surface,
        base,
        extra,
        cmap,
        tmap,
    })
}

/// What the i16 tangent-frame quaternion loses of the normals and tangents.
#[allow(clippy::too_many_arguments)]
fn report_frame_losses(
    s: &CoreSurface,
    version: Ms1xVersion,
    normals: &[Vec3],
    tangents: &[Vec4],
    stored: &[[i16; 4]],
    tmap: &[u32],
    path: &str,
    out: &mut Converted<()>,
) {
    let n = s.positions.len();
    // The quaternion's error depends on the frame (ms10 rebuilds w from x, y, z, which
    // is coarse when w is small), so report what it actually is for this data.
    // Measured against the model's own values, so a normal or tangent that was not unit
    // length (or a tangent not orthogonal to its normal) counts what renormalizing it
    // moved, not only the quaternion's rounding.
    let (mut normal_err, mut tangent_err) = (0.0f32, 0.0f32);
    for v in 0..n {
        let (dn, dt) = tangent::to_normal_tangent(version, stored[tmap[v] as usize]);
        normal_err = normal_err.max((dn - normals[v]).abs().max_element());
        let nv = normals[v].normalize_or(Vec3::Z);
        let t = tangents[v].truncate();
        let t_orth = (t - nv * nv.dot(t)).normalize_or_zero();
        if t_orth != Vec3::ZERO && !s.tangents.is_empty() {
            tangent_err = tangent_err.max((dt.truncate() - t).abs().max_element());
        }
        // The handedness comes back as a sign: any other w (or a lost sign) is an error.
        if !s.tangents.is_empty() {
            tangent_err = tangent_err.max((dt.w - tangents[v].w).abs());
        }
    }
    if !s.normals.is_empty() {
        let (_, moved) = renormalization_error(&s.normals, Vec3::Z);
        let why = if moved > 0 {
            format!(
                "normals stored as an i16 tangent-frame quaternion ({moved} were not unit length: renormalized)"
            )
        } else {
            "normals stored as an i16 tangent-frame quaternion".to_string()
        };
        out.lose(
            Feature::Normals,
            LossKind::Quantized {
                max_error: normal_err,
            },
            path,
            why,
        );
    }
    if !s.tangents.is_empty() {
        let xyz: Vec<Vec3> = s.tangents.iter().map(|t| t.truncate()).collect();
        let (_, moved) = renormalization_error(&xyz, Vec3::ZERO);
        let why = if moved > 0 {
            format!(
                "tangents stored as an i16 tangent-frame quaternion (made orthogonal to the normal; {moved} were not unit length: renormalized)"
            )
        } else {
            "tangents stored as an i16 tangent-frame quaternion (made orthogonal to the normal)"
                .to_string()
        };
        out.lose(
            Feature::Tangents,
            LossKind::Quantized {
                max_error: tangent_err,
            },
            path,
            why,
        );
    }
}

fn weights_from_core(v: &VertexInfluences, bones: usize) -> Result<VertexWeights> {
    let strongest = VertexInfluences::from_pairs_strongest(v.pairs());
    let mut four = VertexInfluences::from_pairs(strongest.pairs().take(4));
    four.normalize();
    let mut w = VertexWeights::default();
    for (k, (j, wt)) in four.pairs().enumerate() {
        if j as usize >= bones {
            return Err(invalid(format!(
                "skin joint {j} out of range ({bones} bones)"
            )));
        }
        w.bones[k] = j as i16;
        // Truncated like real files (sums of 65533..65535).
        w.weights[k] = (wt.clamp(0.0, 1.0) * 65535.0) as u16;
        w.count = k as u8 + 1;
    }
    Ok(w)
}
