//! The chunks of the HEAD..OMD3 payload as faithful types (notes/m3d.md sections 2-3):
//! indices keep m3d.h's sentinels (-1 undefined, -2 marker), coordinates their decoded
//! value, string references their offset, and chunks this release does not decode
//! (SHPE commands, PROC, unknown magics) their bytes.

use parsing_primitives::Reader;

use crate::types::Types;

/// Fewest bytes a chunk takes (magic + length).
const CHUNK_HEADER: usize = 8;

/// The HEAD chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct Head {
    /// Model scale in meters (m3d.h uses 1.0 when <= 0; kept as stored here).
    pub scale: f32,
    /// Field widths.
    pub types: Types,
    /// The string table (NUL-terminated strings; references are offsets into it).
    pub strings: Vec<u8>,
}

impl Head {
    /// The string at `offset`, `None` for offset 0 (m3d.h's "no string") or a reference
    /// outside the table or without a NUL.
    pub fn string(&self, offset: u32) -> Option<&str> {
        if offset == 0 {
            return None;
        }
        let rest = self.strings.get(offset as usize..)?;
        let end = rest.iter().position(|&b| b == 0)?;
        std::str::from_utf8(&rest[..end]).ok()
    }

    /// The model name, licence, author and description (the first four strings).
    pub fn titles(&self) -> [&str; 4] {
        let mut it = self
            .strings
            .split(|&b| b == 0)
            .map(|s| std::str::from_utf8(s).unwrap_or(""));
        [(); 4].map(|()| it.next().unwrap_or(""))
    }
}

/// A VRTS record: `x y z w` (normalized: multiply x, y, z by [`Head::scale`]), colour
/// and skin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vertex {
    /// Coordinates as decoded (int8 / 127, int16 / 32767, or the float).
    pub xyzw: [f64; 4],
    /// Colour: the CMAP index for 8/16-bit colours, the literal RGBA (R in the low
    /// byte) for 32-bit ones, 0 when absent.
    pub colour: u32,
    /// Skin index, -1 none, -2 marks a quaternion (bone orientation) vertex.
    pub skin: i32,
}

/// A bone of the BONE chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bone {
    /// Parent bone, -1 for a root.
    pub parent: i32,
    /// Name (string offset).
    pub name: u32,
    /// Position vertex (relative to the parent).
    pub pos: i32,
    /// Orientation vertex (a quaternion x, y, z, w).
    pub ori: i32,
}

/// A skin of the BONE chunk: up to `nb` (bone, weight) pairs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skin {
    /// The weight bytes as stored (255 = 1.0); empty for 1-bone skins, which store none.
    pub weights: Vec<u8>,
    /// One bone per non-zero weight (or the single bone).
    pub bones: Vec<i32>,
}

/// A material property value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PropValue {
    /// A colour (types 0-2, 4, 5): CMAP index or literal RGBA, as for vertices.
    Colour(u32),
    /// A float (always f32).
    Float(f32),
    /// An 8-bit integer (illumination model).
    Byte(u8),
    /// A texture name (string offset; types 128-255).
    Map(u32),
}

/// An MTRL chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Name (string offset).
    pub name: u32,
    /// `(type, value)` properties in file order.
    pub props: Vec<(u8, PropValue)>,
    /// Bytes after a property type this release does not know (m3d.h skips them too).
    pub unparsed: Vec<u8>,
}

/// A MESH record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MeshRecord {
    /// `n = 0, flags = 0`: use a material (string offset; 0 = none).
    UseMaterial(u32),
    /// `n = 0, flags != 0`: use a parameter.
    UseParameter {
        /// The flags nibble.
        flags: u8,
        /// Parameter name (string offset).
        name: u32,
    },
    /// A polygon of `corners.len()` points (real files only have triangles).
    Polygon {
        /// The flags nibble: 1 UVs, 2 normals, 4 max vertices.
        flags: u8,
        /// Per corner: vertex, UV, normal, max vertex (-1 when not stored).
        corners: Vec<[i32; 4]>,
    },
}

/// One bone change in an animation frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transform {
    /// Bone.
    pub bone: i32,
    /// Position vertex.
    pub pos: i32,
    /// Orientation vertex.
    pub ori: i32,
}

/// An animation frame: the bones changed since the previous frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Time in milliseconds.
    pub msec: u32,
    /// Changed bones.
    pub transforms: Vec<Transform>,
}

/// An ACTN chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// Name (string offset).
    pub name: u32,
    /// Duration in milliseconds.
    pub duration_msec: u32,
    /// Frames.
    pub frames: Vec<Frame>,
}

/// An LBLS chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labels {
    /// Group name (string offset).
    pub name: u32,
    /// Language (string offset).
    pub lang: u32,
    /// Colour.
    pub colour: u32,
    /// `(vertex, text offset)` records.
    pub labels: Vec<(i32, u32)>,
}

/// A VOXT record: a voxel type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoxelType {
    /// Colour.
    pub colour: u32,
    /// Name (string offset).
    pub name: u32,
    /// Rotation byte (bit 6 is the shape's ninth bit).
    pub rotation: u8,
    /// Low 8 bits of the shape.
    pub shape: u8,
    /// Skin index.
    pub skin: i32,
    /// `(count, name offset)` items.
    pub items: Vec<(u16, u32)>,
}

/// A VOXD chunk: a block of voxels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoxelBlock {
    /// Name (string offset).
    pub name: u32,
    /// Position x, y, z.
    pub pos: [i32; 3],
    /// Size w, h, d.
    pub size: [u32; 3],
    /// Uncertainty.
    pub uncertain: u8,
    /// Group.
    pub group: u8,
    /// `w * h * d` voxel types (x fastest, then z, then y), -1 unset, -2 clear.
    pub voxels: Vec<i32>,
}

/// A chunk kept as bytes: its magic and content after the 8-byte header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawChunk {
    /// Magic.
    pub magic: [u8; 4],
    /// Content.
    pub data: Vec<u8>,
}

/// Everything a binary file holds, chunk by chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunks {
    /// HEAD.
    pub head: Head,
    /// CMAP colours (R in the low byte).
    pub cmap: Vec<u32>,
    /// TMAP `(u, v)` (v down).
    pub tmap: Vec<[f64; 2]>,
    /// VRTS.
    pub vertices: Vec<Vertex>,
    /// Bytes after the last whole VRTS record (m3d.h ignores them).
    pub vertex_tail: Vec<u8>,
    /// BONE bones.
    pub bones: Vec<Bone>,
    /// BONE skins.
    pub skins: Vec<Skin>,
    /// MTRL chunks.
    pub materials: Vec<Material>,
    /// MESH chunks' records, one list per chunk.
    pub meshes: Vec<Vec<MeshRecord>>,
    /// SHPE chunks (name and commands kept as bytes).
    pub shapes: Vec<RawChunk>,
    /// VOXT records.
    pub voxel_types: Vec<VoxelType>,
    /// VOXD blocks.
    pub voxel_blocks: Vec<VoxelBlock>,
    /// LBLS chunks.
    pub labels: Vec<Labels>,
    /// ACTN chunks.
    pub actions: Vec<Action>,
    /// ASET chunks: `(name offset, bytes)`.
    pub assets: Vec<(u32, Vec<u8>)>,
    /// PROC chunks and unknown magics, as stored.
    pub extras: Vec<RawChunk>,
    /// Every chunk's magic in file order (the writer reproduces the order).
    pub order: Vec<[u8; 4]>,
}

impl Chunks {
    /// Triangles over every MESH chunk (records of 3 points).
    pub fn triangle_count(&self) -> usize {
        self.meshes
            .iter()
            .flatten()
            .filter(|r| matches!(r, MeshRecord::Polygon { corners, .. } if corners.len() == 3))
            .count()
    }
}

/// The path name of a chunk in error messages.
fn chunk_name(magic: &[u8; 4]) -> &'static str {
    match magic {
        b"CMAP" => "CMAP",
        b"TMAP" => "TMAP",
        b"VRTS" => "VRTS",
        b"BONE" => "BONE",
        b"MTRL" => "MTRL",
        b"MESH" => "MESH",
        b"SHPE" => "SHPE",
        b"VOXT" => "VOXT",
        b"VOXD" => "VOXD",
        b"LBLS" => "LBLS",
        b"ACTN" => "ACTN",
        b"ASET" => "ASET",
        b"PROC" => "PROC",
        _ => "chunk",
    }
}

fn parse_chunk(
    magic: [u8; 4],
    mut body: Reader<'_>,
    t: &Types,
    c: &mut Chunks,
) -> parsing_primitives::Result<()> {
    match &magic {
        b"CMAP" => c.cmap = body.le_array::<u32>((body.remaining() / 4) as u64)?,
        b"TMAP" => {
            let n = body.remaining() / (2 * t.vc.bytes());
            c.tmap = body.array(n as u64, 2 * t.vc.bytes(), |r| {
                Ok([t.vc.read_unsigned(r)?, t.vc.read_unsigned(r)?])
            })?;
        }
        b"VRTS" => {
            let rec = 4 * t.vc.bytes() + t.ci.bytes() + t.sk.bytes();
            let n = body.remaining() / rec;
            c.vertices = body.array(n as u64, rec, |r| {
                let mut xyzw = [0.0; 4];
                for v in &mut xyzw {
                    *v = t.vc.read_signed(r)?;
                }
                Ok(Vertex {
                    xyzw,
                    colour: t.ci.read_unsigned(r)?,
                    skin: t.sk.read_index(r)?,
                })
            })?;
            c.vertex_tail = body.rest().to_vec();
        }
        b"BONE" => read_bones(&mut body, t, c)?,
        b"MTRL" => c.materials.push(read_material(&mut body, t)?),
        b"MESH" => c.meshes.push(read_mesh(&mut body, t)?),
        b"ACTN" => c.actions.push(read_action(&mut body, t)?),
        b"LBLS" => c.labels.push(read_labels(&mut body, t)?),
        b"VOXT" => {
            while !body.is_empty() {
                c.voxel_types.push(read_voxel_type(&mut body, t)?);
            }
        }
        b"VOXD" => c.voxel_blocks.push(read_voxel_block(&mut body, t)?),
        b"SHPE" => c.shapes.push(RawChunk {
            magic,
            data: body.rest().to_vec(),
        }),
        b"ASET" => {
            let name = t.si.read_unsigned(&mut body)?;
            c.assets.push((name, body.rest().to_vec()));
        }
        _ => c.extras.push(RawChunk {
            magic,
            data: body.rest().to_vec(),
        }),
    }
    Ok(())
}

/// Parses HEAD..OMD3 (the inflated payload).
pub fn parse(r: &mut Reader<'_>) -> parsing_primitives::Result<Chunks> {
    let head = r.field("HEAD", |r| {
        r.magic(b"HEAD")?;
        let at = r.offset();
        let len = r.u32_le()? as usize;
        if len < 16 {
            return Err(r.invalid_at(at, format!("HEAD length {len} is below 16")));
        }
        let scale = r.f32_le()?;
        let at = r.offset();
        let bits = r.u32_le()?;
        let types = Types::from_bits(bits).map_err(|m| r.invalid_at(at, m))?;
        let strings = r.field("strings", |r| r.bytes(len - 16))?.to_vec();
        Ok(Head {
            scale,
            types,
            strings,
        })
    })?;
    let t = head.types;
    let mut c = Chunks {
        head,
        cmap: Vec::new(),
        tmap: Vec::new(),
        vertices: Vec::new(),
        vertex_tail: Vec::new(),
        bones: Vec::new(),
        skins: Vec::new(),
        materials: Vec::new(),
        meshes: Vec::new(),
        shapes: Vec::new(),
        voxel_types: Vec::new(),
        voxel_blocks: Vec::new(),
        labels: Vec::new(),
        actions: Vec::new(),
        assets: Vec::new(),
        extras: Vec::new(),
        order: vec![*b"HEAD"],
    };
    let mut index = 0usize;
    loop {
        let magic: [u8; 4] = r.field("OMD3", |r| r.array_of::<4>())?;
        if &magic == b"OMD3" {
            break;
        }
        let at = r.offset() - 4;
        let len = r.u32_le()? as usize;
        if len < CHUNK_HEADER {
            return Err(r.invalid_at(at, format!("chunk length {len} is below 8")));
        }
        c.order.push(magic);
        r.field(chunk_name(&magic), |r| {
            r.item(index, |r| {
                let body = r.sub(len - CHUNK_HEADER)?;
                parse_chunk(magic, body, &t, &mut c)
            })
        })?;
        index += 1;
    }
    r.finish()?;
    Ok(c)
}

fn read_bones(r: &mut Reader<'_>, t: &Types, c: &mut Chunks) -> parsing_primitives::Result<()> {
    let nbone = t.bi.read_unsigned(r)?;
    let nskin = t.sk.read_unsigned(r)?;
    let bone_size = t.bi.bytes() + t.si.bytes() + 2 * t.vi.bytes();
    c.bones = r.field("bones", |r| {
        r.array(u64::from(nbone), bone_size, |r| {
            Ok(Bone {
                parent: t.bi.read_index(r)?,
                name: t.si.read_unsigned(r)?,
                pos: t.vi.read_index(r)?,
                ori: t.vi.read_index(r)?,
            })
        })
    })?;
    let skin_size = if t.nb == 1 { t.bi.bytes() } else { t.nb };
    c.skins = r.field("skins", |r| {
        r.array(u64::from(nskin), skin_size.max(1), |r| {
            if t.nb == 1 {
                return Ok(Skin {
                    weights: Vec::new(),
                    bones: vec![t.bi.read_index(r)?],
                });
            }
            let weights = r.bytes(t.nb)?.to_vec();
            let mut bones = Vec::with_capacity(t.nb);
            for _ in weights.iter().filter(|&&w| w != 0) {
                bones.push(t.bi.read_index(r)?);
            }
            Ok(Skin { weights, bones })
        })
    })?;
    Ok(())
}

fn read_material(r: &mut Reader<'_>, t: &Types) -> parsing_primitives::Result<Material> {
    let name = t.si.read_unsigned(r)?;
    let mut props = Vec::new();
    while !r.is_empty() {
        let kind = r.u8()?;
        let value = match kind {
            0 | 1 | 2 | 4 | 5 => PropValue::Colour(t.ci.read_unsigned(r)?),
            3 | 6 | 7 | 64..=68 => PropValue::Float(r.f32_le()?),
            8 => PropValue::Byte(r.u8()?),
            128..=255 => PropValue::Map(t.si.read_unsigned(r)?),
            _ => {
                // m3d.h stops at an unknown type and skips the rest of the chunk.
                let mut unparsed = vec![kind];
                unparsed.extend_from_slice(r.rest());
                return Ok(Material {
                    name,
                    props,
                    unparsed,
                });
            }
        };
        props.push((kind, value));
    }
    Ok(Material {
        name,
        props,
        unparsed: Vec::new(),
    })
}

fn read_mesh(r: &mut Reader<'_>, t: &Types) -> parsing_primitives::Result<Vec<MeshRecord>> {
    let mut records = Vec::new();
    let mut i = 0usize;
    while !r.is_empty() {
        let rec = r.item(i, |r| {
            let at = r.offset();
            let m = r.u8()?;
            let (n, flags) = (usize::from(m >> 4), m & 15);
            if n == 0 {
                let name = t.si.read_unsigned(r)?;
                return Ok(if flags == 0 {
                    MeshRecord::UseMaterial(name)
                } else {
                    MeshRecord::UseParameter { flags, name }
                });
            }
            if flags & 8 != 0 {
                return Err(r.invalid_at(
                    at,
                    format!("record flags {flags:#x} use the reserved bit 3"),
                ));
            }
            let mut corners = Vec::with_capacity(n);
            for _ in 0..n {
                let v = t.vi.read_index(r)?;
                // Absent index types take no bytes even when the flag asks (WusonBlitz).
                let uv = if flags & 1 != 0 {
                    t.ti.read_index(r)?
                } else {
                    -1
                };
                let normal = if flags & 2 != 0 {
                    t.vi.read_index(r)?
                } else {
                    -1
                };
                let max = if flags & 4 != 0 {
                    t.vi.read_index(r)?
                } else {
                    -1
                };
                corners.push([v, uv, normal, max]);
            }
            Ok(MeshRecord::Polygon { flags, corners })
        })?;
        records.push(rec);
        i += 1;
    }
    Ok(records)
}

fn read_action(r: &mut Reader<'_>, t: &Types) -> parsing_primitives::Result<Action> {
    let name = t.si.read_unsigned(r)?;
    let nframe = r.u16_le()?;
    let duration_msec = r.u32_le()?;
    let tr_size = t.bi.bytes() + 2 * t.vi.bytes();
    let frames = r.field("frames", |r| {
        r.array(u64::from(nframe), 4 + t.fc.bytes(), |r| {
            let msec = r.u32_le()?;
            let n = t.fc.read_unsigned(r)?;
            let transforms = r.array(u64::from(n), tr_size.max(1), |r| {
                Ok(Transform {
                    bone: t.bi.read_index(r)?,
                    pos: t.vi.read_index(r)?,
                    ori: t.vi.read_index(r)?,
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

fn read_labels(r: &mut Reader<'_>, t: &Types) -> parsing_primitives::Result<Labels> {
    let name = t.si.read_unsigned(r)?;
    let lang = t.si.read_unsigned(r)?;
    let colour = t.ci.read_unsigned(r)?;
    let mut labels = Vec::new();
    while !r.is_empty() {
        labels.push((t.vi.read_index(r)?, t.si.read_unsigned(r)?));
    }
    Ok(Labels {
        name,
        lang,
        colour,
        labels,
    })
}

fn read_voxel_type(r: &mut Reader<'_>, t: &Types) -> parsing_primitives::Result<VoxelType> {
    let colour = t.ci.read_unsigned(r)?;
    let name = t.si.read_unsigned(r)?;
    let rotation = r.u8()?;
    let shape = r.u8()?;
    let n = r.u8()?;
    let skin = t.sk.read_index(r)?;
    let items = r.array(u64::from(n), 2 + t.si.bytes(), |r| {
        Ok((r.u16_le()?, t.si.read_unsigned(r)?))
    })?;
    Ok(VoxelType {
        colour,
        name,
        rotation,
        shape,
        skin,
        items,
    })
}

fn read_voxel_block(r: &mut Reader<'_>, t: &Types) -> parsing_primitives::Result<VoxelBlock> {
    let name = t.si.read_unsigned(r)?;
    let signed = |r: &mut Reader<'_>| -> parsing_primitives::Result<i32> {
        Ok(match t.vd.0 {
            0 => i32::from(r.i8()?),
            1 => i32::from(r.i16_le()?),
            _ => r.i32_le()?,
        })
    };
    let pos = [signed(r)?, signed(r)?, signed(r)?];
    let size = [
        t.vd.read_unsigned(r)?,
        t.vd.read_unsigned(r)?,
        t.vd.read_unsigned(r)?,
    ];
    let uncertain = r.u8()?;
    let group = r.u8()?;
    let at = r.offset();
    let total = u64::from(size[0]) * u64::from(size[1]) * u64::from(size[2]);
    // The declared volume is checked against the limits before anything is allocated
    // (65535^3 voxels would be 1 PiB of indices).
    if total > r.limits().max_elements {
        return Err(r.invalid_at(at, format!("{total} voxels exceed the element limit")));
    }
    r.charge(total.saturating_mul(4))?;
    let mut voxels = Vec::with_capacity(total as usize);
    while (voxels.len() as u64) < total && !r.is_empty() {
        let c = r.u8()?;
        let run = usize::from(c & 0x7f) + 1;
        if c & 0x80 != 0 {
            let v = t.vp.read_index(r)?;
            let n = run.min(total as usize - voxels.len());
            voxels.extend(std::iter::repeat_n(v, n));
        } else {
            for _ in 0..run {
                let v = t.vp.read_index(r)?;
                if (voxels.len() as u64) < total {
                    voxels.push(v);
                }
            }
        }
    }
    // m3d.h leaves undecoded voxels unset.
    voxels.resize(total as usize, -1);
    Ok(VoxelBlock {
        name,
        pos,
        size,
        uncertain,
        group,
        voxels,
    })
}
