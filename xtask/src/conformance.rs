//! The conformance report: what each canonical model holds, that it validates, and
//! what every format does with it (write -> read -> compare, feature by feature).

use meshfmt_core::{DumpOptions, Feature, Model, canonical, dump, validate};

use crate::codecs::{CODECS, Codec};
use crate::compare::{Outcome, compare};

pub struct Row {
    name: &'static str,
    description: &'static str,
    large: bool,
    model: Model,
    problems: Vec<String>,
}

/// One codec on one model.
pub struct Cell {
    pub codec: &'static Codec,
    pub model: &'static str,
    pub large: bool,
    pub result: Result<Encoded, String>,
}

pub struct Encoded {
    pub bytes: Vec<u8>,
    pub companion: Option<Vec<u8>>,
    pub decoded: Model,
    pub losses: Vec<String>,
    pub features: Vec<(Feature, Outcome)>,
}

pub struct Report {
    rows: Vec<Row>,
    pub cells: Vec<Cell>,
    pub pairs: Vec<PairCell>,
}

/// One ordered pair of codecs on one model: canonical -> A -> core -> B -> core.
pub struct PairCell {
    pub a: &'static Codec,
    pub b: &'static Codec,
    pub model: &'static str,
    pub result: Result<Vec<(Feature, Outcome)>, String>,
}

fn run_pair(
    a: &'static Codec,
    b: &'static Codec,
    model: &Model,
) -> Result<Vec<(Feature, Outcome)>, String> {
    let enc_a = a
        .encode(model)
        .map_err(|e| format!("{} cannot hold it: {e}", a.label))?;
    let comp_a = a.encode_companion(model)?;
    let dec_a = a.decode(&enc_a.value, comp_a.as_deref())?;
    let via = dec_a.value;
    let enc_b = b
        .encode(&via)
        .map_err(|e| format!("{} cannot hold it: {e}", b.label))?;
    let comp_b = b.encode_companion(&via)?;
    let dec_b = b.decode(&enc_b.value, comp_b.as_deref())?;
    let mut decoded = dec_b.value;
    decoded.convert_to(model.coordinate_system);
    let mut losses = enc_a.losses;
    losses.extend(dec_a.losses);
    losses.extend(enc_b.losses);
    losses.extend(dec_b.losses);
    Ok(compare(model, &decoded, &losses))
}

fn run_codec(codec: &'static Codec, model: &Model) -> Result<Encoded, String> {
    let enc = codec.encode(model)?;
    let companion = codec.encode_companion(model)?;
    let dec = codec
        .decode(&enc.value, companion.as_deref())
        .map_err(|e| format!("reading our own output failed: {e}"))?;
    let mut decoded = dec.value;
    decoded.convert_to(model.coordinate_system);
    let mut losses = enc.losses;
    losses.extend(dec.losses);
    let features = compare(model, &decoded, &losses);
    Ok(Encoded {
        companion,
        bytes: enc.value,
        decoded,
        losses: losses.iter().map(ToString::to_string).collect(),
        features,
    })
}

pub fn report() -> Report {
    let rows: Vec<Row> = canonical::ALL
        .iter()
        .map(|c| {
            let model = (c.build)();
            let problems = validate(&model).iter().map(ToString::to_string).collect();
            Row {
                name: c.name,
                description: c.description,
                large: c.large,
                model,
                problems,
            }
        })
        .collect();
    let mut cells = Vec::new();
    for codec in CODECS {
        for r in &rows {
            cells.push(Cell {
                codec,
                model: r.name,
                large: r.large,
                result: run_codec(codec, &r.model),
            });
        }
    }
    // The pair matrix skips the large model: its per-codec rows already cover it, and
    // 121 pairs of 65k-vertex conversions would slow every run for no new coverage.
    let mut pairs = Vec::new();
    for a in CODECS {
        for b in CODECS {
            for r in rows.iter().filter(|r| !r.large) {
                pairs.push(PairCell {
                    a,
                    b,
                    model: r.name,
                    result: run_pair(a, b, &r.model),
                });
            }
        }
    }
    Report { rows, cells, pairs }
}

impl Cell {
    /// Short summary for the terminal table.
    fn summary(&self) -> String {
        match &self.result {
            Err(e) => format!("cannot hold: {e}"),
            Ok(e) => {
                let count =
                    |f: fn(&Outcome) -> bool| e.features.iter().filter(|(_, o)| f(o)).count();
                let bad = count(Outcome::is_failure);
                if bad > 0 {
                    return format!("{bad} MISMATCHES");
                }
                format!(
                    "{} bytes: {} exact, {} within bound, {} lost",
                    e.bytes.len(),
                    count(|o| matches!(o, Outcome::Exact | Outcome::Rounding { .. })),
                    count(|o| matches!(o, Outcome::WithinBound { .. })),
                    count(|o| matches!(o, Outcome::Lost(_)))
                )
            }
        }
    }
}

impl Report {
    /// The worst outcome of each feature for the pair (a, b) over all models, and how
    /// many models the pair could carry at all.
    fn pair_summary(&self, a: &Codec, b: &Codec) -> (Vec<Outcome>, usize, usize) {
        let mut worst = vec![Outcome::Absent; Feature::ALL.len()];
        let (mut carried, mut total) = (0, 0);
        for p in self
            .pairs
            .iter()
            .filter(|p| std::ptr::eq(p.a, a) && std::ptr::eq(p.b, b))
        {
            total += 1;
            if let Ok(features) = &p.result {
                carried += 1;
                for (i, (_, o)) in features.iter().enumerate() {
                    let w = &mut worst[i];
                    let bigger_bound = matches!((o, &*w), (Outcome::WithinBound { bound: x, .. }, Outcome::WithinBound { bound: y, .. }) if x > y);
                    if o.severity() > w.severity() || bigger_bound {
                        *w = o.clone();
                    }
                }
            }
        }
        (worst, carried, total)
    }

    /// Failures that must fail the run.
    pub fn failures(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .rows
            .iter()
            .flat_map(|r| {
                r.problems
                    .iter()
                    .map(move |p| format!("canonical {}: {p}", r.name))
            })
            .collect();
        for c in &self.cells {
            if let Ok(e) = &c.result {
                for (f, o) in &e.features {
                    if o.is_failure() {
                        out.push(format!("{} {} {f}: {}", c.codec.label, c.model, o.cell()));
                    }
                }
            }
        }
        for p in &self.pairs {
            if let Ok(features) = &p.result {
                for (f, o) in features {
                    if o.is_failure() {
                        out.push(format!(
                            "{} -> {} {} {f}: {}",
                            p.a.label,
                            p.b.label,
                            p.model,
                            o.cell()
                        ));
                    }
                }
            }
        }
        out
    }

    /// The text fixture next to a codec's output: the decoded model and the losses.
    pub fn cell_dump(&self, cell: &Cell) -> Option<String> {
        let e = cell.result.as_ref().ok()?;
        let mut s = format!(
            "# {} written by {} and read back ({} bytes)\n",
            cell.model,
            cell.codec.label,
            e.bytes.len()
        );
        for l in &e.losses {
            s += &format!("# loss: {l}\n");
        }
        let opts = if cell.large {
            DumpOptions { max_items: 8 }
        } else {
            DumpOptions::default()
        };
        s += &dump(&e.decoded, &opts);
        Some(s)
    }

    fn model_cells(r: &Row) -> [String; 8] {
        let m = &r.model;
        [
            r.name.to_string(),
            m.surfaces.len().to_string(),
            m.vertex_count().to_string(),
            m.triangle_count().to_string(),
            m.skeleton.len().to_string(),
            m.animations.len().to_string(),
            m.surfaces
                .iter()
                .map(|s| s.morph_targets.len())
                .sum::<usize>()
                .to_string(),
            if r.problems.is_empty() {
                "valid".into()
            } else {
                format!("{} problems", r.problems.len())
            },
        ]
    }

    /// Plain-text tables for the terminal.
    pub fn table(&self) -> String {
        let head = [
            "model",
            "surfaces",
            "vertices",
            "triangles",
            "bones",
            "clips",
            "morphs",
            "validate",
        ];
        let mut rows: Vec<Vec<String>> = vec![head.iter().map(|s| s.to_string()).collect()];
        rows.extend(self.rows.iter().map(|r| Self::model_cells(r).to_vec()));
        let mut s = String::from("Canonical models\n");
        s += &align(&rows);
        for r in &self.rows {
            for p in &r.problems {
                s += &format!("  {}: {p}\n", r.name);
            }
        }
        for codec in CODECS {
            s += &format!("\n{} (write -> read -> compare)\n", codec.label);
            let mut rows = vec![vec!["model".to_string(), "result".to_string()]];
            for c in self.cells.iter().filter(|c| std::ptr::eq(c.codec, codec)) {
                rows.push(vec![c.model.to_string(), c.summary()]);
            }
            s += &align(&rows);
        }
        s += "\nConversion matrix (canonical -> row -> meshfmt-core -> column -> meshfmt-core):\n";
        s += "models carried / features kept (exact or within bound) / features lost, over the small models\n";
        let mut grid = vec![vec!["from \\ to".to_string()]];
        grid[0].extend(CODECS.iter().enumerate().map(|(i, _)| format!("[{i}]")));
        for (i, a) in CODECS.iter().enumerate() {
            let mut row = vec![format!("[{i}] {}", a.label)];
            for b in CODECS {
                let (mut kept, mut lost, mut carried) = (0, 0, 0);
                for p in self
                    .pairs
                    .iter()
                    .filter(|p| std::ptr::eq(p.a, a) && std::ptr::eq(p.b, b))
                {
                    if let Ok(f) = &p.result {
                        carried += 1;
                        kept += f
                            .iter()
                            .filter(|(_, o)| {
                                matches!(
                                    o,
                                    Outcome::Exact
                                        | Outcome::Rounding { .. }
                                        | Outcome::WithinBound { .. }
                                )
                            })
                            .count();
                        lost += f
                            .iter()
                            .filter(|(_, o)| matches!(o, Outcome::Lost(_)))
                            .count();
                    }
                }
                row.push(format!("{carried}/{kept}/{lost}"));
            }
            grid.push(row);
        }
        s += &align(&grid);
        s += "\nFull per-feature results: fixtures/CONFORMANCE.md\n";
        s
    }

    /// Markdown for fixtures/CONFORMANCE.md.
    pub fn markdown(&self) -> String {
        let mut s = String::from(
            "# Conformance report\n\nGenerated by `cargo xtask fixtures`; do not edit.\n\n\
             Each canonical model is written by every format that can hold it, read back, converted to the\n\
             canonical frame and compared feature by feature: `exact` (bit-identical), `~exact (e)` (f32\n\
             arithmetic noise up to e, no quantization), `<= e` (within the\n\
             quantization bound the encoder reported), `dropped`/`reduced` (reported by the conversion, reason\n\
             below), `-` (the model has no such feature).\n\n## Canonical models\n\n\
             | model | what it exercises | surfaces | vertices | triangles | bones | clips | morph targets | validate |\n\
             |---|---|---|---|---|---|---|---|---|\n",
        );
        for r in &self.rows {
            let l = Self::model_cells(r);
            s += &format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                l[0], r.description, l[1], l[2], l[3], l[4], l[5], l[6], l[7]
            );
        }
        for codec in CODECS {
            s += &format!("\n## {}\n\n| model |", codec.label);
            for f in Feature::ALL {
                s += &format!(" {f} |");
            }
            s += "\n|---|";
            s += &"---|".repeat(Feature::ALL.len());
            s += "\n";
            let cells: Vec<&Cell> = self
                .cells
                .iter()
                .filter(|c| std::ptr::eq(c.codec, codec))
                .collect();
            for c in &cells {
                match &c.result {
                    Err(e) => s += &format!("| {} | cannot hold: {e} |\n", c.model),
                    Ok(e) => {
                        s += &format!("| {} |", c.model);
                        for (_, o) in &e.features {
                            s += &format!(" {} |", o.cell());
                        }
                        s += "\n";
                    }
                }
            }
            s += "\nLosses reported by the conversion:\n\n";
            for c in &cells {
                if let Ok(e) = &c.result {
                    for l in &e.losses {
                        s += &format!("- {}: {l}\n", c.model);
                    }
                }
            }
        }
        s += "\n## Conversion matrix\n\nFor every ordered pair of formats: each small canonical model goes canonical -> A -> meshfmt-core -> B -> meshfmt-core and is compared with the original. A cell is the worst outcome over the models the pair can carry; bounds of chained quantizations add up. `n/m` counts the models carried.\n\n| A -> B | models |";
        for f in Feature::ALL {
            s += &format!(" {f} |");
        }
        s += "\n|---|---|";
        s += &"---|".repeat(Feature::ALL.len());
        s += "\n";
        for a in CODECS {
            for b in CODECS {
                let (worst, carried, total) = self.pair_summary(a, b);
                s += &format!("| {} -> {} | {carried}/{total} |", a.label, b.label);
                for o in &worst {
                    s += &format!(" {} |", o.cell());
                }
                s += "\n";
            }
        }
        s
    }
}

fn align(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(String::len)
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut s = String::new();
    for (n, r) in rows.iter().enumerate() {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        s += line.join("  ").trim_end();
        s += "\n";
        if n == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            s += &rule.join("  ");
            s += "\n";
        }
    }
    s
}
