//! How to read and write: the options of the readers, the writers and from_core, and
//! the coordinate precision a writer stores.

use parsing_primitives::Budget;

/// How to read.
///
/// ```
/// use m3d_format::{Budget, File, Limits, ReadOptions};
/// let bytes = File::default().write()?;
/// let budget = Budget::new(Limits::DEFAULT);
/// m3d_format::read_with(&bytes, &ReadOptions { budget: budget.clone() })?;
/// assert!(budget.used() > 0);
/// # Ok::<(), m3d_format::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The operation's budget: the inflated payload and everything decoded draw on it
    /// (clones share it: one for read, to_core, from_core and write; the default is a
    /// fresh one of [`Limits::DEFAULT`](crate::Limits::DEFAULT)).
    pub budget: Budget,
}

/// How to write ([`File::write_with`](crate::File::write_with),
/// [`File::write_ascii_with`](crate::File::write_ascii_with),
/// [`File::from_core_with`](crate::File::from_core_with)).
///
/// ```
/// use m3d_format::{File, Precision, WriteOptions};
/// let text = b"3dmodel 1\ntriangle\nMIT\nme\n\n\nVertex\n0 0 0 1\n1 0 0 1\n0 1 0 1\n\nMesh\n0 1 2\n";
/// let file = m3d_format::read(text)?;
/// let kept = file.write_with(&WriteOptions::default())?;
/// let narrow = WriteOptions { narrow: true, ..WriteOptions::default() };
/// let narrowed = file.write_with(&narrow)?;
/// assert!(narrowed.len() < kept.len());
/// let back = m3d_format::read(&narrowed)?;
/// assert_eq!(back.types.vc(), 4); // f32, from the text's f64
/// assert_eq!(back.types.vi(), 1); // three vertices: one-byte indices
/// assert_eq!(back.counts(), file.counts());
/// # Ok::<(), m3d_format::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// Compress HEAD..OMD3 as one zlib stream (the usual form) or store it as is.
    pub compress: bool,
    /// Deflate level on zlib's scale, 0 (stored) to 9 (smallest, slowest; higher values
    /// count as 9); 6 by default (`cargo xtask bench` compares its speed and size with
    /// m3d.h's `m3d_save`).
    pub level: u8,
    /// Coordinate precision [`File::from_core_with`](crate::File::from_core_with)
    /// writes, and [`File::write_with`](crate::File::write_with) when
    /// [`narrow`](Self::narrow) is set (else the faithful writer keeps what the file
    /// holds).
    pub precision: Precision,
    /// [`File::write_with`](crate::File::write_with) re-encodes the payload as
    /// `m3d_save` writes a model instead of keeping the file's own field widths:
    /// coordinates at
    /// [`precision`](Self::precision); vertex, string, texture-map, bone, skin and
    /// frame-transform indices no wider than their lists' lengths need; the colour, bone
    /// and skin fields absent where nothing uses them; bytes after a chunk's records
    /// dropped. An ASCII file (read with the widest fields, f64 and u32) then saves as
    /// a compact binary. Off by default, which keeps the payload byte-identical to what
    /// was read. A field keeps its width where a stored value does not fit the narrower
    /// one (an index past its list); int8 and int16 refuse a vertex coordinate outside
    /// -1..1 (positions are stored normalised by the header's scale) or a texture
    /// coordinate outside 0..1 rather than clamp it, and a chunk kept as raw bytes
    /// (whose layout may follow the widths) refuses narrowing. Not narrowed: the shape,
    /// face and voxel fields and the bones per skin.
    pub narrow: bool,
    /// The operation's budget (clones share it; the default is a fresh one of
    /// [`Limits::DEFAULT`](crate::Limits::DEFAULT)).
    pub budget: Budget,
}

/// How coordinates are stored (the HEAD's `vc_t`): positions are normalised to the unit
/// cube first, so the quantized forms lose at most half a step of the model's extent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// int8, `v * 127`: error up to `0.5 / 127` of the extent (0.39%); UVs `/255`.
    Int8,
    /// int16, `v * 32767`: error up to `0.5 / 32767` of the extent; UVs `/65535`.
    Int16,
    /// f32 (exact for meshfmt-core's f32 values, up to the normalisation's rounding).
    #[default]
    Float,
    /// f64.
    Double,
}

impl Precision {
    /// The HEAD's `vc_t` code: 0 int8, 1 int16, 2 f32, 3 f64.
    pub(crate) fn code(self) -> u32 {
        match self {
            Precision::Int8 => 0,
            Precision::Int16 => 1,
            Precision::Float => 2,
            Precision::Double => 3,
        }
    }

    /// A quantized form's name and its steps from 0 to 1, signed (a position or
    /// normal: `v * steps`) and unsigned (a texture coordinate); `None` for floats.
    pub(crate) fn steps(self) -> Option<(&'static str, f64, f64)> {
        match self {
            Precision::Int8 => Some(("int8", 127.0, 255.0)),
            Precision::Int16 => Some(("int16", 32767.0, 65535.0)),
            Precision::Float | Precision::Double => None,
        }
    }
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            compress: true,
            level: 6,
            precision: Precision::Float,
            narrow: false,
            budget: Budget::default(),
        }
    }
}
