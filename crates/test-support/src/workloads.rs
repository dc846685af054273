//! Generated workloads for the benchmarks (the crates' divan benches and `cargo xtask
//! bench`): a height-field grid of a million triangles, a long skeletal clip, and the
//! sample files of one folder read into memory. Generated, never stored.

use std::f32::consts::TAU;
use std::path::{Path, PathBuf};

use meshfmt_core::glam::{Quat, Vec2, Vec3};
use meshfmt_core::{
    Bone, Channel, Clip, CoordinateSystem, Model, Skeleton, Surface, Track, Transform,
};

/// The triangle count of the benchmarks' generated model.
pub const MILLION: u32 = 1_000_000;

/// Vertices per grid row: 708 x 708 vertices make 999,698 triangles, one more row
/// passes a million.
const GRID_WIDTH: u32 = 708;

/// A grid of exactly `triangles` triangles (the last row is cut short) over the XZ
/// plane, height `y = 0.1 sin(3x) cos(2z)`, with analytic normals and UVs across the
/// grid, in glTF axes: one surface, 32-bit indices once past 65,536 vertices.
///
/// ```
/// let m = test_support::workloads::grid(1000);
/// assert_eq!(m.triangle_count(), 1000);
/// assert!(meshfmt_core::validate(&m).is_empty());
/// ```
pub fn grid(triangles: u32) -> Model {
    let w = GRID_WIDTH;
    let rows = triangles.div_ceil(2 * (w - 1)); // quad rows
    let mut s = Surface {
        name: "grid".into(),
        ..Surface::default()
    };
    let n = ((rows + 1) * w) as usize;
    s.positions.reserve(n);
    s.normals.reserve(n);
    s.uv0.reserve(n);
    for j in 0..=rows {
        for i in 0..w {
            let (x, z) = (i as f32 * 0.01, j as f32 * 0.01);
            s.positions
                .push(Vec3::new(x, 0.1 * (3.0 * x).sin() * (2.0 * z).cos(), z));
            // y = f(x, z): normal = (-df/dx, 1, -df/dz), normalized.
            let dx = 0.3 * (3.0 * x).cos() * (2.0 * z).cos();
            let dz = -0.2 * (3.0 * x).sin() * (2.0 * z).sin();
            s.normals.push(Vec3::new(-dx, 1.0, -dz).normalize());
            s.uv0.push(Vec2::new(
                i as f32 / (w - 1) as f32,
                j as f32 / rows.max(1) as f32,
            ));
        }
    }
    s.indices.reserve(3 * triangles as usize);
    'rows: for j in 0..rows {
        for i in 0..w - 1 {
            let a = j * w + i;
            // Counter-clockwise seen from +Y.
            for t in [[a, a + w, a + 1], [a + 1, a + w, a + w + 1]] {
                if s.indices.len() == 3 * triangles as usize {
                    break 'rows;
                }
                s.indices.extend(t);
            }
        }
    }
    // Vertices past the last triangle's rows are not referenced: drop them.
    let used = s.indices.iter().max().map_or(0, |&m| m as usize + 1);
    s.positions.truncate(used);
    s.normals.truncate(used);
    s.uv0.truncate(used);
    Model {
        name: "grid".into(),
        coordinate_system: CoordinateSystem::GLTF,
        surfaces: vec![s],
        ..Model::default()
    }
}

/// A chain of `bones` bones (each 0.1 along +Y from its parent) and one clip, `wave`,
/// keying every bone's rotation and translation at `frames` frames of 30 fps: the
/// animation formats' workload (they hold no triangles).
///
/// ```
/// let m = test_support::workloads::animated_chain(4, 10);
/// assert_eq!(m.animations[0].channels.len(), 4);
/// assert!(meshfmt_core::validate(&m).is_empty());
/// ```
pub fn animated_chain(bones: usize, frames: usize) -> Model {
    let skeleton = Skeleton {
        bones: (0..bones)
            .map(|b| Bone {
                name: format!("bone{b:03}"),
                parent: b.checked_sub(1),
                rest: Transform {
                    translation: if b == 0 {
                        Vec3::ZERO
                    } else {
                        Vec3::new(0.0, 0.1, 0.0)
                    },
                    ..Transform::IDENTITY
                },
                inverse_bind: None,
            })
            .collect(),
    };
    let channels = (0..bones)
        .map(|b| {
            let phase = b as f32 * 0.3;
            let times = (0..frames).map(|f| f as f32 / 30.0);
            Channel {
                bone: b,
                translation: Track::from_keys(times.clone().map(|t| {
                    let y = if b == 0 { 0.0 } else { 0.1 };
                    (t, Vec3::new(0.01 * (TAU * t + phase).sin(), y, 0.0))
                })),
                rotation: Track::from_keys(
                    times.map(|t| (t, Quat::from_rotation_z(0.3 * (TAU * t + phase).sin()))),
                ),
                scale: Track::default(),
            }
        })
        .collect();
    Model {
        name: "chain".into(),
        coordinate_system: CoordinateSystem::GLTF,
        skeleton,
        animations: vec![Clip {
            events: Vec::new(),
            name: "wave".into(),
            channels,
        }],
        ..Model::default()
    }
}

/// One sample file read into memory.
#[derive(Debug, Clone)]
pub struct Sample {
    /// Where it was read from.
    pub path: PathBuf,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// Every file below `samples folder/sub` with one of `extensions` for which `keep`
/// holds, read into memory, sorted by path; `None` (after printing a notice naming
/// `what`) when the samples folder is absent, so a bench skips it visibly. Benches never
/// fail for missing samples, whatever `MESHFMT_REQUIRE_SAMPLES` says.
pub fn samples(
    sub: &str,
    extensions: &[&str],
    what: &str,
    keep: impl Fn(&Path, &[u8]) -> bool,
) -> Option<Vec<Sample>> {
    let dir = crate::samples_location().join(sub);
    if !dir.is_dir() {
        eprintln!(
            "NOTICE: {what}: no samples at {} (set MESHFMT_SAMPLES or put shared/ beside \
             the workspace): skipped",
            dir.display()
        );
        return None;
    }
    Some(
        crate::files_under(&dir, extensions)
            .into_iter()
            .filter_map(|path| {
                let bytes = std::fs::read(&path).ok()?;
                keep(&path, &bytes).then_some(Sample { path, bytes })
            })
            .collect(),
    )
}

/// The bytes of every sample together.
pub fn total_bytes(samples: &[Sample]) -> usize {
    samples.iter().map(|s| s.bytes.len()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_has_exactly_the_triangles_asked() {
        for n in [1, 2, 1413, 1414, 1415, 20_000] {
            let m = grid(n);
            assert_eq!(m.triangle_count(), n as usize, "{n}");
            assert!(meshfmt_core::validate(&m).is_empty(), "{n}");
        }
    }

    #[test]
    fn chain_is_valid() {
        let m = animated_chain(8, 30);
        assert!(meshfmt_core::validate(&m).is_empty());
        assert_eq!(m.skeleton.bones.len(), 8);
    }
}
