//! sk10 (`.mesh_skinned`, current UNIGINE documentation): skinned geometry in LZ4
//! blocks, with joints, bind and rest transforms and a shared-skeleton reference.
//!
//! **Implemented from the documentation only** (`file_formats.md`, summarized in
//! notes/unigine-current.md section 7); no real sk10 file has been seen. Layout:
//!
//! ```text
//! u8[4]   "sk10"
//! ci      spatial tree triangles
//! f32[10] bounds
//! i32     num_joints;  repeat: str name (compact length incl. NUL); i16 parent
//! i32     num_bind;    f32[10] * num_bind     -- bind transforms
//! i32     num_rest;    f32[10] * num_rest     -- rest transforms
//! str32   skeleton GUID; str32 skeleton path  -- i32 length incl. NUL, bytes, NUL
//! ci      num_surfaces
//! repeat: str name; ci num_cindices; ci num_tindices; f32[10] bounds;
//!         ci num_morph_targets; repeat: str name; ci num_vertices   -- no lightmap bytes
//! i64     memory estimate
//! u8[4]   "sk10"
//! repeat: BLOCK(geometry)                     -- ms14's payload, weights included
//! u8[4]   "sk10"
//! i64     geometry block offsets
//! u8[4]   "sk10"                             -- no edges/spatial-tree section
//! ```
//!
//! Assumptions: the page's `int` fields are compact ints and its `int32`/`long` fields
//! fixed `i32`/`i64`, literally (joint count `i32` but joint-name lengths compact);
//! the bind and rest transform counts must both equal the joint count (the page says
//! "for each joint"; a file where they differ is rejected); transforms are
//! parent-relative like the ms13/ms14 bind pose; blocks, LZ4, raw-stored blocks, index
//! widths, weights and morph targets are exactly ms14's; the "spatial tree triangles"
//! value is kept although sk10 stores no tree.

use meshfmt_core::glam::Mat4;
use meshfmt_core::{Budget, Converted, Feature, LossKind, Model, Transform};
use parsing_primitives::{RawString, Reader, Writer};
use unigine_common::bones::{read_bone_entries, write_bone_entries};

use crate::FORMAT_NAME;
use crate::block::{keep_stored, memory_estimate_for, prepare, stored_buffers};
use crate::common::{BindTransform, read_bounds};
use crate::convert::{COORDINATE_SYSTEM, bind_to_transform, transform_to_bind};
use crate::error::{Result, invalid};
use crate::ms1x::{Ms1x, Ms1xVersion, geometry_len};
use crate::ms14::{
    Layout, StoredBlock, decode_surfaces, geometry_contents, read_blocks, read_offsets,
    read_surface_headers, write_surface_headers,
};

/// sk10: surface headers without lightmap bytes; joints, bind and rest poses and the
/// skeleton reference are read and written here.
pub(crate) const LAYOUT: Layout = Layout {
    magic: b"sk10",
    lightmap: false,
    skinned: true,
    compact_bones: false,
    whole_file: false,
};

/// An sk10 file.
#[derive(Debug, Clone, PartialEq)]
pub struct Sk10 {
    /// Joints (`bones`), bind transforms (`bind_pose`) and surfaces with ms13 meaning
    /// (`version` [`Ms1xVersion::Ms13`], no animations, lightmap bytes `[0, 0]`).
    pub mesh: Ms1x,
    /// Rest transforms, one per joint.
    pub rest_pose: Vec<BindTransform>,
    /// GUID of the shared `.skeleton` file, as stored.
    pub skeleton_guid: RawString,
    /// Path of the shared `.skeleton` file, as stored.
    pub skeleton_path: RawString,
    /// "Spatial tree triangles", as stored.
    pub spatial_tree_triangles: i64,
    /// The engine's RAM estimate (formula unknown): written as stored while every
    /// geometry block is unchanged (or when built in memory), else rescaled by the
    /// ratio of new to original decoded sizes, like ms14's.
    pub memory_estimate: i64,
    /// The original geometry blocks, per surface, when read from a file (written back
    /// unchanged when the content still matches). Empty for meshes built in memory.
    pub blocks: Vec<StoredBlock>,
}

fn read_transforms(
    r: &mut Reader<'_>,
    count: &'static str,
    list: &'static str,
    nj: usize,
) -> parsing_primitives::Result<Vec<BindTransform>> {
    let at = r.offset();
    let n = r.field(count, |r| r.i32_count(40))?;
    if n != nj {
        return Err(r.invalid_at(at, format!("{n} {list} for {nj} joints")));
    }
    let a = r.field(list, |r| r.le_array::<[f32; 10]>(n as u64))?;
    Ok(a.into_iter().map(BindTransform::from_array).collect())
}

/// Reads an sk10 file.
pub(crate) fn read(r: &mut Reader<'_>) -> parsing_primitives::Result<Sk10> {
    r.field("magic", |r| r.magic(b"sk10"))?;
    let spatial_tree_triangles = r.field("spatial_tree_triangles", |r| r.compact_int())?;
    let bounds = r.field("bounds", read_bounds)?;
    let nj = r.field("num_joints", |r| r.i32_count(3))?;
    let bones = read_bone_entries(r, nj)?;
    let bind_pose = read_transforms(r, "num_bind_transforms", "bind_transforms", nj)?;
    let rest_pose = read_transforms(r, "num_rest_transforms", "rest_transforms", nj)?;
    let (skeleton_guid, skeleton_path) = unigine_common::bones::read_skeleton_ref(r)?;
    let headers = read_surface_headers(r, LAYOUT)?;
    let memory_estimate = r.field("memory_estimate", |r| r.i64_le())?;
    r.field("marker2", |r| r.magic(b"sk10"))?;
    let (positions, blocks) = read_blocks(r, headers.len(), "geometry_blocks")?;
    r.field("marker3", |r| r.magic(b"sk10"))?;
    read_offsets(r, &positions)?;
    r.field("marker4", |r| r.magic(b"sk10"))?;
    r.finish()?;
    let surfaces = decode_surfaces(r, headers, (&positions, &blocks), nj, true)?;
    let blocks = keep_stored(&blocks, stored_buffers(&blocks));
    Ok(Sk10 {
        mesh: Ms1x {
            version: Ms1xVersion::Ms13,
            bounds,
            bones,
            bind_pose,
            animations: Vec::new(),
            surfaces,
        },
        rest_pose,
        skeleton_guid,
        skeleton_path,
        spatial_tree_triangles,
        memory_estimate,
        blocks,
    })
}

impl Sk10 {
    /// What [`Sk10::write`] would refuse, at its path (the first thing found).
    pub fn problems(&self) -> Vec<meshfmt_core::Problem> {
        let mut p = meshfmt_core::Problems::default();
        p.check("sk10", self.check());
        p.into_vec()
    }

    /// Checks what [`Sk10::write`] relies on: the mesh's own checks (ms13 content, no
    /// animations), no lightmap settings, one rest transform per joint.
    pub(crate) fn check(&self) -> Result<()> {
        self.mesh.check_ms13_content("sk10")?;
        if self.rest_pose.len() != self.mesh.bones.len() {
            return Err(invalid(format!(
                "{} rest transforms for {} joints",
                self.rest_pose.len(),
                self.mesh.bones.len()
            )));
        }
        if self.mesh.surfaces.iter().any(|s| s.lightmap != [0, 0]) {
            return Err(invalid("sk10 stores no lightmap settings (they must be 0)"));
        }
        Ok(())
    }

    /// The file's bytes; unchanged blocks keep their original compressed bytes. Stale
    /// bounds ([`Ms1x::bounds_to_write`]) and memory estimate are rebuilt.
    pub fn write(&self) -> Result<Vec<u8>> {
        self.check()?;
        let m = &self.mesh;
        let (bounds, surface_bounds) = m.bounds_to_write();
        let originals: Vec<&StoredBlock> = self.blocks.iter().collect();
        let geometry = prepare(geometry_contents(&m.surfaces, true)?, &originals);
        let estimate = memory_estimate_for(self.memory_estimate, &[&geometry], &originals);
        let mut w = Writer::with_capacity(FORMAT_NAME, geometry.written_len() + (1 << 12));
        w.bytes(b"sk10");
        let stt = u32::try_from(self.spatial_tree_triangles)
            .ok()
            .filter(|&v| v <= i32::MAX as u32)
            .ok_or_else(|| invalid("spatial tree triangles out of range"))?;
        w.compact_u32(stt);
        w.le_slice(&bounds.to_array());
        // check() bounds the joint count by i16::MAX.
        let nj = m.bones.len() as i32;
        w.i32_le(nj);
        write_bone_entries(&mut w, &m.bones)?;
        for pose in [&m.bind_pose, &self.rest_pose] {
            w.i32_le(nj);
            let a: Vec<[f32; 10]> = pose.iter().map(BindTransform::to_array).collect();
            w.le_slice(&a);
        }
        w.i32_nul_string(self.skeleton_guid.as_bytes())?;
        w.i32_nul_string(self.skeleton_path.as_bytes())?;
        write_surface_headers(&mut w, &m.surfaces, &surface_bounds, LAYOUT)?;
        w.i64_le(estimate);
        w.bytes(b"sk10");
        let offsets = geometry.write(&mut w);
        w.bytes(b"sk10");
        w.le_slice(&offsets);
        w.bytes(b"sk10");
        Ok(w.into_inner())
    }

    /// The meshfmt-core model: surfaces, weights and morph targets as ms13/ms14 convert
    /// them; each joint's `rest` is its rest transform, and when any rest transform
    /// differs from its bind transform every joint gets `inverse_bind` = the inverse
    /// of its world bind matrix (so skinning still uses the bind pose). The skeleton
    /// reference is reported as a loss.
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_in(&Budget::default())
    }

    /// [`Sk10::to_core`], charging the model it builds to `budget`.
    pub(crate) fn to_core_in(&self, budget: &Budget) -> Result<Converted<Model>> {
        let mut c = self.mesh.to_core_in(budget)?;
        let bind_world = c.value.skeleton.rest_world_matrices();
        let differs = self.rest_pose != self.mesh.bind_pose;
        for ((b, rest), w) in c
            .value
            .skeleton
            .bones
            .iter_mut()
            .zip(&self.rest_pose)
            .zip(&bind_world)
        {
            b.rest = bind_to_transform(rest);
            if differs {
                b.inverse_bind = Some(w.inverse());
            }
        }
        if !self.skeleton_guid.is_empty() || !self.skeleton_path.is_empty() {
            c.lose(
                Feature::Skeleton,
                LossKind::Dropped,
                "skeleton_reference",
                "meshfmt-core has no shared-skeleton reference (GUID and path dropped)",
            );
        }
        Ok(c)
    }

    /// An sk10 file from any model, as ms13 would hold it (positions, tangents, UVs,
    /// colours, up to 4 weights per vertex, morph targets; clips are dropped and
    /// reported). Bind transforms come from the joints' inverse bind matrices where
    /// given (else from the rest pose), rest transforms from the rest pose; the
    /// skeleton GUID and path are left empty and the memory estimate is the decoded
    /// size of the geometry blocks (the engine's formula is unknown).
    pub fn from_core(model: &Model) -> Result<Converted<Sk10>> {
        Sk10::from_core_in(model, &Budget::default())
    }

    /// [`Sk10::from_core`], charging what it builds (a copy of the model) to `budget`.
    pub(crate) fn from_core_in(model: &Model, budget: &Budget) -> Result<Converted<Sk10>> {
        let m = model.copy_in(COORDINATE_SYSTEM, budget)?;
        let rest_world = m.skeleton.rest_world_matrices();
        let bind_world: Vec<Mat4> = m
            .skeleton
            .bones
            .iter()
            .zip(&rest_world)
            .map(|(b, w)| b.inverse_bind.map_or(*w, |ib| ib.inverse()))
            .collect();
        let bind_local: Vec<Transform> = m
            .skeleton
            .bones
            .iter()
            .zip(&bind_world)
            .map(|(b, w)| {
                let parent = b.parent.and_then(|p| bind_world.get(p));
                Transform::from_mat4(&parent.map_or(*w, |p| p.inverse() * *w))
            })
            .collect();
        let rest_pose: Vec<BindTransform> = m
            .skeleton
            .bones
            .iter()
            .map(|b| transform_to_bind(&b.rest))
            .collect();
        let mut for_bind = m;
        for (b, t) in for_bind.skeleton.bones.iter_mut().zip(&bind_local) {
            b.rest = *t;
            b.inverse_bind = None;
        }
        let c = Ms1x::from_core_in(&for_bind, Ms1xVersion::Ms13, budget)?;
        let Converted {
            value: mut mesh,
            losses,
        } = c;
        for s in &mut mesh.surfaces {
            s.lightmap = [0, 0];
        }
        // Computed, not written out: nothing more to allocate.
        let estimate = mesh.surfaces.iter().fold(0usize, |n, s| {
            n.saturating_add(geometry_len(Ms1xVersion::Ms13, s, false, true))
        });
        Ok(Converted {
            value: Sk10 {
                mesh,
                rest_pose,
                skeleton_guid: RawString::default(),
                skeleton_path: RawString::default(),
                spatial_tree_triangles: 4,
                memory_estimate: i64::try_from(estimate).unwrap_or(i64::MAX),
                blocks: Vec::new(),
            },
            losses,
        })
    }
}

crate::file::with_options!(Sk10);

impl crate::file::VersionFile for Sk10 {
    fn magic(&self) -> &'static [u8; 4] {
        b"sk10"
    }

    crate::file::version_file_delegates!();

    fn summarize(&self, s: &mut meshfmt_core::Summary) {
        let blocks: Vec<(usize, usize)> = self
            .blocks
            .iter()
            .map(|b| (b.stored.len(), b.size as usize))
            .collect();
        crate::summary::ms1x_detail(&self.mesh, &blocks, s);
        crate::summary::ms1x_counts(&self.mesh, &mut s.counts);
    }
}
