//! The whole file: the `3DMO` envelope, PRVW, zlib, HEAD and the chunk list.

use std::collections::HashMap;

use parsing_primitives::{Budget, BudgetExceeded, ErrorKind, Reader, Result as PResult};

use crate::bones::{self, Action, Skeleton};
use crate::error::{Error, Result, invalid};
use crate::label::{self, Labels};
use crate::material::{self, Material};
use crate::mesh::{self, Mesh, MeshRecord};
use crate::shape::{self, Shape};
use crate::types::{
    Colours, Coord, ListLengths, NameKey, Names, Out, Str, Types, read_str, string_at,
};
use crate::vertex::{self, Records, Vertex};
use crate::voxel::{self, VoxelBlock, VoxelType};

pub(crate) const FORMAT: &str = "m3d";

/// How to read.
///
/// ```
/// use m3d_format::{Budget, File, Limits, ReadOptions};
/// let bytes = File::default().write()?;
/// let budget = Budget::new(Limits::DEFAULT);
/// m3d_format::read_with(&bytes, &ReadOptions { budget: budget.clone() })?;
/// assert!(budget.used() > 0);
/// # Ok::<(), m3d_format::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The operation's budget: the inflated payload and everything decoded draw on it
    /// (clones share it: one for read, to_core, from_core and write; the default is a
    /// fresh one of [`Limits::DEFAULT`](crate::Limits::DEFAULT)).
    pub budget: Budget,
}

/// How to write ([`File::write_with`], [`File::write_ascii_with`],
/// [`File::from_core_with`]).
///
/// ```
/// use m3d_format::{File, Precision, WriteOptions};
/// let text = b"3dmodel 1\ntriangle\nMIT\nme\n\n\nVertex\n0 0 0 1\n1 0 0 1\n0 1 0 1\n\nMesh\n0 1 2\n";
/// let file = m3d_format::read(text)?;
/// let kept = file.write_with(&WriteOptions::default())?;
/// let narrow = WriteOptions { narrow: true, ..WriteOptions::default() };
/// let narrowed = file.write_with(&narrow)?;
/// assert!(narrowed.len() < kept.len());
/// let back = m3d_format::read(&narrowed)?;
/// assert_eq!(back.types.vc(), 4); // f32, from the text's f64
/// assert_eq!(back.types.vi(), 1); // three vertices: one-byte indices
/// assert_eq!(back.counts(), file.counts());
/// # Ok::<(), m3d_format::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// Compress HEAD..OMD3 as one zlib stream (the usual form) or store it as is.
    pub compress: bool,
    /// Deflate level on zlib's scale, 0 (stored) to 9 (smallest, slowest; higher values
    /// count as 9); 6 by default (`cargo xtask bench` compares its speed and size with
    /// m3d.h's `m3d_save`).
    pub level: u8,
    /// Coordinate precision [`File::from_core_with`] writes, and [`File::write_with`]
    /// when [`narrow`](Self::narrow) is set (else the faithful writer keeps what the
    /// file holds).
    pub precision: Precision,
    /// [`File::write_with`] re-encodes the payload as `m3d_save` writes a model instead
    /// of keeping the file's own field widths: coordinates at
    /// [`precision`](Self::precision); vertex, string, texture-map, bone, skin and
    /// frame-transform indices no wider than their lists' lengths need; the colour, bone
    /// and skin fields absent where nothing uses them; bytes after a chunk's records
    /// dropped. An ASCII file (read with the widest fields, f64 and u32) then saves as
    /// a compact binary. Off by default, which keeps the payload byte-identical to what
    /// was read. A field keeps its width where a stored value does not fit the narrower
    /// one (an index past its list); int8 and int16 refuse a vertex coordinate outside
    /// -1..1 (positions are stored normalised by the header's scale) or a texture
    /// coordinate outside 0..1 rather than clamp it, and a chunk kept as raw bytes
    /// (whose layout may follow the widths) refuses narrowing. Not narrowed: the shape,
    /// face and voxel fields and the bones per skin.
    pub narrow: bool,
    /// The operation's budget (clones share it; the default is a fresh one of
    /// [`Limits::DEFAULT`](crate::Limits::DEFAULT)).
    pub budget: Budget,
}

/// How coordinates are stored (the HEAD's `vc_t`): positions are normalised to the unit
/// cube first, so the quantized forms lose at most half a step of the model's extent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// int8, `v * 127`: error up to `0.5 / 127` of the extent (0.39%); UVs `/255`.
    Int8,
    /// int16, `v * 32767`: error up to `0.5 / 32767` of the extent; UVs `/65535`.
    Int16,
    /// f32 (exact for meshfmt-core's f32 values, up to the normalisation's rounding).
    #[default]
    Float,
    /// f64.
    Double,
}

impl Precision {
    /// The HEAD's `vc_t` code: 0 int8, 1 int16, 2 f32, 3 f64.
    pub(crate) fn code(self) -> u32 {
        match self {
            Precision::Int8 => 0,
            Precision::Int16 => 1,
            Precision::Float => 2,
            Precision::Double => 3,
        }
    }

    /// A quantized form's name and its steps from 0 to 1, signed (a position or
    /// normal: `v * steps`) and unsigned (a texture coordinate); `None` for floats.
    pub(crate) fn steps(self) -> Option<(&'static str, f64, f64)> {
        match self {
            Precision::Int8 => Some(("int8", 127.0, 255.0)),
            Precision::Int16 => Some(("int16", 32767.0, 65535.0)),
            Precision::Float | Precision::Double => None,
        }
    }
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            compress: true,
            level: 6,
            precision: Precision::Float,
            narrow: false,
            budget: Budget::default(),
        }
    }
}

/// What a chunk holds.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Body {
    /// CMAP: RGBA colours, R in the low byte.
    Cmap(Records<u32>),
    /// TMAP: u, v pairs.
    Tmap(Records<[Coord; 2]>),
    /// VRTS: the one vertex list (positions, normals, quaternions).
    Vrts(Records<Vertex>),
    /// BONE: bones and skins.
    Bone(Skeleton),
    /// MTRL: one material.
    Mtrl(Material),
    /// PROC: a procedural script name.
    Proc(Str),
    /// MESH: polygons.
    Mesh(Mesh),
    /// SHPE: one parametric shape.
    Shpe(Shape),
    /// VOXT: voxel types.
    Voxt(Vec<VoxelType>),
    /// VOXD: one voxel block.
    Voxd(VoxelBlock),
    /// LBLS: one label group.
    Lbls(Labels),
    /// ACTN: one animation.
    Actn(Action),
    /// ASET: one inlined asset (a PNG texture, a script...).
    Aset {
        /// Asset name (textures: without extension).
        name: Str,
        /// The asset bytes.
        data: Vec<u8>,
    },
    /// Any other chunk (application specific, or a VOXD the type bits make unreadable),
    /// kept verbatim.
    Extra {
        /// The magic.
        magic: [u8; 4],
        /// The chunk bytes after the 8-byte header.
        data: Vec<u8>,
    },
}

/// One chunk between HEAD and OMD3.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// What it holds.
    pub body: Body,
    /// Bytes after what the body decoded (m3d.h ignores them; kept for exact rewrites).
    pub tail: Vec<u8>,
}

impl Chunk {
    /// The four-byte magic.
    pub fn magic(&self) -> [u8; 4] {
        match &self.body {
            Body::Cmap(_) => *b"CMAP",
            Body::Tmap(_) => *b"TMAP",
            Body::Vrts(_) => *b"VRTS",
            Body::Bone(_) => *b"BONE",
            Body::Mtrl(_) => *b"MTRL",
            Body::Proc(_) => *b"PROC",
            Body::Mesh(_) => *b"MESH",
            Body::Shpe(_) => *b"SHPE",
            Body::Voxt(_) => *b"VOXT",
            Body::Voxd(_) => *b"VOXD",
            Body::Lbls(_) => *b"LBLS",
            Body::Actn(_) => *b"ACTN",
            Body::Aset { .. } => *b"ASET",
            Body::Extra { magic, .. } => *magic,
        }
    }
}

/// A Model 3D file as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct File {
    /// PRVW chunk contents (a PNG), outside the compressed part.
    pub preview: Option<Vec<u8>>,
    /// True when HEAD..OMD3 was a zlib stream.
    pub compressed: bool,
    /// Model scale: positions are stored normalised to -1..1; multiply x, y, z by this.
    pub scale: f32,
    /// The type bits selecting every variable width.
    pub types: Types,
    /// The string table (NUL-terminated strings: name, license, author, description, then
    /// the rest); [`Str`] values are byte offsets into it.
    pub strings: Vec<u8>,
    /// The chunks in file order.
    pub chunks: Vec<Chunk>,
}

/// How many of each thing a file holds, as stored (m3d.h's "raw" counts, without its
/// post-processing: no generated normals, no voxel meshing).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Counts {
    /// VRTS records (positions, normals and quaternions together).
    pub vertices: usize,
    /// Polygons in all MESH chunks.
    pub faces: usize,
    /// Triangles those polygons make (a polygon of n corners makes n - 2).
    pub triangles: usize,
    /// TMAP records.
    pub tmap: usize,
    /// CMAP colours.
    pub cmap: usize,
    /// Bones.
    pub bones: usize,
    /// Skins.
    pub skins: usize,
    /// MTRL chunks.
    pub materials: usize,
    /// Distinct non-empty texture names the materials use.
    pub textures: usize,
    /// SHPE chunks.
    pub shapes: usize,
    /// Labels in all LBLS chunks.
    pub labels: usize,
    /// ACTN chunks.
    pub actions: usize,
    /// Frames in all actions.
    pub frames: usize,
    /// Voxel types.
    pub voxel_types: usize,
    /// VOXD blocks.
    pub voxel_blocks: usize,
    /// PROC chunks.
    pub procedurals: usize,
    /// ASET chunks.
    pub inlined: usize,
    /// Unknown chunks (m3d.h also counts ASET here; this does not).
    pub extra: usize,
}

impl File {
    /// The string at offset `s`: bytes up to the NUL (or the table end); `None` for
    /// offset 0 or past the table. Takes the string's length in time; this crate's own
    /// loops match names through a key index built once per call instead.
    pub fn string(&self, s: Str) -> Option<&[u8]> {
        string_at(&self.strings, s)
    }

    /// The first four strings: name, license, author, description.
    pub fn header_strings(&self) -> [&[u8]; 4] {
        let mut it = self.strings.split(|b| *b == 0);
        [(); 4].map(|_| it.next().unwrap_or(&[]))
    }

    /// A stored colour field as RGBA (R in the low byte): a CMAP entry for ci u8/u16 (0 when
    /// the index is past the map, which m3d.h would read out of bounds), the value itself
    /// for ci u32, 0 when ci is absent.
    pub fn rgba(&self, color: u32) -> u32 {
        self.colours().rgba(color)
    }

    /// The colour field's meaning with the colour map found once, for loops over
    /// vertices ([`File::rgba`] looks the map up on every call).
    pub(crate) fn colours(&self) -> Colours<'_> {
        let cmap = self.chunks.iter().find_map(|c| match &c.body {
            Body::Cmap(m) => Some(m.items.as_slice()),
            _ => None,
        });
        Colours::new(self.types.ci(), cmap.unwrap_or_default())
    }

    /// The BONE chunk, if any.
    pub(crate) fn skeleton(&self) -> Option<&crate::bones::Skeleton> {
        self.chunks.iter().find_map(|c| match &c.body {
            Body::Bone(s) => Some(s),
            _ => None,
        })
    }

    /// The vertex list (empty without VRTS).
    pub fn vertices(&self) -> &[Vertex] {
        self.chunks
            .iter()
            .find_map(|c| match &c.body {
                Body::Vrts(v) => Some(v.items.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// Counts of everything, as stored.
    ///
    /// ```
    /// let f = m3d_format::File::default();
    /// assert_eq!(f.counts().vertices, 0);
    /// ```
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        // Texture names compared by key: one pass over the string table, not a comparison
        // per pair of maps.
        let maps = self.chunks.iter().flat_map(|ch| match &ch.body {
            Body::Mtrl(m) => m.props.as_slice(),
            _ => &[],
        });
        let names = Names::new(
            &self.strings,
            maps.filter_map(|p| match p.value {
                material::PropValue::Map(s) => Some(s),
                _ => None,
            }),
            None,
        )
        .unwrap_or_default();
        let mut textures: std::collections::HashSet<NameKey> = Default::default();
        for ch in &self.chunks {
            match &ch.body {
                Body::Cmap(v) => c.cmap += v.items.len(),
                Body::Tmap(v) => c.tmap += v.items.len(),
                Body::Vrts(v) => c.vertices += v.items.len(),
                Body::Bone(s) => {
                    c.bones += s.bones.len();
                    c.skins += s.skins.len();
                }
                Body::Mtrl(m) => {
                    c.materials += 1;
                    for (_, s) in m.maps() {
                        // m3d.h drops a map whose name is empty (real files have them).
                        if let Some(k) = names.key(s).filter(|k| !k.is_empty()) {
                            textures.insert(k);
                        }
                    }
                }
                Body::Proc(_) => c.procedurals += 1,
                Body::Mesh(m) => {
                    for r in &m.records {
                        if let MeshRecord::Polygon { corners, .. } = r {
                            c.faces += 1;
                            c.triangles += corners.len().saturating_sub(2);
                        }
                    }
                }
                Body::Shpe(_) => c.shapes += 1,
                Body::Voxt(v) => c.voxel_types += v.len(),
                Body::Voxd(_) => c.voxel_blocks += 1,
                Body::Lbls(l) => c.labels += l.labels.len(),
                Body::Actn(a) => {
                    c.actions += 1;
                    c.frames += a.frames.len();
                }
                Body::Aset { .. } => c.inlined += 1,
                Body::Extra { .. } => c.extra += 1,
            }
        }
        c.textures = textures.len();
        c
    }

    /// The binary file, compressed (see [`File::write_with`]).
    pub fn write(&self) -> Result<Vec<u8>> {
        self.write_with(&WriteOptions::default())
    }

    /// Writes the binary file to `w`.
    pub fn write_to(&self, mut w: impl std::io::Write) -> Result<()> {
        w.write_all(&self.write()?)?;
        Ok(())
    }

    /// The binary file. The payload (HEAD..OMD3) is byte-identical to what was read; the
    /// zlib stream itself may differ from the original encoder's (any valid stream loads).
    /// The payload, the compressed stream and the output are charged to the options'
    /// budget (they are held at once).
    pub fn write_with(&self, opts: &WriteOptions) -> Result<Vec<u8>> {
        let budget = opts.budget.clone();
        let payload = match opts.narrow {
            true => self.narrowed_payload(opts.precision, &budget)?,
            false => self.payload_in(&budget)?,
        };
        let body = if opts.compress {
            deflate(&payload, opts.level, &budget)?
        } else {
            payload
        };
        let preview = self.preview.as_ref().map_or(0, |p| p.len() + 8);
        let size = body.len().saturating_add(preview).saturating_add(8);
        budget.charge("output file", size as u64)?;
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(b"3DMO");
        out.extend_from_slice(&[0; 4]);
        if let Some(p) = &self.preview {
            out.extend_from_slice(b"PRVW");
            out.extend_from_slice(&len32(p.len() + 8)?.to_le_bytes());
            out.extend_from_slice(p);
        }
        out.extend_from_slice(&body);
        let total = len32(out.len())?.to_le_bytes();
        out.splice(4..8, total);
        Ok(out)
    }

    /// The payload of this file with its fields narrowed ([`WriteOptions::narrow`]):
    /// the narrowest widths that hold what the file stores, tried from the narrowest
    /// (unused fields absent, then indices sized by their lists, then the file's own
    /// widths): a field that cannot hold a stored value refuses it as it is written.
    fn narrowed_payload(&self, precision: Precision, budget: &Budget) -> Result<Vec<u8>> {
        if let Some(c) = self
            .chunks
            .iter()
            .find(|c| matches!(c.body, Body::Extra { .. }))
        {
            let magic = String::from_utf8_lossy(&c.magic()).into_owned();
            return Err(invalid(format!(
                "chunk {magic} is kept as raw bytes, which may follow the field widths: \
                 write this file without narrowing"
            )));
        }
        let own = self.types.with_vc(precision.code());
        let narrow = own.narrowed(self.list_lengths());
        let has = |magic: &[u8; 4]| self.chunks.iter().any(|c| &c.magic() == magic);
        let unused = narrow.without_unused(has(b"CMAP"), has(b"BONE"));
        // The narrower tries give way to the next on a value they cannot hold; the
        // file's own widths hold every value it read.
        let narrower = [(unused != narrow).then_some(unused), Some(narrow)];
        for types in narrower.into_iter().flatten().filter(|t| *t != own) {
            match self.payload_as(types, true, budget) {
                Err(Error::Invalid(_)) => {}
                done => return done,
            }
        }
        self.payload_as(own, true, budget)
    }

    /// The lengths of the lists the index fields point into.
    pub(crate) fn list_lengths(&self) -> ListLengths {
        let mut l = ListLengths {
            strings: self.strings.len(),
            ..ListLengths::default()
        };
        for c in &self.chunks {
            // The longest of each (a file has one of each list; the writer checks
            // every stored index against the widths anyway).
            match &c.body {
                Body::Tmap(t) => l.tmap = l.tmap.max(t.items.len()),
                Body::Vrts(v) => l.vertices = l.vertices.max(v.items.len()),
                Body::Bone(s) => {
                    l.bones = l.bones.max(s.bones.len());
                    l.skins = l.skins.max(s.skins.len());
                }
                Body::Actn(a) => {
                    let most = a.frames.iter().map(|f| f.transforms.len()).max();
                    l.per_frame = l.per_frame.max(most.unwrap_or(0));
                }
                _ => {}
            }
        }
        l
    }

    /// The uncompressed payload, HEAD through OMD3 (under a default budget).
    pub fn payload(&self) -> Result<Vec<u8>> {
        self.payload_in(&Budget::default())
    }

    /// [`payload`](Self::payload), each chunk charged to `budget` before it is appended.
    pub(crate) fn payload_in(&self, budget: &Budget) -> Result<Vec<u8>> {
        self.payload_as(self.types, false, budget)
    }

    /// The payload with the fields `types` gives; `convert`: coordinates converted to
    /// its `vc_t` and stored tails dropped (see [`Out::convert`]).
    fn payload_as(&self, types: Types, convert: bool, budget: &Budget) -> Result<Vec<u8>> {
        let mut charged = 0;
        let out = self.encode_payload(types, convert, budget, &mut charged);
        if out.is_err() {
            // What a failed attempt charged goes back (a narrowed write tries again).
            budget.release(charged);
        }
        out
    }

    /// [`payload_as`](Self::payload_as), adding what it charges to `charged`.
    fn encode_payload(
        &self,
        types: Types,
        convert: bool,
        budget: &Budget,
        charged: &mut u64,
    ) -> Result<Vec<u8>> {
        budget.charge("payload", self.strings.len() as u64 + 28)?;
        *charged += self.strings.len() as u64 + 28;
        let mut out = Vec::new();
        out.extend_from_slice(b"HEAD");
        out.extend_from_slice(&len32(self.strings.len() + 16)?.to_le_bytes());
        out.extend_from_slice(&self.scale.to_le_bytes());
        out.extend_from_slice(&types.0.to_le_bytes());
        out.extend_from_slice(&self.strings);
        for c in &self.chunks {
            let mut o = Out::new(types);
            o.convert = convert;
            match &c.body {
                Body::Cmap(v) => vertex::write_cmap(&mut o, v),
                Body::Tmap(v) => vertex::write_tmap(&mut o, v)?,
                Body::Vrts(v) => vertex::write_vrts(&mut o, v)?,
                Body::Bone(s) => bones::write_bone(&mut o, s)?,
                Body::Mtrl(m) => material::write_mtrl(&mut o, m)?,
                Body::Proc(s) => o.str(*s, "PROC.name")?,
                Body::Mesh(m) => mesh::write_mesh(&mut o, m)?,
                Body::Shpe(s) => shape::write_shpe(&mut o, s)?,
                Body::Voxt(v) => voxel::write_voxt(&mut o, v)?,
                Body::Voxd(b) => voxel::write_voxd(&mut o, b)?,
                Body::Lbls(l) => label::write_lbls(&mut o, l)?,
                Body::Actn(a) => bones::write_actn(&mut o, a)?,
                Body::Aset { name, data } => {
                    o.str(*name, "ASET.name")?;
                    o.bytes(data);
                }
                Body::Extra { magic, data } => {
                    if magic == b"OMD3" || magic == b"HEAD" {
                        return Err(invalid("an extra chunk cannot be named OMD3 or HEAD"));
                    }
                    o.bytes(data);
                }
            }
            o.tail(&c.tail);
            budget.charge("payload", o.buf.len() as u64 + 8)?;
            *charged += o.buf.len() as u64 + 8;
            out.extend_from_slice(&c.magic());
            out.extend_from_slice(&len32(o.buf.len() + 8)?.to_le_bytes());
            out.extend_from_slice(&o.buf);
        }
        out.extend_from_slice(b"OMD3");
        Ok(out)
    }
}

impl Default for File {
    fn default() -> Self {
        File {
            preview: None,
            compressed: true,
            scale: 1.0,
            // vc int8, every index u8, ci/ti/bi/sk/fc/hi/fi/vd/vp absent
            types: Types(0x03FF_CFC0),
            strings: vec![0; 4],
            chunks: Vec::new(),
        }
    }
}

/// One zlib stream of `payload` at `level` (zlib-rs, a port of zlib-ng), in a buffer of
/// deflate's worst-case size, charged first.
fn deflate(payload: &[u8], level: u8, budget: &Budget) -> Result<Vec<u8>> {
    let bound = zlib_rs::compress_bound(payload.len());
    budget.charge("compressed payload", bound as u64)?;
    let mut out = vec![0u8; bound];
    let config = zlib_rs::DeflateConfig::new(i32::from(level.min(9)));
    let (stream, rc) = zlib_rs::compress_slice(&mut out, payload, config);
    if !matches!(rc, zlib_rs::ReturnCode::Ok | zlib_rs::ReturnCode::StreamEnd) {
        return Err(invalid(format!("deflate failed ({rc:?})")));
    }
    let n = stream.len();
    out.truncate(n);
    Ok(out)
}

fn len32(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| invalid(format!("length {n} does not fit 32 bits")))
}

/// The binary form (`3DMO`), after [`read_with`](crate::read_with) has told it from the
/// text form.
pub(crate) fn read_binary(data: &[u8], budget: &Budget) -> Result<File> {
    let mut r = Reader::new(FORMAT, data).with_budget(budget.clone());
    r.magic(b"3DMO")?;
    let at = r.offset();
    let total = r.field("length", |r| r.u32_le())? as usize;
    if total < 8 || total > data.len() {
        return Err(r
            .invalid_at(
                at,
                format!("total length {total} is not within 8..={}", data.len()),
            )
            .into());
    }
    // Bytes past the stated total length are ignored (as m3d.h does).
    let mut r = r.sub(total - 8)?;
    let mut preview = None;
    if r.peek(4).ok() == Some(b"PRVW") {
        r.field("PRVW", |r| {
            r.skip(4)?;
            let at = r.offset();
            let len = r.u32_le()? as usize;
            if len < 8 {
                return Err(r.invalid_at(at, format!("chunk length {len} is below 8")));
            }
            let bytes = r.bytes(len - 8)?;
            r.charge_for("preview", bytes.len() as u64)?;
            preview = Some(bytes.to_vec());
            Ok(())
        })?;
    }
    if r.peek(4).ok() == Some(b"HEAD") {
        let mut f = read_chunks(&mut r)?;
        f.preview = preview;
        f.compressed = false;
        return Ok(f);
    }
    let start = r.offset();
    let (payload, charged) = inflate(r.rest(), budget).map_err(|e| match e {
        InflateError::Stream(message) => Error::Inflate {
            offset: start,
            message,
        },
        InflateError::Budget(e) => Error::OverBudget(e),
    })?;
    let mut f = read_payload_in(&payload, budget).map_err(|e| match e {
        Error::Decode(d) => Error::Payload(d),
        other => other,
    })?;
    // The file holds what it decoded, not the payload: its charge is handed back.
    drop(payload);
    budget.release(charged);
    f.preview = preview;
    Ok(f)
}

/// Reads an uncompressed payload, `HEAD` through `OMD3` (what a compressed file inflates
/// to), drawing on `opts.budget`. Error offsets are
/// within the payload.
pub fn read_payload(payload: &[u8], opts: &ReadOptions) -> Result<File> {
    read_payload_in(payload, &opts.budget.clone())
}

fn read_payload_in(payload: &[u8], budget: &Budget) -> Result<File> {
    let mut r = Reader::new(FORMAT, payload).with_budget(budget.clone());
    Ok(read_chunks(&mut r)?)
}

/// How many chunks the headers chain through, from their lengths alone (a cut or bad
/// header stops the count: the reader then reports it).
fn count_chunks(mut b: &[u8]) -> usize {
    let mut n = 0usize;
    while let Some(h) = b.get(..8).filter(|h| !h.starts_with(b"OMD3")) {
        let len = h
            .get(4..8)
            .and_then(|l| <[u8; 4]>::try_from(l).ok())
            .map_or(0, |l| u32::from_le_bytes(l) as usize);
        if len < 8 {
            break;
        }
        n += 1;
        b = b.get(len..).unwrap_or_default();
    }
    n
}

fn read_chunks(r: &mut Reader<'_>) -> PResult<File> {
    // As m3d.h: the payload must end with OMD3 (which also makes a cut file fail at once).
    if !r.rest().ends_with(b"OMD3") {
        let end = r.offset() + r.remaining() as u64;
        return Err(r.invalid_at(end, "the payload does not end with OMD3"));
    }
    let (scale, types, strings) = r.field("HEAD", |r| {
        r.magic(b"HEAD")?;
        let at = r.offset();
        let len = r.u32_le()? as usize;
        if len < 16 {
            return Err(r.invalid_at(at, format!("HEAD length {len} is below 16")));
        }
        let scale = r.f32_le()?;
        let tat = r.offset();
        let types = Types(r.u32_le()?);
        if types.vi() == 0 || types.si() == 0 {
            return Err(r.invalid_at(tat, "vi_t and si_t cannot be 3 (8 bytes)"));
        }
        let strings = r.field("strings", |r| {
            let b = r.bytes(len - 16)?;
            r.charge_for("string table", b.len() as u64)?;
            Ok(b.to_vec())
        })?;
        Ok((scale, types, strings))
    })?;
    // Chunks take 8 bytes at least and ~100 in memory: counted and charged up front.
    let n = count_chunks(r.rest());
    r.charge_for(
        "chunk list",
        (n as u64).saturating_mul(std::mem::size_of::<Chunk>() as u64),
    )?;
    let mut chunks = Vec::with_capacity(n);
    // Chunks seen of each magic, for the `MAGIC[i]` path step (a map: there can be
    // millions of chunks).
    let mut seen: HashMap<[u8; 4], usize> = HashMap::new();
    loop {
        if r.peek(4)? == b"OMD3" {
            r.skip(4)?;
            r.finish()?;
            break;
        }
        let magic: [u8; 4] = r.array_of()?;
        let at = r.offset();
        let len = r.u32_le()? as usize;
        if len < 8 {
            return Err(r.invalid_at(at, format!("chunk length {len} is below 8")));
        }
        let mut sub = r.sub(len - 8)?;
        let index = {
            let n = seen.entry(magic).or_insert(0);
            *n += 1;
            *n - 1
        };
        let t = types;
        let body = sub.field(name_of(&magic), |r| {
            r.item(index, |r| {
                Ok(match &magic {
                    b"CMAP" => Body::Cmap(vertex::read_cmap(r)?),
                    b"TMAP" => Body::Tmap(vertex::read_tmap(r, t)?),
                    b"VRTS" => Body::Vrts(vertex::read_vrts(r, t)?),
                    b"BONE" => Body::Bone(bones::read_bone(r, t)?),
                    b"MTRL" => Body::Mtrl(material::read_mtrl(r, t)?),
                    b"PROC" => Body::Proc(r.field("name", |r| read_str(r, t))?),
                    b"MESH" => Body::Mesh(mesh::read_mesh(r, t)?),
                    b"SHPE" => Body::Shpe(shape::read_shpe(r, t)?),
                    b"VOXT" => Body::Voxt(voxel::read_voxt(r, t)?),
                    b"VOXD" if t.vd() != 0 && t.vp() != 0 => Body::Voxd(voxel::read_voxd(r, t)?),
                    b"LBLS" => Body::Lbls(label::read_lbls(r, t)?),
                    b"ACTN" => Body::Actn(bones::read_actn(r, t)?),
                    b"ASET" => {
                        let name = r.field("name", |r| read_str(r, t))?;
                        let data = crate::types::rest_copy(r)?;
                        Body::Aset { name, data }
                    }
                    b"HEAD" => {
                        return Err(r.error(ErrorKind::InvalidValue {
                            message: "a second HEAD chunk".into(),
                        }));
                    }
                    _ => {
                        let data = crate::types::rest_copy(r)?;
                        Body::Extra { magic, data }
                    }
                })
            })
        })?;
        let tail = crate::types::rest_copy(&mut sub)?;
        chunks.push(Chunk { body, tail });
    }
    Ok(File {
        preview: None,
        compressed: true,
        scale,
        types,
        strings,
        chunks,
    })
}

fn name_of(magic: &[u8; 4]) -> &'static str {
    match magic {
        b"CMAP" => "CMAP",
        b"TMAP" => "TMAP",
        b"VRTS" => "VRTS",
        b"BONE" => "BONE",
        b"MTRL" => "MTRL",
        b"PROC" => "PROC",
        b"MESH" => "MESH",
        b"SHPE" => "SHPE",
        b"VOXT" => "VOXT",
        b"VOXD" => "VOXD",
        b"LBLS" => "LBLS",
        b"ACTN" => "ACTN",
        b"ASET" => "ASET",
        _ => "chunk",
    }
}

pub(crate) enum InflateError {
    /// Corrupt, cut, or larger than [`Limits::max_alloc_bytes`] on its own.
    Stream(String),
    /// Larger than what the operation's budget has left.
    Budget(BudgetExceeded),
}

/// Inflates one zlib stream into at most [`Limits::max_alloc_bytes`] bytes, charging the
/// buffer to `budget` as it grows (zlib-rs). The
/// buffer starts at 2.5 times the input and doubles within what the budget has left, so
/// a stream that would inflate past either stops there without allocating more. Also
/// gives the bytes charged (the buffer before it is cut to the payload's length), for
/// handing back once the payload is dropped.
pub(crate) fn inflate(
    data: &[u8],
    budget: &Budget,
) -> std::result::Result<(Vec<u8>, u64), InflateError> {
    use zlib_rs::{Inflate, InflateFlush, Status};
    const WHAT: &str = "inflated payload";
    let limit = usize::try_from(budget.limits().max_alloc_bytes).unwrap_or(usize::MAX);
    let room = || usize::try_from(budget.remaining()).unwrap_or(usize::MAX);
    let mut z = Inflate::new(true, 15);
    // Meshes deflate to 20-50%: 5x the input usually fits without regrowth (pages
    // never written are never touched).
    let first = data
        .len()
        .saturating_mul(5)
        .clamp(64, limit.max(64))
        .min(limit.max(1))
        .min(room())
        .max(1);
    budget
        .charge(WHAT, first as u64)
        .map_err(InflateError::Budget)?;
    let mut out = vec![0u8; first];
    let (mut consumed, mut written) = (0usize, 0usize);
    loop {
        let input = data.get(consumed..).unwrap_or_default();
        let output = out.get_mut(written..).unwrap_or_default();
        let status = z
            .decompress(input, output, InflateFlush::NoFlush)
            .map_err(|e| InflateError::Stream(format!("corrupt stream ({})", e.as_str())))?;
        let (c, w) = (z.total_in() as usize, z.total_out() as usize);
        let progress = c != consumed || w != written;
        (consumed, written) = (c, w);
        match status {
            Status::StreamEnd => {
                let charged = out.len() as u64;
                out.truncate(written);
                return Ok((out, charged));
            }
            Status::Ok | Status::BufError if written == out.len() => {
                if out.len() >= limit {
                    return Err(InflateError::Stream(format!(
                        "inflates beyond the limit of {limit} bytes"
                    )));
                }
                let want = out.len().saturating_mul(2).min(limit) - out.len();
                // Within what is left, so a payload that fits is not refused for the
                // doubling; with nothing left the charge fails and names the payload.
                let step = match room() {
                    0 => want,
                    left => want.min(left),
                };
                budget
                    .charge(WHAT, step as u64)
                    .map_err(InflateError::Budget)?;
                out.resize(out.len() + step, 0);
            }
            Status::Ok | Status::BufError if consumed >= data.len() || !progress => {
                return Err(InflateError::Stream(
                    "the stream ends before its end marker".into(),
                ));
            }
            Status::Ok | Status::BufError => {}
        }
    }
}
