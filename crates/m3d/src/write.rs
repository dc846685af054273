//! The binary form written: [`File::write`] and its variants, the payload (HEAD..OMD3)
//! chunk by chunk, and the narrowed re-encoding.

use parsing_primitives::Budget;

use crate::chunk::{BONE, Body, CMAP, HEAD, MODEL, OMD3, PRVW};
use crate::error::{Error, Result, invalid};
use crate::file::File;
use crate::options::{Precision, WriteOptions};
use crate::types::{ListLengths, Out, Types};
use crate::zlib::deflate;
use crate::{bones, label, material, mesh, shape, vertex, voxel};

impl File {
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
        out.extend_from_slice(&MODEL);
        out.extend_from_slice(&[0; 4]);
        if let Some(p) = &self.preview {
            out.extend_from_slice(&PRVW);
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
        let unused = narrow.without_unused(has(&CMAP), has(&BONE));
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
        out.extend_from_slice(&HEAD);
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
                    if *magic == OMD3 || *magic == HEAD {
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
        out.extend_from_slice(&OMD3);
        Ok(out)
    }
}

fn len32(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| invalid(format!("length {n} does not fit 32 bits")))
}
