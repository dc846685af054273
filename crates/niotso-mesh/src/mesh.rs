//! `.mesh` v2: faithful types, read and write (notes/niotso.md section 2).
//!
//! Integers are big-endian, floats little-endian. Vertices are stored in the local frame
//! of the bone their binding attaches them to.

use parsing_primitives::{RawString, Writer};

use crate::FORMAT_NAME;
use crate::error::{Result, invalid};

/// Reading choices (the crate's one [`ReadOptions`], for every kind).
pub use crate::ReadOptions;

/// Most per-binding lines [`Mesh::diagnostics`] gives before one summary line: a
/// hostile file can hold millions of bad bindings, each only 20 bytes.
pub const MAX_BINDING_DIAGNOSTICS: usize = 16;

/// Attaches a range of real vertices and a range of blend vertices to one bone. All
/// fields are signed: real files store -1 as `first_blend` of an empty blend range.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Binding {
    /// Index into the bone names (out of range in some original EA data).
    pub bone_index: i32,
    /// First real vertex.
    pub first_real: i32,
    /// Number of real vertices.
    pub real_count: i32,
    /// First blend vertex (any value when `blend_count` is 0).
    pub first_blend: i32,
    /// Number of blend vertices.
    pub blend_count: i32,
}

/// A blend vertex's tug on a real vertex.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Blend {
    /// Weight in Q1.15: `raw / 32768` (0x8000 = 1.0).
    pub weight: i32,
    /// The real vertex it tugs.
    pub other_vertex: i32,
}

impl Blend {
    /// The weight as a float.
    pub fn weight_f32(&self) -> f32 {
        self.weight as f32 / 32768.0
    }
}

/// A vertex record: position xyz and normal xyz, bone-local, as stored (normals are
/// not necessarily unit length: FreeSO's are 3.0 long).
pub type VertexRecord = [f32; 6];

/// A `.mesh` file.
#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    /// Version (2 in every valid file).
    pub version: u32,
    /// Bone names the bindings refer to.
    pub bone_names: Vec<RawString>,
    /// Triangles, indexing real vertices.
    pub faces: Vec<[u32; 3]>,
    /// Bindings.
    pub bindings: Vec<Binding>,
    /// Texture coordinates of the real vertices, top-down (v = 0 is the top row).
    pub uvs: Vec<[f32; 2]>,
    /// One per blend vertex.
    pub blends: Vec<Blend>,
    /// The stored "total vertex count": unreliable (EA: R + N, FreeSO: R), kept for
    /// byte-exact rewrites and never used for layout.
    pub third_count: u32,
    /// Real vertices (one per UV).
    pub real_vertices: Vec<VertexRecord>,
    /// Blend vertices (one per blend).
    pub blend_vertices: Vec<VertexRecord>,
}

impl Mesh {
    /// The bone name of a binding, resolved like FreeSO and the Blender importer: an
    /// index past the end means the last name (`clamped` is then true); a negative one
    /// the first. `None` when the mesh has no bone names.
    pub fn binding_bone(&self, b: &Binding) -> Option<(&RawString, bool)> {
        let last = self.bone_names.len().checked_sub(1)?;
        let i = usize::try_from(b.bone_index).unwrap_or(0);
        let clamped = b.bone_index < 0 || i > last;
        Some((&self.bone_names[i.min(last)], clamped))
    }

    /// Problems a lenient reader resolves rather than rejects, one line each: bone
    /// indices out of range (the first [`MAX_BINDING_DIAGNOSTICS`], then one line
    /// counting the others), a third count that is neither R nor R + N (which
    /// [`Mesh::write`] replaces by R + N).
    pub fn diagnostics(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut more = 0usize;
        for (k, b) in self.bindings.iter().enumerate() {
            if let Some((name, true)) = self.binding_bone(b) {
                if out.len() == MAX_BINDING_DIAGNOSTICS {
                    more += 1;
                    continue;
                }
                out.push(format!(
                    "binding {k}: bone index {} out of range ({} names), resolved to '{name}'",
                    b.bone_index,
                    self.bone_names.len()
                ));
            }
        }
        if more > 0 {
            out.push(format!(
                "{more} more bindings with a bone index out of range, resolved the same way"
            ));
        }
        if self.stale_third_count() {
            let (r, rn) = self.vertex_totals();
            out.push(format!(
                "third count {} is neither R = {r} nor R + N = {rn}",
                self.third_count
            ));
        }
        out
    }

    /// R and R + N, widened so they cannot overflow.
    fn vertex_totals(&self) -> (u64, u64) {
        let r = self.real_vertices.len() as u64;
        (r, r.saturating_add(self.blend_vertices.len() as u64))
    }

    /// True when the third count is neither R (FreeSO) nor R + N (EA): stale after an
    /// edit. NIO loops over that many vertex records, so [`Mesh::write`] replaces it.
    pub fn stale_third_count(&self) -> bool {
        let (r, rn) = self.vertex_totals();
        let third = u64::from(self.third_count);
        third != r && third != rn
    }
}

fn check_range(first: i32, count: i32, len: usize) -> bool {
    count == 0 || (count > 0 && first >= 0 && (first as i64 + count as i64) <= len as i64)
}

/// Reads a `.mesh` with default options.
pub fn read(data: &[u8]) -> Result<Mesh> {
    read_with(data, &ReadOptions::default())
}

/// Reads a `.mesh` with reading choices (the limits or a shared budget, trailing
/// bytes, other versions).
pub fn read_with(data: &[u8], options: &ReadOptions) -> Result<Mesh> {
    let mut r = options.reader(data);
    let at = r.offset();
    let version = r.field("version", |r| r.u32_be())?;
    if version != 2 && !options.any_version {
        return Err(r
            .invalid_at(at, format!("mesh version {version}, expected 2"))
            .into());
    }
    let nb = r.field("bone_count", |r| r.u32_be())?;
    let bone_names = r.field("bone_names", |r| {
        r.array(u64::from(nb), 1, |r| r.pascal_u8().map(RawString::from))
    })?;
    let nf = r.field("face_count", |r| r.u32_be())?;
    let faces: Vec<[u32; 3]> = r.field("faces", |r| r.be_array(u64::from(nf)))?;
    let faces_at = r.offset() - faces.len() as u64 * 12;
    let nk = r.field("binding_count", |r| r.u32_be())?;
    let bindings: Vec<[i32; 5]> = r.field("bindings", |r| r.be_array(u64::from(nk)))?;
    let bindings_at = r.offset() - bindings.len() as u64 * 20;
    let bindings: Vec<Binding> = bindings
        .into_iter()
        .map(|b| Binding {
            bone_index: b[0],
            first_real: b[1],
            real_count: b[2],
            first_blend: b[3],
            blend_count: b[4],
        })
        .collect();
    let nr = r.field("real_vertex_count", |r| r.u32_be())?;
    let uvs: Vec<[f32; 2]> = r.field("uvs", |r| r.le_array(u64::from(nr)))?;
    let nn = r.field("blend_vertex_count", |r| r.u32_be())?;
    let blends: Vec<[i32; 2]> = r.field("blends", |r| r.be_array(u64::from(nn)))?;
    let blends_at = r.offset() - blends.len() as u64 * 8;
    let blends: Vec<Blend> = blends
        .into_iter()
        .map(|b| Blend {
            weight: b[0],
            other_vertex: b[1],
        })
        .collect();
    let third_count = r.field("third_count", |r| r.u32_be())?;
    // Layout is always R + N records, whatever the third count says.
    let real_vertices = r.field("real_vertices", |r| r.le_array(u64::from(nr)))?;
    let blend_vertices = r.field("blend_vertices", |r| r.le_array(u64::from(nn)))?;
    let (nr, nn) = (nr as usize, nn as usize);
    if let Some(t) = faces
        .iter()
        .position(|f| f.iter().any(|&i| i as usize >= nr))
    {
        return Err(r
            .invalid_item_at(
                "faces",
                t,
                faces_at + 12 * t as u64,
                format!("face {:?} indexes past the {nr} real vertices", faces[t]),
            )
            .into());
    }
    if let Some(j) = blends
        .iter()
        .position(|b| b.other_vertex < 0 || b.other_vertex as usize >= nr)
    {
        return Err(r
            .invalid_item_at(
                "blends",
                j,
                blends_at + 8 * j as u64 + 4,
                format!("blend tugs real vertex {} of {nr}", blends[j].other_vertex),
            )
            .into());
    }
    for (k, b) in bindings.iter().enumerate() {
        let at = bindings_at + 20 * k as u64;
        if !check_range(b.first_real, b.real_count, nr)
            || !check_range(b.first_blend, b.blend_count, nn)
        {
            return Err(r
                .invalid_item_at(
                    "bindings",
                    k,
                    at,
                    format!(
                        "ranges {}+{} real / {}+{} blend leave the {nr} real / {nn} blend vertices",
                        b.first_real, b.real_count, b.first_blend, b.blend_count
                    ),
                )
                .into());
        }
        if bone_names.is_empty() {
            return Err(r
                .invalid_at(at, "a binding names a bone but the mesh has no bone names")
                .into());
        }
    }
    options.finish(&r)?;
    Ok(Mesh {
        version,
        bone_names,
        faces,
        bindings,
        uvs,
        blends,
        third_count,
        real_vertices,
        blend_vertices,
    })
}

impl Mesh {
    /// What [`Mesh::write`] would refuse, at its path (the first thing found): one UV
    /// per real vertex, one blend record per blend vertex, faces, blend targets and
    /// binding ranges in range.
    pub fn problems(&self) -> Vec<meshfmt_core::Problem> {
        let mut p = meshfmt_core::Problems::default();
        p.check("mesh", self.check());
        p.into_vec()
    }

    /// The first reason [`Mesh::write`] would refuse the file.
    pub(crate) fn check(&self) -> Result<()> {
        let (nr, nn) = (self.real_vertices.len(), self.blend_vertices.len());
        if self.uvs.len() != nr {
            return Err(invalid(format!(
                "{} UVs for {nr} real vertices",
                self.uvs.len()
            )));
        }
        if self.blends.len() != nn {
            return Err(invalid(format!(
                "{} blend records for {nn} blend vertices",
                self.blends.len()
            )));
        }
        if let Some(f) = self
            .faces
            .iter()
            .find(|f| f.iter().any(|&i| i as usize >= nr))
        {
            return Err(invalid(format!(
                "face {f:?} indexes past the {nr} real vertices"
            )));
        }
        if let Some(b) = self
            .blends
            .iter()
            .find(|b| b.other_vertex < 0 || b.other_vertex as usize >= nr)
        {
            return Err(invalid(format!(
                "blend tugs real vertex {} of {nr}",
                b.other_vertex
            )));
        }
        for b in &self.bindings {
            if !check_range(b.first_real, b.real_count, nr)
                || !check_range(b.first_blend, b.blend_count, nn)
            {
                return Err(invalid(format!("binding {b:?} leaves the vertex arrays")));
            }
        }
        Ok(())
    }

    /// The file's bytes. The third count is written as stored when it is R or R + N
    /// (so real files rewrite byte for byte), else as R + N: NIO reads that many vertex
    /// records, so a count left stale by an edit would lose vertices there.
    ///
    /// ```
    /// # use niotso_mesh::mesh::{self, Mesh};
    /// let mut m = Mesh {
    ///     version: 2, bone_names: vec![], faces: vec![], bindings: vec![], uvs: vec![[0.0; 2]],
    ///     blends: vec![], third_count: 1, real_vertices: vec![[0.0; 6]], blend_vertices: vec![],
    /// };
    /// assert_eq!(mesh::read(&m.write()?)?.third_count, 1); // R: kept
    /// m.third_count = 7;
    /// assert_eq!(mesh::read(&m.write()?)?.third_count, 1); // stale: R + N
    /// # Ok::<(), niotso_mesh::Error>(())
    /// ```
    pub fn write(&self) -> Result<Vec<u8>> {
        self.check()?;
        let mut w = Writer::new(FORMAT_NAME);
        let count = |n: usize| {
            u32::try_from(n).map_err(|_| invalid(format!("count {n} does not fit 32 bits")))
        };
        w.u32_be(self.version);
        w.u32_be(count(self.bone_names.len())?);
        for n in &self.bone_names {
            w.pascal_u8(n.as_bytes())?;
        }
        w.u32_be(count(self.faces.len())?);
        w.be_slice(&self.faces);
        w.u32_be(count(self.bindings.len())?);
        let b: Vec<[i32; 5]> = self
            .bindings
            .iter()
            .map(|b| {
                [
                    b.bone_index,
                    b.first_real,
                    b.real_count,
                    b.first_blend,
                    b.blend_count,
                ]
            })
            .collect();
        w.be_slice(&b);
        w.u32_be(count(self.uvs.len())?);
        w.le_slice(&self.uvs);
        w.u32_be(count(self.blends.len())?);
        let b: Vec<[i32; 2]> = self
            .blends
            .iter()
            .map(|b| [b.weight, b.other_vertex])
            .collect();
        w.be_slice(&b);
        let third = if self.stale_third_count() {
            count(
                self.real_vertices
                    .len()
                    .saturating_add(self.blend_vertices.len()),
            )?
        } else {
            self.third_count
        };
        w.u32_be(third);
        w.le_slice(&self.real_vertices);
        w.le_slice(&self.blend_vertices);
        Ok(w.into_inner())
    }

    /// Writes the file's bytes to `out`.
    pub fn write_to(&self, mut out: impl std::io::Write) -> Result<()> {
        out.write_all(&self.write()?)?;
        Ok(())
    }
}
