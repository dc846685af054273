//! Small models for tests that need something the canonical set does not have.

use meshfmt_core::glam::{Vec2, Vec3, Vec4};
use meshfmt_core::{Material, Model, Surface, Texture, TextureBinding, TextureRole, TextureSource};

/// One triangle with UVs whose material "wall" has a base-colour map: the texture
/// "bricks", referenced by the file name `bricks.png` (not embedded).
pub fn textured_triangle() -> Model {
    Model {
        surfaces: vec![Surface {
            name: "wall".into(),
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
            uv0: vec![Vec2::ZERO, Vec2::X, Vec2::Y],
            indices: vec![0, 1, 2],
            material: Some(0),
            ..Surface::default()
        }],
        materials: vec![Material {
            name: "wall".into(),
            base_color: Vec4::new(1.0, 0.0, 0.0, 1.0),
            textures: vec![TextureBinding {
                role: TextureRole::BaseColor,
                texture: 0,
                uv_set: 0,
            }],
            ..Material::default()
        }],
        textures: vec![Texture {
            name: "bricks".into(),
            source: TextureSource::Path("bricks.png".into()),
        }],
        ..Model::default()
    }
}
