//! as08 (`.sanim`, UNIGINE 1.x): faithful types, read and write.
//!
//! No public sample exists; the layout follows the 1.x docs (specs/000) as read in
//! notes/unigine.md section 4: `i32` counts and string lengths, a `float4` min and a
//! `float4` size (xyz translation, w uniform scale), then per frame and bone a flag
//! byte and one `u16` per flagged component, in the order Tx, Ty, Tz, S, Qx, Qy, Qz, Qw.
//!
//! **Assumption:** which flag bit marks which component is not documented. This crate
//! reads bit `i` as the `i`-th component of that list ([`FLAG_BITS`]); writers from
//! values always set all eight (flag 0xFF), which every reading of the docs accepts.

use meshfmt_core::{Problem, Problems};
use parsing_primitives::{Reader, Writer};
use unigine_common::bones::{check_bone1x_parents, read_bone1x_entries, write_bone1x_entries};
use unigine_common::keys::frame_keys;

use crate::FORMAT_NAME;
use crate::error::{Result, invalid};

/// The flag bit of each stored component, in storage order Tx, Ty, Tz, S, Qx, Qy, Qz,
/// Qw. An assumption (notes 4: "bit i is the i-th listed component"); change it here
/// if a real file ever shows otherwise.
pub const FLAG_BITS: [u8; 8] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80];

/// A bone of an as08 file (`i32`-length name, `i32` parent; shared with ms08).
pub type As08Bone = unigine_common::bones::Bone1x;

/// One bone's key in one frame: the stored components (Tx, Ty, Tz, S, Qx, Qy, Qz, Qw),
/// `Some` when flagged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct As08Key {
    /// Components in storage order.
    pub values: [Option<u16>; 8],
}

impl As08Key {
    /// The flag byte under [`FLAG_BITS`].
    pub fn flags(&self) -> u8 {
        self.values
            .iter()
            .zip(FLAG_BITS)
            .filter(|(v, _)| v.is_some())
            .fold(0, |f, (_, bit)| f | bit)
    }
}

/// An as08 file.
#[derive(Debug, Clone, PartialEq)]
pub struct As08 {
    /// Bones.
    pub bones: Vec<As08Bone>,
    /// Box minimum: translation xyz, scale in w.
    pub min: [f32; 4],
    /// Box size (max - min): translation xyz, scale spread in w.
    pub size: [f32; 4],
    /// Number of frames.
    pub num_frames: u32,
    /// `num_frames * bones.len()` keys, frame-major.
    pub keys: Vec<As08Key>,
}

impl As08 {
    /// The keys of frame `f` (empty past the end).
    pub fn frame(&self, f: usize) -> &[As08Key] {
        frame_keys(&self.keys, f, self.bones.len())
    }

    /// Decodes component `c` (0..8) of a stored value: translation and scale across
    /// the box, quaternion components as `u / 65535 * 2 - 1`.
    pub fn decode(&self, c: usize, u: u16) -> f32 {
        let t = f32::from(u) / 65535.0;
        match c {
            0..=3 => self.min[c] + self.size[c] * t,
            _ => t * 2.0 - 1.0,
        }
    }
}

/// Reads an as08 file.
pub(crate) fn read(r: &mut Reader<'_>) -> parsing_primitives::Result<As08> {
    r.field("magic", |r| r.magic(b"as08"))?;
    let nb = r.field("num_bones", |r| r.i32_count(8))?;
    let bones = read_bone1x_entries(r, nb, 8)?;
    let b = r.field("bounds", |r| r.le::<[f32; 8]>())?;
    let num_frames = unigine_common::bones::read_frame_count(r)?;
    let total = u64::from(num_frames) * nb as u64;
    let keys = r.field("frames", |r| {
        r.array(total, 1, |r| {
            let flags = r.u8()?;
            let mut k = As08Key::default();
            for (v, bit) in k.values.iter_mut().zip(FLAG_BITS) {
                if flags & bit != 0 {
                    *v = Some(r.u16_le()?);
                }
            }
            Ok(k)
        })
    })?;
    r.finish()?;
    Ok(As08 {
        bones,
        min: [b[0], b[1], b[2], b[3]],
        size: [b[4], b[5], b[6], b[7]],
        num_frames,
        keys,
    })
}

impl As08 {
    /// Every reason [`As08::write`] would refuse the file, each at its path.
    pub fn problems(&self) -> Vec<Problem> {
        let nb = self.bones.len();
        let mut p = Problems::default();
        p.check("bones", check_bone1x_parents(&self.bones));
        p.check(
            "keys",
            unigine_common::keys::check_table_len(self.keys.len(), self.num_frames, nb, "keys"),
        );
        if i32::try_from(self.num_frames).is_err() {
            p.push("num_frames", "too many frames");
        }
        if i32::try_from(nb).is_err() {
            p.push("bones", "too many bones");
        }
        p.into_vec()
    }

    /// The file's bytes; an error when [`As08::problems`] finds any.
    pub fn write(&self) -> Result<Vec<u8>> {
        Problems::first(self.problems(), invalid)?;
        let mut w = Writer::new(FORMAT_NAME);
        w.bytes(b"as08");
        w.i32_le(self.bones.len() as i32);
        write_bone1x_entries(&mut w, &self.bones)?;
        w.le_slice(&self.min).le_slice(&self.size);
        w.i32_le(self.num_frames as i32);
        for k in &self.keys {
            w.u8(k.flags());
            for v in k.values.iter().flatten() {
                w.u16_le(*v);
            }
        }
        Ok(w.into_inner())
    }
}
