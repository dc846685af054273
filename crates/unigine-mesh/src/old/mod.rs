//! mi08 (`.mesh`) and ms08 (`.smesh`), UNIGINE 1.x: faithful types, read and write.
//!
//! No public sample of either exists; the layout follows the official 1.x docs
//! (specs/000) as summarized in notes/unigine.md sections 2 and 3. Counts and string
//! lengths are plain `i32`; normals are compressed to `u16` with
//! [`compress_normal`]; triangle indices are `u16` when the surface has fewer than
//! 65,536 vertices, else `i32`.

mod convert;

use parsing_primitives::{RawString, Reader, Writer};
use unigine_common::bones::{check_bone1x_parents, read_bone1x_entries, write_bone1x_entries};

use crate::FORMAT_NAME;
use crate::common::{Bounds, MAX_NAME, read_bounds};
use crate::error::{Result, invalid};

/// Compresses one normal component as the docs specify:
/// `clamp((int)((n * 0.5f + 0.5f) * 65535.0f), 0, 65535)` (truncation toward zero).
pub fn compress_normal(n: f32) -> u16 {
    let v = (n * 0.5 + 0.5) * 65535.0;
    // `as i64` truncates toward zero (NaN becomes 0), like the C cast for in-range values.
    (v as i64).clamp(0, 65535) as u16
}

/// Decompresses a normal component: `u / 65535 * 2 - 1`.
pub fn decompress_normal(u: u16) -> f32 {
    f32::from(u) / 65535.0 * 2.0 - 1.0
}

/// Most absolute error of `decompress_normal(compress_normal(n))` for `n` in -1..=1:
/// below one step of 2/65535 (truncation), plus f32 rounding.
pub const NORMAL_MAX_ERROR: f32 = 2.0 / 65535.0;

/// A surface of an mi08 file.
#[derive(Debug, Clone, PartialEq)]
pub struct Mi08Surface {
    /// Name.
    pub name: RawString,
    /// Bounds as stored; rebuilt on write when stale ([`Mi08::bounds_to_write`]).
    pub bounds: Bounds,
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Compressed normals, one per vertex.
    pub normals: Vec<[u16; 3]>,
    /// UV set 0: empty or one per vertex.
    pub uv0: Vec<[f32; 2]>,
    /// UV set 1: empty or one per vertex.
    pub uv1: Vec<[f32; 2]>,
    /// Triangles.
    pub triangles: Vec<[u32; 3]>,
}

/// An mi08 static mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct Mi08 {
    /// Whole-mesh bounds as stored; rebuilt on write when stale
    /// ([`Mi08::bounds_to_write`]).
    pub bounds: Bounds,
    /// Surfaces.
    pub surfaces: Vec<Mi08Surface>,
}

/// A bone of an ms08 file (`i32`-length name, `i32` parent; shared with as08).
pub type Ms08Bone = unigine_common::bones::Bone1x;

/// One bone's transform in one ms08 frame: position, uniform scale, rotation.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BoneFrame {
    /// Position relative to the parent.
    pub position: [f32; 3],
    /// Uniform scale (stored in the position's w).
    pub scale: f32,
    /// Rotation quaternion x, y, z, w.
    pub rotation: [f32; 4],
}

/// One (bone, weight) pair of an ms08 vertex; weight / 255.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ms08Weight {
    /// Bone index.
    pub bone: u16,
    /// Weight, 255 = 1.0.
    pub weight: u8,
}

/// A surface of an ms08 file.
#[derive(Debug, Clone, PartialEq)]
pub struct Ms08Surface {
    /// Name.
    pub name: RawString,
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Compressed normals.
    pub normals: Vec<[u16; 3]>,
    /// Number of weights of each vertex.
    pub weight_counts: Vec<u8>,
    /// All vertices' weights in order (`weight_counts[i]` of them for vertex `i`).
    pub weights: Vec<Ms08Weight>,
    /// UV set 0: empty or one per vertex.
    pub uv0: Vec<[f32; 2]>,
    /// UV set 1: empty or one per vertex.
    pub uv1: Vec<[f32; 2]>,
    /// Triangles.
    pub triangles: Vec<[u32; 3]>,
}

impl Ms08Surface {
    /// The weights of vertex `i` (empty past the end). Sums the counts before `i` on
    /// every call: to walk every vertex, use [`Ms08Surface::weights_per_vertex`].
    pub fn vertex_weights(&self, i: usize) -> &[Ms08Weight] {
        let start: usize = self
            .weight_counts
            .iter()
            .take(i)
            .map(|&c| usize::from(c))
            .sum();
        let n = self.weight_counts.get(i).map_or(0, |&c| usize::from(c));
        self.weights.get(start..start + n).unwrap_or(&[])
    }

    /// Every vertex's weights in order, in one pass (a running offset; empty slices once
    /// the weights run out).
    pub fn weights_per_vertex(&self) -> impl Iterator<Item = &[Ms08Weight]> + '_ {
        let mut start = 0usize;
        self.weight_counts.iter().map(move |&c| {
            let end = start.saturating_add(usize::from(c));
            let w = self.weights.get(start..end).unwrap_or(&[]);
            start = end;
            w
        })
    }
}

/// An ms08 skinned mesh: bones, frames (frame 0 is the bind pose), surfaces.
#[derive(Debug, Clone, PartialEq)]
pub struct Ms08 {
    /// Bone hierarchy.
    pub bones: Vec<Ms08Bone>,
    /// Number of frames (at least 1 in meaningful files: frame 0 is the bind pose).
    pub num_frames: u32,
    /// `num_frames * bones.len()` transforms, frame-major.
    pub frames: Vec<BoneFrame>,
    /// Surfaces.
    pub surfaces: Vec<Ms08Surface>,
}

impl Ms08 {
    /// The transforms of frame `f` (empty past the end).
    pub fn frame(&self, f: usize) -> &[BoneFrame] {
        unigine_common::keys::frame_keys(&self.frames, f, self.bones.len())
    }
}

fn name(r: &mut Reader<'_>) -> parsing_primitives::Result<RawString> {
    r.i32_nul_string(MAX_NAME).map(RawString::from)
}

/// UV array whose count must be 0 or the vertex count.
fn uvs(r: &mut Reader<'_>, nv: usize) -> parsing_primitives::Result<Vec<[f32; 2]>> {
    let at = r.offset();
    let n = r.i32_count(8)?;
    if n != 0 && n != nv {
        return Err(r.invalid_at(
            at,
            format!("{n} UVs for {nv} vertices (must be 0 or equal)"),
        ));
    }
    r.le_array(n as u64)
}

fn triangles(r: &mut Reader<'_>, nv: usize) -> parsing_primitives::Result<Vec<[u32; 3]>> {
    let wide = nv >= 65536;
    let nt = r.field("num_triangles", |r| r.i32_count(if wide { 12 } else { 6 }))?;
    let at = r.offset();
    r.count(nt as u64, if wide { 12 } else { 6 })?;
    // Widened to three u32 each, on top of the stored array.
    r.charge_for("triangles", (nt as u64).saturating_mul(12))?;
    let tris: Vec<[u32; 3]> = if wide {
        let raw = r.le_array::<[i32; 3]>(nt as u64)?;
        raw.into_iter().map(|t| t.map(|i| i as u32)).collect()
    } else {
        let raw = r.le_array::<[u16; 3]>(nt as u64)?;
        raw.into_iter().map(|t| t.map(u32::from)).collect()
    };
    let width = if wide { 4 } else { 2 };
    for (t, tri) in tris.iter().enumerate() {
        if let Some(k) = tri.iter().position(|&i| i as usize >= nv) {
            // A negative i32 shows as a huge u32: report the stored value.
            let stored = if wide {
                i64::from(tri[k] as i32)
            } else {
                i64::from(tri[k])
            };
            return Err(r.invalid_at(
                at + ((t * 3 + k) * width) as u64,
                format!("triangle {t}: index {stored} out of range ({nv} vertices)"),
            ));
        }
    }
    Ok(tris)
}

fn split_vertices(raw: &[[u8; 18]]) -> (Vec<[f32; 3]>, Vec<[u16; 3]>) {
    raw.iter()
        .map(|b| {
            let f = |o: usize| f32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
            let u = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
            ([f(0), f(4), f(8)], [u(12), u(14), u(16)])
        })
        .unzip()
}

/// Reads an mi08 file.
pub(crate) fn read_mi08(r: &mut Reader<'_>) -> parsing_primitives::Result<Mi08> {
    r.field("magic", |r| r.magic(b"mi08"))?;
    let bounds = r.field("bounds", read_bounds)?;
    let ns = r.field("num_surfaces", |r| r.i32_count(44))?;
    let headers = r.field("surfaces", |r| {
        r.array(ns as u64, 44, |r| {
            let n = name(r)?;
            let b = read_bounds(r)?;
            Ok((n, b))
        })
    })?;
    let mut surfaces = Vec::with_capacity(ns);
    for (s, (name, bounds)) in headers.into_iter().enumerate() {
        let surface = r.field("surfaces", |r| {
            r.item(s, |r| {
                let nv = r.field("num_vertices", |r| r.i32_count(18))?;
                let raw = r.field("vertices", |r| r.le_array::<[u8; 18]>(nv as u64))?;
                // Split into positions and normals next to the raw array.
                r.charge_for("vertices", (nv as u64).saturating_mul(18))?;
                let (positions, normals) = split_vertices(&raw);
                let uv0 = r.field("uv0", |r| uvs(r, nv))?;
                let uv1 = r.field("uv1", |r| uvs(r, nv))?;
                let triangles = r.field("triangles", |r| triangles(r, nv))?;
                Ok(Mi08Surface {
                    name,
                    bounds,
                    positions,
                    normals,
                    uv0,
                    uv1,
                    triangles,
                })
            })
        })?;
        surfaces.push(surface);
    }
    r.finish()?;
    Ok(Mi08 { bounds, surfaces })
}

/// Reads an ms08 file.
pub(crate) fn read_ms08(r: &mut Reader<'_>) -> parsing_primitives::Result<Ms08> {
    r.field("magic", |r| r.magic(b"ms08"))?;
    let nb = r.field("num_bones", |r| r.i32_count(9))?;
    let bones = read_bone1x_entries(r, nb, 9)?;
    let num_frames = unigine_common::bones::read_frame_count(r)?;
    let total = u64::from(num_frames) * nb as u64;
    let frames = r.field("frames", |r| r.le_array::<[f32; 8]>(total))?;
    let frames = frames
        .into_iter()
        .map(|f| BoneFrame {
            position: [f[0], f[1], f[2]],
            scale: f[3],
            rotation: [f[4], f[5], f[6], f[7]],
        })
        .collect();
    let ns = r.field("num_surfaces", |r| r.i32_count(4))?;
    let names = r.field("surfaces", |r| r.array(ns as u64, 4, name))?;
    let mut surfaces = Vec::with_capacity(ns);
    for (s, name) in names.into_iter().enumerate() {
        let surface = r.field("surfaces", |r| {
            r.item(s, |r| {
                let nv = r.field("num_vertices", |r| r.i32_count(19))?;
                // Position, normal and weight count per vertex (the weights are
                // charged as they are read).
                r.charge_for("vertices", (nv as u64).saturating_mul(12 + 6 + 1))?;
                let mut positions = Vec::with_capacity(nv);
                let mut normals = Vec::with_capacity(nv);
                let mut weight_counts = Vec::with_capacity(nv);
                let mut weights = Vec::new();
                r.field("vertices", |r| {
                    for i in 0..nv {
                        r.item(i, |r| {
                            positions.push(r.le::<[f32; 3]>()?);
                            normals.push(r.le::<[u16; 3]>()?);
                            let n = r.u8()?;
                            weight_counts.push(n);
                            let at = r.offset();
                            let ws = r.le_array::<[u8; 3]>(u64::from(n))?;
                            r.charge_for(
                                "weights",
                                u64::from(n) * std::mem::size_of::<Ms08Weight>() as u64,
                            )?;
                            for (k, w) in ws.into_iter().enumerate() {
                                let bone = u16::from_le_bytes([w[0], w[1]]);
                                if usize::from(bone) >= nb {
                                    return Err(r.invalid_at(
                                        at + 3 * k as u64,
                                        format!("weight bone {bone} out of range ({nb} bones)"),
                                    ));
                                }
                                weights.push(Ms08Weight { bone, weight: w[2] });
                            }
                            Ok(())
                        })?;
                    }
                    Ok(())
                })?;
                let uv0 = r.field("uv0", |r| uvs(r, nv))?;
                let uv1 = r.field("uv1", |r| uvs(r, nv))?;
                let triangles = r.field("triangles", |r| triangles(r, nv))?;
                Ok(Ms08Surface {
                    name,
                    positions,
                    normals,
                    weight_counts,
                    weights,
                    uv0,
                    uv1,
                    triangles,
                })
            })
        })?;
        surfaces.push(surface);
    }
    r.finish()?;
    Ok(Ms08 {
        bones,
        num_frames,
        frames,
        surfaces,
    })
}

fn write_count(w: &mut Writer, n: usize) -> Result<()> {
    let v = i32::try_from(n).map_err(|_| invalid(format!("count {n} does not fit an int")))?;
    w.i32_le(v);
    Ok(())
}

fn check_uvs_and_triangles(
    s: usize,
    name: &RawString,
    nv: usize,
    uv0: usize,
    uv1: usize,
    tris: &[[u32; 3]],
) -> Result<()> {
    for (set, n) in [("uv0", uv0), ("uv1", uv1)] {
        if n != 0 && n != nv {
            return Err(invalid(format!(
                "surface {s} '{name}': {n} {set} for {nv} vertices"
            )));
        }
    }
    if let Some(i) = tris.iter().flatten().find(|&&i| i as usize >= nv) {
        return Err(invalid(format!(
            "surface {s} '{name}': index {i} out of range ({nv} vertices)"
        )));
    }
    if nv > i32::MAX as usize {
        return Err(invalid(format!("surface {s} '{name}': too many vertices")));
    }
    Ok(())
}

fn write_uvs_and_triangles(
    w: &mut Writer,
    nv: usize,
    uv0: &[[f32; 2]],
    uv1: &[[f32; 2]],
    tris: &[[u32; 3]],
) -> Result<()> {
    write_count(w, uv0.len())?;
    w.le_slice(uv0);
    write_count(w, uv1.len())?;
    w.le_slice(uv1);
    write_count(w, tris.len())?;
    if nv >= 65536 {
        let v: Vec<[i32; 3]> = tris.iter().map(|t| t.map(|i| i as i32)).collect();
        w.le_slice(&v);
    } else {
        let v: Vec<[u16; 3]> = tris.iter().map(|t| t.map(|i| i as u16)).collect();
        w.le_slice(&v);
    }
    Ok(())
}

impl Mi08 {
    /// What [`Mi08::write`] would refuse, at its path (the first thing found).
    pub fn problems(&self) -> Vec<meshfmt_core::Problem> {
        let mut p = meshfmt_core::Problems::default();
        p.check("mi08", self.check());
        p.into_vec()
    }

    /// Checks what [`Mi08::write`] relies on: normals per vertex, UV counts 0 or the
    /// vertex count, indices in range.
    pub(crate) fn check(&self) -> Result<()> {
        for (s, su) in self.surfaces.iter().enumerate() {
            let nv = su.positions.len();
            if su.normals.len() != nv {
                return Err(invalid(format!(
                    "surface {s} '{}': {} normals for {nv} vertices",
                    su.name,
                    su.normals.len()
                )));
            }
            check_uvs_and_triangles(s, &su.name, nv, su.uv0.len(), su.uv1.len(), &su.triangles)?;
        }
        Ok(())
    }

    /// The bounds the writer stores, as for ms10/ms11
    /// ([`Ms1x::bounds_to_write`](crate::Ms1x::bounds_to_write)): stored unless they
    /// no longer fit the vertices, then rebuilt the engine's way.
    pub fn bounds_to_write(&self) -> (Bounds, Vec<Bounds>) {
        self.bounds
            .for_writing(self.surfaces.iter().map(|s| (&s.bounds, &s.positions[..])))
    }

    /// The file's bytes; stale bounds are rebuilt ([`Mi08::bounds_to_write`]).
    pub fn write(&self) -> Result<Vec<u8>> {
        self.check()?;
        let (bounds, surface_bounds) = self.bounds_to_write();
        let mut w = Writer::new(FORMAT_NAME);
        w.bytes(b"mi08");
        w.le_slice(&bounds.to_array());
        write_count(&mut w, self.surfaces.len())?;
        for (s, b) in self.surfaces.iter().zip(&surface_bounds) {
            w.i32_nul_string(s.name.as_bytes())?;
            w.le_slice(&b.to_array());
        }
        for s in &self.surfaces {
            write_count(&mut w, s.positions.len())?;
            for (p, n) in s.positions.iter().zip(&s.normals) {
                w.le_slice(p);
                w.le_slice(n);
            }
            write_uvs_and_triangles(&mut w, s.positions.len(), &s.uv0, &s.uv1, &s.triangles)?;
        }
        Ok(w.into_inner())
    }
}

impl Ms08 {
    /// What [`Ms08::write`] would refuse, at its path (the first thing found).
    pub fn problems(&self) -> Vec<meshfmt_core::Problem> {
        let mut p = meshfmt_core::Problems::default();
        p.check("ms08", self.check());
        p.into_vec()
    }

    /// Checks what [`Ms08::write`] relies on.
    pub(crate) fn check(&self) -> Result<()> {
        let nb = self.bones.len();
        check_bone1x_parents(&self.bones).map_err(invalid)?;
        unigine_common::keys::check_table_len(
            self.frames.len(),
            self.num_frames,
            nb,
            "bone frames",
        )
        .map_err(invalid)?;
        for (s, su) in self.surfaces.iter().enumerate() {
            let nv = su.positions.len();
            if su.normals.len() != nv || su.weight_counts.len() != nv {
                return Err(invalid(format!(
                    "surface {s} '{}': normals and weight counts must be one per vertex",
                    su.name
                )));
            }
            let total: usize = su.weight_counts.iter().map(|&c| usize::from(c)).sum();
            if total != su.weights.len() {
                return Err(invalid(format!(
                    "surface {s} '{}': weight counts add up to {total} but {} weights are given",
                    su.name,
                    su.weights.len()
                )));
            }
            if let Some(wt) = su.weights.iter().find(|w| usize::from(w.bone) >= nb) {
                return Err(invalid(format!(
                    "surface {s} '{}': weight bone {} out of range",
                    su.name, wt.bone
                )));
            }
            check_uvs_and_triangles(s, &su.name, nv, su.uv0.len(), su.uv1.len(), &su.triangles)?;
        }
        Ok(())
    }

    /// The file's bytes.
    pub fn write(&self) -> Result<Vec<u8>> {
        self.check()?;
        let mut w = Writer::new(FORMAT_NAME);
        w.bytes(b"ms08");
        write_count(&mut w, self.bones.len())?;
        write_bone1x_entries(&mut w, &self.bones)?;
        let n = i32::try_from(self.num_frames).map_err(|_| invalid("too many frames"))?;
        w.i32_le(n);
        for f in &self.frames {
            w.le_slice(&f.position)
                .f32_le(f.scale)
                .le_slice(&f.rotation);
        }
        write_count(&mut w, self.surfaces.len())?;
        for s in &self.surfaces {
            w.i32_nul_string(s.name.as_bytes())?;
        }
        for s in &self.surfaces {
            write_count(&mut w, s.positions.len())?;
            let mut next = 0;
            for i in 0..s.positions.len() {
                w.le_slice(&s.positions[i]).le_slice(&s.normals[i]);
                let c = s.weight_counts[i];
                w.u8(c);
                for wt in &s.weights[next..next + usize::from(c)] {
                    w.u16_le(wt.bone).u8(wt.weight);
                }
                next += usize::from(c);
            }
            write_uvs_and_triangles(&mut w, s.positions.len(), &s.uv0, &s.uv1, &s.triangles)?;
        }
        Ok(w.into_inner())
    }
}

impl crate::file::VersionFile for Mi08 {
    fn magic(&self) -> &'static [u8; 4] {
        b"mi08"
    }

    crate::file::version_file_delegates!();

    fn summarize(&self, s: &mut meshfmt_core::Summary) {
        use meshfmt_core::summary::stored_box;
        crate::summary::old_detail(
            self.surfaces.iter().map(|x| crate::summary::OldSurface {
                name: &x.name,
                positions: &x.positions,
                uv: [x.uv0.is_empty(), x.uv1.is_empty()],
                skinned: false,
                triangles: x.triangles.len(),
                bounds: stored_box(x.bounds.min, x.bounds.max),
            }),
            s,
        );
        if let Some(b) = stored_box(self.bounds.min, self.bounds.max) {
            s.bounds = Some(b);
            s.bounds_stored = true;
        }
    }
}

impl crate::file::VersionFile for Ms08 {
    fn magic(&self) -> &'static [u8; 4] {
        b"ms08"
    }

    crate::file::version_file_delegates!();

    /// Frame 0 is the bind pose; the rest form the one animation.
    fn summarize(&self, s: &mut meshfmt_core::Summary) {
        crate::summary::old_detail(
            self.surfaces.iter().map(|x| crate::summary::OldSurface {
                name: &x.name,
                positions: &x.positions,
                uv: [x.uv0.is_empty(), x.uv1.is_empty()],
                skinned: !x.weight_counts.is_empty(),
                triangles: x.triangles.len(),
                bounds: None,
            }),
            s,
        );
        s.skeleton =
            unigine_common::summary::hierarchy(self.bones.iter().map(|b| (&b.name, b.parent)));
        if self.num_frames > 1 {
            s.animations.push(meshfmt_core::ClipSummary::frames(
                "animation",
                u64::from(self.num_frames - 1),
                crate::DEFAULT_FPS,
                self.bones.len() as u64,
            ));
        }
        let c = &mut s.counts;
        c.bones = self.bones.len() as u64;
        c.animations = u64::from(self.num_frames > 1);
        c.frames = u64::from(self.num_frames.saturating_sub(1));
    }
}
