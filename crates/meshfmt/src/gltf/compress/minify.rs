//! The compressed document's JSON without what glTF defines as default (`alphaMode`
//! OPAQUE, `doubleSided` false, unit factors, identity transforms, LINEAR, ...) and
//! with whole numbers written as integers: for small files the JSON is most of the
//! bytes. Parsed back, it is the same document.

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
                (_, _, Some(f)) if f64::from(f as f32) == f => write!(out, "{:?}", f as f32),
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

/// `root`'s JSON without defaults, numbers compacted (its tree made straight from the
/// document, never printed and parsed again).
pub(crate) fn minified(root: &gltf_json::Root) -> Result<Vec<u8>, serde_json::Error> {
    Ok(compacted(serde_json::to_value(root)?))
}

/// The tree `v` without defaults, written compactly.
fn compacted(mut v: Value) -> Vec<u8> {
    defaults(&mut v);
    let mut out = Vec::with_capacity(4096);
    write(&v, &mut out);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn defaults_go_and_numbers_shrink() -> Result<(), serde_json::Error> {
        let doc = br#"{"materials":[{"alphaMode":"OPAQUE","doubleSided":false,"emissiveFactor":[0.0,0.0,0.0],
            "name":"a \"b\"","pbrMetallicRoughness":{"baseColorFactor":[1.0,1.0,1.0,1.0],"metallicFactor":0.0,"roughnessFactor":1.0}}],
            "nodes":[{"scale":[1.0,1.0,1.0],"translation":[0.5,-2.0,1e-30],"rotation":[0.1,0.2,0.3,0.9273618]}],
            "accessors":[{"count":3,"min":[0.0],"max":[0.6],"normalized":false}]}"#;
        // Parsed exactly (serde_json's `float_roundtrip`): an f32's shortest decimal
        // comes back as that f32, and prints back the same.
        let out =
            String::from_utf8(super::compacted(serde_json::from_slice(doc)?)).unwrap_or_default();
        assert_eq!(
            out,
            r#"{"accessors":[{"count":3,"max":[0.6],"min":[0]}],"materials":[{"name":"a \"b\"","pbrMetallicRoughness":{"metallicFactor":0}}],"nodes":[{"rotation":[0.1,0.2,0.3,0.9273618],"translation":[0.5,-2,1e-30]}]}"#
        );
        Ok(())
    }
}
