//! Pieces of the info summary shared by several versions (ms1x content, mi08/ms08
//! surfaces); each version's [`VersionFile::summarize`](crate::file::VersionFile)
//! puts them together.

use meshfmt_core::summary::{points_box, stored_box, union};
use meshfmt_core::{Attribute, ClipSummary, Counts, Summary, SurfaceSummary};
use parsing_primitives::RawString;
use unigine_common::summary::hierarchy;

/// `u8`, `u16` or `u32`: the index type of an array addressing `count` elements.
fn index_type(count: usize) -> &'static str {
    match crate::common::index_width(count) {
        1 => "u8",
        2 => "u16",
        _ => "u32",
    }
}

/// Surfaces, bounds, skeleton and clips of ms10/ms11/ms13 content (also inside ms14,
/// ms15 and sk10, whose geometry sits in LZ4 `blocks`, one per surface).
pub(crate) fn ms1x_detail(m: &crate::Ms1x, blocks: &[(usize, usize)], s: &mut Summary) {
    use crate::Ms1xVersion;
    let tangent = match m.version {
        Ms1xVersion::Ms10 => "i16x3 + i8 sign (quaternion)",
        Ms1xVersion::Ms11 | Ms1xVersion::Ms13 => "i16x4 (quaternion)",
    };
    for (i, x) in m.surfaces.iter().enumerate() {
        let mut a = Vec::new();
        let (nc, nt) = (x.num_cvertices(), x.num_tvertices());
        a.push(Attribute::new("position", "f32x3"));
        if nt > 0 {
            a.push(Attribute::new("tangent frame", tangent));
        }
        if !x.uv0.is_empty() {
            a.push(Attribute::new("uv0", "f32x2"));
        }
        if !x.uv1.is_empty() {
            a.push(Attribute::new("uv1", "f32x2"));
        }
        if !x.colors.is_empty() {
            a.push(Attribute::new("color", "u8x4"));
        }
        if !x.weights.is_empty() {
            a.push(Attribute::new("skin", "up to 4 x (i16 bone, u16 weight)"));
        }
        if x.morph_targets.len() > 1 {
            a.push(Attribute::new(
                "morph targets",
                format!("{} x (f32x3 + i16x4)", x.morph_targets.len() - 1),
            ));
        }
        a.push(Attribute::new(
            "indices",
            format!(
                "{} + {} (coordinate, tangent)",
                index_type(nc),
                index_type(nt)
            ),
        ));
        if let Some(&(stored, content)) = blocks.get(i) {
            a.push(Attribute::new(
                "block",
                if stored == content {
                    format!("{content} bytes, stored raw")
                } else {
                    format!("LZ4, {stored} -> {content} bytes")
                },
            ));
        }
        s.surfaces.push(SurfaceSummary::new(
            x.name.to_string_lossy(),
            nc as u64,
            x.cindices.len() as u64 / 3,
            a,
            stored_box(x.bounds.min, x.bounds.max),
        ));
    }
    if let Some(b) = stored_box(m.bounds.min, m.bounds.max) {
        s.bounds = Some(b);
        s.bounds_stored = true;
    } else {
        s.bounds = points_box(
            m.surfaces
                .iter()
                .flat_map(|x| x.morph_targets.first())
                .flat_map(|t| t.vertices.iter().copied()),
        );
    }
    s.skeleton = hierarchy(m.bones.iter().map(|b| (&b.name, i32::from(b.parent))));
    s.animations = m
        .animations
        .iter()
        .map(|a| {
            ClipSummary::frames(
                a.name.to_string_lossy(),
                u64::from(a.num_frames),
                crate::DEFAULT_FPS,
                a.bones.len() as u64,
            )
        })
        .collect();
}

/// What an mi08 or ms08 surface shows.
pub(crate) struct OldSurface<'a> {
    pub name: &'a RawString,
    pub positions: &'a [[f32; 3]],
    /// UV sets 0 and 1 empty.
    pub uv: [bool; 2],
    pub skinned: bool,
    pub triangles: usize,
    pub bounds: Option<meshfmt_core::Aabb>,
}

/// Surfaces and bounds of mi08 and ms08 (normals compressed to u16; triangle indices
/// u16 below 65,536 vertices, else i32).
pub(crate) fn old_detail<'a>(surfaces: impl Iterator<Item = OldSurface<'a>>, s: &mut Summary) {
    for x in surfaces {
        let mut a = vec![
            Attribute::new("position", "f32x3"),
            Attribute::new("normal", "u16x3 (unorm, -1..1)"),
        ];
        for (k, empty) in x.uv.iter().enumerate() {
            if !empty {
                a.push(Attribute::new(format!("uv{k}"), "f32x2"));
            }
        }
        if x.skinned {
            a.push(Attribute::new("skin", "n x (u16 bone, u8 weight)"));
        }
        let wide = x.positions.len() >= 65536;
        a.push(Attribute::new("indices", if wide { "i32" } else { "u16" }));
        let computed = points_box(x.positions.iter().copied());
        s.bounds = union(s.bounds, computed);
        s.push_surface(SurfaceSummary::new(
            x.name.to_string_lossy(),
            x.positions.len() as u64,
            x.triangles as u64,
            a,
            x.bounds.or(computed),
        ));
    }
}

/// Counts of ms10/ms11/ms13 content: coordinate vertices of morph target 0, triangles
/// from the coordinate indices, bones, embedded animations and their frames.
pub(crate) fn ms1x_counts(m: &crate::Ms1x, c: &mut Counts) {
    c.surfaces = m.surfaces.len() as u64;
    c.vertices = m.surfaces.iter().map(|s| s.num_cvertices() as u64).sum();
    c.triangles = m.surfaces.iter().map(|s| s.cindices.len() as u64 / 3).sum();
    c.bones = m.bones.len() as u64;
    c.animations = m.animations.len() as u64;
    c.frames = m.animations.iter().map(|a| u64::from(a.num_frames)).sum();
}
