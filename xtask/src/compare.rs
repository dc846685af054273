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
    /// Came back within the reported quantization bound (the worst error seen).
    WithinBound { bound: f32, worst: f32 },
    /// Reported as dropped or reduced by the encoder.
    Lost(String),
    /// Came back different without a loss that explains it: a bug.
    Mismatch(String),
}

impl Outcome {
    pub fn cell(&self) -> String {
        match self {
            Outcome::Absent => "-".into(),
            Outcome::Exact => "exact".into(),
            Outcome::WithinBound { bound, .. } => format!("<= {bound:.1e}"),
            Outcome::Lost(k) => k.clone(),
            Outcome::Mismatch(m) => format!("MISMATCH: {m}"),
        }
    }

    pub fn is_failure(&self) -> bool {
        matches!(self, Outcome::Mismatch(_))
    }
}

fn flat<T: Clone>(m: &Model, f: impl Fn(&Surface) -> &Vec<T>) -> Vec<T> {
    m.surfaces.iter().flat_map(|s| f(s).clone()).collect()
}

fn indices(m: &Model) -> Vec<u32> {
    let mut out = Vec::new();
    let mut base = 0u32;
    for s in &m.surfaces {
        out.extend(s.indices.iter().map(|i| i + base));
        base += s.positions.len() as u32;
    }
    out
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

fn numeric(feature: Feature, err: Option<f32>, losses: &[Loss]) -> Outcome {
    let Some(err) = err else {
        return Outcome::Mismatch("different lengths".into());
    };
    if err == 0.0 {
        return Outcome::Exact;
    }
    let bound = losses.iter().find_map(|l| match l.kind {
        LossKind::Quantized { max_error } if l.feature == feature => Some(max_error),
        _ => None,
    });
    match bound {
        Some(b) if err <= b => Outcome::WithinBound {
            bound: b,
            worst: err,
        },
        Some(b) => Outcome::Mismatch(format!("error {err:e} > reported bound {b:e}")),
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
                    if indices(canonical) != indices(decoded) {
                        Outcome::Mismatch("triangles differ".into())
                    } else {
                        let e = worst(
                            &arr3(&flat(canonical, |s| &s.positions)),
                            &arr3(&flat(decoded, |s| &s.positions)),
                        );
                        numeric(f, e, losses)
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
                Feature::Skin => eq(flat(canonical, |s| &s.skin) == flat(decoded, |s| &s.skin)),
                Feature::Skeleton => eq(canonical.skeleton == decoded.skeleton),
                Feature::Animation => eq(canonical.animations == decoded.animations),
                Feature::MorphTargets => eq(
                    flat(canonical, |s| &s.morph_targets) == flat(decoded, |s| &s.morph_targets)
                ),
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
