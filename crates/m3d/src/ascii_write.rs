//! Writing the ASCII `3dmodel` variant.

use std::fmt::Write as _;

use parsing_primitives::Budget;

use crate::ascii::PROPS;
use crate::error::{Result, invalid};
use crate::file::{Body, File, WriteOptions};
use crate::material::PropValue;
use crate::mesh::MeshRecord;
use crate::shape::ArgValue;
use crate::types::{Idx, Str};

/// The text being written, charged to the budget as it grows: after every line, and
/// before any part that a few bytes of the model can make long (the slashes of a deep
/// bone, a voxel grid, a name that is the whole string table).
struct Text {
    s: String,
    budget: Budget,
    charged: usize,
}

impl Text {
    /// Charges what was written since the last charge.
    fn settle(&mut self) -> Result<()> {
        let n = self.s.len().saturating_sub(self.charged);
        if n > 0 {
            self.budget.charge("ASCII text", n as u64)?;
            self.charged = self.s.len();
        }
        Ok(())
    }

    /// Charges `n` bytes about to be written.
    fn reserve(&mut self, n: usize) -> Result<()> {
        self.settle()?;
        self.budget.charge("ASCII text", n as u64)?;
        self.charged = self.charged.saturating_add(n);
        Ok(())
    }

    fn push_str(&mut self, s: &str) {
        self.s.push_str(s);
    }
}

impl std::fmt::Write for Text {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.s.push_str(s);
        Ok(())
    }
}

fn idx_text(i: Idx) -> String {
    match i {
        Idx::UNDEF => "-1".into(),
        Idx::MAX => "-2".into(),
        Idx(v) => v.to_string(),
    }
}

fn voxel_text(o: &mut Text, i: Idx) {
    match i {
        Idx::UNDEF => o.push_str("."),
        Idx::MAX => o.push_str("-"),
        Idx(v) => {
            let _ = write!(o, "{v}");
        }
    }
}

/// Names in loss paths are cut here: a name may be the whole string table.
const PATH_NAME_MAX: usize = 1024;

/// Losses of one kind listed before the rest are only counted.
const LOSS_CAP: usize = 100;

/// Losses listed up to [`LOSS_CAP`] of each kind (feature, kind and reason), then counted.
#[derive(Default)]
struct Capped {
    out: Vec<meshfmt_core::Loss>,
    /// Per kind: feature, loss kind, reason, how many.
    kinds: Vec<(
        meshfmt_core::Feature,
        meshfmt_core::LossKind,
        &'static str,
        usize,
    )>,
}

impl Capped {
    fn push(
        &mut self,
        feature: meshfmt_core::Feature,
        kind: meshfmt_core::LossKind,
        path: String,
        reason: &'static str,
    ) {
        let n = match self
            .kinds
            .iter_mut()
            .find(|k| k.0 == feature && k.1 == kind && k.2 == reason)
        {
            Some(k) => {
                k.3 += 1;
                k.3
            }
            None => {
                self.kinds.push((feature, kind.clone(), reason, 1));
                1
            }
        };
        if n <= LOSS_CAP {
            self.out.push(meshfmt_core::Loss {
                feature,
                kind,
                path,
                reason: reason.into(),
            });
        }
    }

    fn finish(mut self) -> Vec<meshfmt_core::Loss> {
        for (feature, kind, reason, n) in self.kinds {
            if n > LOSS_CAP {
                self.out.push(meshfmt_core::Loss {
                    feature,
                    kind,
                    path: String::new(),
                    reason: format!("{} more like this not listed: {reason}", n - LOSS_CAP),
                });
            }
        }
        self.out
    }
}

impl File {
    /// [`name_text`](Self::name_text), the copy charged (a name may be the whole table,
    /// and be referenced by every record).
    fn name_in(&self, s: Str, o: &mut Text) -> Result<String> {
        o.reserve(self.string(s).map_or(0, <[u8]>::len))?;
        Ok(self.name_text(s))
    }

    fn name_text(&self, s: Str) -> String {
        // One token per name on a line: spaces would split it, as m3d.h's exporter knows.
        self.string(s)
            .map(|b| {
                // Any whitespace (tabs too: the reader trims them) becomes '_'.
                String::from_utf8_lossy(b)
                    .chars()
                    .map(|c| if c.is_whitespace() { '_' } else { c })
                    .collect::<String>()
            })
            .unwrap_or_default()
    }

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
    /// let opts = WriteOptions::default().with_limits(Limits { max_alloc_bytes: 4, ..Limits::DEFAULT });
    /// assert!(matches!(File::default().write_ascii_with(&opts), Err(m3d_format::Error::OverBudget(_))));
    /// # Ok::<(), m3d_format::Error>(())
    /// ```
    pub fn write_ascii_with(&self, opts: &WriteOptions) -> Result<String> {
        let budget = Budget::shared_or_new(opts.budget.as_ref(), opts.limits);
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
    pub fn ascii_losses(&self) -> Vec<meshfmt_core::Loss> {
        use meshfmt_core::{Feature, LossKind};
        let mut out = Capped::default();
        let aset = "the ASCII form does not inline assets: the pixels are not written";
        let token = "the ASCII form writes a name as one token: whitespace becomes '_'";
        let cut =
            |b: &[u8]| String::from_utf8_lossy(b.get(..PATH_NAME_MAX).unwrap_or(b)).into_owned();
        let title = self.header_strings()[0];
        if title.iter().any(|b| matches!(b, b'\r' | b'\n')) {
            out.push(
                Feature::Names,
                LossKind::Reduced,
                format!("name '{}'", cut(title)),
                "the ASCII form's name line cannot hold line breaks: they become spaces",
            );
        }
        // A name that the text changes: its bytes, for the path.
        let changed = |s: Str| -> Option<&[u8]> {
            let b = self.string(s)?;
            (self.name_text(s) != String::from_utf8_lossy(b)).then_some(b)
        };
        // Materials a mesh uses, by name (a record may name it at another offset).
        let used: std::collections::HashSet<&[u8]> = self
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
        let other = |what: &str, s: Str, out: &mut Capped| {
            if let Some(b) = changed(s) {
                out.push(
                    Feature::Names,
                    LossKind::Reduced,
                    format!("{what} '{}'", cut(b)),
                    token,
                );
            }
        };
        for c in &self.chunks {
            match &c.body {
                Body::Aset { name, .. } => {
                    let name = self.string(*name).unwrap_or_default();
                    out.push(
                        Feature::Textures,
                        LossKind::Dropped,
                        format!("ASET '{}'", cut(name)),
                        aset,
                    );
                }
                Body::Mtrl(m) => {
                    if let Some(b) = changed(m.name) {
                        let path = format!("MTRL '{}'", cut(b));
                        out.push(Feature::Materials, LossKind::Reduced, path.clone(), token);
                        if used.contains(b) {
                            out.push(Feature::Names, LossKind::Reduced, path, token);
                        }
                    }
                    for p in &m.props {
                        if let PropValue::Map(s) = p.value {
                            if let Some(b) = changed(s) {
                                let material = self.string(m.name).unwrap_or_default();
                                out.push(
                                    Feature::Textures,
                                    LossKind::Reduced,
                                    format!("MTRL '{}' map '{}'", cut(material), cut(b)),
                                    token,
                                );
                            }
                        }
                    }
                }
                Body::Bone(s) => {
                    for b in &s.bones {
                        other("BONE", b.name, &mut out);
                    }
                }
                Body::Actn(a) => other("ACTN", a.name, &mut out),
                Body::Proc(s) => other("PROC", *s, &mut out),
                Body::Shpe(s) => other("SHPE", s.name, &mut out),
                Body::Voxd(v) => other("VOXD", v.name, &mut out),
                Body::Voxt(types) => {
                    for t in types {
                        other("VOXT", t.name, &mut out);
                        for (_, s) in &t.items {
                            other("VOXT item", *s, &mut out);
                        }
                    }
                }
                Body::Lbls(l) => {
                    other("LBLS", l.name, &mut out);
                    other("LBLS lang", l.lang, &mut out);
                }
                Body::Mesh(m) => {
                    for r in &m.records {
                        if let MeshRecord::UseParameter { name, .. } = r {
                            other("MESH parameter", *name, &mut out);
                        }
                    }
                }
                _ => {}
            }
        }
        out.finish()
    }

    fn write_ascii_text(&self, budget: Budget) -> Result<String> {
        let mut o = Text {
            s: String::new(),
            budget,
            charged: 0,
        };
        let nl = "\r\n";
        let h = self.header_strings();
        // The header lines copy the first strings: charged first.
        o.reserve(h.iter().map(|l| l.len()).sum::<usize>() * 2)?;
        let line = |b: &[u8]| String::from_utf8_lossy(b).replace(['\r', '\n'], " ");
        let _ = write!(
            o,
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
            let _ = write!(o, "{}{nl}", d.trim_end_matches('\r'));
        }
        o.push_str(nl);
        o.settle()?;
        let skins = self.skeleton().map_or(&[][..], |s| s.skins.as_slice());
        // The colour map found once, not per colour.
        let colours = self.colours();
        for c in &self.chunks {
            match &c.body {
                Body::Cmap(_) => {} // colours are written literally
                Body::Tmap(t) => {
                    let _ = write!(o, "Textmap{nl}");
                    for uv in &t.items {
                        let _ = write!(o, "{} {}{nl}", uv[0].unsigned(), uv[1].unsigned());
                        o.settle()?;
                    }
                    o.push_str(nl);
                }
                Body::Vrts(v) => {
                    let _ = write!(o, "Vertex{nl}");
                    for v in &v.items {
                        let c = v.coords.map(|c| c.signed());
                        let _ = write!(o, "{} {} {} {}", c[0], c[1], c[2], c[3]);
                        let rgba = colours.rgba(v.color);
                        if self.types.ci() != 0 && rgba != 0 {
                            let _ = write!(o, " #{rgba:08x}");
                        }
                        if let Some(s) = v.skin.get().and_then(|s| skins.get(s as usize)) {
                            let single = s.bones.len() == 1
                                && s.weights.iter().filter(|w| **w != 0).eq([&255u8]);
                            if s.weights.is_empty() || single {
                                for b in &s.bones {
                                    let _ = write!(o, " {}", idx_text(*b));
                                }
                            } else {
                                let ws = s.weights.iter().filter(|w| **w != 0);
                                for (b, w) in s.bones.iter().zip(ws) {
                                    let _ =
                                        write!(o, " {}:{}", idx_text(*b), f32::from(*w) / 255.0);
                                }
                            }
                        }
                        o.push_str(nl);
                        o.settle()?;
                    }
                    o.push_str(nl);
                }
                Body::Bone(s) => {
                    if s.bones.is_empty() {
                        continue;
                    }
                    let _ = write!(o, "Bones{nl}");
                    o.budget
                        .charge_items::<usize>("ASCII text", 2 * s.bones.len())?;
                    let mut depth: Vec<usize> = Vec::with_capacity(s.bones.len());
                    // The text form gives each bone's parent only by its depth: the
                    // nearest earlier bone one level up. So bones must be in depth-first
                    // order (each parent the last bone seen at its depth).
                    let mut last_at_depth: Vec<usize> = Vec::new();
                    for (i, b) in s.bones.iter().enumerate() {
                        let d = match b.parent.get() {
                            None => 0,
                            Some(p) if (p as usize) < i => {
                                depth.get(p as usize).copied().unwrap_or(0) + 1
                            }
                            Some(_) => {
                                return Err(invalid(format!(
                                    "bone {i}: its parent must come before it"
                                )));
                            }
                        };
                        if let Some(p) = b.parent.get() {
                            if last_at_depth.get(d - 1) != Some(&(p as usize)) {
                                return Err(invalid(format!(
                                    "bone {i}: the text form needs bones in depth-first order (parent {p} is not the last bone one level up)"
                                )));
                            }
                        }
                        last_at_depth.truncate(d);
                        last_at_depth.push(i);
                        depth.push(d);
                        // A chain of n bones writes n^2 / 2 slashes: charged first.
                        o.reserve(d)?;
                        const SLASHES: &str =
                            "////////////////////////////////////////////////////////////////";
                        let mut left = d;
                        while left > 0 {
                            let k = left.min(SLASHES.len());
                            o.push_str(SLASHES.get(..k).unwrap_or_default());
                            left -= k;
                        }
                        let name = self.name_in(b.name, &mut o)?;
                        let _ = write!(o, "{} {} {name}{nl}", idx_text(b.pos), idx_text(b.ori));
                        o.settle()?;
                    }
                    o.push_str(nl);
                }
                Body::Mtrl(m) => {
                    let name = self.name_in(m.name, &mut o)?;
                    let _ = write!(o, "Material {name}{nl}");
                    for p in &m.props {
                        let base = PROPS.iter().find(|x| x.1 == p.kind & 0x7F).map(|x| x.0);
                        match (&p.value, base) {
                            (PropValue::Map(s), Some(b)) => {
                                let name = self.name_in(*s, &mut o)?;
                                let _ = write!(o, "map_{b} {name}{nl}");
                            }
                            (PropValue::Color(c), Some(b)) => {
                                let _ = write!(o, "{b} #{:08x}{nl}", colours.rgba(*c));
                            }
                            (PropValue::Float(f), Some(b)) => {
                                let _ = write!(o, "{b} {f}{nl}");
                            }
                            (PropValue::Byte(v), Some(b)) => {
                                let _ = write!(o, "{b} {v}{nl}");
                            }
                            _ => {
                                return Err(invalid(format!(
                                    "material property type {} has no ASCII name",
                                    p.kind
                                )));
                            }
                        }
                        o.settle()?;
                    }
                    o.push_str(nl);
                }
                Body::Proc(s) => {
                    let name = self.name_in(*s, &mut o)?;
                    let _ = write!(o, "Procedural{nl}{name}{nl}{nl}");
                }
                Body::Mesh(m) => {
                    let _ = write!(o, "Mesh{nl}");
                    for r in &m.records {
                        match r {
                            MeshRecord::UseMaterial(s) => {
                                let name = self.name_in(*s, &mut o)?;
                                let _ = write!(o, "use {name}{nl}");
                            }
                            MeshRecord::UseParameter { name, .. } => {
                                let name = self.name_in(*name, &mut o)?;
                                let _ = write!(o, "par {name}{nl}");
                            }
                            MeshRecord::Polygon { corners, .. } => {
                                let parts: Vec<String> = corners
                                    .iter()
                                    .map(|c| {
                                        let f = |i: Idx| {
                                            i.get().map(|v| v.to_string()).unwrap_or_default()
                                        };
                                        let mut s = idx_text(c.vertex);
                                        let tail = [f(c.uv), f(c.normal), f(c.max)];
                                        let keep = tail
                                            .iter()
                                            .rposition(|t| !t.is_empty())
                                            .map_or(0, |k| k + 1);
                                        for t in tail.iter().take(keep) {
                                            s.push('/');
                                            s.push_str(t);
                                        }
                                        s
                                    })
                                    .collect();
                                let _ = write!(o, "{}{nl}", parts.join(" "));
                            }
                        }
                        o.settle()?;
                    }
                    o.push_str(nl);
                }
                Body::Shpe(s) => {
                    let name = self.name_in(s.name, &mut o)?;
                    let _ = write!(o, "Shape {name}{nl}");
                    if let Some(g) = s.group.get() {
                        let _ = write!(o, "group {g}{nl}");
                    }
                    for c in &s.commands {
                        let kw = c
                            .keyword()
                            .ok_or_else(|| invalid("unknown shape command"))?;
                        let mut text = kw.to_owned();
                        let layout = crate::shape::layout_by_keyword(kw)
                            .map(|l| l.1)
                            .unwrap_or(&[]);
                        let va = layout.iter().position(|a| crate::shape::is_variadic(*a));
                        for (i, a) in c.args.iter().enumerate() {
                            let v = match a {
                                ArgValue::Str(s) => self.name_in(*s, &mut o)?,
                                ArgValue::Idx(i) => idx_text(*i),
                                ArgValue::Coord(c) => c.signed().to_string(),
                                ArgValue::Int(n) => n.to_string(),
                            };
                            text.push(' ');
                            text.push_str(&v);
                            if Some(i) == va {
                                text.push('[');
                            }
                        }
                        if va.is_some_and(|k| k < c.args.len()) {
                            text.push_str(" ]");
                        }
                        o.reserve(text.len())?;
                        let _ = write!(o, "{text}{nl}");
                        o.settle()?;
                    }
                    o.push_str(nl);
                }
                Body::Voxt(types) => {
                    let _ = write!(o, "VoxTypes{nl}");
                    for t in types {
                        let shape = (u16::from(t.rotation & 0x40) << 2) | u16::from(t.shape_low);
                        let name = match self.name_in(t.name, &mut o)? {
                            n if n.is_empty() => "-".to_owned(),
                            n => n,
                        };
                        let _ = write!(
                            o,
                            "#{:08x}/{}/{} {name}",
                            colours.rgba(t.color),
                            t.rotation & 0xBF,
                            shape
                        );
                        if let Some(s) = t.skin.get() {
                            let _ = write!(o, " {s}");
                        }
                        if !t.items.is_empty() {
                            o.push_str(" {");
                            for (n, s) in &t.items {
                                // An empty name would shift every later count/name pair.
                                let name = match self.name_in(*s, &mut o)? {
                                    t if t.is_empty() => "-".to_owned(),
                                    t => t,
                                };
                                let _ = write!(o, " {n} {name}");
                            }
                            o.push_str(" }");
                        }
                        o.push_str(nl);
                        o.settle()?;
                    }
                    o.push_str(nl);
                }
                Body::Voxd(b) => {
                    let name = self.name_in(b.name, &mut o)?;
                    let _ = write!(o, "Voxel {name}{nl}");
                    let _ = write!(o, "uncertain {} {}{nl}", b.uncertain, b.group);
                    let _ = write!(o, "pos {} {} {}{nl}", b.pos[0], b.pos[1], b.pos[2]);
                    let _ = write!(o, "dim {} {} {}{nl}", b.size[0], b.size[1], b.size[2]);
                    let n = b
                        .voxel_count()
                        .filter(|n| *n <= 1 << 26)
                        .ok_or_else(|| invalid("voxel block too large for text"))?;
                    let [w, _, d] = b.size.map(|x| x.max(1) as usize);
                    // Every voxel of the grid is written (a '.' past the coded ones): a
                    // few bytes of runs can declare 2^26 of them, so the text is charged
                    // first: two bytes a voxel, a line end a row, a "layer" line a layer.
                    let rows = n / w;
                    o.reserve(
                        n.saturating_mul(2)
                            .saturating_add(rows.saturating_mul(2))
                            .saturating_add((rows / d).saturating_mul(7)),
                    )?;
                    let coded = b.coded_voxels(n, &o.budget)?;
                    for i in 0..rows {
                        if i % d == 0 {
                            let _ = write!(o, "layer{nl}");
                        }
                        for k in 0..w {
                            if k > 0 {
                                o.push_str(" ");
                            }
                            let v = coded.get(i * w + k).copied().unwrap_or(Idx::UNDEF);
                            voxel_text(&mut o, v);
                        }
                        o.push_str(nl);
                    }
                    o.push_str(nl);
                    o.settle()?;
                }
                Body::Lbls(l) => {
                    let name = self.name_in(l.name, &mut o)?;
                    let _ = write!(o, "Labels {name}{nl}");
                    if self.types.ci() != 0 {
                        let _ = write!(o, "color #{:08x}{nl}", colours.rgba(l.color));
                    }
                    if l.lang.0 != 0 {
                        let lang = self.name_in(l.lang, &mut o)?;
                        let _ = write!(o, "lang {lang}{nl}");
                    }
                    for (v, s) in &l.labels {
                        o.reserve(self.string(*s).map_or(0, <[u8]>::len))?;
                        let text = self
                            .string(*s)
                            .map(|b| String::from_utf8_lossy(b).replace(['\r', '\n'], " "))
                            .unwrap_or_default();
                        let _ = write!(o, "{} {text}{nl}", idx_text(*v));
                        o.settle()?;
                    }
                    o.push_str(nl);
                }
                Body::Actn(a) => {
                    let name = self.name_in(a.name, &mut o)?;
                    let _ = write!(o, "Action {} {name}{nl}", a.duration_msec);
                    for f in &a.frames {
                        let _ = write!(o, "frame {}{nl}", f.msec);
                        for t in &f.transforms {
                            let _ = write!(
                                o,
                                "{} {} {}{nl}",
                                idx_text(t.bone),
                                idx_text(t.pos),
                                idx_text(t.ori)
                            );
                        }
                        o.settle()?;
                    }
                    o.push_str(nl);
                }
                Body::Aset { .. } => {}
                Body::Extra { magic, data } => {
                    let _ = write!(o, "Extra {}{nl}", String::from_utf8_lossy(magic));
                    for row in data.chunks(16) {
                        let hex: Vec<String> = row.iter().map(|b| format!("{b:02x}")).collect();
                        let _ = write!(o, "{}{nl}", hex.join(" "));
                        o.settle()?;
                    }
                    o.push_str(nl);
                }
            }
            o.settle()?;
        }
        let _ = write!(o, "End{nl}");
        o.settle()?;
        Ok(o.s)
    }
}
