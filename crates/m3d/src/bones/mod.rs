//! BONE (skeleton and skins) and ACTN (animations).

pub(crate) mod ascii;
pub(crate) mod check;
pub(crate) mod core;
pub(crate) mod record;

use parsing_primitives::{Reader, Result as PResult};

use crate::error::{Result, invalid};
use crate::types::{Idx, Out, Skin, Str, Types};

/// One bone: parent, name and rest pose as indices into the vertex list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bone {
    /// Parent bone, [`Idx::UNDEF`] for a root.
    pub parent: Idx,
    /// Name.
    pub name: Str,
    /// Position vertex (relative to the parent).
    pub pos: Idx,
    /// Orientation (quaternion) vertex.
    pub ori: Idx,
}

/// The BONE chunk.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Skeleton {
    /// Bones, parents first.
    pub bones: Vec<Bone>,
    /// Skins referenced by vertices.
    pub skins: Vec<Skin>,
}

pub(crate) fn read_bone(r: &mut Reader<'_>, t: Types) -> PResult<Skeleton> {
    let mut s = Skeleton::default();
    record::skeleton(r, t, &mut s)?;
    Ok(s)
}

pub(crate) fn write_bone(o: &mut Out, s: &Skeleton) -> Result<()> {
    let t = o.t;
    o.raw(t.bi(), len_u32(s.bones.len())?, "BONE.numbone")?;
    o.raw(t.sk(), len_u32(s.skins.len())?, "BONE.numskin")?;
    for b in &s.bones {
        o.idx(t.bi(), b.parent, "BONE.parent")?;
        o.str(b.name, "BONE.name")?;
        o.idx(t.vi(), b.pos, "BONE.pos")?;
        o.idx(t.vi(), b.ori, "BONE.ori")?;
    }
    for (i, s) in s.skins.iter().enumerate() {
        if t.nb() == 1 {
            if !s.weights.is_empty() || s.bones.len() != 1 {
                return Err(invalid(format!(
                    "BONE.skin[{i}]: nb = 1 needs no weights and one bone"
                )));
            }
        } else {
            let nonzero = s.weights.iter().filter(|w| **w != 0).count();
            if s.weights.len() != t.nb() || nonzero != s.bones.len() {
                return Err(invalid(format!(
                    "BONE.skin[{i}]: needs {} weights and one bone per non-zero weight",
                    t.nb()
                )));
            }
            o.bytes(&s.weights);
        }
        for b in &s.bones {
            o.idx(t.bi(), *b, "BONE.skin.bone")?;
        }
    }
    Ok(())
}

pub(crate) fn len_u32(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| invalid(format!("count {n} does not fit 32 bits")))
}

/// One bone change in an animation frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transform {
    /// Bone.
    pub bone: Idx,
    /// New position vertex.
    pub pos: Idx,
    /// New orientation vertex.
    pub ori: Idx,
}

/// One animation frame: the bones that changed since the previous frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Time in milliseconds (real files have some beyond the action's duration).
    pub msec: u32,
    /// Changed bones.
    pub transforms: Vec<Transform>,
}

/// An ACTN chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// Name.
    pub name: Str,
    /// Duration in milliseconds.
    pub duration_msec: u32,
    /// Frames (the count is a u16 in the file).
    pub frames: Vec<Frame>,
}

pub(crate) fn read_actn(r: &mut Reader<'_>, t: Types) -> PResult<Action> {
    record::action(r, t)
}

pub(crate) fn write_actn(o: &mut Out, a: &Action) -> Result<()> {
    let t = o.t;
    o.str(a.name, "ACTN.name")?;
    let n = u16::try_from(a.frames.len()).map_err(|_| invalid("ACTN: more than 65535 frames"))?;
    o.u16(n);
    o.u32(a.duration_msec);
    for f in &a.frames {
        o.u32(f.msec);
        if t.fc() == 0 && !f.transforms.is_empty() {
            return Err(invalid("ACTN: transforms need fc_t, which is absent"));
        }
        o.raw(t.fc(), len_u32(f.transforms.len())?, "ACTN.numtransform")?;
        for x in &f.transforms {
            o.idx(t.bi(), x.bone, "ACTN.bone")?;
            o.idx(t.vi(), x.pos, "ACTN.pos")?;
            o.idx(t.vi(), x.ori, "ACTN.ori")?;
        }
    }
    Ok(())
}

impl Action {
    /// The `(pos, ori)` vertex of every bone after frames `0..=frame` are applied to the
    /// bind pose `bones` (what m3d.h's `m3d_frame` returns), without mutating anything.
    /// Transforms naming a bone past the list are ignored. `None` when `frame` is past the
    /// last frame. Each call replays frames `0..=frame`: O(bones + their transforms),
    /// bounded by the file (a caller walking every frame should keep the previous pose).
    ///
    /// ```
    /// use m3d_format::{Action, Bone, Frame, Idx, Str, Transform};
    /// let bones = [Bone { parent: Idx::UNDEF, name: Str(0), pos: Idx(0), ori: Idx(1) }];
    /// let a = Action { name: Str(0), duration_msec: 100, frames: vec![
    ///     Frame { msec: 0, transforms: vec![Transform { bone: Idx(0), pos: Idx(2), ori: Idx(3) }] },
    ///     Frame { msec: 50, transforms: vec![] },
    /// ] };
    /// assert_eq!(a.frame_pose(&bones, 1), Some(vec![(Idx(2), Idx(3))]));
    /// ```
    pub fn frame_pose(&self, bones: &[Bone], frame: usize) -> Option<Vec<(Idx, Idx)>> {
        let mut pose: Vec<(Idx, Idx)> = bones.iter().map(|b| (b.pos, b.ori)).collect();
        for f in self.frames.get(..=frame)? {
            for t in &f.transforms {
                if let Some(p) = t.bone.get().and_then(|b| pose.get_mut(b as usize)) {
                    *p = (t.pos, t.ori);
                }
            }
        }
        Some(pose)
    }
}
