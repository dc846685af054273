//! Writing the ASCII `3dmodel` variant.

use std::fmt::Write as _;

use meshfmt_core::text::{is_unprintable, without_unprintable};
use meshfmt_core::{Feature, Loss, LossKind};
use parsing_primitives::Budget;

use crate::chunk::Body;
use crate::context::text::{Capped, NL, TextLosses, TextWriter, cut};
use crate::error::Result;
use crate::file::File;
use crate::mesh::MeshRecord;
use crate::options::WriteOptions;
use crate::{asset, bones, extra, label, material, mesh, procedural, shape, vertex, voxel};

impl File {
    /// The model as an ASCII `3dmodel` text (CRLF lines, as m3d.h's exporter writes).
    /// Coordinates are written as decoded (quantized ones as `v/127` etc.), so reading the
    /// text back gives f64 coordinates with the same values. Inlined assets and the preview
    /// name files in this form and are not written.
    ///
    /// ```
    /// let text = m3d_format::File::default().write_ascii()?;
    /// assert!(text.starts_with("3dmodel 1\r\n"));
    /// let back = m3d_format::read(text.as_bytes())?;
    /// assert_eq!(back.counts(), m3d_format::File::default().counts());
    /// # Ok::<(), m3d_format::Error>(())
    /// ```
    pub fn write_ascii(&self) -> Result<String> {
        self.write_ascii_with(&WriteOptions::default())
    }

    /// [`write_ascii`](Self::write_ascii) drawing on the options' budget (`budget`, or a
    /// fresh one of `limits`; the other options do not apply to text): the text is charged
    /// as it is written, so a model whose text would pass the budget (a chain of 50,000
    /// bones is 1.25 billion slashes) fails with [`Error::OverBudget`](crate::Error).
    ///
    /// ```
    /// use m3d_format::{File, Limits, WriteOptions};
    /// let opts = WriteOptions { budget: m3d_format::Budget::new(Limits { max_alloc_bytes: 4, ..Limits::DEFAULT }), ..WriteOptions::default() };
    /// assert!(matches!(File::default().write_ascii_with(&opts), Err(m3d_format::Error::OverBudget(_))));
    /// # Ok::<(), m3d_format::Error>(())
    /// ```
    pub fn write_ascii_with(&self, opts: &WriteOptions) -> Result<String> {
        let budget = opts.budget.clone();
        self.write_ascii_text(budget)
    }

    /// What [`write_ascii`](Self::write_ascii) leaves out or changes, as meshfmt-core
    /// losses: each inlined asset (an embedded texture) is dropped, since the text form
    /// only names files beside it; each name holding whitespace comes back with `_` for
    /// it (a name is one token on its line): a material's under
    /// [`Materials`](meshfmt_core::Feature::Materials) (and
    /// [`Names`](meshfmt_core::Feature::Names) when a mesh uses it: surfaces are named
    /// after their material), a texture map's under
    /// [`Textures`](meshfmt_core::Feature::Textures), any other (bones, actions, the
    /// model's name line, which cannot hold line breaks) under `Names`. Of each kind the
    /// first 100 are listed (names cut at 1024 bytes), then one line counts the rest.
    ///
    /// ```
    /// assert!(m3d_format::File::default().ascii_losses().is_empty());
    /// ```
    pub fn ascii_losses(&self) -> Vec<Loss> {
        let title = self.header_strings()[0];
        let used = self
            .chunks
            .iter()
            .filter_map(|c| match &c.body {
                Body::Mesh(m) => Some(&m.records),
                _ => None,
            })
            .flatten()
            .filter_map(|r| match r {
                MeshRecord::UseMaterial(s) => self.string(*s),
                _ => None,
            })
            .collect();
        let mut l = TextLosses {
            strings: &self.strings,
            out: Capped::default(),
            used,
        };
        let h = self.header_strings();
        if String::from_utf8_lossy(title).chars().any(is_unprintable) {
            l.push(
                Feature::Names,
                LossKind::Reduced,
                format!("name '{}'", cut(title)),
                "the ASCII form's name line cannot hold line breaks or control characters: line breaks become spaces, the others are removed",
            );
        }
        let text = |b: &[u8]| {
            String::from_utf8_lossy(b)
                .chars()
                .any(|c| is_unprintable(c) && !matches!(c, '\r' | '\n'))
        };
        if h[1..].iter().any(|b| text(b)) {
            l.push(
                Feature::Names,
                LossKind::Reduced,
                "header".into(),
                "control characters in the license, author or description are removed",
            );
        }
        for c in &self.chunks {
            match &c.body {
                Body::Cmap(_) | Body::Tmap(_) | Body::Vrts(_) => {}
                Body::Extra { magic, .. } => crate::extra::ascii_losses(magic, &mut l),
                Body::Bone(s) => bones::ascii::bone_losses(s, &mut l),
                Body::Mtrl(m) => material::ascii::losses(m, &mut l),
                Body::Proc(s) => l.name("PROC", *s),
                Body::Mesh(m) => mesh::ascii::losses(m, &mut l),
                Body::Shpe(s) => l.name("SHPE", s.name),
                Body::Voxt(types) => voxel::ascii::voxtype_losses(types, &mut l),
                Body::Voxd(v) => l.name("VOXD", v.name),
                Body::Lbls(x) => label::ascii::losses(x, &mut l),
                Body::Actn(a) => l.name("ACTN", a.name),
                Body::Aset { name, .. } => asset::ascii_losses(*name, &mut l),
            }
        }
        l.out.finish()
    }

    fn write_ascii_text(&self, budget: Budget) -> Result<String> {
        let mut w = TextWriter {
            strings: &self.strings,
            types: self.types,
            s: String::new(),
            budget,
            charged: 0,
            colours: self.colours(),
        };
        // Skins are written with the vertices.
        let skins = self.skeleton().map_or(&[][..], |s| s.skins.as_slice());
        let nl = NL;
        let h = self.header_strings();
        // The header lines copy the first strings: charged first.
        w.reserve(h.iter().map(|l| l.len()).sum::<usize>() * 2)?;
        let line = |b: &[u8]| {
            without_unprintable(&String::from_utf8_lossy(b).replace(['\r', '\n'], " ")).into_owned()
        };
        let _ = write!(
            w,
            "3dmodel {}{nl}{}{nl}{}{nl}{}{nl}",
            self.effective_scale(),
            line(h[0]),
            line(h[1]),
            line(h[2])
        );
        for d in String::from_utf8_lossy(h[3])
            .split('\n')
            .filter(|l| !l.trim().is_empty())
        {
            let _ = write!(w, "{}{nl}", without_unprintable(d.trim_end_matches('\r')));
        }
        w.push_str(nl);
        w.settle()?;
        for c in &self.chunks {
            match &c.body {
                // Colours are written literally; inlined assets name files in this form.
                Body::Cmap(_) | Body::Aset { .. } => {}
                Body::Tmap(t) => vertex::ascii::write_textmap(&mut w, t)?,
                Body::Vrts(v) => vertex::ascii::write_vertex(&mut w, v, skins)?,
                Body::Bone(s) => bones::ascii::write_bones(&mut w, s)?,
                Body::Mtrl(m) => material::ascii::write_material(&mut w, m)?,
                Body::Proc(s) => procedural::write_ascii(&mut w, s)?,
                Body::Mesh(m) => mesh::ascii::write_mesh(&mut w, m)?,
                Body::Shpe(s) => shape::ascii::write_shape(&mut w, s)?,
                Body::Voxt(t) => voxel::ascii::write_voxtypes(&mut w, t)?,
                Body::Voxd(b) => voxel::ascii::write_voxel(&mut w, b)?,
                Body::Lbls(l) => label::ascii::write_labels(&mut w, l)?,
                Body::Actn(a) => bones::ascii::write_action(&mut w, a)?,
                Body::Extra { magic, data } => extra::write_ascii(&mut w, magic, data)?,
            }
            w.settle()?;
        }
        let _ = write!(w, "End{nl}");
        w.settle()?;
        Ok(w.s)
    }
}
