//! MESH to and from meshfmt-core: runs of polygons as surfaces (one per run of faces
//! after a use-material record), surfaces as runs of triangles.

use meshfmt_core::corners::{Corner as CornerKind, CornerMap, push_fan};

use meshfmt_core::glam::{Vec2, Vec3, Vec4};
use meshfmt_core::model::Surface;
use meshfmt_core::quantize::renormalization_error;
use meshfmt_core::skin::VertexInfluences;
use meshfmt_core::{Credit, Feature, LossKind};

use super::skin::{influences, skin_of};
use crate::context::from_core::{FromCore, f32s, idx, rgba_exact, vec4_to_rgba};
use crate::context::to_core::{CORNER_BYTES, ToCore, rgba_to_vec4};
use crate::error::{Result, invalid};
use crate::mesh::{Corner, Mesh, MeshRecord};
use crate::types::{Coord, Idx, Str, Vertex};

/// A surface being built: the surface, and corner (vertex, uv, normal) → index.
type SurfaceBuild = (Surface, CornerMap<(Idx, Idx, Idx)>);

/// Surfaces: one per run of faces, corners deduplicated by (vertex, uv, normal).
/// `meshes`: the MESH chunks and their chunk indices.
pub(crate) fn to_core<'a>(
    cx: &mut ToCore<'_>,
    meshes: impl Iterator<Item = (usize, &'a Mesh)>,
) -> Result<()> {
    let mut surfaces: Vec<SurfaceBuild> = Vec::new();
    for (ci, m) in meshes {
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
    // A few bytes a polygon: charged a block at a time.
    let budget = cx.budget.clone();
    let mut charges = Charges {
        triangles: Credit::new(&budget, "triangles"),
        vertices: Credit::new(&budget, "surface vertices"),
        ids: Vec::with_capacity(16),
    };
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
                    CornerMap::new(),
                ));
                current = Some(surfaces.len() - 1);
                surfaces.len() - 1
            }
        };
        let Some((surf, seen)) = surfaces.get_mut(si) else {
            continue;
        };
        add_polygon(cx, surf, seen, corners, &mut charges)?;
    }
    Ok(())
}

/// What polygons are charged through, and the vertex list of the polygon at hand
/// (reused: no list per polygon).
struct Charges<'b> {
    triangles: Credit<'b>,
    vertices: Credit<'b>,
    ids: Vec<u32>,
}

/// One polygon's corners (new ones become vertices) and its triangles.
fn add_polygon(
    cx: &ToCore<'_>,
    surf: &mut Surface,
    seen: &mut CornerMap<(Idx, Idx, Idx)>,
    corners: &[Corner],
    charges: &mut Charges<'_>,
) -> Result<()> {
    charges
        .triangles
        .charge_items::<[u32; 3]>(corners.len().saturating_sub(2))?;
    charges.ids.clear();
    for c in corners {
        let key = (c.vertex, c.uv, c.normal);
        let corner = seen
            .vertex(key, surf.positions.len())
            .ok_or_else(|| invalid("a surface of over 2^32 vertices"))?;
        if let CornerKind::New(_) = corner {
            // 1 to 3 bytes of input make a corner of ~110 bytes.
            charges.vertices.charge(CORNER_BYTES)?;
            push_corner(cx, surf, c);
        }
        charges.ids.push(corner.index());
    }
    // Fan triangulation (only triangles exist in practice).
    push_fan(&mut surf.indices, &charges.ids);
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
        Some(s) => influences(s, cx.types.nb()),
        None => VertexInfluences::default(),
    });
}

/// The surfaces in order, their vertices in record order, without the attributes no
/// corner had.
fn finish(cx: &mut ToCore<'_>, surfaces: Vec<SurfaceBuild>) -> Result<()> {
    let has_ci = cx.types.ci() != 0;
    for (mut s, seen) in surfaces {
        // Vertices in the order of their (vertex, uv, normal) records rather than of
        // first use: file order for real files, and the original order for models this
        // crate wrote. The reorder copies the arrays: charged.
        let reorder = (seen.len() as u64).saturating_mul(CORNER_BYTES + 24);
        cx.budget.charge("reordered vertices", reorder)?;
        let mut keys: Vec<((Idx, Idx, Idx), u32)> = seen.iter().map(|(k, v)| (*k, v)).collect();
        keys.sort_unstable();
        let order: Vec<usize> = keys.iter().map(|(_, v)| *v as usize).collect();
        s.reorder_vertices(&order);
        // The old arrays and the order are freed: the surface holds what it held.
        drop((keys, order));
        cx.budget.release(reorder);
        if seen.iter().any(|(k, _)| k.2.get().is_none()) {
            s.normals.clear();
        }
        if seen.iter().any(|(k, _)| k.1.get().is_none()) || cx.tmap.is_empty() {
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

/// Surfaces as runs of triangles, each after a use-material record: positions and
/// normals join the vertex list, UVs the TMAP, skins BONE's skins. The MESH chunk's
/// records.
pub(crate) fn from_core(cx: &mut FromCore<'_>) -> Result<Vec<MeshRecord>> {
    let model = cx.model;
    let mut records = Vec::new();
    let mut colours_quantized = false;
    // The worst difference the skin bytes make to a weight, as the reader gives it back.
    let mut skin_error = 0.0f32;
    for (si, s) in model.surfaces.iter().enumerate() {
        if !surface_losses(cx, si, s) {
            continue;
        }
        colours_quantized |= s.colors.iter().any(|c| !rgba_exact(*c));
        // The reader makes normals unit length (as m3d.h does).
        let (worst, moved) = renormalization_error(&s.normals, Vec3::ZERO);
        if moved > 0 {
            cx.out.lose(
                Feature::Normals,
                LossKind::Quantized { max_error: worst },
                format!("surfaces[{si}]"),
                format!("{moved} normals are not unit length: they come back renormalized"),
            );
        }
        let mat = s.material.and_then(|m| cx.materials.get(m)).map(|m| m.1);
        records.push(MeshRecord::UseMaterial(mat.unwrap_or(Str(0))));
        skin_error = skin_error.max(surface_from_core(cx, s, &mut records)?);
    }
    if colours_quantized {
        cx.out.lose(
            Feature::Colors,
            LossKind::Quantized {
                // Half a step, plus f32 noise in the decoder's division.
                max_error: 0.5 / 255.0 + f32::EPSILON,
            },
            "",
            "vertex colours are stored as 8-bit RGBA",
        );
    }
    if skin_error > 0.0 {
        cx.out.lose(
            Feature::Skin,
            LossKind::Quantized {
                max_error: skin_error,
            },
            "",
            "skin weights are stored as bytes summing to 255 (the worst difference made)",
        );
    }

    Ok(records)
}

/// The losses surface `si` makes; false when it cannot be stored at all.
fn surface_losses(cx: &mut FromCore<'_>, si: usize, s: &Surface) -> bool {
    if s.indices.is_empty() {
        // M3D surfaces are runs of faces: one without faces cannot be stored.
        cx.out.lose(
            Feature::Geometry,
            LossKind::Reduced,
            format!("surfaces[{si}]"),
            "a surface without triangles has no M3D counterpart",
        );
        cx.out.lose(
            Feature::Names,
            LossKind::Dropped,
            format!("surfaces[{si}]"),
            "dropped with its surface",
        );
        return false;
    }
    let mat_name = s
        .material
        .and_then(|m| cx.materials.get(m))
        .map_or("", |m| m.0.as_str());
    if s.name != mat_name {
        cx.out.lose(
            Feature::Names,
            LossKind::Dropped,
            format!("surfaces[{si}]"),
            "M3D has no surface names: surfaces come back named after their material",
        );
    }
    let mut used = vec![false; s.positions.len()];
    for &i in &s.indices {
        if let Some(u) = used.get_mut(i as usize) {
            *u = true;
        }
    }
    if used.contains(&false) {
        cx.out.lose(
            Feature::Geometry,
            LossKind::Reduced,
            format!("surfaces[{si}]"),
            "vertices no triangle uses are written but not read back",
        );
    }
    if !s.tangents.is_empty() {
        cx.out.lose(
            Feature::Tangents,
            LossKind::Dropped,
            format!("surfaces[{si}]"),
            "M3D has no tangents",
        );
    }
    if !s.uv1.is_empty() {
        cx.out.lose(
            Feature::Uv1,
            LossKind::Dropped,
            format!("surfaces[{si}]"),
            "M3D has one UV set",
        );
    }
    if !s.morph_targets.is_empty() {
        cx.out.lose(
            Feature::MorphTargets,
            LossKind::Dropped,
            format!("surfaces[{si}]"),
            "M3D has no morph targets",
        );
    }
    true
}

/// One surface's vertices, UVs and triangles; the worst skin weight error it makes.
fn surface_from_core(
    cx: &mut FromCore<'_>,
    s: &Surface,
    records: &mut Vec<MeshRecord>,
) -> Result<f32> {
    let (base, skin_error) = positions(cx, s)?;
    let nbase = cx.vertices.len();
    for n in &s.normals {
        cx.vertices.push(Vertex {
            coords: f32s([n.x, n.y, n.z, 0.0]),
            color: 0,
            skin: Idx::UNDEF,
        });
    }
    let tbase = cx.tmap.len();
    for uv in &s.uv0 {
        cx.tmap.push([Coord::F32(uv.x), Coord::F32(uv.y)]);
    }
    let has_n = s.normals.len() == s.positions.len();
    let has_uv = s.uv0.len() == s.positions.len();
    let flags = u8::from(has_uv) | (u8::from(has_n) << 1);
    for t in s.triangles() {
        let mut corners = Vec::with_capacity(3);
        for v in t {
            let v = v as usize;
            corners.push(Corner {
                vertex: idx(base + v)?,
                uv: if has_uv { idx(tbase + v)? } else { Idx::UNDEF },
                normal: if has_n { idx(nbase + v)? } else { Idx::UNDEF },
                max: Idx::UNDEF,
            });
        }
        records.push(MeshRecord::Polygon {
            flags,
            corners: corners.into(),
        });
    }
    Ok(skin_error)
}

/// A vertex per position (with its colour and skin); the first one's index and the
/// worst skin weight error.
fn positions(cx: &mut FromCore<'_>, s: &Surface) -> Result<(usize, f32)> {
    let b = &cx.budget.clone();
    let mut skin_error = 0.0f32;
    // A vertex per position and per normal, a TMAP entry per UV, a record per
    // triangle.
    b.charge_items::<Vertex>(
        "vertices",
        s.positions.len().saturating_add(s.normals.len()),
    )?;
    b.charge_items::<[Coord; 2]>("texture coordinates", s.uv0.len())?;
    b.charge_items::<MeshRecord>("mesh records", s.triangle_count().saturating_add(1))?;
    let base = cx.vertices.len();
    for (i, p) in s.positions.iter().enumerate() {
        // Colour 0 is "no colour" to the reader (as in real files).
        let color = s.colors.get(i).map_or(0, |c| vec4_to_rgba(*c));
        let skin = match s.skin.get(i) {
            Some(inf) if inf.count() > 0 => {
                let (sk, error) = skin_of(inf);
                skin_error = skin_error.max(error);
                idx(cx.skins.id(sk, |n| b.charge("skins", n as u64))?)?
            }
            _ => Idx::UNDEF,
        };
        let q = *p / cx.scale;
        cx.vertices.push(Vertex {
            coords: f32s([q.x, q.y, q.z, 1.0]),
            color,
            skin,
        });
    }

    Ok((base, skin_error))
}
