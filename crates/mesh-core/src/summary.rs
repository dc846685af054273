//! What a file holds, for `info`: counts with a stable meaning, and the detail a user looks
//! for first (surface names and attributes as stored, the skeleton's roots and depth,
//! clips with their lengths, materials with their textures, bounds).

use crate::bounds::Aabb;
use crate::material::{TextureRole, TextureSource};
use crate::model::Model;
use crate::skeleton::{Bone, Skeleton};

/// The counts `info --json` reports under stable keys (0 where a format has no such
/// thing).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Surfaces (meshes, groups).
    pub surfaces: u64,
    /// Vertices over all surfaces.
    pub vertices: u64,
    /// Triangles over all surfaces.
    pub triangles: u64,
    /// Bones.
    pub bones: u64,
    /// Animation clips.
    pub animations: u64,
    /// Frames (or keys) over all clips.
    pub frames: u64,
    /// Materials.
    pub materials: u64,
    /// Textures.
    pub textures: u64,
}

impl Counts {
    /// The counts under their stable `info --json` keys, in the fixed order.
    ///
    /// ```
    /// let c = meshfmt_core::Counts { vertices: 3, ..Default::default() };
    /// assert_eq!(c.named()[1], ("vertices", 3));
    /// ```
    pub fn named(&self) -> [(&'static str, u64); 8] {
        [
            ("surfaces", self.surfaces),
            ("vertices", self.vertices),
            ("triangles", self.triangles),
            ("bones", self.bones),
            ("animations", self.animations),
            ("frames", self.frames),
            ("materials", self.materials),
            ("textures", self.textures),
        ]
    }
}

/// One vertex attribute and how the file stores it (`f32x3`, `u16x2 normalized`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute {
    /// What it is: `position`, `normal`, `tangent`, `uv0`, `uv1`, `color`, `skin`,
    /// `morph targets`, `indices`.
    pub name: String,
    /// How it is stored: component type and count (`f32x3`, `i16x4`, `u16`), with what
    /// it means when the type alone does not say (`i16x4 tangent-frame quaternion`).
    pub stored: String,
}

impl Attribute {
    /// An attribute named `name` stored as `stored`.
    ///
    /// ```
    /// let a = meshfmt_core::Attribute::new("uv0", "f32x2");
    /// assert_eq!((a.name.as_str(), a.stored.as_str()), ("uv0", "f32x2"));
    /// ```
    pub fn new(name: impl Into<String>, stored: impl Into<String>) -> Self {
        Attribute {
            name: name.into(),
            stored: stored.into(),
        }
    }
}

/// One surface.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SurfaceSummary {
    /// Its name (may be empty).
    pub name: String,
    /// Vertices.
    pub vertices: u64,
    /// Triangles.
    pub triangles: u64,
    /// Attributes present, as stored.
    pub attributes: Vec<Attribute>,
    /// Its material's name, if any.
    pub material: Option<String>,
    /// Its positions' box, if it has any finite one.
    pub bounds: Option<Aabb>,
}

impl SurfaceSummary {
    /// A surface with no material.
    pub fn new(
        name: impl Into<String>,
        vertices: u64,
        triangles: u64,
        attributes: Vec<Attribute>,
        bounds: Option<Aabb>,
    ) -> SurfaceSummary {
        SurfaceSummary {
            name: name.into(),
            vertices,
            triangles,
            attributes,
            material: None,
            bounds,
        }
    }
}

/// The skeleton.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkeletonSummary {
    /// Bones.
    pub bones: u64,
    /// Names of the root bones.
    pub roots: Vec<String>,
    /// Bones on the longest root-to-leaf chain.
    pub depth: u64,
}

impl SkeletonSummary {
    /// The summary of bones named `names` with parents `parents` (one per bone, as the
    /// file has them). A parent out of range or the bone itself counts as none, and a
    /// cycle is cut where it closes (as [`Skeleton::forest_parents`] does), so hostile
    /// parent lists give a finite depth in linear time.
    ///
    /// ```
    /// use meshfmt_core::SkeletonSummary;
    /// // root <- a <- b, root2; c names a parent that does not exist.
    /// let names = ["root", "a", "b", "root2", "c"].map(String::from);
    /// let s = SkeletonSummary::from_parents(&names, &[None, Some(0), Some(1), None, Some(99)]);
    /// assert_eq!((s.bones, s.depth), (5, 3));
    /// assert_eq!(s.roots, ["root", "root2", "c"]);
    /// ```
    pub fn from_parents(names: &[String], parents: &[Option<usize>]) -> SkeletonSummary {
        let skeleton = Skeleton {
            bones: parents
                .iter()
                .map(|&parent| Bone {
                    parent,
                    ..Bone::default()
                })
                .collect(),
        };
        let parents = skeleton.forest_parents();
        SkeletonSummary {
            bones: parents.len() as u64,
            roots: parents
                .iter()
                .enumerate()
                .filter(|(_, p)| p.is_none())
                .map(|(i, _)| names.get(i).cloned().unwrap_or_default())
                .collect(),
            depth: forest_depth(&parents),
        }
    }
}

/// Bones on the longest root-to-leaf chain of a forest (no cycles: see
/// [`Skeleton::forest_parents`]), each bone's depth computed once.
fn forest_depth(parents: &[Option<usize>]) -> u64 {
    let mut depth = vec![0u64; parents.len()];
    // Parents come before children in most files, but not in all: walk up until a
    // known depth.
    let mut chain = Vec::new();
    for start in 0..parents.len() {
        chain.clear();
        let mut at = Some(start);
        let mut base = 0;
        while let Some(i) = at {
            match depth.get(i) {
                Some(&d) if d > 0 => {
                    base = d;
                    break;
                }
                Some(_) => {}
                None => break,
            }
            // A forest has no cycle; the bound keeps a broken one finite all the same.
            if chain.len() > parents.len() {
                break;
            }
            chain.push(i);
            at = parents.get(i).copied().flatten();
        }
        for &i in chain.iter().rev() {
            base += 1;
            if let Some(d) = depth.get_mut(i) {
                *d = base;
            }
        }
    }
    depth.iter().copied().max().unwrap_or(0)
}

/// One animation clip.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClipSummary {
    /// Its name (may be empty).
    pub name: String,
    /// Length in seconds.
    pub duration: f32,
    /// Frames per second, for frame-based formats.
    pub fps: Option<f32>,
    /// Frames (frame-based formats) or keys (the most any track has).
    pub keys: u64,
    /// Animated bones.
    pub channels: u64,
}

impl ClipSummary {
    /// A frame-based clip: `frames` frames at `fps`, frame `f` at `f / fps`, so it lasts
    /// `(frames - 1) / fps` seconds (0 for fewer than two frames or a non-positive fps).
    ///
    /// ```
    /// let c = meshfmt_core::ClipSummary::frames("bend", 31, 30.0, 2);
    /// assert_eq!((c.duration, c.fps, c.keys, c.channels), (1.0, Some(30.0), 31, 2));
    /// ```
    pub fn frames(name: impl Into<String>, frames: u64, fps: f32, channels: u64) -> Self {
        let duration = if fps > 0.0 && frames > 1 {
            (frames - 1) as f32 / fps
        } else {
            0.0
        };
        ClipSummary {
            name: name.into(),
            duration,
            fps: Some(fps),
            keys: frames,
            channels,
        }
    }
}

/// One material.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MaterialSummary {
    /// Its name.
    pub name: String,
    /// `role: texture name` per bound texture.
    pub textures: Vec<String>,
}

/// One texture.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextureSummary {
    /// Its name.
    pub name: String,
    /// Where its pixels are: `file NAME` (a file the model names) or `embedded`.
    pub source: String,
    /// Width and height in pixels, when decoded.
    pub pixels: Option<(u32, u32)>,
    /// Bytes the file spends on the image (embedded images), when known.
    pub bytes: Option<u64>,
}

/// What `info` shows about a file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Format name.
    pub format: String,
    /// Version or form.
    pub version: String,
    /// The stable counts.
    pub counts: Counts,
    /// Every surface.
    pub surfaces: Vec<SurfaceSummary>,
    /// The skeleton, when there is one.
    pub skeleton: Option<SkeletonSummary>,
    /// Every clip.
    pub animations: Vec<ClipSummary>,
    /// Every material.
    pub materials: Vec<MaterialSummary>,
    /// Every texture.
    pub textures: Vec<TextureSummary>,
    /// The box of every surface's positions.
    pub bounds: Option<Aabb>,
    /// True when [`Summary::bounds`] is the box the file stores, false when computed
    /// from the positions.
    pub bounds_stored: bool,
}

fn role_name(role: TextureRole) -> &'static str {
    match role {
        TextureRole::BaseColor => "base color",
        TextureRole::Normal => "normal",
        TextureRole::MetallicRoughness => "metallic-roughness",
        TextureRole::Emissive => "emissive",
        TextureRole::Occlusion => "occlusion",
    }
}

/// The box of finite points, if any.
fn finite_box<'a>(points: impl Iterator<Item = &'a glam::Vec3>) -> Option<Aabb> {
    let mut b: Option<Aabb> = None;
    for p in points.filter(|p| p.is_finite()) {
        b = Some(match b {
            None => Aabb { min: *p, max: *p },
            Some(a) => Aabb {
                min: a.min.min(*p),
                max: a.max.max(*p),
            },
        });
    }
    b
}

/// The box `min..max` a file stores, when it is one: every value finite and `min <= max`
/// on each axis (files store an inverted or NaN box for "no vertices").
///
/// ```
/// use meshfmt_core::{glam::Vec3, summary::stored_box};
/// assert_eq!(stored_box([0.0; 3], [1.0; 3]).map(|b| b.max), Some(Vec3::ONE));
/// assert_eq!(stored_box([1.0; 3], [-1.0; 3]), None);
/// assert_eq!(stored_box([f32::NAN; 3], [1.0; 3]), None);
/// ```
pub fn stored_box(min: [f32; 3], max: [f32; 3]) -> Option<Aabb> {
    let (min, max) = (glam::Vec3::from_array(min), glam::Vec3::from_array(max));
    (min.is_finite() && max.is_finite() && min.cmple(max).all()).then_some(Aabb { min, max })
}

/// The box of the finite points among `points`, if any (for formats that store no box).
///
/// ```
/// use meshfmt_core::{glam::Vec3, summary::points_box};
/// let b = points_box([[0.0, 2.0, 0.0], [1.0, -1.0, f32::NAN], [-1.0, 0.0, 3.0]]);
/// assert_eq!(b.map(|b| (b.min, b.max)), Some((Vec3::new(-1.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 3.0))));
/// ```
pub fn points_box(points: impl IntoIterator<Item = [f32; 3]>) -> Option<Aabb> {
    let mut b: Option<Aabb> = None;
    for p in points.into_iter().map(glam::Vec3::from_array) {
        if !p.is_finite() {
            continue;
        }
        b = Some(match b {
            None => Aabb { min: p, max: p },
            Some(a) => Aabb {
                min: a.min.min(p),
                max: a.max.max(p),
            },
        });
    }
    b
}

/// The box around two optional boxes.
pub fn union(a: Option<Aabb>, b: Option<Aabb>) -> Option<Aabb> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Aabb {
            min: a.min.min(b.min),
            max: a.max.max(b.max),
        }),
        (a, None) => a,
        (None, b) => b,
    }
}

impl Summary {
    /// Adds a surface and counts it (surfaces, vertices, triangles).
    ///
    /// ```
    /// use meshfmt_core::summary::{Attribute, Summary, SurfaceSummary};
    /// let mut s = Summary::default();
    /// s.push_surface(SurfaceSummary::new("body", 8, 12, vec![Attribute::new("position", "f32x3")], None));
    /// s.push_surface(SurfaceSummary::new("", 3, 1, Vec::new(), None));
    /// assert_eq!((s.counts.surfaces, s.counts.vertices, s.counts.triangles), (2, 11, 13));
    /// assert_eq!(s.surfaces[0].name, "body");
    /// ```
    pub fn push_surface(&mut self, surface: SurfaceSummary) {
        self.counts.surfaces += 1;
        self.counts.vertices += surface.vertices;
        self.counts.triangles += surface.triangles;
        self.surfaces.push(surface);
    }

    /// The summary of a meshfmt-core model, attributes given as meshfmt-core holds them
    /// (`f32x3` ...): what formats without a summary of their own report.
    ///
    /// ```
    /// use meshfmt_core::{glam::Vec3, Model, Summary, Surface};
    /// let m = Model {
    ///     surfaces: vec![Surface { name: "tri".into(), positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y], indices: vec![0, 1, 2], ..Default::default() }],
    ///     ..Default::default()
    /// };
    /// let s = Summary::of_model(&m);
    /// assert_eq!((s.counts.surfaces, s.counts.vertices, s.counts.triangles), (1, 3, 1));
    /// assert_eq!(s.surfaces[0].attributes[0].name, "position");
    /// assert_eq!(s.bounds.map(|b| b.max), Some(Vec3::new(1.0, 1.0, 0.0)));
    /// ```
    pub fn of_model(model: &Model) -> Summary {
        let attrs = |s: &crate::Surface| {
            let mut a = Vec::new();
            let mut add = |present: bool, name: &str, stored: &str| {
                if present {
                    a.push(Attribute {
                        name: name.into(),
                        stored: stored.into(),
                    });
                }
            };
            add(!s.positions.is_empty(), "position", "f32x3");
            add(!s.normals.is_empty(), "normal", "f32x3");
            add(!s.tangents.is_empty(), "tangent", "f32x4");
            add(!s.uv0.is_empty(), "uv0", "f32x2");
            add(!s.uv1.is_empty(), "uv1", "f32x2");
            add(!s.colors.is_empty(), "color", "f32x4");
            add(!s.skin.is_empty(), "skin", "u32x8 + f32x8");
            add(!s.morph_targets.is_empty(), "morph targets", "f32x3 each");
            a
        };
        let surfaces: Vec<SurfaceSummary> = model
            .surfaces
            .iter()
            .map(|s| SurfaceSummary {
                name: s.name.clone(),
                vertices: s.positions.len() as u64,
                triangles: s.triangle_count() as u64,
                attributes: attrs(s),
                material: s
                    .material
                    .and_then(|m| model.materials.get(m))
                    .map(|m| m.name.clone()),
                bounds: finite_box(s.positions.iter()),
            })
            .collect();
        let skeleton = (!model.skeleton.is_empty()).then(|| {
            let parents = model.skeleton.forest_parents();
            SkeletonSummary {
                bones: parents.len() as u64,
                roots: parents
                    .iter()
                    .zip(&model.skeleton.bones)
                    .filter(|(p, _)| p.is_none())
                    .map(|(_, b)| b.name.clone())
                    .collect(),
                depth: forest_depth(&parents),
            }
        });
        let animations: Vec<ClipSummary> = model
            .animations
            .iter()
            .map(|c| ClipSummary {
                name: c.name.clone(),
                duration: c.duration(),
                fps: None,
                keys: c.max_keys() as u64,
                channels: c.channels.len() as u64,
            })
            .collect();
        let materials = model
            .materials
            .iter()
            .map(|m| MaterialSummary {
                name: m.name.clone(),
                textures: m
                    .textures
                    .iter()
                    .map(|b| {
                        let name = model
                            .textures
                            .get(b.texture)
                            .map_or("(missing)", |t| t.name.as_str());
                        format!("{}: {name}", role_name(b.role))
                    })
                    .collect(),
            })
            .collect();
        let textures = model
            .textures
            .iter()
            .map(|t| match &t.source {
                TextureSource::Path(p) => TextureSummary {
                    name: t.name.clone(),
                    source: format!("file {p}"),
                    ..TextureSummary::default()
                },
                TextureSource::Embedded(img) => TextureSummary {
                    name: t.name.clone(),
                    source: "embedded".into(),
                    pixels: Some((img.width, img.height)),
                    bytes: None,
                },
            })
            .collect();
        let bounds = finite_box(model.surfaces.iter().flat_map(|s| s.positions.iter()));
        Summary {
            format: String::new(),
            version: String::new(),
            counts: Counts {
                surfaces: surfaces.len() as u64,
                vertices: model.vertex_count() as u64,
                triangles: model.triangle_count() as u64,
                bones: model.skeleton.len() as u64,
                animations: model.animations.len() as u64,
                frames: animations.iter().map(|a| a.keys).sum(),
                materials: model.materials.len() as u64,
                textures: model.textures.len() as u64,
            },
            surfaces,
            skeleton,
            animations,
            materials,
            textures,
            bounds,
            bounds_stored: false,
        }
    }
}
