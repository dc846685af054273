//! MESH to and from meshfmt-core: runs of polygons as surfaces (one per run of faces
//! after a use-material record), surfaces as runs of triangles.

use std::collections::HashMap;

use meshfmt_core::glam::{Vec2, Vec3, Vec4};
use meshfmt_core::model::Surface;
use meshfmt_core::skin::VertexInfluences;
use meshfmt_core::{Feature, LossKind};

use crate::bones::Skin;
use crate::convert::{ToCore, rgba_to_vec4};
use crate::error::{Result, invalid};
use crate::file::Body;
use crate::mesh::{Corner, Mesh, MeshRecord};
use crate::types::Idx;

/// A surface being built: the surface, and corner (vertex, uv, normal) → index.
type SurfaceBuild = (Surface, HashMap<(Idx, Idx, Idx), u32>);

/// What one new corner of a surface holds: position, normal, UV, colour, skin and its
/// entry in the corner map.
pub(crate) const CORNER_BYTES: u64 = (2 * std::mem::size_of::<Vec3>()
    + std::mem::size_of::<Vec2>()
    + std::mem::size_of::<Vec4>()
    + std::mem::size_of::<VertexInfluences>()
    + std::mem::size_of::<((Idx, Idx, Idx), u32)>()
    + 8) as u64;

/// Surfaces: one per run of faces, corners deduplicated by (vertex, uv, normal).
pub(crate) fn to_core(cx: &mut ToCore<'_>) -> Result<()> {
    let file = cx.file;
    let mut surfaces: Vec<SurfaceBuild> = Vec::new();
    for (ci, c) in file.chunks.iter().enumerate() {
        let Body::Mesh(m) = &c.body else { continue };
        add_mesh(cx, ci, m, &mut surfaces)?;
    }
    finish(cx, surfaces)
}

/// The runs of faces of MESH chunk `ci`.
fn add_mesh(
    cx: &mut ToCore<'_>,
    ci: usize,
    m: &Mesh,
    surfaces: &mut Vec<SurfaceBuild>,
) -> Result<()> {
    let mut material = None;
    // The surface the current run of faces goes to: every use-material record (and
    // every MESH chunk) starts a new run, so surfaces come back in file order, and
    // a run that holds no face makes no surface.
    let mut current: Option<usize> = None;
    for (ri, rec) in m.records.iter().enumerate() {
        let corners = match rec {
            MeshRecord::UseMaterial(s) => {
                current = None;
                material = cx
                    .own
                    .names
                    .key(*s)
                    .and_then(|k| cx.materials.get(&k).copied());
                if s.0 != 0 && material.is_none() {
                    cx.lose(
                        "material name not defined",
                        Feature::Materials,
                        LossKind::Dropped,
                        || format!("MESH[{ci}].record[{ri}]"),
                        || "material name not defined",
                    );
                }
                continue;
            }
            MeshRecord::UseParameter { .. } => {
                cx.lose(
                    "parameter records have no meshfmt-core counterpart",
                    Feature::Geometry,
                    LossKind::Dropped,
                    || format!("MESH[{ci}].record[{ri}]"),
                    || "parameter records have no meshfmt-core counterpart",
                );
                continue;
            }
            MeshRecord::Polygon { corners, .. } => corners,
        };
        if corners.len() < 3 || corners.iter().any(|c| cx.pts.point(c.vertex).is_none()) {
            cx.lose(
                "polygon with fewer than 3 corners or an undefined vertex",
                Feature::Geometry,
                LossKind::Dropped,
                || format!("MESH[{ci}].record[{ri}]"),
                || "polygon with fewer than 3 corners or an undefined vertex",
            );
            continue;
        }
        let si = match current {
            Some(i) => i,
            None => {
                let name = material
                    .and_then(|m| cx.out.value.materials.get(m))
                    .map(|m| m.name.clone())
                    .unwrap_or_default();
                // A use-material record of a few bytes starts a surface of
                // hundreds: charged with its name.
                cx.budget.charge(
                    "surfaces",
                    (std::mem::size_of::<SurfaceBuild>() + 256 + name.len()) as u64,
                )?;
                surfaces.push((
                    Surface {
                        name,
                        material,
                        ..Surface::default()
                    },
                    HashMap::new(),
                ));
                current = Some(surfaces.len() - 1);
                surfaces.len() - 1
            }
        };
        let Some((surf, seen)) = surfaces.get_mut(si) else {
            continue;
        };
        add_polygon(cx, surf, seen, corners)?;
    }
    Ok(())
}

/// One polygon's corners (new ones become vertices) and its triangles.
fn add_polygon(
    cx: &ToCore<'_>,
    surf: &mut Surface,
    seen: &mut HashMap<(Idx, Idx, Idx), u32>,
    corners: &[Corner],
) -> Result<()> {
    let b = &cx.budget;
    b.charge_items::<[u32; 3]>("triangles", corners.len() - 2)?;
    let mut ids = Vec::with_capacity(corners.len());
    for c in corners {
        let key = (c.vertex, c.uv, c.normal);
        if let Some(i) = seen.get(&key) {
            ids.push(*i);
            continue;
        }
        // 1 to 3 bytes of input make a corner of ~110 bytes.
        b.charge("surface vertices", CORNER_BYTES)?;
        let id = u32::try_from(surf.positions.len())
            .map_err(|_| invalid("a surface of over 2^32 vertices"))?;
        seen.insert(key, id);
        ids.push(id);
        push_corner(cx, surf, c);
    }
    // Fan triangulation (only triangles exist in practice).
    for k in 1..ids.len() - 1 {
        if let (Some(a), Some(b), Some(c)) = (ids.first(), ids.get(k), ids.get(k + 1)) {
            surf.indices.extend_from_slice(&[*a, *b, *c]);
        }
    }
    Ok(())
}

/// A new vertex of `surf`: the corner's position, normal, UV, colour and skin.
fn push_corner(cx: &ToCore<'_>, surf: &mut Surface, c: &Corner) {
    let pts = &cx.pts;
    let (p, _) = pts.point(c.vertex).unwrap_or((Vec3::ZERO, 1.0));
    surf.positions.push(p);
    // Normals are directions: not scaled.
    let n = pts
        .point(c.normal)
        .map(|(n, _)| (n / pts.scale).normalize_or_zero());
    surf.normals.push(n.unwrap_or(Vec3::ZERO));
    surf.uv0.push(
        c.uv.get()
            .and_then(|i| cx.tmap.get(i as usize))
            .copied()
            .unwrap_or(Vec2::ZERO),
    );
    let v = pts.vertices.get(c.vertex.0 as usize);
    surf.colors
        .push(v.map_or(Vec4::ONE, |v| rgba_to_vec4(cx.colours.rgba(v.color))));
    let skin = v
        .and_then(|v| v.skin.get())
        .and_then(|s| cx.skins.get(s as usize));
    surf.skin.push(match skin {
        Some(s) => influences(s, cx.file.types.nb()),
        None => VertexInfluences::default(),
    });
}

/// A skin as core's influences: weight bytes / 255, renormalised (one bone at weight 1
/// when `nb` is 1).
fn influences(s: &Skin, nb: usize) -> VertexInfluences {
    if nb == 1 {
        return VertexInfluences::single(s.bones.first().and_then(|b| b.get()).unwrap_or(0));
    }
    let ws = s.weights.iter().filter(|w| **w != 0);
    let mut vi = VertexInfluences::from_pairs_strongest(
        s.bones
            .iter()
            .zip(ws)
            .filter_map(|(b, w)| Some((b.get()?, f32::from(*w) / 255.0))),
    );
    vi.normalize();
    vi
}

/// The surfaces in order, their vertices in record order, without the attributes no
/// corner had.
fn finish(cx: &mut ToCore<'_>, surfaces: Vec<SurfaceBuild>) -> Result<()> {
    let has_ci = cx.file.types.ci() != 0;
    for (mut s, seen) in surfaces {
        // Vertices in the order of their (vertex, uv, normal) records rather than of
        // first use: file order for real files, and the original order for models this
        // crate wrote. The reorder copies the arrays: charged.
        cx.budget.charge(
            "reordered vertices",
            (seen.len() as u64).saturating_mul(CORNER_BYTES + 24),
        )?;
        let mut keys: Vec<((Idx, Idx, Idx), u32)> = seen.iter().map(|(k, v)| (*k, *v)).collect();
        keys.sort_unstable();
        let order: Vec<usize> = keys.iter().map(|(_, v)| *v as usize).collect();
        s.reorder_vertices(&order);
        if seen.keys().any(|k| k.2.get().is_none()) {
            s.normals.clear();
        }
        if seen.keys().any(|k| k.1.get().is_none()) || cx.tmap.is_empty() {
            s.uv0.clear();
        }
        // Colour 0 (transparent black) is what a vertex without a colour holds (the
        // seagull's CMAP index 0); a surface whose every vertex has it has none.
        if !has_ci || s.colors.iter().all(|c| *c == Vec4::ZERO) {
            s.colors.clear();
        }
        if cx.skins.is_empty() {
            s.skin.clear();
        }
        cx.out.value.surfaces.push(s);
    }
    Ok(())
}
