//! `meshfmt convert`: one file to another format, as a function the tool and its batch
//! mode share. Nothing is written here; the caller gets the output files' bytes, the
//! loss report and the warnings.
//!
//! Every format is a [`Format`] of the registry ([`crate::formats::FORMATS`]), glTF
//! and OBJ included. Routes: same format and version (and no `--quality`, no
//! companions): the faithful rewrite, byte-identical for files the reader fully
//! understands; anything else reads the input's faithful file, converts it to
//! meshfmt-core and has the target format encode it.
//!
//! Companions join the model on the way: a skeleton file (`--skeleton`: given to
//! formats that take one, [`FormatInfo::takes_skeleton`](meshfmt_core::format::FormatInfo::takes_skeleton), else read through the registry
//! and put under the model with [`Model::with_skeleton`]), animation files (`--anim`,
//! any format that yields clips, attached with [`Model::attach_clips`]); files a format
//! finds beside the input (a glTF buffer, a Vitaboy appearance's loose files) come
//! through the side-file policy. With `--anims-dir`, a mesh format's clips go to the
//! animation files its facts name ([`FormatInfo::clip_files`](meshfmt_core::format::FormatInfo::clip_files)),
//! one per clip ([`split`](ConvertOptions::anims_dir)).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use meshfmt_core::format::{Context, FileKind, Format, FormatError, FormatFile, SharedBytes};
use meshfmt_core::side_files::{FileSet, SideFiles};
use meshfmt_core::text::quoted;
use meshfmt_core::{Budget, Converted, Feature, Limits, Loss, Model};

use crate::companions::clip_file_stems;
use crate::error::CliError;
use crate::files::{Source, read_user_file, refusal_warnings};
use crate::formats;

/// What `convert` was asked for.
#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    /// Read the input as this format (`--from`).
    pub from: Option<String>,
    /// Write this format (`--to`): a format name (`glb` for glTF too).
    pub to: Option<String>,
    /// Quantization quality for formats that quantize (`rounded`, `int16`, ...).
    pub quality: Option<String>,
    /// Format version to write (`ms14`, `an10`, `ascii`, ...).
    pub version: Option<String>,
    /// Deflate level to write (`--compression`, 0-9), for formats that compress with
    /// zlib (M3D).
    pub compression: Option<u8>,
    /// `.gltf`: inline the buffer instead of writing a `.bin` beside it.
    pub embed: bool,
    /// Any loss or warning is an error (`--strict`).
    pub strict: bool,
    /// An M3D material library's bytes (`--mtllib`): models split by `m3dconv -m` find
    /// their materials there.
    pub mtllib: Option<Vec<u8>>,
    /// A skeleton file (`--skeleton`): a Vitaboy `.skel` for a `.mesh`, `.anim` or
    /// `.apr`; for other inputs any file with a skeleton, which the model is put on
    /// (bones matched by name).
    pub skeleton: Option<PathBuf>,
    /// Animation files whose clips are attached to the model (`--anim`, patterns
    /// already expanded: see [`crate::companions::expand`]).
    pub anims: Vec<PathBuf>,
    /// Split outputs (`--anims-dir`): a mesh format's output holds no clips; each clip
    /// is written to its own animation file in this folder (UNIGINE an10 `.anim`,
    /// Vitaboy `.anim` with the `.skel` beside the mesh), named after the clip
    /// ([`crate::companions::clip_file_stems`]).
    pub anims_dir: Option<PathBuf>,
    /// Folders besides the input's own that names inside the input (and inside its
    /// companions) may lead into (`--side-files`); see [`meshfmt_core::side_files`].
    pub side_folders: Vec<PathBuf>,
    /// The input's bytes were not read from a file (a library caller's buffer): its name
    /// serves detection only, and its side files come from `side_folders` alone, names
    /// resolving from the first ([`crate::files::side_folder_in_memory`]), never from the
    /// current folder.
    pub in_memory: bool,
    /// Files held in memory (a browser page's dropped files): when set, the input,
    /// `skeleton` and `anims` are names in this set and the input's side files come
    /// from it alone ([`meshfmt_core::side_files::MemoryFolder`]); the file system is
    /// never asked, and `side_folders` and `in_memory` are not used.
    pub files: Option<Arc<FileSet>>,
    /// The memory one conversion may use (`--max-memory`): the input, every decoded
    /// array, side file, companion, model, resampled or generated element and the output
    /// are charged to one [`Budget`] of `limits.max_alloc_bytes`.
    pub limits: Limits,
}

impl ConvertOptions {
    /// True when companions or split outputs are asked for (they go through
    /// meshfmt-core, never the faithful rewrite).
    fn has_companions(&self) -> bool {
        self.skeleton.is_some() || !self.anims.is_empty() || self.anims_dir.is_some()
    }

    /// Where the files named come from: [`files`](Self::files), else the file system.
    pub fn source(&self) -> Source<'_> {
        match &self.files {
            Some(set) => Source::Memory(set),
            None => Source::Disk {
                side_folders: &self.side_folders,
                in_memory: self.in_memory,
            },
        }
    }
}

/// What one conversion produced.
#[derive(Debug, Clone, Default)]
pub struct Conversion {
    /// The output files and their bytes: the output itself, its side files (`.bin`,
    /// `.mtl`), then split files (`.skel`, one animation file per clip).
    pub outputs: Outputs,
    /// What the conversion could not carry.
    pub losses: Vec<Loss>,
    /// What the user may want to change (a skeleton not given, clips a target drops
    /// that `--anims-dir` would keep), one line each.
    pub warnings: Vec<String>,
}

impl Conversion {
    /// The `--strict` refusal, when anything was lost or warned about.
    pub fn strict_error(&self) -> Option<CliError> {
        if self.losses.is_empty() && self.warnings.is_empty() {
            return None;
        }
        let list: Vec<String> = self
            .warnings
            .iter()
            .cloned()
            .chain(self.losses.iter().map(ToString::to_string))
            .collect();
        Some(CliError::Strict(list.join("; ")))
    }
}

/// The files a conversion produces: the output itself, then side files (`.bin`, `.mtl`).
pub type Outputs = Vec<(PathBuf, Vec<u8>)>;

/// The extension an output gets for `--to` in batch mode (`unigine-mesh` -> `mesh`).
pub fn extension_for(to: &str) -> Result<String, CliError> {
    if to == "glb" {
        return Ok("glb".into());
    }
    let f = formats::by_name(to).ok_or_else(|| CliError::UnknownFormatName(to.to_string()))?;
    if !f.info().can_write {
        return Err(CliError::Usage(format!(
            "{} cannot be written",
            f.info().name
        )));
    }
    Ok(f.info().default_extension().to_string())
}

/// An input file's bytes for [`convert`]: borrowed (the caller keeps them), or handed
/// over as a `Vec`, which the conversion frees, giving their charge back to its budget,
/// as soon as the input is read, or,
/// where the format keeps ranges of its input rather than copies (UNIGINE ms14's stored
/// LZ4 blocks, [`Format::read_shared`]), as soon as the file read is dropped: the rest
/// of the conversion, the output included, never holds the input beside it, but for a
/// same-format rewrite of such a file, whose output is built while the file holds its
/// ranges (where a borrowed read would hold copies of them).
///
/// ```
/// use std::path::Path;
/// use meshfmt::convert::{ConvertOptions, convert};
/// let obj = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".to_vec();
/// let opts = ConvertOptions::default();
/// // Borrowed: `obj` stays the caller's.
/// let kept = convert(Path::new("tri.obj"), &obj, Path::new("tri.glb"), &opts)?;
/// // Handed over: freed once read.
/// let freed = convert(Path::new("tri.obj"), obj, Path::new("tri.glb"), &opts)?;
/// assert_eq!(kept.outputs, freed.outputs);
/// assert_eq!(freed.outputs[0].0, Path::new("tri.glb"));
/// # Ok::<(), meshfmt::error::CliError>(())
/// ```
#[derive(Debug)]
pub enum InputBytes<'a> {
    /// Bytes the caller keeps.
    Borrowed(&'a [u8]),
    /// Bytes the conversion owns and frees once read (or once the file read from them
    /// is dropped).
    Owned(Vec<u8>),
}

impl InputBytes<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            InputBytes::Borrowed(b) => b,
            InputBytes::Owned(v) => v,
        }
    }

    /// Reads these bytes as `src`. Owned bytes are handed over shared
    /// ([`Format::read_shared`]): a format that keeps ranges of its input (UNIGINE ms14's
    /// stored LZ4 blocks) then copies none of it. Gives the file and the input's charge
    /// still to release once the file is dropped: the owned bytes' length while the file
    /// holds ranges of them (they live as long as it does), else 0 (released here as
    /// they are freed, or borrowed: the caller's).
    fn read(
        self,
        src: &dyn Format,
        cx: &Context<'_>,
        budget: &Budget,
    ) -> Result<(Box<dyn FormatFile>, u64), FormatError> {
        match self {
            InputBytes::Borrowed(b) => Ok((src.read(b, cx)?, 0)),
            InputBytes::Owned(v) => {
                let len = v.len() as u64;
                let shared = SharedBytes::from(v);
                let file = src.read_shared(&shared, cx)?;
                if shared.is_only_holder() {
                    budget.release(len);
                    return Ok((file, 0));
                }
                Ok((file, len))
            }
        }
    }
}

impl<'a> From<&'a [u8]> for InputBytes<'a> {
    fn from(b: &'a [u8]) -> Self {
        InputBytes::Borrowed(b)
    }
}

impl<'a> From<&'a Vec<u8>> for InputBytes<'a> {
    fn from(b: &'a Vec<u8>) -> Self {
        InputBytes::Borrowed(b)
    }
}

impl<'a, const N: usize> From<&'a [u8; N]> for InputBytes<'a> {
    fn from(b: &'a [u8; N]) -> Self {
        InputBytes::Borrowed(b)
    }
}

impl From<Vec<u8>> for InputBytes<'static> {
    fn from(v: Vec<u8>) -> Self {
        InputBytes::Owned(v)
    }
}

/// Converts `input` (already read into `data`) for writing at `output`, under one
/// [`Budget`] of `opts.limits` for the whole conversion (the input's bytes and every
/// companion's included); with `opts.strict`, any loss or warning is an error.
/// `data` is borrowed (`&[u8]`, `&Vec<u8>`) or handed over (`Vec<u8>`: freed once read,
/// see [`InputBytes`]).
pub fn convert<'a>(
    input: &Path,
    data: impl Into<InputBytes<'a>>,
    output: &Path,
    opts: &ConvertOptions,
) -> Result<Conversion, CliError> {
    let out = convert_lenient(input, data, output, opts)?;
    if opts.strict {
        if let Some(e) = out.strict_error() {
            return Err(e);
        }
    }
    Ok(out)
}

/// [`convert`] without the `--strict` check (the caller reports first, then checks
/// with [`Conversion::strict_error`]).
pub fn convert_lenient<'a>(
    input: &Path,
    data: impl Into<InputBytes<'a>>,
    output: &Path,
    opts: &ConvertOptions,
) -> Result<Conversion, CliError> {
    let data = data.into();
    let budget = Budget::new(opts.limits);
    budget.charge("input file", data.bytes().len() as u64)?;
    convert_in(input, data, output, opts, &budget)
}

/// Reads an input file, refusing one larger than `limits.max_alloc_bytes` before
/// reading it, and never reading more (the conversion then charges its bytes to its
/// budget).
pub fn read_input(path: &Path, limits: &Limits) -> Result<Vec<u8>, CliError> {
    read_user_file(path, &Budget::new(*limits))
}

/// `path`'s file name, for messages.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// An error about a companion file, naming it.
fn companion_error(path: &Path, e: impl Into<CliError>) -> CliError {
    CliError::Companion {
        path: path.display().to_string(),
        source: Box::new(e.into()),
    }
}

/// A companion's bytes, read and charged to the conversion's budget.
fn read_companion_bytes(
    path: &Path,
    opts: &ConvertOptions,
    budget: &Budget,
) -> Result<Vec<u8>, CliError> {
    let data = opts
        .source()
        .read_named(path, budget)
        .map_err(|e| companion_error(path, e))?;
    budget
        .charge("companion file", data.len() as u64)
        .map_err(|e| companion_error(path, e))?;
    Ok(data)
}

/// A companion read through the registry (format by content, then extension), with
/// its side files (under the same policy as the input's, refusals added to
/// `warnings`), converted to meshfmt-core under the conversion's budget.
fn read_companion(
    path: &Path,
    opts: &ConvertOptions,
    budget: &Budget,
    warnings: &mut Vec<String>,
) -> Result<(&'static dyn Format, Converted<Model>), CliError> {
    let data = SharedBytes::from(read_companion_bytes(path, opts, budget)?);
    let name = path.to_string_lossy();
    let f = formats::detect(&data, &name).map_err(|e| companion_error(path, e))?;
    let side = opts.source().side_files(path, budget)?;
    let cx = Context {
        side_files: Some(side.as_ref()),
        ..Context::new(&name).with_budget(budget.clone())
    };
    let model = f
        .read_shared(&data, &cx)
        .and_then(|file| file.to_core(&cx))
        .map_err(|e| companion_error(path, e))?;
    let name = file_name(path);
    warnings.extend(
        refusal_warnings(side.as_ref())
            .into_iter()
            .map(|w| format!("{}: {w}", quoted(&name))),
    );
    Ok((f, model))
}

/// The losses of reading a companion, their paths prefixed with its file name.
fn companion_losses(path: &Path, losses: Vec<Loss>) -> impl Iterator<Item = Loss> {
    let name = file_name(path);
    losses.into_iter().map(move |l| Loss {
        path: if l.path.is_empty() {
            name.clone()
        } else {
            format!("{name}: {}", l.path)
        },
        ..l
    })
}

/// The warning for a format that takes a skeleton file, converted without one.
fn no_skeleton_warning(src: &dyn Format, what: &str) -> String {
    format!(
        "{} {what} converted without its skeleton: bones at the origin, parts left in bone space; give the .skel with --skeleton FILE",
        src.info().name
    )
}

/// The outputs of one written file: the file at `output`, its side files beside it.
fn outputs_of(written: meshfmt_core::format::Written, output: &Path) -> Outputs {
    let mut outputs = vec![(output.to_path_buf(), written.main)];
    for (name, bytes) in written.side {
        outputs.push((output.with_file_name(name), bytes));
    }
    outputs
}

fn convert_in(
    input: &Path,
    data: InputBytes<'_>,
    output: &Path,
    opts: &ConvertOptions,
    budget: &Budget,
) -> Result<Conversion, CliError> {
    let input_name = input.to_string_lossy();
    let output_name = output.to_string_lossy();
    let src = source_format(data.bytes(), &input_name, opts)?;
    let dst = formats::for_output(opts.to.as_deref(), &output_name, Some(src))?;
    if opts.compression.is_some() && !dst.info().compresses {
        return Err(CliError::Usage(format!(
            "--compression applies to formats that deflate (m3d), not {}",
            dst.info().name
        )));
    }
    let out_ext = formats::extension(&output_name);
    let version = match (&opts.version, opts.embed && dst.info().name == "gltf") {
        (Some(v), _) => Some(v.clone()),
        (None, true) => Some("embedded".to_string()),
        (None, false) => dst
            .info()
            .version_for_extension(&out_ext)
            .map(str::to_string),
    };
    let side = opts.source().side_files(input, budget)?;
    // A skeleton file for a format that takes one: its bytes go in the context.
    let skeleton_bytes = skeleton_for_context(src, opts, budget)?;
    let read_cx = Context {
        side_files: Some(side.as_ref()),
        material_library: opts.mtllib.as_deref(),
        skeleton: skeleton_bytes.as_deref(),
        ..Context::new(&input_name).with_budget(budget.clone())
    };
    let write_cx = Context {
        version: version.as_deref(),
        quality: opts.quality.as_deref(),
        compression: opts.compression,
        ..read_cx.for_file(&output_name)
    };
    // Same format, nothing to join or split: the format may write the file again as it
    // stands (a glTF document compressed without the round trip through the model).
    if src.info().name == dst.info().name && !opts.has_companions() {
        if let Some(t) = src.transcode(data.bytes(), &read_cx, &write_cx)? {
            return Ok(Conversion {
                outputs: outputs_of(t.value, output),
                losses: t.losses,
                warnings: refusal_warnings(side.as_ref()),
            });
        }
    }
    let mut warnings = Vec::new();
    // The input goes once read, or with the file where it keeps ranges of it.
    let (file, held) = data.read(src, &read_cx, budget)?;
    // Same format and version, nothing asked to change: the faithful rewrite (for
    // formats that have one: glTF and OBJ write a new export, through meshfmt-core so
    // its losses are reported).
    let same_version = version.as_deref().is_none_or(|v| v == file.version());
    if src.info().name == dst.info().name
        && src.info().rewrites_faithfully
        && same_version
        && opts.quality.is_none()
        && opts.mtllib.is_none()
        && !opts.has_companions()
    {
        let written = file.write(&write_cx)?;
        drop(file);
        budget.release(held);
        return Ok(Conversion {
            outputs: outputs_of(written, output),
            losses: Vec::new(),
            warnings: refusal_warnings(side.as_ref()),
        });
    }
    let mut model = model_of(
        file,
        held,
        src,
        &read_cx,
        side.as_ref(),
        opts,
        budget,
        &mut warnings,
    )?;
    // No writer gets a NaN or an infinity: text formats would print them, glTF cannot
    // hold them, and engines reading binary ones break on them. Replaced, per feature.
    let fixed = model.value.replace_non_finite();
    model.losses.extend(fixed);
    if let Some(dir) = &opts.anims_dir {
        return split(
            model,
            dst,
            &write_cx,
            output,
            dir,
            version.as_deref(),
            warnings,
            budget,
        );
    }
    let clips = model.value.animations.len();
    if clips > 0
        && !dst
            .info()
            .holds(version.as_deref())
            .contains(&Feature::Animation)
        && dst.info().clip_files(version.as_deref()).is_some()
    {
        warnings.push(format!(
            "{} holds no clips: --anims-dir DIR writes the {clips} clips as animation files in DIR",
            dst.info().name
        ));
    }
    let encoded = dst.from_core(&model.value, &write_cx)?;
    drop(model.value);
    let mut losses = model.losses;
    losses.extend(encoded.losses);
    Ok(Conversion {
        outputs: outputs_of(encoded.value.write(&write_cx)?, output),
        losses,
        warnings,
    })
}

/// A file read as a model (what [`read_model`] gives).
#[derive(Debug)]
pub struct ModelRead {
    /// The format it was read as.
    pub format: &'static str,
    /// The version (or form) the file is in.
    pub version: String,
    /// The model, with its companions joined, and what reading could not carry.
    pub model: Converted<Model>,
    /// What the user may want to change (a skeleton not given, side files refused), one
    /// line each.
    pub warnings: Vec<String>,
}

/// Reads `input` (its bytes in `data`) as [`convert`] does before it writes: the format
/// by `opts.from` or detection, side files under the policy (`opts.side_folders`), the
/// companions (`opts.skeleton`, `opts.anims`, `opts.mtllib`) joined, under one budget of
/// `opts.limits`. The options that choose an output are not used.
///
/// ```
/// use std::path::Path;
/// use meshfmt::convert::{ConvertOptions, read_model};
/// let obj = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
/// let read = read_model(Path::new("tri.obj"), obj, &ConvertOptions::default())?;
/// assert_eq!((read.format, read.model.value.triangle_count()), ("obj", 1));
/// # Ok::<(), meshfmt::error::CliError>(())
/// ```
pub fn read_model<'a>(
    input: &Path,
    data: impl Into<InputBytes<'a>>,
    opts: &ConvertOptions,
) -> Result<ModelRead, CliError> {
    let data = data.into();
    let budget = Budget::new(opts.limits);
    budget.charge("input file", data.bytes().len() as u64)?;
    let input_name = input.to_string_lossy();
    let src = source_format(data.bytes(), &input_name, opts)?;
    let side = opts.source().side_files(input, &budget)?;
    let skeleton_bytes = skeleton_for_context(src, opts, &budget)?;
    let read_cx = Context {
        side_files: Some(side.as_ref()),
        material_library: opts.mtllib.as_deref(),
        skeleton: skeleton_bytes.as_deref(),
        ..Context::new(&input_name).with_budget(budget.clone())
    };
    let (file, held) = data.read(src, &read_cx, &budget)?;
    let version = file.version();
    let mut warnings = Vec::new();
    let model = model_of(
        file,
        held,
        src,
        &read_cx,
        side.as_ref(),
        opts,
        &budget,
        &mut warnings,
    )?;
    Ok(ModelRead {
        format: src.info().name,
        version,
        model,
        warnings,
    })
}

/// A file read, as a model: the warning when it wants a skeleton it was not given, its
/// `to_core` (the file and the input's charge go once it is converted), the side files
/// refused, then the companions joined.
#[allow(clippy::too_many_arguments)]
fn model_of(
    file: Box<dyn FormatFile>,
    held: u64,
    src: &'static dyn Format,
    read_cx: &Context<'_>,
    side: &dyn SideFiles,
    opts: &ConvertOptions,
    budget: &Budget,
    warnings: &mut Vec<String>,
) -> Result<Converted<Model>, CliError> {
    if let Some(what) = file.needs_skeleton().filter(|_| read_cx.skeleton.is_none()) {
        warnings.push(no_skeleton_warning(src, what));
    }
    let mut model = file.to_core(read_cx)?;
    drop(file);
    budget.release(held);
    warnings.extend(refusal_warnings(side));
    attach_companions(&mut model, src, opts, budget, warnings)?;
    Ok(model)
}

/// The input's format: `--from`, else detected.
fn source_format(
    data: &[u8],
    input_name: &str,
    opts: &ConvertOptions,
) -> Result<&'static dyn Format, CliError> {
    Ok(match &opts.from {
        Some(name) => {
            formats::by_name(name).ok_or_else(|| CliError::UnknownFormatName(name.clone()))?
        }
        None => formats::detect(data, input_name)?,
    })
}

/// The bytes of `--skeleton` when the source format takes its own skeleton files
/// (checked to be of that format).
fn skeleton_for_context(
    src: &'static dyn Format,
    opts: &ConvertOptions,
    budget: &Budget,
) -> Result<Option<Vec<u8>>, CliError> {
    Ok(match &opts.skeleton {
        Some(p) if src.info().takes_skeleton => {
            let bytes = read_companion_bytes(p, opts, budget)?;
            let f =
                formats::detect(&bytes, &p.to_string_lossy()).map_err(|e| companion_error(p, e))?;
            if f.info().name != src.info().name {
                return Err(companion_error(
                    p,
                    CliError::Usage(format!(
                        "--skeleton: this is a {} file; {} takes its own skeleton files",
                        f.info().name,
                        src.info().name
                    )),
                ));
            }
            Some(bytes)
        }
        _ => None,
    })
}

/// The companions on the command line: `--skeleton` for a format that does not take
/// its own (the model is put on it), then each `--anim`'s clips attached.
fn attach_companions(
    model: &mut Converted<Model>,
    src: &'static dyn Format,
    opts: &ConvertOptions,
    budget: &Budget,
    warnings: &mut Vec<String>,
) -> Result<(), CliError> {
    if let Some(p) = opts
        .skeleton
        .as_deref()
        .filter(|_| !src.info().takes_skeleton)
    {
        let (f, given) = read_companion(p, opts, budget, warnings)?;
        if given.value.skeleton.is_empty() {
            return Err(companion_error(
                p,
                CliError::Usage(format!(
                    "--skeleton: this {} file holds no skeleton",
                    f.info().name
                )),
            ));
        }
        let skinned = model.value.surfaces.iter().any(|s| !s.skin.is_empty());
        if !skinned && !model.value.surfaces.is_empty() {
            warnings.push(format!(
                "--skeleton {}: the model is not skinned, so the skeleton only carries clips",
                file_name(p)
            ));
        }
        model.losses.extend(companion_losses(p, given.losses));
        let losses = model.value.with_skeleton(
            &given.value.skeleton,
            given.value.coordinate_system,
            budget,
        )?;
        model.losses.extend(losses);
    }
    for p in &opts.anims {
        let (f, anim) = read_companion(p, opts, budget, warnings)?;
        if anim.value.animations.is_empty() {
            warnings.push(format!(
                "--anim {}: this {} file holds no animation",
                file_name(p),
                f.info().name
            ));
            continue;
        }
        model.losses.extend(companion_losses(p, anim.losses));
        let losses = model.value.attach_clips(&anim.value, budget)?;
        model.losses.extend(losses);
    }
    Ok(())
}

/// The format that writes files of `kind` (a name the format's facts give), from the
/// registry.
fn writer_of(kind: &FileKind) -> Result<&'static dyn Format, CliError> {
    formats::by_name(kind.format).ok_or_else(|| CliError::UnknownFormatName(kind.format.into()))
}

/// `path` with a leading `animations[0]` made `animations[index]` (a clip's loss in
/// its own file, reported at the clip's place in the model).
fn clip_path(path: &str, index: usize) -> String {
    match path.strip_prefix("animations[0]") {
        Some(rest) => format!("animations[{index}]{rest}"),
        None => path.to_string(),
    }
}

/// Split outputs: the mesh without clips at `output` (and for Vitaboy its `.skel`
/// beside it), then one animation file per clip in `dir`.
#[allow(clippy::too_many_arguments)]
fn split(
    mut model: Converted<Model>,
    dst: &'static dyn Format,
    write_cx: &Context<'_>,
    output: &Path,
    dir: &Path,
    version: Option<&str>,
    warnings: Vec<String>,
    budget: &Budget,
) -> Result<Conversion, CliError> {
    let Some(plan) = dst.info().clip_files(version) else {
        return Err(CliError::Usage(format!(
            "--anims-dir: {} {} keeps its clips itself or has no animation files; split outputs are for {}",
            dst.info().name,
            version.unwrap_or("(default version)"),
            formats::with_clip_files()
        )));
    };
    let clips = std::mem::take(&mut model.value.animations);
    let mut losses = model.losses;
    let mesh = dst.from_core(&model.value, write_cx)?;
    losses.extend(mesh.losses);
    let mut outputs = outputs_of(mesh.value.write(write_cx)?, output);
    let system = model.value.coordinate_system;
    let skeleton = std::mem::take(&mut model.value.skeleton);
    drop(model.value);
    let skeleton_bytes = Model {
        skeleton: skeleton.clone(),
        ..Model::default()
    }
    .heap_bytes();
    if let Some(kind) = &plan.skeleton {
        let path = output.with_extension(kind.extension);
        let name = path.to_string_lossy().into_owned();
        let cx = Context {
            version: Some(kind.version),
            quality: None,
            ..write_cx.for_file(&name)
        };
        budget.charge("split skeleton", skeleton_bytes)?;
        let m = Model {
            coordinate_system: system,
            skeleton: skeleton.clone(),
            ..Model::default()
        };
        let f = writer_of(kind)?.from_core(&m, &cx)?;
        losses.extend(f.losses);
        outputs.extend(outputs_of(f.value.write(&cx)?, &path));
    }
    let names: Vec<&str> = clips.iter().map(|c| c.name.as_str()).collect();
    let stems = clip_file_stems(&names);
    drop(names);
    // A loss every clip's file repeats (the skeleton's) is reported once.
    let mut seen = std::collections::HashSet::new();
    let clip_format = writer_of(&plan.clip)?;
    for (i, (clip, stem)) in clips.into_iter().zip(stems).enumerate() {
        let path = dir.join(format!("{stem}.{}", plan.clip.extension));
        let name = path.to_string_lossy().into_owned();
        let cx = Context {
            version: Some(plan.clip.version),
            quality: None,
            ..write_cx.for_file(&name)
        };
        budget.charge("split clip skeleton", skeleton_bytes)?;
        let m = Model {
            coordinate_system: system,
            skeleton: skeleton.clone(),
            animations: vec![clip],
            ..Model::default()
        };
        let f = clip_format.from_core(&m, &cx)?;
        drop(m);
        for l in f.value.write(&cx).map(|w| outputs_of(w, &path))? {
            outputs.push(l);
        }
        for l in f.losses {
            let l = Loss {
                path: clip_path(&l.path, i),
                ..l
            };
            if seen.insert(l.to_string()) {
                losses.push(l);
            }
        }
    }
    Ok(Conversion {
        outputs,
        losses,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Handed-over bytes a format keeps ranges of stay charged (their length is given
    /// back to release once the file goes); bytes a format reads into its own arrays
    /// are released as they are read; borrowed bytes are never the conversion's to give.
    #[test]
    fn owned_input_stays_charged_while_the_file_holds_ranges_of_it() -> Result<(), String> {
        let root = test_support::workspace_root();
        let ms14 = std::fs::read(root.join("fixtures/unigine-mesh/multi_surface.ms14.mesh"))
            .map_err(|e| e.to_string())?;
        let obj = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".to_vec();
        let unigine = formats::by_name("unigine-mesh").ok_or("no unigine-mesh")?;
        let cases: [(&dyn Format, &Vec<u8>, bool); 2] =
            [(unigine, &ms14, true), (&crate::obj::FORMAT, &obj, false)];
        for (format, bytes, keeps) in cases {
            let len = bytes.len() as u64;
            let budget = Budget::new(Limits::DEFAULT);
            budget
                .charge("input file", len)
                .map_err(|e| e.to_string())?;
            let cx = Context::new("in").with_budget(budget.clone());
            let owned = InputBytes::Owned(bytes.clone());
            let (file, held) = owned
                .read(format, &cx, &budget)
                .map_err(|e| e.to_string())?;
            assert_eq!(held, if keeps { len } else { 0 }, "{}", format.info().name);
            // Borrowed: nothing to give back, ever.
            let (_, held) = InputBytes::Borrowed(bytes)
                .read(format, &cx, &budget)
                .map_err(|e| e.to_string())?;
            assert_eq!(held, 0, "{}", format.info().name);
            drop(file);
        }
        Ok(())
    }
}
