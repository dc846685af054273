//! [`File::to_core`]: the format-neutral meshfmt-core model, with a loss list.

use std::collections::{HashMap, HashSet};

use meshfmt_core::animation::{Channel, Clip};
use meshfmt_core::coords::CoordinateSystem;
use meshfmt_core::glam::{Quat, Vec2, Vec3, Vec4};
use meshfmt_core::material::{
    Material as CoreMaterial, Texture, TextureBinding, TextureRole, TextureSource,
};
use meshfmt_core::model::{Model, Surface};
use meshfmt_core::skeleton::{Bone as CoreBone, Transform as CoreTransform};
use meshfmt_core::skin::VertexInfluences;
use meshfmt_core::{Budget, Converted, Feature, Limits, LossKind};

use crate::error::{Error, Result};
use crate::file::{Body, File};
use crate::material::PropValue;
use crate::mesh::MeshRecord;
use crate::types::{Idx, NameKey, Names, Str};

/// Reads an external file by name: its bytes, or `None` when there is no such file.
pub type ReadFile<'a> = &'a dyn Fn(&str) -> Option<Vec<u8>>;

/// What [`File::to_core_with`] may use besides the file: m3d.h's `readfilecb` and
/// `mtllib`, and the budget the conversion draws on.
#[derive(Clone, Default)]
pub struct CoreOptions<'a> {
    /// Reads an external file (a texture) by name; `None` when it does not exist.
    pub read_file: Option<ReadFile<'a>>,
    /// A material library (a model holding only materials, from `m3dconv -m`).
    pub mtllib: Option<&'a File>,
    /// Caps on allocation, for a fresh [`Budget`] when [`budget`](Self::budget) is `None`.
    pub limits: Limits,
    /// The operation's shared budget (e.g. the one the file was read with); `None`
    /// makes a fresh one of [`limits`](Self::limits) per call.
    pub budget: Option<Budget>,
}

impl std::fmt::Debug for CoreOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoreOptions")
            .field("read_file", &self.read_file.is_some())
            .field("mtllib", &self.mtllib.is_some())
            .field("limits", &self.limits)
            .field("budget", &self.budget.as_ref().map(Budget::used))
            .finish()
    }
}

/// A surface being built: the surface, and corner (vertex, uv, normal) → index.
type SurfaceBuild = (Surface, HashMap<(Idx, Idx, Idx), u32>);

/// What one new corner of a surface holds: position, normal, UV, colour, skin and its
/// entry in the corner map.
const CORNER_BYTES: u64 = (2 * std::mem::size_of::<Vec3>()
    + std::mem::size_of::<Vec2>()
    + std::mem::size_of::<Vec4>()
    + std::mem::size_of::<VertexInfluences>()
    + std::mem::size_of::<((Idx, Idx, Idx), u32)>()
    + 8) as u64;

/// One animation key: a time and a translation, a time and a rotation.
const KEY_BYTES: u64 = (2 * std::mem::size_of::<f32>()
    + std::mem::size_of::<Vec3>()
    + std::mem::size_of::<Quat>()) as u64;

/// Losses of one kind past this many are counted, not listed.
const LOSS_CAP: usize = 100;

/// The loss list, capped: the first [`LOSS_CAP`] of each kind in full, then one line
/// saying how many more there were (a file of a million bad records would otherwise
/// make a million ~150-byte losses from a few bytes each).
#[derive(Default)]
struct Losses {
    kinds: Vec<(&'static str, usize, Feature, LossKind)>,
}

impl Losses {
    /// Records a loss of kind `key`; `path` and `reason` are only built when it is listed.
    fn lose<P: Into<String>, R: Into<String>>(
        &mut self,
        out: &mut Converted<Model>,
        key: &'static str,
        feature: Feature,
        kind: LossKind,
        path: impl FnOnce() -> P,
        reason: impl FnOnce() -> R,
    ) {
        let n = match self.kinds.iter_mut().find(|k| k.0 == key) {
            Some(k) => {
                k.1 += 1;
                k.1
            }
            None => {
                self.kinds.push((key, 1, feature, kind.clone()));
                1
            }
        };
        if n <= LOSS_CAP {
            out.lose(feature, kind, path(), reason());
        }
    }

    /// The summary lines of the kinds past the cap.
    fn finish(self, out: &mut Converted<Model>) {
        for (key, n, feature, kind) in self.kinds {
            if n > LOSS_CAP {
                out.lose(
                    feature,
                    kind,
                    "",
                    format!("{} more like this not listed: {key}", n - LOSS_CAP),
                );
            }
        }
    }
}

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

/// One file's names for the conversion: keys of its material names, map names, ASET
/// names and use-material references, found in one pass over its string table, and its
/// ASET chunks by name (the first of a name, as m3d.h finds it).
struct FileNames<'f> {
    file: &'f File,
    colours: crate::file::Colours<'f>,
    names: Names,
    assets: HashMap<NameKey, &'f [u8]>,
}

impl<'f> FileNames<'f> {
    fn new(file: &'f File, budget: &Budget) -> Result<FileNames<'f>> {
        let refs = file.chunks.iter().flat_map(|c| {
            let (name, props, records): (Option<Str>, &[crate::material::Property], &[MeshRecord]) =
                match &c.body {
                    Body::Mtrl(m) => (Some(m.name), &m.props, &[]),
                    Body::Aset { name, .. } => (Some(*name), &[], &[]),
                    Body::Mesh(m) => (None, &[], &m.records),
                    _ => (None, &[], &[]),
                };
            name.into_iter()
                .chain(props.iter().filter_map(|p| match p.value {
                    PropValue::Map(s) => Some(s),
                    _ => None,
                }))
                .chain(records.iter().filter_map(|r| match r {
                    MeshRecord::UseMaterial(s) => Some(*s),
                    _ => None,
                }))
        });
        let names = Names::new(&file.strings, refs, Some(budget))?;
        let mut assets = HashMap::new();
        for c in &file.chunks {
            if let Body::Aset { name, data } = &c.body {
                budget.charge("name index", 48)?;
                let key = names.key(*name).unwrap_or(NameKey::EMPTY);
                assets.entry(key).or_insert(data.as_slice());
            }
        }
        Ok(FileNames {
            file,
            colours: file.colours(),
            names,
            assets,
        })
    }

    /// The key of the string at `s`; the empty string's for none (as m3d.h's lookups
    /// see a missing name).
    fn key(&self, s: Str) -> NameKey {
        self.names.key(s).unwrap_or(NameKey::EMPTY)
    }
}

impl File {
    fn text(&self, s: Str) -> String {
        self.string(s)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    }

    /// [`text`](Self::text), the copy charged to `budget` (a name may be the whole
    /// string table, and be referenced many times).
    fn text_in(&self, s: Str, budget: &Budget) -> Result<String> {
        let n = self.string(s).map_or(0, <[u8]>::len);
        budget.charge("names", n as u64)?;
        Ok(self.text(s))
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
    /// losses (the first 100 of each kind, then a line counting the rest). Y up,
    /// right-handed, counter-clockwise, as the format requires.
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
    /// file's own of the same name. Everything built (the model, decoded textures, the
    /// bytes `read_file` returns) is charged to the options' budget.
    ///
    /// ```
    /// use m3d_format::{CoreOptions, File};
    /// let lib = File::default();
    /// let read = |name: &str| -> Option<Vec<u8>> { std::fs::read(name).ok() };
    /// let opts = CoreOptions { read_file: Some(&read), mtllib: Some(&lib), ..Default::default() };
    /// let c = File::default().to_core_with(&opts)?;
    /// assert!(c.value.materials.is_empty());
    /// # Ok::<(), m3d_format::Error>(())
    /// ```
    pub fn to_core_with(&self, opts: &CoreOptions<'_>) -> Result<Converted<Model>> {
        let budget = Budget::shared_or_new(opts.budget.as_ref(), opts.limits);
        let b = &budget;
        let mut losses = Losses::default();
        let title = self.header_strings()[0];
        b.charge("names", title.len() as u64)?;
        let mut out = Converted::exact(Model {
            name: String::from_utf8_lossy(title).into_owned(),
            coordinate_system: CoordinateSystem::GLTF,
            ..Model::default()
        });
        let tmap: Vec<Vec2> = match self.chunks.iter().find_map(|c| match &c.body {
            Body::Tmap(t) => Some(&t.items),
            _ => None,
        }) {
            Some(items) => {
                b.charge_items::<Vec2>("texture coordinates", items.len())?;
                items
                    .iter()
                    .map(|uv| Vec2::new(uv[0].unsigned() as f32, uv[1].unsigned() as f32))
                    .collect()
            }
            None => Vec::new(),
        };
        let skins = self.skeleton().map_or(&[][..], |s| s.skins.as_slice());
        // The vertex list and colour map found once: they are read for every corner.
        let pts = self.points();
        let colours = self.colours();

        // Materials by name: the shared library's first (m3d.h lets them win), then the
        // file's own. Textures by name, each resolved in the file that names it. Names
        // are matched by key, each file's string table read once.
        let own = FileNames::new(self, b)?;
        let lib = opts.mtllib.map(|l| FileNames::new(l, b)).transpose()?;
        let mut textures = Textures::default();
        let mut materials: HashMap<NameKey, usize> = HashMap::new();
        let sources = lib
            .iter()
            .map(|lib| (lib, "mtllib."))
            .chain(std::iter::once((&own, "")));
        for (names, prefix) in sources {
            for (ci, c) in names.file.chunks.iter().enumerate() {
                let Body::Mtrl(m) = &c.body else { continue };
                let key = names.key(m.name);
                if materials.contains_key(&key) {
                    losses.lose(
                        &mut out,
                        "a material of this name is already defined (the library's wins)",
                        Feature::Materials,
                        LossKind::Dropped,
                        || format!("{prefix}MTRL[{ci}]"),
                        || "a material of this name is already defined (the library's wins)",
                    );
                    continue;
                }
                b.charge("materials", std::mem::size_of::<CoreMaterial>() as u64 + 48)?;
                let cm =
                    names.core_material(m, prefix, ci, &mut textures, &mut out, &mut losses, b)?;
                materials.insert(key, out.value.materials.len());
                out.value.materials.push(cm);
            }
        }
        let mut embedded: HashSet<NameKey> = HashSet::new();
        b.charge_items::<Texture>("textures", textures.list.len())?;
        for (name, key, owner) in &textures.list {
            let owner = match owner {
                Owner::File => &own,
                Owner::Lib => lib.as_ref().unwrap_or(&own),
            };
            let inlined = owner.assets.get(key).copied();
            let source = texture_source(name, inlined, opts.read_file, &mut out, &mut losses, b)?;
            if matches!(source, TextureSource::Embedded(_)) {
                embedded.insert(*key);
            }
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
                        material = own.names.key(*s).and_then(|k| materials.get(&k).copied());
                        if s.0 != 0 && material.is_none() {
                            losses.lose(
                                &mut out,
                                "material name not defined",
                                Feature::Materials,
                                LossKind::Dropped,
                                || format!("MESH[{ci}].record[{ri}]"),
                                || "material name not defined",
                            );
                        }
                        continue;
                    }
                    MeshRecord::UseParameter { .. } => {
                        losses.lose(
                            &mut out,
                            "parameter records have no meshfmt-core counterpart",
                            Feature::Geometry,
                            LossKind::Dropped,
                            || format!("MESH[{ci}].record[{ri}]"),
                            || "parameter records have no meshfmt-core counterpart",
                        );
                        continue;
                    }
                    MeshRecord::Polygon { corners, .. } => corners,
                };
                if corners.len() < 3 || corners.iter().any(|c| pts.point(c.vertex).is_none()) {
                    losses.lose(
                        &mut out,
                        "polygon with fewer than 3 corners or an undefined vertex",
                        Feature::Geometry,
                        LossKind::Dropped,
                        || format!("MESH[{ci}].record[{ri}]"),
                        || "polygon with fewer than 3 corners or an undefined vertex",
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
                        // A use-material record of a few bytes starts a surface of
                        // hundreds: charged with its name.
                        b.charge(
                            "surfaces",
                            (std::mem::size_of::<SurfaceBuild>() + 256 + name.len()) as u64,
                        )?;
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
                b.charge_items::<[u32; 3]>("triangles", corners.len() - 2)?;
                let mut ids = Vec::with_capacity(corners.len());
                for c in corners {
                    let key = (c.vertex, c.uv, c.normal);
                    if let Some(i) = seen.get(&key) {
                        ids.push(*i);
                        continue;
                    }
                    // 1 to 3 bytes of input make a corner of ~110 bytes.
                    b.charge("surface vertices", CORNER_BYTES)?;
                    let id = u32::try_from(surf.positions.len())
                        .map_err(|_| crate::error::invalid("a surface of over 2^32 vertices"))?;
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
            // crate wrote. The reorder copies the arrays: charged.
            b.charge(
                "reordered vertices",
                (seen.len() as u64).saturating_mul(CORNER_BYTES + 24),
            )?;
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
            b.charge_items::<CoreBone>("bones", sk.bones.len())?;
            for (i, bone) in sk.bones.iter().enumerate() {
                let parent = bone.parent.get().map(|p| p as usize);
                let parent = match parent {
                    Some(p) if p < i => Some(p),
                    Some(_) => {
                        losses.lose(
                            &mut out,
                            "parent not before the bone: made a root",
                            Feature::Skeleton,
                            LossKind::Reduced,
                            || format!("BONE.bone[{i}]"),
                            || "parent not before the bone: made a root",
                        );
                        None
                    }
                    None => None,
                };
                let translation = pts.point(bone.pos).map_or(Vec3::ZERO, |p| p.0);
                let rotation = pts.quat(bone.ori).unwrap_or(Quat::IDENTITY);
                out.value.skeleton.bones.push(CoreBone {
                    name: self.text_in(bone.name, b)?,
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

        self.actions_to_core(&pts, &mut out, &mut losses, b)?;

        let meshed = self.voxel_surfaces(&mut out, opts.limits, b)?;

        // What core cannot hold.
        for (ci, c) in self.chunks.iter().enumerate() {
            let (feature, what) = match &c.body {
                Body::Shpe(_) => (Feature::Geometry, "parametric shape (SHPE)"),
                // Meshed into surfaces: the grid and what types mean beyond colour go.
                Body::Voxt(_) | Body::Voxd(_) if meshed => {
                    losses.lose(
                        &mut out,
                        "voxels meshed",
                        Feature::Geometry,
                        LossKind::Reduced,
                        || format!("chunk[{ci}]"),
                        || {
                            "voxels meshed into triangles as m3d_load does: the grid, type names, \
                             shapes and items are not kept, only colours"
                        },
                    );
                    continue;
                }
                Body::Voxt(_) => (Feature::Materials, "voxel types (VOXT)"),
                Body::Voxd(_) => (Feature::Geometry, "voxel block (VOXD), not meshed"),
                Body::Lbls(_) => (Feature::Names, "labels (LBLS)"),
                Body::Proc(_) => (Feature::Geometry, "procedural script (PROC)"),
                // An inlined PNG that became an embedded texture is not lost.
                Body::Aset { name, .. } if embedded.contains(&own.key(*name)) => continue,
                Body::Aset { .. } => (Feature::Textures, "inlined asset (ASET)"),
                Body::Extra { .. } => (Feature::Geometry, "application chunk"),
                _ => continue,
            };
            losses.lose(
                &mut out,
                what,
                feature,
                LossKind::Dropped,
                || format!("chunk[{ci}]"),
                || format!("{what} has no meshfmt-core counterpart"),
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
        losses.finish(&mut out);
        Ok(out)
    }

    /// One clip per action. Frames list changed bones; every animated bone gets a key at
    /// every frame so linear interpolation between frames matches m3d.h's pose
    /// evaluation. Keys are charged to the budget per action (the skeleton is shared, so
    /// a few bytes of frames can ask for keys of every bone). The per-bone state is kept
    /// across actions and reset only where an action touched it: the work is the
    /// transforms and keys, not frames x bones.
    fn actions_to_core(
        &self,
        pts: &Points<'_>,
        out: &mut Converted<Model>,
        losses: &mut Losses,
        b: &Budget,
    ) -> Result<()> {
        if !self.chunks.iter().any(|c| matches!(c.body, Body::Actn(_))) {
            return Ok(());
        }
        let rest: Vec<(Vec3, Quat)> = out
            .value
            .skeleton
            .bones
            .iter()
            .map(|b| (b.rest.translation, b.rest.rotation))
            .collect();
        let nbones = rest.len();
        b.charge(
            "animation state",
            (nbones as u64).saturating_mul(2 * 28 + 8),
        )?;
        let mut state = rest.clone();
        // Channel of each bone in the current action (usize::MAX: none), and the frame
        // that last changed it.
        let mut channel_of = vec![usize::MAX; nbones];
        for (ai, c) in self.chunks.iter().enumerate() {
            let Body::Actn(a) = &c.body else { continue };
            // Animated bones, in bone order (as channels were always listed).
            let mut animated: Vec<usize> = Vec::new();
            for f in &a.frames {
                for t in &f.transforms {
                    let Some(bone) = t.bone.get().map(|b| b as usize) else {
                        continue;
                    };
                    if let Some(slot) = channel_of.get_mut(bone) {
                        if *slot == usize::MAX {
                            *slot = 0;
                            animated.push(bone);
                        }
                    }
                }
            }
            animated.sort_unstable();
            b.charge_items::<Channel>("animation channels", animated.len())?;
            b.charge_items::<usize>("animation channels", animated.len())?;
            for (ch, bone) in animated.iter().enumerate() {
                if let Some(slot) = channel_of.get_mut(*bone) {
                    *slot = ch;
                }
            }
            let mut channels: Vec<Channel> = animated
                .iter()
                .map(|&bone| Channel {
                    bone,
                    ..Channel::default()
                })
                .collect();
            let mut dropped = 0usize;
            // Dense keys are frames x animated bones; a hostile file can make that product
            // huge from a few hundred KB, so past a cap only changed bones get keys.
            const DENSE_KEY_CAP: usize = 1 << 22;
            let dense_keys = a.frames.len().saturating_mul(channels.len());
            let dense = dense_keys <= DENSE_KEY_CAP;
            if dense {
                b.charge(
                    "animation keys",
                    (dense_keys as u64).saturating_mul(KEY_BYTES),
                )?;
            } else {
                losses.lose(
                    out,
                    "too many frames x bones for a key per frame",
                    Feature::Animation,
                    LossKind::Reduced,
                    || format!("ACTN[{ai}]"),
                    || "too many frames x bones for a key per frame: keys only where a bone changes",
                );
            }
            // The frame (plus one) that last changed a channel; the channels changed in
            // this frame.
            let mut stamp = vec![0usize; channels.len()];
            let mut changed: Vec<usize> = Vec::new();
            for (fi, f) in a.frames.iter().enumerate() {
                changed.clear();
                for t in &f.transforms {
                    let bone = t.bone.get().map(|b| b as usize);
                    let slot = bone.and_then(|b| state.get_mut(b));
                    match (slot, pts.point(t.pos), pts.quat(t.ori)) {
                        (Some(s), Some((p, _)), Some(q)) => {
                            *s = (p, q);
                            let ch = bone.and_then(|b| channel_of.get(b)).copied();
                            if let Some(st) = ch.and_then(|ch| stamp.get_mut(ch)) {
                                if *st != fi + 1 {
                                    *st = fi + 1;
                                    changed.extend(ch);
                                }
                            }
                        }
                        _ => dropped += 1,
                    }
                }
                let time = f.msec as f32 / 1000.0;
                let mut key = |ch: &mut Channel| {
                    if let Some((p, q)) = state.get(ch.bone) {
                        ch.translation.times.push(time);
                        ch.translation.values.push(*p);
                        ch.rotation.times.push(time);
                        ch.rotation.values.push(*q);
                    }
                };
                if dense {
                    channels.iter_mut().for_each(&mut key);
                } else {
                    b.charge("animation keys", changed.len() as u64 * KEY_BYTES)?;
                    for &ch in &changed {
                        if let Some(ch) = channels.get_mut(ch) {
                            key(ch);
                        }
                    }
                }
            }
            // Back to the rest pose where this action moved, for the next one.
            for &bone in &animated {
                if let (Some(s), Some(r), Some(c)) = (
                    state.get_mut(bone),
                    rest.get(bone),
                    channel_of.get_mut(bone),
                ) {
                    *s = *r;
                    *c = usize::MAX;
                }
            }
            if dropped > 0 {
                losses.lose(
                    out,
                    "transforms name a missing bone or vertex",
                    Feature::Animation,
                    LossKind::Reduced,
                    || format!("ACTN[{ai}]"),
                    || format!("{dropped} transforms name a missing bone or vertex"),
                );
            }
            b.charge_items::<Clip>("animations", 1)?;
            out.value.animations.push(Clip {
                name: self.text_in(a.name, b)?,
                channels,
            });
        }
        Ok(())
    }
}

impl File {
    /// Voxel blocks as triangles (m3d_load's meshing, [`crate::Loaded::mesh_voxels`]):
    /// one surface per voxel material, positions times the scale, the axis normals, the
    /// voxel types' colours. True when there were voxels and they were meshed. A grid
    /// of more than 4M voxels (or `limits.max_elements`) is not meshed (a loss); what is
    /// meshed is charged to the budget.
    fn voxel_surfaces(
        &self,
        out: &mut Converted<Model>,
        limits: Limits,
        budget: &Budget,
    ) -> Result<bool> {
        if !self.chunks.iter().any(|c| matches!(c.body, Body::Voxd(_))) {
            return Ok(false);
        }
        // Meshing is capped apart from the read limits: a few RLE bytes can declare a
        // grid of millions of voxels. 4M voxels or corners is far beyond real models
        // (monu1, the largest known, meshes to 125,166 vertices).
        let limits = Limits {
            max_elements: limits.max_elements.min(1 << 22),
            max_alloc_bytes: limits.max_alloc_bytes.min(256 << 20),
        };
        // Only what meshing needs (materials, voxel types and blocks), on this budget.
        let mut l = crate::Loaded::build(self, limits, budget.clone(), false)?;
        match l.mesh_voxels() {
            Ok(()) => {}
            Err(e @ Error::OverBudget(_)) => return Err(e),
            Err(e) => {
                out.lose(
                    Feature::Geometry,
                    LossKind::Dropped,
                    "VOXD",
                    format!("voxels not meshed: {e}"),
                );
                return Ok(false);
            }
        }
        let scale = self.effective_scale();
        let coloured = l.voxel_types.iter().any(|t| t.color != 0);
        // Per voxel material: its surface and the (vertex, normal) corners it has.
        type Building = (Surface, HashMap<(Idx, Idx), u32>);
        let mut by_material: Vec<Building> = Vec::new();
        let mut surface_of: HashMap<Idx, usize> = HashMap::new();
        for f in &l.faces {
            let si = match surface_of.get(&f.material) {
                Some(i) => *i,
                None => {
                    let material = f.material.get().map(|m| m as usize);
                    let name = material
                        .and_then(|m| out.value.materials.get(m))
                        .map_or_else(|| "voxels".to_string(), |m| m.name.clone());
                    budget.charge(
                        "voxel surfaces",
                        (std::mem::size_of::<Building>() + 256 + name.len()) as u64,
                    )?;
                    by_material.push((
                        Surface {
                            name,
                            material: material.filter(|m| *m < out.value.materials.len()),
                            ..Surface::default()
                        },
                        HashMap::new(),
                    ));
                    surface_of.insert(f.material, by_material.len() - 1);
                    by_material.len() - 1
                }
            };
            let Some((s, seen)) = by_material.get_mut(si) else {
                continue;
            };
            if f.vertex
                .iter()
                .chain(&f.normal)
                .any(|i| i.get().and_then(|i| l.vertices.get(i as usize)).is_none())
            {
                continue;
            }
            budget.charge_items::<[u32; 3]>("voxel surfaces", 1)?;
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
                budget.charge("voxel surfaces", CORNER_BYTES)?;
                let id = u32::try_from(s.positions.len())
                    .map_err(|_| crate::error::invalid("a surface of over 2^32 vertices"))?;
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
        // The meshed voxels are no longer needed.
        l.faces = Vec::new();
        out.value
            .surfaces
            .extend(by_material.into_iter().map(|(s, _)| s));
        Ok(true)
    }
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
        m: &crate::material::Material,
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
