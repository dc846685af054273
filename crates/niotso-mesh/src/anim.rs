//! `.anim` v2: faithful types, read and write (notes/niotso.md section 5).

use parsing_primitives::{RawString, Writer};

use crate::error::{Result, invalid};
use crate::props::{PropsList, read_props_list, write_props_list};
use crate::{FORMAT_NAME, ReadOptions};

/// One timed property list: a time in milliseconds and its properties.
pub type TimedProps = (i32, PropsList);

/// One bone's track: consecutive frames in the shared pools.
#[derive(Debug, Clone, PartialEq)]
pub struct Motion {
    /// Field the wiki calls unknown (FreeSO writes 0, other tools 1).
    pub unknown: u32,
    /// The bone it moves.
    pub bone_name: RawString,
    /// Frames.
    pub frame_count: u32,
    /// Duration as stored.
    pub duration: f32,
    /// The stored "has translation" byte.
    pub has_translation: u8,
    /// The stored "has rotation" byte.
    pub has_rotation: u8,
    /// First translation in the pool (-1 in FreeSO files when unused).
    pub first_translation: i32,
    /// First rotation in the pool.
    pub first_rotation: i32,
    /// The stored "has props" byte.
    pub has_props: u8,
    /// Property lists (NIO/FreeSO reading: a count of lists), when `has_props != 0`.
    pub props: Vec<PropsList>,
    /// The stored "has time props" byte.
    pub has_time_props: u8,
    /// Timed property lists, when `has_time_props != 0`.
    pub time_props: Vec<Vec<TimedProps>>,
}

/// An `.anim` file.
#[derive(Debug, Clone, PartialEq)]
pub struct Anim {
    /// Version (2).
    pub version: u32,
    /// Name (long Pascal string).
    pub name: RawString,
    /// Duration as stored (milliseconds in EA files, seconds in FreeSO ones).
    pub duration: f32,
    /// Distance travelled.
    pub distance: f32,
    /// The stored "is moving" byte.
    pub is_moving: u8,
    /// Shared translation pool.
    pub translations: Vec<[f32; 3]>,
    /// Shared rotation pool (x, y, z, w; applied as the conjugate, notes 3).
    pub rotations: Vec<[f32; 4]>,
    /// One per animated bone.
    pub motions: Vec<Motion>,
}

impl Anim {
    /// The largest frame count of any motion.
    pub fn frames(&self) -> u32 {
        self.motions
            .iter()
            .map(|m| m.frame_count)
            .max()
            .unwrap_or(0)
    }
}

fn uses(has: u8, first: i32, frames: u32, pool: usize) -> bool {
    has == 0 || frames == 0 || (first >= 0 && first as u64 + u64::from(frames) <= pool as u64)
}

/// Reads an `.anim`.
pub fn read(data: &[u8]) -> Result<Anim> {
    read_with(data, &ReadOptions::default())
}

/// Reads an `.anim` with reading choices (the budget, trailing
/// bytes, other versions). Motions may share frames of the pools; what they ask for is
/// charged when converted ([`Anim::to_core_with`]), not here.
pub fn read_with(data: &[u8], options: &ReadOptions) -> Result<Anim> {
    let mut r = options.reader(data);
    let at = r.offset();
    let version = r.field("version", |r| r.u32_be())?;
    if version != 2 && !options.any_version {
        return Err(r
            .invalid_at(at, format!("animation version {version}, expected 2"))
            .into());
    }
    let name = r.field("name", |r| r.pascal_u16_be().map(RawString::from))?;
    let [duration, distance] = r.le::<[f32; 2]>()?;
    let is_moving = r.field("is_moving", |r| r.u8())?;
    let nt = r.field("translation_count", |r| r.u32_be())?;
    let translations: Vec<[f32; 3]> = r.field("translations", |r| r.le_array(u64::from(nt)))?;
    let nq = r.field("rotation_count", |r| r.u32_be())?;
    let rotations: Vec<[f32; 4]> = r.field("rotations", |r| r.le_array(u64::from(nq)))?;
    let nm = r.field("motion_count", |r| r.u32_be())?;
    let motions = r.field("motions", |r| {
        r.array(u64::from(nm), 24, |r| {
            let at = r.offset();
            let unknown = r.u32_be()?;
            let bone_name = RawString::from(r.pascal_u8()?);
            let frame_count = r.u32_be()?;
            let duration = r.f32_le()?;
            let has_translation = r.u8()?;
            let has_rotation = r.u8()?;
            let [first_translation, first_rotation] = r.be::<[i32; 2]>()?;
            if !uses(has_translation, first_translation, frame_count, translations.len())
                || !uses(has_rotation, first_rotation, frame_count, rotations.len())
            {
                return Err(r.invalid_at(at, format!(
                    "{frame_count} frames from translation {first_translation} / rotation {first_rotation} leave the pools ({} / {})",
                    translations.len(),
                    rotations.len()
                )));
            }
            let has_props = r.u8()?;
            let props = if has_props != 0 {
                let n = r.u32_be()?;
                r.field("props", |r| r.array(u64::from(n), 4, read_props_list))?
            } else {
                Vec::new()
            };
            let has_time_props = r.u8()?;
            let time_props = if has_time_props != 0 {
                let n = r.u32_be()?;
                r.field("time_props", |r| {
                    r.array(u64::from(n), 4, |r| {
                        let items = r.u32_be()?;
                        r.array(u64::from(items), 8, |r| {
                            let time = r.i32_be()?;
                            Ok((time, read_props_list(r)?))
                        })
                    })
                })?
            } else {
                Vec::new()
            };
            Ok(Motion {
                unknown,
                bone_name,
                frame_count,
                duration,
                has_translation,
                has_rotation,
                first_translation,
                first_rotation,
                has_props,
                props,
                has_time_props,
                time_props,
            })
        })
    })?;
    options.finish(&r)?;
    Ok(Anim {
        version,
        name,
        duration,
        distance,
        is_moving,
        translations,
        rotations,
        motions,
    })
}

impl Anim {
    /// The file's bytes. Fails when a motion's frames leave the pools or properties are
    /// present with their flag byte 0.
    pub fn write(&self) -> Result<Vec<u8>> {
        let count = |n: usize| {
            u32::try_from(n).map_err(|_| invalid(format!("count {n} does not fit 32 bits")))
        };
        let mut w = Writer::new(FORMAT_NAME);
        w.u32_be(self.version);
        w.pascal_u16_be(self.name.as_bytes())?;
        w.f32_le(self.duration)
            .f32_le(self.distance)
            .u8(self.is_moving);
        w.u32_be(count(self.translations.len())?);
        w.le_slice(&self.translations);
        w.u32_be(count(self.rotations.len())?);
        w.le_slice(&self.rotations);
        w.u32_be(count(self.motions.len())?);
        for m in &self.motions {
            if !uses(
                m.has_translation,
                m.first_translation,
                m.frame_count,
                self.translations.len(),
            ) || !uses(
                m.has_rotation,
                m.first_rotation,
                m.frame_count,
                self.rotations.len(),
            ) {
                return Err(invalid(format!(
                    "motion '{}': frames leave the pools",
                    m.bone_name
                )));
            }
            if (m.has_props == 0 && !m.props.is_empty())
                || (m.has_time_props == 0 && !m.time_props.is_empty())
            {
                return Err(invalid(format!(
                    "motion '{}': properties with their flag byte 0",
                    m.bone_name
                )));
            }
            w.u32_be(m.unknown);
            w.pascal_u8(m.bone_name.as_bytes())?;
            w.u32_be(m.frame_count).f32_le(m.duration);
            w.u8(m.has_translation).u8(m.has_rotation);
            w.i32_be(m.first_translation).i32_be(m.first_rotation);
            w.u8(m.has_props);
            if m.has_props != 0 {
                w.u32_be(count(m.props.len())?);
                for p in &m.props {
                    write_props_list(&mut w, p)?;
                }
            }
            w.u8(m.has_time_props);
            if m.has_time_props != 0 {
                w.u32_be(count(m.time_props.len())?);
                for list in &m.time_props {
                    w.u32_be(count(list.len())?);
                    for (time, props) in list {
                        w.i32_be(*time);
                        write_props_list(&mut w, props)?;
                    }
                }
            }
        }
        Ok(w.into_inner())
    }
}
