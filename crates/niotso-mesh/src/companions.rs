//! The small companion files (notes/niotso.md section 6): `.apr` appearances, `.bnd`
//! bindings and `.oft` outfits. All integers big-endian.

use parsing_primitives::{RawString, Reader, Writer};

use crate::FORMAT_NAME;
use crate::ReadOptions;
use crate::error::Result;

/// A reference to another asset: (file id, type id).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AssetRef {
    /// File id.
    pub file_id: u32,
    /// Type id (9 mesh, 11 binding, 12 appearance, 13 outfit, 14 PNG, 20 JPG, ...).
    pub type_id: u32,
}

/// `.apr`: a thumbnail and the bindings that make an appearance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appearance {
    /// Version (1).
    pub version: u32,
    /// Thumbnail image.
    pub thumbnail: AssetRef,
    /// Bindings (type 11).
    pub bindings: Vec<AssetRef>,
}

/// An optional grouped reference in a `.bnd`: present when its tag is 8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaggedRef {
    /// The stored tag (8 = present; 0 = absent).
    pub tag: u32,
    /// Group (0xA96F6D42 in EA files, 0 in FreeSO ones), file and type, when tag is 8.
    pub asset: Option<(u32, AssetRef)>,
}

/// `.bnd`: which mesh and texture go on which bone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingFile {
    /// Version (1).
    pub version: u32,
    /// Bone name.
    pub bone: RawString,
    /// The mesh (type 9).
    pub mesh: TaggedRef,
    /// The texture (type 20).
    pub texture: TaggedRef,
}

/// `.oft`: light, medium and dark appearances of an outfit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outfit {
    /// Version (1).
    pub version: u32,
    /// Unknown (1).
    pub unknown: u32,
    /// Light, medium and dark appearances (type 12).
    pub appearances: [AssetRef; 3],
    /// Hand group.
    pub hand_group: u32,
    /// Region (18 body, 0 head).
    pub region: u32,
}

fn asset(r: &mut Reader<'_>) -> parsing_primitives::Result<AssetRef> {
    let [file_id, type_id] = r.be::<[u32; 2]>()?;
    Ok(AssetRef { file_id, type_id })
}

fn tagged(r: &mut Reader<'_>) -> parsing_primitives::Result<TaggedRef> {
    let tag = r.u32_be()?;
    let asset = if tag == 8 {
        let group = r.u32_be()?;
        Some((group, asset(r)?))
    } else {
        None
    };
    Ok(TaggedRef { tag, asset })
}

impl Appearance {
    /// Reads an `.apr`.
    pub fn read(data: &[u8]) -> Result<Appearance> {
        Appearance::read_with(data, &ReadOptions::default())
    }

    /// Reads an `.apr` with reading choices (the budget, trailing bytes).
    ///
    /// ```
    /// use niotso_mesh::{companions::Appearance, Budget, ReadOptions};
    /// // version 1, thumbnail (7, PNG), 1 binding (9, type 11)
    /// let apr = [0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0, 14, 0, 0, 0, 1, 0, 0, 0, 9, 0, 0, 0, 11];
    /// let budget = Budget::default();
    /// let opts = ReadOptions { budget: budget.clone(), ..ReadOptions::default() };
    /// let a = Appearance::read_with(&apr, &opts)?;
    /// assert_eq!((a.bindings[0].file_id, a.bindings[0].type_id), (9, 11));
    /// assert_eq!(budget.used(), 8); // the one binding's two u32
    /// # Ok::<(), niotso_mesh::Error>(())
    /// ```
    pub fn read_with(data: &[u8], options: &ReadOptions) -> Result<Appearance> {
        let mut r = options.reader(data);
        let version = r.field("version", |r| r.u32_be())?;
        let thumbnail = r.field("thumbnail", asset)?;
        let n = r.field("binding_count", |r| r.u32_be())?;
        let bindings = r.field("bindings", |r| r.array(u64::from(n), 8, asset))?;
        options.finish(&r)?;
        Ok(Appearance {
            version,
            thumbnail,
            bindings,
        })
    }
}

impl BindingFile {
    /// Reads a `.bnd`.
    pub fn read(data: &[u8]) -> Result<BindingFile> {
        BindingFile::read_with(data, &ReadOptions::default())
    }

    /// Reads a `.bnd` with reading choices (the budget, trailing bytes).
    pub fn read_with(data: &[u8], options: &ReadOptions) -> Result<BindingFile> {
        let mut r = options.reader(data);
        let version = r.field("version", |r| r.u32_be())?;
        let bone = r.field("bone", |r| r.pascal_u8().map(RawString::from))?;
        let mesh = r.field("mesh", tagged)?;
        let texture = r.field("texture", tagged)?;
        options.finish(&r)?;
        Ok(BindingFile {
            version,
            bone,
            mesh,
            texture,
        })
    }
}

impl Outfit {
    /// Reads an `.oft`.
    pub fn read(data: &[u8]) -> Result<Outfit> {
        Outfit::read_with(data, &ReadOptions::default())
    }

    /// Reads an `.oft` with reading choices (trailing bytes; it allocates nothing).
    pub fn read_with(data: &[u8], options: &ReadOptions) -> Result<Outfit> {
        let mut r = options.reader(data);
        let [version, unknown] = r.be::<[u32; 2]>()?;
        let appearances = [asset(&mut r)?, asset(&mut r)?, asset(&mut r)?];
        let [hand_group, region] = r.be::<[u32; 2]>()?;
        options.finish(&r)?;
        Ok(Outfit {
            version,
            unknown,
            appearances,
            hand_group,
            region,
        })
    }
}

fn write_asset(w: &mut Writer, a: &AssetRef) {
    w.u32_be(a.file_id).u32_be(a.type_id);
}

fn write_tagged(w: &mut Writer, t: &TaggedRef) -> Result<()> {
    w.u32_be(t.tag);
    match (t.tag == 8, &t.asset) {
        (true, Some((group, a))) => {
            w.u32_be(*group);
            write_asset(w, a);
            Ok(())
        }
        (false, None) => Ok(()),
        _ => Err(crate::error::invalid(format!(
            "tag {} and asset presence disagree (8 means present)",
            t.tag
        ))),
    }
}

impl Appearance {
    /// The file's bytes.
    pub fn write(&self) -> Result<Vec<u8>> {
        let mut w = Writer::new(FORMAT_NAME);
        w.u32_be(self.version);
        write_asset(&mut w, &self.thumbnail);
        let n = u32::try_from(self.bindings.len())
            .map_err(|_| crate::error::invalid("too many bindings"))?;
        w.u32_be(n);
        self.bindings.iter().for_each(|a| write_asset(&mut w, a));
        Ok(w.into_inner())
    }
}

impl BindingFile {
    /// The file's bytes.
    pub fn write(&self) -> Result<Vec<u8>> {
        let mut w = Writer::new(FORMAT_NAME);
        w.u32_be(self.version);
        w.pascal_u8(self.bone.as_bytes())?;
        write_tagged(&mut w, &self.mesh)?;
        write_tagged(&mut w, &self.texture)?;
        Ok(w.into_inner())
    }
}

impl Outfit {
    /// The file's bytes.
    pub fn write(&self) -> Result<Vec<u8>> {
        let mut w = Writer::new(FORMAT_NAME);
        w.u32_be(self.version).u32_be(self.unknown);
        self.appearances.iter().for_each(|a| write_asset(&mut w, a));
        w.u32_be(self.hand_group).u32_be(self.region);
        Ok(w.into_inner())
    }
}
