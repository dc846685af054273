//! Geometry: the model, its surfaces and morph targets.

use glam::{Vec2, Vec3, Vec4};

use crate::animation::Clip;
use crate::bounds::Bounds;
use crate::coords::CoordinateSystem;
use crate::loss::Feature;
use crate::material::{Material, Texture};
use crate::skeleton::Skeleton;
use crate::skin::VertexInfluences;

/// A whole asset: surfaces, the skeleton they are skinned to, clips, materials.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Model {
    /// Asset name (may be empty).
    pub name: String,
    /// The axes and units every position, direction and transform here is expressed in.
    pub coordinate_system: CoordinateSystem,
    /// Renderable pieces, each with its own vertex arrays.
    pub surfaces: Vec<Surface>,
    /// Bones; empty for static models.
    pub skeleton: Skeleton,
    /// Animation clips targeting `skeleton`'s bones.
    pub animations: Vec<Clip>,
    /// Materials referenced by [`Surface::material`].
    pub materials: Vec<Material>,
    /// Textures referenced by materials.
    pub textures: Vec<Texture>,
}

impl Model {
    /// Puts the bones in a new order: new bone `i` is old bone `order[i]`. Parents, skin
    /// joints and animation channels follow, so the model means the same. Returns false,
    /// changing nothing, unless `order` is a permutation of the bones.
    ///
    /// ```
    /// use meshfmt_core::{Bone, Model, Skeleton};
    /// let bone = |name: &str, parent| Bone { name: name.into(), parent, ..Bone::default() };
    /// let mut m = Model::default();
    /// m.skeleton = Skeleton { bones: vec![bone("hand", Some(1)), bone("arm", None)] };
    /// assert!(m.reorder_bones(&[1, 0]));
    /// assert_eq!(m.skeleton.bones[1].name, "hand");
    /// assert_eq!(m.skeleton.bones[1].parent, Some(0));
    /// ```
    pub fn reorder_bones(&mut self, order: &[usize]) -> bool {
        let n = self.skeleton.bones.len();
        let mut new_of_old = vec![usize::MAX; n];
        if order.len() != n {
            return false;
        }
        for (new, &old) in order.iter().enumerate() {
            match new_of_old.get_mut(old) {
                Some(slot) if *slot == usize::MAX => *slot = new,
                _ => return false,
            }
        }
        let map = |i: usize| new_of_old.get(i).copied().unwrap_or(i);
        let bones = std::mem::take(&mut self.skeleton.bones);
        self.skeleton.bones = order
            .iter()
            .filter_map(|&i| bones.get(i).cloned())
            .map(|mut b| {
                b.parent = b.parent.map(map);
                b
            })
            .collect();
        for s in &mut self.surfaces {
            for v in &mut s.skin {
                for (j, w) in v.joints.iter_mut().zip(v.weights) {
                    if w != 0.0 {
                        *j = map(*j as usize) as u32;
                    }
                }
            }
        }
        for clip in &mut self.animations {
            for c in &mut clip.channels {
                c.bone = map(c.bone);
            }
            for e in &mut clip.events {
                e.bone = e.bone.map(map);
            }
        }
        true
    }

    /// True when some surface satisfies `test` (what loss tables ask: "does any
    /// surface have colors?").
    ///
    /// ```
    /// use meshfmt_core::Model;
    /// let model = meshfmt_core::Model::default();
    /// assert!(!model.any_surface(|s| !s.colors.is_empty()));
    /// ```
    pub fn any_surface(&self, test: impl FnMut(&Surface) -> bool) -> bool {
        self.surfaces.iter().any(test)
    }

    /// True when the model has `feature` at all: vertices (geometry), a non-empty
    /// attribute list on some surface (normals, tangents, UV sets, colors, skin, morph
    /// targets), bones, clips, materials, textures, or a non-empty name (model,
    /// surface, bone or clip). What the conformance matrix calls present, and what a
    /// writer asks before saying its format cannot hold something.
    ///
    /// ```
    /// use meshfmt_core::{Feature, Model};
    /// let cube = meshfmt_core::Model { name: "cube".into(), ..Model::default() };
    /// assert!(cube.has(Feature::Names));
    /// assert!(!cube.has(Feature::Geometry) && !cube.has(Feature::Skin));
    /// ```
    pub fn has(&self, feature: Feature) -> bool {
        let any = |test: fn(&Surface) -> bool| self.any_surface(test);
        match feature {
            Feature::Geometry => self.vertex_count() > 0,
            Feature::Normals => any(|s| !s.normals.is_empty()),
            Feature::Tangents => any(|s| !s.tangents.is_empty()),
            Feature::Uv0 => any(|s| !s.uv0.is_empty()),
            Feature::Uv1 => any(|s| !s.uv1.is_empty()),
            Feature::Colors => any(|s| !s.colors.is_empty()),
            Feature::Skin => any(|s| !s.skin.is_empty()),
            Feature::Skeleton => !self.skeleton.is_empty(),
            Feature::Animation => !self.animations.is_empty(),
            Feature::MorphTargets => any(|s| !s.morph_targets.is_empty()),
            Feature::Materials => !self.materials.is_empty(),
            Feature::Textures => !self.textures.is_empty(),
            Feature::Names => {
                !self.name.is_empty()
                    || any(|s| !s.name.is_empty())
                    || self.skeleton.bones.iter().any(|b| !b.name.is_empty())
                    || self.animations.iter().any(|a| !a.name.is_empty())
            }
        }
    }

    /// Total vertices over all surfaces.
    pub fn vertex_count(&self) -> usize {
        self.surfaces.iter().map(|s| s.positions.len()).sum()
    }

    /// Total triangles over all surfaces.
    pub fn triangle_count(&self) -> usize {
        self.surfaces.iter().map(Surface::triangle_count).sum()
    }

    /// Bytes the model's arrays and strings hold on the heap (lengths, not capacities):
    /// what a pipeline charges to its [`Budget`](crate::Budget) for keeping the model.
    ///
    /// ```
    /// use meshfmt_core::{glam::Vec3, Model, Surface};
    /// let mut m = Model::default();
    /// m.surfaces.push(Surface { positions: vec![Vec3::ZERO; 10], indices: vec![0; 30], ..Default::default() });
    /// assert!(m.heap_bytes() >= 10 * 12 + 30 * 4);
    /// ```
    pub fn heap_bytes(&self) -> u64 {
        fn bytes<T>(v: &[T]) -> u64 {
            (v.len() as u64).saturating_mul(std::mem::size_of::<T>() as u64)
        }
        let mut n = self.name.len() as u64 + bytes(&self.surfaces);
        for s in &self.surfaces {
            n += s.name.len() as u64
                + bytes(&s.positions)
                + bytes(&s.normals)
                + bytes(&s.tangents)
                + bytes(&s.uv0)
                + bytes(&s.uv1)
                + bytes(&s.colors)
                + bytes(&s.indices)
                + bytes(&s.skin)
                + bytes(&s.morph_targets);
            for m in &s.morph_targets {
                n += m.name.len() as u64 + bytes(&m.positions) + bytes(&m.normals);
            }
        }
        n += self.skeleton.heap_bytes();
        n += bytes(&self.animations);
        for c in &self.animations {
            n += c.name.len() as u64 + bytes(&c.channels);
            for ch in &c.channels {
                n += bytes(&ch.translation.times)
                    + bytes(&ch.translation.values)
                    + bytes(&ch.rotation.times)
                    + bytes(&ch.rotation.values)
                    + bytes(&ch.scale.times)
                    + bytes(&ch.scale.values);
            }
        }
        n += bytes(&self.materials) + bytes(&self.textures);
        for m in &self.materials {
            n += m.name.len() as u64 + bytes(&m.textures);
        }
        for t in &self.textures {
            n += t.name.len() as u64
                + match &t.source {
                    crate::TextureSource::Path(p) => p.len() as u64,
                    crate::TextureSource::Embedded(img) => img.pixels.len() as u64,
                };
        }
        n
    }

    /// Bounds of every surface's positions, or `None` when there are no vertices.
    pub fn bounds(&self) -> Option<Bounds> {
        Bounds::from_points(
            self.surfaces
                .iter()
                .flat_map(|s| s.positions.iter().copied()),
        )
    }
}

/// A named piece of geometry with one material. Optional attributes are empty vectors
/// when absent; when present they have one entry per position.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Surface {
    /// Surface name (may be empty).
    pub name: String,
    /// Vertex positions.
    pub positions: Vec<Vec3>,
    /// Unit normals, or empty.
    pub normals: Vec<Vec3>,
    /// Tangents: xyz unit tangent, w = handedness (+1 or -1) so that
    /// `bitangent = w * normal.cross(tangent)`. Empty when absent.
    pub tangents: Vec<Vec4>,
    /// First texture coordinate set, or empty. glTF's convention: (0, 0) is the
    /// top-left corner of the image, v grows downwards; formats with a bottom-left
    /// origin (Unity, OBJ) flip V in their conversions.
    pub uv0: Vec<Vec2>,
    /// Second texture coordinate set (lightmaps, detail), or empty; same convention.
    pub uv1: Vec<Vec2>,
    /// Linear RGBA colors in 0..=1, or empty.
    pub colors: Vec<Vec4>,
    /// Triangle list, three indices per triangle. Front faces are those for which
    /// `(b - a).cross(c - a)`, computed on the coordinates, points out of the face:
    /// counter-clockwise on screen in a right-handed frame (glTF), clockwise in a
    /// left-handed one (Unity, Direct3D). [`Model::convert_to`] keeps this true.
    pub indices: Vec<u32>,
    /// Index into [`Model::materials`].
    pub material: Option<usize>,
    /// Joint influences per vertex, indexing [`Model::skeleton`]; empty when static.
    pub skin: Vec<VertexInfluences>,
    /// Blend shapes.
    pub morph_targets: Vec<MorphTarget>,
}

impl Surface {
    /// Number of whole triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Triangles as index triples (a trailing partial triangle is ignored).
    pub fn triangles(&self) -> impl Iterator<Item = [u32; 3]> + '_ {
        self.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]])
    }

    /// Puts the vertices in a new order: new vertex `i` is old vertex `order[i]`. Every
    /// per-vertex array (and every morph target's) follows and the indices are remapped, so
    /// the triangles stay the same. Returns false, changing nothing, unless `order` is a
    /// permutation of `0..positions.len()`.
    ///
    /// ```
    /// use meshfmt_core::{Surface, glam::Vec3};
    /// let mut s = Surface {
    ///     positions: vec![Vec3::X, Vec3::Y, Vec3::Z],
    ///     indices: vec![0, 1, 2],
    ///     ..Surface::default()
    /// };
    /// assert!(s.reorder_vertices(&[2, 0, 1]));
    /// assert_eq!(s.positions, [Vec3::Z, Vec3::X, Vec3::Y]);
    /// assert_eq!(s.indices, [1, 2, 0]);
    /// ```
    pub fn reorder_vertices(&mut self, order: &[usize]) -> bool {
        let n = self.positions.len();
        let mut new_of_old = vec![u32::MAX; n];
        if order.len() != n {
            return false;
        }
        for (new, &old) in order.iter().enumerate() {
            match new_of_old.get_mut(old) {
                Some(slot) if *slot == u32::MAX => *slot = new as u32,
                _ => return false,
            }
        }
        fn permute<T: Clone>(v: &mut Vec<T>, order: &[usize]) {
            if v.len() == order.len() {
                *v = order.iter().filter_map(|&i| v.get(i).cloned()).collect();
            }
        }
        permute(&mut self.positions, order);
        permute(&mut self.normals, order);
        permute(&mut self.tangents, order);
        permute(&mut self.uv0, order);
        permute(&mut self.uv1, order);
        permute(&mut self.colors, order);
        permute(&mut self.skin, order);
        for t in &mut self.morph_targets {
            permute(&mut t.positions, order);
            permute(&mut t.normals, order);
        }
        for i in &mut self.indices {
            if let Some(&new) = new_of_old.get(*i as usize) {
                *i = new;
            }
        }
        true
    }
}

/// How a morph target's arrays relate to the base mesh.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MorphKind {
    /// Arrays are offsets added to the base positions/normals (glTF's convention).
    #[default]
    Delta,
    /// Arrays are complete replacement positions/normals (UNIGINE stores these).
    Absolute,
}

/// One blend shape of a surface.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MorphTarget {
    /// Target name (may be empty).
    pub name: String,
    /// Whether the arrays are deltas or absolute values.
    pub kind: MorphKind,
    /// One per base vertex.
    pub positions: Vec<Vec3>,
    /// One per base vertex, or empty.
    pub normals: Vec<Vec3>,
}

impl MorphTarget {
    /// The target's positions as deltas from `base` (converting an absolute target).
    pub fn position_deltas(&self, base: &[Vec3]) -> Vec<Vec3> {
        match self.kind {
            MorphKind::Delta => self.positions.clone(),
            MorphKind::Absolute => self
                .positions
                .iter()
                .zip(base)
                .map(|(p, b)| *p - *b)
                .collect(),
        }
    }

    /// The target's positions as absolute values given `base` (converting a delta target).
    pub fn absolute_positions(&self, base: &[Vec3]) -> Vec<Vec3> {
        match self.kind {
            MorphKind::Absolute => self.positions.clone(),
            MorphKind::Delta => self
                .positions
                .iter()
                .zip(base)
                .map(|(p, b)| *p + *b)
                .collect(),
        }
    }
}
