//! Every format's read / write / to_core / from_core on its generated model and on its
//! samples, through the format contract (what the CLI runs), each timed against a
//! memcpy of the same bytes in the same repetition.

use std::path::Path;
use std::time::Duration;

use meshfmt_core::Model;
use meshfmt_core::format::{Context, Format, FormatFile, SharedBytes};
use test_support::workloads::{self, MILLION};

use super::timing::{Memcpy, median, per_call};

/// One file to measure, in memory.
pub struct Input {
    /// A file name (its extension picks the kind and version).
    pub name: String,
    /// Its bytes, handed to the reads shared ([`Format::read_shared`]), as `meshfmt info`
    /// hands over a file it read.
    pub bytes: SharedBytes,
}

/// What one row measures.
pub struct Workload {
    /// The format.
    pub format: &'static dyn Format,
    /// The format column (`unigine-mesh ms11`).
    pub label: String,
    /// The workload column (`generated, 1,000,000 triangles`).
    pub what: String,
    /// The files, measured together (one pass over all of them per call).
    pub inputs: Vec<Input>,
}

/// A row's figures: seconds per pass (medians), or why an operation could not run.
pub struct Measured {
    /// memcpy of the same bytes.
    pub memcpy: f64,
    /// read, write, to_core, from_core.
    pub ops: [Result<f64, String>; 4],
}

/// The operations' names, in [`Measured::ops`] order.
pub const OPS: [&str; 4] = ["read", "write", "to_core", "from_core"];

/// `model` written as `file_name` (its extension and `version` pick the form).
pub fn generate(
    format: &'static dyn Format,
    model: &Model,
    file_name: &str,
    version: Option<&str>,
) -> Result<Input, String> {
    let cx = Context {
        version,
        ..Context::new(file_name)
    };
    let file = format.from_core(model, &cx).map_err(|e| e.to_string())?;
    let bytes = file.value.write(&cx).map_err(|e| e.to_string())?.main;
    Ok(Input {
        name: file_name.to_string(),
        bytes: bytes.into(),
    })
}

/// Format, label, model, file name, version to write, workload description.
type Spec<'a> = (
    &'static dyn Format,
    &'a str,
    &'a Model,
    &'a str,
    Option<&'a str>,
    &'a str,
);

/// The generated workloads: a million triangles for every mesh format (64,000, the
/// format's maximum, for MeshSerializer2) and a long clip for the animation formats.
pub fn generated() -> Vec<Result<Workload, String>> {
    let grid = workloads::grid(MILLION);
    let small = workloads::grid(unity_meshser::MAX_COUNT as u32);
    let chain = workloads::animated_chain(ANIM_BONES, ANIM_FRAMES);
    let tris = "generated, 1,000,000 triangles".to_string();
    let clip = format!("generated, {ANIM_BONES} bones x {ANIM_FRAMES} frames");
    let specs: [Spec<'_>; 8] = [
        (
            &unigine_mesh::FORMAT,
            "unigine-mesh ms11",
            &grid,
            "grid.mesh",
            Some("ms11"),
            &tris,
        ),
        (
            &unigine_mesh::FORMAT,
            "unigine-mesh ms14",
            &grid,
            "grid.mesh",
            Some("ms14"),
            &tris,
        ),
        (
            &unigine_anim::FORMAT,
            "unigine-anim an10",
            &chain,
            "chain.anim",
            Some("an10"),
            &clip,
        ),
        (
            &niotso_mesh::FORMAT,
            "Vitaboy mesh",
            &grid,
            "grid.mesh",
            Some("mesh"),
            &tris,
        ),
        (
            &niotso_mesh::FORMAT,
            "Vitaboy anim",
            &chain,
            "chain.anim",
            Some("anim"),
            &clip,
        ),
        (
            &unity_meshser::FORMAT,
            "unity-meshser",
            &small,
            "grid.bytes",
            None,
            "generated, 64,000 triangles (the format's maximum)",
        ),
        (
            &m3d_format::FORMAT,
            "m3d binary",
            &grid,
            "grid.m3d",
            None,
            &tris,
        ),
        (
            &m3d_format::FORMAT,
            "m3d ASCII",
            &grid,
            "grid.a3d",
            None,
            &tris,
        ),
    ];
    specs
        .into_iter()
        .map(|(format, label, model, name, version, what)| {
            let input = generate(format, model, name, version)
                .map_err(|e| format!("{label}: generating {name}: {e}"))?;
            Ok(Workload {
                format,
                label: label.to_string(),
                what: what.to_string(),
                inputs: vec![input],
            })
        })
        .collect()
}

/// Seconds per pass past which an operation gets 3 repetitions only.
const SLOW: f64 = 1.0;

/// Bones and frames of the generated clip.
pub const ANIM_BONES: usize = 64;
/// Frames (30 fps) of the generated clip.
pub const ANIM_FRAMES: usize = 3000;

/// One row per sample family the formats read (files that fail to read are left out
/// and counted); a notice row when `samples` is absent.
pub fn samples(samples: &Path) -> Vec<Result<Workload, String>> {
    if !samples.is_dir() {
        return vec![Err(format!(
            "samples: {} not found: sample rows skipped",
            samples.display()
        ))];
    }
    let magic = |b: &[u8]| String::from_utf8_lossy(b.get(..4).unwrap_or_default()).into_owned();
    let mut rows = Vec::new();
    let group =
        |format: &'static dyn Format, label: String, dir: &str, ext: &str, top_only: bool| {
            let root = samples.join(dir);
            let files: Vec<_> = test_support::files_under(&root, &[ext])
                .into_iter()
                .filter(|p| !top_only || p.parent() == Some(root.as_path()))
                .collect();
            (format, label, files)
        };
    let mut groups = vec![
        group(
            &niotso_mesh::FORMAT,
            "Vitaboy mesh".into(),
            "niotso",
            "mesh",
            false,
        ),
        group(
            &niotso_mesh::FORMAT,
            "Vitaboy anim".into(),
            "niotso",
            "anim",
            false,
        ),
        group(&m3d_format::FORMAT, "m3d binary".into(), "m3d", "m3d", true),
        group(&m3d_format::FORMAT, "m3d ASCII".into(), "m3d", "a3d", true),
    ];
    // UNIGINE: one row per version, told by the magic.
    for (format, ext) in [
        (&unigine_mesh::FORMAT as &'static dyn Format, "mesh"),
        (&unigine_anim::FORMAT, "anim"),
    ] {
        let (_, _, files) = group(format, String::new(), "unigine", ext, false);
        let mut by_magic: Vec<(String, Vec<std::path::PathBuf>)> = Vec::new();
        for p in files {
            let m = std::fs::read(&p).map(|b| magic(&b)).unwrap_or_default();
            match by_magic.iter_mut().find(|(k, _)| *k == m) {
                Some((_, v)) => v.push(p),
                None => by_magic.push((m, vec![p])),
            }
        }
        by_magic.sort_by(|a, b| a.0.cmp(&b.0));
        for (m, files) in by_magic {
            groups.insert(0, (format, format!("{} {m}", format.info().name), files));
        }
    }
    groups.sort_by(|a, b| a.1.cmp(&b.1));
    for (format, label, files) in groups {
        let total = files.len();
        let inputs: Vec<Input> = files
            .iter()
            .filter_map(|p| {
                let bytes = SharedBytes::from(std::fs::read(p).ok()?);
                let name = p.file_name()?.to_string_lossy().into_owned();
                format
                    .read_shared(&bytes, &Context::new(&name))
                    .ok()
                    .map(|_| Input { name, bytes })
            })
            .collect();
        if inputs.is_empty() {
            rows.push(Err(format!("{label}: no sample reads")));
            continue;
        }
        let unread = total - inputs.len();
        let what = match unread {
            0 => format!("samples, {} files", inputs.len()),
            n => format!("samples, {} files ({n} not read, left out)", inputs.len()),
        };
        rows.push(Ok(Workload {
            format,
            label,
            what,
            inputs,
        }));
    }
    rows.push(Err(
        "unity-meshser: no public samples exist; generated model only".into(),
    ));
    rows
}

/// Reads of `w`'s inputs back to back, as a program reading one file after another
/// does: per repetition a memcpy pass, then reads for at least `min` after one untimed
/// read; medians over `runs` repetitions, as (memcpy, read) seconds per pass. In
/// [`measure`] the other operations run between two reads. `shared`: the inputs are
/// handed over shared, as everywhere else; else read as borrowed bytes
/// ([`Format::read`]: a format that keeps stored bytes copies them).
pub fn reads_back_to_back(w: &Workload, runs: usize, min: Duration, shared: bool) -> (f64, f64) {
    let f = w.format;
    let read = || {
        for i in &w.inputs {
            let cx = Context::new(&i.name);
            let _ = match shared {
                true => f.read_shared(&i.bytes, &cx),
                false => f.read(&i.bytes, &cx),
            };
        }
    };
    let mut memcpy = Memcpy::new(w.inputs.iter().map(|i| i.bytes.as_slice()));
    let (mut copies, mut reads) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        copies.push(memcpy.time(min));
        read();
        reads.push(per_call(min, read));
    }
    (median(&copies), median(&reads))
}

/// Times `w`: per repetition a memcpy pass, then each operation over every input;
/// medians over `runs` repetitions (3 for an operation past [`SLOW`] a pass). Each
/// timing lasts at least `min` (repeating calls).
pub fn measure(w: &Workload, runs: usize, min: Duration) -> Measured {
    let f = w.format;
    let cxs: Vec<Context<'_>> = w.inputs.iter().map(|i| Context::new(&i.name)).collect();
    let files: Result<Vec<Box<dyn FormatFile>>, String> = w
        .inputs
        .iter()
        .zip(&cxs)
        .map(|(i, cx)| f.read_shared(&i.bytes, cx).map_err(|e| e.to_string()))
        .collect();
    let files = match files {
        Ok(files) => files,
        Err(e) => {
            return Measured {
                memcpy: f64::NAN,
                ops: [0; 4].map(|_| Err(e.clone())),
            };
        }
    };
    // Write back the version read (UNIGINE); the others go by extension.
    let versions: Vec<Option<String>> = files
        .iter()
        .map(|file| {
            let v = file.version();
            f.info().version(Some(v.as_str())).is_some().then_some(v)
        })
        .collect();
    let models: Result<Vec<Model>, String> = files
        .iter()
        .zip(&cxs)
        .map(|(file, cx)| file.to_core(cx).map(|c| c.value).map_err(|e| e.to_string()))
        .collect();
    let fresh = |i: usize| Context {
        version: versions[i].as_deref(),
        ..Context::new(&w.inputs[i].name)
    };
    let mut memcpy = Memcpy::new(w.inputs.iter().map(|i| i.bytes.as_slice()));
    let mut times: [Vec<f64>; 5] = Default::default();
    // A failing operation fails on its first call: check each once, untimed.
    let check = |op: usize| -> Result<(), String> {
        for (i, file) in files.iter().enumerate() {
            let cx = fresh(i);
            let r = match op {
                1 => file.write(&cx).map(drop),
                3 => match &models {
                    Ok(m) => f.from_core(&m[i], &cx).map(drop),
                    Err(e) => return Err(e.clone()),
                },
                _ => Ok(()),
            };
            r.map_err(|e| e.to_string())?;
        }
        Ok(())
    };
    let errors: [Option<String>; 4] = [
        None,
        check(1).err(),
        models.as_ref().err().cloned(),
        check(3).err(),
    ];
    // An operation past SLOW a pass stops after 3 repetitions.
    let more = |t: &[f64]| t.len() < 3 || median(t) < SLOW;
    for _ in 0..runs {
        times[4].push(memcpy.time(min));
        if more(&times[0]) {
            times[0].push(per_call(min, || {
                for i in &w.inputs {
                    let _ = f.read_shared(&i.bytes, &Context::new(&i.name));
                }
            }));
        }
        if errors[1].is_none() && more(&times[1]) {
            times[1].push(per_call(min, || {
                for (i, file) in files.iter().enumerate() {
                    let _ = file.write(&fresh(i));
                }
            }));
        }
        if errors[2].is_none() && more(&times[2]) {
            times[2].push(per_call(min, || {
                for (i, file) in files.iter().enumerate() {
                    let _ = file.to_core(&fresh(i));
                }
            }));
        }
        if let (None, Ok(models)) = (&errors[3], &models) {
            if more(&times[3]) {
                times[3].push(per_call(min, || {
                    for (i, m) in models.iter().enumerate() {
                        let _ = f.from_core(m, &fresh(i));
                    }
                }));
            }
        }
    }
    let mut k = 0;
    let ops = errors.map(|e| {
        let r = match e {
            Some(e) => Err(e),
            None => Ok(median(&times[k])),
        };
        k += 1;
        r
    });
    Measured {
        memcpy: median(&times[4]),
        ops,
    }
}
