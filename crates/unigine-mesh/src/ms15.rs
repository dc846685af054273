//! ms15 (`.mesh`, static, current UNIGINE documentation): ms14 minus bones, morph-target
//! lists and weights.
//!
//! **Implemented from the documentation only** (`file_formats.md`, summarized in
//! notes/unigine-current.md section 7); no real ms15 file has been seen. Layout:
//!
//! ```text
//! u8[4]   "ms15"
//! ci      spatial tree triangles
//! f32[10] bounds
//! ci      num_surfaces                    -- no bone list
//! repeat: str name; u8 lightmap channel; u8 lightmap resolution;
//!         ci num_cindices; ci num_tindices; f32[10] bounds; ci num_vertices
//! i64     memory estimate
//! u8[4]   "ms15"
//! repeat: BLOCK(geometry: f32[3]*nv, ci nt + i16[4] tangents, uv0, uv1, colours,
//!               cindices, tindices)     -- ms14's payload without the weights count
//! u8[4]   "ms15"
//! repeat: BLOCK(edges + spatial tree)    -- as ms14
//! u8[4]   "ms15"
//! i64     geometry block offsets
//! u8[4]   "ms15"
//! ```
//!
//! Assumptions: every count the page calls `int` is a compact int (as in ms14); there is
//! no bind pose between the second marker and the blocks (the page lists none and there
//! are no bones); blocks, LZ4, raw-stored blocks, index widths and the spatial tree are
//! exactly ms14's. The faithful type reuses [`Ms14`]: one unnamed morph target per
//! surface, no bones, no weights.

use meshfmt_core::{Budget, Converted, Feature, LossKind, Model};
use parsing_primitives::{RawString, Reader};

use crate::error::Result;
use crate::ms1x::{Ms1x, Ms1xVersion};
use crate::ms14::{Layout, Ms14, read_layout};

/// ms15: no bones, one unnamed vertex count per surface, no weights count.
pub(crate) const LAYOUT: Layout = Layout {
    magic: b"ms15",
    lightmap: true,
    skinned: false,
    compact_bones: false,
    whole_file: true,
};

/// An ms15 file: ms14's faithful types restricted to what ms15 can hold (checked on
/// write): `mesh.bones` and every surface's `weights` empty, exactly one morph target
/// per surface with an empty name.
#[derive(Debug, Clone, PartialEq)]
pub struct Ms15(pub Ms14);

/// Reads an ms15 file.
pub(crate) fn read(r: &mut Reader<'_>) -> parsing_primitives::Result<Ms15> {
    read_layout(r, LAYOUT).map(Ms15)
}

impl Ms15 {
    /// What [`Ms15::write`] would refuse, at its path (the first thing found).
    pub fn problems(&self) -> Vec<meshfmt_core::Problem> {
        let mut p = meshfmt_core::Problems::default();
        p.check("ms15", self.check());
        p.into_vec()
    }

    /// Checks what [`Ms15::write`] relies on: [`Ms14::check`] plus no bones, no
    /// weights and one unnamed morph target per surface.
    pub(crate) fn check(&self) -> Result<()> {
        self.0.check_ms15()
    }

    /// The file's bytes; unchanged blocks keep their original compressed bytes.
    pub fn write(&self) -> Result<Vec<u8>> {
        self.0.write_layout(LAYOUT)
    }

    /// The meshfmt-core model (as ms13/ms14: positions, tangent frames, UVs, colours).
    pub fn to_core(&self) -> Result<Converted<Model>> {
        self.0.mesh.to_core()
    }

    /// [`Ms15::to_core`], charging the model it builds to `budget`.
    pub(crate) fn to_core_in(&self, budget: &Budget) -> Result<Converted<Model>> {
        self.0.mesh.to_core_in(budget)
    }

    /// An ms15 file from any model, as ms13/ms14 would hold it minus bones, weights and
    /// morph targets beyond the base geometry (each reported as a loss); the spatial
    /// trees are built as for ms14 ([`Ms14::from_ms13`]).
    pub fn from_core(model: &Model) -> Result<Converted<Ms15>> {
        Ms15::from_core_in(model, &Budget::default())
    }

    /// [`Ms15::from_core`], charging what it builds (a copy of a model in another frame,
    /// trees) to `budget`.
    pub(crate) fn from_core_in(model: &Model, budget: &Budget) -> Result<Converted<Ms15>> {
        let mut c = Ms1x::from_core_in(model, Ms1xVersion::Ms13, budget)?;
        let stripped = strip_to_static(&mut c.value);
        for (feature, what) in stripped {
            c.lose(feature, LossKind::Dropped, "", what);
        }
        let mesh = c.value;
        Ok(Converted {
            value: Ms15(Ms14::from_ms13_in(mesh, budget)?),
            losses: c.losses,
        })
    }
}

/// Removes what static ms15 cannot hold; returns what was removed.
fn strip_to_static(m: &mut Ms1x) -> Vec<(Feature, String)> {
    let mut lost = Vec::new();
    if !m.bones.is_empty() {
        lost.push((
            Feature::Skeleton,
            format!("ms15 is static: {} bones dropped", m.bones.len()),
        ));
        m.bones.clear();
        m.bind_pose.clear();
    }
    let weighted = m.surfaces.iter().filter(|s| !s.weights.is_empty()).count();
    let morphs: usize = m
        .surfaces
        .iter()
        .map(|s| s.morph_targets.len().saturating_sub(1))
        .sum();
    let named = m
        .surfaces
        .iter()
        .any(|s| s.morph_targets.first().is_some_and(|t| !t.name.is_empty()));
    for s in &mut m.surfaces {
        s.weights.clear();
        s.morph_targets.truncate(1);
        if let Some(t) = s.morph_targets.first_mut() {
            t.name = RawString::default();
        }
    }
    if weighted > 0 {
        lost.push((
            Feature::Skin,
            format!("ms15 is static: weights of {weighted} surfaces dropped"),
        ));
    }
    if morphs > 0 {
        lost.push((
            Feature::MorphTargets,
            format!("ms15 holds only the base geometry: {morphs} morph targets dropped"),
        ));
    }
    if named {
        lost.push((
            Feature::Names,
            "ms15 stores no morph-target names".to_string(),
        ));
    }
    lost
}

crate::file::with_options!(Ms15);

impl crate::file::VersionFile for Ms15 {
    fn magic(&self) -> &'static [u8; 4] {
        b"ms15"
    }

    crate::file::version_file_delegates!();

    fn summarize(&self, s: &mut meshfmt_core::Summary) {
        crate::summary::ms1x_detail(&self.0.mesh, &self.0.geometry_block_sizes(), s);
        crate::summary::ms1x_counts(&self.0.mesh, &mut s.counts);
    }
}
