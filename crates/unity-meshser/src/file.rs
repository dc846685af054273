//! The faithful file: every array exactly as stored (quantized integers stay integers).

/// The header's format byte: bit 0 positions (set in every valid file), bit 1 normals,
/// bit 2 tangents, bit 3 UVs. Values above 15 are invalid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Format(pub u8);

impl Format {
    /// Bit 0: positions.
    pub const POSITIONS: u8 = 1;
    /// Bit 1: normals.
    pub const NORMALS: u8 = 2;
    /// Bit 2: tangents.
    pub const TANGENTS: u8 = 4;
    /// Bit 3: UVs.
    pub const UVS: u8 = 8;

    /// True when every bit of `bits` is set.
    pub fn has(self, bits: u8) -> bool {
        self.0 & bits == bits
    }
}

impl Default for Format {
    fn default() -> Self {
        Format(Format::POSITIONS)
    }
}

/// Position bounds as stored: `xmin, xmax, ymin, ymax, zmin, zmax`.
pub type PositionBounds = [f32; 6];

/// UV bounds as stored: `umin, umax, vmin, vmax`.
pub type UvBounds = [f32; 4];

/// A MeshSerializer2 file as stored.
///
/// The vertex count is `positions.len()` and the triangle count `triangles.len()`.
/// Bounds are stored only when there is at least one vertex (the original skips them
/// for empty arrays): with no vertices the reader leaves them zero and the writer does
/// not write them. The `format` byte is kept as read, since with no vertices it is the
/// only trace of which arrays the writer meant to store; [`MeshFile::write`] checks that
/// it agrees with the arrays.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeshFile {
    /// The header's format byte.
    pub format: Format,
    /// Position box.
    pub position_bounds: PositionBounds,
    /// Positions, 16 bits per component across the box.
    pub positions: Vec<[u16; 3]>,
    /// Normals, one biased byte per component (`(b - 128) / 127`); empty when absent.
    pub normals: Vec<[u8; 3]>,
    /// Tangents, one biased byte per component, w last; empty when absent.
    pub tangents: Vec<[u8; 4]>,
    /// UV box.
    pub uv_bounds: UvBounds,
    /// UVs, 16 bits per component across the box; empty when absent.
    pub uvs: Vec<[u16; 2]>,
    /// Triangles.
    pub triangles: Vec<[u16; 3]>,
}

impl MeshFile {
    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// The format byte the arrays call for: positions always, other bits for non-empty
    /// arrays (what the original writer computes).
    pub fn derived_format(&self) -> Format {
        let mut f = Format::POSITIONS;
        if !self.normals.is_empty() {
            f |= Format::NORMALS;
        }
        if !self.tangents.is_empty() {
            f |= Format::TANGENTS;
        }
        if !self.uvs.is_empty() {
            f |= Format::UVS;
        }
        Format(f)
    }

    /// Exact file size in bytes for this content.
    pub fn encoded_len(&self) -> usize {
        encoded_len(self.vertex_count(), self.triangle_count(), self.format)
    }
}

/// File size the header's counts and format byte predict (what [`crate::sniff`]
/// checks).
pub fn encoded_len(vertices: usize, triangles: usize, format: Format) -> usize {
    let mut len = 5 + 6 * triangles;
    if vertices > 0 {
        len += 24 + 6 * vertices;
        if format.has(Format::NORMALS) {
            len += 3 * vertices;
        }
        if format.has(Format::TANGENTS) {
            len += 4 * vertices;
        }
        if format.has(Format::UVS) {
            len += 16 + 4 * vertices;
        }
    }
    len
}
