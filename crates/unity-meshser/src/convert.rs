//! Floats and meshfmt-core: [`MeshFile::to_surface`], [`MeshFile::from_surface`],
//! [`MeshFile::to_core`] and [`MeshFile::from_core`].

use std::mem::size_of;

use meshfmt_core::glam::{Vec2, Vec3, Vec4};
use meshfmt_core::{
    Budget, Converted, CoordinateSystem, Feature, LossKind, Model, Surface, VertexInfluences,
};

use crate::MAX_COUNT;
use crate::error::{Error, Result};
use crate::file::{Format, MeshFile};
use crate::quantize::{self, Quantization};

/// Writing choices.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// How floats become integers.
    pub quantization: Quantization,
    /// Store tangents when the mesh has them (the original script's `saveTangents`,
    /// which defaults to `false` there; here `true`, so nothing is dropped unasked).
    pub tangents: bool,
    /// The operation's budget (clones share it; the default is a fresh one of
    /// [`Limits::DEFAULT`](crate::Limits)).
    pub budget: Budget,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            quantization: Quantization::Rounded,
            tangents: true,
            budget: Budget::default(),
        }
    }
}

impl WriteOptions {
    /// What the original script does with `saveTangents`.
    pub fn compatible(save_tangents: bool) -> Self {
        WriteOptions {
            quantization: Quantization::Compatible,
            tangents: save_tangents,
            ..WriteOptions::default()
        }
    }
}

/// Choices for [`MeshFile::to_core_with`].
///
/// ```
/// use unity_meshser::{Budget, CoreOptions, Limits, MeshFile};
/// let file = MeshFile::default(); // no vertices
/// let budget = Budget::new(Limits::DEFAULT);
/// let opts = CoreOptions { budget: budget.clone() };
/// assert_eq!(file.to_core_with(&opts)?.value.vertex_count(), 0);
/// # Ok::<(), unity_meshser::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct CoreOptions {
    /// The operation's budget (clones share it; the default is a fresh one of
    /// [`Limits::DEFAULT`](crate::Limits)).
    pub budget: Budget,
}

/// Bytes of `count` values of `T`.
fn bytes_of<T>(count: usize) -> u64 {
    (count as u64).saturating_mul(size_of::<T>() as u64)
}

/// Unity's frame: +Y up, left-handed, meters. Front faces are clockwise on screen,
/// which is meshfmt-core's convention for a left-handed frame, so triangles carry over
/// as they are.
pub const COORDINATE_SYSTEM: CoordinateSystem = CoordinateSystem::Y_UP_LEFT;

impl MeshFile {
    /// The mesh as the original reader decodes it: positions, normals, tangents and
    /// UVs with its exact single-precision arithmetic, and the triangles.
    pub fn to_surface(&self) -> Surface {
        Surface {
            name: String::new(),
            positions: quantize::decode_positions(&self.position_bounds, &self.positions),
            normals: quantize::decode_normals(&self.normals),
            tangents: quantize::decode_tangents(&self.tangents),
            uv0: quantize::decode_uvs(&self.uv_bounds, &self.uvs),
            indices: self
                .triangles
                .iter()
                .flatten()
                .map(|&i| u32::from(i))
                .collect(),
            ..Surface::default()
        }
    }

    /// Encodes a surface's positions, normals, tangents (if `options.tangents`) and
    /// UV0; other attributes are ignored (see [`MeshFile::from_core`] for a conversion
    /// that reports them). Fails when the format cannot hold the mesh: more than
    /// [`MAX_COUNT`] vertices or triangles, indices not whole triangles or out of range,
    /// or attribute arrays of the wrong length.
    ///
    /// With [`Quantization::Compatible`] the bytes are those the original script
    /// writes for the same mesh.
    /// The quantized arrays are charged to `options.budget`.
    pub fn from_surface(surface: &Surface, options: &WriteOptions) -> Result<MeshFile> {
        let budget = &options.budget;
        let n = surface.positions.len();
        if n > usize::from(MAX_COUNT) {
            return Err(Error::TooManyVertices {
                count: n,
                max: MAX_COUNT,
            });
        }
        if surface.indices.len() % 3 != 0 {
            return Err(Error::NotTriangles {
                len: surface.indices.len(),
            });
        }
        let t = surface.indices.len() / 3;
        if t > usize::from(MAX_COUNT) {
            return Err(Error::TooManyTriangles {
                count: t,
                max: MAX_COUNT,
            });
        }
        let check_len = |name: &str, len: usize| {
            if len != 0 && len != n {
                return Err(Error::Inconsistent(format!(
                    "{name} has {len} entries for {n} positions"
                )));
            }
            Ok(())
        };
        check_len("normals", surface.normals.len())?;
        check_len("tangents", surface.tangents.len())?;
        check_len("uv0", surface.uv0.len())?;
        // At most MAX_COUNT of each, checked above.
        budget.charge(
            "quantized mesh",
            bytes_of::<[u16; 3]>(n)
                .saturating_add(bytes_of::<[u8; 3]>(surface.normals.len()))
                .saturating_add(bytes_of::<[u8; 4]>(surface.tangents.len()))
                .saturating_add(bytes_of::<[u16; 2]>(surface.uv0.len()))
                .saturating_add(bytes_of::<[u16; 3]>(t)),
        )?;
        let mut triangles = Vec::with_capacity(t);
        for (triangle, tri) in surface.indices.chunks_exact(3).enumerate() {
            let mut out = [0u16; 3];
            for (o, &index) in out.iter_mut().zip(tri) {
                if index as usize >= n {
                    return Err(Error::IndexOutOfRange {
                        triangle,
                        index,
                        vertices: n,
                    });
                }
                // Below n <= MAX_COUNT, so it fits.
                *o = index as u16;
            }
            triangles.push(out);
        }
        let mode = options.quantization;
        let (position_bounds, positions) = quantize::encode_positions(&surface.positions, mode);
        let normals = quantize::encode_normals(&surface.normals, mode);
        let tangents = if options.tangents {
            quantize::encode_tangents(&surface.tangents, mode)
        } else {
            Vec::new()
        };
        let (uv_bounds, uvs) = quantize::encode_uvs(&surface.uv0, mode);
        let mut file = MeshFile {
            format: Format::default(),
            position_bounds,
            positions,
            normals,
            tangents,
            uv_bounds,
            uvs,
            triangles,
        };
        // The original sets bits from the source arrays, even for an empty mesh.
        let mut f = Format::POSITIONS;
        if !surface.normals.is_empty() {
            f |= Format::NORMALS;
        }
        if options.tangents && !surface.tangents.is_empty() {
            f |= Format::TANGENTS;
        }
        if !surface.uv0.is_empty() {
            f |= Format::UVS;
        }
        file.format = Format(f);
        Ok(file)
    }

    /// The file as a meshfmt-core model: one surface, in Unity's frame
    /// ([`COORDINATE_SYSTEM`]), V flipped to meshfmt-core's top-left UV origin (Unity's
    /// is bottom-left; [`MeshFile::to_surface`] keeps Unity's). Nothing is lost.
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_with(&CoreOptions::default())
    }

    /// [`MeshFile::to_core`] under `options`' budget: the decoded surface is charged
    /// (as "decoded surface") before it is built.
    pub fn to_core_with(&self, options: &CoreOptions) -> Result<Converted<Model>> {
        options.budget.charge(
            "decoded surface",
            bytes_of::<Vec3>(self.positions.len())
                .saturating_add(bytes_of::<Vec3>(self.normals.len()))
                .saturating_add(bytes_of::<Vec4>(self.tangents.len()))
                .saturating_add(bytes_of::<Vec2>(self.uvs.len()))
                .saturating_add(bytes_of::<[u32; 3]>(self.triangles.len())),
        )?;
        // MeshSerializer2 stores no names: the surface has none (a name made up here
        // would come back from every conversion as if the file had it).
        let mut surface = self.to_surface();
        flip_v(&mut surface);
        Ok(Converted::exact(Model {
            name: String::new(),
            coordinate_system: COORDINATE_SYSTEM,
            surfaces: vec![surface],
            ..Model::default()
        }))
    }

    /// Encodes a meshfmt-core model: converted to Unity's frame, its surfaces merged
    /// into one mesh, V flipped back to Unity's bottom-left UV origin. Every feature the
    /// format cannot hold is reported as a loss, and the quantization of each kept one
    /// with its error bound.
    ///
    /// With the default [`WriteOptions`]; see [`MeshFile::from_core_with`].
    pub fn from_core(model: &Model) -> Result<Converted<MeshFile>> {
        MeshFile::from_core_with(model, &WriteOptions::default())
    }

    /// [`MeshFile::from_core`] as `options` ask, under their budget. The vertex and
    /// triangle counts are checked against [`MAX_COUNT`] first, so a model the format
    /// cannot hold is refused before anything is copied; the merged surface and the
    /// quantized arrays are charged before they are built.
    pub fn from_core_with(model: &Model, options: &WriteOptions) -> Result<Converted<MeshFile>> {
        let (vertices, indices) = model.surfaces.iter().fold((0usize, 0usize), |(v, i), s| {
            (
                v.saturating_add(s.positions.len()),
                i.saturating_add(s.indices.len()),
            )
        });
        // The errors from_surface gives for the merged mesh, before merging it.
        if vertices > usize::from(MAX_COUNT) {
            return Err(Error::TooManyVertices {
                count: vertices,
                max: MAX_COUNT,
            });
        }
        if indices % 3 != 0 {
            return Err(Error::NotTriangles { len: indices });
        }
        if indices / 3 > usize::from(MAX_COUNT) {
            return Err(Error::TooManyTriangles {
                count: indices / 3,
                max: MAX_COUNT,
            });
        }
        let mut out = Converted::exact(());
        let mut merged = merge(model, &mut out, &options.budget)?;
        flip_v(&mut merged);
        report_dropped(model, &merged, options, &mut out);
        let file = MeshFile::from_surface(&merged, options)?;
        // Bounds are measured in Unity's meters; the caller compares in its own units.
        let back = COORDINATE_SYSTEM
            .conversion_to(&model.coordinate_system)
            .scale;
        report_quantized(&file, options, back, &mut out);
        Ok(out.map(|()| file))
    }
}

/// Unity's UV origin is the bottom-left of the image, meshfmt-core's (glTF's) the
/// top-left: `v' = 1 - v` both ways.
fn flip_v(surface: &mut Surface) {
    for uv in &mut surface.uv0 {
        uv.y = 1.0 - uv.y;
    }
}

/// Concatenates the model's surfaces converted to Unity's frame (each as
/// [`Model::convert_to`] would, without copying the rest of the model); an attribute
/// survives only if every surface with vertices has it. The counts were checked against
/// [`MAX_COUNT`]; the copy is charged to `budget` first.
fn merge(model: &Model, out: &mut Converted<()>, budget: &Budget) -> Result<Surface> {
    let surfaces = &model.surfaces;
    let with_vertices = || surfaces.iter().filter(|s| !s.positions.is_empty());
    let all = |has: fn(&Surface) -> bool| with_vertices().all(has);
    let keep_normals = all(|s| !s.normals.is_empty());
    let keep_tangents = all(|s| !s.tangents.is_empty());
    let keep_uv0 = all(|s| !s.uv0.is_empty());
    for (kept, any, feature, name) in [
        (
            keep_normals,
            with_vertices().any(|s| !s.normals.is_empty()),
            Feature::Normals,
            "normals",
        ),
        (
            keep_tangents,
            with_vertices().any(|s| !s.tangents.is_empty()),
            Feature::Tangents,
            "tangents",
        ),
        (
            keep_uv0,
            with_vertices().any(|s| !s.uv0.is_empty()),
            Feature::Uv0,
            "UV0",
        ),
    ] {
        if !kept && any {
            out.lose(
                feature,
                LossKind::Dropped,
                "",
                format!("only some surfaces have {name}; one merged mesh needs all or none"),
            );
        }
    }
    if surfaces.len() > 1 {
        out.lose(
            Feature::Names,
            LossKind::Reduced,
            "",
            format!(
                "{} surfaces merged into one mesh (unity-meshser holds one)",
                surfaces.len()
            ),
        );
    }
    let total = |len: fn(&Surface) -> usize| {
        surfaces
            .iter()
            .fold(0usize, |n, s| n.saturating_add(len(s)))
    };
    let keep = |kept: bool, n: usize| if kept { n } else { 0 };
    let (n, ni) = (total(|s| s.positions.len()), total(|s| s.indices.len()));
    let (nn, nt, nu) = (
        keep(keep_normals, total(|s| s.normals.len())),
        keep(keep_tangents, total(|s| s.tangents.len())),
        keep(keep_uv0, total(|s| s.uv0.len())),
    );
    budget.charge(
        "merged surface",
        bytes_of::<Vec3>(n)
            .saturating_add(bytes_of::<Vec3>(nn))
            .saturating_add(bytes_of::<Vec4>(nt))
            .saturating_add(bytes_of::<Vec2>(nu))
            .saturating_add(bytes_of::<u32>(ni)),
    )?;
    let c = model.coordinate_system.conversion_to(&COORDINATE_SYSTEM);
    let mut m = Surface {
        positions: Vec::with_capacity(n),
        normals: Vec::with_capacity(nn),
        tangents: Vec::with_capacity(nt),
        uv0: Vec::with_capacity(nu),
        indices: Vec::with_capacity(ni),
        ..Surface::default()
    };
    for s in surfaces {
        // At most MAX_COUNT vertices in all (checked by the caller), so it fits.
        let base = u32::try_from(m.positions.len()).unwrap_or(u32::MAX);
        m.positions.extend(s.positions.iter().map(|&p| c.point(p)));
        if keep_normals {
            m.normals.extend(s.normals.iter().map(|&d| c.direction(d)));
        }
        if keep_tangents {
            m.tangents.extend(s.tangents.iter().map(|&t| c.tangent(t)));
        }
        if keep_uv0 {
            m.uv0.extend(&s.uv0);
        }
        c.append_indices(&mut m.indices, &s.indices, base);
    }
    Ok(m)
}

fn report_dropped(
    model: &Model,
    merged: &Surface,
    options: &WriteOptions,
    out: &mut Converted<()>,
) {
    let any = |f: fn(&Surface) -> bool| model.any_surface(f);
    out.drop_present([
        (
            any(|s| !s.uv1.is_empty()),
            Feature::Uv1,
            "unity-meshser has no second UV set",
        ),
        (
            any(|s| !s.colors.is_empty()),
            Feature::Colors,
            "unity-meshser has no vertex colors",
        ),
        (
            any(|s| s.skin.iter().any(|v: &VertexInfluences| v.count() > 0)),
            Feature::Skin,
            "unity-meshser has no skin",
        ),
        (
            !model.skeleton.is_empty(),
            Feature::Skeleton,
            "unity-meshser has no skeleton",
        ),
        (
            !model.animations.is_empty(),
            Feature::Animation,
            "unity-meshser has no animation",
        ),
        (
            any(|s| !s.morph_targets.is_empty()),
            Feature::MorphTargets,
            "unity-meshser has no morph targets",
        ),
        (
            !model.materials.is_empty() || any(|s| s.material.is_some()),
            Feature::Materials,
            "unity-meshser has no materials",
        ),
        (
            !model.textures.is_empty(),
            Feature::Textures,
            "unity-meshser has no textures",
        ),
    ]);
    if !options.tangents && !merged.tangents.is_empty() {
        out.lose(
            Feature::Tangents,
            LossKind::Dropped,
            "",
            "tangents not requested (WriteOptions::tangents)",
        );
    }
    if !model.name.is_empty() || model.surfaces.iter().any(|s| !s.name.is_empty()) {
        out.lose(
            Feature::Names,
            LossKind::Dropped,
            "",
            "unity-meshser stores no names",
        );
    }
}

/// The quantization losses of `file`; `units` converts a position error in the file's
/// meters into the source model's units.
fn report_quantized(file: &MeshFile, options: &WriteOptions, units: f32, out: &mut Converted<()>) {
    let mode = options.quantization;
    let b = &file.position_bounds;
    if !file.positions.is_empty() {
        let e = (0..3)
            .map(|a| quantize::box_error_bound(b[2 * a], b[2 * a + 1], mode))
            .fold(0.0, f32::max)
            * units;
        out.lose(
            Feature::Geometry,
            LossKind::Quantized { max_error: e },
            "",
            "16-bit positions across the bounding box",
        );
    }
    if !file.uvs.is_empty() {
        let u = &file.uv_bounds;
        let e = quantize::box_error_bound(u[0], u[1], mode)
            .max(quantize::box_error_bound(u[2], u[3], mode));
        out.lose(
            Feature::Uv0,
            LossKind::Quantized { max_error: e },
            "",
            "16-bit UVs across the UV box",
        );
    }
    let byte = quantize::byte_error_bound(mode);
    if !file.normals.is_empty() {
        out.lose(
            Feature::Normals,
            LossKind::Quantized { max_error: byte },
            "",
            "8-bit normal components",
        );
    }
    if !file.tangents.is_empty() {
        out.lose(
            Feature::Tangents,
            LossKind::Quantized { max_error: byte },
            "",
            "8-bit tangent components",
        );
    }
}
