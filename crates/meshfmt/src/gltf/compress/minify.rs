//! The compressed document's JSON without what glTF defines as default (`alphaMode`
//! OPAQUE, `doubleSided` false, unit factors, identity transforms, LINEAR, ...) and
//! with whole numbers written as integers: for small files the JSON is most of the
//! bytes. Parsed back, it is the same document.
//!
//! The document is serialized once, straight into the output, through a
//! [`Formatter`] that writes into its own buffer: a member is dropped after it is
//! written, when its path, key and value text say it is a default, by cutting the
//! buffer back to where the member began. No JSON tree is built (building one was
//! most of the cost of writing the JSON of an animation's hundreds of accessors).

use std::io;
use std::ops::Range;

use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter, Serializer};

/// Where a default member may sit (its object's path: object keys, `[]` for an
/// array's elements), its key and its value as [`Minifier`] writes it.
type DefaultMember = (&'static [&'static str], &'static str, &'static str);

const MATERIAL: &[&str] = &["materials", "[]"];
const PBR: &[&str] = &["materials", "[]", "pbrMetallicRoughness"];
const TEXTURE_INFOS: [&[&str]; 5] = [
    &["materials", "[]", "normalTexture"],
    &["materials", "[]", "occlusionTexture"],
    &["materials", "[]", "emissiveTexture"],
    &[
        "materials",
        "[]",
        "pbrMetallicRoughness",
        "baseColorTexture",
    ],
    &[
        "materials",
        "[]",
        "pbrMetallicRoughness",
        "metallicRoughnessTexture",
    ],
];
const NODE: &[&str] = &["nodes", "[]"];

/// glTF 2.0's defaults, each with the path of the object that holds it.
const DEFAULTS: [DefaultMember; 18] = [
    (MATERIAL, "alphaMode", "\"OPAQUE\""),
    (MATERIAL, "alphaCutoff", "0.5"),
    (MATERIAL, "doubleSided", "false"),
    (MATERIAL, "emissiveFactor", "[0,0,0]"),
    // Empty once its own defaults are gone.
    (MATERIAL, "pbrMetallicRoughness", "{}"),
    (PBR, "baseColorFactor", "[1,1,1,1]"),
    (PBR, "metallicFactor", "1"),
    (PBR, "roughnessFactor", "1"),
    (NODE, "translation", "[0,0,0]"),
    (NODE, "rotation", "[0,0,0,1]"),
    (NODE, "scale", "[1,1,1]"),
    (&["accessors", "[]"], "byteOffset", "0"),
    (&["accessors", "[]"], "normalized", "false"),
    (&["bufferViews", "[]"], "byteOffset", "0"),
    (&["samplers", "[]"], "wrapS", "10497"),
    (&["samplers", "[]"], "wrapT", "10497"),
    (&["meshes", "[]", "primitives", "[]"], "mode", "4"),
    (
        &["animations", "[]", "samplers", "[]"],
        "interpolation",
        "\"LINEAR\"",
    ),
];

/// A texture info's defaults (`normalTexture`'s scale, `occlusionTexture`'s strength,
/// every texCoord).
const TEXTURE_INFO_DEFAULTS: [(&str, &str); 3] =
    [("texCoord", "0"), ("scale", "1"), ("strength", "1")];

/// An open object or array.
struct Frame {
    array: bool,
    /// Members or elements kept so far.
    kept: usize,
    /// The current member: where it starts (at its comma), where its key's text lies
    /// (inside the quotes) and where its value starts.
    member: usize,
    key: Range<usize>,
    value: usize,
}

/// A [`Formatter`] that writes into `out` (never into the writer it is handed) and
/// drops default members as they end.
struct Minifier<'a> {
    out: &'a mut Vec<u8>,
    frames: Vec<Frame>,
}

impl Minifier<'_> {
    /// The label of open container `i` on the path: its current key, or `[]`.
    fn label(&self, i: usize) -> &[u8] {
        let f = &self.frames[i];
        if f.array {
            b"[]"
        } else {
            self.out.get(f.key.clone()).unwrap_or_default()
        }
    }

    /// Whether the innermost open object sits at `path`.
    fn at(&self, path: &[&str]) -> bool {
        // The current object is the last frame; its path is the frames before it.
        let Some(inner) = self.frames.len().checked_sub(1) else {
            return false;
        };
        inner == path.len()
            && path
                .iter()
                .enumerate()
                .all(|(i, p)| self.label(i) == p.as_bytes())
    }

    /// Whether the member just written is a default.
    fn is_default(&self, f: &Frame) -> bool {
        let key = self.out.get(f.key.clone()).unwrap_or_default();
        let value = self.out.get(f.value..).unwrap_or_default();
        let is = |(k, v): (&str, &str)| key == k.as_bytes() && value == v.as_bytes();
        DEFAULTS
            .iter()
            .any(|&(path, k, v)| is((k, v)) && self.at(path))
            || (TEXTURE_INFO_DEFAULTS.iter().any(|&kv| is(kv))
                && TEXTURE_INFOS.iter().any(|path| self.at(path)))
    }

    fn number(&mut self, f: f64) {
        use std::io::Write as _;
        // Writing to a Vec cannot fail.
        let _ = if f.fract() == 0.0 && f.abs() < 1e15 {
            write!(self.out, "{}", f as i64)
        } else if f64::from(f as f32) == f {
            // A value that is an f32 (every float glTF-JSON holds here) in f32's
            // shortest form; anything else in f64's.
            write!(self.out, "{:?}", f as f32)
        } else {
            write!(self.out, "{f:?}")
        };
    }

    /// Opens an array or an object.
    fn open(&mut self, array: bool) {
        self.frames.push(Frame {
            array,
            kept: 0,
            member: 0,
            key: 0..0,
            value: 0,
        });
        self.out.push(if array { b'[' } else { b'{' });
    }

    fn close(&mut self, array: bool) {
        self.frames.pop();
        self.out.push(if array { b']' } else { b'}' });
    }

    fn integer(&mut self, i: impl std::fmt::Display) {
        use std::io::Write as _;
        let _ = write!(self.out, "{i}");
    }
}

/// The ten integer writers of [`Formatter`], all alike.
macro_rules! integer_writers {
    ($($name:ident: $t:ty),*) => {$(
        fn $name<W: ?Sized + io::Write>(&mut self, _: &mut W, value: $t) -> io::Result<()> {
            self.integer(value);
            Ok(())
        }
    )*};
}

/// The [`Formatter`] writers that copy text as it is (a number's own text, a run of a
/// string that needs no escape, a raw value).
macro_rules! text_writers {
    ($($name:ident),*) => {$(
        fn $name<W: ?Sized + io::Write>(&mut self, _: &mut W, text: &str) -> io::Result<()> {
            self.out.extend_from_slice(text.as_bytes());
            Ok(())
        }
    )*};
}

impl Formatter for Minifier<'_> {
    fn write_null<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn write_bool<W: ?Sized + io::Write>(&mut self, _: &mut W, value: bool) -> io::Result<()> {
        self.out
            .extend_from_slice(if value { b"true" } else { b"false" });
        Ok(())
    }
    integer_writers!(
        write_i8: i8,
        write_i16: i16,
        write_i32: i32,
        write_i64: i64,
        write_i128: i128,
        write_u8: u8,
        write_u16: u16,
        write_u32: u32,
        write_u64: u64,
        write_u128: u128
    );
    fn write_f32<W: ?Sized + io::Write>(&mut self, _: &mut W, value: f32) -> io::Result<()> {
        self.number(f64::from(value));
        Ok(())
    }
    fn write_f64<W: ?Sized + io::Write>(&mut self, _: &mut W, value: f64) -> io::Result<()> {
        self.number(value);
        Ok(())
    }
    text_writers!(write_number_str, write_string_fragment, write_raw_fragment);
    fn begin_string<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.out.push(b'"');
        Ok(())
    }
    fn end_string<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.out.push(b'"');
        Ok(())
    }
    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        _: &mut W,
        escape: CharEscape,
    ) -> io::Result<()> {
        let pair = |c: u8| [b'\\', c];
        match escape {
            CharEscape::Quote => self.out.extend_from_slice(&pair(b'"')),
            CharEscape::ReverseSolidus => self.out.extend_from_slice(&pair(b'\\')),
            CharEscape::Solidus => self.out.extend_from_slice(&pair(b'/')),
            CharEscape::Backspace => self.out.extend_from_slice(&pair(b'b')),
            CharEscape::FormFeed => self.out.extend_from_slice(&pair(b'f')),
            CharEscape::LineFeed => self.out.extend_from_slice(&pair(b'n')),
            CharEscape::CarriageReturn => self.out.extend_from_slice(&pair(b'r')),
            CharEscape::Tab => self.out.extend_from_slice(&pair(b't')),
            CharEscape::AsciiControl(byte) => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                self.out.extend_from_slice(b"\\u00");
                self.out.push(HEX[usize::from(byte >> 4)]);
                self.out.push(HEX[usize::from(byte & 0xf)]);
            }
        }
        Ok(())
    }
    fn begin_array<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.open(true);
        Ok(())
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.close(true);
        Ok(())
    }
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        _: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if !first {
            self.out.push(b',');
        }
        Ok(())
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        Ok(())
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.open(false);
        Ok(())
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.close(false);
        Ok(())
    }
    // `first` is serde's view: a dropped first member leaves the next one first.
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        _: &mut W,
        _first: bool,
    ) -> io::Result<()> {
        let len = self.out.len();
        if let Some(f) = self.frames.last_mut() {
            f.member = len;
            if f.kept > 0 {
                self.out.push(b',');
            }
            // Past the opening quote.
            f.key.start = self.out.len() + 1;
        }
        Ok(())
    }
    fn end_object_key<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        let len = self.out.len();
        if let Some(f) = self.frames.last_mut() {
            // Before the closing quote.
            f.key.end = len.saturating_sub(1);
        }
        Ok(())
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.out.push(b':');
        let len = self.out.len();
        if let Some(f) = self.frames.last_mut() {
            f.value = len;
        }
        Ok(())
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        let Some(f) = self.frames.last() else {
            return Ok(());
        };
        let (member, drop) = (f.member, self.is_default(f));
        if drop {
            self.out.truncate(member);
        } else if let Some(f) = self.frames.last_mut() {
            f.kept += 1;
        }
        Ok(())
    }
}

/// `root`'s JSON without defaults, numbers compacted, written in one pass.
pub(crate) fn minified(root: &gltf_json::Root) -> Result<Vec<u8>, serde_json::Error> {
    minify(root)
}

fn minify<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = Vec::with_capacity(4096);
    let minifier = Minifier {
        out: &mut out,
        frames: Vec::new(),
    };
    value.serialize(&mut Serializer::with_formatter(io::sink(), minifier))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    /// The first minifier, kept as the oracle: the document turned into a
    /// `serde_json::Value` tree, defaults removed from the tree, the tree written.
    mod tree {
        #![allow(dead_code)]
        use serde_json::{Map, Value};

        /// True when `v` is the number `x`.
        fn is(v: &Value, x: f64) -> bool {
            v.as_f64() == Some(x)
        }

        fn is_vec(v: &Value, xs: &[f64]) -> bool {
            v.as_array()
                .is_some_and(|a| a.len() == xs.len() && a.iter().zip(xs).all(|(v, x)| is(v, *x)))
        }

        /// Removes `key` from `m` when `default` says its value is the default.
        fn drop_if(m: &mut Map<String, Value>, key: &str, default: impl Fn(&Value) -> bool) {
            if m.get(key).is_some_and(default) {
                m.remove(key);
            }
        }

        fn texture_info(v: &mut Value) {
            if let Some(t) = v.as_object_mut() {
                drop_if(t, "texCoord", |v| is(v, 0.0));
                drop_if(t, "scale", |v| is(v, 1.0));
                drop_if(t, "strength", |v| is(v, 1.0));
            }
        }

        fn each(root: &mut Value, key: &str, f: impl Fn(&mut Map<String, Value>)) {
            if let Some(list) = root.get_mut(key).and_then(Value::as_array_mut) {
                for item in list.iter_mut().filter_map(Value::as_object_mut) {
                    f(item);
                }
            }
        }

        fn defaults(root: &mut Value) {
            each(root, "materials", |m| {
                drop_if(m, "alphaMode", |v| v.as_str() == Some("OPAQUE"));
                drop_if(m, "alphaCutoff", |v| is(v, 0.5));
                drop_if(m, "doubleSided", |v| v.as_bool() == Some(false));
                drop_if(m, "emissiveFactor", |v| is_vec(v, &[0.0; 3]));
                for key in ["normalTexture", "occlusionTexture", "emissiveTexture"] {
                    if let Some(t) = m.get_mut(key) {
                        texture_info(t);
                    }
                }
                if let Some(p) = m
                    .get_mut("pbrMetallicRoughness")
                    .and_then(Value::as_object_mut)
                {
                    drop_if(p, "baseColorFactor", |v| is_vec(v, &[1.0; 4]));
                    drop_if(p, "metallicFactor", |v| is(v, 1.0));
                    drop_if(p, "roughnessFactor", |v| is(v, 1.0));
                    for key in ["baseColorTexture", "metallicRoughnessTexture"] {
                        if let Some(t) = p.get_mut(key) {
                            texture_info(t);
                        }
                    }
                    if p.is_empty() {
                        m.remove("pbrMetallicRoughness");
                    }
                }
            });
            each(root, "nodes", |n| {
                drop_if(n, "translation", |v| is_vec(v, &[0.0; 3]));
                drop_if(n, "rotation", |v| is_vec(v, &[0.0, 0.0, 0.0, 1.0]));
                drop_if(n, "scale", |v| is_vec(v, &[1.0; 3]));
            });
            each(root, "accessors", |a| {
                drop_if(a, "byteOffset", |v| is(v, 0.0));
                drop_if(a, "normalized", |v| v.as_bool() == Some(false));
            });
            each(root, "bufferViews", |b| {
                drop_if(b, "byteOffset", |v| is(v, 0.0));
            });
            each(root, "samplers", |s| {
                drop_if(s, "wrapS", |v| is(v, 10497.0));
                drop_if(s, "wrapT", |v| is(v, 10497.0));
            });
            each(root, "meshes", |m| {
                if let Some(list) = m.get_mut("primitives").and_then(Value::as_array_mut) {
                    for p in list.iter_mut().filter_map(Value::as_object_mut) {
                        drop_if(p, "mode", |v| is(v, 4.0));
                    }
                }
            });
            each(root, "animations", |a| {
                if let Some(list) = a.get_mut("samplers").and_then(Value::as_array_mut) {
                    for s in list.iter_mut().filter_map(Value::as_object_mut) {
                        drop_if(s, "interpolation", |v| v.as_str() == Some("LINEAR"));
                    }
                }
            });
        }

        /// Compact JSON: whole numbers as integers, others in Rust's shortest round-trip form.
        fn write(v: &Value, out: &mut Vec<u8>) {
            use std::io::Write as _;
            // Writing to a Vec cannot fail.
            match v {
                Value::Null => out.extend_from_slice(b"null"),
                Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
                Value::Number(n) => {
                    let _ = match (n.as_i64(), n.as_u64(), n.as_f64()) {
                        (Some(i), _, _) => write!(out, "{i}"),
                        (_, Some(u), _) => write!(out, "{u}"),
                        (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 1e15 => {
                            write!(out, "{}", f as i64)
                        }
                        // A value that is an f32 (every float glTF-JSON holds here) in f32's
                        // shortest form; anything else in f64's.
                        (_, _, Some(f)) if f64::from(f as f32) == f => {
                            write!(out, "{:?}", f as f32)
                        }
                        (_, _, Some(f)) => write!(out, "{f:?}"),
                        _ => write!(out, "{n}"),
                    };
                }
                Value::String(s) => {
                    let _ = serde_json::to_writer(&mut *out, s);
                }
                Value::Array(a) => {
                    out.push(b'[');
                    for (i, x) in a.iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        write(x, out);
                    }
                    out.push(b']');
                }
                Value::Object(m) => {
                    out.push(b'{');
                    for (i, (k, x)) in m.iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        let _ = serde_json::to_writer(&mut *out, k);
                        out.push(b':');
                        write(x, out);
                    }
                    out.push(b'}');
                }
            }
        }

        pub fn compacted(mut v: Value) -> Vec<u8> {
            defaults(&mut v);
            let mut out = Vec::new();
            write(&v, &mut out);
            out
        }
    }

    fn parsed(bytes: &[u8]) -> serde_json::Value {
        serde_json::from_slice(bytes).unwrap_or_default()
    }

    /// Every default glTF names, in every place it may sit, beside non-defaults, odd
    /// numbers and look-alikes in places where they are not defaults (an extension's
    /// `scale`, a sparse accessor's `byteOffset`).
    const RICH: &str = r#"{"asset":{"version":"2.0"},
        "accessors":[{"bufferView":0,"byteOffset":0,"componentType":5126,"count":2,"type":"VEC3","normalized":false,"min":[-0.0,1e-30,3.4028235e38],"max":[0.1,2,16777217]},
          {"bufferView":0,"byteOffset":12,"componentType":5121,"count":1,"type":"SCALAR","normalized":true,
           "sparse":{"count":1,"indices":{"bufferView":0,"byteOffset":0,"componentType":5121},"values":{"bufferView":0,"byteOffset":0}}}],
        "bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":24},{"buffer":0,"byteOffset":4,"byteLength":4,"byteStride":4}],
        "buffers":[{"byteLength":24}],
        "materials":[{"name":"all defaults","alphaMode":"OPAQUE","alphaCutoff":0.5,"doubleSided":false,"emissiveFactor":[0,0,0],
            "pbrMetallicRoughness":{"baseColorFactor":[1,1,1,1],"metallicFactor":1,"roughnessFactor":1}},
          {"alphaMode":"MASK","alphaCutoff":0.25,"doubleSided":true,"emissiveFactor":[1,0.5,0],
            "normalTexture":{"index":0,"texCoord":0,"scale":1},"occlusionTexture":{"index":0,"texCoord":1,"strength":0.5},
            "emissiveTexture":{"index":0,"texCoord":0},
            "pbrMetallicRoughness":{"baseColorFactor":[1,1,1,0.5],"metallicFactor":0,"roughnessFactor":0.5,
              "baseColorTexture":{"index":0,"texCoord":0,"extensions":{"KHR_texture_transform":{"scale":[1,1],"texCoord":0}}},
              "metallicRoughnessTexture":{"index":0,"texCoord":1}}}],
        "textures":[{"sampler":0,"source":0}],"images":[{"uri":"a b\"\u0001.png"}],
        "samplers":[{"wrapS":10497,"wrapT":33071},{"wrapS":33648,"wrapT":10497,"magFilter":9729}],
        "meshes":[{"primitives":[{"attributes":{"POSITION":0},"mode":4},{"attributes":{"POSITION":0},"mode":1}]}],
        "nodes":[{"mesh":0,"translation":[0,0,0],"rotation":[0,0,0,1],"scale":[1,1,1]},
          {"translation":[0,-0.0,2.5],"rotation":[0,0.70710677,0,0.70710677],"scale":[1,1,-1],"children":[0]}],
        "animations":[{"channels":[{"sampler":0,"target":{"node":0,"path":"translation"}},{"sampler":1,"target":{"node":0,"path":"scale"}}],
          "samplers":[{"input":0,"output":0,"interpolation":"LINEAR"},{"input":0,"output":0,"interpolation":"STEP"}]}],
        "scene":0,"scenes":[{"nodes":[1],"name":"s"}]}"#;

    /// The one-pass minifier writes the document the tree-based one wrote, key order
    /// aside (the tree sorted keys; the pass keeps gltf-json's field order).
    #[test]
    fn the_one_pass_minifier_writes_what_the_tree_wrote() -> Result<(), Box<dyn std::error::Error>>
    {
        let root: gltf_json::Root = gltf_json::deserialize::from_str(RICH)?;
        let ours = super::minified(&root)?;
        let tree = tree::compacted(serde_json::to_value(&root)?);
        assert_eq!(parsed(&ours), parsed(&tree));
        // And the same length: the same members, numbers written alike.
        assert_eq!(ours.len(), tree.len());
        let text = String::from_utf8(ours)?;
        // Defaults in the right places are gone, look-alikes elsewhere stay.
        assert!(!text.contains("OPAQUE") && !text.contains("LINEAR") && !text.contains("10497"));
        assert!(text.contains(r#""KHR_texture_transform":{"scale":[1,1],"texCoord":0}"#));
        assert!(text.contains(r#""indices":{"bufferView":0,"byteOffset":0,"componentType":5121}"#));
        assert!(text.contains(r#"{"name":"all defaults"}"#), "{text}");
        assert!(
            text.contains(r#""min":[0,1e-30,3.4028235e38],"max":[0.1,2,16777217]"#),
            "{text}"
        );
        Ok(())
    }

    /// A dropped first member leaves no comma behind; an object whose members all go
    /// is `{}`.
    #[test]
    fn dropping_the_first_member_keeps_the_commas_right() -> Result<(), serde_json::Error> {
        let value: serde_json::Value = serde_json::from_str(
            r#"{"nodes":[{"rotation":[0,0,0,1],"name":"n","scale":[1,1,1]},{"scale":[1,1,1]}]}"#,
        )?;
        let out = super::minify(&value)?;
        assert_eq!(out, br#"{"nodes":[{"name":"n"},{}]}"#);
        Ok(())
    }

    #[test]
    fn defaults_go_and_numbers_shrink() -> Result<(), serde_json::Error> {
        let doc = br#"{"materials":[{"alphaMode":"OPAQUE","doubleSided":false,"emissiveFactor":[0.0,0.0,0.0],
            "name":"a \"b\"","pbrMetallicRoughness":{"baseColorFactor":[1.0,1.0,1.0,1.0],"metallicFactor":0.0,"roughnessFactor":1.0}}],
            "nodes":[{"scale":[1.0,1.0,1.0],"translation":[0.5,-2.0,1e-30],"rotation":[0.1,0.2,0.3,0.9273618]}],
            "accessors":[{"count":3,"min":[0.0],"max":[0.6],"normalized":false}]}"#;
        // Parsed exactly (serde_json's `float_roundtrip`): an f32's shortest decimal
        // comes back as that f32, and prints back the same.
        let value: serde_json::Value = serde_json::from_slice(doc)?;
        let out = String::from_utf8(super::minify(&value)?).unwrap_or_default();
        assert_eq!(
            out,
            r#"{"accessors":[{"count":3,"max":[0.6],"min":[0]}],"materials":[{"name":"a \"b\"","pbrMetallicRoughness":{"metallicFactor":0}}],"nodes":[{"rotation":[0.1,0.2,0.3,0.9273618],"translation":[0.5,-2,1e-30]}]}"#
        );
        Ok(())
    }
}
