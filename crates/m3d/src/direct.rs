//! Decoding once: a binary file straight into [`Loaded`], without building the faithful
//! [`File`](crate::File) first. The large arrays (vertices, texture coordinates, polygons)
//! are decoded from the inflated payload into their loaded form in one pass each, sized
//! from the chunk lengths up front; the small chunks (bones, materials, actions, voxels,
//! shapes, labels) go through their checked readers. Whatever this path does not take (an
//! ASCII file, a chunk that does not decode, a limit or the budget reached) is left to
//! the checked path, [`read_with`](crate::read_with) then [`File::load`](crate::File::load),
//! which gives the same model or the typed error with its offset.

use parsing_primitives::{Budget, Reader};

use crate::error::Result;
use crate::file::{Colours, FORMAT, ReadOptions, read_with, string_at};
use crate::load::{
    IDENTITY, LoadOptions, Loaded, LoadedBone, LoadedFace, LoadedSkin, LoadedVertex,
    LoadedVoxelType, MaterialIndex, action_bytes, block_bytes, skin, uv_coord,
};
use crate::mesh::Corner;
use crate::types::{Cur, Idx, Str, Types};
use crate::voxel::VoxelType;
use crate::{bones, label, material, shape, voxel};

/// A Model 3D file loaded the way m3d.h's `m3d_load` leaves it: what
/// `read_with(data)?.load(opts)` gives, without keeping the faithful file in between
/// (faster, and less memory at the peak). Binary files take the one-pass path; ASCII
/// files, and binary files it refuses, take the checked path, so errors are the same
/// typed errors with offsets. With a shared budget, a file the one-pass path refuses
/// is charged twice.
///
/// ```
/// use meshfmt_core::{Model, Surface, glam::Vec3};
/// let model = Model {
///     surfaces: vec![Surface {
///         positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
///         indices: vec![0, 1, 2],
///         ..Surface::default()
///     }],
///     ..Model::default()
/// };
/// let bytes = m3d_format::File::from_core(&model, &Default::default())?.value.write()?;
/// let opts = m3d_format::LoadOptions::default();
/// let loaded = m3d_format::load(&bytes, &opts)?;
/// assert_eq!(loaded, m3d_format::read(&bytes)?.load(&opts)?);
/// assert_eq!(loaded.faces.len(), 1);
/// # Ok::<(), m3d_format::Error>(())
/// ```
pub fn load(data: &[u8], opts: &LoadOptions) -> Result<Loaded> {
    let budget = Budget::shared_or_new(opts.budget.as_ref(), opts.limits);
    if let Some(mut l) = one_pass(data, opts, &budget) {
        l.run_steps(opts)?;
        return Ok(l);
    }
    let read = ReadOptions {
        limits: opts.limits,
        budget: opts.budget.clone(),
    };
    read_with(data, &read)?.load(opts)
}

/// The one-pass load, `None` for anything it leaves to the checked path.
fn one_pass(data: &[u8], opts: &LoadOptions, budget: &Budget) -> Option<Loaded> {
    let body = envelope(data)?;
    if body.starts_with(b"HEAD") {
        return Payload::split(body, opts, budget)?.load(opts, budget);
    }
    let inflated = crate::file::inflate(body, budget).ok()?;
    Payload::split(&inflated, opts, budget)?.load(opts, budget)
}

/// The bytes after `3DMO`, its length and any preview: HEAD..OMD3 or its zlib stream.
fn envelope(data: &[u8]) -> Option<&[u8]> {
    let total = u32_at(data.strip_prefix(b"3DMO")?, 0)? as usize;
    if total < 8 || total > data.len() {
        return None;
    }
    let body = data.get(8..total)?;
    match body.strip_prefix(b"PRVW") {
        Some(rest) => {
            let len = u32_at(rest, 0)? as usize;
            (len >= 8).then_some(())?;
            body.get(len..)
        }
        None => Some(body),
    }
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let bytes = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(bytes.try_into().ok()?))
}

/// The payload cut into HEAD and its chunks (magic, bytes after the 8-byte header).
struct Payload<'a> {
    types: Types,
    strings: &'a [u8],
    chunks: Vec<([u8; 4], &'a [u8])>,
}

impl<'a> Payload<'a> {
    fn split(payload: &'a [u8], opts: &LoadOptions, budget: &Budget) -> Option<Payload<'a>> {
        // As the checked reader: the payload ends with OMD3, HEAD is at least 16 bytes.
        if !payload.ends_with(b"OMD3") || !payload.starts_with(b"HEAD") {
            return None;
        }
        let len = u32_at(payload, 4)? as usize;
        let types = Types(u32_at(payload, 12)?);
        if len < 16 || types.vi() == 0 || types.si() == 0 {
            return None;
        }
        let strings = payload.get(16..len)?;
        let mut rest = payload.get(len..)?;
        // At most one chunk per 8 bytes.
        let most = rest.len() / 8;
        (most as u64 <= opts.limits.max_elements.saturating_mul(8)).then_some(())?;
        let mut chunks = Vec::new();
        loop {
            if rest.starts_with(b"OMD3") {
                return (rest.len() == 4).then_some(Payload {
                    types,
                    strings,
                    chunks,
                });
            }
            let magic: [u8; 4] = rest.get(..4)?.try_into().ok()?;
            let len = u32_at(rest, 4)? as usize;
            if len < 8 || magic == *b"HEAD" {
                return None;
            }
            if chunks.len() == chunks.capacity() {
                let more = chunks.len().max(16);
                budget
                    .charge_items::<([u8; 4], &[u8])>("chunk list", more)
                    .ok()?;
                chunks.reserve_exact(more);
            }
            chunks.push((magic, rest.get(8..len)?));
            rest = rest.get(len..)?;
        }
    }

    /// The chunk's checked reader (for the small chunks: any error leaves the file to the
    /// checked path).
    fn reader(&self, body: &'a [u8], budget: &Budget) -> Reader<'a> {
        Reader::new(FORMAT, body).with_budget(budget.clone())
    }

    fn load(&self, opts: &LoadOptions, budget: &Budget) -> Option<Loaded> {
        let t = self.types;
        let mut l = Loaded::empty(opts.limits, budget.clone());
        let records = |body: &[u8], size: usize| -> Option<usize> {
            let n = body.len() / size.max(1);
            (n as u64 <= opts.limits.max_elements).then_some(n)
        };
        let cmap: Vec<u32> = match self.chunks.iter().find(|c| c.0 == *b"CMAP") {
            Some((_, body)) => {
                let n = records(body, 4)?;
                budget.charge_items::<u32>("colour map", n).ok()?;
                body.chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect()
            }
            None => Vec::new(),
        };
        let colours = Colours::new(t.ci(), &cmap);
        let mut first_vrts = true;
        let mut refs: Vec<Str> = Vec::new();
        let mut maps: Vec<Str> = Vec::new();
        let mut assets: Vec<(Str, &[u8])> = Vec::new();
        let mut voxel_types: Vec<Vec<VoxelType>> = Vec::new();
        let mut triangles = 0usize;
        let mut tmap: Option<&[u8]> = None;
        let text = |s: Str| -> Option<String> {
            let bytes = string_at(self.strings, s).unwrap_or_default();
            budget
                .charge(
                    "names",
                    bytes.len() as u64 + std::mem::size_of::<String>() as u64,
                )
                .ok()?;
            Some(String::from_utf8_lossy(bytes).into_owned())
        };
        for &(magic, body) in &self.chunks {
            match &magic {
                b"CMAP" => {
                    records(body, 4)?;
                }
                b"VRTS" => {
                    let size = 4 * t.vc() + t.ci() + t.sk();
                    let n = records(body, size)?;
                    if std::mem::take(&mut first_vrts) {
                        budget
                            .charge_items::<LoadedVertex>("loaded vertices", n)
                            .ok()?;
                        l.vertices = vertices(body, size, n, t, colours);
                    }
                }
                b"TMAP" => {
                    records(body, 2 * t.vc())?;
                    tmap = Some(body);
                }
                b"MTRL" => {
                    let m = material::read_mtrl(&mut self.reader(body, budget), t).ok()?;
                    l.materials.push(text(m.name)?);
                    maps.extend(m.maps().map(|(_, s)| s));
                }
                b"MESH" => {
                    triangles = triangles.saturating_add(scan_mesh(body, t, &mut refs, budget)?);
                }
                b"BONE" => self.bones(body, &mut l, budget, &text)?,
                b"ACTN" => {
                    let a = bones::read_actn(&mut self.reader(body, budget), t).ok()?;
                    let size = action_bytes(&a) + std::mem::size_of::<bones::Action>() as u64;
                    budget.charge("actions", size).ok()?;
                    l.actions.push(a);
                }
                b"VOXT" => {
                    let v = voxel::read_voxt(&mut self.reader(body, budget), t).ok()?;
                    refs.extend(v.iter().map(|v| v.name));
                    voxel_types.push(v);
                }
                b"VOXD" if t.vd() != 0 && t.vp() != 0 => {
                    let v = voxel::read_voxd(&mut self.reader(body, budget), t).ok()?;
                    let size = block_bytes(&v) + std::mem::size_of::<voxel::VoxelBlock>() as u64;
                    budget.charge("voxel blocks", size).ok()?;
                    l.voxel_blocks.push(v);
                }
                b"ASET" => {
                    let mut r = self.reader(body, budget);
                    let name = crate::types::read_str(&mut r, t).ok()?;
                    assets.push((name, r.rest()));
                }
                // Not part of the loaded model, but a chunk that does not decode fails the
                // checked read, so these are decoded all the same.
                b"PROC" => {
                    crate::types::read_str(&mut self.reader(body, budget), t).ok()?;
                }
                b"SHPE" => {
                    shape::read_shpe(&mut self.reader(body, budget), t).ok()?;
                }
                b"LBLS" => {
                    label::read_lbls(&mut self.reader(body, budget), t).ok()?;
                }
                _ => {}
            }
        }
        if let Some(body) = tmap {
            let n = records(body, 2 * t.vc())?;
            budget
                .charge_items::<[f32; 2]>("texture coordinates", n)
                .ok()?;
            l.tmap = body
                .chunks_exact((2 * t.vc()).max(1))
                .map(|rec| {
                    let mut c = Cur(rec);
                    [(); 2].map(|_| c.coord(t).map_or(0.0, uv_coord))
                })
                .collect();
        }
        let materials = MaterialIndex::new(self.strings, &l.materials, refs, budget).ok()?;
        budget
            .charge_items::<LoadedFace>("triangles", triangles)
            .ok()?;
        l.faces.reserve_exact(triangles);
        let mut types = voxel_types.iter();
        for &(magic, body) in &self.chunks {
            match &magic {
                b"MESH" => faces(body, t, &materials, &mut l.faces)?,
                b"VOXT" => {
                    let v = types.next()?;
                    budget
                        .charge_items::<LoadedVoxelType>("voxel types", v.len())
                        .ok()?;
                    l.voxel_types.extend(v.iter().map(|v| LoadedVoxelType {
                        color: colours.rgba(v.color),
                        skin: v.skin,
                        material: materials.find(v.name),
                    }));
                }
                _ => {}
            }
        }
        if opts.textures {
            l.textures = crate::texture::decode(self.strings, &maps, &assets, budget).ok()?;
        }
        Some(l)
    }

    /// BONE: bones and skins (the last BONE chunk wins, as in the checked load).
    fn bones(
        &self,
        body: &'a [u8],
        l: &mut Loaded,
        budget: &Budget,
        text: &dyn Fn(Str) -> Option<String>,
    ) -> Option<()> {
        let s = bones::read_bone(&mut self.reader(body, budget), self.types).ok()?;
        let nb = self.types.nb();
        budget
            .charge_items::<LoadedSkin>("skins", s.skins.len())
            .ok()?;
        l.skins = s.skins.iter().map(|sk| skin(sk, nb)).collect();
        budget
            .charge_items::<LoadedBone>("bones", s.bones.len())
            .ok()?;
        l.bones = s
            .bones
            .iter()
            .map(|b| {
                Some(LoadedBone {
                    name: text(b.name)?,
                    parent: b.parent,
                    pos: b.pos,
                    ori: b.ori,
                    weights: Vec::new(),
                    inverse_bind: IDENTITY,
                })
            })
            .collect::<Option<_>>()?;
        Some(())
    }
}

/// VRTS records in their loaded form, one width dispatch per array (not per field).
fn vertices(
    body: &[u8],
    size: usize,
    n: usize,
    t: Types,
    colours: Colours<'_>,
) -> Vec<LoadedVertex> {
    let (ci, sk) = (t.ci(), t.sk());
    let rest = |c: &mut Cur<'_>| {
        let color = c.raw(ci).unwrap_or(0);
        let skin = c.idx(sk).unwrap_or(Idx::UNDEF);
        (colours.rgba(color), skin)
    };
    let mut out = Vec::with_capacity(n);
    let records = body.chunks_exact(size.max(1));
    macro_rules! each {
        ($w:literal, $conv:expr) => {
            out.extend(records.map(|rec| {
                let (xyz, tail) = rec.split_at_checked(4 * $w).unwrap_or((rec, &[]));
                let mut c = Cur(tail);
                let (color, skin) = rest(&mut c);
                let v = |k: usize| {
                    let b = xyz.get(k * $w..(k + 1) * $w).and_then(|b| b.try_into().ok());
                    $conv(b.unwrap_or([0; $w]))
                };
                LoadedVertex {
                    xyzw: [v(0), v(1), v(2), v(3)],
                    color,
                    skin,
                }
            }))
        };
    }
    match t.vc() {
        1 => each!(1, |b: [u8; 1]| f32::from(i8::from_le_bytes(b)) / 127.0),
        2 => each!(2, |b: [u8; 2]| f32::from(i16::from_le_bytes(b)) / 32767.0),
        4 => each!(4, f32::from_le_bytes),
        _ => each!(8, |b: [u8; 8]| f64::from_le_bytes(b) as f32),
    }
    out
}

/// Bytes one polygon corner takes for the record flags (absent index types take none).
fn corner_size(t: Types, flags: u8) -> usize {
    t.vi()
        + usize::from(flags & 1) * t.ti()
        + usize::from(flags & 2 != 0) * t.vi()
        + usize::from(flags & 4 != 0) * t.vi()
}

/// Checks that every MESH record fits, gathers the use-material names and counts the
/// triangles the polygons fan into; `None` when a record runs past the chunk.
fn scan_mesh(mut b: &[u8], t: Types, refs: &mut Vec<Str>, budget: &Budget) -> Option<usize> {
    let mut triangles = 0usize;
    while let Some((&m, rest)) = b.split_first() {
        let (n, flags) = (usize::from(m >> 4), m & 15);
        if n == 0 {
            let mut c = Cur(rest);
            let name = c.raw(t.si())?;
            if flags == 0 {
                budget.charge_items::<Str>("name index", 1).ok()?;
                refs.push(Str(name));
            }
            b = c.0;
            continue;
        }
        b = rest.get(n * corner_size(t, flags)..)?;
        triangles += n.saturating_sub(2);
    }
    Some(triangles)
}

/// MESH polygons as loaded triangles (larger polygons as a fan), with the material of
/// the chunk's last use-material record.
fn faces(
    mut b: &[u8],
    t: Types,
    materials: &MaterialIndex,
    out: &mut Vec<LoadedFace>,
) -> Option<()> {
    let mut material = Idx::UNDEF;
    let mut corners = [Corner {
        vertex: Idx::UNDEF,
        uv: Idx::UNDEF,
        normal: Idx::UNDEF,
        max: Idx::UNDEF,
    }; 15];
    let (vi, ti) = (t.vi(), t.ti());
    while let Some((&m, rest)) = b.split_first() {
        let (n, flags) = (usize::from(m >> 4), m & 15);
        let mut c = Cur(rest);
        if n == 0 {
            let name = Str(c.raw(t.si())?);
            if flags == 0 {
                material = materials.find(name);
            }
            b = c.0;
            continue;
        }
        for corner in corners.iter_mut().take(n) {
            corner.vertex = c.idx(vi)?;
            corner.uv = if flags & 1 != 0 {
                c.idx(ti)?
            } else {
                Idx::UNDEF
            };
            corner.normal = if flags & 2 != 0 {
                c.idx(vi)?
            } else {
                Idx::UNDEF
            };
            if flags & 4 != 0 {
                c.idx(vi)?;
            }
        }
        b = c.0;
        let first = corners[0];
        for pair in corners.get(1..n).unwrap_or_default().windows(2) {
            let [p, q] = [pair[0], pair[1]];
            out.push(LoadedFace {
                material,
                vertex: [first.vertex, p.vertex, q.vertex],
                uv: [first.uv, p.uv, q.uv],
                normal: [first.normal, p.normal, q.normal],
            });
        }
    }
    Some(())
}
