//! [`File::to_core`]: the format-neutral meshfmt-core model, with a loss list.

use std::collections::HashMap;

use meshfmt_core::animation::{Channel, Clip};
use meshfmt_core::coords::CoordinateSystem;
use meshfmt_core::glam::{Quat, Vec2, Vec3, Vec4};
use meshfmt_core::material::{
    Material as CoreMaterial, Texture, TextureBinding, TextureRole, TextureSource,
};
use meshfmt_core::model::{Model, Surface};
use meshfmt_core::skeleton::{
    Bone as CoreBone, Skeleton as CoreSkeleton, Transform as CoreTransform,
};
use meshfmt_core::skin::VertexInfluences;
use meshfmt_core::{Converted, Feature, LossKind};

use crate::error::Result;
use crate::file::{Body, File};
use crate::material::PropValue;
use crate::mesh::MeshRecord;
use crate::types::{Idx, Str};

/// A surface being built: its material, the surface, and corner (vertex, uv, normal) → index.
/// Reads an external file by name: its bytes, or `None` when there is no such file.
pub type ReadFile<'a> = &'a dyn Fn(&str) -> Option<Vec<u8>>;

/// What [`File::to_core_with`] may use besides the file: m3d.h's `readfilecb` and
/// `mtllib`.
#[derive(Clone, Copy, Default)]
pub struct CoreOptions<'a> {
    /// Reads an external file (a texture) by name; `None` when it does not exist.
    pub read_file: Option<ReadFile<'a>>,
    /// A material library (a model holding only materials, from `m3dconv -m`).
    pub mtllib: Option<&'a File>,
}

impl std::fmt::Debug for CoreOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoreOptions")
            .field("read_file", &self.read_file.is_some())
            .field("mtllib", &self.mtllib.is_some())
            .finish()
    }
}

type SurfaceBuild = (Surface, HashMap<(Idx, Idx, Idx), u32>);

/// The vertex list and the header scale, looked up once.
struct Points<'a> {
    vertices: &'a [crate::vertex::Vertex],
    scale: f32,
}

impl Points<'_> {
    /// Decoded x, y, z (times [`File::effective_scale`]) and w of vertex `i`.
    fn point(&self, i: Idx) -> Option<(Vec3, f32)> {
        let v = self.vertices.get(i.get()? as usize)?;
        let c = v.coords.map(|c| c.signed() as f32);
        Some((Vec3::new(c[0], c[1], c[2]) * self.scale, c[3]))
    }

    fn quat(&self, i: Idx) -> Option<Quat> {
        let v = self.vertices.get(i.get()? as usize)?;
        let c = v.coords.map(|c| c.signed() as f32);
        let q = Quat::from_xyzw(c[0], c[1], c[2], c[3]);
        // Quantized quaternions are slightly off unit length; m3d.h uses them as stored.
        Some(if q.length_squared() > 0.0 {
            q.normalize()
        } else {
            Quat::IDENTITY
        })
    }
}

fn rgba_to_vec4(c: u32) -> Vec4 {
    let [r, g, b, a] = c.to_le_bytes();
    Vec4::new(f32::from(r), f32::from(g), f32::from(b), f32::from(a)) / 255.0
}

impl File {
    fn text(&self, s: Str) -> String {
        self.string(s)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    }

    /// The scale positions are multiplied by: the header's, or 1 when it is not a positive
    /// finite number (m3d.h also uses 1 for a scale <= 0).
    pub fn effective_scale(&self) -> f32 {
        if self.scale.is_finite() && self.scale > 0.0 {
            self.scale
        } else {
            1.0
        }
    }

    fn points(&self) -> Points<'_> {
        Points {
            vertices: self.vertices(),
            scale: self.effective_scale(),
        }
    }

    /// The model as meshfmt-core holds it: one surface per run of faces (each MESH chunk
    /// and each use-material record starts a run; a run without faces makes none), named
    /// after its material (positions times the
    /// header scale, normals, UVs, vertex colours, skin), materials, the skeleton with rest
    /// poses, and one clip per action. What core cannot hold (shapes, voxels, labels,
    /// procedural scripts, inlined assets, extra chunks, the preview) is listed in the
    /// losses. Y up, right-handed, counter-clockwise, as the format requires.
    ///
    /// ```
    /// let f = m3d_format::File::default();
    /// let c = f.to_core()?;
    /// assert!(c.value.surfaces.is_empty());
    /// # Ok::<(), m3d_format::Error>(())
    /// ```
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_with(&CoreOptions::default())
    }

    /// [`to_core`](Self::to_core) with external files and a shared material library, as
    /// m3d.h's `readfilecb` and `mtllib` arguments: textures that are not inlined are
    /// asked of `read_file` (`NAME.png`, then `NAME`) and decoded (a missing one is a
    /// loss, kept as a file name); the library's materials come first and win over the
    /// file's own of the same name.
    ///
    /// ```
    /// use m3d_format::{CoreOptions, File};
    /// let lib = File::default();
    /// let read = |name: &str| -> Option<Vec<u8>> { std::fs::read(name).ok() };
    /// let opts = CoreOptions { read_file: Some(&read), mtllib: Some(&lib) };
    /// let c = File::default().to_core_with(&opts)?;
    /// assert!(c.value.materials.is_empty());
    /// # Ok::<(), m3d_format::Error>(())
    /// ```
    pub fn to_core_with(&self, opts: &CoreOptions<'_>) -> Result<Converted<Model>> {
        let mut out = Converted::exact(Model {
            name: String::from_utf8_lossy(self.header_strings()[0]).into_owned(),
            coordinate_system: CoordinateSystem::GLTF,
            ..Model::default()
        });
        let tmap: Vec<Vec2> = self
            .chunks
            .iter()
            .find_map(|c| match &c.body {
                Body::Tmap(t) => Some(
                    t.items
                        .iter()
                        .map(|uv| Vec2::new(uv[0].unsigned() as f32, uv[1].unsigned() as f32))
                        .collect(),
                ),
                _ => None,
            })
            .unwrap_or_default();
        let skins = self.skeleton().map_or(&[][..], |s| s.skins.as_slice());
        // The vertex list and colour map found once: they are read for every corner.
        let pts = self.points();
        let colours = self.colours();

        // Materials by name: the shared library's first (m3d.h lets them win), then the
        // file's own. Textures by name, each resolved in the file that names it.
        let mut textures: Vec<(String, &File)> = Vec::new();
        let mut materials: HashMap<Vec<u8>, usize> = HashMap::new();
        let sources = opts
            .mtllib
            .into_iter()
            .map(|lib| (lib, "mtllib."))
            .chain(std::iter::once((self, "")));
        for (file, prefix) in sources {
            for (ci, c) in file.chunks.iter().enumerate() {
                let Body::Mtrl(m) = &c.body else { continue };
                let key = file.string(m.name).unwrap_or_default().to_vec();
                if materials.contains_key(&key) {
                    out.lose(
                        Feature::Materials,
                        LossKind::Dropped,
                        format!("{prefix}MTRL[{ci}]"),
                        "a material of this name is already defined (the library's wins)",
                    );
                    continue;
                }
                let cm =
                    file.core_material(m, &format!("{prefix}MTRL[{ci}]"), &mut textures, &mut out);
                materials.insert(key, out.value.materials.len());
                out.value.materials.push(cm);
            }
        }
        for (name, owner) in &textures {
            let inlined = owner.chunks.iter().find_map(|c| match &c.body {
                Body::Aset { name: n, data } if owner.text(*n) == *name => Some(data.as_slice()),
                _ => None,
            });
            let source = texture_source(name, inlined, opts.read_file, &mut out);
            out.value.textures.push(Texture {
                name: name.clone(),
                source,
            });
        }

        // Surfaces: one per run of faces, corners deduplicated by (vertex, uv, normal).
        let nb = self.types.nb();
        let mut surfaces: Vec<SurfaceBuild> = Vec::new();
        for (ci, c) in self.chunks.iter().enumerate() {
            let Body::Mesh(m) = &c.body else { continue };
            let mut material = None;
            // The surface the current run of faces goes to: every use-material record (and
            // every MESH chunk) starts a new run, so surfaces come back in file order, and
            // a run that holds no face makes no surface.
            let mut current: Option<usize> = None;
            for (ri, rec) in m.records.iter().enumerate() {
                let corners = match rec {
                    MeshRecord::UseMaterial(s) => {
                        current = None;
                        material = self.string(*s).and_then(|n| materials.get(n).copied());
                        if s.0 != 0 && material.is_none() {
                            out.lose(
                                Feature::Materials,
                                LossKind::Dropped,
                                format!("MESH[{ci}].record[{ri}]"),
                                "material name not defined",
                            );
                        }
                        continue;
                    }
                    MeshRecord::UseParameter { .. } => {
                        out.lose(
                            Feature::Geometry,
                            LossKind::Dropped,
                            format!("MESH[{ci}].record[{ri}]"),
                            "parameter records have no meshfmt-core counterpart",
                        );
                        continue;
                    }
                    MeshRecord::Polygon { corners, .. } => corners,
                };
                if corners.len() < 3 || corners.iter().any(|c| pts.point(c.vertex).is_none()) {
                    out.lose(
                        Feature::Geometry,
                        LossKind::Dropped,
                        format!("MESH[{ci}].record[{ri}]"),
                        "polygon with fewer than 3 corners or an undefined vertex",
                    );
                    continue;
                }
                let si = match current {
                    Some(i) => i,
                    None => {
                        let name = material
                            .and_then(|m| out.value.materials.get(m))
                            .map(|m| m.name.clone())
                            .unwrap_or_default();
                        surfaces.push((
                            Surface {
                                name,
                                material,
                                ..Surface::default()
                            },
                            HashMap::new(),
                        ));
                        current = Some(surfaces.len() - 1);
                        surfaces.len() - 1
                    }
                };
                let Some((surf, seen)) = surfaces.get_mut(si) else {
                    continue;
                };
                let mut ids = Vec::with_capacity(corners.len());
                for c in corners {
                    let key = (c.vertex, c.uv, c.normal);
                    if let Some(i) = seen.get(&key) {
                        ids.push(*i);
                        continue;
                    }
                    let id = surf.positions.len() as u32;
                    seen.insert(key, id);
                    ids.push(id);
                    let (p, _) = pts.point(c.vertex).unwrap_or((Vec3::ZERO, 1.0));
                    surf.positions.push(p);
                    // Normals are directions: not scaled.
                    let n = pts
                        .point(c.normal)
                        .map(|(n, _)| (n / pts.scale).normalize_or_zero());
                    surf.normals.push(n.unwrap_or(Vec3::ZERO));
                    surf.uv0.push(
                        c.uv.get()
                            .and_then(|i| tmap.get(i as usize))
                            .copied()
                            .unwrap_or(Vec2::ZERO),
                    );
                    let v = pts.vertices.get(c.vertex.0 as usize);
                    surf.colors
                        .push(v.map_or(Vec4::ONE, |v| rgba_to_vec4(colours.rgba(v.color))));
                    let skin = v
                        .and_then(|v| v.skin.get())
                        .and_then(|s| skins.get(s as usize));
                    surf.skin.push(match skin {
                        Some(s) if nb == 1 => VertexInfluences::single(
                            s.bones.first().and_then(|b| b.get()).unwrap_or(0),
                        ),
                        Some(s) => {
                            let ws = s.weights.iter().filter(|w| **w != 0);
                            let mut vi = VertexInfluences::from_pairs_strongest(
                                s.bones
                                    .iter()
                                    .zip(ws)
                                    .filter_map(|(b, w)| Some((b.get()?, f32::from(*w) / 255.0))),
                            );
                            vi.normalize();
                            vi
                        }
                        None => VertexInfluences::default(),
                    });
                }
                // Fan triangulation (only triangles exist in practice).
                for k in 1..ids.len() - 1 {
                    if let (Some(a), Some(b), Some(c)) = (ids.first(), ids.get(k), ids.get(k + 1)) {
                        surf.indices.extend_from_slice(&[*a, *b, *c]);
                    }
                }
            }
        }
        let has_ci = self.types.ci() != 0;
        for (mut s, seen) in surfaces {
            // Vertices in the order of their (vertex, uv, normal) records rather than of
            // first use: file order for real files, and the original order for models this
            // crate wrote.
            let mut keys: Vec<((Idx, Idx, Idx), u32)> =
                seen.iter().map(|(k, v)| (*k, *v)).collect();
            keys.sort_unstable();
            let order: Vec<usize> = keys.iter().map(|(_, v)| *v as usize).collect();
            s.reorder_vertices(&order);
            if seen.keys().any(|k| k.2.get().is_none()) {
                s.normals.clear();
            }
            if seen.keys().any(|k| k.1.get().is_none()) || tmap.is_empty() {
                s.uv0.clear();
            }
            // Colour 0 (transparent black) is what a vertex without a colour holds (the
            // seagull's CMAP index 0); a surface whose every vertex has it has none.
            if !has_ci || s.colors.iter().all(|c| *c == Vec4::ZERO) {
                s.colors.clear();
            }
            if skins.is_empty() {
                s.skin.clear();
            }
            out.value.surfaces.push(s);
        }

        // Skeleton.
        if let Some(sk) = self.skeleton() {
            for (i, b) in sk.bones.iter().enumerate() {
                let parent = b.parent.get().map(|p| p as usize);
                let parent = match parent {
                    Some(p) if p < i => Some(p),
                    Some(_) => {
                        out.lose(
                            Feature::Skeleton,
                            LossKind::Reduced,
                            format!("BONE.bone[{i}]"),
                            "parent not before the bone: made a root",
                        );
                        None
                    }
                    None => None,
                };
                let translation = pts.point(b.pos).map_or(Vec3::ZERO, |p| p.0);
                let rotation = pts.quat(b.ori).unwrap_or(Quat::IDENTITY);
                out.value.skeleton.bones.push(CoreBone {
                    name: self.text(b.name),
                    parent,
                    rest: CoreTransform {
                        translation,
                        rotation,
                        scale: Vec3::ONE,
                    },
                    inverse_bind: None,
                });
            }
        }

        // Actions: frames list changed bones; every animated bone gets a key at every frame
        // so linear interpolation between frames matches m3d.h's pose evaluation.
        for (ai, c) in self.chunks.iter().enumerate() {
            let Body::Actn(a) = &c.body else { continue };
            let skel: &CoreSkeleton = &out.value.skeleton;
            let mut state: Vec<(Vec3, Quat)> = skel
                .bones
                .iter()
                .map(|b| (b.rest.translation, b.rest.rotation))
                .collect();
            let mut animated = vec![false; state.len()];
            for f in &a.frames {
                for t in &f.transforms {
                    if let Some(x) = t.bone.get().and_then(|b| animated.get_mut(b as usize)) {
                        *x = true;
                    }
                }
            }
            let mut channels: Vec<Channel> = animated
                .iter()
                .enumerate()
                .filter(|(_, a)| **a)
                .map(|(bone, _)| Channel {
                    bone,
                    ..Channel::default()
                })
                .collect();
            let mut dropped = 0usize;
            // Dense keys are frames x animated bones; a hostile file can make that product
            // huge from a few hundred KB, so past a cap only changed bones get keys.
            const DENSE_KEY_CAP: usize = 1 << 22;
            let dense = a.frames.len().saturating_mul(channels.len()) <= DENSE_KEY_CAP;
            if !dense {
                out.lose(
                    Feature::Animation,
                    LossKind::Reduced,
                    format!("ACTN[{ai}]"),
                    "too many frames x bones for a key per frame: keys only where a bone changes",
                );
            }
            let mut changed = vec![false; state.len()];
            for f in &a.frames {
                changed.iter_mut().for_each(|c| *c = false);
                for t in &f.transforms {
                    let b = t.bone.get().map(|b| b as usize);
                    let slot = b.and_then(|b| state.get_mut(b));
                    match (slot, pts.point(t.pos), pts.quat(t.ori)) {
                        (Some(s), Some((p, _)), Some(q)) => {
                            *s = (p, q);
                            if let Some(c) = b.and_then(|b| changed.get_mut(b)) {
                                *c = true;
                            }
                        }
                        _ => dropped += 1,
                    }
                }
                let time = f.msec as f32 / 1000.0;
                for ch in &mut channels {
                    if !dense && !changed.get(ch.bone).copied().unwrap_or(false) {
                        continue;
                    }
                    if let Some((p, q)) = state.get(ch.bone) {
                        ch.translation.times.push(time);
                        ch.translation.values.push(*p);
                        ch.rotation.times.push(time);
                        ch.rotation.values.push(*q);
                    }
                }
            }
            if dropped > 0 {
                out.lose(
                    Feature::Animation,
                    LossKind::Reduced,
                    format!("ACTN[{ai}]"),
                    format!("{dropped} transforms name a missing bone or vertex"),
                );
            }
            out.value.animations.push(Clip {
                name: self.text(a.name),
                channels,
            });
        }

        let meshed = self.voxel_surfaces(&mut out)?;

        // What core cannot hold.
        for (ci, c) in self.chunks.iter().enumerate() {
            let (feature, what) = match &c.body {
                Body::Shpe(_) => (Feature::Geometry, "parametric shape (SHPE)"),
                // Meshed into surfaces: the grid and what types mean beyond colour go.
                Body::Voxt(_) | Body::Voxd(_) if meshed => {
                    out.lose(
                        Feature::Geometry,
                        LossKind::Reduced,
                        format!("chunk[{ci}]"),
                        "voxels meshed into triangles as m3d_load does: the grid, type names, \
                         shapes and items are not kept, only colours",
                    );
                    continue;
                }
                Body::Voxt(_) => (Feature::Materials, "voxel types (VOXT)"),
                Body::Voxd(_) => (Feature::Geometry, "voxel block (VOXD), not meshed"),
                Body::Lbls(_) => (Feature::Names, "labels (LBLS)"),
                Body::Proc(_) => (Feature::Geometry, "procedural script (PROC)"),
                // An inlined PNG that became an embedded texture is not lost.
                Body::Aset { name, .. }
                    if out.value.textures.iter().any(|t| {
                        t.name == self.text(*name) && matches!(t.source, TextureSource::Embedded(_))
                    }) =>
                {
                    continue;
                }
                Body::Aset { .. } => (Feature::Textures, "inlined asset (ASET)"),
                Body::Extra { .. } => (Feature::Geometry, "application chunk"),
                _ => continue,
            };
            out.lose(
                feature,
                LossKind::Dropped,
                format!("chunk[{ci}]"),
                format!("{what} has no meshfmt-core counterpart"),
            );
        }
        if self.preview.is_some() {
            out.lose(
                Feature::Textures,
                LossKind::Dropped,
                "PRVW",
                "preview image",
            );
        }
        Ok(out)
    }
}

impl File {
    /// Voxel blocks as triangles (m3d_load's meshing, [`crate::Loaded::mesh_voxels`]):
    /// one surface per voxel material, positions times the scale, the axis normals, the
    /// voxel types' colours. True when there were voxels and they were meshed.
    fn voxel_surfaces(&self, out: &mut Converted<Model>) -> Result<bool> {
        if !self.chunks.iter().any(|c| matches!(c.body, Body::Voxd(_))) {
            return Ok(false);
        }
        // Meshing is bounded apart from the read limits: a few RLE bytes can declare a
        // grid of millions of voxels. 4M voxels or corners is far beyond real models
        // (monu1, the largest known, meshes to 125,166 vertices).
        let limits = parsing_primitives::Limits {
            max_alloc_bytes: 256 << 20,
            max_elements: 1 << 22,
        };
        let mut l = crate::Loaded::from_file(self, limits);
        let nf = l.faces.len();
        if let Err(e) = l.mesh_voxels() {
            out.lose(
                Feature::Geometry,
                LossKind::Dropped,
                "VOXD",
                format!("voxels not meshed: {e}"),
            );
            return Ok(false);
        }
        let scale = self.effective_scale();
        let coloured = l.voxel_types.iter().any(|t| t.color != 0);
        // Per voxel material: its surface and the (vertex, normal) corners it has.
        type Building = (Idx, Surface, HashMap<(Idx, Idx), u32>);
        let mut by_material: Vec<Building> = Vec::new();
        for f in l.faces.get(nf..).unwrap_or_default() {
            let si = match by_material.iter().position(|(m, ..)| *m == f.material) {
                Some(i) => i,
                None => {
                    let material = f.material.get().map(|m| m as usize);
                    let name = material
                        .and_then(|m| out.value.materials.get(m))
                        .map_or_else(|| "voxels".to_string(), |m| m.name.clone());
                    by_material.push((
                        f.material,
                        Surface {
                            name,
                            material: material.filter(|m| *m < out.value.materials.len()),
                            ..Surface::default()
                        },
                        HashMap::new(),
                    ));
                    by_material.len() - 1
                }
            };
            let Some((_, s, seen)) = by_material.get_mut(si) else {
                continue;
            };
            if f.vertex
                .iter()
                .chain(&f.normal)
                .any(|i| i.get().and_then(|i| l.vertices.get(i as usize)).is_none())
            {
                continue;
            }
            for (vi, ni) in f.vertex.iter().zip(f.normal) {
                let (Some(v), Some(n)) = (
                    vi.get().and_then(|v| l.vertices.get(v as usize)),
                    ni.get().and_then(|n| l.vertices.get(n as usize)),
                ) else {
                    continue;
                };
                // A corner shared by faces of one side is one vertex; sides differ in normal.
                if let Some(&id) = seen.get(&(*vi, ni)) {
                    s.indices.push(id);
                    continue;
                }
                let id = s.positions.len() as u32;
                seen.insert((*vi, ni), id);
                s.indices.push(id);
                s.positions
                    .push(Vec3::new(v.xyzw[0], v.xyzw[1], v.xyzw[2]) * scale);
                s.normals.push(Vec3::new(n.xyzw[0], n.xyzw[1], n.xyzw[2]));
                if coloured {
                    s.colors.push(rgba_to_vec4(v.color));
                }
            }
        }
        out.value
            .surfaces
            .extend(by_material.into_iter().map(|(_, s, _)| s));
        Ok(true)
    }
}

/// A texture as m3d.h resolves it: an inlined asset (ASET) of the same name, decoded
impl File {
    /// One MTRL as a meshfmt-core material; its maps join `textures` (by name, with this
    /// file as the place to find them inlined).
    fn core_material<'f>(
        &'f self,
        m: &crate::material::Material,
        path: &str,
        textures: &mut Vec<(String, &'f File)>,
        out: &mut Converted<Model>,
    ) -> CoreMaterial {
        let mut cm = CoreMaterial {
            name: self.text(m.name),
            ..CoreMaterial::default()
        };
        // OBJ-like materials are not metals.
        cm.metallic = 0.0;
        for p in &m.props {
            match (p.kind, &p.value) {
                (0, PropValue::Color(c)) => cm.base_color = rgba_to_vec4(self.rgba(*c)),
                (4, PropValue::Color(c)) => cm.emissive = rgba_to_vec4(self.rgba(*c)).truncate(),
                (7, PropValue::Float(d)) => cm.base_color.w = *d,
                (64, PropValue::Float(v)) => cm.roughness = *v,
                (65, PropValue::Float(v)) => cm.metallic = *v,
                (k @ (128 | 129 | 132 | 136), PropValue::Map(s)) => {
                    let name = self.text(*s);
                    if name.is_empty() {
                        continue;
                    }
                    let t = textures
                        .iter()
                        .position(|t| t.0 == name)
                        .unwrap_or_else(|| {
                            textures.push((name, self));
                            textures.len() - 1
                        });
                    let role = match k {
                        128 => TextureRole::BaseColor,
                        129 => TextureRole::Occlusion,
                        132 => TextureRole::Emissive,
                        _ => TextureRole::Normal,
                    };
                    cm.textures.push(TextureBinding {
                        role,
                        texture: t,
                        uv_set: 0,
                    });
                }
                (k, _) => out.lose(
                    Feature::Materials,
                    LossKind::Dropped,
                    path,
                    format!("property type {k} has no meshfmt-core counterpart"),
                ),
            }
        }
        cm
    }
}

/// from PNG when the `png` feature is on; else a file name (with ".png" added when the
/// name has no three-letter extension, as m3d.h asks its file callback for).
fn texture_source(
    name: &str,
    inlined: Option<&[u8]>,
    read_file: Option<ReadFile<'_>>,
    out: &mut Converted<Model>,
) -> TextureSource {
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
            if external.is_none() {
                out.lose(
                    Feature::Textures,
                    LossKind::Reduced,
                    format!("texture '{name}'"),
                    format!("'{file_name}' not found: kept as a file name"),
                );
            }
            external.as_deref()
        }
        (None, None) => None,
    };
    #[cfg(feature = "png")]
    if let Some(img) = bytes.and_then(|b| meshfmt_core::RgbaImage::decode_png(b, 64 << 20)) {
        return TextureSource::Embedded(img);
    }
    if bytes.is_some() {
        out.lose(
            Feature::Textures,
            LossKind::Reduced,
            format!("texture '{name}'"),
            "image kept as a file name (not an 8-bit PNG, or the png feature is off)",
        );
    }
    TextureSource::Path(file_name)
}
