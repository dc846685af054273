//! Decoding bytes into a [`MeshFile`].

use meshfmt_core::Budget;
use parsing_primitives::Reader;

use crate::error::Result;
use crate::file::{Format, MeshFile};
use crate::{FORMAT_NAME, MAX_COUNT};

/// Reading choices.
///
/// ```
/// use unity_meshser::{read_with, Budget, ReadOptions};
/// let file = [1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
///     0, 0, 0, 0, 0, 0, 0, 0, 0, 0]; // 1 vertex, 0 triangles, positions only
/// let budget = Budget::default();
/// let opts = ReadOptions { budget: budget.clone(), ..ReadOptions::default() };
/// assert_eq!(read_with(&file, &opts)?.vertex_count(), 1);
/// assert_eq!(budget.used(), 6); // the one quantized position
/// # Ok::<(), unity_meshser::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The operation's budget (clones share it: give the caller's to share it with the
    /// other steps; the default is a fresh one of [`Limits::DEFAULT`](crate::Limits)).
    pub budget: Budget,
    /// Accept bytes after the triangle array (the original reader ignores them; by
    /// default we report them, since they mean the file is not what it claims).
    pub allow_trailing_bytes: bool,
}

/// Reads a file with default options. See [`read_with`].
pub fn read(data: &[u8]) -> Result<MeshFile> {
    read_with(data, &ReadOptions::default())
}

/// Reads a file. Applies the original reader's checks (counts up to 64000, the
/// positions bit set, format at most 15) and the ones it lacks: every array checked
/// against the bytes left before it is allocated, every index below the vertex count,
/// no trailing bytes (unless allowed).
pub fn read_with(data: &[u8], options: &ReadOptions) -> Result<MeshFile> {
    let mut r = Reader::new(FORMAT_NAME, data).with_budget(options.budget.clone());
    let vertex_count = r.field("vertex_count", |r| count(r))?;
    let triangle_count = r.field("triangle_count", |r| count(r))?;
    let format = r.field("format", |r| {
        let at = r.offset();
        let f = r.u8()?;
        if f > 15 || f & Format::POSITIONS == 0 {
            return Err(r.invalid_at(
                at,
                format!("format byte {f:#04x} is invalid (bit 0 must be set, at most 15)"),
            ));
        }
        Ok(Format(f))
    })?;
    let n = u64::from(vertex_count);
    let mut file = MeshFile {
        format,
        ..MeshFile::default()
    };
    // The original reads no bounds for an empty array.
    if n > 0 {
        file.position_bounds = r.field("position_bounds", |r| r.le::<[f32; 6]>())?;
        file.positions = r.field("positions", |r| r.le_array(n))?;
    }
    if format.has(Format::NORMALS) {
        file.normals = r.field("normals", |r| r.le_array(n))?;
    }
    if format.has(Format::TANGENTS) {
        file.tangents = r.field("tangents", |r| r.le_array(n))?;
    }
    if format.has(Format::UVS) && n > 0 {
        file.uv_bounds = r.field("uv_bounds", |r| r.le::<[f32; 4]>())?;
        file.uvs = r.field("uvs", |r| r.le_array(n))?;
    }
    file.triangles = r.field("triangles", |r| {
        let at = r.offset();
        let triangles: Vec<[u16; 3]> = r.le_array(u64::from(triangle_count))?;
        let bad = triangles.iter().enumerate().find_map(|(t, tri)| {
            let k = tri.iter().position(|&i| u64::from(i) >= n)?;
            Some((t, k, tri[k]))
        });
        match bad {
            None => Ok(triangles),
            Some((t, k, i)) => r.item(t, |r| {
                Err(r.invalid_at(
                    at + ((t * 3 + k) * 2) as u64,
                    format!("index {i} out of range ({vertex_count} vertices)"),
                ))
            }),
        }
    })?;
    if !options.allow_trailing_bytes {
        r.finish()?;
    }
    Ok(file)
}

/// A vertex or triangle count, with the original reader's cap.
fn count(r: &mut Reader<'_>) -> parsing_primitives::Result<u16> {
    let at = r.offset();
    let v = r.u16_le()?;
    if v > MAX_COUNT {
        return Err(r.invalid_at(at, format!("{v} exceeds the format's limit of {MAX_COUNT}")));
    }
    Ok(v)
}
