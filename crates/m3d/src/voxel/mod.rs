//! VOXT (voxel types) and VOXD (voxel blocks, run-length coded).

pub(crate) mod ascii;
pub(crate) mod core;
pub(crate) mod meshing;

use parsing_primitives::{Reader, Result as PResult};

use crate::error::{Result, invalid};
use crate::types::{Idx, Out, Str, Types, read_idx, read_raw, read_str};

/// One voxel type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoxelType {
    /// ci_t colour.
    pub color: u32,
    /// Name (e.g. a material or `minecraft:stone`).
    pub name: Str,
    /// The rotation byte as stored (bit 6 is bit 8 of the shape).
    pub rotation: u8,
    /// Low 8 bits of the shape.
    pub shape_low: u8,
    /// Skin.
    pub skin: Idx,
    /// Sub-items `(count, name)`.
    pub items: Vec<(u16, Str)>,
}

pub(crate) fn read_voxt(r: &mut Reader<'_>, t: Types) -> PResult<Vec<VoxelType>> {
    let mut out = Vec::new();
    let mut i = 0;
    while !r.is_empty() {
        // Four bytes at least (ci/sk absent, si u8), 40 in memory.
        r.charge_for("voxel types", std::mem::size_of::<VoxelType>() as u64)?;
        out.push(r.field("voxtype", |r| {
            r.item(i, |r| {
                let color = read_raw(r, t.ci())?;
                let name = read_str(r, t)?;
                let rotation = r.u8()?;
                let shape_low = r.u8()?;
                let n = r.u8()?;
                let skin = read_idx(r, t.sk())?;
                let items = r.field("item", |r| {
                    r.array(u64::from(n), 2 + t.si(), |r| {
                        Ok((r.u16_le()?, read_str(r, t)?))
                    })
                })?;
                Ok(VoxelType {
                    color,
                    name,
                    rotation,
                    shape_low,
                    skin,
                    items,
                })
            })
        })?);
        i += 1;
    }
    Ok(out)
}

pub(crate) fn write_voxt(o: &mut Out, v: &[VoxelType]) -> Result<()> {
    let t = o.t;
    for v in v {
        o.raw(t.ci(), v.color, "VOXT.color")?;
        o.str(v.name, "VOXT.name")?;
        o.u8(v.rotation);
        o.u8(v.shape_low);
        o.u8(u8::try_from(v.items.len()).map_err(|_| invalid("VOXT: more than 255 items"))?);
        o.idx(t.sk(), v.skin, "VOXT.skin")?;
        for (n, s) in &v.items {
            o.u16(*n);
            o.str(*s, "VOXT.item")?;
        }
    }
    Ok(())
}

/// A run of the voxel data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Run {
    /// `0x80 | (n-1)`: one value repeated n (1..=128) times.
    Repeat(u8, Idx),
    /// `n-1`: n (1..=128) literal values.
    Literal(Vec<Idx>),
}

/// A VOXD block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoxelBlock {
    /// Name.
    pub name: Str,
    /// Position x, y, z (signed vd_t).
    pub pos: [i32; 3],
    /// Size w, h, d (unsigned vd_t).
    pub size: [u32; 3],
    /// Uncertainty.
    pub uncertain: u8,
    /// Group.
    pub group: u8,
    /// Runs as stored.
    pub runs: Vec<Run>,
}

impl VoxelBlock {
    /// The voxel types in `(y * d + z) * w + x` order, [`Idx::UNDEF`] past the coded data
    /// (as m3d.h does). `None` when `w*h*d` exceeds `max`.
    pub fn voxels(&self, max: usize) -> Option<Vec<Idx>> {
        let [w, h, d] = self.size.map(|v| v as usize);
        let n = w.checked_mul(h)?.checked_mul(d)?;
        if n > max {
            return None;
        }
        let mut out = Vec::with_capacity(n);
        for run in &self.runs {
            match run {
                Run::Repeat(k, v) => out.extend(std::iter::repeat_n(*v, usize::from(*k))),
                Run::Literal(vs) => out.extend_from_slice(vs),
            }
            if out.len() >= n {
                break;
            }
        }
        out.resize(n, Idx::UNDEF);
        Some(out)
    }

    /// `w * h * d`, `None` when it does not fit a `usize`.
    pub(crate) fn voxel_count(&self) -> Option<usize> {
        let [w, h, d] = self.size.map(|v| v as usize);
        w.checked_mul(h)?.checked_mul(d)
    }

    /// [`coded_voxels`](Self::coded_voxels) without a copy when the runs are one literal
    /// run (the text reader's blocks of up to 128 voxels).
    pub(crate) fn coded_in_place(&self, n: usize) -> Option<&[Idx]> {
        match self.runs.as_slice() {
            [Run::Literal(v)] => v.get(..n.min(v.len())),
            _ => None,
        }
    }

    /// The voxels the runs code, in [`voxels`](Self::voxels) order, at most `n` (the grid
    /// size): every voxel after them is [`Idx::UNDEF`], so they are not stored. Charged to
    /// `budget` first; proportional to the runs, not to the grid a few bytes can declare.
    pub(crate) fn coded_voxels(
        &self,
        n: usize,
        budget: &parsing_primitives::Budget,
    ) -> std::result::Result<Vec<Idx>, parsing_primitives::BudgetExceeded> {
        let coded = self
            .runs
            .iter()
            .map(Run::len)
            .fold(0usize, usize::saturating_add)
            .min(n);
        budget.charge_items::<Idx>("voxel grid", coded)?;
        let mut out = Vec::with_capacity(coded);
        for run in &self.runs {
            // Never past `coded`: the vector stays at the capacity charged.
            let left = coded.saturating_sub(out.len());
            if left == 0 {
                break;
            }
            match run {
                Run::Repeat(k, v) => {
                    out.extend(std::iter::repeat_n(*v, usize::from(*k).min(left)));
                }
                Run::Literal(vs) => out.extend_from_slice(vs.get(..left).unwrap_or(vs)),
            }
        }
        Ok(out)
    }
}

impl Run {
    /// Voxels the run codes.
    fn len(&self) -> usize {
        match self {
            Run::Repeat(k, _) => usize::from(*k),
            Run::Literal(vs) => vs.len(),
        }
    }
}

fn read_signed(r: &mut Reader<'_>, w: usize) -> PResult<i32> {
    Ok(match w {
        1 => i32::from(r.i8()?),
        2 => i32::from(r.i16_le()?),
        _ => r.i32_le()?,
    })
}

pub(crate) fn read_voxd(r: &mut Reader<'_>, t: Types) -> PResult<VoxelBlock> {
    let vd = t.vd();
    let name = r.field("name", |r| read_str(r, t))?;
    let pos = r.field("pos", |r| {
        Ok([
            read_signed(r, vd)?,
            read_signed(r, vd)?,
            read_signed(r, vd)?,
        ])
    })?;
    let size = r.field("size", |r| {
        Ok([read_raw(r, vd)?, read_raw(r, vd)?, read_raw(r, vd)?])
    })?;
    let uncertain = r.field("uncertain", |r| r.u8())?;
    let group = r.field("group", |r| r.u8())?;
    // u32 sizes (vd 4 bytes) overflow a u64 product: saturated, it still means "every
    // run the chunk holds".
    let total = u64::from(size[0])
        .saturating_mul(u64::from(size[1]))
        .saturating_mul(u64::from(size[2]));
    let mut runs = Vec::new();
    let mut decoded = 0u64;
    // Runs until w*h*d voxels are coded; bytes after that stay in the chunk tail.
    while decoded < total && !r.is_empty() {
        // A run takes 2 bytes at least and 32 in memory.
        r.charge_for("voxel runs", std::mem::size_of::<Run>() as u64)?;
        let run = r.field("run", |r| {
            r.item(runs.len(), |r| {
                let c = r.u8()?;
                let n = usize::from(c & 0x7F) + 1;
                if c & 0x80 != 0 {
                    Ok(Run::Repeat(n as u8, read_idx(r, t.vp())?))
                } else {
                    let n = r.count(n as u64, t.vp())?;
                    r.charge_for("voxel runs", (n * std::mem::size_of::<Idx>()) as u64)?;
                    let mut v = Vec::with_capacity(n);
                    for _ in 0..n {
                        v.push(read_idx(r, t.vp())?);
                    }
                    Ok(Run::Literal(v))
                }
            })
        })?;
        decoded += match &run {
            Run::Repeat(n, _) => u64::from(*n),
            Run::Literal(v) => v.len() as u64,
        };
        runs.push(run);
    }
    Ok(VoxelBlock {
        name,
        pos,
        size,
        uncertain,
        group,
        runs,
    })
}

pub(crate) fn write_voxd(o: &mut Out, b: &VoxelBlock) -> Result<()> {
    let t = o.t;
    let vd = t.vd();
    o.str(b.name, "VOXD.name")?;
    for p in b.pos {
        let fits = match vd {
            1 => i8::try_from(p).is_ok(),
            2 => i16::try_from(p).is_ok(),
            _ => true,
        };
        if !fits {
            return Err(invalid("VOXD: position does not fit vd_t"));
        }
        o.raw(vd, (p as u32) & mask(vd), "VOXD.pos")?;
    }
    for s in b.size {
        o.raw(vd, s, "VOXD.size")?;
    }
    o.u8(b.uncertain);
    o.u8(b.group);
    for run in &b.runs {
        match run {
            Run::Repeat(n, v) => {
                if *n == 0 || *n > 128 {
                    return Err(invalid("VOXD: a repeat run holds 1..=128 voxels"));
                }
                o.u8(0x80 | (n - 1));
                o.idx(t.vp(), *v, "VOXD.voxel")?;
            }
            Run::Literal(vs) => {
                if vs.is_empty() || vs.len() > 128 {
                    return Err(invalid("VOXD: a literal run holds 1..=128 voxels"));
                }
                o.u8((vs.len() - 1) as u8);
                for v in vs {
                    o.idx(t.vp(), *v, "VOXD.voxel")?;
                }
            }
        }
    }
    Ok(())
}

fn mask(w: usize) -> u32 {
    match w {
        1 => 0xFF,
        2 => 0xFFFF,
        _ => u32::MAX,
    }
}
