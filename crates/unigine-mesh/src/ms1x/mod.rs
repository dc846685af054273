//! ms10 and ms11 (`.mesh`, UNIGINE 2.0 to ~2.9): faithful types, read and write.
//!
//! The two differ only in the tangent: ms10 stores `i16 x, y, z` of a unit quaternion
//! with `w >= 0` implicit plus an `i8` binormal sign (7 bytes); ms11 stores the whole
//! quaternion as `i16[4]`, the binormal sign being the sign of `w` (notes 5). Every
//! count and string length is a compact int; only the three magics are raw.

mod convert;

use parsing_primitives::compact::compact_len;
use parsing_primitives::{RawString, Reader, Writer};
use unigine_common::bones::{check_bones_and_pose, read_bones, write_bones};
use unigine_common::keys::{RotationRange, read_animated_bones, read_frames, read_key, write_key};

use crate::FORMAT_NAME;
use crate::common::{
    BindTransform, Bounds, MAX_NAME, first_out_of_range, index_width, read_bounds,
    read_indices_below, write_indices,
};
use crate::error::{Result, invalid};
use crate::input::Input;

pub use unigine_common::BoneInfo;

/// Which of the two layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ms1xVersion {
    /// `ms10`: 7-byte tangents.
    Ms10,
    /// `ms11`: 8-byte tangents.
    Ms11,
    /// `ms13` (UNIGINE 2.19): ms11 without embedded animations, with two lightmap bytes
    /// per surface header.
    Ms13,
}

/// The version to ask [`Ms1x::from_core_with`](crate::Ms1x::from_core_with) for.
///
/// ```
/// use unigine_mesh::{Ms1xVersion, TargetVersion};
/// assert_eq!(TargetVersion::from(Ms1xVersion::Ms10), TargetVersion::Ms10);
/// ```
impl From<Ms1xVersion> for crate::options::TargetVersion {
    fn from(v: Ms1xVersion) -> Self {
        match v {
            Ms1xVersion::Ms10 => crate::options::TargetVersion::Ms10,
            Ms1xVersion::Ms11 => crate::options::TargetVersion::Ms11,
            Ms1xVersion::Ms13 => crate::options::TargetVersion::Ms13,
        }
    }
}

impl Ms1xVersion {
    /// The magic.
    pub fn magic(self) -> &'static [u8; 4] {
        match self {
            Ms1xVersion::Ms10 => b"ms10",
            Ms1xVersion::Ms11 => b"ms11",
            Ms1xVersion::Ms13 => b"ms13",
        }
    }

    fn tangent_size(self) -> usize {
        match self {
            Ms1xVersion::Ms10 => 7,
            Ms1xVersion::Ms11 | Ms1xVersion::Ms13 => 8,
        }
    }
}

/// One bone's key in one frame of an embedded animation: translation and scale as
/// `f32`, rotation in units of 1/32767 (flag bits in [`unigine_common::keys`]).
pub type FrameKey = unigine_common::Key<f32>;

/// An animation stored inside the mesh (float translation and scale, i16 rotation, no
/// bounding boxes).
pub type EmbeddedAnimation = unigine_common::keys::Animation<f32>;

/// One morph target's geometry: coordinate vertices and tangent vertices.
#[derive(Debug, Clone, PartialEq)]
pub struct MorphTarget {
    /// Name (every sample: empty).
    pub name: RawString,
    /// Coordinate vertices (positions).
    pub vertices: Vec<[f32; 3]>,
    /// Tangent quaternions in units of 1/32767. ms11: x, y, z, w. ms10: x, y, z and, in
    /// the last slot, the stored `i8` binormal sign (+-127).
    pub tangents: Vec<[i16; 4]>,
}

/// Up to four (bone, weight) pairs of one coordinate vertex; weight / 65535.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VertexWeights {
    /// Pairs used (0..=4).
    pub count: u8,
    /// Bone indices.
    pub bones: [i16; 4],
    /// Weights in units of 1/65535 (real files truncate: sums of 65533..65535).
    pub weights: [u16; 4],
}

/// A surface: header fields and geometry.
#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    /// Name.
    pub name: RawString,
    /// Bounds as stored; derived data, rebuilt on write when they no longer fit the
    /// morph-target-0 vertices ([`Ms1x::bounds_to_write`]).
    pub bounds: Bounds,
    /// Lightmap UV channel and resolution (ms13 and later; zero in ms10/ms11, which do
    /// not store them).
    pub lightmap: [u8; 2],
    /// Morph targets; the first is the base geometry (at least one).
    pub morph_targets: Vec<MorphTarget>,
    /// One per coordinate vertex of morph target 0, or empty for static meshes.
    pub weights: Vec<VertexWeights>,
    /// UV set 0, per tangent vertex, or empty.
    pub uv0: Vec<[f32; 2]>,
    /// UV set 1, per tangent vertex, or empty.
    pub uv1: Vec<[f32; 2]>,
    /// RGBA colors, per tangent vertex, or empty.
    pub colors: Vec<[u8; 4]>,
    /// Triangle corners into the coordinate vertices (positions, weights).
    pub cindices: Vec<u32>,
    /// Triangle corners into the tangent vertices (tangents, UVs, colors).
    pub tindices: Vec<u32>,
}

impl Surface {
    /// Coordinate vertices of morph target 0.
    pub fn num_cvertices(&self) -> usize {
        self.morph_targets.first().map_or(0, |m| m.vertices.len())
    }

    /// Tangent vertices of morph target 0.
    pub fn num_tvertices(&self) -> usize {
        self.morph_targets.first().map_or(0, |m| m.tangents.len())
    }
}

/// An ms10 or ms11 file.
#[derive(Debug, Clone, PartialEq)]
pub struct Ms1x {
    /// Layout.
    pub version: Ms1xVersion,
    /// Whole-mesh bounds as stored; derived data, rebuilt on write when they no longer
    /// fit the surfaces ([`Ms1x::bounds_to_write`]).
    pub bounds: Bounds,
    /// Bone hierarchy.
    pub bones: Vec<BoneInfo>,
    /// Bind pose, one local transform per bone.
    pub bind_pose: Vec<BindTransform>,
    /// Embedded animations.
    pub animations: Vec<EmbeddedAnimation>,
    /// Surfaces.
    pub surfaces: Vec<Surface>,
}

fn read_name<'a>(r: &mut Reader<'a>) -> parsing_primitives::Result<&'a [u8]> {
    r.compact_nul_string(MAX_NAME)
}

/// A count that must be 0 or `expected`.
fn count_zero_or(
    r: &mut impl Input,
    expected: usize,
    what: &str,
    of: &str,
    min_size: usize,
) -> parsing_primitives::Result<usize> {
    let at = r.offset();
    let n = r.compact_count(min_size)?;
    if n != 0 && n != expected {
        return Err(r.invalid_at(
            at,
            format!("{n} {what}, but the surface has {expected} {of} (must be 0 or equal)"),
        ));
    }
    Ok(n)
}

/// Reads an ms10/ms11 file (after [`crate::read`] chose the version by magic).
pub(crate) fn read<'a>(
    r: &mut Reader<'a>,
    version: Ms1xVersion,
) -> parsing_primitives::Result<Ms1x> {
    let magic = version.magic();
    r.field("magic", |r| r.magic(magic))?;
    let bounds = r.field("bounds", read_bounds)?;
    let bones = read_bones(r)?;
    let num_bones = bones.len();
    // ms13 has no embedded animations.
    let has_animations = version != Ms1xVersion::Ms13;
    let num_animations = if has_animations {
        r.field("num_animations", |r| r.compact_count(1))?
    } else {
        0
    };
    let names = r.field("animation_names", |r| {
        r.array(num_animations as u64, 1, |r| {
            read_name(r).map(RawString::from)
        })
    })?;
    let num_surfaces = r.field("num_surfaces", |r| r.compact_count(42))?;
    let mut headers = r.field("surfaces", |r| {
        r.array(num_surfaces as u64, 42, |r| {
            let name = read_name(r)?;
            r.label(name);
            let lightmap = if has_animations {
                [0, 0]
            } else {
                r.le::<[u8; 2]>()?
            };
            let bounds = read_bounds(r)?;
            let n = r.field("num_morph_targets", |r| r.compact_count(1))?;
            if n == 0 {
                return Err(r.invalid_at(r.offset(), "a surface needs at least one morph target"));
            }
            let morph_names = r.field("morph_targets", |r| {
                r.array(n as u64, 1, |r| read_name(r).map(RawString::from))
            })?;
            Ok((name, lightmap, bounds, morph_names))
        })
    })?;
    r.field("marker2", |r| r.magic(magic))?;
    let bind_pose = r.field("bind_pose", |r| r.le_array::<[f32; 10]>(num_bones as u64))?;
    let bind_pose = bind_pose
        .into_iter()
        .map(BindTransform::from_array)
        .collect();
    let mut animations = Vec::with_capacity(num_animations);
    for (a, name) in names.into_iter().enumerate() {
        let anim = r.field("animations", |r| {
            r.item(a, |r| {
                let bones = read_animated_bones(r, num_bones)?;
                let flags = r.field("flags", |r| r.u8())?;
                let (num_frames, keys) =
                    read_frames(r, bones.len(), |r| read_key(r, RotationRange::AsStored))?;
                Ok(EmbeddedAnimation {
                    boxes: (),
                    name,
                    bones,
                    flags,
                    num_frames,
                    keys,
                })
            })
        })?;
        animations.push(anim);
    }
    let tsize = version.tangent_size();
    let mut surfaces = Vec::with_capacity(num_surfaces);
    for (s, (name, lightmap, bounds, morph_names)) in headers.drain(..).enumerate() {
        let surface = r.field("surfaces", |r| {
            r.item(s, |r| {
                r.label(name);
                let mut surface = read_geometry(
                    r,
                    version,
                    num_bones,
                    tsize,
                    RawString::from(name),
                    bounds,
                    morph_names,
                    None,
                )?;
                surface.lightmap = lightmap;
                Ok(surface)
            })
        })?;
        surfaces.push(surface);
    }
    r.field("marker3", |r| r.magic(magic))?;
    r.finish()?;
    Ok(Ms1x {
        version,
        bounds,
        bones,
        bind_pose,
        animations,
        surfaces,
    })
}

/// Counts ms14 keeps in its surface headers instead of the geometry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HeaderCounts {
    /// Coordinate vertices per morph target.
    pub vertices: Vec<usize>,
    /// Coordinate indices.
    pub cindices: usize,
    /// Triangle indices.
    pub tindices: usize,
    /// False when the geometry has no weights count at all (ms15: static only).
    pub weights: bool,
}

/// `nw` vertex weights (count already read): up to four (bone, weight) pairs each,
/// bones checked against `num_bones`.
fn read_weights(
    r: &mut impl Input,
    nw: usize,
    num_bones: usize,
) -> parsing_primitives::Result<Vec<VertexWeights>> {
    r.field("weights", |r| {
        r.array(nw as u64, 1, |r| {
            let at = r.offset();
            let count = r.le::<u8>()?;
            if count > 4 {
                return Err(r.invalid_at(at, format!("{count} weights for one vertex (at most 4)")));
            }
            let mut w = VertexWeights {
                count,
                ..VertexWeights::default()
            };
            for k in 0..usize::from(count) {
                let at = r.offset();
                let bone = r.le::<i16>()?;
                if bone < 0 || bone as usize >= num_bones {
                    return Err(r.invalid_at(
                        at,
                        format!("weight bone {bone} out of range ({num_bones} bones)"),
                    ));
                }
                w.bones[k] = bone;
                w.weights[k] = r.le::<u16>()?;
            }
            Ok(w)
        })
    })
}

/// The coordinate and triangle (tangent) index lists: counts from the ms14 header or
/// compact in the file, whole triangles, equal lengths, every index in range.
fn read_corner_indices(
    r: &mut impl Input,
    header: Option<&HeaderCounts>,
    nv0: usize,
    nt0: usize,
) -> parsing_primitives::Result<(Vec<u32>, Vec<u32>)> {
    let cw = index_width(nv0);
    let tw = index_width(nt0);
    let at = r.offset();
    let nci = match header {
        Some(h) => r.count(h.cindices as u64, cw)?,
        None => r.field("num_cindices", |r| r.compact_count(cw))?,
    };
    if nci % 3 != 0 {
        return Err(r.invalid_at(
            at,
            format!("{nci} coordinate indices is not a whole number of triangles"),
        ));
    }
    let at = r.offset();
    let (cindices, over) = r.field("cindices", |r| read_indices_below(r, nci, cw, nv0))?;
    if let Some((k, i)) = over {
        return Err(r.invalid_at(
            at + (k * cw) as u64,
            format!("cindex {i} out of range ({nv0} coordinate vertices)"),
        ));
    }
    let at = r.offset();
    let nti = match header {
        Some(h) => r.count(h.tindices as u64, tw)?,
        None => r.field("num_tindices", |r| r.compact_count(tw))?,
    };
    if nti != nci {
        return Err(r.invalid_at(
            at,
            format!("{nti} triangle indices but {nci} coordinate indices"),
        ));
    }
    let at = r.offset();
    let (tindices, over) = r.field("tindices", |r| read_indices_below(r, nti, tw, nt0))?;
    if let Some((k, i)) = over {
        return Err(r.invalid_at(
            at + (k * tw) as u64,
            format!("tindex {i} out of range ({nt0} tangent vertices)"),
        ));
    }
    Ok((cindices, tindices))
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn read_geometry(
    r: &mut impl Input,
    version: Ms1xVersion,
    num_bones: usize,
    tsize: usize,
    name: RawString,
    bounds: Bounds,
    morph_names: Vec<RawString>,
    header: Option<&HeaderCounts>,
) -> parsing_primitives::Result<Surface> {
    let mut morph_targets = Vec::with_capacity(morph_names.len());
    for (m, mname) in morph_names.into_iter().enumerate() {
        let mt = r.field("morph_targets", |r| {
            r.item(m, |r| {
                let nv = match header {
                    // ms14 keeps the vertex counts in the surface header.
                    Some(h) => {
                        let n = h.vertices.get(m).copied().unwrap_or(0);
                        r.count(n as u64, 12)?
                    }
                    None => r.field("num_vertices", |r| r.compact_count(12))?,
                };
                let vertices = r.field("vertices", |r| r.le_array::<[f32; 3]>(nv as u64))?;
                let nt = r.field("num_tangents", |r| r.compact_count(tsize))?;
                let tangents = r.field("tangents", |r| match version {
                    Ms1xVersion::Ms11 | Ms1xVersion::Ms13 => r.le_array::<[i16; 4]>(nt as u64),
                    Ms1xVersion::Ms10 => {
                        let raw = r.le_array::<[u8; 7]>(nt as u64)?;
                        // Widened to 8 bytes each, on top of the 7-byte array.
                        r.charge_for("tangents", (nt as u64).saturating_mul(8))?;
                        Ok(raw
                            .into_iter()
                            .map(|b| {
                                [
                                    i16::from_le_bytes([b[0], b[1]]),
                                    i16::from_le_bytes([b[2], b[3]]),
                                    i16::from_le_bytes([b[4], b[5]]),
                                    i16::from(b[6] as i8),
                                ]
                            })
                            .collect())
                    }
                })?;
                Ok(MorphTarget {
                    name: mname,
                    vertices,
                    tangents,
                })
            })
        })?;
        morph_targets.push(mt);
    }
    let nv0 = morph_targets.first().map_or(0, |m| m.vertices.len());
    let nt0 = morph_targets.first().map_or(0, |m| m.tangents.len());
    let nw = if header.is_none_or(|h| h.weights) {
        r.field("num_weights", |r| {
            count_zero_or(r, nv0, "weights", "coordinate vertices", 1)
        })?
    } else {
        0
    };
    let weights = read_weights(r, nw, num_bones)?;
    let n0 = r.field("num_uv0", |r| {
        count_zero_or(r, nt0, "UV0 entries", "tangent vertices", 8)
    })?;
    let uv0 = r.field("uv0", |r| r.le_array::<[f32; 2]>(n0 as u64))?;
    let n1 = r.field("num_uv1", |r| {
        count_zero_or(r, nt0, "UV1 entries", "tangent vertices", 8)
    })?;
    let uv1 = r.field("uv1", |r| r.le_array::<[f32; 2]>(n1 as u64))?;
    let nc = r.field("num_colors", |r| {
        count_zero_or(r, nt0, "colors", "tangent vertices", 4)
    })?;
    let colors = r.field("colors", |r| r.le_array::<[u8; 4]>(nc as u64))?;
    let (cindices, tindices) = read_corner_indices(r, header, nv0, nt0)?;
    Ok(Surface {
        name,
        bounds,
        lightmap: [0, 0],
        morph_targets,
        weights,
        uv0,
        uv1,
        colors,
        cindices,
        tindices,
    })
}

impl Ms1x {
    /// What a container of ms13 content (ms14, ms15, sk10) requires of its mesh: version
    /// ms13, no embedded animations, and [`Ms1x::check`].
    pub(crate) fn check_ms13_content(&self, container: &str) -> Result<()> {
        if self.version != Ms1xVersion::Ms13 || !self.animations.is_empty() {
            return Err(invalid(format!(
                "{container} holds ms13 content: version Ms13, no animations"
            )));
        }
        self.check()
    }

    /// What [`Ms1x::write`] would refuse, at its path (the first thing found).
    pub fn problems(&self) -> Vec<meshfmt_core::Problem> {
        let mut p = meshfmt_core::Problems::default();
        p.check("ms1x", self.check());
        p.into_vec()
    }

    /// Checks everything [`Ms1x::write`] relies on, so the output reads back equal:
    /// one bind transform per bone, parents and animated bones in range, key counts,
    /// at least one morph target per surface, attribute counts 0 or the vertex count,
    /// at most 4 weights per vertex, whole triangles with indices in range, and (ms10)
    /// binormal signs that fit a byte.
    pub(crate) fn check(&self) -> Result<()> {
        let nb = self.bones.len();
        check_bones_and_pose(&self.bones, self.bind_pose.len()).map_err(invalid)?;
        if self.version == Ms1xVersion::Ms13 && !self.animations.is_empty() {
            return Err(invalid("ms13 has no embedded animations"));
        }
        if self.version != Ms1xVersion::Ms13 && self.surfaces.iter().any(|s| s.lightmap != [0, 0]) {
            return Err(invalid(
                "ms10/ms11 store no lightmap settings (they must be 0)",
            ));
        }
        for (i, a) in self.animations.iter().enumerate() {
            a.check_keys(nb)
                .map_err(|m| invalid(format!("animation {i}: {m}")))?;
        }
        for (i, s) in self.surfaces.iter().enumerate() {
            let at = |what: String| invalid(format!("surface {i} '{}': {what}", s.name));
            if s.morph_targets.is_empty() {
                return Err(at(
                    "no morph target (the base geometry is morph target 0)".into()
                ));
            }
            let (nv, nt) = (s.num_cvertices(), s.num_tvertices());
            for (name, len, n) in [
                ("weights", s.weights.len(), nv),
                ("uv0", s.uv0.len(), nt),
                ("uv1", s.uv1.len(), nt),
                ("colors", s.colors.len(), nt),
            ] {
                if len != 0 && len != n {
                    return Err(at(format!(
                        "{len} {name} for {n} vertices (must be 0 or equal)"
                    )));
                }
            }
            if s.weights.iter().any(|w| w.count > 4) {
                return Err(at("more than 4 weights on a vertex".into()));
            }
            let bad_bone = s
                .weights
                .iter()
                .flat_map(|w| &w.bones[..usize::from(w.count.min(4))])
                .find(|&&b| b < 0 || b as usize >= nb);
            if let Some(b) = bad_bone {
                return Err(at(format!("weight bone {b} out of range ({nb} bones)")));
            }
            if s.cindices.len() != s.tindices.len() || s.cindices.len() % 3 != 0 {
                return Err(at(format!(
                    "{} cindices and {} tindices (must be equal and whole triangles)",
                    s.cindices.len(),
                    s.tindices.len()
                )));
            }
            if let Some((_, i)) = first_out_of_range(&s.cindices, nv) {
                return Err(at(format!("cindex {i} out of range ({nv} vertices)")));
            }
            if let Some((_, i)) = first_out_of_range(&s.tindices, nt) {
                return Err(at(format!("tindex {i} out of range ({nt} vertices)")));
            }
            if self.version == Ms1xVersion::Ms10 {
                let bad = s
                    .morph_targets
                    .iter()
                    .flat_map(|m| &m.tangents)
                    .find(|t| i8::try_from(t[3]).is_err());
                if let Some(t) = bad {
                    return Err(at(format!(
                        "ms10 binormal sign {} does not fit a byte",
                        t[3]
                    )));
                }
            }
        }
        Ok(())
    }

    /// The bounds the writers store: each surface's bounds as stored unless they no
    /// longer fit its morph-target-0 vertices ([`Bounds::is_stale_for`]), then
    /// rebuilt the engine's way ([`Bounds::of_vertices`]); the whole-mesh bounds as
    /// stored unless stale ([`Bounds::is_stale_for_mesh`]), then merged from the
    /// surface bounds ([`Bounds::merged`]). Every real sample keeps its stored bounds.
    ///
    /// ```
    /// use unigine_mesh::{Bounds, TargetVersion, WriteOptions, MeshFile};
    /// use meshfmt_core::{glam::Vec3, Model, Surface};
    /// let model = Model {
    ///     coordinate_system: unigine_mesh::COORDINATE_SYSTEM,
    ///     surfaces: vec![Surface {
    ///         positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
    ///         indices: vec![0, 1, 2],
    ///         ..Default::default()
    ///     }],
    ///     ..Default::default()
    /// };
    /// let file = MeshFile::from_core_with(&model, &WriteOptions::default())?.value;
    /// let MeshFile::Ms1x(mut m) = file else {
    ///     return Err(unigine_mesh::Error::Invalid("expected ms11".into()));
    /// };
    /// m.surfaces[0].morph_targets[0].vertices[1] = [4.0, 0.0, 0.0]; // moved: bounds stale
    /// let (file, surfaces) = m.bounds_to_write();
    /// assert_eq!((surfaces[0].min, surfaces[0].max), ([0.0; 3], [4.0, 1.0, 0.0]));
    /// assert_eq!(file, surfaces[0]); // one surface: the mesh bounds are its bounds
    /// # Ok::<(), unigine_mesh::Error>(())
    /// ```
    pub fn bounds_to_write(&self) -> (Bounds, Vec<Bounds>) {
        self.bounds
            .for_writing(self.surfaces.iter().map(|s| (&s.bounds, base_vertices(s))))
    }

    /// The file's bytes (an error when [`Ms1x::problems`] finds any): minimal compact ints and index widths
    /// from morph-target-0 counts, as real files are written. Derived data is written
    /// from the values: bounds that no longer fit the vertices are rebuilt
    /// ([`Ms1x::bounds_to_write`]) and each animation's flag byte is the OR of its
    /// keys' flags ([`EmbeddedAnimation::key_flags`]).
    pub fn write(&self) -> Result<Vec<u8>> {
        self.check()?;
        let (bounds, surface_bounds) = self.bounds_to_write();
        let mut w = Writer::new(FORMAT_NAME);
        let magic = self.version.magic();
        w.bytes(magic);
        w.le_slice(&bounds.to_array());
        write_bones(&mut w, &self.bones)?;
        let has_animations = self.version != Ms1xVersion::Ms13;
        if has_animations {
            w.compact_count(self.animations.len())?;
            for a in &self.animations {
                w.compact_nul_string(a.name.as_bytes())?;
            }
        }
        w.compact_count(self.surfaces.len())?;
        for (s, bounds) in self.surfaces.iter().zip(&surface_bounds) {
            w.compact_nul_string(s.name.as_bytes())?;
            if !has_animations {
                w.bytes(&s.lightmap);
            }
            w.le_slice(&bounds.to_array());
            w.compact_count(s.morph_targets.len())?;
            for m in &s.morph_targets {
                w.compact_nul_string(m.name.as_bytes())?;
            }
        }
        w.bytes(magic);
        let pose: Vec<[f32; 10]> = self.bind_pose.iter().map(BindTransform::to_array).collect();
        w.le_slice(&pose);
        for a in &self.animations {
            w.compact_count(a.bones.len())?;
            w.le_slice(&a.bones);
            w.u8(a.key_flags());
            w.compact_u32(a.num_frames);
            for k in &a.keys {
                write_key(&mut w, k);
            }
        }
        for s in &self.surfaces {
            write_geometry(&mut w, self.version, s, true)?;
        }
        w.bytes(magic);
        Ok(w.into_inner())
    }
}

/// Morph target 0's vertices (empty without morph targets).
pub(crate) fn base_vertices(s: &Surface) -> &[[f32; 3]] {
    s.morph_targets.first().map_or(&[][..], |m| &m.vertices[..])
}

/// Length of [`write_geometry_with`]'s output, computed without writing it.
pub(crate) fn geometry_len(
    version: Ms1xVersion,
    s: &Surface,
    with_counts: bool,
    with_weights: bool,
) -> usize {
    let c = |n: usize| compact_len(i64::try_from(n).unwrap_or(i64::MAX));
    let mut n = 0usize;
    for m in &s.morph_targets {
        if with_counts {
            n = n.saturating_add(c(m.vertices.len()));
        }
        n = n
            .saturating_add(m.vertices.len().saturating_mul(12))
            .saturating_add(c(m.tangents.len()))
            .saturating_add(m.tangents.len().saturating_mul(version.tangent_size()));
    }
    if with_weights {
        n = n.saturating_add(c(s.weights.len()));
    }
    for v in &s.weights {
        n = n.saturating_add(1 + 4 * usize::from(v.count));
    }
    for (len, size) in [(s.uv0.len(), 8), (s.uv1.len(), 8), (s.colors.len(), 4)] {
        n = n
            .saturating_add(c(len))
            .saturating_add(len.saturating_mul(size));
    }
    for (len, width) in [
        (s.cindices.len(), index_width(s.num_cvertices())),
        (s.tindices.len(), index_width(s.num_tvertices())),
    ] {
        if with_counts {
            n = n.saturating_add(c(len));
        }
        n = n.saturating_add(len.saturating_mul(width));
    }
    n
}

/// Writes one surface's geometry. `with_counts = false` leaves out the vertex and index
/// counts, which ms14 keeps in its surface headers.
pub(crate) fn write_geometry(
    w: &mut Writer,
    version: Ms1xVersion,
    s: &Surface,
    with_counts: bool,
) -> Result<()> {
    write_geometry_with(w, version, s, with_counts, true)
}

/// [`write_geometry`], and `with_weights = false` also leaves out the weights count
/// (ms15, which has no weights; the caller checks the surface has none).
pub(crate) fn write_geometry_with(
    w: &mut Writer,
    version: Ms1xVersion,
    s: &Surface,
    with_counts: bool,
    with_weights: bool,
) -> Result<()> {
    for m in &s.morph_targets {
        if with_counts {
            w.compact_count(m.vertices.len())?;
        }
        w.le_slice(&m.vertices);
        w.compact_count(m.tangents.len())?;
        match version {
            Ms1xVersion::Ms11 | Ms1xVersion::Ms13 => {
                w.le_slice(&m.tangents);
            }
            Ms1xVersion::Ms10 => {
                for t in &m.tangents {
                    w.i16_le(t[0]).i16_le(t[1]).i16_le(t[2]);
                    // check() proved it fits.
                    w.i8(t[3] as i8);
                }
            }
        }
    }
    if with_weights {
        w.compact_count(s.weights.len())?;
    }
    for v in &s.weights {
        w.u8(v.count);
        for k in 0..usize::from(v.count) {
            w.i16_le(v.bones[k]).u16_le(v.weights[k]);
        }
    }
    w.compact_count(s.uv0.len())?;
    w.le_slice(&s.uv0);
    w.compact_count(s.uv1.len())?;
    w.le_slice(&s.uv1);
    w.compact_count(s.colors.len())?;
    w.le_slice(&s.colors);
    if with_counts {
        w.compact_count(s.cindices.len())?;
    }
    write_indices(w, &s.cindices, index_width(s.num_cvertices()));
    if with_counts {
        w.compact_count(s.tindices.len())?;
    }
    write_indices(w, &s.tindices, index_width(s.num_tvertices()));
    Ok(())
}

impl crate::file::VersionFile for Ms1x {
    fn magic(&self) -> &'static [u8; 4] {
        self.version.magic()
    }

    crate::file::version_file_delegates!();

    fn summarize(&self, s: &mut meshfmt_core::Summary) {
        crate::summary::ms1x_detail(self, &[], s);
        crate::summary::ms1x_counts(self, &mut s.counts);
    }
}
