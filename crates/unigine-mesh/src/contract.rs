//! The meshfmt-core format contract ([`FORMAT`]), for tools that iterate formats.

use std::any::Any;

use meshfmt_core::format::{Context, Format, FormatError, FormatFile, Written};
use meshfmt_core::summary::{points_box, stored_box, union};
use meshfmt_core::{
    Attribute, ClipSummary, Converted, Counts, Feature, Model, Summary, SurfaceSummary,
};
use parsing_primitives::RawString;

use unigine_common::summary::hierarchy;

use crate::ms14::{StoredBlock, SurfaceBlocks};

use crate::{CoreOptions, Error, MeshFile, ReadOptions, TargetVersion, WriteOptions};

/// UNIGINE meshes (every version) as a [`Format`].
///
/// ```
/// use meshfmt_core::format::{Context, Format};
/// let f = &unigine_mesh::FORMAT;
/// let model = meshfmt_core::canonical::cube();
/// let cx = Context { version: Some("ms14"), ..Context::new("cube.mesh") };
/// let file = f.from_core(&model, &cx)?.value;
/// assert_eq!(file.version(), "ms14");
/// let bytes = file.write(&cx)?.main;
/// assert_eq!(f.read(&bytes, &Context::new("cube.mesh"))?.version(), "ms14");
/// # Ok::<(), meshfmt_core::format::FormatError>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct UnigineMesh;

/// The format, for registries.
pub const FORMAT: UnigineMesh = UnigineMesh;

impl From<Error> for FormatError {
    fn from(e: Error) -> Self {
        let format = crate::FORMAT_NAME;
        match e {
            Error::Decode(d) => FormatError::Decode(d),
            Error::OverBudget(b) => FormatError::OverBudget(b),
            Error::Io(io) => FormatError::Io(io),
            Error::UnsupportedVersion(v) => FormatError::Unsupported {
                format,
                message: format!("unsupported UNIGINE mesh version {v}"),
            },
            Error::NotAMesh(_) => FormatError::not_this_format(format, e.to_string()),
            other => FormatError::invalid(format, other.to_string()),
        }
    }
}

const VERSIONS: &[&str] = &crate::versions::NAMES;

impl Format for UnigineMesh {
    fn name(&self) -> &'static str {
        crate::FORMAT_NAME
    }

    fn description(&self) -> &'static str {
        "UNIGINE mesh (mi08, ms08 .smesh, ms10, ms11, ms13, ms14, ms15, sk10 .mesh_skinned, sn10 .skeleton)"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["mesh", "smesh", "mesh_skinned", "skeleton"]
    }

    fn sniff(&self, data: &[u8]) -> bool {
        crate::sniff(data)
    }

    fn versions(&self) -> &'static [&'static str] {
        VERSIONS
    }

    fn version_for_extension(&self, ext: &str) -> Option<&'static str> {
        crate::versions::version_for_extension(ext)
    }

    fn holds(&self, version: Option<&str>) -> &'static [Feature] {
        crate::versions::holds(version.unwrap_or(TargetVersion::default().name()))
    }

    fn read(&self, data: &[u8], cx: &Context<'_>) -> Result<Box<dyn FormatFile>, FormatError> {
        let opts = ReadOptions {
            budget: Some(cx.budget.clone()),
            ..ReadOptions::default()
        };
        Ok(Box::new(crate::read_with(data, &opts)?))
    }

    fn from_core(
        &self,
        model: &Model,
        cx: &Context<'_>,
    ) -> Result<Converted<Box<dyn FormatFile>>, FormatError> {
        if let Some(q) = cx.quality {
            return Err(FormatError::Unsupported {
                format: crate::FORMAT_NAME,
                message: format!(
                    "--quality {q} does not apply (UNIGINE meshes do not quantize by choice)"
                ),
            });
        }
        let ext = cx.extension();
        let name = cx
            .version
            .or_else(|| self.version_for_extension(&ext))
            .unwrap_or(TargetVersion::default().name());
        let version = TargetVersion::from_name(name).ok_or_else(|| FormatError::Unsupported {
            format: crate::FORMAT_NAME,
            message: format!(
                "cannot write version '{name}' (choose {})",
                VERSIONS.join(", ")
            ),
        })?;
        let opts = WriteOptions {
            version,
            budget: Some(cx.budget.clone()),
            ..WriteOptions::default()
        };
        let c = MeshFile::from_core(model, &opts)?;
        Ok(c.map(|f| Box::new(f) as Box<dyn FormatFile>))
    }
}

impl FormatFile for MeshFile {
    fn format(&self) -> &'static str {
        crate::FORMAT_NAME
    }

    fn version(&self) -> String {
        MeshFile::version(self).to_string()
    }

    /// What the file stores, read from the faithful types (no conversion): surfaces with
    /// their attributes' stored types, stored bounds, the bone hierarchy and embedded
    /// clips at the engine's 30 fps. Counts: vertices are the coordinate vertices of
    /// morph target 0 and triangles the coordinate indices / 3, summed over surfaces;
    /// frames are summed over embedded animations (frame 0 of ms08 is the bind pose).
    fn summary(&self, cx: &Context<'_>) -> Result<Summary, FormatError> {
        let mut s = Summary {
            format: crate::FORMAT_NAME.into(),
            version: MeshFile::version(self).into(),
            ..Summary::default()
        };
        match self {
            MeshFile::Ms1x(m) => ms1x_detail(m, &[], &mut s),
            MeshFile::Ms14(m) => ms1x_detail(&m.mesh, &geometry_blocks(&m.blocks), &mut s),
            MeshFile::Ms15(m) => ms1x_detail(&m.0.mesh, &geometry_blocks(&m.0.blocks), &mut s),
            MeshFile::Sk10(k) => {
                let blocks: Vec<&StoredBlock> = k.blocks.iter().collect();
                ms1x_detail(&k.mesh, &blocks, &mut s);
            }
            MeshFile::Sn10(n) => {
                s.skeleton = hierarchy(n.joints.iter().map(|j| (&j.name, i32::from(j.parent))));
            }
            MeshFile::Mi08(m) => old_detail(
                m.surfaces.iter().map(|x| OldSurface {
                    name: &x.name,
                    positions: &x.positions,
                    uv: [x.uv0.is_empty(), x.uv1.is_empty()],
                    skinned: false,
                    triangles: x.triangles.len(),
                    bounds: stored_box(x.bounds.min, x.bounds.max),
                }),
                &mut s,
            ),
            MeshFile::Ms08(m) => {
                old_detail(
                    m.surfaces.iter().map(|x| OldSurface {
                        name: &x.name,
                        positions: &x.positions,
                        uv: [x.uv0.is_empty(), x.uv1.is_empty()],
                        skinned: !x.weight_counts.is_empty(),
                        triangles: x.triangles.len(),
                        bounds: None,
                    }),
                    &mut s,
                );
                s.skeleton = hierarchy(m.bones.iter().map(|b| (&b.name, b.parent)));
                // Frame 0 is the bind pose; the rest form the one animation.
                if m.num_frames > 1 {
                    s.animations.push(ClipSummary::frames(
                        "animation",
                        u64::from(m.num_frames - 1),
                        crate::DEFAULT_FPS,
                        m.bones.len() as u64,
                    ));
                }
            }
        }
        // What the summary holds: names and one line per surface, bone and clip.
        let names: usize = s.surfaces.iter().map(|x| x.name.len() + 256).sum::<usize>()
            + s.skeleton
                .as_ref()
                .map_or(0, |k| k.roots.iter().map(|r| r.len() + 24).sum())
            + s.animations
                .iter()
                .map(|a| a.name.len() + 64)
                .sum::<usize>();
        cx.budget.charge("summary", names as u64)?;
        if let MeshFile::Mi08(m) = self {
            if let Some(b) = stored_box(m.bounds.min, m.bounds.max) {
                s.bounds = Some(b);
                s.bounds_stored = true;
            }
        }
        let c = &mut s.counts;
        let ms1x = |m: &crate::Ms1x, c: &mut Counts| {
            c.surfaces = m.surfaces.len() as u64;
            c.vertices = m.surfaces.iter().map(|s| s.num_cvertices() as u64).sum();
            c.triangles = m.surfaces.iter().map(|s| s.cindices.len() as u64 / 3).sum();
            c.bones = m.bones.len() as u64;
            c.animations = m.animations.len() as u64;
            c.frames = m.animations.iter().map(|a| u64::from(a.num_frames)).sum();
        };
        match self {
            MeshFile::Ms1x(m) => ms1x(m, c),
            MeshFile::Ms14(m) => ms1x(&m.mesh, c),
            MeshFile::Ms15(m) => ms1x(&m.0.mesh, c),
            MeshFile::Sk10(k) => ms1x(&k.mesh, c),
            MeshFile::Sn10(n) => {
                *c = Counts::default();
                c.bones = n.joints.len() as u64;
            }
            MeshFile::Mi08(m) => {
                *c = Counts::default();
                c.surfaces = m.surfaces.len() as u64;
                c.vertices = m.surfaces.iter().map(|s| s.positions.len() as u64).sum();
                c.triangles = m.surfaces.iter().map(|s| s.triangles.len() as u64).sum();
            }
            MeshFile::Ms08(m) => {
                *c = Counts::default();
                c.surfaces = m.surfaces.len() as u64;
                c.vertices = m.surfaces.iter().map(|s| s.positions.len() as u64).sum();
                c.triangles = m.surfaces.iter().map(|s| s.triangles.len() as u64).sum();
                c.bones = m.bones.len() as u64;
                // Frame 0 is the bind pose; the rest form the one animation.
                c.animations = u64::from(m.num_frames > 1);
                c.frames = u64::from(m.num_frames.saturating_sub(1));
            }
        }
        // UNIGINE meshes keep materials in separate files.
        c.materials = 0;
        c.textures = 0;
        Ok(s)
    }

    fn write(&self, cx: &Context<'_>) -> Result<Written, FormatError> {
        let bytes = MeshFile::write(self)?;
        cx.budget.charge("encoded output", bytes.len() as u64)?;
        Ok(Written::one(bytes))
    }

    fn to_core(&self, cx: &Context<'_>) -> Result<Converted<Model>, FormatError> {
        let opts = CoreOptions {
            budget: Some(cx.budget.clone()),
            ..CoreOptions::default()
        };
        Ok(self.to_core_with(&opts)?)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// `u8`, `u16` or `u32`: the index type of an array addressing `count` elements.
fn index_type(count: usize) -> &'static str {
    match crate::common::index_width(count) {
        1 => "u8",
        2 => "u16",
        _ => "u32",
    }
}

fn geometry_blocks(blocks: &[SurfaceBlocks]) -> Vec<&StoredBlock> {
    blocks.iter().map(|b| &b.geometry).collect()
}

/// Surfaces, bounds, skeleton and clips of ms10/ms11/ms13 content (also inside ms14,
/// ms15 and sk10, whose geometry sits in LZ4 `blocks`, one per surface).
fn ms1x_detail(m: &crate::Ms1x, blocks: &[&StoredBlock], s: &mut Summary) {
    use crate::Ms1xVersion;
    let tangent = match m.version {
        Ms1xVersion::Ms10 => "i16x3 + i8 sign (quaternion)",
        Ms1xVersion::Ms11 | Ms1xVersion::Ms13 => "i16x4 (quaternion)",
    };
    for (i, x) in m.surfaces.iter().enumerate() {
        let mut a = Vec::new();
        let (nc, nt) = (x.num_cvertices(), x.num_tvertices());
        a.push(Attribute::new("position", "f32x3"));
        if nt > 0 {
            a.push(Attribute::new("tangent frame", tangent));
        }
        if !x.uv0.is_empty() {
            a.push(Attribute::new("uv0", "f32x2"));
        }
        if !x.uv1.is_empty() {
            a.push(Attribute::new("uv1", "f32x2"));
        }
        if !x.colors.is_empty() {
            a.push(Attribute::new("color", "u8x4"));
        }
        if !x.weights.is_empty() {
            a.push(Attribute::new("skin", "up to 4 x (i16 bone, u16 weight)"));
        }
        if x.morph_targets.len() > 1 {
            a.push(Attribute::new(
                "morph targets",
                format!("{} x (f32x3 + i16x4)", x.morph_targets.len() - 1),
            ));
        }
        a.push(Attribute::new(
            "indices",
            format!(
                "{} + {} (coordinate, tangent)",
                index_type(nc),
                index_type(nt)
            ),
        ));
        if let Some(g) = blocks.get(i) {
            a.push(Attribute::new(
                "block",
                if g.stored.len() == g.content.len() {
                    format!("{} bytes, stored raw", g.content.len())
                } else {
                    format!("LZ4, {} -> {} bytes", g.stored.len(), g.content.len())
                },
            ));
        }
        s.surfaces.push(SurfaceSummary {
            name: x.name.to_string_lossy(),
            vertices: nc as u64,
            triangles: x.cindices.len() as u64 / 3,
            attributes: a,
            material: None,
            bounds: stored_box(x.bounds.min, x.bounds.max),
        });
    }
    if let Some(b) = stored_box(m.bounds.min, m.bounds.max) {
        s.bounds = Some(b);
        s.bounds_stored = true;
    } else {
        s.bounds = points_box(
            m.surfaces
                .iter()
                .flat_map(|x| x.morph_targets.first())
                .flat_map(|t| t.vertices.iter().copied()),
        );
    }
    s.skeleton = hierarchy(m.bones.iter().map(|b| (&b.name, i32::from(b.parent))));
    s.animations = m
        .animations
        .iter()
        .map(|a| {
            ClipSummary::frames(
                a.name.to_string_lossy(),
                u64::from(a.num_frames),
                crate::DEFAULT_FPS,
                a.bones.len() as u64,
            )
        })
        .collect();
}

/// What an mi08 or ms08 surface shows.
struct OldSurface<'a> {
    name: &'a RawString,
    positions: &'a [[f32; 3]],
    /// UV sets 0 and 1 empty.
    uv: [bool; 2],
    skinned: bool,
    triangles: usize,
    bounds: Option<meshfmt_core::Aabb>,
}

/// Surfaces and bounds of mi08 and ms08 (normals compressed to u16; triangle indices
/// u16 below 65,536 vertices, else i32).
fn old_detail<'a>(surfaces: impl Iterator<Item = OldSurface<'a>>, s: &mut Summary) {
    for x in surfaces {
        let mut a = vec![
            Attribute::new("position", "f32x3"),
            Attribute::new("normal", "u16x3 (unorm, -1..1)"),
        ];
        for (k, empty) in x.uv.iter().enumerate() {
            if !empty {
                a.push(Attribute::new(format!("uv{k}"), "f32x2"));
            }
        }
        if x.skinned {
            a.push(Attribute::new("skin", "n x (u16 bone, u8 weight)"));
        }
        let wide = x.positions.len() >= 65536;
        a.push(Attribute::new("indices", if wide { "i32" } else { "u16" }));
        let computed = points_box(x.positions.iter().copied());
        s.bounds = union(s.bounds, computed);
        s.surfaces.push(SurfaceSummary {
            name: x.name.to_string_lossy(),
            vertices: x.positions.len() as u64,
            triangles: x.triangles as u64,
            attributes: a,
            material: None,
            bounds: x.bounds.or(computed),
        });
    }
}
