//! The HEAD type bits: the 2-bit fields that select every variable width.

/// The HEAD `types` word as stored: 2-bit fields selecting every variable width.
///
/// ```
/// let t = m3d_format::Types(0b01_00_01); // vc int16, vi u8, si u16
/// assert_eq!(t.vc(), 2);
/// assert_eq!(t.vi(), 1);
/// assert_eq!(t.si(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Types(pub u32);

impl Types {
    fn bits(self, shift: u32) -> u32 {
        (self.0 >> shift) & 3
    }
    /// These types with the field at `shift` set to `code` (3: absent).
    fn with_bits(self, shift: u32, code: u32) -> Types {
        Types((self.0 & !(3 << shift)) | ((code & 3) << shift))
    }
    /// `1 << bits`, or 0 when the field is "absent" (bits = 3).
    fn idx(self, shift: u32) -> usize {
        match self.bits(shift) {
            3 => 0,
            b => 1 << b,
        }
    }
    /// Vertex coordinate size in bytes: 1 (int8), 2 (int16), 4 (f32) or 8 (f64).
    pub fn vc(self) -> usize {
        1 << self.bits(0)
    }
    /// Vertex index size (1, 2, 4; 0 = the invalid value 3).
    pub fn vi(self) -> usize {
        self.idx(2)
    }
    /// String offset size (1, 2, 4; 0 = the invalid value 3).
    pub fn si(self) -> usize {
        self.idx(4)
    }
    /// Colour size: 1/2 = CMAP index, 4 = literal RGBA, 0 = absent.
    pub fn ci(self) -> usize {
        self.idx(6)
    }
    /// Texture-map index size, 0 = absent.
    pub fn ti(self) -> usize {
        self.idx(8)
    }
    /// Bone index size, 0 = absent.
    pub fn bi(self) -> usize {
        self.idx(10)
    }
    /// Bones per vertex: 1, 2, 4 or 8.
    pub fn nb(self) -> usize {
        1 << self.bits(12)
    }
    /// Skin index size, 0 = absent.
    pub fn sk(self) -> usize {
        self.idx(14)
    }
    /// Frame transform count size, 0 = absent.
    pub fn fc(self) -> usize {
        self.idx(16)
    }
    /// Shape index size, 0 = absent.
    pub fn hi(self) -> usize {
        self.idx(18)
    }
    /// Face index size, 0 = absent.
    pub fn fi(self) -> usize {
        self.idx(20)
    }
    /// Voxel block position/size field size, 0 = absent.
    pub fn vd(self) -> usize {
        self.idx(22)
    }
    /// Voxel type index size, 0 = absent.
    pub fn vp(self) -> usize {
        self.idx(24)
    }

    /// These types with index fields as narrow as the lists allow, as real files have
    /// them: 1 byte up to 254 entries (255 and 254 are m3d.h's -1 and -2), 2 bytes up to
    /// 65,534, else 4; a field already narrower keeps its width, and absent fields stay
    /// absent. A stored index past its list may then not fit: the writer refuses it.
    pub(crate) fn narrowed(self, lists: ListLengths) -> Types {
        let width = |count: usize| -> u32 {
            match count {
                0..=254 => 0,
                255..=65534 => 1,
                _ => 2,
            }
        };
        [
            (2, lists.vertices),
            (4, lists.strings),
            (8, lists.tmap),
            (10, lists.bones),
            (14, lists.skins),
            (16, lists.per_frame),
        ]
        .into_iter()
        .fold(self, |t, (shift, count)| {
            // Never wider than the field is, and absent fields stay absent.
            let (own, code) = (t.bits(shift), width(count));
            if own != 3 && code < own {
                t.with_bits(shift, code)
            } else {
                t
            }
        })
    }

    /// These types with `vc_t` set to `code` (0 int8, 1 int16, 2 f32, 3 f64).
    pub(crate) fn with_vc(self, code: u32) -> Types {
        self.with_bits(0, code)
    }

    /// These types with the colour field absent when there is no colour map, and the
    /// bone and skin index fields absent when there are no bones, as m3d_save leaves
    /// fields nothing uses. A guess for the writer to check: an absent field holds only
    /// its "none" value (colour 0, index -1), and anything else refuses to be written
    /// when re-encoding ([`Out::convert`](super::Out)).
    pub(crate) fn without_unused(self, cmap: bool, bones: bool) -> Types {
        let t = if cmap { self } else { self.with_bits(6, 3) };
        if bones {
            t
        } else {
            t.with_bits(10, 3).with_bits(14, 3)
        }
    }
}

/// The lengths of the lists a file's index fields point into ([`Types::narrowed`]).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ListLengths {
    pub vertices: usize,
    pub strings: usize,
    pub tmap: usize,
    pub bones: usize,
    pub skins: usize,
    /// The most transforms in one animation frame.
    pub per_frame: usize,
}
