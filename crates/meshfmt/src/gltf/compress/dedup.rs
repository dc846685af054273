//! Sharing what is written twice: images with the same bytes (or URI), then samplers,
//! textures and materials that have become identical, then unused ones removed.

use gltf_json as json;
use json::{Index, Root};

/// The bytes an image holds, or its URI.
fn image_key<'a>(
    root: &Root,
    bin: &'a [u8],
    image: &'a json::Image,
) -> Option<(Option<&'a str>, &'a [u8])> {
    match (image.buffer_view, image.uri.as_deref()) {
        (Some(v), _) => {
            let view = root.buffer_views.get(v.value())?;
            let start = view.byte_offset.map_or(0, |o| o.0 as usize);
            let bytes = bin.get(start..start.checked_add(view.byte_length.0 as usize)?)?;
            Some((image.mime_type.as_ref().map(|m| m.0.as_str()), bytes))
        }
        (None, Some(uri)) => Some((Some(uri), &[])),
        (None, None) => None,
    }
}

/// Shares images with equal bytes and MIME type or equal URIs (before the buffer is
/// rewritten: the copies are then never written).
pub(crate) fn images(root: &mut Root, bin: &[u8]) {
    let n = root.images.len();
    let mut first: Vec<u32> = (0..n as u32).collect();
    for i in 0..n {
        let Some(ki) = image_key(root, bin, &root.images[i]) else {
            continue;
        };
        for j in 0..i {
            if first[j] as usize == j && image_key(root, bin, &root.images[j]) == Some(ki) {
                first[i] = j as u32;
                break;
            }
        }
    }
    for t in &mut root.textures {
        if let Some(&f) = first.get(t.source.value()) {
            t.source = Index::new(f);
        }
    }
    let used: Vec<bool> = (0..n).map(|i| first[i] as usize == i).collect();
    let root_map = compact(&mut root.images, &used);
    {
        for t in &mut root.textures {
            if let Some(Some(x)) = root_map.get(t.source.value()) {
                t.source = Index::new(*x);
            }
        }
    }
}

/// Removes the items not `keep`; returns old index -> new index.
fn compact<T>(items: &mut Vec<T>, keep: &[bool]) -> Vec<Option<u32>> {
    let mut map = Vec::with_capacity(keep.len());
    let mut next = 0u32;
    for &k in keep {
        map.push(k.then_some(next));
        next += u32::from(k);
    }
    let mut i = 0;
    items.retain(|_| {
        let k = keep.get(i).copied().unwrap_or(true);
        i += 1;
        k
    });
    map
}

/// The first index of each item equal (as JSON) to an earlier one.
fn firsts<T>(items: &[T], value: impl Fn(&T) -> Option<serde_json::Value>) -> Vec<u32> {
    let values: Vec<Option<serde_json::Value>> = items.iter().map(value).collect();
    (0..items.len())
        .map(|i| {
            (0..i)
                .find(|&j| values[j].is_some() && values[j] == values[i])
                .unwrap_or(i) as u32
        })
        .collect()
}

fn texture_refs(m: &mut json::Material) -> Vec<&mut Index<json::Texture>> {
    let mut out = Vec::new();
    let pbr = &mut m.pbr_metallic_roughness;
    if let Some(t) = pbr.base_color_texture.as_mut() {
        out.push(&mut t.index);
    }
    if let Some(t) = pbr.metallic_roughness_texture.as_mut() {
        out.push(&mut t.index);
    }
    if let Some(t) = m.emissive_texture.as_mut() {
        out.push(&mut t.index);
    }
    if let Some(t) = m.normal_texture.as_mut() {
        out.push(&mut t.index);
    }
    if let Some(t) = m.occlusion_texture.as_mut() {
        out.push(&mut t.index);
    }
    out
}

/// Shares identical samplers, textures and materials (names aside when `by_content`),
/// then drops the copies.
pub(crate) fn dedup(root: &mut Root, by_content: bool) {
    let value = |x: serde_json::Value| -> serde_json::Value {
        match x {
            serde_json::Value::Object(mut m) if by_content => {
                m.remove("name");
                serde_json::Value::Object(m)
            }
            other => other,
        }
    };
    // Samplers.
    let f = firsts(&root.samplers, |x| serde_json::to_value(x).ok().map(value));
    for t in &mut root.textures {
        if let Some(s) = t.sampler.as_mut() {
            *s = Index::new(f.get(s.value()).copied().unwrap_or(s.value() as u32));
        }
    }
    let keep: Vec<bool> = f
        .iter()
        .enumerate()
        .map(|(i, &x)| x as usize == i)
        .collect();
    let map = compact(&mut root.samplers, &keep);
    {
        for t in &mut root.textures {
            if let Some(s) = t.sampler.as_mut() {
                if let Some(Some(x)) = map.get(s.value()) {
                    *s = Index::new(*x);
                }
            }
        }
    }
    // Textures.
    let f = firsts(&root.textures, |x| serde_json::to_value(x).ok().map(value));
    for m in &mut root.materials {
        for r in texture_refs(m) {
            *r = Index::new(f.get(r.value()).copied().unwrap_or(r.value() as u32));
        }
    }
    let keep: Vec<bool> = f
        .iter()
        .enumerate()
        .map(|(i, &x)| x as usize == i)
        .collect();
    let map = compact(&mut root.textures, &keep);
    {
        for m in &mut root.materials {
            for r in texture_refs(m) {
                if let Some(Some(x)) = map.get(r.value()) {
                    *r = Index::new(*x);
                }
            }
        }
    }
    // Materials.
    let f = firsts(&root.materials, |x| serde_json::to_value(x).ok().map(value));
    for mesh in &mut root.meshes {
        for p in &mut mesh.primitives {
            if let Some(m) = p.material.as_mut() {
                *m = Index::new(f.get(m.value()).copied().unwrap_or(m.value() as u32));
            }
        }
    }
    let mut keep: Vec<bool> = f
        .iter()
        .enumerate()
        .map(|(i, &x)| x as usize == i)
        .collect();
    // Materials no primitive uses go too (the builder's copies for surfaces without UVs).
    let mut used = vec![false; root.materials.len()];
    for mesh in &root.meshes {
        for p in &mesh.primitives {
            if let Some(u) = p.material.and_then(|m| used.get_mut(m.value())) {
                *u = true;
            }
        }
    }
    for (k, u) in keep.iter_mut().zip(&used) {
        *k &= *u;
    }
    let map = compact(&mut root.materials, &keep);
    {
        for mesh in &mut root.meshes {
            for p in &mut mesh.primitives {
                if let Some(m) = p.material.as_mut() {
                    if let Some(Some(x)) = map.get(m.value()) {
                        *m = Index::new(*x);
                    }
                }
            }
        }
    }
}

/// Removes meshes left without primitives (merged into others), and the nodes that
/// only drew them (no children, skin joints, animation or other use), renumbering
/// every reference.
pub(crate) fn drop_empty_meshes(root: &mut Root) {
    let keep_mesh: Vec<bool> = root
        .meshes
        .iter()
        .map(|m| !m.primitives.is_empty())
        .collect();
    if keep_mesh.iter().all(|k| *k) {
        return;
    }
    let mut referenced = vec![false; root.nodes.len()];
    let mut mark = |i: usize| {
        if let Some(r) = referenced.get_mut(i) {
            *r = true;
        }
    };
    for s in &root.skins {
        s.joints.iter().for_each(|j| mark(j.value()));
        if let Some(k) = s.skeleton {
            mark(k.value());
        }
    }
    for a in &root.animations {
        a.channels.iter().for_each(|c| mark(c.target.node.value()));
    }
    for n in &root.nodes {
        n.children.iter().flatten().for_each(|c| mark(c.value()));
    }
    let keep_node: Vec<bool> = root
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let emptied = n
                .mesh
                .is_some_and(|m| !keep_mesh.get(m.value()).copied().unwrap_or(true));
            !(emptied && n.children.is_none() && n.camera.is_none() && !referenced[i])
        })
        .collect();
    let map = compact(&mut root.meshes, &keep_mesh);
    {
        for n in &mut root.nodes {
            n.mesh = n
                .mesh
                .and_then(|m| map.get(m.value()).copied().flatten())
                .map(Index::new);
        }
    }
    let map = compact(&mut root.nodes, &keep_node);
    {
        let fix = |i: &mut Index<json::Node>| {
            if let Some(Some(x)) = map.get(i.value()) {
                *i = Index::new(*x);
            }
        };
        for s in &mut root.scenes {
            s.nodes
                .retain(|n| map.get(n.value()).copied().flatten().is_some());
            s.nodes.iter_mut().for_each(fix);
        }
        for n in &mut root.nodes {
            if let Some(c) = n.children.as_mut() {
                c.iter_mut().for_each(fix);
            }
        }
        for s in &mut root.skins {
            s.joints.iter_mut().for_each(fix);
            if let Some(k) = s.skeleton.as_mut() {
                fix(k);
            }
        }
        for a in &mut root.animations {
            a.channels.iter_mut().for_each(|c| fix(&mut c.target.node));
        }
    }
}
