//! ms14 (`.mesh`, UNIGINE 2.20): ms13's content around per-surface LZ4 blocks
//! (notes/unigine-current.md section 4, verified on real files).
//!
//! Layout: magic, a compact "spatial tree triangles" count, bounds, bones, surface
//! headers (which now hold the index counts and each morph target's vertex count), an
//! `i64` memory estimate, a marker, the bind pose, one geometry block per surface, a
//! marker, one edges-and-spatial-tree block per surface, a marker, the `i64` file offset
//! of every geometry block, a final marker. A block is `u64 uncompressed size, u64
//! compressed size, bytes`: plain LZ4 block format, or the bytes themselves when both
//! sizes are equal.
//!
//! The engine's LZ4 output cannot be reproduced by any public compressor setting, so a
//! byte-identical rewrite keeps each block's stored bytes ([`StoredBlock`]) and writes
//! them back when the content is unchanged ([`Ms14::blocks`]); changed content is
//! compressed anew (stored raw when compression does not shrink it).

use parsing_primitives::{Budget, RawString, Reader, Writer};
use unigine_common::bones::{read_bones, write_bones};

use crate::FORMAT_NAME;
pub use crate::block::StoredBlock;
use crate::block::{
    BlockView, Prepared, keep_stored, memory_estimate_for, parse_block, prepare, read_block,
    stored_buffers,
};
use crate::common::{BindTransform, Bounds, MAX_NAME, read_bounds};
use crate::error::{Result, invalid};
use crate::input::Input;
use crate::ms1x::{
    HeaderCounts, Ms1x, Ms1xVersion, Surface, geometry_len, read_geometry, write_geometry_with,
};
use crate::spatial::{SpatialTree, triangles_fit};
use crate::threads::{THREADED_TRIANGLES, beside};

/// The original blocks of one surface (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SurfaceBlocks {
    /// Geometry block.
    pub geometry: StoredBlock,
    /// Edges and spatial tree block.
    pub tree: StoredBlock,
}

/// An ms14 file.
#[derive(Debug, Clone, PartialEq)]
pub struct Ms14 {
    /// Bones, bind pose and surfaces, with ms13 meaning (`version` is [`Ms1xVersion::Ms13`],
    /// no animations).
    pub mesh: Ms1x,
    /// "Spatial tree triangles" (4 in every sample: the leaf size the tree aims for).
    pub spatial_tree_triangles: i64,
    /// The engine's RAM estimate (its formula is unknown). Written as stored while every
    /// block's content is unchanged or when there are no original [`Ms14::blocks`]
    /// (built in memory: [`Ms14::from_ms13`] sets it); otherwise rescaled by the ratio
    /// of the new to the original decoded block sizes.
    pub memory_estimate: i64,
    /// Decoded edges-and-spatial-tree block per surface (edge flags, node indices and a
    /// pre-order tree of boxes); derived data, see [`Ms14::tree_geometry`].
    pub trees: Vec<SpatialTree>,
    /// Per surface, the [`geometry_hash`] of the geometry its tree was read or built
    /// for. The writer builds a new tree (and edge flags) for a surface whose geometry
    /// hash no longer matches (or has none), so edited positions or triangles never
    /// leave a stale tree; other edits (UVs, tangents) keep the stored tree.
    pub tree_geometry: Vec<u64>,
    /// The original blocks, per surface, when read from a file: written back unchanged
    /// when the content still matches. Empty for meshes built in memory.
    pub blocks: Vec<SurfaceBlocks>,
}

/// A 64-bit hash of what a surface's spatial tree and edge flags derive from: the
/// morph-target-0 positions (bit patterns) and the coordinate indices. Not a
/// cryptographic hash: it tells edits apart from untouched geometry. Four independent
/// lanes over the 32-bit words, so the multiplies overlap (a single chain took most of
/// the time of an ms14 read's geometry side after decoding).
pub fn geometry_hash(s: &Surface) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    fn mix(h: u64, v: u64) -> u64 {
        (h ^ v).wrapping_mul(K).rotate_left(29)
    }
    fn words(lanes: &mut [u64; 4], w: &[u32]) {
        let mut chunks = w.chunks_exact(8);
        for c in chunks.by_ref() {
            for (k, lane) in lanes.iter_mut().enumerate() {
                *lane = mix(*lane, u64::from(c[2 * k]) | u64::from(c[2 * k + 1]) << 32);
            }
        }
        for &v in chunks.remainder() {
            lanes[0] = mix(lanes[0], u64::from(v));
        }
    }
    let positions = s.morph_targets.first().map_or(&[][..], |m| &m.vertices[..]);
    let mut lanes = [
        0x6a09_e667_f3bc_c908,
        0xbb67_ae85_84ca_a73b,
        0x3c6e_f372_fe94_f82b,
        0xa54f_f53a_5f1d_36f1,
    ];
    lanes[0] = mix(lanes[0], positions.len() as u64);
    words(&mut lanes, bytemuck::cast_slice(positions));
    lanes[1] = mix(lanes[1], s.cindices.len() as u64);
    words(&mut lanes, &s.cindices);
    lanes.iter().fold(0, |h, &l| mix(h, l))
}

/// What sets the block-based layouts (ms14, ms15, sk10) apart. Each version module
/// owns one value ([`LAYOUT`] here, `ms15::LAYOUT`, `sk10::LAYOUT`); the shared
/// readers and writers below ask for a property, never for a version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The magic (and the markers between the parts).
    pub magic: &'static [u8; 4],
    /// Surface headers carry two lightmap bytes (ms14, ms15; not sk10).
    pub lightmap: bool,
    /// Surfaces carry a named morph-target list and skin weights (ms14, sk10); ms15
    /// stores one unnamed vertex count per surface and no weights.
    pub skinned: bool,
    /// A compact bone list follows the bounds (ms14). ms15 has no bones; sk10 stores
    /// `i32`-counted joints with bind and rest poses, read by its own module.
    pub compact_bones: bool,
    /// [`read_layout`] and [`Ms14::write_layout`] handle the whole file (ms14, ms15);
    /// sk10 reads and writes its own header and uses the shared parts.
    pub whole_file: bool,
}

/// ms14: bones, morph-target list per surface, weights count in the geometry.
pub(crate) const LAYOUT: Layout = Layout {
    magic: b"ms14",
    lightmap: true,
    skinned: true,
    compact_bones: true,
    whole_file: true,
};

/// One surface header as stored (ms14, ms15, sk10).
pub(crate) struct SurfaceHeader {
    name: RawString,
    lightmap: [u8; 2],
    bounds: crate::common::Bounds,
    morphs: Vec<(RawString, usize)>,
    cindices: usize,
    tindices: usize,
}

/// `ci num_surfaces` and the surface headers of `layout`: ms14 and ms15 with the two
/// lightmap bytes, sk10 without; ms14 and sk10 with a morph-target list, ms15 with
/// one vertex count.
pub(crate) fn read_surface_headers(
    r: &mut Reader<'_>,
    layout: Layout,
) -> parsing_primitives::Result<Vec<SurfaceHeader>> {
    // Smallest header: name 1, counts 2 and 1, bounds 40 (+ 2 lightmap bytes).
    let ns = r.field("num_surfaces", |r| r.compact_count(44))?;
    r.field("surfaces", |r| {
        r.array(ns as u64, 44, |r| {
            let name = r.compact_nul_string(MAX_NAME)?;
            r.label(name);
            let lightmap = if layout.lightmap {
                r.field("lightmap", |r| r.le::<[u8; 2]>())?
            } else {
                [0, 0]
            };
            let cindices = r.field("num_cindices", |r| r.compact_count(0))?;
            let tindices = r.field("num_tindices", |r| r.compact_count(0))?;
            let bounds = r.field("bounds", read_bounds)?;
            let morphs = match layout.skinned {
                false => {
                    let nv = r.field("num_vertices", |r| r.compact_count(0))?;
                    vec![(RawString::default(), nv)]
                }
                true => {
                    let n = r.field("num_morph_targets", |r| r.compact_count(2))?;
                    if n == 0 {
                        return Err(
                            r.invalid_at(r.offset(), "a surface needs at least one morph target")
                        );
                    }
                    r.field("morph_targets", |r| {
                        r.array(n as u64, 2, |r| {
                            let name = RawString::from(r.compact_nul_string(MAX_NAME)?);
                            let nv = r.compact_count(0)?;
                            Ok((name, nv))
                        })
                    })?
                }
            };
            Ok(SurfaceHeader {
                name: RawString::from(name),
                lightmap,
                bounds,
                morphs,
                cindices,
                tindices,
            })
        })
    })
}

/// `ns` blocks (the `field` list: geometry or tree blocks) and the file offset of each.
pub(crate) fn read_blocks<'a>(
    r: &mut Reader<'a>,
    ns: usize,
    field: &'static str,
) -> parsing_primitives::Result<(Vec<u64>, Vec<BlockView<'a>>)> {
    let mut positions = Vec::with_capacity(ns);
    let mut blocks = Vec::with_capacity(ns);
    for s in 0..ns {
        positions.push(r.offset());
        blocks.push(r.field(field, |r| r.item(s, |r| read_block(r, "block")))?);
    }
    Ok((positions, blocks))
}

/// The `i64` offset table, which must equal the recorded geometry block positions.
pub(crate) fn read_offsets(
    r: &mut Reader<'_>,
    positions: &[u64],
) -> parsing_primitives::Result<()> {
    let at = r.offset();
    let offsets: Vec<i64> = r.field("offsets", |r| r.le_array(positions.len() as u64))?;
    if let Some((k, (o, p))) = offsets
        .iter()
        .zip(positions)
        .enumerate()
        .find(|(_, (o, p))| **o != **p as i64)
    {
        return Err(r.invalid_item_at(
            "offsets",
            k,
            at + 8 * k as u64,
            format!("offset {o} but the geometry block is at {p}"),
        ));
    }
    Ok(())
}

/// Parses each geometry block (read at `positions`) with its header's counts, as it
/// decodes ([`parse_block`]); `weights` says whether the payload has a weights
/// count (not in ms15).
pub(crate) fn decode_surfaces(
    r: &mut Reader<'_>,
    headers: Vec<SurfaceHeader>,
    (positions, blocks): (&[u64], &[BlockView<'_>]),
    nb: usize,
    weights: bool,
) -> parsing_primitives::Result<Vec<Surface>> {
    let mut surfaces = Vec::with_capacity(headers.len());
    let blocks = positions.iter().zip(blocks);
    for ((s, h), (&at, block)) in headers.into_iter().enumerate().zip(blocks) {
        let counts = HeaderCounts {
            vertices: h.morphs.iter().map(|m| m.1).collect(),
            cindices: h.cindices,
            tindices: h.tindices,
            weights,
        };
        let names = h.morphs.into_iter().map(|m| m.0).collect();
        let surface = parse_block(r, ("geometry_blocks", s), (at, block), |g| {
            g.field("surfaces", |g| {
                g.item(s, |g| {
                    g.field("geometry (decoded)", |g| {
                        let mut surface = read_geometry(
                            g,
                            Ms1xVersion::Ms13,
                            nb,
                            8,
                            h.name.clone(),
                            h.bounds,
                            names,
                            Some(&counts),
                        )?;
                        g.finish()?;
                        surface.lightmap = h.lightmap;
                        Ok(surface)
                    })
                })
            })
        })?;
        surfaces.push(surface);
    }
    Ok(surfaces)
}

/// Files whose tree blocks store this many bytes or more decode them on a second
/// thread.
const THREADED: usize = 1 << 20;

/// Each surface's spatial tree from its block (read at `positions`).
fn read_trees(
    r: &mut Reader<'_>,
    positions: &[u64],
    blocks: &[BlockView<'_>],
) -> parsing_primitives::Result<Vec<SpatialTree>> {
    let mut trees = Vec::with_capacity(blocks.len());
    for (s, (&at, b)) in positions.iter().zip(blocks).enumerate() {
        trees.push(parse_block(r, ("tree_blocks", s), (at, b), |t| {
            t.field("tree_blocks", |t| {
                t.item(s, |t| t.field("content (decoded)", SpatialTree::read_from))
            })
        })?);
    }
    Ok(trees)
}

/// Reads an ms14 file.
pub(crate) fn read(r: &mut Reader<'_>) -> parsing_primitives::Result<Ms14> {
    read_layout(r, LAYOUT)
}

/// Reads an ms14 or ms15 file into ms14's faithful types (ms15: no bones, one unnamed
/// morph target per surface, no weights).
pub(crate) fn read_layout(r: &mut Reader<'_>, layout: Layout) -> parsing_primitives::Result<Ms14> {
    let magic = layout.magic;
    if !layout.whole_file {
        return Err(r.invalid_at(r.offset(), "this layout is read by its own module"));
    }
    r.field("magic", |r| r.magic(magic))?;
    let spatial_tree_triangles = r.field("spatial_tree_triangles", |r| r.compact_int())?;
    let bounds = r.field("bounds", read_bounds)?;
    let bones = if layout.compact_bones {
        read_bones(r)?
    } else {
        Vec::new()
    };
    let nb = bones.len();
    let headers = read_surface_headers(r, layout)?;
    let ns = headers.len();
    let memory_estimate = r.field("memory_estimate", |r| r.i64_le())?;
    r.field("marker2", |r| r.magic(magic))?;
    let bind_pose = r.field("bind_pose", |r| r.le_array::<[f32; 10]>(nb as u64))?;
    let bind_pose = bind_pose
        .into_iter()
        .map(BindTransform::from_array)
        .collect();
    let (positions, geometry_blocks) = read_blocks(r, ns, "geometry_blocks")?;
    r.field("marker3", |r| r.magic(magic))?;
    let (tree_positions, tree_blocks) = read_blocks(r, ns, "tree_blocks")?;
    r.field("marker4", |r| r.magic(magic))?;
    read_offsets(r, &positions)?;
    r.field("marker5", |r| r.magic(magic))?;
    r.finish()?;

    let geometry = (&positions[..], &geometry_blocks[..]);
    let trees_stored: usize = tree_blocks.iter().map(|b| b.stored.len()).sum();
    // The trees on a second thread while this one decodes the geometry: the two are
    // independent. Each side then keeps the stored bytes of its blocks (for a
    // byte-identical rewrite): ranges of the input when it is shared, else copies into
    // buffers made here, before either starts: the copies (and their page faults) run
    // on both threads, and the memory comes from this thread's allocator, where it goes
    // back when the file is dropped. An error in the
    // geometry is reported before one in the trees, as when read in order; near the
    // budget's limit, which side runs out first depends on timing (both name their
    // block).
    let budget = r.budget().clone();
    let (geometry_copies, tree_copies) = (
        stored_buffers(&geometry_blocks),
        stored_buffers(&tree_blocks),
    );
    let (tp, tb) = (&tree_positions, &tree_blocks);
    let (surfaces, trees) = beside(
        trees_stored >= THREADED,
        || {
            let surfaces = decode_surfaces(r, headers, geometry, nb, layout.skinned)?;
            // Hashed here, while the other thread may still be at the trees.
            let hashes: Vec<u64> = surfaces.iter().map(geometry_hash).collect();
            let kept = keep_stored(geometry.1, geometry_copies);
            Ok::<_, parsing_primitives::Error>((surfaces, hashes, kept))
        },
        move || {
            let trees = read_trees(
                &mut Reader::new(FORMAT_NAME, &[]).with_budget(budget),
                tp,
                tb,
            )?;
            Ok::<_, parsing_primitives::Error>((trees, keep_stored(tb, tree_copies)))
        },
    );
    let ((surfaces, tree_geometry, geometry_kept), (trees, tree_kept)) = (surfaces?, trees?);
    let blocks = (geometry_kept.into_iter().zip(tree_kept))
        .map(|(geometry, tree)| SurfaceBlocks { geometry, tree })
        .collect();
    Ok(Ms14 {
        mesh: Ms1x {
            version: Ms1xVersion::Ms13,
            bounds,
            bones,
            bind_pose,
            animations: Vec::new(),
            surfaces,
        },
        spatial_tree_triangles,
        memory_estimate,
        trees,
        tree_geometry,
        blocks,
    })
}

/// `ci num_surfaces` and the surface headers of `layout` (see
/// [`read_surface_headers`]).
pub(crate) fn write_surface_headers(
    w: &mut Writer,
    surfaces: &[Surface],
    bounds: &[Bounds],
    layout: Layout,
) -> Result<()> {
    w.compact_count(surfaces.len())?;
    for (s, bounds) in surfaces.iter().zip(bounds) {
        w.compact_nul_string(s.name.as_bytes())?;
        if layout.lightmap {
            w.bytes(&s.lightmap);
        }
        w.compact_count(s.cindices.len())?;
        w.compact_count(s.tindices.len())?;
        w.le_slice(&bounds.to_array());
        if !layout.skinned {
            w.compact_count(s.num_cvertices())?;
        } else {
            w.compact_count(s.morph_targets.len())?;
            for mt in &s.morph_targets {
                w.compact_nul_string(mt.name.as_bytes())?;
                w.compact_count(mt.vertices.len())?;
            }
        }
    }
    Ok(())
}

/// Each surface's geometry block content (see [`decode_surfaces`] for `weights`).
pub(crate) fn geometry_contents(surfaces: &[Surface], weights: bool) -> Result<Vec<Vec<u8>>> {
    surfaces
        .iter()
        .map(|s| {
            // Sized first: grown by doubling, a million triangles' 38 MB would reach
            // 48 MB of buffer (and copies) at the writer's peak.
            let len = geometry_len(Ms1xVersion::Ms13, s, false, weights);
            let mut g = Writer::with_capacity(FORMAT_NAME, len);
            write_geometry_with(&mut g, Ms1xVersion::Ms13, s, false, weights)?;
            Ok(g.into_inner())
        })
        .collect()
}

impl Ms14 {
    /// The file as a meshfmt-core model (its ms13 content, as [`Ms1x::to_core`]).
    pub fn to_core(&self) -> Result<meshfmt_core::Converted<meshfmt_core::Model>> {
        self.to_core_in(&Budget::default())
    }

    /// [`Ms14::to_core`], charging the model it builds to `budget`.
    pub(crate) fn to_core_in(
        &self,
        budget: &Budget,
    ) -> Result<meshfmt_core::Converted<meshfmt_core::Model>> {
        self.mesh.to_core_in(budget)
    }

    /// Encodes a meshfmt-core model as ms14: ms13 content ([`Ms1x::from_core`]) in LZ4
    /// blocks with a new spatial tree per surface.
    pub fn from_core(model: &meshfmt_core::Model) -> Result<meshfmt_core::Converted<Ms14>> {
        Ms14::from_core_in(model, &Budget::default())
    }

    /// [`Ms14::from_core`], charging what it builds to `budget`.
    pub(crate) fn from_core_in(
        model: &meshfmt_core::Model,
        budget: &Budget,
    ) -> Result<meshfmt_core::Converted<Ms14>> {
        let c = Ms1x::from_core_in(model, Ms1xVersion::Ms13, budget)?;
        let losses = c.losses;
        Ok(meshfmt_core::Converted {
            value: Ms14::from_ms13_in(c.value, budget)?,
            losses,
        })
    }
}

impl Ms14 {
    /// What [`Ms14::write`] would refuse, at its path (the first thing found).
    pub fn problems(&self) -> Vec<meshfmt_core::Problem> {
        let mut p = meshfmt_core::Problems::default();
        p.check("ms14", self.check());
        p.into_vec()
    }

    /// Checks what [`Ms14::write`] relies on: the mesh's own checks, one tree per
    /// surface, and every tree the writer keeps (its surface's geometry is unchanged
    /// since it was read or built, see [`Ms14::tree_geometry`]) fitting its surface:
    /// one edge flag and node index per triangle and a well-formed pre-order tree
    /// ([`SpatialTree::problems`]). A tree edited into an inconsistent state is rejected
    /// here rather than written, as is a surface of more than
    /// [`spatial::MAX_TRIANGLES`](crate::spatial::MAX_TRIANGLES) triangles.
    pub(crate) fn check(&self) -> Result<()> {
        self.mesh.check_ms13_content("ms14")?;
        if self.trees.len() != self.mesh.surfaces.len() {
            return Err(invalid(format!(
                "{} spatial trees for {} surfaces",
                self.trees.len(),
                self.mesh.surfaces.len()
            )));
        }
        for (i, (s, tree)) in self.mesh.surfaces.iter().zip(&self.trees).enumerate() {
            triangles_fit(&s.name, s.cindices.len() / 3)?;
            if self.tree_is_stale(i, s) {
                continue;
            }
            let problems = tree.check(s.cindices.len() / 3);
            if !problems.is_empty() {
                return Err(invalid(format!(
                    "surface {i} '{}': the spatial tree does not fit the surface (its geometry is unchanged, so the tree itself was edited): {}",
                    s.name,
                    problems.join("; ")
                )));
            }
        }
        Ok(())
    }

    /// True when surface `i`'s geometry no longer matches the geometry its tree was
    /// read or built for, so the writer builds a new one.
    fn tree_is_stale(&self, i: usize, s: &Surface) -> bool {
        self.tree_geometry.get(i) != Some(&geometry_hash(s))
    }

    /// Leaf size for rebuilt trees: the stored "spatial tree triangles" when it is a
    /// plausible leaf size, else 4 (every engine file).
    fn leaf_size(&self) -> usize {
        usize::try_from(self.spatial_tree_triangles)
            .ok()
            .filter(|n| (1..=64).contains(n))
            .unwrap_or(4)
    }

    /// The tree the writer stores for each surface: the stored one, or a new one
    /// ([`SpatialTree::build`]) where the geometry changed since it was read or built.
    pub fn trees_to_write(&self) -> Vec<std::borrow::Cow<'_, SpatialTree>> {
        use std::borrow::Cow;
        self.mesh
            .surfaces
            .iter()
            .zip(&self.trees)
            .enumerate()
            .map(|(i, (s, tree))| {
                if self.tree_is_stale(i, s) {
                    let positions = s.morph_targets.first().map_or(&[][..], |m| &m.vertices[..]);
                    Cow::Owned(SpatialTree::build(&s.cindices, positions, self.leaf_size()))
                } else {
                    Cow::Borrowed(tree)
                }
            })
            .collect()
    }

    /// The file's bytes; unchanged blocks keep their original compressed bytes. Derived
    /// data is rebuilt where the values it derives from were edited: bounds
    /// ([`Ms1x::bounds_to_write`]), spatial trees and edge flags
    /// ([`Ms14::trees_to_write`]) and the memory estimate.
    pub fn write(&self) -> Result<Vec<u8>> {
        self.write_layout(LAYOUT)
    }

    /// Checks what writing as ms15 needs beyond [`Ms14::check`]: no bones, one unnamed
    /// morph target per surface, no weights.
    pub(crate) fn check_ms15(&self) -> Result<()> {
        self.check()?;
        if !self.mesh.bones.is_empty() {
            return Err(invalid("ms15 is static: no bones"));
        }
        for (i, s) in self.mesh.surfaces.iter().enumerate() {
            if s.morph_targets.len() != 1 || s.morph_targets.iter().any(|t| !t.name.is_empty()) {
                return Err(invalid(format!(
                    "surface {i} '{}': ms15 holds exactly one unnamed morph target",
                    s.name
                )));
            }
            if !s.weights.is_empty() {
                return Err(invalid(format!(
                    "surface {i} '{}': ms15 is static: no weights",
                    s.name
                )));
            }
        }
        Ok(())
    }

    /// The bytes in either block layout.
    pub(crate) fn write_layout(&self, layout: Layout) -> Result<Vec<u8>> {
        if !layout.whole_file {
            return Err(invalid("this layout is written by its own module"));
        }
        if layout.skinned {
            self.check()?;
        } else {
            self.check_ms15()?;
        }
        let magic = layout.magic;
        let m = &self.mesh;
        let (bounds, surface_bounds) = m.bounds_to_write();
        let geometry_originals: Vec<&StoredBlock> =
            self.blocks.iter().map(|b| &b.geometry).collect();
        let tree_originals: Vec<&StoredBlock> = self.blocks.iter().map(|b| &b.tree).collect();
        // The trees (rebuilt where stale, encoded, checked against the originals,
        // compressed) on a second thread while this one does the geometry.
        let triangles: usize = m.surfaces.iter().map(|s| s.cindices.len() / 3).sum();
        let (geometry, trees) = beside(
            triangles >= THREADED_TRIANGLES,
            || -> Result<Prepared<'_>> {
                let contents = geometry_contents(&m.surfaces, layout.skinned)?;
                Ok(prepare(contents, &geometry_originals))
            },
            || -> Result<Prepared<'_>> {
                let contents = (self.trees_to_write().iter())
                    .map(|t| t.write())
                    .collect::<Result<Vec<_>>>()?;
                Ok(prepare(contents, &tree_originals))
            },
        );
        let (geometry, trees) = (geometry?, trees?);
        let originals = [geometry_originals, tree_originals].concat();
        let estimate = memory_estimate_for(self.memory_estimate, &[&geometry, &trees], &originals);
        // Sized up front (the blocks, and room for the header's bones and surfaces), so
        // the output is not grown by doubling and copying.
        let header = 4096 + 128 * (m.bones.len() + m.surfaces.len());
        let blocks = geometry.written_len() + trees.written_len();
        let mut w = Writer::with_capacity(FORMAT_NAME, blocks.saturating_add(header));
        w.bytes(magic);
        let stt = i32::try_from(self.spatial_tree_triangles)
            .map_err(|_| invalid("spatial tree triangles out of range"))?;
        if stt < 0 {
            return Err(invalid("spatial tree triangles must not be negative"));
        }
        w.compact_u32(stt.unsigned_abs());
        w.le_slice(&bounds.to_array());
        if layout.compact_bones {
            write_bones(&mut w, &m.bones)?;
        }
        write_surface_headers(&mut w, &m.surfaces, &surface_bounds, layout)?;
        w.i64_le(estimate);
        w.bytes(magic);
        let pose: Vec<[f32; 10]> = m.bind_pose.iter().map(BindTransform::to_array).collect();
        w.le_slice(&pose);
        let offsets = geometry.write(&mut w);
        w.bytes(magic);
        trees.write(&mut w);
        w.bytes(magic);
        w.le_slice(&offsets);
        w.bytes(magic);
        Ok(w.into_inner())
    }
}

impl Ms14 {
    /// An ms14 file with ms13 content, as the engine would write it: each surface gets
    /// an edges + spatial tree block built by [`SpatialTree::build`] with leaves of at
    /// most 4 triangles (the value every engine file has), and the memory estimate is
    /// the decoded size of the geometry and tree blocks (the engine's own formula is
    /// unknown; it only has to be plausible).
    pub fn from_ms13(mesh: Ms1x) -> Result<Ms14> {
        Ms14::from_ms13_in(mesh, &Budget::default())
    }

    /// [`Ms14::from_ms13`], charging the trees it builds to `budget`.
    pub(crate) fn from_ms13_in(mesh: Ms1x, budget: &Budget) -> Result<Ms14> {
        if mesh.version != Ms1xVersion::Ms13 || !mesh.animations.is_empty() {
            return Err(invalid("ms14 is built from ms13 content (no animations)"));
        }
        mesh.check()?;
        let mut trees = Vec::with_capacity(mesh.surfaces.len());
        let mut estimate = 0usize;
        for s in &mesh.surfaces {
            let positions = s.morph_targets.first().map_or(&[][..], |m| &m.vertices[..]);
            let triangles = s.cindices.len() / 3;
            triangles_fit(&s.name, triangles)?;
            // The build's working memory is charged up front and handed back once it is
            // freed; what the tree keeps stays charged.
            let scratch = (triangles as u64).saturating_mul(SpatialTree::BUILD_BYTES_PER_TRIANGLE);
            budget.charge("spatial tree", scratch)?;
            let tree = SpatialTree::build(&s.cindices, positions, 4);
            budget.release(scratch.saturating_sub(tree.heap_bytes()));
            if let Some(p) = tree.check(triangles).first() {
                return Err(invalid(format!(
                    "surface '{}': built spatial tree: {p}",
                    s.name
                )));
            }
            // Sizes computed, not written out: nothing more to allocate.
            estimate = estimate
                .saturating_add(geometry_len(Ms1xVersion::Ms13, s, false, true))
                .saturating_add(tree.encoded_len());
            trees.push(tree);
        }
        let tree_geometry = mesh.surfaces.iter().map(geometry_hash).collect();
        Ok(Ms14 {
            mesh,
            spatial_tree_triangles: 4,
            memory_estimate: i64::try_from(estimate).unwrap_or(i64::MAX),
            trees,
            tree_geometry,
            blocks: Vec::new(),
        })
    }
}

crate::file::with_options!(Ms14);

impl crate::file::VersionFile for Ms14 {
    fn magic(&self) -> &'static [u8; 4] {
        b"ms14"
    }

    fn write(&self) -> Result<Vec<u8>> {
        Ms14::write(self)
    }

    fn problems(&self) -> Vec<meshfmt_core::Problem> {
        Ms14::problems(self)
    }

    fn to_core_in(&self, budget: &Budget) -> Result<meshfmt_core::Converted<meshfmt_core::Model>> {
        Ms14::to_core_in(self, budget)
    }

    fn summarize(&self, s: &mut meshfmt_core::Summary) {
        crate::summary::ms1x_detail(&self.mesh, &self.geometry_block_sizes(), s);
        crate::summary::ms1x_counts(&self.mesh, &mut s.counts);
    }
}

impl Ms14 {
    /// (stored, decoded) bytes of each surface's geometry block, for the summary.
    pub(crate) fn geometry_block_sizes(&self) -> Vec<(usize, usize)> {
        self.blocks
            .iter()
            .map(|b| (b.geometry.stored.len(), b.geometry.size as usize))
            .collect()
    }
}
