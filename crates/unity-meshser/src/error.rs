//! The crate's error type.

/// Everything that can go wrong reading or writing a MeshSerializer2 file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a valid file; the inner error names the byte offset, the field
    /// and what is wrong.
    #[error(transparent)]
    Decode(#[from] parsing_primitives::Error),
    /// The mesh has more vertices than the format's readers accept.
    #[error(
        "unity-meshser: {count} vertices exceed the format's limit of {max} (the original reader rejects more)"
    )]
    TooManyVertices {
        /// Vertices in the mesh.
        count: usize,
        /// [`crate::MAX_COUNT`].
        max: u16,
    },
    /// The mesh has more triangles than the format's readers accept.
    #[error(
        "unity-meshser: {count} triangles exceed the format's limit of {max} (the original reader rejects more)"
    )]
    TooManyTriangles {
        /// Triangles in the mesh.
        count: usize,
        /// [`crate::MAX_COUNT`].
        max: u16,
    },
    /// The index list is not whole triangles.
    #[error("unity-meshser: {len} indices is not a whole number of triangles")]
    NotTriangles {
        /// Number of indices.
        len: usize,
    },
    /// An index does not name a vertex.
    #[error(
        "unity-meshser: triangle {triangle} uses vertex {index} but there are {vertices} vertices"
    )]
    IndexOutOfRange {
        /// Triangle number.
        triangle: usize,
        /// The index.
        index: u32,
        /// Vertex count.
        vertices: usize,
    },
    /// The arrays disagree with each other or with the format byte.
    #[error("unity-meshser: {0}")]
    Inconsistent(String),
    /// The operation's memory budget ([`Budget`](meshfmt_core::Budget)) cannot pay for
    /// what was being built: the input asks for more than the caller allowed.
    #[error(transparent)]
    OverBudget(#[from] meshfmt_core::BudgetExceeded),
    /// Writing to the destination failed.
    #[error("unity-meshser: {0}")]
    Io(#[from] std::io::Error),
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
