//! meshfmt-core conversion for every version.
//!
//! # Coordinate and triangle indices
//! ms10/ms11 index each triangle corner twice: a *coordinate* index (position, skin
//! weights, morph positions) and a *tangent* index (tangent frame, UVs, color).
//! meshfmt-core has one index per corner, so [`Ms1x::to_core`](crate::Ms1x::to_core) makes one core vertex
//! per distinct `(cindex, tindex)` pair, in order of first use by the triangles.
//! [`Ms1x::from_core`](crate::Ms1x::from_core) splits core vertices back: vertices with bit-identical position,
//! skin and morph positions share a coordinate vertex, and vertices with the same
//! quantized tangent, UVs and color share a tangent vertex, in order of first
//! appearance. The arrays may come back in a different order than a file had them,
//! but every triangle corner keeps every attribute value (tested in
//! tests/convert.rs): positions, UVs and colors exactly; tangent frames to the i16
//! quantization; weights to the u16 truncation after meshfmt-core's renormalization.
//!
//! # Animations
//! UNIGINE files store no frame rate; frames are [`DEFAULT_FPS`] apart, the engine's default
//! playback speed.

use meshfmt_core::glam::{Quat, Vec3};
use meshfmt_core::{
    Bone, Budget, Clip, Converted, CoordinateSystem, Feature, LossKind, Model, Skeleton,
    Surface as CoreSurface, Transform,
};
use parsing_primitives::RawString;

use crate::common::BindTransform;
use crate::error::Result;

pub use unigine_common::DEFAULT_FPS;

/// UNIGINE's frame: +Z up, right-handed, meters; counter-clockwise front faces.
pub const COORDINATE_SYSTEM: CoordinateSystem = CoordinateSystem::Z_UP_RIGHT;

/// Heap bytes per key of a dense core track: a time and a value (vec3 or quaternion),
/// for translation, rotation and scale together.
pub(crate) const TRACK_KEY_BYTES: u64 = 3 * 4 + 12 + 16 + 12;

pub(crate) fn text(s: &RawString) -> String {
    s.to_string_lossy()
}

pub(crate) fn model(
    surfaces: Vec<CoreSurface>,
    skeleton: Skeleton,
    animations: Vec<Clip>,
) -> Model {
    Model {
        name: String::new(),
        coordinate_system: COORDINATE_SYSTEM,
        surfaces,
        skeleton,
        animations,
        ..Model::default()
    }
}

pub(crate) fn non_utf8_names<'a>(
    names: impl Iterator<Item = &'a RawString>,
    out: &mut Converted<()>,
) {
    let bad = names.filter(|n| n.as_str().is_none()).count();
    if bad > 0 {
        out.lose(
            Feature::Names,
            LossKind::Reduced,
            "",
            format!("{bad} names are not UTF-8 and were decoded lossily"),
        );
    }
}

pub(crate) fn bind_to_transform(t: &BindTransform) -> Transform {
    let q = Quat::from_array(t.rotation);
    Transform {
        translation: Vec3::from_array(t.position),
        rotation: meshfmt_core::unit_quat_or_identity(q),
        scale: Vec3::from_array(t.scale),
    }
}

pub(crate) fn transform_to_bind(t: &Transform) -> BindTransform {
    BindTransform {
        position: t.translation.to_array(),
        rotation: t.rotation.to_array(),
        scale: t.scale.to_array(),
    }
}

/// Charges a core skeleton of bones with names of these lengths.
pub(crate) fn charge_skeleton(
    budget: &Budget,
    names: impl ExactSizeIterator<Item = usize>,
) -> Result<()> {
    let n = names.len() as u64;
    let text: u64 = names.map(|l| l as u64).sum();
    budget.charge(
        "converted skeleton",
        n.saturating_mul(size_of::<Bone>() as u64)
            .saturating_add(text),
    )?;
    Ok(())
}

pub(crate) fn report_common_losses(m: &Model, out: &mut Converted<()>) {
    if !m.materials.is_empty() || m.surfaces.iter().any(|s| s.material.is_some()) {
        out.lose(
            Feature::Materials,
            LossKind::Dropped,
            "",
            "UNIGINE meshes keep materials in separate .mat files",
        );
    }
    if !m.textures.is_empty() {
        out.lose(
            Feature::Textures,
            LossKind::Dropped,
            "",
            "UNIGINE meshes keep textures in separate files",
        );
    }
    if !m.name.is_empty() {
        out.lose(
            Feature::Names,
            LossKind::Dropped,
            "",
            "UNIGINE meshes store no model name",
        );
    }
}

/// Smooth vertex normals from the triangles (area-weighted), for sources without any.
pub(crate) fn generated_normals(s: &CoreSurface) -> Vec<Vec3> {
    let mut n = vec![Vec3::ZERO; s.positions.len()];
    for t in s.triangles() {
        let [a, b, c] = t.map(|i| s.positions.get(i as usize).copied().unwrap_or(Vec3::ZERO));
        let g = (b - a).cross(c - a);
        for i in t {
            if let Some(v) = n.get_mut(i as usize) {
                *v += g;
            }
        }
    }
    n.into_iter().map(|v| v.normalize_or(Vec3::Z)).collect()
}
