//! Model validation that reports every problem with its path.

use std::fmt;

use crate::model::Model;

/// One thing wrong with a model, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Path such as `surfaces[2].indices[7]` or `skeleton.bones[3].parent`.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// `path: message`, or the message alone for a problem of the whole file (no path).
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// The problems a format crate's `problems()` finds in its faithful type: each check
/// adds what it found under a path, and nothing stops at the first.
///
/// ```
/// use meshfmt_core::Problems;
/// let mut p = Problems::default();
/// p.check("bones", Err::<(), _>("bone 3's parent 7 is out of range"));
/// p.check("animations[0]", Ok::<(), String>(()));
/// p.push("animations[1]", "rotation component -32768");
/// let list = p.into_vec();
/// assert_eq!(list.len(), 2);
/// assert_eq!(list[0].to_string(), "bones: bone 3's parent 7 is out of range");
/// ```
#[derive(Debug, Clone, Default)]
pub struct Problems(Vec<Problem>);

impl Problems {
    /// Adds a problem at `path`.
    pub fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(Problem {
            path: path.into(),
            message: message.into(),
        });
    }

    /// Adds the error of `result`, if any, at `path`.
    pub fn check<E: fmt::Display>(&mut self, path: impl Into<String>, result: Result<(), E>) {
        if let Err(e) = result {
            self.push(path, e.to_string());
        }
    }

    /// The problems found, in order.
    pub fn into_vec(self) -> Vec<Problem> {
        self.0
    }

    /// `Ok` when none was found, else the first as an error made by `error` from its
    /// text (`path: message`): what a writer that refuses an invalid file returns.
    pub fn first<E>(problems: Vec<Problem>, error: impl FnOnce(String) -> E) -> Result<(), E> {
        match problems.into_iter().next() {
            None => Ok(()),
            Some(p) => Err(error(p.to_string())),
        }
    }
}

/// Most problems reported per array before the rest are summarized in one line, so a
/// million bad indices make a readable report.
pub const MAX_PER_ARRAY: usize = 20;

/// Tolerance on "weights sum to 1".
pub const WEIGHT_SUM_TOLERANCE: f32 = 1e-3;

struct Report {
    problems: Vec<Problem>,
}

impl Report {
    fn push(&mut self, path: String, message: String) {
        self.problems.push(Problem { path, message });
    }

    /// Reports `check` failures over `items` under `path[i]`, capped per array.
    fn each<T>(&mut self, path: &str, items: &[T], mut check: impl FnMut(&T) -> Option<String>) {
        let mut count = 0usize;
        for (i, item) in items.iter().enumerate() {
            if let Some(message) = check(item) {
                if count < MAX_PER_ARRAY {
                    self.push(format!("{path}[{i}]"), message);
                }
                count += 1;
            }
        }
        if count > MAX_PER_ARRAY {
            self.push(
                path.to_string(),
                format!("{} more problems like the above", count - MAX_PER_ARRAY),
            );
        }
    }

    fn length(&mut self, path: String, len: usize, expected: usize) {
        if len != 0 && len != expected {
            self.push(
                path,
                format!("has {len} entries but the surface has {expected} vertices"),
            );
        }
    }
}

fn non_finite(values: &[f32]) -> Option<String> {
    values
        .iter()
        .any(|v| !v.is_finite())
        .then(|| "value is NaN or infinite".to_string())
}

/// Checks a model and returns every problem found (empty when valid): attribute
/// lengths, indices out of range, NaN and infinite values, skin joints and weights,
/// material and texture references, bone parents (range and cycles), animation
/// channels and key times.
///
/// ```
/// use meshfmt_core::{glam::Vec3, validate, Model, Surface};
/// let model = Model {
///     surfaces: vec![Surface {
///         positions: vec![Vec3::ZERO, Vec3::X, Vec3::new(f32::NAN, 0.0, 0.0)],
///         indices: vec![0, 1, 5],
///         ..Default::default()
///     }],
///     ..Default::default()
/// };
/// let problems: Vec<String> = validate(&model).iter().map(|p| p.to_string()).collect();
/// assert_eq!(problems, [
///     "surfaces[0].positions[2]: value is NaN or infinite",
///     "surfaces[0].indices[2]: index 5 out of range (3 vertices)",
/// ]);
/// ```
pub fn validate(model: &Model) -> Vec<Problem> {
    let mut r = Report {
        problems: Vec::new(),
    };
    let bones = model.skeleton.bones.len();
    for (si, s) in model.surfaces.iter().enumerate() {
        r.surface(model, si, s);
    }
    r.bones(model);
    r.parent_cycles(model);
    r.animations(model, bones);
    r.materials_and_textures(model);
    r.problems
}

impl Report {
    /// Surface `si`: attribute lengths and values, indices, material, skin, morphs.
    fn surface(&mut self, model: &Model, si: usize, s: &crate::model::Surface) {
        let bones = model.skeleton.bones.len();
        let p = format!("surfaces[{si}]");
        let n = s.positions.len();
        self.each(&format!("{p}.positions"), &s.positions, |v| {
            non_finite(&v.to_array())
        });
        self.length(format!("{p}.normals"), s.normals.len(), n);
        self.each(&format!("{p}.normals"), &s.normals, |v| {
            non_finite(&v.to_array())
        });
        self.length(format!("{p}.tangents"), s.tangents.len(), n);
        self.each(&format!("{p}.tangents"), &s.tangents, |v| {
            non_finite(&v.to_array())
        });
        self.length(format!("{p}.uv0"), s.uv0.len(), n);
        self.each(&format!("{p}.uv0"), &s.uv0, |v| non_finite(&v.to_array()));
        self.length(format!("{p}.uv1"), s.uv1.len(), n);
        self.each(&format!("{p}.uv1"), &s.uv1, |v| non_finite(&v.to_array()));
        self.length(format!("{p}.colors"), s.colors.len(), n);
        self.each(&format!("{p}.colors"), &s.colors, |v| {
            non_finite(&v.to_array())
        });
        if s.indices.len() % 3 != 0 {
            self.push(
                format!("{p}.indices"),
                format!("length {} is not a multiple of 3", s.indices.len()),
            );
        }
        self.each(&format!("{p}.indices"), &s.indices, |&i| {
            (i as usize >= n).then(|| format!("index {i} out of range ({n} vertices)"))
        });
        if let Some(m) = s.material {
            if m >= model.materials.len() {
                self.push(
                    format!("{p}.material"),
                    format!(
                        "material {m} out of range ({} materials)",
                        model.materials.len()
                    ),
                );
            }
        }
        self.length(format!("{p}.skin"), s.skin.len(), n);
        self.each(&format!("{p}.skin"), &s.skin, |inf| {
            let mut msgs = Vec::new();
            for (j, w) in inf.pairs() {
                if j as usize >= bones {
                    msgs.push(format!("joint {j} out of range ({bones} bones)"));
                }
                if !w.is_finite() || w < 0.0 {
                    msgs.push(format!("weight {w} is negative or not finite"));
                }
            }
            let sum = inf.weight_sum();
            if inf.count() > 0 && (sum - 1.0).abs() > WEIGHT_SUM_TOLERANCE {
                msgs.push(format!("weights sum to {sum}, not 1"));
            }
            (!msgs.is_empty()).then(|| msgs.join("; "))
        });
        for (mi, m) in s.morph_targets.iter().enumerate() {
            let mp = format!("{p}.morph_targets[{mi}]");
            if m.positions.len() != n {
                self.push(
                    format!("{mp}.positions"),
                    format!(
                        "has {} entries but the surface has {n} vertices",
                        m.positions.len()
                    ),
                );
            }
            self.length(format!("{mp}.normals"), m.normals.len(), n);
            self.each(&format!("{mp}.positions"), &m.positions, |v| {
                non_finite(&v.to_array())
            });
            self.each(&format!("{mp}.normals"), &m.normals, |v| {
                non_finite(&v.to_array())
            });
        }
    }

    /// Skeleton: parents in range and not self; finite transforms, unit rotations.
    fn bones(&mut self, model: &Model) {
        let bones = model.skeleton.bones.len();
        for (bi, b) in model.skeleton.bones.iter().enumerate() {
            let bp = format!("skeleton.bones[{bi}]");
            if let Some(parent) = b.parent {
                if parent >= bones {
                    self.push(
                        format!("{bp}.parent"),
                        format!("parent {parent} out of range ({bones} bones)"),
                    );
                } else if parent == bi {
                    self.push(format!("{bp}.parent"), "bone is its own parent".into());
                }
            }
            let t = &b.rest;
            let mut vals = t.translation.to_array().to_vec();
            vals.extend(t.rotation.to_array());
            vals.extend(t.scale.to_array());
            if let Some(m) = non_finite(&vals) {
                self.push(format!("{bp}.rest"), m);
            } else if (t.rotation.length() - 1.0).abs() > 1e-3 {
                self.push(
                    format!("{bp}.rest.rotation"),
                    format!("quaternion length {} is not 1", t.rotation.length()),
                );
            }
            if let Some(ib) = &b.inverse_bind {
                if let Some(m) = non_finite(&ib.to_cols_array()) {
                    self.push(format!("{bp}.inverse_bind"), m);
                }
            }
        }
    }

    /// Parent cycles, each reported once at its smallest member.
    fn parent_cycles(&mut self, model: &Model) {
        let bones = model.skeleton.bones.len();
        // Every bone is walked once (0 new, 1 on the walk in progress, 2 finished), so this is linear.
        let mut state = vec![0u8; bones];
        let mut walk = Vec::new();
        let mut cycles: Vec<Vec<usize>> = Vec::new();
        for start in 0..bones {
            walk.clear();
            let mut cur = start;
            while state[cur] == 0 {
                state[cur] = 1;
                walk.push(cur);
                match model.skeleton.bones[cur].parent {
                    Some(p) if p < bones && p != cur => cur = p,
                    _ => break,
                }
            }
            // Back on this walk: a cycle (a walk that just ended stops at its own last bone,
            // and a bone that is its own parent is not counted as one).
            if let Some(at) = walk.iter().position(|&b| b == cur) {
                if state[cur] == 1 && walk.len() - at > 1 {
                    let mut members = walk[at..].to_vec();
                    members.sort_unstable();
                    cycles.push(members);
                }
            }
            for &b in &walk {
                state[b] = 2;
            }
        }
        cycles.sort_unstable();
        for members in cycles {
            self.push(
                format!("skeleton.bones[{}].parent", members[0]),
                format!("parent cycle through bones {members:?}"),
            );
        }
    }

    /// Animation channels: bones in range, key counts, finite and ordered times.
    fn animations(&mut self, model: &Model, bones: usize) {
        for (ci, clip) in model.animations.iter().enumerate() {
            for (ei, e) in clip.events.iter().enumerate() {
                let ep = format!("animations[{ci}].events[{ei}]");
                if !(e.time.is_finite() && e.time >= 0.0) {
                    self.push(
                        format!("{ep}.time"),
                        format!("time {} is not a finite time from the start", e.time),
                    );
                }
                if let Some(b) = e.bone.filter(|&b| b >= bones) {
                    self.push(
                        format!("{ep}.bone"),
                        format!("bone {b} out of range ({bones} bones)"),
                    );
                }
            }
            for (chi, ch) in clip.channels.iter().enumerate() {
                let cp = format!("animations[{ci}].channels[{chi}]");
                if ch.bone >= bones {
                    self.push(
                        format!("{cp}.bone"),
                        format!("bone {} out of range ({bones} bones)", ch.bone),
                    );
                }
                let tracks: [(&str, &[f32], usize, Vec<f32>); 3] = [
                    (
                        "translation",
                        &ch.translation.times,
                        ch.translation.values.len(),
                        ch.translation
                            .values
                            .iter()
                            .flat_map(|v| v.to_array())
                            .collect(),
                    ),
                    (
                        "rotation",
                        &ch.rotation.times,
                        ch.rotation.values.len(),
                        ch.rotation
                            .values
                            .iter()
                            .flat_map(|v| v.to_array())
                            .collect(),
                    ),
                    (
                        "scale",
                        &ch.scale.times,
                        ch.scale.values.len(),
                        ch.scale.values.iter().flat_map(|v| v.to_array()).collect(),
                    ),
                ];
                for (name, times, nvalues, flat) in tracks {
                    let tp = format!("{cp}.{name}");
                    if times.len() != nvalues {
                        self.push(
                            tp.clone(),
                            format!("{} times but {nvalues} values", times.len()),
                        );
                    }
                    if let Some(m) = non_finite(times) {
                        self.push(format!("{tp}.times"), m);
                    } else if let Some(i) = times.windows(2).position(|w| w[1] < w[0]) {
                        self.push(
                            format!("{tp}.times[{}]", i + 1),
                            format!("time {} is before {}", times[i + 1], times[i]),
                        );
                    }
                    if let Some(m) = non_finite(&flat) {
                        self.push(format!("{tp}.values"), m);
                    }
                }
            }
        }
    }

    /// Material texture references in range; embedded pixel sizes.
    fn materials_and_textures(&mut self, model: &Model) {
        for (mi, m) in model.materials.iter().enumerate() {
            for (ti, t) in m.textures.iter().enumerate() {
                if t.texture >= model.textures.len() {
                    self.push(
                        format!("materials[{mi}].textures[{ti}]"),
                        format!(
                            "texture {} out of range ({} textures)",
                            t.texture,
                            model.textures.len()
                        ),
                    );
                }
            }
        }
        for (ti, t) in model.textures.iter().enumerate() {
            if let crate::material::TextureSource::Embedded(img) = &t.source {
                let expected = u64::from(img.width)
                    .saturating_mul(u64::from(img.height))
                    .saturating_mul(4);
                if img.pixels.len() as u64 != expected {
                    self.push(
                        format!("textures[{ti}].pixels"),
                        format!(
                            "{} bytes for a {}x{} RGBA image ({expected} expected)",
                            img.pixels.len(),
                            img.width,
                            img.height
                        ),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "tests/validate.rs"]
mod tests;
