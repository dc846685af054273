//! Canonical models (feature `canonical`): small, fully known models for testing
//! converters and pipelines. meshfmt generates its fixtures from them and checks every
//! format's conversions against them. Every value is written by hand or computed by a
//! formula in this file, never taken from a decoder's output.
//!
//! ```
//! use meshfmt_core::{canonical, validate};
//! for c in canonical::ALL {
//!     assert!(validate(&(c.build)()).is_empty(), "{}", c.name);
//! }
//! ```

use std::f32::consts::{FRAC_PI_2, TAU};

use glam::{Quat, Vec2, Vec3, Vec4};

use crate::{
    Bone, Channel, Clip, CoordinateSystem, Material, Model, MorphKind, MorphTarget, RgbaImage,
    Skeleton, Surface, Texture, TextureBinding, TextureRole, TextureSource, Track, Transform,
    VertexInfluences,
};

/// A named canonical model.
pub struct Canonical {
    /// File stem for fixtures (`cube`, `skinned_arm`, ...).
    pub name: &'static str,
    /// What it exercises.
    pub description: &'static str,
    /// True when it is too large to store a full dump or binary fixture.
    pub large: bool,
    /// Builds the model.
    pub build: fn() -> Model,
}

/// Every canonical model, in report order.
pub const ALL: &[Canonical] = &[
    Canonical {
        name: "cube",
        description: "static cube: 24 vertices, normals, tangents, UV0, one material",
        large: false,
        build: cube,
    },
    Canonical {
        name: "multi_surface",
        description: "three surfaces, two UV sets, vertex colors, two materials with textures",
        large: false,
        build: multi_surface,
    },
    Canonical {
        name: "skinned_arm",
        description: "two-bone arm, 2 weights per vertex at the elbow, one 3-key bend clip",
        large: false,
        build: skinned_arm,
    },
    Canonical {
        name: "skinned_arm3",
        description: "three-bone arm, up to 3 influences per vertex, two clips (bend, wave)",
        large: false,
        build: skinned_arm3,
    },
    Canonical {
        name: "morph",
        description: "3x3 grid with one delta morph target",
        large: false,
        build: morph,
    },
    Canonical {
        name: "degenerate",
        description: "empty surface, single triangle, zero-length names",
        large: false,
        build: degenerate,
    },
    Canonical {
        name: "big_surface",
        description: "one surface of 256x257 = 65,792 vertices (needs 32-bit indices)",
        large: true,
        build: big_surface,
    },
];

/// Looks a canonical model up by name.
pub fn by_name(name: &str) -> Option<&'static Canonical> {
    ALL.iter().find(|c| c.name == name)
}

/// Unit cube centred on the origin (half-size 0.5), 4 vertices per face so normals,
/// tangents and UVs are flat per face; counter-clockwise front faces outward.
pub fn cube() -> Model {
    // (normal, tangent) per face; bitangent = normal x tangent (handedness +1).
    let faces = [
        (Vec3::X, -Vec3::Z),
        (-Vec3::X, Vec3::Z),
        (Vec3::Y, Vec3::X),
        (-Vec3::Y, Vec3::X),
        (Vec3::Z, Vec3::X),
        (-Vec3::Z, -Vec3::X),
    ];
    let mut s = Surface {
        name: "cube".into(),
        material: Some(0),
        ..Default::default()
    };
    for (n, t) in faces {
        let b = n.cross(t);
        let base = s.positions.len() as u32;
        // Corners in (u, v) order: (0,0) (1,0) (1,1) (0,1).
        for (u, v) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
            let p = n * 0.5 + t * (u - 0.5) + b * (v - 0.5);
            s.positions.push(p);
            s.normals.push(n);
            s.tangents.push(t.extend(1.0));
            s.uv0.push(Vec2::new(u, 1.0 - v));
        }
        s.indices
            .extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    Model {
        name: "cube".into(),
        coordinate_system: CoordinateSystem::GLTF,
        surfaces: vec![s],
        materials: vec![Material {
            name: "cube_red".into(),
            base_color: Vec4::new(0.8, 0.1, 0.1, 1.0),
            metallic: 0.0,
            roughness: 0.5,
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// Three surfaces: a colored quad with two UV sets, a hexagon fan, a strip of quads
/// with UV1 only on one surface; two textured materials.
pub fn multi_surface() -> Model {
    let quad = Surface {
        name: "quad".into(),
        positions: vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ],
        normals: vec![Vec3::Z; 4],
        uv0: vec![
            Vec2::new(0.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, 0.0),
        ],
        uv1: vec![
            Vec2::new(0.0, 0.5),
            Vec2::new(0.5, 0.5),
            Vec2::new(0.5, 0.0),
            Vec2::new(0.0, 0.0),
        ],
        colors: vec![
            Vec4::new(1.0, 0.0, 0.0, 1.0),
            Vec4::new(0.0, 1.0, 0.0, 1.0),
            Vec4::new(0.0, 0.0, 1.0, 1.0),
            Vec4::new(1.0, 1.0, 1.0, 0.5),
        ],
        indices: vec![0, 1, 2, 0, 2, 3],
        material: Some(0),
        ..Default::default()
    };
    // Hexagon in the z = 1 plane: centre then 6 rim vertices.
    let mut hex = Surface {
        name: "hexagon".into(),
        material: Some(1),
        ..Default::default()
    };
    hex.positions.push(Vec3::new(0.0, 0.0, 1.0));
    hex.uv0.push(Vec2::splat(0.5));
    for k in 0..6 {
        let a = k as f32 * TAU / 6.0;
        hex.positions.push(Vec3::new(a.cos(), a.sin(), 1.0));
        hex.uv0
            .push(Vec2::new(0.5 + 0.5 * a.cos(), 0.5 - 0.5 * a.sin()));
    }
    hex.normals = vec![Vec3::Z; 7];
    hex.uv1 = hex.uv0.iter().map(|uv| *uv * 0.25).collect();
    hex.colors = (0..7)
        .map(|k| Vec4::new(k as f32 / 6.0, 0.5, 1.0 - k as f32 / 6.0, 1.0))
        .collect();
    for k in 0..6u32 {
        hex.indices.extend([0, 1 + k, 1 + (k + 1) % 6]);
    }
    // Strip of 3 quads along +X at y = -1, facing +Z.
    let mut strip = Surface {
        name: "strip".into(),
        material: Some(0),
        ..Default::default()
    };
    for i in 0..4 {
        for j in 0..2 {
            strip
                .positions
                .push(Vec3::new(i as f32 * 0.5, -1.0 - j as f32 * 0.5, 0.0));
            strip.normals.push(Vec3::Z);
            strip.uv0.push(Vec2::new(i as f32 / 3.0, j as f32));
            strip.uv1.push(Vec2::new(i as f32 / 6.0, j as f32 / 2.0));
            strip
                .colors
                .push(Vec4::new(0.25 * i as f32, 0.5 * j as f32, 0.75, 1.0));
        }
    }
    for i in 0..3u32 {
        let a = 2 * i; // (i, 0)
        strip.indices.extend([a, a + 1, a + 3, a, a + 3, a + 2]);
    }
    Model {
        name: "multi_surface".into(),
        coordinate_system: CoordinateSystem::GLTF,
        surfaces: vec![quad, hex, strip],
        materials: vec![
            Material {
                name: "painted".into(),
                base_color: Vec4::ONE,
                metallic: 0.0,
                roughness: 0.8,
                textures: vec![TextureBinding {
                    role: TextureRole::BaseColor,
                    texture: 0,
                    uv_set: 0,
                }],
                ..Default::default()
            },
            Material {
                name: "glowing".into(),
                base_color: Vec4::new(0.2, 0.4, 0.9, 1.0),
                metallic: 0.25,
                roughness: 0.3,
                emissive: Vec3::new(0.1, 0.2, 0.5),
                textures: vec![
                    TextureBinding {
                        role: TextureRole::BaseColor,
                        texture: 1,
                        uv_set: 0,
                    },
                    TextureBinding {
                        role: TextureRole::Occlusion,
                        texture: 0,
                        uv_set: 1,
                    },
                ],
            },
        ],
        textures: vec![
            Texture {
                name: "checker".into(),
                source: TextureSource::Path("textures/checker.png".into()),
            },
            Texture {
                name: "gradient".into(),
                source: TextureSource::Embedded(RgbaImage {
                    width: 2,
                    height: 2,
                    pixels: vec![
                        255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255,
                    ],
                }),
            },
        ],
        ..Default::default()
    }
}

/// Two-bone arm along +X: `shoulder` at the origin, `elbow` at x = 1. A square tube
/// (side 0.2) with rings at x = 0, 0.5, 1, 1.5, 2; rings at x <= 0.5 follow the
/// shoulder, the ring at x = 1 is split 0.5/0.5, rings at x >= 1.5 follow the elbow.
/// Clip `bend` rotates the elbow about +Z by 0, 45 and 90 degrees at t = 0, 0.5, 1 s.
pub fn skinned_arm() -> Model {
    let rings = [0.0f32, 0.5, 1.0, 1.5, 2.0];
    let corners = [(-0.1f32, -0.1f32), (0.1, -0.1), (0.1, 0.1), (-0.1, 0.1)];
    let mut s = Surface {
        name: "arm".into(),
        ..Default::default()
    };
    for &x in &rings {
        for &(y, z) in &corners {
            s.positions.push(Vec3::new(x, y, z));
            s.normals.push(Vec3::new(0.0, y, z).normalize());
            s.uv0.push(Vec2::new(x / 2.0, 0.5 + y + z));
            s.skin.push(match x {
                x if x <= 0.5 => VertexInfluences::single(0),
                x if x >= 1.5 => VertexInfluences::single(1),
                _ => VertexInfluences::from_pairs([(0, 0.5), (1, 0.5)]),
            });
        }
    }
    for r in 0..rings.len() as u32 - 1 {
        for c in 0..4u32 {
            let a = r * 4 + c;
            let b = r * 4 + (c + 1) % 4;
            let (a2, b2) = (a + 4, b + 4);
            s.indices.extend([a, b2, a2, a, b, b2]);
        }
    }
    let skeleton = Skeleton {
        bones: vec![
            Bone {
                name: "shoulder".into(),
                parent: None,
                rest: Transform::IDENTITY,
                inverse_bind: None,
            },
            Bone {
                name: "elbow".into(),
                parent: Some(0),
                rest: Transform {
                    translation: Vec3::X,
                    ..Transform::IDENTITY
                },
                inverse_bind: None,
            },
        ],
    };
    let bend = Clip {
        events: Vec::new(),
        name: "bend".into(),
        channels: vec![Channel {
            bone: 1,
            translation: Track::from_keys([(0.0, Vec3::X), (0.5, Vec3::X), (1.0, Vec3::X)]),
            rotation: Track::from_keys([
                (0.0, Quat::IDENTITY),
                (0.5, Quat::from_rotation_z(FRAC_PI_2 / 2.0)),
                (1.0, Quat::from_rotation_z(FRAC_PI_2)),
            ]),
            scale: Track::default(),
        }],
    };
    Model {
        name: "skinned_arm".into(),
        coordinate_system: CoordinateSystem::GLTF,
        surfaces: vec![s],
        skeleton,
        animations: vec![bend],
        ..Default::default()
    }
}

/// Three-bone arm along +X: `shoulder` at the origin, `elbow` at x = 1, `wrist` at
/// x = 2. A square tube (side 0.2) with rings every 0.5 from x = 0 to 3, skinned with
/// one to three influences per vertex (weights that are exact binary fractions):
///
/// | ring x | shoulder | elbow | wrist |
/// |---|---|---|---|
/// | 0 | 1 | | |
/// | 0.5 | 0.75 | 0.25 | |
/// | 1 | 0.25 | 0.5 | 0.25 |
/// | 1.5 | | 0.75 | 0.25 |
/// | 2 | | 0.25 | 0.75 |
/// | 2.5, 3 | | | 1 |
///
/// Clip `bend`: the elbow turns 0, 45, 90 degrees about +Z at t = 0, 0.5, 1 s. Clip
/// `wave`: the wrist turns about +X by 0, 30, 0, -30, 0 degrees every 0.25 s while the
/// shoulder rises from y = 0 to 0.5 and back and the wrist scales to 1.5 and back.
pub fn skinned_arm3() -> Model {
    let rings: [(f32, [f32; 3]); 7] = [
        (0.0, [1.0, 0.0, 0.0]),
        (0.5, [0.75, 0.25, 0.0]),
        (1.0, [0.25, 0.5, 0.25]),
        (1.5, [0.0, 0.75, 0.25]),
        (2.0, [0.0, 0.25, 0.75]),
        (2.5, [0.0, 0.0, 1.0]),
        (3.0, [0.0, 0.0, 1.0]),
    ];
    let corners = [(-0.1f32, -0.1f32), (0.1, -0.1), (0.1, 0.1), (-0.1, 0.1)];
    let mut s = Surface {
        name: "arm3".into(),
        ..Default::default()
    };
    for &(x, w) in &rings {
        for &(y, z) in &corners {
            s.positions.push(Vec3::new(x, y, z));
            s.normals.push(Vec3::new(0.0, y, z).normalize());
            s.uv0.push(Vec2::new(x / 3.0, 0.5 + y + z));
            s.skin.push(VertexInfluences::from_pairs(
                w.iter()
                    .enumerate()
                    .filter(|(_, w)| **w > 0.0)
                    .map(|(j, w)| (j as u32, *w)),
            ));
        }
    }
    for r in 0..rings.len() as u32 - 1 {
        for c in 0..4u32 {
            let a = r * 4 + c;
            let b = r * 4 + (c + 1) % 4;
            let (a2, b2) = (a + 4, b + 4);
            s.indices.extend([a, b2, a2, a, b, b2]);
        }
    }
    let bone = |name: &str, parent: Option<usize>, x: f32| Bone {
        name: name.into(),
        parent,
        rest: Transform {
            translation: Vec3::new(x, 0.0, 0.0),
            ..Transform::IDENTITY
        },
        inverse_bind: None,
    };
    let skeleton = Skeleton {
        bones: vec![
            bone("shoulder", None, 0.0),
            bone("elbow", Some(0), 1.0),
            bone("wrist", Some(1), 1.0),
        ],
    };
    let bend = Clip {
        events: Vec::new(),
        name: "bend".into(),
        channels: vec![Channel {
            bone: 1,
            rotation: Track::from_keys([
                (0.0, Quat::IDENTITY),
                (0.5, Quat::from_rotation_z(FRAC_PI_2 / 2.0)),
                (1.0, Quat::from_rotation_z(FRAC_PI_2)),
            ]),
            ..Default::default()
        }],
    };
    let deg30 = FRAC_PI_2 / 3.0;
    let wave = Clip {
        events: Vec::new(),
        name: "wave".into(),
        channels: vec![
            Channel {
                bone: 2,
                rotation: Track::from_keys([
                    (0.0, Quat::IDENTITY),
                    (0.25, Quat::from_rotation_x(deg30)),
                    (0.5, Quat::IDENTITY),
                    (0.75, Quat::from_rotation_x(-deg30)),
                    (1.0, Quat::IDENTITY),
                ]),
                scale: Track::from_keys([
                    (0.0, Vec3::ONE),
                    (0.5, Vec3::splat(1.5)),
                    (1.0, Vec3::ONE),
                ]),
                ..Default::default()
            },
            Channel {
                bone: 0,
                translation: Track::from_keys([
                    (0.0, Vec3::ZERO),
                    (0.5, Vec3::new(0.0, 0.5, 0.0)),
                    (1.0, Vec3::ZERO),
                ]),
                ..Default::default()
            },
        ],
    };
    Model {
        name: "skinned_arm3".into(),
        coordinate_system: CoordinateSystem::GLTF,
        surfaces: vec![s],
        skeleton,
        animations: vec![bend, wave],
        ..Default::default()
    }
}

/// A 3x3 grid in the XY plane (x, y in {-1, 0, 1}) facing +Z, with one delta morph
/// target `bulge` that lifts the centre vertex by 0.5 along +Z.
pub fn morph() -> Model {
    let mut s = Surface {
        name: "grid".into(),
        ..Default::default()
    };
    for j in 0..3 {
        for i in 0..3 {
            s.positions
                .push(Vec3::new(i as f32 - 1.0, j as f32 - 1.0, 0.0));
            s.normals.push(Vec3::Z);
            s.uv0.push(Vec2::new(i as f32 / 2.0, 1.0 - j as f32 / 2.0));
        }
    }
    for j in 0..2u32 {
        for i in 0..2u32 {
            let a = j * 3 + i;
            s.indices.extend([a, a + 1, a + 4, a, a + 4, a + 3]);
        }
    }
    let mut positions = vec![Vec3::ZERO; 9];
    positions[4] = Vec3::new(0.0, 0.0, 0.5);
    s.morph_targets.push(MorphTarget {
        name: "bulge".into(),
        kind: MorphKind::Delta,
        positions,
        normals: vec![Vec3::ZERO; 9],
    });
    Model {
        name: "morph".into(),
        coordinate_system: CoordinateSystem::GLTF,
        surfaces: vec![s],
        ..Default::default()
    }
}

/// Edge cases: a surface with no vertices, a single unnamed triangle, empty names.
pub fn degenerate() -> Model {
    Model {
        name: String::new(),
        coordinate_system: CoordinateSystem::GLTF,
        surfaces: vec![
            Surface {
                name: "empty".into(),
                ..Default::default()
            },
            Surface {
                name: String::new(),
                positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
                normals: vec![Vec3::Z; 3],
                indices: vec![0, 1, 2],
                ..Default::default()
            },
        ],
        ..Default::default()
    }
}

/// Grid width and height of [`big_surface`].
pub const BIG_GRID: (u32, u32) = (256, 257);

/// A 256 x 257 grid (65,792 vertices, past what 16-bit indices address) over
/// [0, 25.5] x [0, 25.6] in XZ with height `y = 0.25 sin(x) cos(z)`, normals from the
/// analytic gradient and UVs across the grid. Generated, never stored in full.
pub fn big_surface() -> Model {
    let (w, h) = BIG_GRID;
    let mut s = Surface {
        name: "terrain".into(),
        ..Default::default()
    };
    for j in 0..h {
        for i in 0..w {
            let (x, z) = (i as f32 * 0.1, j as f32 * 0.1);
            let y = 0.25 * x.sin() * z.cos();
            s.positions.push(Vec3::new(x, y, z));
            // y = f(x, z): normal = (-df/dx, 1, -df/dz), normalized.
            let dx = 0.25 * x.cos() * z.cos();
            let dz = -0.25 * x.sin() * z.sin();
            s.normals.push(Vec3::new(-dx, 1.0, -dz).normalize());
            s.uv0.push(Vec2::new(
                i as f32 / (w - 1) as f32,
                j as f32 / (h - 1) as f32,
            ));
        }
    }
    for j in 0..h - 1 {
        for i in 0..w - 1 {
            let a = j * w + i;
            // Counter-clockwise seen from +Y.
            s.indices.extend([a, a + w, a + 1, a + 1, a + w, a + w + 1]);
        }
    }
    Model {
        name: "big_surface".into(),
        coordinate_system: CoordinateSystem::GLTF,
        surfaces: vec![s],
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Pose, skin_surface, validate};

    #[test]
    fn every_canonical_model_is_valid() {
        for c in ALL {
            let m = (c.build)();
            let problems = validate(&m);
            assert!(problems.is_empty(), "{}: {problems:?}", c.name);
        }
    }

    #[test]
    fn counts_by_construction() {
        let cube = cube();
        assert_eq!((cube.vertex_count(), cube.triangle_count()), (24, 12));
        let arm = skinned_arm();
        assert_eq!((arm.vertex_count(), arm.triangle_count()), (20, 32));
        let big = big_surface();
        assert_eq!(big.vertex_count(), 65_792);
        assert_eq!(big.triangle_count(), 2 * 255 * 256);
        assert!(big.surfaces[0].indices.iter().any(|&i| i > 65_535));
    }

    #[test]
    fn front_faces_agree_with_normals() {
        // Counter-clockwise winding: each triangle's geometric normal points the way its
        // vertex normals do.
        for c in ALL {
            let m = (c.build)();
            for (si, s) in m.surfaces.iter().enumerate() {
                if s.normals.is_empty() {
                    continue;
                }
                for t in s.triangles() {
                    let [a, b, cc] = t.map(|i| s.positions[i as usize]);
                    let g = (b - a).cross(cc - a).normalize();
                    let n: Vec3 = t.iter().map(|&i| s.normals[i as usize]).sum();
                    assert!(g.dot(n) > 0.0, "{} surface {si} triangle {t:?}", c.name);
                }
            }
        }
        // The cube's flat faces match exactly.
        let s = &cube().surfaces[0];
        for t in s.triangles() {
            let [a, b, c] = t.map(|i| s.positions[i as usize]);
            let n = (b - a).cross(c - a).normalize();
            assert!(n.abs_diff_eq(s.normals[t[0] as usize], 1e-6));
        }
    }

    #[test]
    fn arm_bends_as_described() {
        let m = skinned_arm();
        let pose = m.animations[0].sample(&m.skeleton, 1.0);
        let (p, _) = skin_surface(&m.surfaces[0], &m.skeleton, &pose);
        // Tip-ring corner (2, -0.1, -0.1) bound to the elbow: rotated 90 degrees about
        // Z around (1, 0, 0) -> (1 + 0.1, 1, -0.1).
        let tip = 4 * 4;
        assert!(
            p[tip].abs_diff_eq(Vec3::new(1.1, 1.0, -0.1), 1e-5),
            "{}",
            p[tip]
        );
        let rest = skin_surface(&m.surfaces[0], &m.skeleton, &Pose::rest(&m.skeleton)).0;
        assert!(rest[tip].abs_diff_eq(m.surfaces[0].positions[tip], 1e-6));
    }
}
