//! The whole file as stored: [`File`] and what it answers about itself.

use crate::bones::Skeleton;
use crate::chunk::{Body, Chunk};
use crate::types::{Colours, Str, Types, Vertex, string_at};

pub(crate) use crate::error::FORMAT;

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
    pub(crate) fn skeleton(&self) -> Option<&Skeleton> {
        self.chunks.iter().find_map(|c| match &c.body {
            Body::Bone(s) => Some(s),
            _ => None,
        })
    }

    /// The scale positions are multiplied by: the header's, or 1 when it is not a positive
    /// finite number (m3d.h also uses 1 for a scale <= 0).
    pub fn effective_scale(&self) -> f32 {
        if self.scale.is_finite() && self.scale > 0.0 {
            self.scale
        } else {
            1.0
        }
    }

    /// The chunks whose body `pick` takes, each with its index in the chunk list.
    pub(crate) fn chunks_of<'a, T: 'a>(
        &'a self,
        pick: fn(&Body) -> Option<&T>,
    ) -> impl Iterator<Item = (usize, &'a T)> + Clone {
        let chunks = self.chunks.iter().enumerate();
        chunks.filter_map(move |(i, c)| Some((i, pick(&c.body)?)))
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
