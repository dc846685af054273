//! The BONE and ACTN records: one decoder each, over the checked reader (the
//! faithful [`Skeleton`] and [`Action`]) or a cursor over the chunk's bytes (the
//! one-pass load). BONE's bones and skins go to a [`SkeletonSink`], so the load builds
//! its own forms of them without a list per skin.

use super::{Action, Bone, Frame, Skeleton, Transform};
use crate::types::{Fields, Idx, Skin, Types};

/// Where [`skeleton`] puts what it decodes, each list announced (counted) before its
/// entries.
pub(crate) trait SkeletonSink<E> {
    /// `n` bones follow.
    fn bones(&mut self, n: usize) -> Result<(), E>;
    /// One bone.
    fn bone(&mut self, bone: Bone) -> Result<(), E>;
    /// `n` skins follow.
    fn skins(&mut self, n: usize) -> Result<(), E>;
    /// One skin: its weight bytes (none when one bone per vertex) and the bone of each
    /// non-zero weight (the one bone when one bone per vertex).
    fn skin(&mut self, weights: &[u8], bones: &[Idx]) -> Result<(), E>;
}

/// BONE: the bone and skin counts (plain numbers, no sentinels, checked against the
/// bytes left before anything is built), the bones, then the skins: with one bone per
/// vertex (`nb` = 1) a bone id, else `nb` weight bytes and a bone id per non-zero
/// weight.
pub(crate) fn skeleton<F: Fields, S: SkeletonSink<F::Error>>(
    c: &mut F,
    t: Types,
    sink: &mut S,
) -> Result<(), F::Error> {
    let bone_size = (t.bi() + t.si() + 2 * t.vi()).max(1);
    let nbone = c.field("numbone", |c| c.count_field(t.bi(), bone_size))?;
    let nskin = c.field("numskin", |c| c.raw(t.sk()))?;
    c.field("bone", |c| {
        let n = c.count(nbone as u64, bone_size)?;
        c.charge_for("decoded data", bytes_of::<Bone>(n))?;
        sink.bones(n)?;
        for i in 0..n {
            let bone = c.item(i, |c| {
                Ok(Bone {
                    parent: c.field("parent", |c| c.idx(t.bi()))?,
                    name: c.field("name", |c| c.str(t))?,
                    pos: c.field("pos", |c| c.idx(t.vi()))?,
                    ori: c.field("ori", |c| c.idx(t.vi()))?,
                })
            })?;
            sink.bone(bone)?;
        }
        Ok(())
    })?;
    // nb is 1, 2, 4 or 8.
    let nb = t.nb().min(8);
    let skin_min = if nb == 1 { t.bi() } else { nb };
    c.field("skin", |c| {
        let n = c.count(u64::from(nskin), skin_min.max(1))?;
        c.charge_for("decoded data", bytes_of::<Skin>(n))?;
        sink.skins(n)?;
        for i in 0..n {
            c.item(i, |c| {
                let mut bones = [Idx::UNDEF; 8];
                if nb == 1 {
                    // With bi absent this reads nothing, so charge what each one holds.
                    c.charge_for("skins", std::mem::size_of::<Idx>() as u64)?;
                    bones[0] = c.field("bone", |c| c.idx(t.bi()))?;
                    return sink.skin(&[], &bones[..1]);
                }
                c.charge_for("skins", (nb * (1 + std::mem::size_of::<Idx>())) as u64)?;
                let mut weights = [0u8; 8];
                let weights = &mut weights[..nb];
                c.field("weight", |c| c.bytes_into(weights))?;
                let mut used = 0;
                for (k, w) in weights.iter().enumerate() {
                    if let (true, Some(slot)) = (*w != 0, bones.get_mut(used)) {
                        *slot = c.field("bone", |c| c.item(k, |c| c.idx(t.bi())))?;
                        used += 1;
                    }
                }
                sink.skin(weights, bones.get(..used).unwrap_or_default())
            })?;
        }
        Ok(())
    })
}

/// ACTN: the name, frame count (u16) and duration, then per frame its time and the
/// bones it changes (a count of `fc_t` bytes, then bone, position and orientation
/// vertex each).
pub(crate) fn action<F: Fields>(c: &mut F, t: Types) -> Result<Action, F::Error> {
    let name = c.field("name", |c| c.str(t))?;
    let nframe = c.field("numframe", |c| c.u16())?;
    let duration_msec = c.field("durationmsec", |c| c.u32())?;
    let tsize = (t.bi() + 2 * t.vi()).max(1);
    let frames = c.field("frame", |c| {
        c.array(u64::from(nframe), 4 + t.fc(), |c| {
            let msec = c.field("msec", |c| c.u32())?;
            let n = c.field("numtransform", |c| c.raw(t.fc()))?;
            let transforms = c.field("transform", |c| {
                c.array(u64::from(n), tsize, |c| {
                    Ok(Transform {
                        bone: c.field("bone", |c| c.idx(t.bi()))?,
                        pos: c.field("pos", |c| c.idx(t.vi()))?,
                        ori: c.field("ori", |c| c.idx(t.vi()))?,
                    })
                })
            })?;
            Ok(Frame { msec, transforms })
        })
    })?;
    Ok(Action {
        name,
        duration_msec,
        frames,
    })
}

/// What `n` values of `T` take, as the checked reader charges a list of them.
fn bytes_of<T>(n: usize) -> u64 {
    (n as u64).saturating_mul(std::mem::size_of::<T>() as u64)
}

/// The faithful BONE chunk, as stored.
impl<E> SkeletonSink<E> for Skeleton {
    fn bones(&mut self, n: usize) -> Result<(), E> {
        self.bones.reserve_exact(n);
        Ok(())
    }

    fn bone(&mut self, bone: Bone) -> Result<(), E> {
        self.bones.push(bone);
        Ok(())
    }

    fn skins(&mut self, n: usize) -> Result<(), E> {
        self.skins.reserve_exact(n);
        Ok(())
    }

    fn skin(&mut self, weights: &[u8], bones: &[Idx]) -> Result<(), E> {
        self.skins.push(Skin {
            weights: weights.to_vec(),
            bones: bones.to_vec(),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Cur, Declined, Str};
    use parsing_primitives::Reader;
    use test_support::ByteBuilder;

    /// vi, si, bi, sk, fc u8; two bones per vertex; ci, ti and the voxel fields absent.
    const T: Types = Types((3 << 6) | (3 << 8) | (1 << 12) | (0xFF << 18));

    fn bone(parent: Idx, name: u32, pos: Idx, ori: Idx) -> Bone {
        Bone {
            parent,
            name: Str(name),
            pos,
            ori,
        }
    }

    fn skeleton_bytes() -> ByteBuilder {
        ByteBuilder::new()
            .u8(2, "numbone")
            .u8(2, "numskin")
            .bytes(&[0xFF, 4, 0, 1], "bone 0: root, name 4, pos 0, ori 1")
            .bytes(&[0, 9, 2, 0xFE], "bone 1: parent 0, name 9, pos 2, ori -2")
            .bytes(&[255, 0], "skin 0 weights")
            .u8(1, "skin 0: bone of weight 0")
            .bytes(&[100, 155], "skin 1 weights")
            .bytes(&[0, 1], "skin 1: bones of weights 0 and 1")
    }

    fn decoded<F: Fields>(c: &mut F, t: Types) -> Result<Skeleton, F::Error> {
        let mut s = Skeleton::default();
        skeleton(c, t, &mut s)?;
        Ok(s)
    }

    #[test]
    fn a_skeleton_decodes_alike_checked_and_unchecked() {
        let b = skeleton_bytes().build();
        let want = Skeleton {
            bones: vec![
                bone(Idx::UNDEF, 4, Idx(0), Idx(1)),
                bone(Idx(0), 9, Idx(2), Idx::MAX),
            ],
            skins: vec![
                Skin {
                    weights: vec![255, 0],
                    bones: vec![Idx(1)],
                },
                Skin {
                    weights: vec![100, 155],
                    bones: vec![Idx(0), Idx(1)],
                },
            ],
        };
        let got = decoded(&mut Reader::new("m3d", &b), T).map_err(|e| e.to_string());
        assert_eq!(got, Ok(want.clone()), "{}", skeleton_bytes().listing());
        assert_eq!(decoded(&mut Cur::new(&b), T), Ok(want));
    }

    #[test]
    fn one_bone_per_vertex_has_no_weights() {
        let t = Types(T.0 & !(3 << 12));
        let b = ByteBuilder::new()
            .u8(0, "numbone")
            .u8(2, "numskin")
            .u8(0xFF, "skin 0: bone -1")
            .u8(3, "skin 1: bone 3")
            .build();
        let skins = decoded(&mut Cur::new(&b), t).map(|s| s.skins);
        let skin = |b| Skin {
            weights: vec![],
            bones: vec![b],
        };
        assert_eq!(skins, Ok(vec![skin(Idx::UNDEF), skin(Idx(3))]));
    }

    #[test]
    fn cut_or_overlong_skeletons_name_the_field() {
        let b = skeleton_bytes().build();
        let cut = &b[..b.len() - 1];
        assert_eq!(decoded(&mut Cur::new(cut), T), Err(Declined));
        let e = decoded(&mut Reader::new("m3d", cut), T).err();
        let e = e.map(|e| (e.path().to_string(), e.offset()));
        assert_eq!(e, Some(("skin[1].bone[1]".to_string(), 16)));
        // 200 bones of 4 bytes do not fit: the count field is named.
        let mut long = b.clone();
        long[0] = 200;
        assert_eq!(decoded(&mut Cur::new(&long), T), Err(Declined));
        let e = decoded(&mut Reader::new("m3d", &long), T).err();
        let e = e.map(|e| (e.path().to_string(), e.offset()));
        assert_eq!(e, Some(("numbone".to_string(), 0)));
        // Within the bytes, past the caller's element limit.
        assert_eq!(decoded(&mut Cur::with_max(&b, 1), T), Err(Declined));
    }

    fn action_bytes() -> ByteBuilder {
        ByteBuilder::new()
            .u8(3, "name: offset 3")
            .u16_le(2, "numframe")
            .u32_le(1000, "durationmsec")
            .u32_le(0, "frame 0: msec")
            .u8(1, "numtransform")
            .bytes(&[1, 2, 3], "bone 1, pos 2, ori 3")
            .u32_le(500, "frame 1: msec")
            .u8(2, "numtransform")
            .bytes(&[0, 0xFF, 4], "bone 0, pos -1, ori 4")
            .bytes(&[1, 5, 0xFE], "bone 1, pos 5, ori -2")
    }

    #[test]
    fn an_action_decodes_alike_checked_and_unchecked() {
        let b = action_bytes().build();
        let t = |bone, pos, ori| Transform { bone, pos, ori };
        let want = Action {
            name: Str(3),
            duration_msec: 1000,
            frames: vec![
                Frame {
                    msec: 0,
                    transforms: vec![t(Idx(1), Idx(2), Idx(3))],
                },
                Frame {
                    msec: 500,
                    transforms: vec![t(Idx(0), Idx::UNDEF, Idx(4)), t(Idx(1), Idx(5), Idx::MAX)],
                },
            ],
        };
        let got = action(&mut Reader::new("m3d", &b), T).map_err(|e| e.to_string());
        assert_eq!(got, Ok(want.clone()), "{}", action_bytes().listing());
        assert_eq!(action(&mut Cur::new(&b), T), Ok(want));
    }

    #[test]
    fn cut_or_overlong_actions_name_the_field() {
        let b = action_bytes().build();
        let cut = &b[..b.len() - 1];
        assert_eq!(action(&mut Cur::new(cut), T), Err(Declined));
        let e = action(&mut Reader::new("m3d", cut), T).err();
        let e = e.map(|e| (e.path().to_string(), e.offset()));
        // Its count is checked first: two transforms of three bytes, five left after it.
        assert_eq!(e, Some(("frame[1].transform".to_string(), 20)));
        // A frame time cut short.
        let e = action(&mut Reader::new("m3d", &b[..17]), T).err();
        let e = e.map(|e| (e.path().to_string(), e.offset()));
        assert_eq!(e, Some(("frame[1].msec".to_string(), 15)));
        assert_eq!(action(&mut Cur::new(&b[..17]), T), Err(Declined));
        // Frame 0 claims 200 transforms of 3 bytes.
        let mut long = b.clone();
        long[11] = 200;
        assert_eq!(action(&mut Cur::new(&long), T), Err(Declined));
        let e = action(&mut Reader::new("m3d", &long), T).err();
        let e = e.map(|e| (e.path().to_string(), e.offset()));
        assert_eq!(e, Some(("frame[0].transform".to_string(), 12)));
    }
}
