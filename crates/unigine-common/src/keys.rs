//! One bone's key in one frame, as an10 animations and ms10/ms11 embedded animations
//! store it: a flag byte (bit 0..2 translation x, y, z; bit 3 the whole rotation; bit
//! 4..6 scale x, y, z; bit 7 undefined) and the flagged components. an10 stores
//! translation and scale as `u16` in a quantization box, meshes as `f32`; both store
//! the rotation as `i16[4]` in units of 1/32767.

use parsing_primitives::{Element, Reader, Writer};

#[doc(hidden)]
pub use parsing_primitives::RawString;

/// One bone's key in one frame. A component is `Some` when the frame stores it; the
/// flag byte is derived from these. `T` is the stored translation/scale component
/// (`u16` box units in an10, `f32` in meshes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Key<T> {
    /// Translation x, y, z (flag bits 0, 1, 2).
    pub translation: [Option<T>; 3],
    /// Rotation quaternion x, y, z, w in units of 1/32767 (flag bit 3).
    pub rotation: Option<[i16; 4]>,
    /// Scale x, y, z (flag bits 4, 5, 6).
    pub scale: [Option<T>; 3],
}

impl<T> Key<T> {
    /// The flag byte: bit 0..2 translation, 3 rotation, 4..6 scale.
    pub fn flags(&self) -> u8 {
        let mut f = 0u8;
        for k in 0..3 {
            if self.translation[k].is_some() {
                f |= 1 << k;
            }
            if self.scale[k].is_some() {
                f |= 0x10 << k;
            }
        }
        if self.rotation.is_some() {
            f |= 0x08;
        }
        f
    }
}

/// The OR of every key's flags: what an animation's flag byte holds in real files.
pub fn key_flags<T>(keys: &[Key<T>]) -> u8 {
    keys.iter().fold(0, |f, k| f | k.flags())
}

/// How [`read_key`] treats a stored rotation component of -32768, outside the
/// documented -1..=1 range of `i16 / 32767`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RotationRange {
    /// Reject it (an10).
    Checked,
    /// Keep it as stored (mesh-embedded animations).
    AsStored,
}

/// Reads one key: the flag byte (bit 7 rejected) and the flagged components.
pub fn read_key<T: Element>(
    r: &mut Reader<'_>,
    rotation: RotationRange,
) -> parsing_primitives::Result<Key<T>> {
    let at = r.offset();
    let flags = r.u8()?;
    if flags & 0x80 != 0 {
        return Err(r.invalid_at(
            at,
            format!("frame flags {flags:#04x} use the undefined bit 7"),
        ));
    }
    let mut k = Key {
        translation: [None; 3],
        rotation: None,
        scale: [None; 3],
    };
    for i in 0..3 {
        if flags & (1 << i) != 0 {
            k.translation[i] = Some(r.le::<T>()?);
        }
    }
    if flags & 0x08 != 0 {
        let at = r.offset();
        let q = r.le::<[i16; 4]>()?;
        if rotation == RotationRange::Checked && q.contains(&i16::MIN) {
            return Err(r.invalid_at(at, "rotation component -32768 is outside -32767..=32767"));
        }
        k.rotation = Some(q);
    }
    for i in 0..3 {
        if flags & (0x10 << i) != 0 {
            k.scale[i] = Some(r.le::<T>()?);
        }
    }
    Ok(k)
}

/// Writes one key as [`read_key`] reads it.
pub fn write_key<T: Element>(w: &mut Writer, k: &Key<T>) {
    w.u8(k.flags());
    for t in k.translation.iter().flatten() {
        w.le_slice(std::slice::from_ref(t));
    }
    if let Some(q) = &k.rotation {
        w.le_slice(q);
    }
    for s in k.scale.iter().flatten() {
        w.le_slice(std::slice::from_ref(s));
    }
}

/// Keys `f * n .. (f + 1) * n` of a frame-major table (empty past the end or when the
/// range overflows).
pub fn frame_keys<K>(keys: &[K], f: usize, n: usize) -> &[K] {
    f.checked_mul(n)
        .and_then(|start| Some(start..start.checked_add(n)?))
        .and_then(|r| keys.get(r))
        .unwrap_or(&[])
}

/// An animation as both UNIGINE families store one: `name`, the animated `bones`, what
/// the family stores beside the keys (`boxes`: an10's quantization boxes; nothing for
/// the animations a mesh embeds, whose keys are floats), the stored `flags` byte,
/// `num_frames` and the frame-major `keys`. unigine-anim's `an10::Animation` is
/// `Animation<u16, an10::Boxes>`, unigine-mesh's `EmbeddedAnimation` is
/// `Animation<f32>`.
///
/// ```
/// use unigine_common::Key;
/// use unigine_common::keys::Animation;
/// let moved = Key { translation: [Some(1.0), None, None], ..Key::<f32>::default() };
/// let turned = Key { rotation: Some([0, 0, 0, 32767]), ..Key::<f32>::default() };
/// let clip: Animation<f32> = Animation {
///     name: "walk".into(),
///     bones: vec![0, 1],
///     boxes: (),
///     flags: 0x09,
///     num_frames: 2,
///     keys: vec![moved, Key::default(), turned, Key::default()],
/// };
/// assert_eq!(clip.frame(1), &[turned, Key::default()]);
/// assert!(clip.frame(2).is_empty());
/// assert_eq!(clip.key_flags(), 0x01 | 0x08);
/// assert!(clip.check_keys(2).is_ok());
/// assert!(clip.check_keys(1).is_err()); // bone 1 of 1
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Animation<T, B = ()> {
    /// Name (from the file's name list).
    pub name: RawString,
    /// Animated bones, as indices into the file's bone list.
    pub bones: Vec<i16>,
    /// What the family stores beside the keys (an10: the translation and scale boxes
    /// its `u16` keys are quantized across).
    pub boxes: B,
    /// The stored animation flag byte (real files: the OR of every key's flags).
    /// Derived data: the writer stores [`key_flags`](Self::key_flags), and conversion
    /// follows the keys.
    pub flags: u8,
    /// Number of frames.
    pub num_frames: u32,
    /// `num_frames * bones.len()` keys, frame-major: the key of bone `b` in frame `f` is
    /// `keys[f * bones.len() + b]`.
    pub keys: Vec<Key<T>>,
}

impl<T, B> Animation<T, B> {
    /// The keys of frame `f` (empty past the end).
    pub fn frame(&self, f: usize) -> &[Key<T>] {
        frame_keys(&self.keys, f, self.bones.len())
    }

    /// The OR of every key's flags: what the flag byte of real files holds, and what the
    /// writer stores.
    pub fn key_flags(&self) -> u8 {
        key_flags(&self.keys)
    }

    /// `Err` with the message unless every animated bone is one of the file's
    /// `num_bones` and there are `num_frames * bones.len()` keys.
    pub fn check_keys(&self, num_bones: usize) -> Result<(), String> {
        check_animated_bones(&self.bones, num_bones).and_then(|()| {
            check_table_len(self.keys.len(), self.num_frames, self.bones.len(), "keys")
        })
    }
}

/// An animation's `num_bones` (compact) and its animated bones (`i16` each), every one a
/// bone of the `num_bones` in the file's list: the start of every stored animation.
///
/// ```
/// use parsing_primitives::Reader;
/// use unigine_common::keys::read_animated_bones;
/// let mut r = Reader::new("test", &[2, 1, 0, 0, 0]);
/// assert_eq!(read_animated_bones(&mut r, 2)?, vec![1, 0]);
/// let mut r = Reader::new("test", &[1, 5, 0]);
/// assert!(read_animated_bones(&mut r, 2).is_err()); // bone 5 of 2
/// # Ok::<(), parsing_primitives::Error>(())
/// ```
pub fn read_animated_bones(
    r: &mut Reader<'_>,
    num_bones: usize,
) -> parsing_primitives::Result<Vec<i16>> {
    let n = r.field("num_bones", |r| r.compact_count(2))?;
    let at = r.offset();
    let bones: Vec<i16> = r.field("bones", |r| r.le_array(n as u64))?;
    if let Some(k) = bones.iter().position(|&b| b < 0 || b as usize >= num_bones) {
        return Err(r.invalid_at(
            at + 2 * k as u64,
            format!("bone {} out of range ({num_bones} bones)", bones[k]),
        ));
    }
    Ok(bones)
}

/// An animation's `num_frames` (compact, at most `u32::MAX`) and its frame-major keys,
/// `animated` per frame, each read by `key` (at least one byte each): the end of every
/// stored animation.
///
/// ```
/// use parsing_primitives::Reader;
/// use unigine_common::keys::{RotationRange, read_frames, read_key};
/// // Two frames of one bone: no key data in the first, translation x = 1.5 in the second.
/// let mut data = vec![2, 0x00, 0x01];
/// data.extend_from_slice(&1.5f32.to_le_bytes());
/// let mut r = Reader::new("test", &data);
/// let (frames, keys) = read_frames(&mut r, 1, |r| read_key::<f32>(r, RotationRange::Checked))?;
/// assert_eq!((frames, keys.len()), (2, 2));
/// assert_eq!(keys[1].translation, [Some(1.5), None, None]);
/// # Ok::<(), parsing_primitives::Error>(())
/// ```
pub fn read_frames<K>(
    r: &mut Reader<'_>,
    animated: usize,
    key: impl FnMut(&mut Reader<'_>) -> parsing_primitives::Result<K>,
) -> parsing_primitives::Result<(u32, Vec<K>)> {
    let at = r.offset();
    let num_frames = r.field("num_frames", |r| r.compact_count(0))?;
    let num_frames = u32::try_from(num_frames).map_err(|_| r.invalid_at(at, "too many frames"))?;
    let total = u64::from(num_frames).saturating_mul(animated as u64);
    let keys = r.field("frames", |r| r.array(total, 1, key))?;
    Ok((num_frames, keys))
}

/// `Err` with the message unless every animated bone index is a bone of the `nb` in the
/// file's list.
///
/// ```
/// use unigine_common::keys::check_animated_bones;
/// assert!(check_animated_bones(&[0, 2], 3).is_ok());
/// assert_eq!(check_animated_bones(&[0, 3], 3).err().as_deref(), Some("bone 3 out of range (3 bones)"));
/// ```
pub fn check_animated_bones(bones: &[i16], nb: usize) -> Result<(), String> {
    match bones.iter().find(|&&b| b < 0 || b as usize >= nb) {
        Some(b) => Err(format!("bone {b} out of range ({nb} bones)")),
        None => Ok(()),
    }
}

/// `Err` with the message unless a frame-major table of `len` entries (`what`: "keys",
/// "bone frames") holds `frames` frames of `bones` bones.
///
/// ```
/// use unigine_common::keys::check_table_len;
/// assert!(check_table_len(6, 3, 2, "keys").is_ok());
/// assert_eq!(check_table_len(5, 3, 2, "keys").err().as_deref(), Some("5 keys for 3 frames of 2 bones"));
/// ```
pub fn check_table_len(len: usize, frames: u32, bones: usize, what: &str) -> Result<(), String> {
    if len as u64 == u64::from(frames) * bones as u64 {
        Ok(())
    } else {
        Err(format!("{len} {what} for {frames} frames of {bones} bones"))
    }
}
