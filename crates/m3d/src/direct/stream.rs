//! The payload (HEAD..OMD3) fed in pieces, as the inflater produces them: the large
//! chunks (vertices, texture coordinates, colours, polygons) are decoded record by record
//! as their bytes arrive, the small ones gathered whole and decoded by their own code.
//! Nothing holds the whole payload; a record cut between two pieces waits in a small
//! carry buffer. Every step gives `None` where the checked reader would fail.

use parsing_primitives::{Budget, Reader};

use super::records::{self, Polygons, push_charged};
use crate::chunk::{
    ACTN, ASET, BONE, CMAP, HEAD, LBLS, MESH, MTRL, OMD3, PROC, SHPE, TMAP, VOXD, VOXT, VRTS,
};
use crate::error::FORMAT;
use crate::load::{LoadOptions, Loaded, MaterialIndex, action_bytes, block_bytes};
use crate::loaded::{LoadedVertex, LoadedVoxelType};
use crate::types::{Colours, Idx, Str, Types, string_at};
use crate::vertex::record::{COLOUR_SIZE, uv_size, vertex_size};
use crate::voxel::VoxelType;
use crate::{bones, label, material, shape, voxel};

/// What the parser expects next.
#[derive(Debug, Clone, Copy)]
enum State {
    /// HEAD's 16 bytes.
    Head,
    /// The string table, `left` bytes still to come.
    Strings { left: usize },
    /// A chunk header, or OMD3.
    Chunk,
    /// Records of a large chunk: `records` whole ones of `size` bytes (0 for MESH's
    /// variable records), then `tail` bytes the checked reader keeps and load ignores.
    Records {
        kind: Kind,
        records: usize,
        size: usize,
        left: usize,
    },
    /// A small chunk's bytes, gathered whole: `left` still to come.
    Body { magic: [u8; 4], left: usize },
    /// Bytes load does not use (a chunk's tail, later VRTS/CMAP chunks).
    Skip { left: usize },
    /// After OMD3: the payload must end here.
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Vertices,
    TextureCoords,
    Colours,
    Polygons,
}

/// The largest unit a piece boundary can cut and the carry must hold: a polygon of 15
/// corners of four 4-byte indices (241 bytes), a HEAD or chunk header.
const CARRY: usize = 256;

pub(super) struct Parser<'o> {
    opts: &'o LoadOptions,
    budget: Budget,
    state: State,
    carry: Vec<u8>,
    types: Types,
    strings: Vec<u8>,
    body: Vec<u8>,
    l: Loaded,
    seen_vertices: bool,
    cmap: Option<Vec<u32>>,
    runs: Vec<(usize, Option<Str>)>,
    maps: Vec<Str>,
    assets: Vec<(Str, Vec<u8>)>,
    voxel_types: Vec<VoxelType>,
    total: u64,
}

impl<'o> Parser<'o> {
    pub(super) fn new(opts: &'o LoadOptions, budget: Budget) -> Parser<'o> {
        Parser {
            opts,
            l: Loaded::empty(opts.budget.limits(), budget.clone()),
            budget,
            state: State::Head,
            carry: Vec::new(),
            types: Types(0),
            strings: Vec::new(),
            body: Vec::new(),
            seen_vertices: false,
            cmap: None,
            runs: Vec::new(),
            maps: Vec::new(),
            assets: Vec::new(),
            voxel_types: Vec::new(),
            total: 0,
        }
    }

    /// The next piece of the payload.
    pub(super) fn feed(&mut self, mut data: &[u8]) -> Option<()> {
        // The payload may not inflate past what one allocation may take (the checked
        // reader's limit on the inflated buffer).
        self.total += data.len() as u64;
        (self.total <= self.opts.budget.limits().max_alloc_bytes).then_some(())?;
        while !data.is_empty() {
            if self.carry.is_empty() {
                let used = self.step(data)?;
                if used == 0 {
                    (data.len() < CARRY).then_some(())?;
                    self.carry.extend_from_slice(data);
                    return Some(());
                }
                data = data.get(used..)?;
                continue;
            }
            // Complete the cut unit from the carry and the start of this piece.
            let before = self.carry.len();
            let take = data.len().min(CARRY);
            let mut carry = std::mem::take(&mut self.carry);
            carry.extend_from_slice(data.get(..take)?);
            let used = self.step(&carry)?;
            if used >= before {
                data = data.get(used - before..)?;
                carry.clear();
            } else if used == 0 && take == data.len() {
                // Still cut: all of this piece waits with it.
                data = &[];
            } else if used == 0 {
                return None;
            } else {
                carry.drain(..used);
                data = data.get(take..)?;
            }
            self.carry = carry;
        }
        Some(())
    }

    /// Consumes what it can from the start of `data`: 0 when the next unit is not whole
    /// yet.
    fn step(&mut self, data: &[u8]) -> Option<usize> {
        match self.state {
            State::Head => self.head(data),
            State::Strings { left } => {
                let n = left.min(data.len());
                self.strings.extend_from_slice(data.get(..n)?);
                self.state = self.after(left - n, State::Strings { left: left - n });
                Some(n)
            }
            State::Chunk => self.chunk(data),
            State::Records {
                kind,
                records,
                size,
                left,
            } => self.records(data, kind, records, size, left),
            State::Body { magic, left } => {
                let n = left.min(data.len());
                self.body.extend_from_slice(data.get(..n)?);
                if n == left {
                    let body = std::mem::take(&mut self.body);
                    self.small_chunk(magic, &body)?;
                    self.body = body;
                    self.body.clear();
                    self.state = State::Chunk;
                } else {
                    self.state = State::Body {
                        magic,
                        left: left - n,
                    };
                }
                Some(n)
            }
            State::Skip { left } => {
                let n = left.min(data.len());
                self.state = self.after(left - n, State::Skip { left: left - n });
                Some(n)
            }
            State::End => None,
        }
    }

    /// `next` while bytes are left, else the next chunk.
    fn after(&self, left: usize, next: State) -> State {
        if left == 0 { State::Chunk } else { next }
    }

    fn head(&mut self, data: &[u8]) -> Option<usize> {
        let Some(h) = data.get(..16) else {
            return Some(0);
        };
        (h.get(..4)? == HEAD).then_some(())?;
        let word = |at: usize| -> Option<u32> {
            Some(u32::from_le_bytes(h.get(at..at + 4)?.try_into().ok()?))
        };
        let len = word(4)? as usize;
        self.types = Types(word(12)?);
        if len < 16 || self.types.vi() == 0 || self.types.si() == 0 {
            return None;
        }
        self.budget.charge("string table", (len - 16) as u64).ok()?;
        self.strings.reserve_exact(len - 16);
        self.state = self.after(len - 16, State::Strings { left: len - 16 });
        Some(16)
    }

    fn chunk(&mut self, data: &[u8]) -> Option<usize> {
        if data.starts_with(&OMD3) {
            self.state = State::End;
            return Some(4);
        }
        let Some(h) = data.get(..8) else {
            return Some(0);
        };
        let magic: [u8; 4] = h.get(..4)?.try_into().ok()?;
        let len = u32::from_le_bytes(h.get(4..8)?.try_into().ok()?) as usize;
        if len < 8 || magic == HEAD {
            return None;
        }
        let left = len - 8;
        let t = self.types;
        let max = self.opts.budget.limits().max_elements;
        // Fixed-size records: as many whole ones as the chunk holds, the rest its tail.
        let count = |size: usize| {
            let n = left / size.max(1);
            (n as u64 <= max).then_some(n)
        };
        // No whole record: only a tail.
        let records = |kind, size: usize, records: usize| match records {
            0 => State::Skip { left },
            _ => State::Records {
                kind,
                records,
                size: size.max(1),
                left,
            },
        };
        self.state = match magic {
            VRTS if !self.seen_vertices => {
                self.seen_vertices = true;
                let size = vertex_size(t);
                let n = count(size)?;
                self.budget
                    .charge_items::<LoadedVertex>("loaded vertices", n)
                    .ok()?;
                self.l.vertices.reserve_exact(n);
                records(Kind::Vertices, size, n)
            }
            TMAP => {
                let n = count(uv_size(t))?;
                self.budget
                    .charge_items::<[f32; 2]>("texture coordinates", n)
                    .ok()?;
                // The last TMAP wins, as in the checked load.
                self.l.tmap = Vec::with_capacity(n);
                records(Kind::TextureCoords, uv_size(t), n)
            }
            CMAP if self.cmap.is_none() => {
                let n = count(COLOUR_SIZE)?;
                self.budget.charge_items::<u32>("colour map", n).ok()?;
                self.cmap = Some(Vec::with_capacity(n));
                records(Kind::Colours, COLOUR_SIZE, n)
            }
            VRTS | CMAP => {
                count(if magic == VRTS {
                    vertex_size(t)
                } else {
                    COLOUR_SIZE
                })?;
                State::Skip { left }
            }
            MESH => {
                push_charged(
                    &mut self.runs,
                    (self.l.faces.len(), None),
                    &self.budget,
                    "material runs",
                )?;
                State::Records {
                    kind: Kind::Polygons,
                    records: 0,
                    size: 0,
                    left,
                }
            }
            _ => {
                self.budget.charge("chunk bytes", left as u64).ok()?;
                self.body.reserve(left);
                State::Body { magic, left }
            }
        };
        // An empty chunk is done at once.
        match self.state {
            State::Body { magic, left: 0 } => {
                self.small_chunk(magic, &[])?;
                self.state = State::Chunk;
            }
            State::Records { left: 0, .. } | State::Skip { left: 0 } => self.state = State::Chunk,
            _ => {}
        }
        Some(8)
    }

    fn records(
        &mut self,
        data: &[u8],
        kind: Kind,
        records: usize,
        size: usize,
        left: usize,
    ) -> Option<usize> {
        let t = self.types;
        let used = if kind == Kind::Polygons {
            let mut out = Polygons {
                faces: &mut self.l.faces,
                runs: &mut self.runs,
                budget: &self.budget,
            };
            records::polygons(data.get(..left.min(data.len()))?, left, t, &mut out)?
        } else {
            let n = records.min(data.len() / size);
            let bytes = data.get(..n * size)?;
            match kind {
                Kind::Vertices => records::vertices(bytes, size, t, &mut self.l.vertices),
                Kind::TextureCoords => records::uvs(bytes, size, t, &mut self.l.tmap),
                _ => {
                    if let Some(cmap) = &mut self.cmap {
                        records::colours(bytes, cmap);
                    }
                }
            }
            if n == records {
                // The records are all in: the chunk's tail follows.
                let rest = left - n * size;
                self.state = self.after(rest, State::Skip { left: rest });
                return Some(n * size);
            }
            n * size
        };
        let left = left - used;
        self.state = match kind {
            Kind::Polygons => self.after(
                left,
                State::Records {
                    kind,
                    records,
                    size,
                    left,
                },
            ),
            _ => State::Records {
                kind,
                records: records - used / size,
                size,
                left,
            },
        };
        Some(used)
    }

    fn reader<'a>(&self, body: &'a [u8]) -> Reader<'a> {
        Reader::new(FORMAT, body).with_budget(self.budget.clone())
    }

    /// A name from the string table, charged.
    fn text(&self, s: Str) -> Option<String> {
        text_in(&self.strings, &self.budget, s)
    }

    /// A chunk gathered whole: decoded as the checked reader decodes it (what load does
    /// not keep is decoded all the same: a chunk that does not decode fails the read).
    fn small_chunk(&mut self, magic: [u8; 4], body: &[u8]) -> Option<()> {
        let t = self.types;
        let max = self.opts.budget.limits().max_elements;
        match magic {
            MTRL => {
                let m = material::read_mtrl(&mut self.reader(body), t).ok()?;
                let name = self.text(m.name)?;
                self.l.materials.push(name);
                self.maps.extend(m.maps().map(|(_, s)| s));
            }
            BONE => {
                let (strings, budget) = (&self.strings, &self.budget);
                let text = |s: Str| text_in(strings, budget, s);
                (self.l.bones, self.l.skins) = records::bones(body, t, max, budget, &text)?;
            }
            ACTN => {
                let a = records::action(body, t, max)?;
                let size = action_bytes(&a) + std::mem::size_of::<bones::Action>() as u64;
                self.budget.charge("actions", size).ok()?;
                self.l.actions.push(a);
            }
            VOXT => {
                let v = voxel::read_voxt(&mut self.reader(body), t).ok()?;
                self.voxel_types.extend(v);
            }
            VOXD if t.vd() != 0 && t.vp() != 0 => {
                let v = voxel::read_voxd(&mut self.reader(body), t).ok()?;
                let size = block_bytes(&v) + std::mem::size_of::<voxel::VoxelBlock>() as u64;
                self.budget.charge("voxel blocks", size).ok()?;
                self.l.voxel_blocks.push(v);
            }
            ASET => {
                let mut r = self.reader(body);
                let name = crate::types::read_str(&mut r, t).ok()?;
                self.assets.push((name, r.rest().to_vec()));
            }
            PROC => {
                crate::types::read_str(&mut self.reader(body), t).ok()?;
            }
            SHPE => {
                shape::read_shpe(&mut self.reader(body), t).ok()?;
            }
            LBLS => {
                label::read_lbls(&mut self.reader(body), t).ok()?;
            }
            _ => {}
        }
        Some(())
    }

    /// The loaded model, once the payload ended with OMD3: colours through the colour
    /// map, materials by name, voxel types resolved, textures decoded.
    pub(super) fn finish(mut self) -> Option<Loaded> {
        (matches!(self.state, State::End) && self.carry.is_empty()).then_some(())?;
        let t = self.types;
        let cmap = self.cmap.take().unwrap_or_default();
        let colours = Colours::new(t.ci(), &cmap);
        if t.ci() != 4 {
            for v in &mut self.l.vertices {
                v.color = colours.rgba(v.color);
            }
        }
        let refs = self
            .runs
            .iter()
            .filter_map(|r| r.1)
            .chain(self.voxel_types.iter().map(|v| v.name));
        let materials =
            MaterialIndex::new(&self.strings, &self.l.materials, refs, &self.budget).ok()?;
        let ends = self
            .runs
            .iter()
            .skip(1)
            .map(|r| r.0)
            .chain([self.l.faces.len()]);
        for (&(start, name), end) in self.runs.iter().zip(ends) {
            let m = name.map_or(Idx::UNDEF, |s| materials.find(s));
            if m != Idx::UNDEF {
                for f in self.l.faces.get_mut(start..end)? {
                    f.material = m;
                }
            }
        }
        let n = self.voxel_types.len();
        self.budget
            .charge_items::<LoadedVoxelType>("voxel types", n)
            .ok()?;
        self.l.voxel_types = self
            .voxel_types
            .iter()
            .map(|v| LoadedVoxelType {
                color: colours.rgba(v.color),
                skin: v.skin,
                material: materials.find(v.name),
            })
            .collect();
        if self.opts.textures {
            let assets: Vec<(Str, &[u8])> = self
                .assets
                .iter()
                .map(|(n, d)| (*n, d.as_slice()))
                .collect();
            self.l.textures =
                crate::texture::decode(&self.strings, &self.maps, &assets, &self.budget).ok()?;
        }
        Some(self.l)
    }
}

fn text_in(strings: &[u8], budget: &Budget, s: Str) -> Option<String> {
    let bytes = string_at(strings, s).unwrap_or_default();
    budget
        .charge(
            "names",
            bytes.len() as u64 + std::mem::size_of::<String>() as u64,
        )
        .ok()?;
    Some(String::from_utf8_lossy(bytes).into_owned())
}
