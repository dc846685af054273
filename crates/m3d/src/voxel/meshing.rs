//! Voxel blocks to triangles, as m3d_load does: what [`Loaded::mesh_voxels`] appends to a
//! loaded model, and what [`File::to_core`](crate::File::to_core) makes surfaces of.
//!
//! [`Loaded::mesh_voxels`]: crate::Loaded::mesh_voxels

use std::borrow::Cow;

use parsing_primitives::{Budget, Limits};

use crate::error::{Result, invalid};
use crate::loaded::{LoadedFace, LoadedVertex, LoadedVoxelType, vertex_idx};
use crate::types::Idx;
use crate::voxel::VoxelBlock;

/// The meshed voxels: six axis normals, then the corners of the exposed faces; and the
/// triangles.
pub(crate) struct Meshed {
    pub vertices: Vec<LoadedVertex>,
    pub faces: Vec<LoadedFace>,
}

/// Per side: two triangles (corner bits as in m3d.h's diagram).
const TRIS: [[[usize; 3]; 2]; 6] = [
    [[0, 1, 2], [2, 1, 3]], // bottom (-y)
    [[0, 4, 1], [1, 4, 5]], // north (-z)
    [[0, 2, 4], [2, 6, 4]], // west (-x)
    [[4, 6, 5], [5, 6, 7]], // top (+y)
    [[2, 7, 6], [7, 2, 3]], // south (+z)
    [[1, 5, 7], [1, 7, 3]], // east (+x)
];

/// Per side (as [`TRIS`]): the corners it takes.
const SIDE_CORNERS: [u32; 6] = [
    1 | 2 | 4 | 8,
    1 | 2 | 16 | 32,
    1 | 4 | 16 | 64,
    16 | 32 | 64 | 128,
    4 | 8 | 64 | 128,
    2 | 8 | 32 | 128,
];

/// The meshing in progress: what every block shares.
struct Mesher<'t> {
    types: &'t [LoadedVoxelType],
    /// Index of the first of the six axis normals.
    enorm: usize,
    /// 1 / the largest extent of the blocks.
    w: f32,
}

/// One block's grid, as its runs code it.
struct Grid<'b> {
    block: &'b VoxelBlock,
    data: Cow<'b, [Idx]>,
}

/// Exposed voxels [`mesh`] keeps from its counting pass (more are found again).
const KEPT: usize = 16;

/// One solid voxel with an open side: its type, position in the block, and which
/// corners (bits as in m3d.h's diagram) and sides (bit per [`TRIS`] row) are exposed.
#[derive(Clone, Copy)]
struct Exposed {
    t: LoadedVoxelType,
    at: [usize; 3],
    corners: u32,
    sides: u32,
}

/// Voxel `blocks` to triangles, as m3d_load does (see
/// [`Loaded::mesh_voxels`](crate::Loaded::mesh_voxels)), appended to `out`: six axis
/// normals, then for every solid voxel (type below the number of `types`) the corners
/// of its exposed faces as new vertices (not shared between voxels; w = 0, colour and
/// skin of the voxel type) and two triangles per exposed face (neighbour empty or block
/// edge), with coordinates `(block position + i) / largest extent`. Fails past `limits`
/// (a grid of more than `max_elements` or `max_alloc_bytes / 4` voxels, more vertices or
/// faces than `max_elements`) or the budget, before anything is meshed. Only the voxels
/// the runs code are visited. The exposed corners and sides are counted first, so the
/// output grows once, to its exact size.
pub(crate) fn mesh<'b>(
    blocks: impl Iterator<Item = &'b VoxelBlock> + Clone,
    types: &[LoadedVoxelType],
    limits: Limits,
    budget: &Budget,
    out: &mut Meshed,
) -> Result<()> {
    let (mut min, mut max) = ([i64::MAX; 3], [-i64::from(i32::MAX); 3]);
    for b in blocks.clone() {
        for a in 0..3 {
            min[a] = min[a].min(i64::from(b.pos[a]));
            max[a] = max[a].max(i64::from(b.pos[a]) + i64::from(b.size[a]));
        }
    }
    let extent = (0..3)
        .map(|a| (-min[a]).max(max[a]))
        .max()
        .unwrap_or(1)
        .max(1);
    let m = Mesher {
        types,
        enorm: out.vertices.len(),
        w: 1.0 / extent as f32,
    };
    let max_voxels =
        usize::try_from(limits.max_elements.min(limits.max_alloc_bytes / 4)).unwrap_or(usize::MAX);
    // The first grid apart: most models have one block, which then needs no list.
    let (mut first, mut rest) = (None, Vec::new());
    for block in blocks {
        let n = block
            .voxel_count()
            .filter(|n| *n <= max_voxels)
            .ok_or_else(|| invalid("VOXD: more voxels than the limit allows"))?;
        // The coded voxels only: past them the grid is empty, as m3d.h fills it.
        let data = match block.coded_in_place(n) {
            Some(v) => Cow::Borrowed(v),
            None => Cow::Owned(block.coded_voxels(n, budget)?),
        };
        match first {
            None => first = Some(Grid { block, data }),
            Some(_) => rest.push(Grid { block, data }),
        }
    }
    let grids = || first.iter().chain(&rest);
    // Count, check and charge first: then the output grows once. The first few exposed
    // voxels are kept from this pass, so a small model is not searched twice.
    let (mut corners, mut sides) = (0u64, 0u64);
    let mut kept = [(0usize, Exposed::NONE); KEPT];
    let mut nkept = 0;
    for (gi, g) in grids().enumerate() {
        m.each_exposed(g, |e| {
            corners += u64::from(e.corners.count_ones());
            sides += u64::from(e.sides.count_ones());
            if let Some(slot) = kept.get_mut(nkept) {
                *slot = (gi, e);
            }
            nkept += 1;
        });
    }
    let max = limits.max_elements;
    let (vertices, faces) = (
        (out.vertices.len() as u64).saturating_add(6 + corners),
        (out.faces.len() as u64).saturating_add(2 * sides),
    );
    if vertices > max || faces > max {
        return Err(invalid(format!(
            "voxels: {vertices} vertices and {faces} faces exceed the limit of {max} elements"
        )));
    }
    vertex_idx(vertices.saturating_sub(1) as usize, "meshed voxels")?;
    budget.charge(
        "meshed voxels",
        (6 + corners).saturating_mul(std::mem::size_of::<LoadedVertex>() as u64)
            + (2 * sides).saturating_mul(std::mem::size_of::<LoadedFace>() as u64),
    )?;
    // Both within max_elements, which fits a usize (checked by the limit above).
    out.vertices.reserve_exact(6 + corners as usize);
    out.faces.reserve_exact(2 * sides as usize);
    for (l, axis) in [
        (1, -1.0),
        (2, -1.0),
        (0, -1.0),
        (1, 1.0),
        (2, 1.0),
        (0, 1.0),
    ] {
        let mut xyzw = [0.0; 4];
        xyzw[l] = axis;
        out.vertices.push(LoadedVertex {
            xyzw,
            color: 0,
            skin: Idx::UNDEF,
        });
    }
    match kept.get(..nkept) {
        Some(kept) => {
            for (gi, e) in kept {
                if let Some(g) = grids().nth(*gi) {
                    m.voxel(g.block, e, out);
                }
            }
        }
        None => {
            for g in grids() {
                m.each_exposed(g, |e| m.voxel(g.block, &e, out));
            }
        }
    }
    Ok(())
}

impl Exposed {
    /// A placeholder for an unused slot.
    const NONE: Exposed = Exposed {
        t: LoadedVoxelType {
            color: 0,
            skin: Idx::UNDEF,
            material: Idx::UNDEF,
        },
        at: [0; 3],
        corners: 0,
        sides: 0,
    };
}

impl Mesher<'_> {
    /// Calls `f` for every solid voxel of `g` with an exposed side.
    fn each_exposed(&self, g: &Grid<'_>, mut f: impl FnMut(Exposed)) {
        let data = &g.data;
        let [sx, sy, sz] = g.block.size.map(|v| v as usize);
        // Both at most the grid size, which fits.
        let (row, layer) = (sx.max(1), sx.saturating_mul(sz).max(1));
        // Solid: coded, and its type is one of the types.
        let solid = |k: usize| {
            data.get(k)
                .is_some_and(|v| self.types.get(v.0 as usize).is_some())
        };
        // Row by row: a voxel's z and y are its row's (two divisions a row, not three a
        // voxel). The list holds at most the grid's sx * sy * sz voxels.
        let rows_per_layer = sz.max(1);
        for (r, cells) in data.chunks(row).enumerate() {
            let (z, y) = (r % rows_per_layer, r / rows_per_layer);
            for (x, here) in cells.iter().enumerate() {
                // Solid: its type is one of the types.
                let Some(t) = self.types.get(here.0 as usize) else {
                    continue;
                };
                let j = r * row + x;
                // A neighbour before this voxel is looked at only when its coordinate is
                // above 0, so `j` is at least the step back; one after may lie past the
                // coded voxels, which are empty. (Wrapping: an index that wrapped, which
                // these bounds rule out, would be past the list, so empty, not a panic.)
                let open = [
                    y == 0 || !solid(j.wrapping_sub(layer)),
                    z == 0 || !solid(j.wrapping_sub(row)),
                    x == 0 || !solid(j.wrapping_sub(1)),
                    y + 1 == sy || !solid(j.wrapping_add(layer)),
                    z + 1 == sz || !solid(j.wrapping_add(row)),
                    x + 1 == sx || !solid(j.wrapping_add(1)),
                ];
                let mut corners = 0u32;
                let mut sides = 0u32;
                for (side, (is_open, k)) in open.iter().zip(SIDE_CORNERS).enumerate() {
                    if *is_open {
                        sides |= 1 << side;
                        corners |= k;
                    }
                }
                if corners != 0 {
                    f(Exposed {
                        t: *t,
                        at: [x, y, z],
                        corners,
                        sides,
                    });
                }
            }
        }
    }

    /// One exposed voxel of `b`: the corners of its open sides as new vertices, two
    /// triangles a side. Indices fit (checked on the counts before).
    fn voxel(&self, b: &VoxelBlock, e: &Exposed, out: &mut Meshed) {
        let mut edge = [Idx::UNDEF; 8];
        let w = self.w;
        // Each coordinate is the voxel's or the next along its axis: six values,
        // converted once a voxel rather than three times a corner.
        let along = |a: usize| {
            let base = i64::from(b.pos[a]) + e.at[a] as i64;
            [base as f32 * w, (base + 1) as f32 * w]
        };
        let (xs, ys, zs) = (along(0), along(1), along(2));
        for (bit, slot) in edge.iter_mut().enumerate() {
            if e.corners & (1 << bit) == 0 {
                continue;
            }
            *slot = Idx(out.vertices.len() as u32);
            out.vertices.push(LoadedVertex {
                xyzw: [xs[bit & 1], ys[(bit >> 2) & 1], zs[(bit >> 1) & 1], 0.0],
                color: e.t.color,
                skin: e.t.skin,
            });
        }
        for (side, tris) in TRIS.iter().enumerate() {
            if e.sides & (1 << side) == 0 {
                continue;
            }
            // The axis normal the side uses.
            let n = Idx((self.enorm + side) as u32);
            for t3 in tris {
                out.faces.push(LoadedFace {
                    material: e.t.material,
                    // Corners are below 8 (the mask spares a bounds check).
                    vertex: t3.map(|c| edge[c & 7]),
                    uv: [Idx::UNDEF; 3],
                    normal: [n; 3],
                });
            }
        }
    }
}
