//! Feature-by-feature comparison of a decoded model with the canonical one, under the
//! bounds the encoder reported.

use meshfmt_core::glam::{Vec2, Vec3, Vec4};
use meshfmt_core::{Feature, Loss, LossKind, Model, Surface};

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
    /// Came back within the reported quantization bound (the worst error seen).
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
    let Some(err) = err else {
        return Outcome::Mismatch("different lengths".into());
    };
    if err == 0.0 {
        return Outcome::Exact;
    }
    // Chained conversions quantize more than once: the errors add up, so do the bounds.
    let bounds: Vec<f32> = losses
        .iter()
        .filter_map(|l| match l.kind {
            LossKind::Quantized { max_error } if l.feature == feature => Some(max_error),
            _ => None,
        })
        .collect();
    let bound = (!bounds.is_empty()).then(|| bounds.iter().sum::<f32>());
    match bound {
        Some(b) if err <= b => Outcome::WithinBound {
            bound: b,
            worst: err,
        },
        Some(b) => Outcome::Mismatch(format!("error {err:e} > reported bound {b:e}")),
        None if err <= ROUNDING * magnitude.max(1.0) => Outcome::Rounding { worst: err },
        None => Outcome::Mismatch(format!("error {err:e} but no quantization reported")),
    }
}

fn names(m: &Model) -> Vec<String> {
    let mut v = vec![m.name.clone()];
    v.extend(m.surfaces.iter().map(|s| s.name.clone()));
    v.extend(m.skeleton.bones.iter().map(|b| b.name.clone()));
    v.extend(m.animations.iter().map(|a| a.name.clone()));
    v
}

/// Compares every feature; `decoded` must already be in `canonical`'s frame.
pub fn compare(canonical: &Model, decoded: &Model, losses: &[Loss]) -> Vec<(Feature, Outcome)> {
    Feature::ALL
        .iter()
        .map(|&f| {
            let lost = losses.iter().find(|l| {
                l.feature == f && matches!(l.kind, LossKind::Dropped | LossKind::Reduced)
            });
            let present = match f {
                Feature::Geometry => canonical.vertex_count() > 0,
                Feature::Normals => canonical.surfaces.iter().any(|s| !s.normals.is_empty()),
                Feature::Tangents => canonical.surfaces.iter().any(|s| !s.tangents.is_empty()),
                Feature::Uv0 => canonical.surfaces.iter().any(|s| !s.uv0.is_empty()),
                Feature::Uv1 => canonical.surfaces.iter().any(|s| !s.uv1.is_empty()),
                Feature::Colors => canonical.surfaces.iter().any(|s| !s.colors.is_empty()),
                Feature::Skin => canonical.surfaces.iter().any(|s| !s.skin.is_empty()),
                Feature::Skeleton => !canonical.skeleton.is_empty(),
                Feature::Animation => !canonical.animations.is_empty(),
                Feature::MorphTargets => canonical
                    .surfaces
                    .iter()
                    .any(|s| !s.morph_targets.is_empty()),
                Feature::Materials => !canonical.materials.is_empty(),
                Feature::Textures => !canonical.textures.is_empty(),
                Feature::Names => names(canonical).iter().any(|n| !n.is_empty()),
                _ => false,
            };
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
                Feature::Skeleton => eq(canonical.skeleton == decoded.skeleton),
                Feature::Animation => numeric(f, animation_error(canonical, decoded), losses),
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
                Feature::Names => eq(names(canonical) == names(decoded)),
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

/// Worst weight difference per corner; `None` when the joints differ.
fn skin_error(a: &Model, b: &Model) -> Option<f32> {
    let (sa, sb) = (flat(a, |s| &s.skin), flat(b, |s| &s.skin));
    if sa.len() != sb.len() {
        return None;
    }
    let mut worst = 0.0f32;
    for (x, y) in sa.iter().zip(&sb) {
        let mut px: Vec<(u32, f32)> = x.pairs().collect();
        let mut py: Vec<(u32, f32)> = y.pairs().collect();
        px.sort_by_key(|p| p.0);
        py.sort_by_key(|p| p.0);
        if px.len() != py.len() || px.iter().zip(&py).any(|(p, q)| p.0 != q.0) {
            return None;
        }
        for (p, q) in px.iter().zip(&py) {
            worst = worst.max((p.1 - q.1).abs());
        }
    }
    Some(worst)
}

/// Worst difference between the clips' poses, sampled at every key time of either (the
/// decoded clip may hold the same motion at another key rate); `None` when the clip or
/// bone counts differ.
fn animation_error(a: &Model, b: &Model) -> Option<f32> {
    if a.animations.len() != b.animations.len() {
        return None;
    }
    let mut worst = 0.0f32;
    for (ca, cb) in a.animations.iter().zip(&b.animations) {
        // Formats may store every bone every frame (ms08) or only animated ones: the
        // sampled poses of all bones are what must agree. Names are Feature::Names.
        if a.skeleton.len() != b.skeleton.len() {
            return None;
        }
        let mut times: Vec<f32> = Vec::new();
        for c in ca.channels.iter().chain(&cb.channels) {
            times.extend(&c.translation.times);
            times.extend(&c.rotation.times);
            times.extend(&c.scale.times);
        }
        for t in times {
            let (pa, pb) = (ca.sample(&a.skeleton, t), cb.sample(&b.skeleton, t));
            for (x, y) in pa.locals.iter().zip(&pb.locals) {
                worst = worst.max((x.translation - y.translation).abs().max_element());
                worst = worst.max((x.scale - y.scale).abs().max_element());
                let q = if x.rotation.dot(y.rotation) < 0.0 {
                    -y.rotation
                } else {
                    y.rotation
                };
                worst = worst.max(Vec4::from(x.rotation - q).abs().max_element());
            }
        }
    }
    Some(worst)
}
