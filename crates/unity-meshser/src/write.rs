//! Encoding a [`MeshFile`] into bytes.

use parsing_primitives::Writer;

use meshfmt_core::Problem;

use crate::convert::WriteOptions;
use crate::error::{Error, Result};
use crate::file::{Format, MeshFile};
use crate::{FORMAT_NAME, MAX_COUNT};

impl MeshFile {
    /// Every reason the file cannot be written and read back, each with its path:
    /// counts within the format's limit, arrays as long as the positions, the format
    /// byte matching the arrays, indices in range (each triangle that has one out).
    ///
    /// ```
    /// use unity_meshser::MeshFile;
    /// let mut file = MeshFile::default();
    /// assert!(file.problems().is_empty());
    /// file.triangles = vec![[0, 1, 2], [3, 4, 5]];
    /// let p = file.problems();
    /// assert_eq!(p.len(), 2);
    /// assert_eq!(p[1].path, "triangles[1]");
    /// ```
    pub fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        let mut push = |path: &str, message: String| {
            out.push(Problem {
                path: path.into(),
                message,
            })
        };
        let n = self.vertex_count();
        if n > usize::from(MAX_COUNT) {
            push("positions", format!("{n} vertices (at most {MAX_COUNT})"));
        }
        let t = self.triangle_count();
        if t > usize::from(MAX_COUNT) {
            push("triangles", format!("{t} triangles (at most {MAX_COUNT})"));
        }
        let f = self.format;
        if f.0 > 15 || !f.has(Format::POSITIONS) {
            push(
                "format",
                format!(
                    "format byte {:#04x} is invalid (bit 0 must be set, at most 15)",
                    f.0
                ),
            );
        }
        for (name, bit, len) in [
            ("normals", Format::NORMALS, self.normals.len()),
            ("tangents", Format::TANGENTS, self.tangents.len()),
            ("uvs", Format::UVS, self.uvs.len()),
        ] {
            let expected = if f.has(bit) { n } else { 0 };
            if len != expected {
                push(
                    name,
                    format!(
                        "{len} entries, but the format byte {:#04x} and {n} vertices call for {expected}",
                        f.0
                    ),
                );
            }
        }
        for (triangle, tri) in self.triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| usize::from(i) >= n) {
                push(
                    &format!("triangles[{triangle}]"),
                    format!("index {index} out of range ({n} vertices)"),
                );
            }
        }
        out
    }

    /// The first reason the file cannot be written, as a typed error.
    pub(crate) fn check(&self) -> Result<()> {
        let n = self.vertex_count();
        if n > usize::from(MAX_COUNT) {
            return Err(Error::TooManyVertices {
                count: n,
                max: MAX_COUNT,
            });
        }
        let t = self.triangle_count();
        if t > usize::from(MAX_COUNT) {
            return Err(Error::TooManyTriangles {
                count: t,
                max: MAX_COUNT,
            });
        }
        let f = self.format;
        if f.0 > 15 || !f.has(Format::POSITIONS) {
            return Err(Error::Inconsistent(format!(
                "format byte {:#04x} is invalid (bit 0 must be set, at most 15)",
                f.0
            )));
        }
        let arrays = [
            ("normals", Format::NORMALS, self.normals.len()),
            ("tangents", Format::TANGENTS, self.tangents.len()),
            ("uvs", Format::UVS, self.uvs.len()),
        ];
        for (name, bit, len) in arrays {
            let expected = if f.has(bit) { n } else { 0 };
            if len != expected {
                return Err(Error::Inconsistent(format!(
                    "{name} has {len} entries but the format byte {:#04x} and {n} vertices call for {expected}",
                    f.0
                )));
            }
        }
        for (triangle, tri) in self.triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| usize::from(i) >= n) {
                return Err(Error::IndexOutOfRange {
                    triangle,
                    index: u32::from(index),
                    vertices: n,
                });
            }
        }
        Ok(())
    }

    /// The file's bytes; an error when [`MeshFile::problems`] finds any.
    ///
    /// ```
    /// let mut bytes = vec![1, 0, 0, 0, 1]; // 1 vertex, 0 triangles, positions only
    /// for bound in [0.0f32, 1.0, 0.0, 0.0, 0.0, 0.0] {
    ///     bytes.extend(bound.to_le_bytes()); // xmin xmax ymin ymax zmin zmax
    /// }
    /// bytes.extend([0xff, 0xff, 0, 0, 0, 0]); // the vertex: (65535, 0, 0)
    /// let file = unity_meshser::read(&bytes)?;
    /// assert_eq!(file.to_surface().positions[0].x, 1.0);
    /// assert_eq!(file.write()?, bytes);
    /// # Ok::<(), unity_meshser::Error>(())
    /// ```
    pub fn write(&self) -> Result<Vec<u8>> {
        self.check()?;
        let mut w = Writer::with_capacity(FORMAT_NAME, self.encoded_len());
        // Counts fit: check() bounded them by MAX_COUNT.
        w.u16_le(self.vertex_count() as u16);
        w.u16_le(self.triangle_count() as u16);
        w.u8(self.format.0);
        if !self.positions.is_empty() {
            w.le_slice(&self.position_bounds);
            w.le_slice(&self.positions);
        }
        w.le_slice(&self.normals);
        w.le_slice(&self.tangents);
        if !self.uvs.is_empty() {
            w.le_slice(&self.uv_bounds);
            w.le_slice(&self.uvs);
        }
        w.le_slice(&self.triangles);
        Ok(w.into_inner())
    }

    /// [`MeshFile::write`] under `options`' budget: the output is charged first.
    pub fn write_with(&self, options: &WriteOptions) -> Result<Vec<u8>> {
        options
            .budget
            .charge("encoded output", self.encoded_len() as u64)?;
        self.write()
    }

    /// Writes the file's bytes to `out`.
    pub fn write_to(&self, mut out: impl std::io::Write) -> Result<()> {
        out.write_all(&self.write()?)?;
        Ok(())
    }
}
