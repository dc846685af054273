//! [`SharedBytes`]: a range of an immutable buffer that many values can hold at once.
//!
//! A decoder that must keep some of its input as it is (stored compressed blocks kept
//! for a byte-identical rewrite) keeps ranges of the input buffer when the caller hands
//! it over, rather than copies: no copy to make, no second allocation to touch.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, Range};
use std::sync::Arc;

/// An immutable byte range of a shared buffer: cloning or slicing it shares the buffer
/// (a reference count), it never copies the bytes.
///
/// The buffer is anything that holds bytes (`Vec<u8>`, `Box<[u8]>`, an array, ...) and
/// lives as long as one range of it does. Equality, hashing and `Debug` go by the
/// bytes, as for a `Vec<u8>`.
///
/// ```
/// use parsing_primitives::SharedBytes;
/// let file = SharedBytes::from(b"headerPAYLOAD".to_vec());
/// let payload = file.slice(6..13).ok_or("out of range")?;
/// assert_eq!(payload, *b"PAYLOAD");
/// assert_eq!(payload.as_ptr(), file[6..].as_ptr()); // the same bytes, not a copy
/// assert!(file.slice(6..14).is_none());
/// # Ok::<(), &str>(())
/// ```
#[derive(Clone)]
pub struct SharedBytes {
    owner: Arc<dyn AsRef<[u8]> + Send + Sync>,
    range: Range<usize>,
}

impl SharedBytes {
    /// All of `owner`'s bytes, shared from now on.
    pub fn new(owner: impl AsRef<[u8]> + Send + Sync + 'static) -> Self {
        let len = owner.as_ref().len();
        SharedBytes {
            owner: Arc::new(owner),
            range: 0..len,
        }
    }

    /// `range` of these bytes (relative to them), sharing the buffer; `None` when it
    /// does not lie within them.
    pub fn slice(&self, range: Range<usize>) -> Option<SharedBytes> {
        if range.start > range.end || range.end > self.range.len() {
            return None;
        }
        let start = self.range.start + range.start;
        Some(SharedBytes {
            owner: Arc::clone(&self.owner),
            range: start..start + range.len(),
        })
    }

    /// Whether no other range of the buffer is alive: dropping this one frees it (a
    /// decoder handed these bytes kept nothing of them).
    ///
    /// ```
    /// use parsing_primitives::SharedBytes;
    /// let file = SharedBytes::from(vec![1, 2, 3]);
    /// assert!(file.is_only_holder());
    /// let kept = file.slice(1..2);
    /// assert!(!file.is_only_holder());
    /// drop(kept);
    /// assert!(file.is_only_holder());
    /// ```
    pub fn is_only_holder(&self) -> bool {
        Arc::strong_count(&self.owner) == 1
    }

    /// The bytes.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        // An owner whose bytes shrank since (a foreign `AsRef` may) reads as empty.
        (*self.owner)
            .as_ref()
            .get(self.range.clone())
            .unwrap_or_default()
    }
}

impl Default for SharedBytes {
    fn default() -> Self {
        SharedBytes::new(Vec::new())
    }
}

impl Deref for SharedBytes {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl AsRef<[u8]> for SharedBytes {
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl From<Vec<u8>> for SharedBytes {
    /// Takes the vector over: no copy.
    fn from(v: Vec<u8>) -> Self {
        SharedBytes::new(v)
    }
}

impl From<&[u8]> for SharedBytes {
    /// Copies the bytes into a buffer of their own.
    fn from(v: &[u8]) -> Self {
        SharedBytes::new(v.to_vec())
    }
}

impl<const N: usize> From<[u8; N]> for SharedBytes {
    fn from(v: [u8; N]) -> Self {
        SharedBytes::new(v)
    }
}

impl fmt::Debug for SharedBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

impl PartialEq for SharedBytes {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for SharedBytes {}

impl PartialEq<[u8]> for SharedBytes {
    fn eq(&self, other: &[u8]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<&[u8]> for SharedBytes {
    fn eq(&self, other: &&[u8]) -> bool {
        self.as_slice() == *other
    }
}

impl<const N: usize> PartialEq<[u8; N]> for SharedBytes {
    fn eq(&self, other: &[u8; N]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<Vec<u8>> for SharedBytes {
    fn eq(&self, other: &Vec<u8>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Hash for SharedBytes {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

#[cfg(test)]
mod tests {
    use super::SharedBytes;

    #[test]
    fn slices_share_the_buffer_and_refuse_ranges_outside() {
        let all = SharedBytes::from(vec![1u8, 2, 3, 4, 5]);
        // A refused range would read as empty and fail the comparison below.
        let mid = all.slice(1..4).unwrap_or_default();
        assert_eq!(mid, [2u8, 3, 4]);
        assert_eq!(mid.as_ptr(), all[1..].as_ptr());
        // Relative to the slice, not the buffer.
        let inner = mid.slice(1..3).unwrap_or_default();
        assert_eq!(inner, [3u8, 4]);
        assert!(mid.slice(2..4).is_none());
        assert!(mid.slice(3..3).is_some_and(|e| e.is_empty()));
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = mid.slice(2..1);
        assert!(reversed.is_none());
        assert!(mid.slice(usize::MAX..usize::MAX).is_none());
    }

    #[test]
    fn any_owner_of_bytes_is_shared_whole() {
        let boxed = SharedBytes::new(vec![1u8, 2, 3].into_boxed_slice());
        assert_eq!(boxed, [1u8, 2, 3]);
        let array = SharedBytes::from([7u8; 4]);
        assert_eq!(array.slice(1..3).unwrap_or_default(), [7u8, 7]);
    }

    #[test]
    fn equality_hashing_and_debug_go_by_the_bytes() {
        use std::collections::hash_map::DefaultHasher;
        use std::hash::{Hash, Hasher};
        let hash = |v: &dyn Fn(&mut DefaultHasher)| {
            let mut h = DefaultHasher::new();
            v(&mut h);
            h.finish()
        };
        let a = SharedBytes::from(vec![9u8, 8, 7])
            .slice(1..3)
            .unwrap_or_default();
        let b = SharedBytes::from(&[8u8, 7][..]);
        assert_eq!(a, b);
        assert_eq!(a, vec![8u8, 7]);
        assert_eq!(format!("{a:?}"), "[8, 7]");
        assert_eq!(hash(&|h| a.hash(h)), hash(&|h| b.hash(h)));
        assert_eq!(hash(&|h| a.hash(h)), hash(&|h| [8u8, 7][..].hash(h)));
        assert_eq!(SharedBytes::default().len(), 0);
    }
}
