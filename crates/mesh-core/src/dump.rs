//! A stable, human-readable text dump of a model (fixture `.txt` files, `meshfmt dump`).
//!
//! Floats print with Rust's shortest round-trip formatting, so a dump is exact and the
//! same on every platform. Long arrays can be cut to their first entries; every array
//! also gets an FNV-1a digest of its full contents, so a cut dump still changes when any
//! value does.

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};

use crate::animation::{Interpolation, Track};
use crate::material::TextureSource;
use crate::model::Model;

/// Dump settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DumpOptions {
    /// Most entries printed per array (`usize::MAX` for all).
    pub max_items: usize,
}

impl Default for DumpOptions {
    fn default() -> Self {
        DumpOptions {
            max_items: usize::MAX,
        }
    }
}

/// 64-bit FNV-1a, used for array digests.
#[derive(Debug, Clone, Copy)]
pub struct Fnv1a(u64);

impl Fnv1a {
    /// The empty digest.
    pub fn new() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }

    /// Adds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// The digest.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv1a {
    fn default() -> Self {
        Self::new()
    }
}

trait DumpValue {
    fn text(&self) -> String;
    fn hash(&self, h: &mut Fnv1a);
}

fn floats(v: &[f32]) -> String {
    let parts: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
    format!("[{}]", parts.join(", "))
}

fn hash_floats(v: &[f32], h: &mut Fnv1a) {
    for x in v {
        h.update(&x.to_bits().to_le_bytes());
    }
}

macro_rules! dump_vec {
    ($($t:ty),*) => {$(
        impl DumpValue for $t {
            fn text(&self) -> String { floats(&self.to_array()) }
            fn hash(&self, h: &mut Fnv1a) { hash_floats(&self.to_array(), h) }
        }
    )*};
}
dump_vec!(Vec2, Vec3, Vec4, Quat);

impl DumpValue for f32 {
    fn text(&self) -> String {
        format!("{self:?}")
    }
    fn hash(&self, h: &mut Fnv1a) {
        hash_floats(&[*self], h)
    }
}

impl DumpValue for [u32; 3] {
    fn text(&self) -> String {
        format!("{} {} {}", self[0], self[1], self[2])
    }
    fn hash(&self, h: &mut Fnv1a) {
        for v in self {
            h.update(&v.to_le_bytes());
        }
    }
}

impl DumpValue for crate::skin::VertexInfluences {
    fn text(&self) -> String {
        let parts: Vec<String> = self.pairs().map(|(j, w)| format!("{j}:{w:?}")).collect();
        parts.join(" ")
    }
    fn hash(&self, h: &mut Fnv1a) {
        for (j, w) in self.joints.iter().zip(&self.weights) {
            h.update(&j.to_le_bytes());
            h.update(&w.to_bits().to_le_bytes());
        }
    }
}

struct Out<'o> {
    s: String,
    opts: &'o DumpOptions,
}

impl Out<'_> {
    fn line(&mut self, indent: usize, text: impl AsRef<str>) {
        for _ in 0..indent {
            self.s.push_str("  ");
        }
        self.s.push_str(text.as_ref());
        self.s.push('\n');
    }

    fn array<T: DumpValue>(&mut self, indent: usize, name: &str, items: &[T]) {
        if items.is_empty() {
            return;
        }
        let mut h = Fnv1a::new();
        items.iter().for_each(|v| v.hash(&mut h));
        self.line(
            indent,
            format!("{name} ({}) fnv1a={:016x}", items.len(), h.finish()),
        );
        for (i, v) in items.iter().enumerate().take(self.opts.max_items) {
            self.line(indent + 1, format!("{i}: {}", v.text()));
        }
        if items.len() > self.opts.max_items {
            self.line(
                indent + 1,
                format!("... {} more", items.len() - self.opts.max_items),
            );
        }
    }

    fn track<T: DumpValue + Copy>(&mut self, indent: usize, name: &str, t: &Track<T>) {
        if t.times.is_empty() && t.values.is_empty() {
            return;
        }
        let interp = match t.interpolation {
            Interpolation::Linear => "linear",
            Interpolation::Step => "step",
        };
        self.line(indent, format!("{name} {interp}"));
        self.array(indent + 1, "times", &t.times);
        self.array(indent + 1, "values", &t.values);
    }
}

fn mat4(m: &Mat4) -> String {
    floats(&m.to_cols_array())
}

/// Dumps every field of `model` as text (see the module docs).
///
/// ```
/// use meshfmt_core::{dump, DumpOptions, Model};
/// let text = dump(&Model { name: "empty".into(), ..Default::default() }, &DumpOptions::default());
/// assert!(text.starts_with("model \"empty\"\n"));
/// ```
pub fn dump(model: &Model, opts: &DumpOptions) -> String {
    let mut o = Out {
        s: String::new(),
        opts,
    };
    let cs = &model.coordinate_system;
    o.line(0, format!("model {:?}", model.name));
    o.line(
        1,
        format!(
            "coordinate_system up={:?} handedness={:?} meters_per_unit={:?}",
            cs.up, cs.handedness, cs.meters_per_unit
        ),
    );
    o.line(
        1,
        format!(
            "counts surfaces={} vertices={} triangles={} bones={} animations={} materials={} textures={}",
            model.surfaces.len(),
            model.vertex_count(),
            model.triangle_count(),
            model.skeleton.bones.len(),
            model.animations.len(),
            model.materials.len(),
            model.textures.len()
        ),
    );
    if let Some(b) = model.bounds() {
        o.line(
            1,
            format!(
                "bounds min={} max={} sphere_center={} radius={:?}",
                b.aabb.min.text(),
                b.aabb.max.text(),
                b.sphere.center.text(),
                b.sphere.radius
            ),
        );
    }
    for (i, s) in model.surfaces.iter().enumerate() {
        let material = s.material.map_or("none".to_string(), |m| m.to_string());
        o.line(0, format!("surface[{i}] {:?} material={material}", s.name));
        o.array(1, "positions", &s.positions);
        o.array(1, "normals", &s.normals);
        o.array(1, "tangents", &s.tangents);
        o.array(1, "uv0", &s.uv0);
        o.array(1, "uv1", &s.uv1);
        o.array(1, "colors", &s.colors);
        let tris: Vec<[u32; 3]> = s.triangles().collect();
        o.array(1, "triangles", &tris);
        if s.indices.len() % 3 != 0 {
            o.line(
                1,
                format!("trailing indices {:?}", &s.indices[tris.len() * 3..]),
            );
        }
        o.array(1, "skin", &s.skin);
        for (mi, m) in s.morph_targets.iter().enumerate() {
            o.line(
                1,
                format!("morph_target[{mi}] {:?} kind={:?}", m.name, m.kind),
            );
            o.array(2, "positions", &m.positions);
            o.array(2, "normals", &m.normals);
        }
    }
    for (i, b) in model.skeleton.bones.iter().enumerate() {
        let parent = b.parent.map_or("none".to_string(), |p| p.to_string());
        o.line(0, format!("bone[{i}] {:?} parent={parent}", b.name));
        o.line(
            1,
            format!(
                "rest t={} r={} s={}",
                b.rest.translation.text(),
                b.rest.rotation.text(),
                b.rest.scale.text()
            ),
        );
        if let Some(ib) = &b.inverse_bind {
            o.line(1, format!("inverse_bind {}", mat4(ib)));
        }
    }
    for (i, c) in model.animations.iter().enumerate() {
        o.line(
            0,
            format!("animation[{i}] {:?} duration={:?}", c.name, c.duration()),
        );
        for ch in &c.channels {
            o.line(1, format!("channel bone={}", ch.bone));
            o.track(2, "translation", &ch.translation);
            o.track(2, "rotation", &ch.rotation);
            o.track(2, "scale", &ch.scale);
        }
        for e in &c.events {
            o.line(
                1,
                format!("event time={:?} bone={:?} {:?}", e.time, e.bone, e.label()),
            );
        }
    }
    for (i, m) in model.materials.iter().enumerate() {
        o.line(0, format!("material[{i}] {:?}", m.name));
        o.line(
            1,
            format!(
                "base_color={} metallic={:?} roughness={:?} emissive={}",
                m.base_color.text(),
                m.metallic,
                m.roughness,
                m.emissive.text()
            ),
        );
        for t in &m.textures {
            o.line(
                1,
                format!("texture {:?} -> {} uv{}", t.role, t.texture, t.uv_set),
            );
        }
    }
    for (i, t) in model.textures.iter().enumerate() {
        match &t.source {
            TextureSource::Path(p) => o.line(0, format!("texture[{i}] {:?} path={p:?}", t.name)),
            TextureSource::Embedded(img) => {
                let mut h = Fnv1a::new();
                h.update(&img.pixels);
                o.line(
                    0,
                    format!(
                        "texture[{i}] {:?} embedded {}x{} fnv1a={:016x}",
                        t.name,
                        img.width,
                        img.height,
                        h.finish()
                    ),
                )
            }
        }
    }
    o.s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_known_vectors() {
        // Published FNV-1a 64 test vectors.
        let mut h = Fnv1a::new();
        assert_eq!(h.finish(), 0xcbf29ce484222325);
        h.update(b"a");
        assert_eq!(h.finish(), 0xaf63dc4c8601ec8c);
        let mut h = Fnv1a::default();
        h.update(b"foobar");
        assert_eq!(h.finish(), 0x85944171f73967e8);
    }
}
