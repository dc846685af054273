//! `cargo xtask conformance --samples DIR [--bless] [--gltf-out OUT]`: every real file
//! under DIR is detected, read, validated, rewritten (byte-identical where the format
//! promises it), converted to every writable format (each codec of the fixtures
//! matrix), **read back and compared feature by feature** with what was read (under the
//! losses the conversion reported, as the fixtures matrix does), and exported to glTF
//! (written to OUT for the Khronos validator when asked); the per-file results are
//! compared with `fixtures/samples-expected.txt` (one line per file) and summarized per
//! format family. `converted=K/T`: K of T codecs wrote the file, read it back and kept
//! every feature (exactly, within a reported bound, or reported lost); `bad=` names the
//! codecs whose output did not read back or came back different without a loss saying
//! why. Files the expectation does not know (held-back samples) must read and, where
//! promised, rewrite byte for byte; an expected file that is absent, an empty folder or
//! a missing expectation fails the run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use meshfmt::formats;
use meshfmt_core::format::Context;

use crate::codecs::CODECS;
use crate::compare::compare;

/// Families whose crates promise a byte-identical rewrite of every real file.
const PROMISED_IDENTICAL: &[&str] = &[
    "unigine-mesh",
    "unigine-anim",
    "niotso-mesh",
    "unity-meshser",
];

/// Extensions that are documentation or test data, not asset files.
const NOT_ASSETS: &[&str] = &[
    "txt", "json", "jsonl", "md", "py", "csv", "apr", "bnd", "oft",
];

struct Outcome {
    family: String,
    read: String,
    identical: String,
    problems: usize,
    converted: usize,
    targets: usize,
    /// Codecs whose output did not read back, or changed without a reported loss.
    bad: Vec<String>,
    gltf: &'static str,
}

impl Outcome {
    fn line(&self, rel: &str) -> String {
        format!(
            "{rel}\t{}\tread={}\trewrite={}\tproblems={}\tconverted={}/{}\tbad={}\tgltf={}",
            self.family,
            self.read,
            self.identical,
            self.problems,
            self.converted,
            self.targets,
            if self.bad.is_empty() {
                "-".to_string()
            } else {
                self.bad.join(";")
            },
            self.gltf
        )
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Reads, validates, rewrites and converts one file; with `gltf_out`, writes its glTF
/// export there as `<flattened relative path>.glb` for the validator.
fn check_file(path: &Path, gltf_out: Option<(&Path, &str)>) -> Option<Outcome> {
    let data = std::fs::read(path).ok()?;
    let name = path.file_name()?.to_string_lossy().into_owned();
    let ext = formats::extension(&name);
    if NOT_ASSETS.contains(&ext.as_str()) || name.starts_with("MANIFEST") {
        return None;
    }
    let Ok(f) = formats::detect(&data, &name) else {
        return Some(Outcome {
            family: "unknown".into(),
            read: "undetected".into(),
            identical: "-".into(),
            problems: 0,
            converted: 0,
            targets: 0,
            bad: Vec::new(),
            gltf: "-",
        });
    };
    let mut o = Outcome {
        family: f.info().name.into(),
        read: "ok".into(),
        identical: "-".into(),
        problems: 0,
        converted: 0,
        targets: 0,
        bad: Vec::new(),
        gltf: "-",
    };
    let cx = Context::new(&name);
    let file = match f.read(&data, &cx) {
        Ok(file) => file,
        Err(e) => {
            o.read = format!("error({})", e.to_string().replace('\t', " "));
            return Some(o);
        }
    };
    let model = match file.to_core(&cx) {
        Ok(m) => m.value,
        Err(e) => {
            o.read = format!("error({})", e.to_string().replace('\t', " "));
            return Some(o);
        }
    };
    o.problems = meshfmt_core::validate(&model).len();
    o.identical = match file.write(&cx) {
        Ok(w) if w.main == data => "identical".into(),
        Ok(_) => "differs".into(),
        Err(_) => "fails".into(),
    };
    drop(file);
    for codec in CODECS {
        o.targets += 1;
        match reread(codec, &model) {
            Reread::Kept => o.converted += 1,
            Reread::CannotHold => {}
            Reread::Bad(why) => o
                .bad
                .push(format!("{}:{why}", codec.label.replace(' ', "-"))),
        }
    }
    o.gltf = match meshfmt::gltf::export(
        &model,
        meshfmt::gltf::Container::Glb,
        &meshfmt_core::Budget::default(),
    ) {
        Ok(g) => {
            if let Some((dir, rel)) = gltf_out {
                let name = format!("{}.glb", rel.replace(['/', '\\'], "_"));
                if let Err(e) = std::fs::write(dir.join(name), &g.value.main) {
                    eprintln!("{}: {e}", dir.display());
                }
            }
            "ok"
        }
        Err(_) => "fails",
    };
    Some(o)
}

/// [`check_file`] for one file outside the samples (xtask's own quirk files): its
/// line, and whether it read, rewrote byte for byte and converted without a bad codec.
pub fn check_one(path: &Path) -> Option<(String, bool)> {
    let o = check_file(path, None)?;
    let ok = o.read == "ok" && o.identical == "identical" && o.bad.is_empty() && o.problems == 0;
    let rel = path.file_name()?.to_string_lossy().into_owned();
    Some((o.line(&rel), ok))
}

enum Reread {
    /// Written, read back, every feature kept (or reported lost).
    Kept,
    /// The codec refused the model (an animation into a static format, say).
    CannotHold,
    /// Our own output did not read back, or came back different unexplained.
    Bad(String),
}

/// `model` through `codec` and back, compared with itself under the reported losses.
fn reread(codec: &crate::codecs::Codec, model: &meshfmt_core::Model) -> Reread {
    let Ok(enc) = codec.encode(model) else {
        return Reread::CannotHold;
    };
    let companion = match codec.encode_companion(model) {
        Ok(c) => c,
        Err(_) => return Reread::CannotHold,
    };
    let dec = match codec.decode(&enc.value, companion.as_deref()) {
        Ok(d) => d,
        Err(_) => return Reread::Bad("unreadable".into()),
    };
    let mut decoded = dec.value;
    decoded.convert_to(model.coordinate_system);
    let mut losses = enc.losses;
    losses.extend(dec.losses);
    let outcomes = compare(model, &decoded, &losses);
    let bad: Vec<&str> = outcomes
        .iter()
        .filter(|(_, o)| o.is_failure())
        .map(|(f, _)| f.name())
        .collect();
    // MESHFMT_CONFORMANCE_DETAIL=1 says why, per feature (for investigating a line).
    if !bad.is_empty() && std::env::var_os("MESHFMT_CONFORMANCE_DETAIL").is_some() {
        for (f, o) in outcomes.iter().filter(|(_, o)| o.is_failure()) {
            eprintln!("  {} {}: {}", codec.label, f.name(), o.cell());
        }
    }
    if bad.is_empty() {
        Reread::Kept
    } else {
        Reread::Bad(bad.join(","))
    }
}

fn expected_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/samples-expected.txt")
}

pub fn run(dir: &Path, bless: bool, gltf_out: Option<&Path>) -> ExitCode {
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    if let Some(out) = gltf_out {
        if let Err(e) = std::fs::create_dir_all(out) {
            eprintln!("{}: {e}", out.display());
            return ExitCode::FAILURE;
        }
    }
    let mut lines = BTreeMap::new();
    let mut outcomes = BTreeMap::new();
    for p in &files {
        let rel = p
            .strip_prefix(dir)
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned();
        if std::env::var_os("MESHFMT_CONFORMANCE_DETAIL").is_some() {
            eprintln!("{rel}");
        }
        if let Some(o) = check_file(p, gltf_out.map(|d| (d, rel.as_str()))) {
            lines.insert(rel.clone(), o.line(&rel));
            outcomes.insert(rel, o);
        }
    }
    // Summary per family.
    let mut fam: BTreeMap<&str, [usize; 6]> = BTreeMap::new();
    for o in outcomes.values() {
        let e = fam.entry(o.family.as_str()).or_default();
        e[0] += 1;
        e[1] += usize::from(o.read == "ok");
        e[2] += usize::from(o.identical == "identical");
        e[3] += o.converted;
        e[4] += o.targets;
        e[5] += usize::from(o.gltf == "ok");
    }
    println!(
        "{:<14} {:>6} {:>8} {:>15} {:>16} {:>8}",
        "family", "files", "read ok", "byte-identical", "conversions ok", "glTF ok"
    );
    for (k, v) in &fam {
        println!(
            "{k:<14} {:>6} {:>8} {:>15} {:>16} {:>8}",
            v[0],
            v[1],
            v[2],
            format!("{}/{}", v[3], v[4]),
            v[5]
        );
    }
    let text: String = lines.values().map(|l| format!("{l}\n")).collect();
    if bless {
        let header = "# cargo xtask conformance --samples ../shared/samples --bless: one line per sample file\n";
        if let Err(e) = std::fs::write(expected_path(), format!("{header}{text}")) {
            eprintln!("{}: {e}", expected_path().display());
            return ExitCode::FAILURE;
        }
        println!("wrote {}", expected_path().display());
        return ExitCode::SUCCESS;
    }
    if lines.is_empty() {
        eprintln!(
            "samples conformance: no sample files under {}",
            dir.display()
        );
        return ExitCode::FAILURE;
    }
    let expected_text = match std::fs::read_to_string(expected_path()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}: {e}", expected_path().display());
            return ExitCode::FAILURE;
        }
    };
    let expected: BTreeMap<String, String> = expected_text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| l.split('\t').next().map(|k| (k.to_string(), l.to_string())))
        .collect();
    let mut failures = Vec::new();
    for (rel, line) in &lines {
        match expected.get(rel) {
            Some(e) if e == line => {}
            Some(e) => failures.push(format!("changed:\n  expected {e}\n  got      {line}")),
            None => {
                // A held-back file: it must read, and rewrite where promised.
                if let Some(o) = outcomes.get(rel) {
                    let promised = PROMISED_IDENTICAL.contains(&o.family.as_str());
                    if o.read != "ok" && o.read != "no-reader"
                        || promised && o.identical != "identical"
                    {
                        failures.push(format!("new file fails: {line}"));
                    } else {
                        println!("new file (not in the expectation): {line}");
                    }
                }
            }
        }
    }
    // A sample the expectation lists but this folder lacks: a partial samples folder
    // would otherwise pass with less checked.
    for rel in expected.keys().filter(|k| !lines.contains_key(*k)) {
        failures.push(format!("expected file absent here: {rel}"));
    }
    if failures.is_empty() {
        println!("samples: {} files match the expectation", lines.len());
        ExitCode::SUCCESS
    } else {
        for f in &failures {
            eprintln!("{f}");
        }
        eprintln!(
            "samples conformance: {} regressions (cargo xtask conformance --samples DIR --bless after an intended change)",
            failures.len()
        );
        ExitCode::FAILURE
    }
}
