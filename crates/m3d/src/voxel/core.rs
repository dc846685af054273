//! VOXT and VOXD to meshfmt-core: voxel blocks meshed as m3d_load does, one surface per
//! voxel material.

use std::collections::HashMap;

use meshfmt_core::corners::{Corner, CornerMap};
use meshfmt_core::glam::Vec3;
use meshfmt_core::model::Surface;
use meshfmt_core::{Budget, Feature, Limits, LossKind};

use crate::context::to_core::{CORNER_BYTES, ToCore, rgba_to_vec4};
use crate::error::{Error, Result, invalid};
use crate::loaded::LoadedVoxelType;
use crate::types::{Colours, Idx, NameKey, Names, Str, string_at};
use crate::voxel::meshing::{self, Meshed};
use crate::voxel::{VoxelBlock, VoxelType};

/// A chunk that names voxel types' materials, in file order: a material's name (MTRL),
/// or voxel types (VOXT).
#[derive(Clone, Copy)]
pub(crate) enum Named<'a> {
    Material(Str),
    Types(&'a [VoxelType]),
}

/// Voxel blocks as triangles (m3d_load's meshing, [`crate::Loaded::mesh_voxels`]):
/// one surface per voxel material, positions times the scale, the axis normals, the
/// voxel types' colours. True when there were voxels and they were meshed. A grid
/// of more than 4M voxels (or `limits.max_elements`) is not meshed (a loss); what is
/// meshed is charged to the budget. `blocks`: the VOXD chunks; `named`: the MTRL and
/// VOXT chunks in file order.
pub(crate) fn to_core<'a>(
    cx: &mut ToCore<'_>,
    limits: Limits,
    blocks: impl Iterator<Item = &'a VoxelBlock> + Clone,
    named: impl Iterator<Item = Named<'a>> + Clone,
) -> Result<bool> {
    if blocks.clone().next().is_none() {
        return Ok(false);
    }
    // Meshing is capped apart from the read limits: a few RLE bytes can declare a
    // grid of millions of voxels. 4M voxels or corners is far beyond real models
    // (monu1, the largest known, meshes to 125,166 vertices).
    let limits = Limits {
        max_elements: limits.max_elements.min(1 << 22),
        max_alloc_bytes: limits.max_alloc_bytes.min(256 << 20),
    };
    let types = voxel_types(named, cx.own.strings, cx.colours, &cx.budget)?;
    let mut meshed = Meshed {
        vertices: Vec::new(),
        faces: Vec::new(),
    };
    match meshing::mesh(blocks, &types, limits, &cx.budget, &mut meshed) {
        Ok(()) => {}
        Err(e @ Error::OverBudget(_)) => return Err(e),
        Err(e) => {
            cx.out.lose(
                Feature::Geometry,
                LossKind::Dropped,
                "VOXD",
                format!("voxels not meshed: {e}"),
            );
            return Ok(false);
        }
    };
    let coloured = types.iter().any(|t| t.color != 0);
    surfaces(cx, &meshed, coloured)?;
    Ok(true)
}

/// The voxel types as m3d_load resolves them: colour, skin, and the first material of
/// the type's name (in MTRL order; an empty name is none).
fn voxel_types<'a>(
    named: impl Iterator<Item = Named<'a>> + Clone,
    strings: &[u8],
    colours: Colours<'_>,
    budget: &Budget,
) -> Result<Vec<LoadedVoxelType>> {
    let mut materials: HashMap<NameKey, usize> = HashMap::new();
    let mut refs = Vec::new();
    let mut n = 0usize;
    for c in named.clone() {
        match c {
            Named::Material(name) => {
                budget.charge("name index", 48)?;
                // Compared as text, as m3d_load compares them.
                let name = String::from_utf8_lossy(string_at(strings, name).unwrap_or_default());
                if !name.is_empty() {
                    materials.entry(NameKey::of(name.as_bytes())).or_insert(n);
                }
                n += 1;
            }
            Named::Types(types) => {
                budget.charge_items::<LoadedVoxelType>("voxel types", types.len())?;
                refs.extend(types.iter().map(|t| t.name));
            }
        }
    }
    let names = Names::new(strings, refs.iter().copied(), Some(budget))?;
    let find = |s| {
        names
            .key(s)
            .filter(|k| !k.is_empty())
            .and_then(|k| materials.get(&k))
            .and_then(|i| u32::try_from(*i).ok())
            .map_or(Idx::UNDEF, Idx)
    };
    let types = named.flat_map(|c| match c {
        Named::Types(types) => types,
        Named::Material(_) => &[],
    });
    Ok(types
        .map(|t| LoadedVoxelType {
            color: colours.rgba(t.color),
            skin: t.skin,
            material: find(t.name),
        })
        .collect())
}

/// The meshed triangles as one surface per voxel material.
fn surfaces(cx: &mut ToCore<'_>, l: &Meshed, coloured: bool) -> Result<()> {
    let scale = cx.pts.scale;
    let budget = &cx.budget;
    let out = &mut cx.out;
    // Per voxel material: its surface and the (vertex, normal) corners it has.
    type Building = (Surface, CornerMap<(Idx, Idx)>);
    let mut by_material: Vec<Building> = Vec::new();
    let mut surface_of: HashMap<Idx, usize> = HashMap::new();
    for f in &l.faces {
        let si = match surface_of.get(&f.material) {
            Some(i) => *i,
            None => {
                let material = f.material.get().map(|m| m as usize);
                let name = material
                    .and_then(|m| out.value.materials.get(m))
                    .map_or_else(|| "voxels".to_string(), |m| m.name.clone());
                budget.charge(
                    "voxel surfaces",
                    (std::mem::size_of::<Building>() + 256 + name.len()) as u64,
                )?;
                by_material.push((
                    Surface {
                        name,
                        material: material.filter(|m| *m < out.value.materials.len()),
                        ..Surface::default()
                    },
                    CornerMap::new(),
                ));
                surface_of.insert(f.material, by_material.len() - 1);
                by_material.len() - 1
            }
        };
        let Some((s, seen)) = by_material.get_mut(si) else {
            continue;
        };
        if f.vertex
            .iter()
            .chain(&f.normal)
            .any(|i| i.get().and_then(|i| l.vertices.get(i as usize)).is_none())
        {
            continue;
        }
        budget.charge_items::<[u32; 3]>("voxel surfaces", 1)?;
        for (vi, ni) in f.vertex.iter().zip(f.normal) {
            let (Some(v), Some(n)) = (
                vi.get().and_then(|v| l.vertices.get(v as usize)),
                ni.get().and_then(|n| l.vertices.get(n as usize)),
            ) else {
                continue;
            };
            // A corner shared by faces of one side is one vertex; sides differ in normal.
            let corner = seen
                .vertex((*vi, ni), s.positions.len())
                .ok_or_else(|| invalid("a surface of over 2^32 vertices"))?;
            s.indices.push(corner.index());
            if let Corner::Seen(_) = corner {
                continue;
            }
            budget.charge("voxel surfaces", CORNER_BYTES)?;
            s.positions
                .push(Vec3::new(v.xyzw[0], v.xyzw[1], v.xyzw[2]) * scale);
            s.normals.push(Vec3::new(n.xyzw[0], n.xyzw[1], n.xyzw[2]));
            if coloured {
                s.colors.push(rgba_to_vec4(v.color));
            }
        }
    }
    out.value
        .surfaces
        .extend(by_material.into_iter().map(|(s, _)| s));
    Ok(())
}
