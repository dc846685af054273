//! Feature-by-feature comparison of a decoded model with the canonical one, under the
//! bounds the encoder reported.

use meshfmt_core::glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use meshfmt_core::{Feature, Loss, LossKind, Model, Skeleton, Surface, Transform};

/// What happened to one feature.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The canonical model does not have it.
    Absent,
    /// Came back bit-identical.
    Exact,
    /// Came back within f32 rounding noise ([`ROUNDING`]) with no quantization: the
    /// value went through arithmetic (a frame change, a resampled in-between frame).
    Rounding { worst: f32 },
    /// Came back within the reported quantization bound (the worst error seen), give
    /// or take the f32 noise [`ROUNDING`] allows for values of that magnitude.
    WithinBound { bound: f32, worst: f32 },
    /// Reported as dropped or reduced by the encoder.
    Lost(String),
    /// Came back different without a loss that explains it: a bug.
    Mismatch(String),
}

impl Outcome {
    /// How bad: absent < exact < rounding < within bound < lost < mismatch.
    pub fn severity(&self) -> u8 {
        match self {
            Outcome::Absent => 0,
            Outcome::Exact => 1,
            Outcome::Rounding { .. } => 2,
            Outcome::WithinBound { .. } => 3,
            Outcome::Lost(_) => 4,
            Outcome::Mismatch(_) => 5,
        }
    }

    pub fn cell(&self) -> String {
        match self {
            Outcome::Absent => "-".into(),
            Outcome::Exact => "exact".into(),
            Outcome::Rounding { worst } => format!("~exact ({worst:.0e})"),
            Outcome::WithinBound { bound, .. } => format!("<= {bound:.1e}"),
            Outcome::Lost(k) => k.clone(),
            Outcome::Mismatch(m) => format!("MISMATCH: {m}"),
        }
    }

    pub fn is_failure(&self) -> bool {
        matches!(self, Outcome::Mismatch(_))
    }
}

/// An attribute by triangle corner, over all surfaces: formats may split or merge
/// vertices (UNIGINE's two index lists), but every corner must keep its values.
/// Empty when any surface with corners lacks the attribute.
fn flat<T: Clone>(m: &Model, f: impl Fn(&Surface) -> &Vec<T>) -> Vec<T> {
    let mut out = Vec::new();
    for s in &m.surfaces {
        let a = f(s);
        if a.is_empty() && !s.indices.is_empty() {
            return Vec::new();
        }
        out.extend(s.indices.iter().filter_map(|&i| a.get(i as usize).cloned()));
    }
    out
}

/// Morph target positions as absolute values, by corner.
fn morph_corners(m: &Model) -> Vec<Vec<[f32; 3]>> {
    m.surfaces
        .iter()
        .flat_map(|s| {
            s.morph_targets.iter().map(move |t| {
                let abs = t.absolute_positions(&s.positions);
                s.indices
                    .iter()
                    .filter_map(|&i| abs.get(i as usize).map(|p| p.to_array()))
                    .collect()
            })
        })
        .collect()
}

fn worst<const N: usize>(a: &[[f32; N]], b: &[[f32; N]]) -> Option<f32> {
    (a.len() == b.len()).then(|| {
        a.iter()
            .zip(b)
            .flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| (p - q).abs()))
            .fold(0.0, f32::max)
    })
}

fn arr3(v: &[Vec3]) -> Vec<[f32; 3]> {
    v.iter().map(|x| x.to_array()).collect()
}
fn arr2(v: &[Vec2]) -> Vec<[f32; 2]> {
    v.iter().map(|x| x.to_array()).collect()
}
fn arr4(v: &[Vec4]) -> Vec<[f32; 4]> {
    v.iter().map(|x| x.to_array()).collect()
}

/// Differences up to this, with no quantization reported, are f32 arithmetic noise.
pub const ROUNDING: f32 = 1e-6;

fn numeric(feature: Feature, err: Option<f32>, losses: &[Loss]) -> Outcome {
    numeric_at(feature, err, losses, 1.0)
}

/// [`numeric`] for values of magnitude up to `magnitude`: rounding noise scales with it
/// (a unit change of 3x on 25-unit coordinates moves them by an ulp of 76).
fn numeric_at(feature: Feature, err: Option<f32>, losses: &[Loss], magnitude: f32) -> Outcome {
    numeric_parts(feature, err.map(|e| vec![(e, magnitude)]), losses)
}

/// The reported quantization bound of `feature`. Chained conversions quantize more
/// than once, so the errors add up, and so do the bounds; but bounds reported for
/// different places (`surfaces[0]`, `surfaces[1]`) cover different values: a value is
/// bounded by the losses at its own place plus the whole-model ones (empty path), so
/// the bound is the worst place's sum, not the sum over all places.
fn quantization_bound(feature: Feature, losses: &[Loss]) -> Option<f32> {
    let mut by_path: std::collections::BTreeMap<&str, f32> = std::collections::BTreeMap::new();
    for l in losses.iter().filter(|l| l.feature == feature) {
        if let LossKind::Quantized { max_error } = l.kind {
            *by_path.entry(l.path.as_str()).or_default() += max_error;
        }
    }
    let whole = by_path.remove("");
    if by_path.is_empty() {
        return whole;
    }
    let worst = by_path.values().fold(0.0f32, |a, &b| a.max(b));
    Some(worst + whole.unwrap_or(0.0))
}

/// A feature whose parts (translations, rotations, scales) have different magnitudes:
/// each part is `(worst error, magnitude of its values)`; `None` when the structure
/// differs. Quantized values also go through frame changes and renormalization after
/// the quantizer's bound was computed, so each part may exceed the bound by the same
/// f32 noise an unquantized value of its magnitude is allowed.
fn numeric_parts(feature: Feature, parts: Option<Vec<(f32, f32)>>, losses: &[Loss]) -> Outcome {
    let Some(parts) = parts else {
        return Outcome::Mismatch("different lengths".into());
    };
    let err = parts.iter().map(|p| p.0).fold(0.0, f32::max);
    if err == 0.0 {
        return Outcome::Exact;
    }
    let noise = |magnitude: f32| ROUNDING * magnitude.max(1.0);
    let within = |b: f32| parts.iter().all(|&(e, m)| e <= b + noise(m));
    match quantization_bound(feature, losses) {
        Some(b) if within(b) => Outcome::WithinBound {
            bound: b,
            worst: err,
        },
        Some(b) => Outcome::Mismatch(format!("error {err:e} > reported bound {b:e}")),
        None if within(0.0) => Outcome::Rounding { worst: err },
        None => Outcome::Mismatch(format!("error {err:e} but no quantization reported")),
    }
}

/// True when `feature` was reported dropped (wholly or at some path).
fn dropped(feature: Feature, losses: &[Loss]) -> bool {
    losses
        .iter()
        .any(|l| l.feature == feature && l.kind == LossKind::Dropped)
}

/// A surface that holds nothing (no vertices, no triangles): formats that must write
/// one mesh write an empty one for a model without geometry, and read it back.
fn has_content(s: &Surface) -> bool {
    !s.positions.is_empty() || !s.indices.is_empty()
}

/// Names, by kind. Names of things a codec dropped (and that did not come back) are
/// not compared: losing the thing is already reported under its own feature. Bone
/// names are compared as a multiset: bone order is the skeleton's business (formats
/// that nest bones reorder them and say so), and the skeleton comparison matches bones
/// by name.
fn names_equal(canonical: &Model, decoded: &Model, losses: &[Loss]) -> bool {
    let surfaces = |m: &Model| -> Vec<String> {
        m.surfaces
            .iter()
            .filter(|s| has_content(s))
            .map(|s| s.name.clone())
            .collect()
    };
    let bones = |m: &Model| -> Vec<String> {
        let mut v: Vec<String> = m.skeleton.bones.iter().map(|b| b.name.clone()).collect();
        v.sort();
        v
    };
    let clips =
        |m: &Model| -> Vec<String> { m.animations.iter().map(|a| a.name.clone()).collect() };
    let gone = |feature: Feature, left: usize| left == 0 && dropped(feature, losses);
    canonical.name == decoded.name
        && (gone(Feature::Geometry, surfaces(decoded).len())
            || surfaces(canonical) == surfaces(decoded))
        && (gone(Feature::Skeleton, decoded.skeleton.len()) || bones(canonical) == bones(decoded))
        && (gone(Feature::Animation, decoded.animations.len())
            || clips(canonical) == clips(decoded))
}

/// Compares every feature; `decoded` must already be in `canonical`'s frame.
pub fn compare(canonical: &Model, decoded: &Model, losses: &[Loss]) -> Vec<(Feature, Outcome)> {
    Feature::ALL
        .iter()
        .map(|&f| {
            let lost = losses.iter().find(|l| {
                l.feature == f && matches!(l.kind, LossKind::Dropped | LossKind::Reduced)
            });
            let present = canonical.has(f);
            if !present {
                return (f, Outcome::Absent);
            }
            if let Some(l) = lost {
                let how = if l.kind == LossKind::Dropped {
                    "dropped"
                } else {
                    "reduced"
                };
                return (f, Outcome::Lost(how.into()));
            }
            let outcome = match f {
                Feature::Geometry => {
                    if canonical.triangle_count() != decoded.triangle_count() {
                        Outcome::Mismatch("triangle counts differ".into())
                    } else {
                        let e = worst(
                            &arr3(&flat(canonical, |s| &s.positions)),
                            &arr3(&flat(decoded, |s| &s.positions)),
                        );
                        let magnitude = canonical
                            .surfaces
                            .iter()
                            .flat_map(|s| &s.positions)
                            .fold(0.0f32, |m, p| m.max(p.abs().max_element()));
                        numeric_at(f, e, losses, magnitude)
                    }
                }
                Feature::Normals => numeric(
                    f,
                    worst(
                        &arr3(&flat(canonical, |s| &s.normals)),
                        &arr3(&flat(decoded, |s| &s.normals)),
                    ),
                    losses,
                ),
                Feature::Tangents => numeric(
                    f,
                    worst(
                        &arr4(&flat(canonical, |s| &s.tangents)),
                        &arr4(&flat(decoded, |s| &s.tangents)),
                    ),
                    losses,
                ),
                Feature::Uv0 => numeric(
                    f,
                    worst(
                        &arr2(&flat(canonical, |s| &s.uv0)),
                        &arr2(&flat(decoded, |s| &s.uv0)),
                    ),
                    losses,
                ),
                Feature::Uv1 => numeric(
                    f,
                    worst(
                        &arr2(&flat(canonical, |s| &s.uv1)),
                        &arr2(&flat(decoded, |s| &s.uv1)),
                    ),
                    losses,
                ),
                Feature::Colors => numeric(
                    f,
                    worst(
                        &arr4(&flat(canonical, |s| &s.colors)),
                        &arr4(&flat(decoded, |s| &s.colors)),
                    ),
                    losses,
                ),
                Feature::Skin => numeric(f, skin_error(canonical, decoded), losses),
                Feature::Skeleton => numeric_parts(f, skeleton_error(canonical, decoded), losses),
                Feature::Animation => numeric_parts(f, animation_error(canonical, decoded), losses),
                Feature::MorphTargets => {
                    let (a, b) = (morph_corners(canonical), morph_corners(decoded));
                    let e = (a.len() == b.len())
                        .then(|| {
                            a.iter()
                                .zip(&b)
                                .map(|(x, y)| worst(x, y))
                                .collect::<Option<Vec<f32>>>()
                        })
                        .flatten()
                        .map(|v| v.into_iter().fold(0.0, f32::max));
                    numeric(f, e, losses)
                }
                Feature::Materials => eq(canonical.materials == decoded.materials),
                Feature::Textures => eq(canonical.textures == decoded.textures),
                Feature::Names => eq(names_equal(canonical, decoded, losses)),
                _ => Outcome::Absent,
            };
            (f, outcome)
        })
        .collect()
}

fn eq(same: bool) -> Outcome {
    if same {
        Outcome::Exact
    } else {
        Outcome::Mismatch("differs and no loss reported".into())
    }
}

/// For each canonical bone, the decoded bone that is the same bone: matched by name
/// when every name is unique and both skeletons hold the same names (formats may put
/// bones in another order, reported as a skeleton loss); else by index when the
/// hierarchy matches that way; else in depth-first order (what formats that nest bones
/// write, e.g. M3D, whose ASCII form also rewrites names) when the hierarchy matches
/// that way; else by index.
fn bone_map(a: &Skeleton, b: &Skeleton) -> Vec<usize> {
    let identity: Vec<usize> = (0..a.len()).collect();
    if a.len() != b.len() {
        return identity;
    }
    fn index(s: &Skeleton) -> Option<std::collections::HashMap<&str, usize>> {
        let mut m = std::collections::HashMap::new();
        for (i, bone) in s.bones.iter().enumerate() {
            if m.insert(bone.name.as_str(), i).is_some() {
                return None;
            }
        }
        Some(m)
    }
    if let (Some(_), Some(ib)) = (index(a), index(b)) {
        if let Some(map) = a
            .bones
            .iter()
            .map(|bone| ib.get(bone.name.as_str()).copied())
            .collect::<Option<Vec<usize>>>()
        {
            return map;
        }
    }
    if same_hierarchy(a, b, &identity) {
        return identity;
    }
    // Depth-first order lists canonical bones in decoded order: invert it.
    if let Some(order) = a.depth_first_order() {
        let mut map = vec![0; a.len()];
        for (decoded, &canonical) in order.iter().enumerate() {
            map[canonical] = decoded;
        }
        if same_hierarchy(a, b, &map) {
            return map;
        }
    }
    identity
}

/// True when decoded bone `map[i]`'s parent is decoded bone `map[canonical parent]`
/// for every canonical bone `i`.
fn same_hierarchy(a: &Skeleton, b: &Skeleton, map: &[usize]) -> bool {
    a.bones.iter().zip(map).all(|(bone, &j)| {
        b.bones
            .get(j)
            .is_some_and(|d| bone.parent.map(|p| map.get(p).copied()) == d.parent.map(Some))
    })
}

/// Largest absolute component of a rotation difference, `q` and `-q` being the same
/// rotation.
fn rotation_error(x: Quat, y: Quat) -> f32 {
    let y = if x.dot(y) < 0.0 { -y } else { y };
    Vec4::from(x - y).abs().max_element()
}

/// Translation, rotation and scale differences of two sets of local transforms (in
/// canonical bone order), each with the magnitude of its values.
fn transform_parts(a: &[Transform], b: &[Transform]) -> Vec<(f32, f32)> {
    let mut t = (0.0f32, 0.0f32);
    let mut r = 0.0f32;
    let mut s = (0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(b) {
        t.0 = t.0.max((x.translation - y.translation).abs().max_element());
        t.1 = t.1.max(x.translation.abs().max_element());
        r = r.max(rotation_error(x.rotation, y.rotation));
        s.0 = s.0.max((x.scale - y.scale).abs().max_element());
        s.1 = s.1.max(x.scale.abs().max_element());
    }
    vec![t, (r, 1.0), s]
}

/// The hierarchy must be the same (bones matched by [`bone_map`]; names are
/// [`Feature::Names`]); rest transforms and stored inverse bind matrices are compared
/// numerically: formats store them through frame changes and quaternion
/// renormalization. `None` when the hierarchy differs.
fn skeleton_error(a: &Model, b: &Model) -> Option<Vec<(f32, f32)>> {
    let (sa, sb) = (&a.skeleton, &b.skeleton);
    if sa.len() != sb.len() {
        return None;
    }
    let map = bone_map(sa, sb);
    if !same_hierarchy(sa, sb, &map) {
        return None;
    }
    let rest_b: Vec<Transform> = map
        .iter()
        .filter_map(|&j| sb.bones.get(j))
        .map(|x| x.rest)
        .collect();
    let rest_a: Vec<Transform> = sa.bones.iter().map(|x| x.rest).collect();
    let mut parts = transform_parts(&rest_a, &rest_b);
    // Inverse bind matrices only where one side stores its own; otherwise both derive
    // them from the rest poses compared above.
    if sa
        .bones
        .iter()
        .chain(&sb.bones)
        .any(|x| x.inverse_bind.is_some())
    {
        let (ia, ib) = (sa.inverse_bind_matrices(), sb.inverse_bind_matrices());
        let mut e = (0.0f32, 0.0f32);
        for (x, &j) in ia.iter().zip(&map) {
            let y: &Mat4 = ib.get(j)?;
            for (p, q) in x.to_cols_array().iter().zip(y.to_cols_array()) {
                e.0 = e.0.max((p - q).abs());
                e.1 = e.1.max(p.abs());
            }
        }
        parts.push(e);
    }
    Some(parts)
}

/// Worst weight difference per corner, a joint missing on one side weighing 0 (a
/// small weight may quantize to nothing); decoded joints are matched to canonical
/// bones by [`bone_map`]. `None` when the corner counts differ.
fn skin_error(a: &Model, b: &Model) -> Option<f32> {
    let (sa, sb) = (flat(a, |s| &s.skin), flat(b, |s| &s.skin));
    if sa.len() != sb.len() {
        return None;
    }
    let map = bone_map(&a.skeleton, &b.skeleton);
    let mut canonical_of = vec![usize::MAX; b.skeleton.len()];
    for (i, &j) in map.iter().enumerate() {
        if let Some(slot) = canonical_of.get_mut(j) {
            *slot = i;
        }
    }
    let joint = |j: u32| -> u32 {
        canonical_of
            .get(j as usize)
            .filter(|&&i| i != usize::MAX)
            .map_or(j, |&i| i as u32)
    };
    let mut worst = 0.0f32;
    for (x, y) in sa.iter().zip(&sb) {
        let mut px: Vec<(u32, f32)> = x.pairs().collect();
        let py: Vec<(u32, f32)> = y.pairs().map(|(j, w)| (joint(j), w)).collect();
        for &(j, _) in &py {
            if !px.iter().any(|p| p.0 == j) {
                px.push((j, 0.0));
            }
        }
        for (j, w) in px {
            let v: f32 = py.iter().filter(|q| q.0 == j).map(|q| q.1).sum();
            worst = worst.max((w - v).abs());
        }
    }
    Some(worst)
}

/// Worst difference between the clips' poses, sampled at every key time of either (the
/// decoded clip may hold the same motion at another key rate), as translation, rotation
/// and scale parts with their magnitudes; bones matched by [`bone_map`]. `None` when
/// the clip or bone counts differ.
fn animation_error(a: &Model, b: &Model) -> Option<Vec<(f32, f32)>> {
    if a.animations.len() != b.animations.len() {
        return None;
    }
    // Formats may store every bone every frame (ms08) or only animated ones: the
    // sampled poses of all bones are what must agree. Names are Feature::Names.
    if a.skeleton.len() != b.skeleton.len() {
        return None;
    }
    let map = bone_map(&a.skeleton, &b.skeleton);
    let mut parts = vec![(0.0f32, 0.0f32); 3];
    for (ca, cb) in a.animations.iter().zip(&b.animations) {
        let mut times: Vec<f32> = Vec::new();
        for c in ca.channels.iter().chain(&cb.channels) {
            times.extend(&c.translation.times);
            times.extend(&c.rotation.times);
            times.extend(&c.scale.times);
        }
        for t in times {
            let (pa, pb) = (ca.sample(&a.skeleton, t), cb.sample(&b.skeleton, t));
            let lb: Vec<Transform> = map
                .iter()
                .filter_map(|&j| pb.locals.get(j).copied())
                .collect();
            for (p, q) in parts.iter_mut().zip(transform_parts(&pa.locals, &lb)) {
                p.0 = p.0.max(q.0);
                p.1 = p.1.max(q.1);
            }
        }
    }
    Some(parts)
}
