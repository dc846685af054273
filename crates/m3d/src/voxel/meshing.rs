//! Voxel blocks to triangles, as m3d_load does: what [`Loaded::mesh_voxels`] appends to a
//! loaded model, and what [`File::to_core`](crate::File::to_core) makes surfaces of.
//!
//! [`Loaded::mesh_voxels`]: crate::Loaded::mesh_voxels

use parsing_primitives::{Budget, Limits};

use crate::error::{Result, invalid};
use crate::load::types::{LoadedFace, LoadedVertex, LoadedVoxelType, vertex_idx};
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

/// The meshing in progress.
struct Mesher<'t> {
    types: &'t [LoadedVoxelType],
    limits: Limits,
    budget: &'t Budget,
    /// Vertices before the meshed ones (the six normals are the first of them).
    enorm: usize,
    /// Faces before the meshed ones.
    faces_before: usize,
    /// 1 / the largest extent of the blocks.
    w: f32,
    out: Meshed,
}

/// Voxel `blocks` to triangles, as m3d_load does (see
/// [`Loaded::mesh_voxels`](crate::Loaded::mesh_voxels)), after `vertices` vertices and
/// `faces` faces: six axis normals, then for every solid voxel (type below the number of
/// `types`) the corners of its exposed faces as new vertices (not shared between voxels;
/// w = 0, colour and skin of the voxel type) and two triangles per exposed face
/// (neighbour empty or block edge), with coordinates `(block position + i) / largest
/// extent`. Fails past `limits` (a grid of more than `max_elements` or
/// `max_alloc_bytes / 4` voxels, more vertices or faces than `max_elements`) or the
/// budget. Only the voxels the runs code are visited.
pub(crate) fn mesh<'b>(
    blocks: impl Iterator<Item = &'b VoxelBlock> + Clone,
    types: &[LoadedVoxelType],
    limits: Limits,
    budget: &Budget,
    vertices: usize,
    faces: usize,
) -> Result<Meshed> {
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
    let mut m = Mesher {
        types,
        limits,
        budget,
        enorm: vertices,
        faces_before: faces,
        w: 1.0 / extent as f32,
        out: Meshed {
            vertices: Vec::new(),
            faces: Vec::new(),
        },
    };
    budget.charge_items::<LoadedVertex>("meshed voxels", 6)?;
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
        m.out.vertices.push(LoadedVertex {
            xyzw,
            color: 0,
            skin: Idx::UNDEF,
        });
    }
    for b in blocks {
        m.block(b)?;
    }
    Ok(m.out)
}

impl Mesher<'_> {
    fn solid(&self, v: Option<&Idx>) -> bool {
        v.is_some_and(|v| u64::from(v.0) < self.types.len() as u64)
    }

    /// Whether `vertices` and `faces` stay within [`Limits::max_elements`].
    fn room(&self, vertices: usize, faces: usize) -> Result<()> {
        let max = usize::try_from(self.limits.max_elements).unwrap_or(usize::MAX);
        if vertices > max || faces > max {
            return Err(invalid(format!(
                "voxels: {vertices} vertices and {faces} faces exceed the limit of {max} elements"
            )));
        }
        Ok(())
    }

    fn block(&mut self, b: &VoxelBlock) -> Result<()> {
        let max_voxels = usize::try_from(
            self.limits
                .max_elements
                .min(self.limits.max_alloc_bytes / 4),
        )
        .unwrap_or(usize::MAX);
        let n = b
            .voxel_count()
            .filter(|n| *n <= max_voxels)
            .ok_or_else(|| invalid("VOXD: more voxels than the limit allows"))?;
        // The coded voxels only: past them the grid is empty, as m3d.h fills it.
        let data = b.coded_voxels(n, self.budget)?;
        let [sx, sy, sz] = b.size.map(|v| v as usize);
        // Both at most n, which fits.
        let (row, layer) = (sx.max(1), sx.saturating_mul(sz).max(1));
        let (drow, dlayer) = (
            isize::try_from(row).unwrap_or(isize::MAX),
            isize::try_from(layer).unwrap_or(isize::MAX),
        );
        for (j, here) in data.iter().enumerate() {
            let Some(t) = Some(here)
                .filter(|v| self.solid(Some(v)))
                .and_then(|v| self.types.get(v.0 as usize))
            else {
                continue;
            };
            let (x, z, y) = (j % row, (j / row) % sz.max(1), j / layer);
            let at = |d: isize| j.checked_add_signed(d).and_then(|k| data.get(k));
            let mut corners = 0u32;
            let mut sides = 0u32;
            let open = [
                (y == 0 || !self.solid(at(-dlayer)), 1 | 2 | 4 | 8),
                (z == 0 || !self.solid(at(-drow)), 1 | 2 | 16 | 32),
                (x == 0 || !self.solid(at(-1)), 1 | 4 | 16 | 64),
                (y + 1 == sy || !self.solid(at(dlayer)), 16 | 32 | 64 | 128),
                (z + 1 == sz || !self.solid(at(drow)), 4 | 8 | 64 | 128),
                (x + 1 == sx || !self.solid(at(1)), 2 | 8 | 32 | 128),
            ];
            for (side, (is_open, k)) in open.iter().enumerate() {
                if *is_open {
                    sides |= 1 << side;
                    corners |= k;
                }
            }
            if corners == 0 {
                continue;
            }
            let at = [
                i64::from(b.pos[0]) + x as i64,
                i64::from(b.pos[1]) + y as i64,
                i64::from(b.pos[2]) + z as i64,
            ];
            self.voxel(*t, at, corners, sides)?;
        }
        Ok(())
    }

    /// One voxel of type `t` at block position `at`: the `corners` (bits) of its open
    /// `sides` (bits) as new vertices, two triangles a side.
    fn voxel(&mut self, t: LoadedVoxelType, at: [i64; 3], corners: u32, sides: u32) -> Result<()> {
        let base = self.enorm.saturating_add(self.out.vertices.len());
        self.room(
            base.saturating_add(8),
            (self.faces_before + self.out.faces.len()).saturating_add(12),
        )?;
        self.budget.charge(
            "meshed voxels",
            u64::from(corners.count_ones()) * std::mem::size_of::<LoadedVertex>() as u64
                + u64::from(sides.count_ones()) * 2 * std::mem::size_of::<LoadedFace>() as u64,
        )?;
        let mut edge = [Idx::UNDEF; 8];
        let [bx, by, bz] = at;
        for (bit, e) in edge.iter_mut().enumerate() {
            if corners & (1 << bit) == 0 {
                continue;
            }
            *e = vertex_idx(
                self.enorm.saturating_add(self.out.vertices.len()),
                "meshed voxels",
            )?;
            let (dx, dy, dz) = (bit & 1, (bit >> 2) & 1, (bit >> 1) & 1);
            let w = self.w;
            self.out.vertices.push(LoadedVertex {
                xyzw: [
                    (bx + dx as i64) as f32 * w,
                    (by + dy as i64) as f32 * w,
                    (bz + dz as i64) as f32 * w,
                    0.0,
                ],
                color: t.color,
                skin: t.skin,
            });
        }
        for (side, tris) in TRIS.iter().enumerate() {
            if sides & (1 << side) == 0 {
                continue;
            }
            // The axis normal the side uses.
            let n = vertex_idx(self.enorm.saturating_add(side), "meshed voxels")?;
            for t3 in tris {
                self.out.faces.push(LoadedFace {
                    material: t.material,
                    vertex: t3.map(|c| edge[c]),
                    uv: [Idx::UNDEF; 3],
                    normal: [n; 3],
                });
            }
        }
        Ok(())
    }
}
