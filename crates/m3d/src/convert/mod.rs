//! [`File::to_core`]: the format-neutral meshfmt-core model, with a loss list. This is
//! the driver: each chunk module converts its own chunks ([`ToCore`] is what they
//! share), and the loss list names every chunk kind core cannot hold.

pub(crate) mod context;

use std::collections::{HashMap, HashSet};

use meshfmt_core::coords::CoordinateSystem;
use meshfmt_core::model::Model;
use meshfmt_core::{Budget, Converted, Feature, LossKind};

#[allow(unused_imports)]
use self::context::*;
use crate::chunk::Body;
use crate::error::Result;
use crate::file::File;
use crate::types::Str;
use crate::vertex::core::Points;
use crate::{bones, material, mesh, vertex, voxel};

impl File {
    /// The string at `s` as text (lossy UTF-8), empty for none.
    pub(crate) fn text(&self, s: Str) -> String {
        self.string(s)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    }

    /// [`text`](Self::text), the copy charged to `budget` (a name may be the whole
    /// string table, and be referenced many times).
    pub(crate) fn text_in(&self, s: Str, budget: &Budget) -> Result<String> {
        let n = self.string(s).map_or(0, <[u8]>::len);
        budget.charge("names", n as u64)?;
        Ok(self.text(s))
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

    /// The vertex list and the scale, looked up once.
    pub(crate) fn points(&self) -> Points<'_> {
        Points {
            vertices: self.vertices(),
            scale: self.effective_scale(),
        }
    }

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
        let tmap = vertex::core::uvs(self, b)?;
        let mut cx = ToCore {
            file: self,
            out,
            losses: Losses::default(),
            tmap,
            skins: self.skeleton().map_or(&[][..], |s| s.skins.as_slice()),
            // The vertex list and colour map found once: they are read for every corner.
            pts: self.points(),
            colours: self.colours(),
            own: FileNames::new(self, b)?,
            materials: HashMap::new(),
            embedded: HashSet::new(),
            budget: budget.clone(),
        };
        material::core::to_core(&mut cx, opts.mtllib, opts.side_files)?;
        mesh::core::to_core(&mut cx)?;
        bones::core::skeleton_to_core(&mut cx)?;
        bones::core::actions_to_core(&mut cx)?;
        let meshed = voxel::core::to_core(&mut cx, opts.budget.limits())?;
        cx.chunk_losses(meshed);
        let ToCore {
            mut out, losses, ..
        } = cx;
        losses.finish(&mut out);
        Ok(out)
    }
}

impl ToCore<'_> {
    /// Records a loss of kind `key` ([`Losses::lose`]).
    pub fn lose<P: Into<String>, R: Into<String>>(
        &mut self,
        key: &'static str,
        feature: Feature,
        kind: LossKind,
        path: impl FnOnce() -> P,
        reason: impl FnOnce() -> R,
    ) {
        self.losses
            .lose(&mut self.out, key, feature, kind, path, reason);
    }

    /// What core cannot hold, chunk by chunk: every chunk kind is named here, so a new
    /// one does not compile until it says whether (and how) it is lost.
    fn chunk_losses(&mut self, meshed: bool) {
        let file = self.file;
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
