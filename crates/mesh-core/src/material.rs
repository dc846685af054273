//! Materials and textures.

use glam::{Vec3, Vec4};

/// What a texture is used for in a material.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum TextureRole {
    /// Base color (albedo, diffuse).
    BaseColor,
    /// Tangent-space normal map.
    Normal,
    /// Metallic (blue) and roughness (green), glTF packing.
    MetallicRoughness,
    /// Emissive color.
    Emissive,
    /// Ambient occlusion.
    Occlusion,
}

/// A texture bound to a material slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureBinding {
    /// The slot.
    pub role: TextureRole,
    /// Index into [`crate::Model::textures`].
    pub texture: usize,
    /// Which UV set it samples (0 or 1).
    pub uv_set: u32,
}

/// A metallic-roughness material (glTF's model; formats map onto it).
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Material name.
    pub name: String,
    /// Linear RGBA base color factor.
    pub base_color: Vec4,
    /// 0 = dielectric, 1 = metal.
    pub metallic: f32,
    /// 0 = smooth, 1 = rough.
    pub roughness: f32,
    /// Linear emissive color.
    pub emissive: Vec3,
    /// Textures by role.
    pub textures: Vec<TextureBinding>,
}

impl Default for Material {
    /// glTF's defaults: white, fully metallic and rough, no emission.
    fn default() -> Self {
        Material {
            name: String::new(),
            base_color: Vec4::ONE,
            metallic: 1.0,
            roughness: 1.0,
            emissive: Vec3::ZERO,
            textures: Vec::new(),
        }
    }
}

/// Decoded 8-bit RGBA pixels, rows top to bottom.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RgbaImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub pixels: Vec<u8>,
}

/// Where a texture's pixels come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextureSource {
    /// A file name or path as the source file names it (not resolved).
    Path(String),
    /// Pixels carried inside the file.
    Embedded(RgbaImage),
}

/// A texture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Texture {
    /// Texture name.
    pub name: String,
    /// Its pixels or a reference to them.
    pub source: TextureSource,
}
