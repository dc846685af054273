//! `meshfmt info`: what a file holds, as text or as stable JSON.

use std::fmt::Write as _;

/// The counts `info` reports. The JSON keys are an interface: other tools and our
/// checks rely on them, so they never change meaning; 0 where a format has no such thing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    /// Format family (`unigine-mesh`, `m3d`, ...).
    pub format: String,
    /// Version within the family (`ms11`, `an10`, `v2`, ...).
    pub version: String,
    /// Surfaces (meshes, groups).
    pub surfaces: u64,
    /// Vertices over all surfaces.
    pub vertices: u64,
    /// Triangles over all surfaces.
    pub triangles: u64,
    /// Bones.
    pub bones: u64,
    /// Animation clips.
    pub animations: u64,
    /// Frames (or keys) over all clips.
    pub frames: u64,
    /// Materials.
    pub materials: u64,
    /// Textures.
    pub textures: u64,
}

/// JSON string escaping per RFC 8259.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl From<&meshfmt_core::Summary> for Info {
    fn from(s: &meshfmt_core::Summary) -> Self {
        let c = &s.counts;
        Info {
            format: s.format.clone(),
            version: s.version.clone(),
            surfaces: c.surfaces,
            vertices: c.vertices,
            triangles: c.triangles,
            bones: c.bones,
            animations: c.animations,
            frames: c.frames,
            materials: c.materials,
            textures: c.textures,
        }
    }
}

impl Info {
    fn counts(&self) -> [(&'static str, u64); 8] {
        [
            ("surfaces", self.surfaces),
            ("vertices", self.vertices),
            ("triangles", self.triangles),
            ("bones", self.bones),
            ("animations", self.animations),
            ("frames", self.frames),
            ("materials", self.materials),
            ("textures", self.textures),
        ]
    }

    /// One-line JSON object with the stable keys, in a fixed order.
    pub fn to_json(&self) -> String {
        let mut s = format!(
            "{{\"format\":{},\"version\":{}",
            json_string(&self.format),
            json_string(&self.version)
        );
        for (k, v) in self.counts() {
            let _ = write!(s, ",\"{k}\":{v}");
        }
        s.push('}');
        s
    }

    /// Aligned `key: value` lines for people.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "format:     {}\nversion:    {}\n",
            self.format, self.version
        );
        for (k, v) in self.counts() {
            let _ = writeln!(s, "{:<11} {v}", format!("{k}:"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_stable_and_escaped() {
        let i = Info {
            format: "unigine-mesh".into(),
            version: "ms\"1\n1".into(),
            surfaces: 2,
            vertices: 3,
            ..Default::default()
        };
        assert_eq!(
            i.to_json(),
            r#"{"format":"unigine-mesh","version":"ms\"1\n1","surfaces":2,"vertices":3,"triangles":0,"bones":0,"animations":0,"frames":0,"materials":0,"textures":0}"#
        );
        assert_eq!(json_string("\u{1}"), "\"\\u0001\"");
        assert!(i.to_text().contains("vertices:   3\n"));
    }
}
