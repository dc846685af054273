//! [`File::to_core`]: the format-neutral meshfmt-core model, with a loss list. This is
//! the driver: each chunk module converts its own chunks, handed the chunks and what
//! they share ([`ToCore`]); the loss list names every chunk kind core cannot hold.

use std::collections::{HashMap, HashSet};

use meshfmt_core::coords::CoordinateSystem;
use meshfmt_core::model::Model;
use meshfmt_core::side_files::SideFiles;
use meshfmt_core::{Budget, Converted, Feature, LossKind};

use crate::chunk::Body;
use crate::context::to_core::{FileNames, Losses, Points, ToCore};
use crate::error::Result;
use crate::file::File;
use crate::material::{Material, PropValue, Property};
use crate::mesh::MeshRecord;
use crate::types::{NameKey, Names, Str};
use crate::voxel::core::Named;
use crate::{bones, material, mesh, vertex, voxel};

/// What [`File::to_core_with`] may use besides the file: m3d.h's `readfilecb` and
/// `mtllib`, and the budget the conversion draws on.
#[derive(Clone, Default)]
pub struct CoreOptions<'a> {
    /// External files (textures) by name, as m3d.h's `readfilecb`: a
    /// [`SideFolder`](meshfmt_core::side_files::SideFolder) reads only regular files in
    /// the model's folder (or folders the caller allowed), never a name that leads out.
    pub side_files: Option<&'a dyn SideFiles>,
    /// A material library (a model holding only materials, from `m3dconv -m`).
    pub mtllib: Option<&'a File>,
    /// The operation's budget (clones share it: give the one the file was read with;
    /// the default is a fresh one of [`Limits::DEFAULT`](meshfmt_core::Limits::DEFAULT)).
    pub budget: Budget,
}

impl std::fmt::Debug for CoreOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoreOptions")
            .field("side_files", &self.side_files.is_some())
            .field("mtllib", &self.mtllib.is_some())
            .field("budget", &self.budget.used())
            .finish()
    }
}

impl File {
    /// The model as meshfmt-core holds it: one surface per run of faces (each MESH chunk
    /// and each use-material record starts a run; a run without faces makes none), named
    /// after its material, with positions times the header scale, normals, UVs, vertex
    /// colours and skin; materials, the skeleton with rest poses, and one clip per
    /// action. What core cannot hold (shapes, voxels, labels, procedural scripts, inlined
    /// assets, extra chunks, the preview) is listed in the losses (the first 100 of each
    /// kind, then a line counting the rest). Y up, right-handed, counter-clockwise, as
    /// the format requires.
    ///
    /// ```
    /// let f = m3d_format::File::default();
    /// let c = f.to_core()?;
    /// assert!(c.value.surfaces.is_empty());
    /// # Ok::<(), m3d_format::Error>(())
    /// ```
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.to_core_with(&CoreOptions::default())
    }

    /// [`to_core`](Self::to_core) with external files and a shared material library, as
    /// m3d.h's `readfilecb` and `mtllib` arguments: textures that are not inlined are
    /// asked of `side_files` (`NAME.png`, then `NAME`) and decoded (a missing or refused
    /// one is a loss, kept as a file name); the library's materials come first and win
    /// over the file's own of the same name. Everything built (the model, decoded
    /// textures, the side files' bytes) is charged to the options' budget.
    ///
    /// ```
    /// use m3d_format::{CoreOptions, File};
    /// use meshfmt_core::{Budget, Limits, side_files::SideFolder};
    /// let lib = File::default();
    /// let budget = Budget::new(Limits::DEFAULT);
    /// // Textures from beside the model, under the side-file policy.
    /// let side = SideFolder::beside(std::path::Path::new("model.m3d"), &budget);
    /// let opts = CoreOptions {
    ///     side_files: Some(&side),
    ///     mtllib: Some(&lib),
    ///     budget: budget.clone(),
    ///     ..Default::default()
    /// };
    /// let c = File::default().to_core_with(&opts)?;
    /// assert!(c.value.materials.is_empty());
    /// # Ok::<(), m3d_format::Error>(())
    /// ```
    pub fn to_core_with(&self, opts: &CoreOptions<'_>) -> Result<Converted<Model>> {
        let budget = opts.budget.clone();
        let b = &budget;
        let title = self.header_strings()[0];
        b.charge("names", title.len() as u64)?;
        let out = Converted::exact(Model {
            name: String::from_utf8_lossy(title).into_owned(),
            coordinate_system: CoordinateSystem::GLTF,
            ..Model::default()
        });
        let tmap = vertex::core::uvs(
            self.chunks.iter().find_map(|c| match &c.body {
                Body::Tmap(t) => Some(t),
                _ => None,
            }),
            b,
        )?;
        let mut cx = ToCore {
            out,
            losses: Losses::default(),
            tmap,
            skins: self.skeleton().map_or(&[][..], |s| s.skins.as_slice()),
            // The vertex list and colour map found once: they are read for every corner.
            pts: Points {
                vertices: self.vertices(),
                scale: self.effective_scale(),
            },
            colours: self.colours(),
            own: FileNames::of(self, b)?,
            types: self.types,
            materials: HashMap::new(),
            embedded: HashSet::new(),
            budget: budget.clone(),
        };
        let lib = opts.mtllib.map(|l| FileNames::of(l, b)).transpose()?;
        let lib = lib.as_ref().zip(opts.mtllib.map(materials));
        material::core::to_core(&mut cx, lib, materials(self), opts.side_files)?;
        let meshes = self.chunks_of(|b| match b {
            Body::Mesh(m) => Some(m),
            _ => None,
        });
        mesh::core::to_core(&mut cx, meshes)?;
        bones::core::skeleton_to_core(&mut cx, self.skeleton())?;
        let actions = self.chunks_of(|b| match b {
            Body::Actn(a) => Some(a),
            _ => None,
        });
        bones::core::actions_to_core(&mut cx, actions)?;
        let blocks = self.chunks.iter().filter_map(|c| match &c.body {
            Body::Voxd(b) => Some(b),
            _ => None,
        });
        let named = self.chunks.iter().filter_map(|c| match &c.body {
            Body::Mtrl(m) => Some(Named::Material(m.name)),
            Body::Voxt(t) => Some(Named::Types(t)),
            _ => None,
        });
        let meshed = voxel::core::to_core(&mut cx, opts.budget.limits(), blocks, named)?;
        cx.chunk_losses(self, meshed);
        let ToCore {
            mut out, losses, ..
        } = cx;
        losses.finish(&mut out);
        Ok(out)
    }
}

impl ToCore<'_> {
    /// What core cannot hold, chunk by chunk: every chunk kind is named here, so a new
    /// one does not compile until it says whether (and how) it is lost.
    fn chunk_losses(&mut self, file: &File, meshed: bool) {
        for (ci, c) in file.chunks.iter().enumerate() {
            let (feature, what) = match &c.body {
                // Converted by their modules (which report their own losses).
                Body::Cmap(_)
                | Body::Tmap(_)
                | Body::Vrts(_)
                | Body::Bone(_)
                | Body::Mtrl(_)
                | Body::Mesh(_)
                | Body::Actn(_) => continue,
                Body::Shpe(_) => (Feature::Geometry, "parametric shape (SHPE)"),
                // Meshed into surfaces: the grid and what types mean beyond colour go.
                Body::Voxt(_) | Body::Voxd(_) if meshed => {
                    self.lose(
                        "voxels meshed",
                        Feature::Geometry,
                        LossKind::Reduced,
                        || format!("chunk[{ci}]"),
                        || {
                            "voxels meshed into triangles as m3d_load does: the grid, type names, \
                             shapes and items are not kept, only colours"
                        },
                    );
                    continue;
                }
                Body::Voxt(_) => (Feature::Materials, "voxel types (VOXT)"),
                Body::Voxd(_) => (Feature::Geometry, "voxel block (VOXD), not meshed"),
                Body::Lbls(_) => (Feature::Names, "labels (LBLS)"),
                Body::Proc(_) => (Feature::Geometry, "procedural script (PROC)"),
                // An inlined PNG that became an embedded texture is not lost.
                Body::Aset { name, .. } if self.embedded.contains(&self.own.key(*name)) => {
                    continue;
                }
                Body::Aset { .. } => (Feature::Textures, "inlined asset (ASET)"),
                Body::Extra { .. } => (Feature::Geometry, "application chunk"),
            };
            self.lose(
                what,
                feature,
                LossKind::Dropped,
                || format!("chunk[{ci}]"),
                || format!("{what} has no meshfmt-core counterpart"),
            );
        }
        if file.preview.is_some() {
            self.out.lose(
                Feature::Textures,
                LossKind::Dropped,
                "PRVW",
                "preview image",
            );
        }
    }
}

impl<'f> FileNames<'f> {
    /// The names of `file`, the index charged to `budget`.
    fn of(file: &'f File, budget: &Budget) -> Result<FileNames<'f>> {
        let refs = file.chunks.iter().flat_map(|c| {
            let (name, props, records): (Option<Str>, &[Property], &[MeshRecord]) = match &c.body {
                Body::Mtrl(m) => (Some(m.name), &m.props, &[]),
                Body::Aset { name, .. } => (Some(*name), &[], &[]),
                Body::Mesh(m) => (None, &[], &m.records),
                _ => (None, &[], &[]),
            };
            name.into_iter()
                .chain(props.iter().filter_map(|p| match p.value {
                    PropValue::Map(s) => Some(s),
                    _ => None,
                }))
                .chain(records.iter().filter_map(|r| match r {
                    MeshRecord::UseMaterial(s) => Some(*s),
                    _ => None,
                }))
        });
        let names = Names::new(&file.strings, refs, Some(budget))?;
        let mut assets = HashMap::new();
        for c in &file.chunks {
            if let Body::Aset { name, data } = &c.body {
                budget.charge("name index", 48)?;
                let key = names.key(*name).unwrap_or(NameKey::EMPTY);
                assets.entry(key).or_insert(data.as_slice());
            }
        }
        Ok(FileNames {
            strings: &file.strings,
            colours: file.colours(),
            names,
            assets,
        })
    }
}

/// The MTRL chunks of `file`, with their chunk indices.
fn materials(file: &File) -> impl Iterator<Item = (usize, &Material)> + Clone {
    file.chunks_of(|b| match b {
        Body::Mtrl(m) => Some(m),
        _ => None,
    })
}
