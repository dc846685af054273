//! The version list: every version this crate reads and writes, in one table
//! ([`VERSIONS`]) that drives reading (by magic), writing and conversion (by
//! [`TargetVersion`]), and the format contract's version names, extensions and
//! feature lists; and [`MeshFile`], the file of any version.
//!
//! Each row names its version module's `read` and `from_core_in`; to add a version,
//! see docs/ARCHITECTURE-unigine.md.

use meshfmt_core::format::{ClipFiles, FileKind, VersionInfo};
use meshfmt_core::{Budget, Converted, Feature, Model};
use parsing_primitives::{Reader, SharedBytes};
use unigine_common::ReadOptions;
use unigine_common::magic::{self, Dispatch};
use unigine_common::versions::{self, VersionTable};

use crate::error::{Error, Result};
use crate::file::VersionFile;
use crate::ms1x::{Ms1x, Ms1xVersion};
use crate::old::{Mi08, Ms08};
pub use crate::options::{CoreOptions, TargetVersion, WriteOptions};
use crate::{FORMAT_NAME, ms14, ms15, sk10, sn10};

/// One supported version: its facts, and what reading and conversion need (see
/// [`unigine_common::versions::Version`]).
pub(crate) type Version = versions::Version<TargetVersion, ReadFn, FromCoreFn>;

/// Reads a file whose magic matched.
pub(crate) type ReadFn = fn(&mut Reader<'_>) -> Result<MeshFile>;

/// Encodes a meshfmt-core model in one version.
pub(crate) type FromCoreFn = fn(&Model, &Budget) -> Result<Converted<MeshFile>>;

use Feature::{
    Animation, Colors, Geometry, MorphTargets, Names, Normals, Skeleton, Skin, Tangents, Uv0, Uv1,
};

/// ms13 content: ms11 without embedded animations.
const MS13_HOLDS: &[Feature] = &[
    Geometry,
    Normals,
    Tangents,
    Uv0,
    Uv1,
    Colors,
    Skin,
    Skeleton,
    MorphTargets,
    Names,
];
const MS11_HOLDS: &[Feature] = &[
    Geometry,
    Normals,
    Tangents,
    Uv0,
    Uv1,
    Colors,
    Skin,
    Skeleton,
    Animation,
    MorphTargets,
    Names,
];

/// A mesh's clips split out (`meshfmt convert --anims-dir`): an10 `.anim` files of
/// unigine-anim (named, not depended on: format crates never depend on one another).
const CLIPS: Option<ClipFiles> = Some(ClipFiles {
    clip: FileKind {
        format: "unigine-anim",
        version: "an10",
        extension: "anim",
    },
    skeleton: None,
});

/// A version's facts: every mesh version's clips go to an10 files.
const fn info(
    name: &'static str,
    extension: Option<&'static str>,
    holds: &'static [Feature],
) -> VersionInfo {
    VersionInfo {
        name,
        extension,
        holds,
        clip_files: CLIPS,
    }
}

/// Every version, in file order (oldest first); the one list. ms11 is written when
/// nothing says.
pub(crate) const VERSIONS: VersionTable<TargetVersion, ReadFn, FromCoreFn> = VersionTable {
    kind: "UNIGINE mesh",
    base_extension: "mesh",
    default: 3,
    families: &[b"mi", b"ms", b"sk", b"sn"],
    rows: &[
        Version {
            info: info("mi08", None, &[Geometry, Normals, Uv0, Uv1, Names]),
            target: TargetVersion::Mi08,
            read: |r| Ok(MeshFile::Mi08(crate::old::read_mi08(r)?)),
            from_core: |m, b| Ok(Mi08::from_core_in(m, b)?.map(MeshFile::Mi08)),
        },
        Version {
            info: info(
                "ms08",
                Some("smesh"),
                &[
                    Geometry, Normals, Uv0, Uv1, Skin, Skeleton, Animation, Names,
                ],
            ),
            target: TargetVersion::Ms08,
            read: |r| Ok(MeshFile::Ms08(crate::old::read_ms08(r)?)),
            from_core: |m, b| Ok(Ms08::from_core_in(m, b)?.map(MeshFile::Ms08)),
        },
        Version {
            info: info("ms10", None, MS11_HOLDS),
            target: TargetVersion::Ms10,
            read: |r| Ok(MeshFile::Ms1x(crate::ms1x::read(r, Ms1xVersion::Ms10)?)),
            from_core: |m, b| Ok(Ms1x::from_core_in(m, Ms1xVersion::Ms10, b)?.map(MeshFile::Ms1x)),
        },
        Version {
            info: info("ms11", None, MS11_HOLDS),
            target: TargetVersion::Ms11,
            read: |r| Ok(MeshFile::Ms1x(crate::ms1x::read(r, Ms1xVersion::Ms11)?)),
            from_core: |m, b| Ok(Ms1x::from_core_in(m, Ms1xVersion::Ms11, b)?.map(MeshFile::Ms1x)),
        },
        Version {
            info: info("ms13", None, MS13_HOLDS),
            target: TargetVersion::Ms13,
            read: |r| Ok(MeshFile::Ms1x(crate::ms1x::read(r, Ms1xVersion::Ms13)?)),
            from_core: |m, b| Ok(Ms1x::from_core_in(m, Ms1xVersion::Ms13, b)?.map(MeshFile::Ms1x)),
        },
        Version {
            info: info("ms14", None, MS13_HOLDS),
            target: TargetVersion::Ms14,
            read: |r| Ok(MeshFile::Ms14(ms14::read(r)?)),
            from_core: |m, b| Ok(ms14::Ms14::from_core_in(m, b)?.map(MeshFile::Ms14)),
        },
        Version {
            info: info(
                "ms15",
                None,
                &[Geometry, Normals, Tangents, Uv0, Uv1, Colors, Names],
            ),
            target: TargetVersion::Ms15,
            read: |r| Ok(MeshFile::Ms15(ms15::read(r)?)),
            from_core: |m, b| Ok(ms15::Ms15::from_core_in(m, b)?.map(MeshFile::Ms15)),
        },
        Version {
            info: info("sk10", Some("mesh_skinned"), MS13_HOLDS),
            target: TargetVersion::Sk10,
            read: |r| Ok(MeshFile::Sk10(sk10::read(r)?)),
            from_core: |m, b| Ok(sk10::Sk10::from_core_in(m, b)?.map(MeshFile::Sk10)),
        },
        // A skeleton file has no clips to split.
        Version {
            info: VersionInfo {
                clip_files: None,
                ..info("sn10", Some("skeleton"), &[Skeleton, Names])
            },
            target: TargetVersion::Sn10,
            read: |r| Ok(MeshFile::Sn10(sn10::read(r)?)),
            from_core: |m, b| Ok(sn10::Sn10::from_core_in(m, b)?.map(MeshFile::Sn10)),
        },
    ],
};

/// Every version's facts, the default first: the format's [`FormatInfo::versions`](meshfmt_core::format::FormatInfo::versions).
pub(crate) static VERSION_INFO: [VersionInfo; VERSIONS.rows.len()] = VERSIONS.infos();

/// Every magic, in file order.
pub(crate) const MAGICS: [&[u8; 4]; VERSIONS.rows.len()] = VERSIONS.magics();

impl TargetVersion {
    /// The version's magic as text (`"ms11"`).
    pub fn name(self) -> &'static str {
        VERSIONS.name(self)
    }

    /// The version called `name`.
    pub fn from_name(name: &str) -> Option<TargetVersion> {
        VERSIONS.target(name)
    }
}

/// A mesh file of any supported version.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MeshFile {
    /// mi08 static mesh (UNIGINE 1.x).
    Mi08(Mi08),
    /// ms08 skinned mesh (UNIGINE 1.x).
    Ms08(Ms08),
    /// ms10, ms11 or ms13.
    Ms1x(Ms1x),
    /// ms14 (LZ4 blocks).
    Ms14(ms14::Ms14),
    /// ms15 (static, LZ4 blocks; from the documentation only).
    Ms15(ms15::Ms15),
    /// sk10 `.mesh_skinned` (LZ4 blocks, joints, bind and rest transforms; from the
    /// documentation only).
    Sk10(sk10::Sk10),
    /// sn10 `.skeleton` (joints, bind pose, blend profiles; from the documentation only).
    Sn10(sn10::Sn10),
}

impl MeshFile {
    /// The version's magic as text (`"ms11"`).
    pub fn version(&self) -> &'static str {
        magic::magic_name(self.as_file().magic())
    }

    /// The version, as [`MeshFile::from_core`] would be asked for it.
    pub fn target(&self) -> TargetVersion {
        // Every faithful type's magic has a row (tests/versions check it).
        VERSIONS.target(self.version()).unwrap_or_default()
    }

    /// The faithful type inside, as the trait every version implements.
    pub(crate) fn as_file(&self) -> &dyn VersionFile {
        match self {
            MeshFile::Mi08(m) => m,
            MeshFile::Ms08(m) => m,
            MeshFile::Ms1x(m) => m,
            MeshFile::Ms14(m) => m,
            MeshFile::Ms15(m) => m,
            MeshFile::Sk10(m) => m,
            MeshFile::Sn10(m) => m,
        }
    }

    /// The file's bytes.
    pub fn write(&self) -> Result<Vec<u8>> {
        self.as_file().write()
    }

    /// [`MeshFile::write`] under `options`' budget: the bytes are charged once written.
    pub fn write_with(&self, options: &WriteOptions) -> Result<Vec<u8>> {
        Ok(options.budget.charged_output(self.write()?)?)
    }

    /// Writes the file's bytes to `out`.
    pub fn write_to(&self, mut out: impl std::io::Write) -> Result<()> {
        out.write_all(&self.write()?)?;
        Ok(())
    }
}

/// Reads a mesh of any supported version with default options.
pub fn read(data: &[u8]) -> Result<MeshFile> {
    read_with(data, &ReadOptions::default())
}

/// Reads a mesh of any supported version.
pub fn read_with(data: &[u8], options: &ReadOptions) -> Result<MeshFile> {
    read_from(Reader::new(FORMAT_NAME, data), options)
}

/// Reads a mesh of any supported version from bytes the file may share: the stored
/// LZ4 blocks of ms14, ms15 and sk10 ([`crate::ms14::StoredBlock`]) keep ranges of
/// `data` rather than copies (the file then holds `data`'s buffer alive). Otherwise as
/// [`read_with`].
///
/// ```
/// use unigine_mesh::SharedBytes;
/// let model = meshfmt_core::canonical::cube();
/// let version = unigine_mesh::TargetVersion::Ms14;
/// let options = unigine_mesh::WriteOptions { version, ..Default::default() };
/// let bytes = unigine_mesh::MeshFile::from_core_with(&model, &options)?.value.write()?;
/// let input = SharedBytes::from(bytes);
/// let file = unigine_mesh::read_shared(&input)?;
/// let unigine_mesh::MeshFile::Ms14(m) = &file else { unreachable!() };
/// let (whole, geometry) = (input.as_ptr_range(), m.blocks[0].geometry.stored.as_ptr_range());
/// assert!(whole.start <= geometry.start && geometry.end <= whole.end); // not a copy
/// assert_eq!(file.write()?, &input[..]);
/// # Ok::<(), unigine_mesh::Error>(())
/// ```
pub fn read_shared(data: &SharedBytes) -> Result<MeshFile> {
    read_shared_with(data, &ReadOptions::default())
}

/// [`read_shared`] with options.
pub fn read_shared_with(data: &SharedBytes, options: &ReadOptions) -> Result<MeshFile> {
    read_from(Reader::over_shared(FORMAT_NAME, data), options)
}

fn read_from(r: Reader<'_>, options: &ReadOptions) -> Result<MeshFile> {
    let mut r = r.with_budget(options.budget.clone());
    let magic = magic::peek_magic(&r).map_err(Error::Decode)?;
    match VERSIONS.dispatch(&magic) {
        Dispatch::Known(v) => (v.read)(&mut r),
        Dispatch::UnsupportedVersion => Err(Error::UnsupportedVersion(
            String::from_utf8_lossy(&magic).into_owned(),
        )),
        Dispatch::Foreign => Err(Error::NotAMesh(magic)),
    }
}

impl MeshFile {
    /// The file as a meshfmt-core model, under a fresh default budget.
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_with(&CoreOptions::default())
    }

    /// The file as a meshfmt-core model, charging what it builds to the options'
    /// budget (shared with the read when the caller passes the same one).
    ///
    /// ```
    /// use meshfmt_core::{Budget, Limits};
    /// use unigine_mesh::{CoreOptions, MeshFile, ReadOptions, WriteOptions};
    /// # let model = meshfmt_core::canonical::cube();
    /// # let bytes = MeshFile::from_core(&model)?.value.write()?;
    /// let budget = Budget::new(Limits::DEFAULT);
    /// let file = unigine_mesh::read_with(&bytes, &ReadOptions { budget: budget.clone() })?;
    /// let read = budget.used();
    /// let model = file.to_core_with(&CoreOptions { budget: budget.clone() })?;
    /// assert!(budget.used() > read); // one budget for both steps
    /// assert_eq!(model.value.surfaces.len(), 1);
    /// # Ok::<(), unigine_mesh::Error>(())
    /// ```
    pub fn to_core_with(&self, options: &CoreOptions) -> Result<Converted<Model>> {
        self.as_file().to_core_in(&options.budget)
    }

    /// Encodes a meshfmt-core model as ms11, reporting every loss.
    pub fn from_core(model: &Model) -> Result<Converted<MeshFile>> {
        MeshFile::from_core_with(model, &WriteOptions::default())
    }

    /// Encodes a meshfmt-core model in the options' version, reporting every loss and
    /// charging what it builds to the options' budget.
    pub fn from_core_with(model: &Model, options: &WriteOptions) -> Result<Converted<MeshFile>> {
        match VERSIONS.row(options.version) {
            Some(v) => (v.from_core)(model, &options.budget),
            None => Err(Error::UnsupportedVersion(options.version.name().into())),
        }
    }

    /// Every reason [`MeshFile::write`] would refuse the file, each at its path.
    pub fn problems(&self) -> Vec<meshfmt_core::Problem> {
        self.as_file().problems()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_agrees_with_the_format_facts() {
        assert_eq!(VERSIONS.problems(&crate::FORMAT_INFO), []);
    }

    #[test]
    fn every_target_has_its_row_and_every_magic_sniffs() {
        for v in VERSIONS.rows {
            assert_eq!(v.target.name(), v.info.name);
            assert_eq!(TargetVersion::from_name(v.info.name), Some(v.target));
            assert!(crate::sniff(v.magic()));
            assert!(!crate::sniff(&v.magic()[..3]));
        }
        assert_eq!(VERSION_INFO[0].name, TargetVersion::default().name());
        assert!(!crate::sniff(b""));
    }
}
