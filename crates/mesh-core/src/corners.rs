//! Building a surface from polygon corners that index attribute lists separately
//! (OBJ's `v/vt/vn`, M3D's vertex/UV/normal, UNIGINE 1.x's coordinate and tangent
//! indices): one surface vertex per distinct corner, then polygons fanned into
//! triangles.

use std::collections::HashMap;
use std::collections::hash_map::{Entry, RandomState};
use std::hash::{BuildHasher, Hash};

/// The hasher [`CornerMap`] uses by default: corner keys are a few small integers, for
/// which SipHash costs more than the rest of the lookup. Each word is mixed by a folded
/// 64 x 64 -> 128-bit multiply with a key drawn per map from std's `RandomState` (the
/// construction of aHash's fallback and foldhash), so keys from the input cannot be
/// chosen to collide without knowing it.
///
/// ```
/// use std::hash::BuildHasher;
/// use meshfmt_core::corners::CornerState;
/// let s = CornerState::default();
/// assert_eq!(s.hash_one([1u32, 2, 3]), s.hash_one([1u32, 2, 3]));
/// assert_ne!(s.hash_one([1u32, 2, 3]), s.hash_one([1u32, 2, 4]));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct CornerState {
    start: u64,
    key: u64,
}

impl Default for CornerState {
    fn default() -> Self {
        let s = RandomState::new();
        CornerState {
            start: s.hash_one(1u8),
            // Odd, so the multiply loses no bit.
            key: s.hash_one(2u8) | 1,
        }
    }
}

impl BuildHasher for CornerState {
    type Hasher = CornerHasher;

    fn build_hasher(&self) -> CornerHasher {
        CornerHasher {
            h: self.start,
            key: self.key,
        }
    }
}

/// The hasher of [`CornerState`].
#[derive(Debug, Clone, Copy)]
pub struct CornerHasher {
    h: u64,
    key: u64,
}

/// The high and low halves of the 128-bit product, folded together.
fn folded_multiply(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

impl std::hash::Hasher for CornerHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.h = folded_multiply(self.h ^ n, self.key);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        folded_multiply(self.h, self.key.rotate_left(32) | 1)
    }
}

/// Where a corner's vertex is, from [`CornerMap::vertex`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corner {
    /// An earlier corner with the same key made this vertex.
    Seen(u32),
    /// The key is new: the caller pushes the vertex's attributes, which land at this
    /// index (the surface's vertex count).
    New(u32),
}

impl Corner {
    /// The vertex index, seen or new.
    pub fn index(self) -> u32 {
        match self {
            Corner::Seen(i) | Corner::New(i) => i,
        }
    }
}

/// One surface vertex per distinct corner key.
///
/// ```
/// use meshfmt_core::corners::{Corner, CornerMap, push_fan};
/// // Two triangles of a quad, corners as (position, uv) index pairs.
/// let mut map = CornerMap::new();
/// let mut positions = Vec::new();
/// let mut indices = Vec::new();
/// let quad = [(0, 0), (1, 1), (2, 2), (3, 3)];
/// let mut ids = Vec::new();
/// for key in quad.iter().chain(&quad[..2]) {
///     let c = map.vertex(*key, positions.len()).ok_or("over 2^32 vertices")?;
///     if let Corner::New(_) = c {
///         positions.push(key.0);
///     }
///     ids.push(c.index());
/// }
/// assert_eq!(positions, [0, 1, 2, 3]);
/// push_fan(&mut indices, &ids[..4]);
/// assert_eq!(indices, [0, 1, 2, 0, 2, 3]);
/// # Ok::<(), &str>(())
/// ```
#[derive(Debug, Clone)]
pub struct CornerMap<K, S = CornerState> {
    seen: HashMap<K, u32, S>,
}

impl<K: Hash + Eq> CornerMap<K> {
    /// An empty map (hashing with [`CornerState`]).
    pub fn new() -> Self {
        CornerMap {
            seen: HashMap::with_hasher(CornerState::default()),
        }
    }
}

impl<K: Hash + Eq> Default for CornerMap<K> {
    fn default() -> Self {
        CornerMap::new()
    }
}

impl<K: Hash + Eq, S: BuildHasher> CornerMap<K, S> {
    /// An empty map hashing with `hasher` (keys that are already well mixed can skip
    /// even [`CornerState`]'s mixing).
    pub fn with_hasher(hasher: S) -> Self {
        CornerMap {
            seen: HashMap::with_hasher(hasher),
        }
    }

    /// The vertex of corner `key`: [`Corner::Seen`] with the index an earlier corner
    /// got, or [`Corner::New`] with `vertex_count` (the surface's vertices so far),
    /// recorded for the key. `None` when `vertex_count` does not fit a `u32` index.
    pub fn vertex(&mut self, key: K, vertex_count: usize) -> Option<Corner> {
        match self.seen.entry(key) {
            Entry::Occupied(e) => Some(Corner::Seen(*e.get())),
            Entry::Vacant(e) => {
                let index = u32::try_from(vertex_count).ok()?;
                e.insert(index);
                Some(Corner::New(index))
            }
        }
    }

    /// Every distinct corner key with its vertex index (in no particular order).
    ///
    /// ```
    /// let mut map = meshfmt_core::corners::CornerMap::new();
    /// map.vertex("a", 0);
    /// map.vertex("a", 1);
    /// assert_eq!(map.iter().collect::<Vec<_>>(), [(&"a", 0)]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (&K, u32)> + '_ {
        self.seen.iter().map(|(k, v)| (k, *v))
    }

    /// Distinct corners so far.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// True before the first corner.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

/// Appends the fan triangulation of a convex polygon's vertex indices to `indices`:
/// `(0, k, k + 1)` for every `k`; nothing for fewer than three.
///
/// ```
/// let mut indices = Vec::new();
/// meshfmt_core::corners::push_fan(&mut indices, &[7, 8, 9, 10, 11]);
/// assert_eq!(indices, [7, 8, 9, 7, 9, 10, 7, 10, 11]);
/// ```
pub fn push_fan(indices: &mut Vec<u32>, polygon: &[u32]) {
    if let Some((&first, rest)) = polygon.split_first() {
        for pair in rest.windows(2) {
            indices.extend([first, pair[0], pair[1]]);
        }
    }
}
