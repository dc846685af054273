//! What the reference loader m3d.h does after parsing (`m3d_load`'s post-processing, and
//! `m3d_frame` / `m3d_pose`), as explicit steps on a [`Loaded`] model, without its crashes:
//! every index is checked, nothing is mutated behind the caller's back, a zero-length
//! action does not divide by zero, and what the steps build is charged to one
//! [`Budget`] (element counts also capped by [`Limits::max_elements`]).
//!
//! The arithmetic follows m3d.h in `f32` (its default build) so the results match its
//! output: quaternions used as stored (quantized ones are not unit length), matrices
//! row-major with the translation in elements 3, 7 and 11, entries below 1e-7 flushed to
//! zero, and `m3d_pose`'s polynomial NLERP with its fast inverse square root. Where m3d.h
//! is wrong rather than approximate, this module does the right thing instead and says so
//! on the function. For exact, unit-quaternion animation use [`File::to_core`] and
//! meshfmt-core's clip sampling.

use std::collections::HashMap;

use parsing_primitives::{Budget, Limits};

use crate::bones::Action;
use crate::chunk::Body;
use crate::error::{Result, invalid};
use crate::file::File;
use crate::loaded::{
    IDENTITY, LoadedBone, LoadedFace, LoadedSkin, LoadedVertex, LoadedVoxelType, PoseBone, skin_of,
};
use crate::mesh::MeshRecord;
use crate::texture::LoadedTexture;
use crate::types::{Coord, Idx, NameKey, Names, Skin, Str};
use crate::voxel::VoxelBlock;

/// Which post-processing steps [`File::load`] runs (all by default, like m3d.h built
/// without `M3D_NO*` switches), and the caps on what they may generate.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Turn voxel blocks into triangles ([`Loaded::mesh_voxels`]).
    pub voxels: bool,
    /// Generate normals when a face lacks them ([`Loaded::generate_normals`]).
    pub normals: bool,
    /// Fill the per-bone weight lists ([`Loaded::cross_reference_weights`]).
    pub weights: bool,
    /// Compute inverse bind matrices ([`Loaded::bind_matrices`]).
    pub bind_matrices: bool,
    /// Decode the inlined PNG textures the materials name ([`Loaded::textures`]), as
    /// m3d_load does (on by default; needs the `png` feature to decode pixels).
    pub textures: bool,
    /// The operation's budget, charged for the loaded model and everything the steps
    /// generate; its limits' `max_elements` caps the vertices and faces (each) and one
    /// voxel grid (clones share it; the default is a fresh one of [`Limits::DEFAULT`]).
    pub budget: Budget,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            voxels: true,
            normals: true,
            weights: true,
            bind_matrices: true,
            textures: true,
            budget: Budget::default(),
        }
    }
}

impl LoadOptions {
    /// No post-processing: the model as stored (the reference's "raw" configuration),
    /// under a fresh default budget.
    pub fn raw() -> LoadOptions {
        LoadOptions {
            voxels: false,
            normals: false,
            weights: false,
            bind_matrices: false,
            textures: false,
            budget: Budget::default(),
        }
    }
}

/// A model as m3d_load leaves it: one vertex list, one face list, skins, bones, actions.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Loaded {
    /// Vertices: VRTS records, then what the steps append.
    pub vertices: Vec<LoadedVertex>,
    /// Texture coordinates u, v.
    pub tmap: Vec<[f32; 2]>,
    /// Triangles: MESH polygons (larger ones fanned), then meshed voxels.
    pub faces: Vec<LoadedFace>,
    /// Material names, in MTRL order (faces refer to them by index).
    pub materials: Vec<String>,
    /// Skins.
    pub skins: Vec<LoadedSkin>,
    /// Bones.
    pub bones: Vec<LoadedBone>,
    /// Actions as stored.
    pub actions: Vec<Action>,
    /// Voxel types, resolved.
    pub voxel_types: Vec<LoadedVoxelType>,
    /// Voxel blocks as stored (meshed by [`Loaded::mesh_voxels`]).
    pub voxel_blocks: Vec<VoxelBlock>,
    /// True once [`Loaded::generate_normals`] added normals (m3d.h's `M3D_FLG_GENNORM`).
    pub generated_normals: bool,
    /// Textures the materials name, in order of first use, decoded from the inlined
    /// assets ([`LoadOptions::textures`]).
    pub textures: Vec<LoadedTexture>,
    limits: Limits,
    budget: StepBudget,
}

/// The budget a [`Loaded`]'s steps charge. Not part of its value: two models are equal
/// whatever they were charged to. A default `Loaded` makes its budget when a step first
/// needs one (and keeps it for the next steps), so building one from the stored data
/// allocates no budget it then throws away.
#[derive(Clone, Default)]
struct StepBudget(Option<Budget>);

impl StepBudget {
    /// The budget, made now if there is none: lent, not cloned (a clone and its drop
    /// are two atomic operations).
    fn get(&mut self) -> &Budget {
        self.0.get_or_insert_with(Budget::default)
    }
}

impl PartialEq for StepBudget {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for StepBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Budget")
    }
}

/// Materials by name as m3d_load finds them: the first MTRL of a name wins, a name is
/// compared with the material's text, an empty name is none. One key per name, so a
/// reference costs a lookup, not a scan of the materials or of the string table.
pub(crate) struct MaterialIndex {
    by_key: HashMap<NameKey, usize>,
    /// `None` when there are no materials: every reference finds none.
    names: Option<Names>,
}

impl MaterialIndex {
    /// For `materials` (the MTRL texts in order) and the references `refs` will ask about.
    pub(crate) fn new(
        strings: &[u8],
        materials: &[String],
        refs: impl IntoIterator<Item = Str>,
        budget: &Budget,
    ) -> Result<MaterialIndex> {
        let mut by_key = HashMap::new();
        if materials.is_empty() {
            // Nothing to find: the references need no keys.
            return Ok(MaterialIndex {
                by_key,
                names: None,
            });
        }
        budget.charge("name index", materials.len() as u64 * 48)?;
        for (i, m) in materials.iter().enumerate() {
            if !m.is_empty() {
                by_key.entry(NameKey::of(m.as_bytes())).or_insert(i);
            }
        }
        let names = Some(Names::new(strings, refs, Some(budget))?);
        Ok(MaterialIndex { by_key, names })
    }

    pub(crate) fn find(&self, s: Str) -> Idx {
        self.names
            .as_ref()
            .and_then(|n| n.key(s))
            .filter(|k| !k.is_empty())
            .and_then(|k| self.by_key.get(&k))
            .and_then(|i| u32::try_from(*i).ok())
            .map_or(Idx::UNDEF, Idx)
    }
}

/// Heap bytes a clone of `a` holds.
pub(crate) fn action_bytes(a: &Action) -> u64 {
    let frames = a.frames.len() as u64 * std::mem::size_of::<crate::bones::Frame>() as u64;
    let transforms: u64 = a.frames.iter().map(|f| f.transforms.len() as u64).sum();
    frames + transforms * std::mem::size_of::<crate::bones::Transform>() as u64
}

/// Heap bytes a clone of `b` holds.
pub(crate) fn block_bytes(b: &VoxelBlock) -> u64 {
    use crate::voxel::Run;
    let literal: u64 = b
        .runs
        .iter()
        .map(|r| match r {
            Run::Literal(v) => v.len() as u64,
            Run::Repeat(..) => 0,
        })
        .sum();
    b.runs.len() as u64 * std::mem::size_of::<Run>() as u64
        + literal * std::mem::size_of::<Idx>() as u64
}

impl File {
    /// The model as m3d.h's `m3d_load` returns it: the stored data in its in-memory form,
    /// then the steps `opts` selects, in m3d_load's order (voxels, normals, weights, bind
    /// matrices). Its vertex and face counts are the reference's "default" counts.
    ///
    /// ```
    /// use meshfmt_core::{Model, Surface, glam::Vec3};
    /// // A triangle without normals: loading generates them (one per vertex, appended).
    /// let model = Model {
    ///     surfaces: vec![Surface {
    ///         positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
    ///         indices: vec![0, 1, 2],
    ///         ..Surface::default()
    ///     }],
    ///     ..Model::default()
    /// };
    /// let file = m3d_format::File::from_core(&model)?.value;
    /// let loaded = file.load(&m3d_format::LoadOptions::default())?;
    /// assert!(loaded.generated_normals);
    /// assert_eq!(loaded.vertices.len(), 6);
    /// assert_eq!(loaded.vertices[3].xyzw, [0.0, 0.0, 1.0, 0.0]);
    /// assert_eq!(loaded.faces[0].normal.map(|n| n.0), [3, 4, 5]);
    /// # Ok::<(), m3d_format::Error>(())
    /// ```
    pub fn load(&self, opts: &LoadOptions) -> Result<Loaded> {
        Loaded::from_file(self, opts)?.finish(self, opts)
    }

    /// [`File::load`] of a file read for it (`load` of a text file): its voxel blocks
    /// are moved into the result, not copied.
    /// It charges `budget`, which the result keeps for its steps.
    pub(crate) fn load_owned(mut self, opts: &LoadOptions, budget: Budget) -> Result<Loaded> {
        let mut l = Loaded::build(&self, opts.budget.limits(), budget)?;
        for c in &mut self.chunks {
            if let Body::Voxd(v) = &mut c.body {
                let runs = std::mem::take(&mut v.runs);
                l.voxel_blocks.push(VoxelBlock { runs, ..v.clone() });
            }
        }
        l.finish(&self, opts)
    }
}

impl Loaded {
    /// What [`File::load`] does after [`Loaded::from_file`]: the post-processing steps,
    /// then `file`'s inlined textures.
    fn finish(mut self, file: &File, opts: &LoadOptions) -> Result<Loaded> {
        self.run_steps(opts)?;
        if opts.textures {
            self.textures = crate::texture::of_file(file, self.budget.get())?;
        }
        Ok(self)
    }

    /// m3d_load's post-processing steps that `opts` selects, in its order.
    pub(crate) fn run_steps(&mut self, opts: &LoadOptions) -> Result<()> {
        // Meshed voxels come with normals: only the faces before them can lack one.
        let before = self.faces.len();
        if opts.voxels {
            self.mesh_voxels()?;
        }
        let lacking = |f: &LoadedFace| f.normal.contains(&Idx::UNDEF);
        if opts.normals
            && self
                .faces
                .get(..before)
                .is_some_and(|f| f.iter().any(lacking))
        {
            self.generate_normals()?;
        }
        if opts.weights {
            self.cross_reference_weights()?;
        }
        if opts.bind_matrices {
            self.bind_matrices();
        }
        Ok(())
    }
}

impl Loaded {
    /// An empty model whose steps draw on `budget` and keep within `limits`.
    pub(crate) fn empty(limits: Limits, budget: Budget) -> Loaded {
        Loaded {
            limits,
            budget: StepBudget(Some(budget)),
            ..Loaded::default()
        }
    }

    /// The stored data in m3d_load's in-memory form, before any post-processing, charged
    /// to `opts`' budget (which the steps then draw on too); the step switches of `opts`
    /// do not matter here.
    ///
    /// ```
    /// use m3d_format::{Budget, File, Limits, LoadOptions, Loaded};
    /// let budget = Budget::new(Limits::DEFAULT);
    /// let opts = LoadOptions { budget: budget.clone(), ..LoadOptions::raw() };
    /// let l = Loaded::from_file(&File::default(), &opts)?;
    /// assert!(l.faces.is_empty());
    /// # Ok::<(), m3d_format::Error>(())
    /// ```
    pub fn from_file(file: &File, opts: &LoadOptions) -> Result<Loaded> {
        let budget = opts.budget.clone();
        let mut l = Loaded::build(file, opts.budget.limits(), budget)?;
        for c in &file.chunks {
            if let Body::Voxd(v) = &c.body {
                l.voxel_blocks.push(v.clone());
            }
        }
        Ok(l)
    }

    /// What [`from_file`](Self::from_file) gives: vertices, then the chunks in file
    /// order (materials, voxels, texture coordinates, actions, bones), then the faces and
    /// voxel types, whose materials are found by name. The voxel blocks are charged here
    /// but put in by the caller: [`from_file`](Self::from_file) copies them,
    /// [`File::load_owned`] moves them.
    fn build(file: &File, limits: Limits, budget: Budget) -> Result<Loaded> {
        let mut l = Loaded {
            limits,
            ..Loaded::default()
        };
        let b = &budget;
        let colours = file.colours();
        let stored = file.vertices();
        b.charge_items::<LoadedVertex>("loaded vertices", stored.len())?;
        l.vertices = stored
            .iter()
            .map(|v| LoadedVertex {
                xyzw: v.coords.map(Coord::loaded),
                color: colours.rgba(v.color),
                skin: v.skin,
            })
            .collect();
        l.stored_chunks(file, b)?;
        l.faces_and_voxel_types(file, colours, b)?;
        // Moved in last, so the charges above borrow it rather than a clone.
        l.budget = StepBudget(Some(budget));
        Ok(l)
    }

    /// Materials, texture coordinates (the last TMAP), actions and bones (the last
    /// BONE), as stored; voxel blocks are charged only (see [`build`](Self::build)).
    fn stored_chunks(&mut self, file: &File, b: &Budget) -> Result<()> {
        // Every name is a copy of a string the table may hold only once: charged.
        let text = |s: Str| -> Result<String> {
            let bytes = file.string(s).unwrap_or_default();
            b.charge(
                "names",
                bytes.len() as u64 + std::mem::size_of::<String>() as u64,
            )?;
            Ok(String::from_utf8_lossy(bytes).into_owned())
        };
        for c in &file.chunks {
            match &c.body {
                Body::Mtrl(m) => self.materials.push(text(m.name)?),
                Body::Voxd(v) => {
                    b.charge(
                        "voxel blocks",
                        block_bytes(v) + std::mem::size_of::<VoxelBlock>() as u64,
                    )?;
                }
                Body::Tmap(t) => {
                    b.charge_items::<[f32; 2]>("texture coordinates", t.items.len())?;
                    self.tmap = t.items.iter().map(|uv| uv.map(Coord::loaded_uv)).collect();
                }
                Body::Actn(a) => {
                    b.charge(
                        "actions",
                        action_bytes(a) + std::mem::size_of::<Action>() as u64,
                    )?;
                    self.actions.push(a.clone());
                }
                Body::Bone(s) => {
                    let nb = file.types.nb();
                    b.charge_items::<LoadedSkin>("skins", s.skins.len())?;
                    self.skins = s.skins.iter().map(|sk| skin(sk, nb)).collect();
                    b.charge_items::<LoadedBone>("bones", s.bones.len())?;
                    self.bones = s
                        .bones
                        .iter()
                        .map(|bone| {
                            Ok(LoadedBone {
                                name: text(bone.name)?,
                                parent: bone.parent,
                                pos: bone.pos,
                                ori: bone.ori,
                                weights: Vec::new(),
                                inverse_bind: IDENTITY,
                            })
                        })
                        .collect::<Result<_>>()?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// MESH polygons as triangles (larger ones as a fan) and the voxel types, with the
    /// materials their names pick.
    fn faces_and_voxel_types(
        &mut self,
        file: &File,
        colours: crate::types::Colours<'_>,
        b: &Budget,
    ) -> Result<()> {
        // The names that pick a material: use-material records and voxel types.
        let refs = file.chunks.iter().flat_map(|c| {
            let (records, types) = match &c.body {
                Body::Mesh(m) => (m.records.as_slice(), &[][..]),
                Body::Voxt(t) => (&[][..], t.as_slice()),
                _ => (&[][..], &[][..]),
            };
            records
                .iter()
                .filter_map(|r| match r {
                    MeshRecord::UseMaterial(s) => Some(*s),
                    _ => None,
                })
                .chain(types.iter().map(|t| t.name))
        });
        let materials = MaterialIndex::new(&file.strings, &self.materials, refs, b)?;
        let triangles: usize = file
            .chunks
            .iter()
            .filter_map(|c| match &c.body {
                Body::Mesh(m) => Some(
                    m.polygons()
                        .map(|(c, _)| c.len().saturating_sub(2))
                        .fold(0usize, usize::saturating_add),
                ),
                _ => None,
            })
            .fold(0usize, usize::saturating_add);
        // Polygons of up to 15 corners fan into up to 13 triangles of 40 bytes each.
        b.charge_items::<LoadedFace>("triangles", triangles)?;
        self.faces.reserve_exact(triangles);
        for c in &file.chunks {
            match &c.body {
                Body::Voxt(types) => {
                    b.charge_items::<LoadedVoxelType>("voxel types", types.len())?;
                    self.voxel_types
                        .extend(types.iter().map(|t| LoadedVoxelType {
                            color: colours.rgba(t.color),
                            skin: t.skin,
                            material: materials.find(t.name),
                        }));
                }
                Body::Mesh(m) => self.fan(m, &materials),
                _ => {}
            }
        }
        Ok(())
    }

    /// One MESH chunk's polygons as triangles, each with the material of the chunk's
    /// last use-material record before it.
    fn fan(&mut self, m: &crate::mesh::Mesh, materials: &MaterialIndex) {
        let mut mat = Idx::UNDEF;
        for r in &m.records {
            match r {
                MeshRecord::UseMaterial(s) => mat = materials.find(*s),
                MeshRecord::UseParameter { .. } => {}
                MeshRecord::Polygon { corners, .. } => {
                    // Larger polygons as a fan (m3d.h stops loading at them).
                    let Some(first) = corners.first() else {
                        continue;
                    };
                    for pair in corners.get(1..).unwrap_or_default().windows(2) {
                        let [b, c] = [&pair[0], &pair[1]];
                        self.faces.push(LoadedFace {
                            material: mat,
                            vertex: [first.vertex, b.vertex, c.vertex],
                            uv: [first.uv, b.uv, c.uv],
                            normal: [first.normal, b.normal, c.normal],
                        });
                    }
                }
            }
        }
    }

    fn vertex(&self, i: Idx) -> Option<&LoadedVertex> {
        self.vertices.get(i.get()? as usize)
    }

    /// Whether `vertices` and `faces` stay within [`Limits::max_elements`] (the bytes
    /// are charged to the budget).
    fn room(&self, what: &str, vertices: usize, faces: usize) -> Result<()> {
        let max = usize::try_from(self.limits.max_elements).unwrap_or(usize::MAX);
        if vertices > max || faces > max {
            return Err(invalid(format!(
                "{what}: {vertices} vertices and {faces} faces exceed the limit of {max} elements"
            )));
        }
        Ok(())
    }

    /// Voxel blocks to triangles, as m3d_load does: six axis normals appended to the
    /// vertex list, then for every solid voxel (type below the number of voxel types) the
    /// corners of its exposed faces as new vertices (not shared between voxels; w = 0,
    /// colour and skin of the voxel type) and two triangles per exposed face (neighbour
    /// empty or block edge), with coordinates `(block position + i) / largest extent`.
    /// Unlike m3d.h (binary files), voxel types find their material by name in binary
    /// files too. Fails, generating nothing, past the budget's limits (a grid of more
    /// than `max_elements` or `max_alloc_bytes / 4` voxels, more vertices or faces than
    /// `max_elements`) or the budget. Only the voxels the runs code are visited (the rest
    /// of a grid is empty): the work follows the file, not the grid it declares.
    pub fn mesh_voxels(&mut self) -> Result<()> {
        if self.voxel_blocks.is_empty() {
            return Ok(());
        }
        // Meshed straight onto the loaded lists (taken for the call, then put back).
        let mut out = crate::voxel::meshing::Meshed {
            vertices: std::mem::take(&mut self.vertices),
            faces: std::mem::take(&mut self.faces),
        };
        let meshed = crate::voxel::meshing::mesh(
            self.voxel_blocks.iter(),
            &self.voxel_types,
            self.limits,
            self.budget.get(),
            &mut out,
        );
        self.vertices = out.vertices;
        self.faces = out.faces;
        meshed
    }

    /// Normals for faces without them, as m3d_load does when any face corner lacks one:
    /// each such face's normal (cross product of its edges, normalised) is summed into a
    /// copy of every vertex, appended after the vertex list (so the list doubles and
    /// vertex `i`'s normal is vertex `i + n`), and those sums are normalised. Faces that
    /// have normals keep them and add nothing (m3d.h adds uninitialised memory for them).
    /// m3d.h normalises with a fast approximate inverse square root (0.17% off); these
    /// normals are exact. Does nothing when every corner has a normal.
    pub fn generate_normals(&mut self) -> Result<()> {
        let needs = self.faces.iter().any(|f| f.normal.contains(&Idx::UNDEF));
        if self.faces.is_empty() || !needs {
            return Ok(());
        }
        let n = self.vertices.len();
        // Vertex i's normal is vertex i + n: both below the index sentinels.
        let shift = u32::try_from(n)
            .ok()
            .filter(|s| s.checked_mul(2).is_some_and(|m| m < Idx::MAX.0))
            .ok_or_else(|| {
                invalid(format!(
                    "generated normals: {n} vertices twice over do not fit an index"
                ))
            })?;
        self.room("generated normals", n.saturating_mul(2), self.faces.len())?;
        let budget = self.budget.get();
        budget.charge_items::<[f64; 3]>("generated normals", n)?;
        budget.charge_items::<LoadedVertex>("generated normals", n)?;
        let mut sums = vec![[0.0f64; 3]; n];
        for f in &mut self.faces {
            if f.normal[0] != Idx::UNDEF {
                continue;
            }
            let p = f.vertex.map(|i| {
                i.get()
                    .and_then(|i| self.vertices.get(i as usize))
                    .map_or([0.0; 3], |v| [v.xyzw[0], v.xyzw[1], v.xyzw[2]])
            });
            // In f64: a sliver's cross product can underflow f32 when squared.
            let d = |i: usize, k: usize| f64::from(p[i][k]) - f64::from(p[0][k]);
            let (a, b) = ([d(1, 0), d(1, 1), d(1, 2)], [d(2, 0), d(2, 1), d(2, 2)]);
            let c = normalized([
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ]);
            for (k, v) in f.vertex.iter().enumerate() {
                let slot = v.get().filter(|v| (*v as usize) < n);
                if let Some(s) = slot.and_then(|v| sums.get_mut(v as usize)) {
                    for (acc, x) in s.iter_mut().zip(c) {
                        *acc += x;
                    }
                }
                f.normal[k] = slot.map_or(Idx::UNDEF, |v| Idx(v + shift));
            }
        }
        self.vertices.extend(sums.into_iter().map(|s| {
            let [x, y, z] = normalized(s);
            LoadedVertex {
                xyzw: [x as f32, y as f32, z as f32, 0.0],
                color: 0,
                skin: Idx::UNDEF,
            }
        }));
        self.generated_normals = true;
        Ok(())
    }

    /// The per-bone weight lists, as m3d_load fills them: for every vertex with a skin,
    /// each slot up to the first empty one (no bone or weight 0) adds `(vertex, weight)`
    /// to its bone, the weights normalised to sum to 1 over those slots (m3d.h
    /// renormalises the shared skin in place at every vertex; the result is the same up
    /// to rounding). Slots naming a bone that does not exist are skipped (m3d.h writes past
    /// its bone array). The lists are charged to the budget first.
    pub fn cross_reference_weights(&mut self) -> Result<()> {
        if self.bones.is_empty() || self.skins.is_empty() {
            return Ok(());
        }
        for b in &mut self.bones {
            b.weights.clear();
        }
        for s in &mut self.skins {
            let used = used_slots(s);
            let sum: f32 = s.weights.iter().take(used).sum();
            if sum > 0.0 {
                for w in s.weights.iter_mut().take(used) {
                    *w /= sum;
                }
            }
        }
        let mut per_bone = vec![0usize; self.bones.len()];
        for v in &self.vertices {
            if let Some(s) = v.skin.get().and_then(|s| self.skins.get(s as usize)) {
                for b in s.bones.iter().take(used_slots(s)) {
                    if let Some(n) = b.get().and_then(|b| per_bone.get_mut(b as usize)) {
                        *n += 1;
                    }
                }
            }
        }
        let total = per_bone.iter().fold(0usize, |a, n| a.saturating_add(*n));
        self.budget
            .get()
            .charge_items::<(u32, f32)>("bone weights", total)?;
        for (b, n) in self.bones.iter_mut().zip(per_bone) {
            b.weights.reserve_exact(n);
        }
        for (i, v) in self.vertices.iter().enumerate() {
            let Some(s) = v.skin.get().and_then(|s| self.skins.get(s as usize)) else {
                continue;
            };
            for k in 0..used_slots(s) {
                let (bone, w) = (s.bones[k], s.weights[k]);
                if let Some(b) = bone.get().and_then(|b| self.bones.get_mut(b as usize)) {
                    b.weights.push((u32::try_from(i).unwrap_or(u32::MAX), w));
                }
            }
        }
        Ok(())
    }

    /// Inverse bind matrices, as m3d_load computes them: each bone's matrix from its
    /// position and orientation vertices (the quaternion as stored), times its parent's,
    /// in bone order, then inverted. A parent that is not an earlier bone is treated as
    /// none (m3d.h would read an unfinished or out-of-bounds matrix); a missing vertex
    /// counts as the origin / no rotation. Unlike m3d.h, bones get their matrices even
    /// when the model has no skins.
    pub fn bind_matrices(&mut self) {
        if self.bones.is_empty() {
            return;
        }
        let pose: Vec<([f32; 3], [f32; 4])> = self
            .bones
            .iter()
            .map(|b| (self.position(b.pos), self.quaternion(b.ori)))
            .collect();
        let world = self.world(&pose);
        for (b, m) in self.bones.iter_mut().zip(world) {
            b.inverse_bind = invert(&m);
        }
    }

    fn position(&self, i: Idx) -> [f32; 3] {
        self.vertex(i)
            .map_or([0.0; 3], |v| [v.xyzw[0], v.xyzw[1], v.xyzw[2]])
    }

    fn quaternion(&self, i: Idx) -> [f32; 4] {
        self.vertex(i).map_or([0.0, 0.0, 0.0, 1.0], |v| v.xyzw)
    }

    /// Model-space matrices of the bones for local poses, parents first.
    fn world(&self, pose: &[([f32; 3], [f32; 4])]) -> Vec<[f32; 16]> {
        let mut out: Vec<[f32; 16]> = Vec::with_capacity(pose.len());
        for (i, (b, (p, q))) in self.bones.iter().zip(pose).enumerate() {
            let local = matrix(*p, *q);
            let parent = b.parent.get().map(|p| p as usize).filter(|p| *p < i);
            let m = match parent.and_then(|p| out.get(p)) {
                Some(pm) => multiply(pm, &local),
                None => local,
            };
            out.push(m);
        }
        out
    }

    /// The `(pos, ori)` vertex of every bone at frame `frame` of action `action`, as
    /// m3d.h's `m3d_frame(model, action, frame, NULL)`: the bind pose with frames
    /// `0..=frame` applied; at frame 0 of an action whose first frame is not at 0 ms, the
    /// bind pose. `None` when the action or frame does not exist or there are no bones.
    /// Each call replays the frames up to `frame`: O(bones + their transforms), which is
    /// bounded by the file (a caller walking every frame should keep the previous pose).
    pub fn frame(&self, action: usize, frame: usize) -> Option<Vec<(Idx, Idx)>> {
        let a = self.actions.get(action)?;
        if self.bones.is_empty() || frame >= a.frames.len() {
            return None;
        }
        let mut out: Vec<(Idx, Idx)> = self.bones.iter().map(|b| (b.pos, b.ori)).collect();
        if frame == 0 && a.frames.first().is_some_and(|f| f.msec != 0) {
            return Some(out);
        }
        for f in a.frames.get(..=frame)? {
            for t in &f.transforms {
                if let Some(p) = t.bone.get().and_then(|b| out.get_mut(b as usize)) {
                    *p = (t.pos, t.ori);
                }
            }
        }
        Some(out)
    }

    /// The skeleton at `msec` into action `action`, as m3d.h's `m3d_pose`: time wraps at
    /// the action's duration, every frame at or before it is applied, and bones that the
    /// next frame changes are interpolated towards it (positions linearly, orientations
    /// with m3d.h's approximated NLERP along the shorter arc). After the last frame the
    /// next frame is frame 0 and, as in m3d.h, the pose takes its values at once (no
    /// blend over the wrap). Unlike m3d.h it never divides by zero (a zero-length action
    /// is posed at 0 ms) and never appends the interpolated values to the vertex list.
    /// The bind pose when `action` does not exist; `None` when there are no bones.
    ///
    /// Each call takes O(bones + transforms of the frames up to `msec`), bounded by the
    /// file.
    ///
    /// One m3d.h bug is corrected: its orientation blend rewrites the shared blend factor
    /// `t` (the polynomial correction meant for one bone), so every later bone is blended
    /// with a factor that drifts bone by bone. Here each bone uses the frame's own factor;
    /// [`pose_like_m3d_h`](Self::pose_like_m3d_h) reproduces the drift.
    pub fn pose(&self, action: usize, msec: u32) -> Option<Vec<PoseBone>> {
        self.pose_with(action, msec, false)
    }

    /// [`pose`](Self::pose) with m3d.h's drifting blend factor, for results identical to
    /// the reference's `m3d_pose` (to f32 rounding: within 1e-5 on the samples). The two
    /// differ only between keys, by design, and then by less than 0.05 in a matrix entry
    /// (0.0205 at most on the samples).
    pub fn pose_like_m3d_h(&self, action: usize, msec: u32) -> Option<Vec<PoseBone>> {
        self.pose_with(action, msec, true)
    }

    fn pose_with(&self, action: usize, msec: u32, drift: bool) -> Option<Vec<PoseBone>> {
        if self.bones.is_empty() {
            return None;
        }
        let mut cur: Vec<(Idx, Idx)> = self.bones.iter().map(|b| (b.pos, b.ori)).collect();
        let mut values: Vec<([f32; 3], [f32; 4])> = Vec::new();
        match self.actions.get(action) {
            None => {
                values = cur
                    .iter()
                    .map(|(p, o)| (self.position(*p), self.quaternion(*o)))
                    .collect();
            }
            Some(a) => {
                let msec = msec.checked_rem(a.duration_msec).unwrap_or(0);
                let mut last = 0u32;
                let mut next = 0usize;
                for (j, f) in a.frames.iter().enumerate() {
                    if f.msec > msec {
                        break;
                    }
                    next = j + 1;
                    last = f.msec;
                    apply(&mut cur, f);
                }
                let mut target = cur.clone();
                let mut t = 1.0f32;
                if last != msec {
                    if let Some(f) = a.frames.get(next % a.frames.len().max(1)) {
                        t = if last >= f.msec {
                            1.0
                        } else {
                            (msec - last) as f32 / (f.msec - last) as f32
                        };
                        apply(&mut target, f);
                    }
                }
                for ((p0, o0), (p1, o1)) in cur.iter().zip(&target) {
                    let (mut p, mut q) = (self.position(*p0), self.quaternion(*o0));
                    if p0 != p1 {
                        let f = self.position(*p1);
                        for (a, b) in p.iter_mut().zip(f) {
                            *a += t * (b - *a);
                        }
                    }
                    if o0 != o1 {
                        let (blended, corrected) = nlerp(q, self.quaternion(*o1), t);
                        q = blended;
                        if drift {
                            t = corrected;
                        }
                    }
                    values.push((p, q));
                }
            }
        }
        let world = self.world(&values);
        Some(
            values
                .iter()
                .zip(world)
                .map(|((p, q), m)| PoseBone {
                    pos: *p,
                    ori: *q,
                    matrix: m,
                })
                .collect(),
        )
    }
}

fn apply(pose: &mut [(Idx, Idx)], f: &crate::bones::Frame) {
    for t in &f.transforms {
        if let Some(p) = t.bone.get().and_then(|b| pose.get_mut(b as usize)) {
            *p = (t.pos, t.ori);
        }
    }
}

pub(crate) fn skin(s: &Skin, nb: usize) -> LoadedSkin {
    skin_of(nb, &s.weights, s.bones.iter().copied())
}

/// Slots up to the first without a bone or weight (m3d.h's loop condition).
fn used_slots(s: &LoadedSkin) -> usize {
    s.bones
        .iter()
        .zip(s.weights)
        .take_while(|(b, w)| **b != Idx::UNDEF && *w > 0.0)
        .count()
}

fn normalized(v: [f64; 3]) -> [f64; 3] {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if len > 0.0 && len.is_finite() {
        v.map(|c| c / len)
    } else {
        [0.0; 3]
    }
}

/// m3d.h's `_m3d_rsq` in its f32 build: one Newton step from the classic bit trick.
fn rsq(x: f32) -> f32 {
    let half = x * 0.5;
    let y = f32::from_bits(0x5f37_59df_u32.wrapping_sub(x.to_bits() >> 1));
    y * (1.5 - half * y * y)
}

/// m3d_pose's orientation blend: Kapoulkine's polynomial correction of `t`, a linear
/// blend along the shorter arc, normalised with [`rsq`]. Also returns the corrected `t`.
fn nlerp(p: [f32; 4], f: [f32; 4], t: f32) -> ([f32; 4], f32) {
    // m3d.h's quaternions are x, y, z, w; its dot product starts with w.
    let mut d = p[3] * f[3] + p[0] * f[0] + p[1] * f[1] + p[2] * f[2];
    let s = if d < 0.0 {
        d = -d;
        -1.0
    } else {
        1.0
    };
    let c = t - 0.5;
    let t = t + t
        * c
        * (t - 1.0)
        * ((1.0904 + d * (-3.2452 + d * (3.55645 - d * 1.43519))) * c * c
            + (0.848013 + d * (-1.06021 + d * 0.215638)));
    let mut v = [0.0f32; 4];
    for k in 0..4 {
        v[k] = p[k] + t * (s * f[k] - p[k]);
    }
    let n = rsq(v[3] * v[3] + v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    (v.map(|c| c * n), t)
}

/// m3d.h's `_m3d_mat`: rotation from the quaternion as stored (not normalised), entries
/// within 1e-7 of 0 flushed to 0, the translation in elements 3, 7, 11.
fn matrix(p: [f32; 3], q: [f32; 4]) -> [f32; 16] {
    let [x, y, z, w] = q;
    let mut r = [0.0f32; 16];
    // m3d.h's special case for one exporter's 180-degree quaternion.
    if x == 0.0 && y == 0.0 && (0.707_106_5..=0.707_107_5).contains(&z) && w == 0.0 {
        r[0] = -1.0;
        r[5] = -1.0;
        r[10] = -1.0;
    } else {
        let flush = |v: f32| if v > -1e-7 && v < 1e-7 { 0.0 } else { v };
        r[0] = flush(1.0 - 2.0 * (y * y + z * z));
        r[1] = flush(2.0 * (x * y - z * w));
        r[2] = flush(2.0 * (x * z + y * w));
        r[4] = flush(2.0 * (x * y + z * w));
        r[5] = flush(1.0 - 2.0 * (x * x + z * z));
        r[6] = flush(2.0 * (y * z - x * w));
        r[8] = flush(2.0 * (x * z - y * w));
        r[9] = flush(2.0 * (y * z + x * w));
        r[10] = flush(1.0 - 2.0 * (x * x + y * y));
    }
    r[3] = p[0];
    r[7] = p[1];
    r[11] = p[2];
    r[15] = 1.0;
    r
}

/// m3d.h's `_m3d_mul(r, a, b)`: r = a * b, row-major, summed in its order.
fn multiply(a: &[f32; 16], b: &[f32; 16]) -> [f32; 16] {
    let mut r = [0.0f32; 16];
    for i in 0..4 {
        for j in 0..4 {
            r[i * 4 + j] = b[j] * a[i * 4]
                + b[4 + j] * a[i * 4 + 1]
                + b[8 + j] * a[i * 4 + 2]
                + b[12 + j] * a[i * 4 + 3];
        }
    }
    r
}

/// m3d.h's `_m3d_inv`: the cofactor inverse; a singular matrix is scaled by 1 instead.
fn invert(m: &[f32; 16]) -> [f32; 16] {
    let det = m[0] * m[5] * m[10] * m[15] - m[0] * m[5] * m[11] * m[14]
        + m[0] * m[6] * m[11] * m[13]
        - m[0] * m[6] * m[9] * m[15]
        + m[0] * m[7] * m[9] * m[14]
        - m[0] * m[7] * m[10] * m[13]
        - m[1] * m[6] * m[11] * m[12]
        + m[1] * m[6] * m[8] * m[15]
        - m[1] * m[7] * m[8] * m[14]
        + m[1] * m[7] * m[10] * m[12]
        - m[1] * m[4] * m[10] * m[15]
        + m[1] * m[4] * m[11] * m[14]
        + m[2] * m[7] * m[8] * m[13]
        - m[2] * m[7] * m[9] * m[12]
        + m[2] * m[4] * m[9] * m[15]
        - m[2] * m[4] * m[11] * m[13]
        + m[2] * m[5] * m[11] * m[12]
        - m[2] * m[5] * m[8] * m[15]
        - m[3] * m[4] * m[9] * m[14]
        + m[3] * m[4] * m[10] * m[13]
        - m[3] * m[5] * m[10] * m[12]
        + m[3] * m[5] * m[8] * m[14]
        - m[3] * m[6] * m[8] * m[13]
        + m[3] * m[6] * m[9] * m[12];
    let det = if det == 0.0 { 1.0 } else { 1.0 / det };
    [
        det * (m[5] * (m[10] * m[15] - m[11] * m[14])
            + m[6] * (m[11] * m[13] - m[9] * m[15])
            + m[7] * (m[9] * m[14] - m[10] * m[13])),
        -det * (m[1] * (m[10] * m[15] - m[11] * m[14])
            + m[2] * (m[11] * m[13] - m[9] * m[15])
            + m[3] * (m[9] * m[14] - m[10] * m[13])),
        det * (m[1] * (m[6] * m[15] - m[7] * m[14])
            + m[2] * (m[7] * m[13] - m[5] * m[15])
            + m[3] * (m[5] * m[14] - m[6] * m[13])),
        -det * (m[1] * (m[6] * m[11] - m[7] * m[10])
            + m[2] * (m[7] * m[9] - m[5] * m[11])
            + m[3] * (m[5] * m[10] - m[6] * m[9])),
        -det * (m[4] * (m[10] * m[15] - m[11] * m[14])
            + m[6] * (m[11] * m[12] - m[8] * m[15])
            + m[7] * (m[8] * m[14] - m[10] * m[12])),
        det * (m[0] * (m[10] * m[15] - m[11] * m[14])
            + m[2] * (m[11] * m[12] - m[8] * m[15])
            + m[3] * (m[8] * m[14] - m[10] * m[12])),
        -det * (m[0] * (m[6] * m[15] - m[7] * m[14])
            + m[2] * (m[7] * m[12] - m[4] * m[15])
            + m[3] * (m[4] * m[14] - m[6] * m[12])),
        det * (m[0] * (m[6] * m[11] - m[7] * m[10])
            + m[2] * (m[7] * m[8] - m[4] * m[11])
            + m[3] * (m[4] * m[10] - m[6] * m[8])),
        det * (m[4] * (m[9] * m[15] - m[11] * m[13])
            + m[5] * (m[11] * m[12] - m[8] * m[15])
            + m[7] * (m[8] * m[13] - m[9] * m[12])),
        -det * (m[0] * (m[9] * m[15] - m[11] * m[13])
            + m[1] * (m[11] * m[12] - m[8] * m[15])
            + m[3] * (m[8] * m[13] - m[9] * m[12])),
        det * (m[0] * (m[5] * m[15] - m[7] * m[13])
            + m[1] * (m[7] * m[12] - m[4] * m[15])
            + m[3] * (m[4] * m[13] - m[5] * m[12])),
        -det * (m[0] * (m[5] * m[11] - m[7] * m[9])
            + m[1] * (m[7] * m[8] - m[4] * m[11])
            + m[3] * (m[4] * m[9] - m[5] * m[8])),
        -det * (m[4] * (m[9] * m[14] - m[10] * m[13])
            + m[5] * (m[10] * m[12] - m[8] * m[14])
            + m[6] * (m[8] * m[13] - m[9] * m[12])),
        det * (m[0] * (m[9] * m[14] - m[10] * m[13])
            + m[1] * (m[10] * m[12] - m[8] * m[14])
            + m[2] * (m[8] * m[13] - m[9] * m[12])),
        -det * (m[0] * (m[5] * m[14] - m[6] * m[13])
            + m[1] * (m[6] * m[12] - m[4] * m[14])
            + m[2] * (m[4] * m[13] - m[5] * m[12])),
        det * (m[0] * (m[5] * m[10] - m[6] * m[9])
            + m[1] * (m[6] * m[8] - m[4] * m[10])
            + m[2] * (m[4] * m[9] - m[5] * m[8])),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrices_compose_and_invert() {
        // 90 degrees about z, then a translation: inverse times matrix is the identity.
        let s = std::f32::consts::FRAC_1_SQRT_2;
        let m = matrix([1.0, 2.0, 3.0], [0.0, 0.0, s, s]);
        assert!(
            (m[1] + 1.0).abs() < 1e-6 && (m[4] - 1.0).abs() < 1e-6,
            "{m:?}"
        );
        let id = multiply(&invert(&m), &m);
        for (a, b) in id.iter().zip(IDENTITY) {
            assert!((a - b).abs() < 1e-6, "{id:?}");
        }
        // A singular matrix does not divide by zero.
        assert!(invert(&[0.0; 16]).iter().all(|v| v.is_finite()));
    }

    #[test]
    fn voxel_meshing_stays_within_the_limits() {
        use crate::voxel::Run;
        let block = |size: [u32; 3]| VoxelBlock {
            name: crate::types::Str(0),
            pos: [0; 3],
            size,
            uncertain: 0,
            group: 0,
            runs: vec![Run::Repeat(128, Idx(0))],
        };
        let model = |size, limits| Loaded {
            voxel_types: vec![LoadedVoxelType {
                color: 0,
                skin: Idx::UNDEF,
                material: Idx::UNDEF,
            }],
            voxel_blocks: vec![block(size)],
            limits,
            ..Loaded::default()
        };
        // 65535^3 voxels are refused before anything is allocated.
        assert!(model([65535; 3], Limits::DEFAULT).mesh_voxels().is_err());
        // 128 solid voxels in a row: 8 + 6 corners... within limits, meshed.
        let mut ok = model([128, 1, 1], Limits::DEFAULT);
        assert!(ok.mesh_voxels().is_ok());
        assert_eq!(
            ok.faces.len(),
            128 * 8 + 2 * 2,
            "4 sides each, plus the two ends"
        );
        // The same with room for 100 faces only: an error, and nothing appended.
        let limits = Limits {
            max_alloc_bytes: 1 << 20,
            max_elements: 100,
        };
        let mut small = model([128, 1, 1], limits);
        assert!(small.mesh_voxels().is_err());
        assert!(small.vertices.is_empty() && small.faces.is_empty());
    }

    #[test]
    fn rsq_is_the_fast_approximation() {
        // At 1 the bit trick plus one Newton step gives 0.99830 (0.17% low), as in m3d.h.
        assert!((rsq(1.0) - 0.998_307).abs() < 1e-5);
        assert!((rsq(4.0) - 0.5).abs() < 0.001);
    }

    #[test]
    fn nlerp_ends_at_its_ends_and_takes_the_short_arc() {
        let a = [0.0, 0.0, 0.0, 1.0];
        let b = [0.0, 0.0, 0.0, -1.0]; // the same rotation
        let (m, _) = nlerp(a, b, 0.5);
        assert!((m[3].abs() - 1.0).abs() < 0.002, "{m:?}");
        let s = std::f32::consts::FRAC_1_SQRT_2;
        let (e, _) = nlerp(a, [0.0, 0.0, s, s], 1.0);
        assert!(
            (e[2] - s).abs() < 0.002 && (e[3] - s).abs() < 0.002,
            "{e:?}"
        );
    }
}
