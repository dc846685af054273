//! Delivery glTF (`--quality quantized` / `meshopt`): every canonical model exported
//! compressed, read back, and compared with its uncompressed export read back: the
//! same triangles (vertices matched by position and attributes, since the compressor
//! reorders them), every value within the error bound the export reports, the clips'
//! poses within their bounds, and the document declaring what it uses.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use gltf_json as json;
use meshfmt::gltf::{Compression, Container, export, export_with, import};
use meshfmt_core::glam::Vec3;
use meshfmt_core::{Budget, Feature, Loss, LossKind, Model, Surface, canonical};

fn read(bytes: &[u8]) -> Model {
    import(bytes, None, &Budget::default()).unwrap().value
}

fn document(glb: &[u8]) -> json::Root {
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    json::deserialize::from_slice(&glb[20..20 + len]).unwrap()
}

/// The bound a loss list gives `feature`'s `what` (the largest, if several).
fn bound(losses: &[Loss], feature: Feature, what: &str) -> Option<f32> {
    losses
        .iter()
        .filter(|l| l.feature == feature && l.reason.starts_with(what))
        .filter_map(|l| match l.kind {
            LossKind::Quantized { max_error } => Some(max_error),
            _ => None,
        })
        .reduce(f32::max)
}

fn angle_deg(a: Vec3, b: Vec3) -> f32 {
    a.normalize_or_zero()
        .dot(b.normalize_or_zero())
        .clamp(-1.0, 1.0)
        .acos()
        .to_degrees()
}

struct Bounds {
    position: f32,
    normal_deg: f32,
    uv: f32,
}

/// For each vertex of `b`, the vertex of `a` it stands for: within the position bound,
/// the closest in normal and UV (several vertices of a cube share a position).
fn matches(a: &Surface, b: &Surface, k: &Bounds) -> Vec<usize> {
    b.positions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut best = (f32::INFINITY, usize::MAX);
            for (j, q) in a.positions.iter().enumerate() {
                let d = (*p - *q).abs().max_element();
                if d > k.position * 1.0001 {
                    continue;
                }
                let mut score = d;
                if let (Some(n), Some(m)) = (b.normals.get(i), a.normals.get(j)) {
                    score += angle_deg(*n, *m);
                }
                if let (Some(u), Some(v)) = (b.uv0.get(i), a.uv0.get(j)) {
                    score += (*u - *v).abs().max_element();
                }
                if let (Some(u), Some(v)) = (b.uv1.get(i), a.uv1.get(j)) {
                    score += (*u - *v).abs().max_element();
                }
                if score < best.0 {
                    best = (score, j);
                }
            }
            assert!(
                best.1 != usize::MAX,
                "vertex {i} at {p} has no original within {}",
                k.position
            );
            best.1
        })
        .collect()
}

/// Triangles as index triples turned to start at their smallest index, sorted.
fn canonical_triangles(indices: impl Iterator<Item = [u32; 3]>) -> Vec<[u32; 3]> {
    let mut t: Vec<[u32; 3]> = indices
        .map(|t| {
            let r = (0..3).min_by_key(|&k| t[k]).unwrap();
            [t[r], t[(r + 1) % 3], t[(r + 2) % 3]]
        })
        .collect();
    t.sort_unstable();
    t
}

/// The surfaces as one (an attribute only if every surface has it).
fn union(surfaces: &[Surface]) -> Surface {
    let mut u = Surface::default();
    let all = |f: fn(&Surface) -> usize| surfaces.iter().all(|s| f(s) == s.positions.len());
    let (normals, tangents, uv0, uv1, colors, skin) = (
        all(|s| s.normals.len()),
        all(|s| s.tangents.len()),
        all(|s| s.uv0.len()),
        all(|s| s.uv1.len()),
        all(|s| s.colors.len()),
        all(|s| s.skin.len()),
    );
    for s in surfaces {
        let base = u.positions.len() as u32;
        u.indices.extend(
            s.indices[..s.indices.len() / 3 * 3]
                .iter()
                .map(|i| i + base),
        );
        u.positions.extend(&s.positions);
        if normals {
            u.normals.extend(&s.normals);
        }
        if tangents {
            u.tangents.extend(&s.tangents);
        }
        if uv0 {
            u.uv0.extend(&s.uv0);
        }
        if uv1 {
            u.uv1.extend(&s.uv1);
        }
        if colors {
            u.colors.extend(&s.colors);
        }
        if skin {
            u.skin.extend(s.skin.iter().cloned());
        }
    }
    u
}

fn check(name: &str, model: &Model, c: Compression) {
    let budget = Budget::default();
    let plain = export(model, Container::Glb, &budget).unwrap();
    let packed = export_with(model, Container::Glb, Some(c), &budget).unwrap();
    let losses = &packed.losses;
    let a = read(&plain.value.main);
    let b = read(&packed.value.main);
    let doc = document(&packed.value.main);
    assert!(
        doc.extensions_required
            .contains(&"KHR_mesh_quantization".to_string()),
        "{name}"
    );
    assert_eq!(
        doc.extensions_used
            .contains(&"EXT_meshopt_compression".to_string()),
        c.meshopt,
        "{name}"
    );
    for r in &doc.extensions_required {
        assert!(
            doc.extensions_used.contains(r),
            "{name}: {r} required, not used"
        );
    }
    // Smaller, but for the smallest models (the extensions' JSON outweighs their few
    // vertices).
    if plain.value.main.len() > 8192 {
        assert!(
            packed.value.main.len() * 2 <= plain.value.main.len(),
            "{name}: {} not half of {}",
            packed.value.main.len(),
            plain.value.main.len()
        );
    }
    // Without `keep`, surfaces may merge: the models are compared as one surface each.
    let (sa_all, sb_all);
    let pairs: Vec<(&Surface, &Surface)> = if c.keep {
        assert_eq!(a.surfaces.len(), b.surfaces.len(), "{name}");
        a.surfaces.iter().zip(&b.surfaces).collect()
    } else {
        sa_all = union(&a.surfaces);
        sb_all = union(&b.surfaces);
        vec![(&sa_all, &sb_all)]
    };
    for (sa, sb) in pairs {
        if c.keep {
            assert_eq!(sa.name, sb.name);
        }
        let k = Bounds {
            // Skinned positions stay floats without meshopt (exact): no bound then.
            position: bound(losses, Feature::Geometry, "positions").unwrap_or(0.0),
            normal_deg: bound(losses, Feature::Normals, "normals").unwrap_or(0.0),
            uv: bound(losses, Feature::Uv0, "UV set 0")
                .unwrap_or(0.0)
                .max(bound(losses, Feature::Uv1, "UV set 1").unwrap_or(0.0)),
        };
        // The position bound is a fraction of the model's size, never zero, but for
        // skinned surfaces without meshopt, which keep their floats.
        if c.meshopt || sa.skin.is_empty() {
            assert!(
                k.position > 0.0 && k.position < 1e-3,
                "{name}: {}",
                k.position
            );
        } else {
            assert_eq!(
                k.position, 0.0,
                "{name}: skinned positions quantized without meshopt"
            );
        }
        let m = matches(sa, sb, &k);
        for (i, &j) in m.iter().enumerate() {
            let d = (sb.positions[i] - sa.positions[j]).abs().max_element();
            assert!(d <= k.position, "{name}: position {d} > {}", k.position);
            if !sb.normals.is_empty() {
                let e = angle_deg(sb.normals[i], sa.normals[j]);
                assert!(
                    e <= k.normal_deg + 1e-3,
                    "{name}: normal {e} > {}",
                    k.normal_deg
                );
            }
            if !sb.tangents.is_empty() {
                let e = angle_deg(sb.tangents[i].truncate(), sa.tangents[j].truncate());
                let tb = bound(losses, Feature::Tangents, "tangents").unwrap();
                assert!(e <= tb + 1e-3, "{name}: tangent {e} > {tb}");
                assert_eq!(sb.tangents[i].w.signum(), sa.tangents[j].w.signum());
            }
            for (ua, ub) in [(&sa.uv0, &sb.uv0), (&sa.uv1, &sb.uv1)] {
                if !ub.is_empty() {
                    let e = (ub[i] - ua[j]).abs().max_element();
                    assert!(e <= k.uv.max(1e-6), "{name}: uv {e} > {}", k.uv);
                }
            }
            if !sa.colors.is_empty() {
                let e = (sb.colors[i] - sa.colors[j]).abs().max_element();
                assert!(e <= 0.5 / 255.0 + 1e-6, "{name}: color {e}");
            }
            if !sa.skin.is_empty() {
                let wa: Vec<(u32, f32)> = sa.skin[j].pairs().collect();
                let wb: Vec<(u32, f32)> = sb.skin[i].pairs().collect();
                for (joint, w) in &wa {
                    let other = wb.iter().find(|p| p.0 == *joint).map_or(0.0, |p| p.1);
                    assert!(
                        (other - w).abs() <= 1.0 / 255.0 + 1e-6,
                        "{name}: weight {w} vs {other}"
                    );
                }
                let sum: f32 = wb.iter().map(|p| p.1).sum();
                assert!((sum - 1.0).abs() < 1e-5, "{name}: weights sum to {sum}");
            }
        }
        // The same triangles, in the original's vertex numbering, but for those that
        // quantization collapsed (two corners welded into one vertex: they draw nothing).
        let ta = canonical_triangles(sa.triangles());
        let tb = canonical_triangles(sb.triangles().map(|t| t.map(|v| m[v as usize] as u32)));
        let mut missing = Vec::new();
        let mut j = 0;
        for t in &ta {
            if tb.get(j) == Some(t) {
                j += 1;
            } else {
                missing.push(*t);
            }
        }
        assert_eq!(j, tb.len(), "{name}: triangles the original does not have");
        for t in missing {
            let p = t.map(|v| sa.positions[v as usize]);
            let close = |a: Vec3, b: Vec3| (a - b).abs().max_element() <= 2.0 * k.position;
            assert!(
                close(p[0], p[1]) || close(p[1], p[2]) || close(p[0], p[2]),
                "{name}: triangle {t:?} dropped, yet no two corners are within a step"
            );
        }
        // Vertices no triangle uses are gone, and identical ones are welded: never more
        // vertices than the original uses.
        let used: std::collections::BTreeSet<u32> = sa.indices.iter().copied().collect();
        assert!(sb.positions.len() <= used.len(), "{name}");
        if c.keep {
            // Kept attributes: all of them, on every surface.
            assert_eq!(
                sa.normals.len() == sa.positions.len(),
                sb.normals.len() == sb.positions.len()
            );
            assert_eq!(sa.tangents.is_empty(), sb.tangents.is_empty(), "{name}");
            assert_eq!(sa.uv0.is_empty(), sb.uv0.is_empty(), "{name}");
            assert_eq!(sa.uv1.is_empty(), sb.uv1.is_empty(), "{name}");
        }
    }
    // Clips: every bone's local pose within the key bounds at every original key.
    assert_eq!(a.animations.len(), b.animations.len(), "{name}");
    let rotation = bound(losses, Feature::Animation, "rotation keys").unwrap_or(0.0)
        + bound(losses, Feature::Animation, "tracks holding one rotation").unwrap_or(0.0);
    let translation = bound(losses, Feature::Animation, "translation keys").unwrap_or(0.0)
        + bound(losses, Feature::Animation, "tracks holding one translation").unwrap_or(0.0);
    let scale = bound(losses, Feature::Animation, "scale keys").unwrap_or(0.0)
        + bound(losses, Feature::Animation, "tracks holding one scale").unwrap_or(0.0);
    for (ca, cb) in a.animations.iter().zip(&b.animations) {
        let mut times: Vec<f32> = ca
            .channels
            .iter()
            .flat_map(|c| {
                c.translation
                    .times
                    .iter()
                    .chain(&c.rotation.times)
                    .chain(&c.scale.times)
            })
            .copied()
            .collect();
        times.sort_by(f32::total_cmp);
        for t in times {
            let pa = ca.sample(&a.skeleton, t);
            let pb = cb.sample(&b.skeleton, t);
            for (x, y) in pa.locals.iter().zip(&pb.locals) {
                let dt = (x.translation - y.translation).abs().max_element();
                assert!(
                    dt <= translation + 1e-6,
                    "{name} {}: translation {dt} > {translation}",
                    ca.name
                );
                let dr = x.rotation.angle_between(y.rotation);
                assert!(
                    dr <= rotation + 1e-5,
                    "{name} {}: rotation {dr} > {rotation}",
                    ca.name
                );
                let ds = (x.scale / y.scale - Vec3::ONE).abs().max_element();
                assert!(ds <= scale + 1e-3, "{name} {}: scale {ds}", ca.name);
            }
        }
    }
    // Bones, with their inverse bind matrices back without the dequantization.
    assert_eq!(a.skeleton.bones.len(), b.skeleton.bones.len());
    for (x, y) in a.skeleton.bones.iter().zip(&b.skeleton.bones) {
        assert_eq!(x.name, y.name);
        if let (Some(p), Some(q)) = (x.inverse_bind, y.inverse_bind) {
            assert!(p.abs_diff_eq(q, 1e-4), "{name}: {p} vs {q}");
        }
    }
}

fn keep(c: Compression) -> Compression {
    Compression { keep: true, ..c }
}

#[test]
fn canonical_models_quantized_within_their_bounds() {
    for c in canonical::ALL.iter().filter(|c| !c.large) {
        check(c.name, &(c.build)(), Compression::QUANTIZED);
        check(c.name, &(c.build)(), keep(Compression::QUANTIZED));
    }
}

#[test]
fn canonical_models_meshopt_within_their_bounds() {
    for c in canonical::ALL.iter().filter(|c| !c.large) {
        check(c.name, &(c.build)(), Compression::MESHOPT);
        check(c.name, &(c.build)(), keep(Compression::MESHOPT));
    }
}
