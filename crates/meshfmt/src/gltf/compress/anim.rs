//! Animations: tracks that hold one value (within gltfpack's tolerances: 0.1 mm scaled
//! by nothing, 0.1 degree, 0.1 %) become one key, those holding the node's rest value
//! go, and keys take their compressed forms (rotations 16-bit normalized, or meshopt's
//! quaternion filter; translations and scales meshopt's exponential filter).

use gltf_json as json;
use json::accessor::{ComponentType, Type};
use json::animation::{Interpolation, Property};
use json::validation::Checked::Valid;
use meshfmt_core::Feature;
use meshfmt_core::glam::Quat;

use super::read::raw;
use super::{Data, Filter, Kind, State};
use crate::error::CliError;
use meshfmt_core::quantize::{Rounding, snorm16};

const TRANSLATION_TOLERANCE: f32 = 1e-4;
const ROTATION_TOLERANCE_RAD: f32 = 0.1 * std::f32::consts::PI / 180.0;
const SCALE_TOLERANCE: f32 = 1e-3;

fn delta(a: &[f32], b: &[f32], property: Property) -> f32 {
    match property {
        Property::Rotation => {
            let d: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
            2.0 * d.abs().min(1.0).acos()
        }
        Property::Scale => a
            .iter()
            .zip(b)
            .map(|(x, y)| {
                if *y == 0.0 {
                    (x - y).abs()
                } else {
                    (x / y - 1.0).abs()
                }
            })
            .fold(0.0, f32::max),
        _ => a
            .iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max),
    }
}

fn tolerance(property: Property) -> f32 {
    match property {
        Property::Rotation => ROTATION_TOLERANCE_RAD,
        Property::Scale => SCALE_TOLERANCE,
        Property::Translation => TRANSLATION_TOLERANCE,
        Property::MorphTargetWeights => 1e-3,
    }
}

/// Rewrites every animation's samplers.
pub(crate) fn animations(s: &mut State<'_>) -> Result<(), CliError> {
    // Clip events (our extras) are not needed to play the clips (gltfpack drops extras).
    if !s.c.keep {
        let mut events = 0;
        for a in &mut s.root.animations {
            if a.extras.take().is_some() {
                events += 1;
            }
        }
        if events > 0 {
            s.dropped.push(meshfmt_core::Loss {
                feature: Feature::Animation,
                kind: meshfmt_core::LossKind::Dropped,
                path: String::new(),
                reason: format!(
                    "the clip events of {events} animations: not needed to play them (--quality meshopt-keep keeps them)"
                ),
            });
        }
    }
    for a in 0..s.root.animations.len() {
        let mut keep = Vec::new();
        let channels = s.root.animations[a].channels.clone();
        for ch in &channels {
            let Valid(property) = ch.target.path else {
                keep.push(true);
                continue;
            };
            let sampler = ch.sampler.value();
            let Some(smp) = s.root.animations[a].samplers.get(sampler).cloned() else {
                keep.push(true);
                continue;
            };
            let input = raw(&s.root, s.bin, smp.input.value())?;
            let output = raw(&s.root, s.bin, smp.output.value())?;
            let times = input.floats();
            let n = match property {
                Property::Rotation => 4,
                Property::MorphTargetWeights => (output.count / times.len().max(1)).max(1),
                _ => 3,
            };
            let values = output.floats();
            let cubic = smp.interpolation == Valid(Interpolation::CubicSpline);
            let keys = times.len();
            let mut out_values = values.clone();
            let mut out_times = times.clone();
            let mut drop = false;
            if !cubic && keys >= 1 && values.len() == keys * n {
                let first = &values[..n];
                let tol = tolerance(property);
                let deviation = values
                    .chunks_exact(n)
                    .map(|v| delta(v, first, property))
                    .fold(0.0f32, f32::max);
                if deviation <= tol {
                    out_values.truncate(n);
                    out_times.truncate(1);
                    // The node's rest value: the track changes nothing.
                    if let Some(node) = s.root.nodes.get(ch.target.node.value()) {
                        let rest: Option<Vec<f32>> = match property {
                            Property::Translation => {
                                Some(node.translation.unwrap_or([0.0; 3]).to_vec())
                            }
                            Property::Rotation => {
                                Some(node.rotation.map_or([0.0, 0.0, 0.0, 1.0], |q| q.0).to_vec())
                            }
                            Property::Scale => Some(node.scale.unwrap_or([1.0; 3]).to_vec()),
                            Property::MorphTargetWeights => None,
                        };
                        if node.matrix.is_none() {
                            drop = rest.is_some_and(|r| delta(first, &r, property) <= tol);
                        }
                    }
                    let (what, how) = match property {
                        Property::Translation => ("tracks holding one translation", "metres"),
                        Property::Rotation => ("tracks holding one rotation", "radians"),
                        Property::Scale => ("tracks holding one scale", "ratio"),
                        Property::MorphTargetWeights => ("tracks holding one weight", "weight"),
                    };
                    s.errors.note(
                        Feature::Animation,
                        what,
                        tol,
                        deviation,
                        format!("collapsed to their first key (dropped where that is the node's rest value), {how}"),
                    );
                }
            }
            keep.push(!drop);
            // Times: the floats as written (shared by identical tracks after dedup).
            let mut td = Data::floats(&out_times, Type::Scalar);
            td.bounds = out_times
                .first()
                .zip(out_times.last())
                .map(|(lo, hi)| (vec![*lo], vec![*hi]));
            // A sampler used by two channels gets its data twice, identically.
            s.data[smp.input.value()] = Some(td);
            let count = out_values.len() / n;
            let od = match property {
                Property::Rotation if output.component == ComponentType::F32 => {
                    rotations(s, &out_values, count)
                }
                Property::Translation | Property::Scale
                    if s.c.meshopt && output.component == ComponentType::F32 =>
                {
                    exponential(s, &out_values, count, property)
                }
                _ => Data::floats(&out_values, output.ty),
            };
            s.data[smp.output.value()] = Some(od);
        }
        // Channels whose tracks change nothing go (one stays: an animation needs one).
        if keep.iter().all(|k| !k) {
            if let Some(first) = keep.first_mut() {
                *first = true;
            }
        }
        let anim = &mut s.root.animations[a];
        let mut k = keep.iter();
        anim.channels.retain(|_| *k.next().unwrap_or(&true));
        // Samplers no channel uses go, and the channels' indices follow.
        let mut used = vec![false; anim.samplers.len()];
        for ch in &anim.channels {
            if let Some(u) = used.get_mut(ch.sampler.value()) {
                *u = true;
            }
        }
        let mut new_index = Vec::with_capacity(used.len());
        let mut next = 0u32;
        for &u in &used {
            new_index.push(next);
            next += u32::from(u);
        }
        let mut i = 0;
        anim.samplers.retain(|_| {
            let u = used[i];
            i += 1;
            u
        });
        for ch in &mut anim.channels {
            let old = ch.sampler.value();
            ch.sampler = json::Index::new(new_index.get(old).copied().unwrap_or(0));
        }
    }
    Ok(())
}

fn rotations(s: &mut State<'_>, v: &[f32], count: usize) -> Data {
    let mut worst = 0.0f32;
    let unit: Vec<f32> = v
        .chunks_exact(4)
        .flat_map(|q| {
            let q = Quat::from_slice(q);
            let q = if q.is_finite() && q.length_squared() > 0.0 {
                q.normalize()
            } else {
                Quat::IDENTITY
            };
            q.to_array()
        })
        .collect();
    let angle = |a: &[f32], b: [f32; 4]| {
        let len = b.iter().map(|x| x * x).sum::<f32>().sqrt();
        let d: f32 = a.iter().zip(b).map(|(x, y)| x * y / len).sum();
        2.0 * d.abs().min(1.0).acos()
    };
    let stored = |bytes: Vec<u8>, filter: Filter| {
        let mut d = Data::new(
            bytes,
            count,
            ComponentType::I16,
            Type::Vec4,
            true,
            8,
            Kind::Plain,
        );
        d.filter = filter;
        d
    };
    if s.c.meshopt {
        let bits = s.c.rotation_bits.clamp(4, 16);
        if let Ok(bytes) = meshfmt_meshopt::encode_filter_quat(&unit, count, 8, bits) {
            let mut decoded = bytes.clone();
            if meshfmt_meshopt::decode_filter_quat(&mut decoded, count, 8).is_ok() {
                for (e, o) in decoded.chunks_exact(8).zip(unit.chunks_exact(4)) {
                    let q = [0, 1, 2, 3]
                        .map(|k| f32::from(i16::from_le_bytes([e[2 * k], e[2 * k + 1]])) / 32767.0);
                    worst = worst.max(angle(o, q));
                }
            }
            // Three components of `bits` bits over [-1/sqrt2, 1/sqrt2], the fourth
            // derived: each off by half a step, the rotation by at most twice that.
            let half = std::f32::consts::FRAC_1_SQRT_2 / ((1i32 << (bits - 1)) - 1) as f32;
            s.errors.note(
                Feature::Animation,
                "rotation keys",
                4.0 * 3f32.sqrt() * half,
                worst,
                format!("{bits}-bit quaternion filter (meshopt), radians"),
            );
            return stored(bytes, Filter::Quaternion);
        }
    }
    let mut bytes = Vec::with_capacity(count * 8);
    for q in unit.chunks_exact(4) {
        let c = [0, 1, 2, 3].map(|k| snorm16::encode(q[k], Rounding::Nearest));
        worst = worst.max(angle(q, c.map(snorm16::decode)));
        for x in c {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
    }
    s.errors.note(
        Feature::Animation,
        "rotation keys",
        4.0 * 0.5 / 32767.0 * 2.0,
        worst,
        "16-bit normalized, radians".into(),
    );
    stored(bytes, Filter::None)
}

fn exponential(s: &mut State<'_>, v: &[f32], count: usize, property: Property) -> Data {
    let bits = s.c.translation_bits.clamp(1, 24);
    let what = if property == Property::Translation {
        "translation keys"
    } else {
        "scale keys"
    };
    let Ok(bytes) = meshfmt_meshopt::encode_filter_exp(
        v,
        count,
        12,
        bits,
        meshfmt_meshopt::ExpMode::SharedVector,
    ) else {
        return Data::floats(v, Type::Vec3);
    };
    let mut decoded = bytes.clone();
    let mut worst = 0.0f32;
    let mut bound = 0.0f32;
    if meshfmt_meshopt::decode_filter_exp(&mut decoded, count, 12).is_ok() {
        for (e, o) in decoded.chunks_exact(12).zip(v.chunks_exact(3)) {
            let largest = o.iter().fold(0.0f32, |m, x| m.max(x.abs()));
            // A shared exponent: each component within half a unit of the largest's
            // `bits`-bit mantissa.
            bound = bound.max(largest / (1u32 << (bits - 1)) as f32);
            for k in 0..3 {
                let d = f32::from_le_bytes([e[4 * k], e[4 * k + 1], e[4 * k + 2], e[4 * k + 3]]);
                worst = worst.max((d - o[k]).abs());
            }
        }
    }
    s.errors.note(
        Feature::Animation,
        what,
        bound,
        worst,
        format!("exponential filter (meshopt), {bits}-bit mantissas shared per key"),
    );
    let mut d = Data::new(
        bytes,
        count,
        ComponentType::F32,
        Type::Vec3,
        false,
        12,
        Kind::Plain,
    );
    d.filter = Filter::Exponential;
    d
}
