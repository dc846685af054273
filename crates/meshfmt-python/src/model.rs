//! meshfmt-core's model as Python values: dicts and lists for its structure, numpy
//! arrays for every per-vertex, per-index and per-key array (built from Rust slices in
//! one pass each, never element by element in Python).

use meshfmt_core::coords::{Handedness, UpAxis};
use meshfmt_core::glam::{Quat, Vec2, Vec3, Vec4};
use meshfmt_core::{
    Clip, Interpolation, Loss, LossKind, Material, Model, MorphKind, Surface, Texture, TextureRole,
    TextureSource, Track,
};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// A `(len / width, width)` array of `flat`'s values (`(0, width)` when empty).
fn array2<'py, T: numpy::Element>(
    py: Python<'py>,
    flat: Vec<T>,
    width: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let rows = flat.len() / width.max(1);
    let a = PyArray1::from_vec(py, flat);
    Ok(a.reshape([rows, width])?.into_any())
}

fn vec2s<'py>(py: Python<'py>, v: &[Vec2]) -> PyResult<Bound<'py, PyAny>> {
    array2(py, v.iter().flat_map(|x| x.to_array()).collect(), 2)
}

fn vec3s<'py>(py: Python<'py>, v: &[Vec3]) -> PyResult<Bound<'py, PyAny>> {
    array2(py, v.iter().flat_map(|x| x.to_array()).collect(), 3)
}

fn vec4s<'py>(py: Python<'py>, v: &[Vec4]) -> PyResult<Bound<'py, PyAny>> {
    array2(py, v.iter().flat_map(|x| x.to_array()).collect(), 4)
}

/// Quaternions as `(n, 4)` `x, y, z, w` rows (glTF's order).
fn quats<'py>(py: Python<'py>, v: &[Quat]) -> PyResult<Bound<'py, PyAny>> {
    array2(py, v.iter().flat_map(|x| x.to_array()).collect(), 4)
}

fn surface<'py>(py: Python<'py>, s: &Surface) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &s.name)?;
    d.set_item("positions", vec3s(py, &s.positions)?)?;
    d.set_item("normals", vec3s(py, &s.normals)?)?;
    d.set_item("tangents", vec4s(py, &s.tangents)?)?;
    d.set_item("uv0", vec2s(py, &s.uv0)?)?;
    d.set_item("uv1", vec2s(py, &s.uv1)?)?;
    d.set_item("colors", vec4s(py, &s.colors)?)?;
    let whole = s.triangle_count() * 3;
    d.set_item(
        "indices",
        array2(py, s.indices.get(..whole).unwrap_or(&[]).to_vec(), 3)?,
    )?;
    d.set_item("material", s.material)?;
    let joints: Vec<u32> = s.skin.iter().flat_map(|v| v.joints).collect();
    let weights: Vec<f32> = s.skin.iter().flat_map(|v| v.weights).collect();
    let n = meshfmt_core::MAX_INFLUENCES;
    d.set_item("joints", array2(py, joints, n)?)?;
    d.set_item("weights", array2(py, weights, n)?)?;
    let morphs = PyList::empty(py);
    for m in &s.morph_targets {
        let md = PyDict::new(py);
        md.set_item("name", &m.name)?;
        md.set_item(
            "kind",
            match m.kind {
                MorphKind::Delta => "delta",
                MorphKind::Absolute => "absolute",
            },
        )?;
        md.set_item("positions", vec3s(py, &m.positions)?)?;
        md.set_item("normals", vec3s(py, &m.normals)?)?;
        morphs.append(md)?;
    }
    d.set_item("morph_targets", morphs)?;
    Ok(d)
}

fn interpolation(i: Interpolation) -> &'static str {
    match i {
        Interpolation::Linear => "linear",
        Interpolation::Step => "step",
    }
}

fn track<'py, T>(
    py: Python<'py>,
    t: &Track<T>,
    values: impl FnOnce(Python<'py>, &[T]) -> PyResult<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("times", PyArray1::from_slice(py, &t.times))?;
    d.set_item("values", values(py, &t.values)?)?;
    d.set_item("interpolation", interpolation(t.interpolation))?;
    Ok(d)
}

fn clip<'py>(py: Python<'py>, c: &Clip) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &c.name)?;
    let channels = PyList::empty(py);
    for ch in &c.channels {
        let cd = PyDict::new(py);
        cd.set_item("bone", ch.bone)?;
        cd.set_item("translation", track(py, &ch.translation, vec3s)?)?;
        cd.set_item("rotation", track(py, &ch.rotation, quats)?)?;
        cd.set_item("scale", track(py, &ch.scale, vec3s)?)?;
        channels.append(cd)?;
    }
    d.set_item("channels", channels)?;
    d.set_item("duration", c.duration())?;
    let events = PyList::empty(py);
    for e in &c.events {
        events.append((e.time, e.bone, e.props.clone()))?;
    }
    d.set_item("events", events)?;
    Ok(d)
}

fn role(r: TextureRole) -> &'static str {
    match r {
        TextureRole::BaseColor => "base_color",
        TextureRole::Normal => "normal",
        TextureRole::MetallicRoughness => "metallic_roughness",
        TextureRole::Emissive => "emissive",
        TextureRole::Occlusion => "occlusion",
        _ => "other",
    }
}

fn material<'py>(py: Python<'py>, m: &Material) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &m.name)?;
    d.set_item("base_color", m.base_color.to_array())?;
    d.set_item("metallic", m.metallic)?;
    d.set_item("roughness", m.roughness)?;
    d.set_item("emissive", m.emissive.to_array())?;
    let textures = PyList::empty(py);
    for t in &m.textures {
        textures.append((role(t.role), t.texture, t.uv_set))?;
    }
    d.set_item("textures", textures)?;
    Ok(d)
}

fn texture<'py>(py: Python<'py>, t: &Texture) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &t.name)?;
    match &t.source {
        TextureSource::Path(p) => {
            d.set_item("path", p)?;
            d.set_item("pixels", py.None())?;
        }
        TextureSource::Embedded(img) => {
            d.set_item("path", py.None())?;
            let (w, h) = (img.width as usize, img.height as usize);
            let a = PyArray1::from_slice(py, &img.pixels);
            d.set_item("pixels", a.reshape([h, w, 4])?)?;
        }
    }
    Ok(d)
}

/// The model as a dict of its parts.
pub(crate) fn to_py<'py>(py: Python<'py>, m: &Model) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &m.name)?;
    let cs = m.coordinate_system;
    d.set_item(
        "coordinate_system",
        (
            match cs.up {
                UpAxis::Y => "y",
                UpAxis::Z => "z",
            },
            match cs.handedness {
                Handedness::Right => "right",
                Handedness::Left => "left",
            },
            cs.meters_per_unit,
        ),
    )?;
    let surfaces = PyList::empty(py);
    for s in &m.surfaces {
        surfaces.append(surface(py, s)?)?;
    }
    d.set_item("surfaces", surfaces)?;
    let bones = PyList::empty(py);
    for b in &m.skeleton.bones {
        let bd = PyDict::new(py);
        bd.set_item("name", &b.name)?;
        bd.set_item("parent", b.parent)?;
        bd.set_item("translation", b.rest.translation.to_array())?;
        bd.set_item("rotation", b.rest.rotation.to_array())?;
        bd.set_item("scale", b.rest.scale.to_array())?;
        let ib = b
            .inverse_bind
            .map(|ib| array2(py, ib.transpose().to_cols_array().to_vec(), 4))
            .transpose()?;
        bd.set_item("inverse_bind", ib)?;
        bones.append(bd)?;
    }
    d.set_item("bones", bones)?;
    let clips = PyList::empty(py);
    for c in &m.animations {
        clips.append(clip(py, c)?)?;
    }
    d.set_item("clips", clips)?;
    let materials = PyList::empty(py);
    for mat in &m.materials {
        materials.append(material(py, mat)?)?;
    }
    d.set_item("materials", materials)?;
    let textures = PyList::empty(py);
    for t in &m.textures {
        textures.append(texture(py, t)?)?;
    }
    d.set_item("textures", textures)?;
    Ok(d)
}

/// Losses as dicts with the keys of the tool's `--report`.
pub(crate) fn losses<'py>(py: Python<'py>, list: &[Loss]) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for l in list {
        let d = PyDict::new(py);
        d.set_item("feature", l.feature.name())?;
        let (kind, bound) = match l.kind {
            LossKind::Dropped => ("dropped", None),
            LossKind::Reduced => ("reduced", None),
            LossKind::Quantized { max_error } => ("quantized", Some(max_error)),
        };
        d.set_item("kind", kind)?;
        d.set_item("bound", bound)?;
        d.set_item("path", &l.path)?;
        d.set_item("reason", &l.reason)?;
        out.append(d)?;
    }
    Ok(out)
}
