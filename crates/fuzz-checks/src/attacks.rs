//! Crafted inputs that try to make meshfmt reach outside what the user named: side-file
//! names that climb out of the input's folder, absolute paths, URIs, UNC and drive paths,
//! links and FIFOs planted beside the input, special files, names with escape sequences,
//! non-finite values, and outputs that would land on a planted link or an existing file.
//! `crates/meshfmt/tests/confinement.rs` builds each [`Attack`] in a folder of its own
//! and runs it through the library and the tool under `strace`.
//!
//! Layout of one case (`CASE` is `ROOT/NAME`): the input is in `CASE/in/`, which is
//! the only folder side files may come from; the canaries ([`CANARY`] in each file) are
//! in `CASE/` and in `ROOT/`, so any name that climbs out finds one; outputs go to
//! `CASE/out/`.
//!
//! ```
//! let dir = std::path::Path::new("/tmp/attacks");
//! let attacks = fuzz_checks::attacks::corpus(dir);
//! assert!(attacks.iter().any(|a| a.name == "gltf-buffer-parent"));
//! assert!(attacks.iter().all(|a| a.input.starts_with("in/")));
//! ```

use std::path::Path;

use meshfmt_core::Model;

/// The bytes every canary file holds: found in an output or a message, it shows that a
/// file outside the allowed folders was read.
pub const CANARY: &[u8] = b"MESHFMT-CANARY-7f3a9c1e";

/// The bytes a side file that *may* be read holds (a positive control: the check that
/// finds [`CANARY`] must find this).
pub const INSIDE: &[u8] = b"MESHFMT-INSIDE-2b8d4e60";

/// Files outside the sandbox that attacks name; none may be opened.
pub const SYSTEM_FILES: &[&str] = &[
    "/etc/passwd",
    "/etc/shadow",
    "/etc/hostname",
    "/proc/self/environ",
    "/proc/self/pagemap",
    "/proc/kmsg",
    "/dev/zero",
    "/dev/urandom",
];

/// One crafted case.
#[derive(Debug, Clone, Default)]
pub struct Attack {
    /// Short name (the case's folder).
    pub name: String,
    /// What it tries.
    pub attack: String,
    /// The input, relative to the case folder (always under `in/`).
    pub input: String,
    /// Files to create, relative to the case folder (canaries included).
    pub files: Vec<(String, Vec<u8>)>,
    /// Links to plant: (path relative to the case folder, target as given).
    pub links: Vec<(String, String)>,
    /// FIFOs to make, relative to the case folder.
    pub fifos: Vec<String>,
    /// Extra arguments for `convert` (`{case}` is replaced by the case folder).
    pub convert_args: Vec<String>,
    /// Outputs to convert to (extensions, with `--to` when ambiguous); empty: the
    /// default set of the test.
    pub outputs: Vec<(&'static str, Option<&'static str>)>,
    /// Files (relative to the case folder) the tool may and must read: positive
    /// controls whose [`INSIDE`] bytes the checks must find in an output.
    pub must_read: Vec<String>,
    /// True when `convert` must fail and write nothing (a planted output).
    pub convert_fails: bool,
}

/// A PNG of one pixel whose image data holds [`CANARY`]'s first bytes as a colour, so a
/// decoded and re-encoded copy is found too.
fn canary_png() -> Vec<u8> {
    let img = meshfmt_core::RgbaImage {
        width: 2,
        height: 1,
        pixels: [&CANARY[..4], &CANARY[4..8]].concat(),
    };
    let mut png = img.encode_png().unwrap_or_default();
    // Also verbatim: a text chunk after the image (readers skip it).
    png.extend_from_slice(CANARY);
    png
}

/// The canaries of a case: one per kind of side file, in the case folder (one level
/// above the input) and in `in/../Bindings/` for the Vitaboy layout.
fn canaries() -> Vec<(String, Vec<u8>)> {
    let mut bin = CANARY.to_vec();
    bin.resize(512, b'#');
    let mut mtl = b"newmtl canary\nKd 1 0 0\n# ".to_vec();
    mtl.extend_from_slice(CANARY);
    mtl.push(b'\n');
    vec![
        ("secret.bin".into(), bin.clone()),
        ("secret.png".into(), canary_png()),
        ("secret".into(), canary_png()),
        ("secret.mtl".into(), mtl),
        ("secret.anim".into(), bin),
    ]
}

/// A `.gltf` of one triangle whose buffer is `buffer_uri` (36 bytes of positions) and,
/// when given, a texture whose image is `image_uri`.
fn gltf_text(buffer_uri: &str, image_uri: Option<&str>, names: &str) -> Vec<u8> {
    let image = image_uri.map_or(String::new(), |u| {
        format!(
            r#","materials":[{{"name":{names},"pbrMetallicRoughness":{{"baseColorTexture":{{"index":0}}}}}}],"textures":[{{"source":0}}],"images":[{{"uri":{}}}]"#,
            meshfmt::json::string(u)
        )
    });
    let material = if image_uri.is_some() {
        r#","material":0"#
    } else {
        ""
    };
    format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"uri":{},"byteLength":36}}],"bufferViews":[{{"buffer":0,"byteLength":36}}],"accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],"meshes":[{{"name":{names},"primitives":[{{"attributes":{{"POSITION":0}}{material}}}]}}],"nodes":[{{"name":{names},"mesh":0}}],"scenes":[{{"nodes":[0]}}],"scene":0{image}}}"#,
        meshfmt::json::string(buffer_uri)
    )
    .into_bytes()
}

/// 36 bytes of positions that begin with [`INSIDE`] (ASCII bytes make finite floats,
/// which every conversion to glTF copies bit for bit).
fn inside_buffer() -> Vec<u8> {
    let mut b = INSIDE.to_vec();
    b.resize(36, b'#');
    b
}

/// An OBJ triangle naming `mtllib` (and a material from it).
fn obj_text(mtllib: &str, name: &str) -> Vec<u8> {
    format!("mtllib {mtllib}\no {name}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nusemtl canary\nf 1/1 2/2 3/3\n")
        .into_bytes()
}

/// An ASCII M3D triangle whose material maps the texture `texture` (m3d.h asks for
/// `texture.png`, then `texture`), named `name`.
fn a3d_text(texture: &str, name: &str) -> Vec<u8> {
    format!(
        "3dmodel 1.0\r\n{name}\r\n\r\n\r\n\r\n\r\nTextmap\r\n0 0\r\n1 0\r\n0 1\r\n\r\nVertex\r\n0 0 0 1\r\n1 0 0 1\r\n0 1 0 1\r\n\r\nMaterial {name}\r\nKd #ffffffff\r\nmap_Kd {texture}\r\n\r\nMesh\r\nuse {name}\r\n0/0 1/1 2/2\r\n\r\nEnd\r\n"
    )
    .into_bytes()
}

/// The binary M3D of [`a3d_text`], its names byte for byte whatever they hold (the text
/// form cannot carry a line break in a name): written with placeholders of the same
/// lengths, which are then overwritten in the string table.
fn m3d_binary(texture: &str, name: &str) -> Vec<u8> {
    let (t, n) = ("t".repeat(texture.len()), "n".repeat(name.len()));
    let Ok(mut file) = m3d_format::read(&a3d_text(&t, &n)) else {
        return Vec::new();
    };
    for (placeholder, real) in [(t, texture), (n, name)] {
        let mut key = vec![0u8];
        key.extend_from_slice(placeholder.as_bytes());
        key.push(0);
        let at = file
            .strings
            .windows(key.len())
            .position(|w| w == key.as_slice());
        if let Some(at) = at {
            file.strings[at + 1..at + 1 + real.len()].copy_from_slice(real.as_bytes());
        }
    }
    file.write().unwrap_or_default()
}

/// A side-file name of each hostile kind for a file `stem.ext` one level above the
/// input's folder (`CASE/stem.ext`; absolute names point at `ROOT/stem.ext`, a canary
/// of [`root_files`]): (short name, the name).
fn hostile_names(root: &Path, stem: &str, ext: &str) -> Vec<(&'static str, String)> {
    let file = format!("{stem}{ext}");
    let abs = root.join(&file).to_string_lossy().into_owned();
    vec![
        ("parent", format!("../{file}")),
        ("parent-backslash", format!("sub\\..\\..\\{file}")),
        ("absolute", abs.clone()),
        ("file-uri", format!("file://{abs}")),
        ("etc-passwd", "/etc/passwd".into()),
        (
            "climb-passwd",
            "../../../../../../../../../../etc/passwd".into(),
        ),
        (
            "climb-environ",
            "../../../../../../../../../../proc/self/environ".into(),
        ),
        ("pagemap", "/proc/self/pagemap".into()),
        ("kmsg", "/proc/kmsg".into()),
        ("unc", format!("\\\\evil-host\\share\\{file}")),
        ("drive", format!("C:\\Windows\\{file}")),
        ("http", format!("http://127.0.0.1:9/{file}")),
        ("link", format!("link{ext}")),
        ("dangling", format!("dangling{ext}")),
        ("link-dir", format!("linkdir/{file}")),
        ("fifo", format!("fifo{ext}")),
        ("link-environ", format!("env{ext}")),
        ("escape", format!("evil\u{1b}[2J\u{7}\nname{ext}")),
    ]
}

/// The links and FIFOs every reference case plants in its input folder.
fn plants(ext: &str, stem: &str) -> (Vec<(String, String)>, Vec<String>) {
    (
        vec![
            (format!("in/link{ext}"), format!("../{stem}{ext}")),
            (format!("in/dangling{ext}"), format!("../missing{ext}")),
            ("in/linkdir".into(), "..".into()),
            (format!("in/env{ext}"), "/proc/self/environ".into()),
        ],
        vec![format!("in/fifo{ext}")],
    )
}

/// An input built around one name: its path, its bytes, and files it needs beside it.
type Built = (String, Vec<u8>, Vec<(String, Vec<u8>)>);

/// One case per hostile name for each kind of side-file reference.
fn references(root: &Path) -> Vec<Attack> {
    let mut out = Vec::new();
    let mut add = |kind: &str, what: &str, ext: &str, stem: &str, build: &dyn Fn(&str) -> Built| {
        for (short, name) in hostile_names(root, stem, ext) {
            let (input, bytes, mut files) = build(&name);
            files.extend(canaries());
            files.push((input.clone(), bytes));
            let (links, fifos) = plants(ext, stem);
            out.push(Attack {
                name: format!("{kind}-{short}"),
                attack: format!("{what} named {}", meshfmt_core::text::quoted(&name)),
                input,
                files,
                links,
                fifos,
                ..Attack::default()
            });
        }
    };
    add("gltf-buffer", "a .gltf buffer", ".bin", "secret", &|n| {
        (
            "in/model.gltf".into(),
            gltf_text(n, None, "\"m\""),
            Vec::new(),
        )
    });
    add("gltf-image", "a .gltf image", ".png", "secret", &|n| {
        let files = vec![("in/ok.bin".to_string(), inside_buffer())];
        (
            "in/model.gltf".into(),
            gltf_text("ok.bin", Some(n), "\"m\""),
            files,
        )
    });
    add(
        "obj-mtllib",
        "an OBJ material library",
        ".mtl",
        "secret",
        &|n| ("in/model.obj".into(), obj_text(n, "tri"), Vec::new()),
    );
    add("mtl-map", "an MTL texture map", ".png", "secret", &|n| {
        let mtl = format!("newmtl canary\nKd 1 1 1\nmap_Kd {n}\n").into_bytes();
        let files = vec![("in/model.mtl".to_string(), mtl)];
        ("in/model.obj".into(), obj_text("model.mtl", "tri"), files)
    });
    add("m3d-texture", "a binary M3D texture", "", "secret", &|n| {
        ("in/model.m3d".into(), m3d_binary(n, "mat"), Vec::new())
    });
    add("a3d-texture", "an ASCII M3D texture", "", "secret", &|n| {
        ("in/model.a3d".into(), a3d_text(n, "mat"), Vec::new())
    });
    out
}

/// Side files inside the input's folder (below it, and through a link that stays
/// inside): read, and their bytes in the output.
fn positive_controls() -> Vec<Attack> {
    let mut files = canaries();
    files.push(("in/deep/ok.bin".into(), inside_buffer()));
    files.push((
        "in/model.gltf".into(),
        gltf_text("deep/ok.bin", None, "\"m\""),
    ));
    let mut linked = canaries();
    linked.push(("in/deep/ok.bin".into(), inside_buffer()));
    linked.push((
        "in/model.gltf".into(),
        gltf_text("alias.bin", None, "\"m\""),
    ));
    vec![
        Attack {
            name: "control-below".into(),
            attack: "a .gltf buffer in a folder below the input's (must be read)".into(),
            input: "in/model.gltf".into(),
            files,
            must_read: vec!["in/deep/ok.bin".into()],
            outputs: vec![("glb", None), ("gltf", None)],
            ..Attack::default()
        },
        Attack {
            name: "control-link-inside".into(),
            attack: "a .gltf buffer through a link that stays inside (must be read)".into(),
            input: "in/model.gltf".into(),
            files: linked,
            links: vec![("in/alias.bin".into(), "deep/ok.bin".into())],
            must_read: vec!["in/deep/ok.bin".into()],
            outputs: vec![("glb", None), ("gltf", None)],
            ..Attack::default()
        },
    ]
}

/// Names holding escape sequences, bells and line breaks, in every text a file carries.
fn hostile_names_in_files() -> Vec<Attack> {
    let evil = "evil\u{1b}]0;owned\u{7}\u{1b}[2J\r\nmeshfmt: fake line\u{202e}";
    let escaped = meshfmt::json::string(evil);
    let mut gltf_files = canaries();
    gltf_files.push(("in/ok.bin".into(), inside_buffer()));
    gltf_files.push((
        "in/model.gltf".into(),
        gltf_text("ok.bin", Some(evil), &escaped),
    ));
    let mut obj_files = canaries();
    obj_files.push((
        "in/model.obj".into(),
        format!("o {evil}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl {evil}\nf 1 2 3\n").into_bytes(),
    ));
    let mut m3d_files = canaries();
    m3d_files.push((
        "in/model.m3d".into(),
        m3d_binary("tex\u{1b}[31m", "mat\u{1b}[2J\u{7}"),
    ));
    vec![
        Attack {
            name: "names-gltf".into(),
            attack: "glTF node, mesh, material and image names with ESC, BEL, CR LF and RLO".into(),
            input: "in/model.gltf".into(),
            files: gltf_files,
            ..Attack::default()
        },
        Attack {
            name: "names-obj".into(),
            attack: "OBJ object and material names with ESC, BEL and CR".into(),
            input: "in/model.obj".into(),
            files: obj_files,
            ..Attack::default()
        },
        Attack {
            name: "names-m3d".into(),
            attack: "M3D material and texture names with ESC and BEL".into(),
            input: "in/model.m3d".into(),
            files: m3d_files,
            ..Attack::default()
        },
    ]
}

/// An OBJ whose face indices overflow the relative-index arithmetic.
fn obj_indices() -> Vec<Attack> {
    [
        "-9223372036854775808",
        "1/-9223372036854775808",
        "1//-9223372036854775808",
    ]
    .iter()
    .enumerate()
    .map(|(i, corner)| {
        let mut files = canaries();
        files.push((
            "in/model.obj".into(),
            format!("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nf 1 2 {corner}\n").into_bytes(),
        ));
        Attack {
            name: format!("obj-index-min-{i}"),
            attack: format!("an OBJ face corner {corner} (i64::MIN)"),
            input: "in/model.obj".into(),
            files,
            ..Attack::default()
        }
    })
    .collect()
}

/// A binary glTF from a JSON document and its buffer.
pub fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut j = json.as_bytes().to_vec();
    j.resize(j.len().next_multiple_of(4), b' ');
    let mut b = bin.to_vec();
    b.resize(b.len().next_multiple_of(4), 0);
    let total = 12 + 8 + j.len() + 8 + b.len();
    let mut out = Vec::with_capacity(total);
    let u32le = |v: usize| u32::try_from(v).unwrap_or(u32::MAX).to_le_bytes();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&u32le(total));
    out.extend_from_slice(&u32le(j.len()));
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    out.extend_from_slice(&u32le(b.len()));
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&b);
    out
}

/// A skinned, animated, morphing triangle whose every float kind holds NaN, infinities
/// or values past f32 (which parse to infinity): positions, normals, tangents, UVs,
/// colours, weights, morph targets, inverse bind matrices, node transforms, key times
/// and key values, material factors.
pub fn non_finite_glb() -> Vec<u8> {
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let mut bin = Vec::new();
    let mut views = Vec::new();
    let mut push = |bytes: Vec<u8>| {
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
        views.push(format!(
            r#"{{"buffer":0,"byteOffset":{},"byteLength":{}}}"#,
            bin.len(),
            bytes.len()
        ));
        bin.extend_from_slice(&bytes);
    };
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    push(f(&[nan, 0., 0., 1., inf, 0., 0., 1., -inf])); // 0 positions
    push(f(&[nan; 9])); // 1 normals
    push(f(&[nan, 0., 1., inf, 0., 1., 0., 0., 1., 0., 0., 1.])); // 2 tangents
    push(f(&[nan, 0., inf, 0., 0., 1.])); // 3 uv
    push(f(&[nan, 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.])); // 4 colors
    push(vec![0u8; 12]); // 5 joints
    push(f(&[nan, 0., 0., 0., inf, 0., 0., 0., 1., 0., 0., 0.])); // 6 weights
    push(vec![0, 0, 1, 0, 2, 0]); // 7 indices u16
    push(f(&[nan; 16])); // 8 inverse bind
    push(f(&[nan, 0., 0., 0., inf, 0., 0., 0., 0.])); // 9 morph positions
    push(f(&[0., nan, 1.])); // 10 key times
    push(f(&[nan, 0., 0., 0., inf, 0., 0., 0., 0.])); // 11 translations
    push(f(&[nan, 0., 0., 1., 0., 0., 0., 0., 0., 0., 0., 1.])); // 12 rotations
    push(f(&[0., 1.])); // 13 morph key times
    push(f(&[nan, inf])); // 14 morph weights
    let acc = |view: usize, ty: &str, count: usize, ct: u32, extra: &str| {
        format!(
            r#"{{"bufferView":{view},"componentType":{ct},"count":{count},"type":"{ty}"{extra}}}"#
        )
    };
    let accessors = [
        acc(0, "VEC3", 3, 5126, r#","min":[0,0,0],"max":[1,1,0]"#),
        acc(1, "VEC3", 3, 5126, ""),
        acc(2, "VEC4", 3, 5126, ""),
        acc(3, "VEC2", 3, 5126, ""),
        acc(4, "VEC4", 3, 5126, ""),
        acc(5, "VEC4", 3, 5121, ""),
        acc(6, "VEC4", 3, 5126, ""),
        acc(7, "SCALAR", 3, 5123, ""),
        acc(8, "MAT4", 1, 5126, ""),
        acc(9, "VEC3", 3, 5126, r#","min":[0,0,0],"max":[1,1,0]"#),
        acc(10, "SCALAR", 3, 5126, r#","min":[0],"max":[1]"#),
        acc(11, "VEC3", 3, 5126, ""),
        acc(12, "VEC4", 3, 5126, ""),
        acc(13, "SCALAR", 2, 5126, r#","min":[0],"max":[1]"#),
        acc(14, "SCALAR", 2, 5126, ""),
    ];
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{}}}],"bufferViews":[{}],"accessors":[{}],"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"NORMAL":1,"TANGENT":2,"TEXCOORD_0":3,"COLOR_0":4,"JOINTS_0":5,"WEIGHTS_0":6}},"indices":7,"material":0,"targets":[{{"POSITION":9}}]}}],"weights":[1e39]}}],"materials":[{{"pbrMetallicRoughness":{{"baseColorFactor":[1,1,1,1],"metallicFactor":1,"roughnessFactor":1}},"emissiveFactor":[0,0,0]}}],"nodes":[{{"mesh":0,"skin":0,"translation":[1e39,0,0]}},{{"name":"bone","translation":[0,1e39,0],"scale":[1,-1e39,1]}}],"skins":[{{"joints":[1],"inverseBindMatrices":8}}],"animations":[{{"name":"nan","samplers":[{{"input":10,"output":11}},{{"input":10,"output":12}},{{"input":13,"output":14}}],"channels":[{{"sampler":0,"target":{{"node":1,"path":"translation"}}}},{{"sampler":1,"target":{{"node":1,"path":"rotation"}}}},{{"sampler":2,"target":{{"node":0,"path":"weights"}}}}]}}],"scenes":[{{"nodes":[0,1]}}],"scene":0}}"#,
        bin.len(),
        views.join(","),
        accessors.join(",")
    );
    glb(&json, &bin)
}

/// A skinned triangle on a chain of bones whose values are all finite but overflow once
/// combined: translations and scales of 3e38 compose to infinite world matrices (and NaN
/// inverses), positions of 3e38 under a node scale of 3e38 bake to infinities, key values
/// of 3e38 on a 3e38 rest.
pub fn overflowing_glb() -> Vec<u8> {
    let big = 3.0e38f32;
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut bin = f(&[big, 0., 0., 0., big, 0., 0., 0., big]); // 0 positions @0, 36
    bin.extend(vec![0u8, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]); // 1 joints @36, 12
    bin.extend(f(&[1., 0., 0., 0., 1., 0., 0., 0., 1., 0., 0., 0.])); // 2 weights @48, 48
    bin.extend(f(&[0., 1.])); // 3 times @96, 8
    bin.extend(f(&[big, big, big, -big, -big, -big])); // 4 translations @104, 24
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{}}}],"bufferViews":[{{"buffer":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":12}},{{"buffer":0,"byteOffset":48,"byteLength":48}},{{"buffer":0,"byteOffset":96,"byteLength":8}},{{"buffer":0,"byteOffset":104,"byteLength":24}}],"accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[3e38,3e38,3e38]}},{{"bufferView":1,"componentType":5121,"count":3,"type":"VEC4"}},{{"bufferView":2,"componentType":5126,"count":3,"type":"VEC4"}},{{"bufferView":3,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[1]}},{{"bufferView":4,"componentType":5126,"count":2,"type":"VEC3"}}],"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"JOINTS_0":1,"WEIGHTS_0":2}}}}]}}],"nodes":[{{"mesh":0,"skin":0,"scale":[3e38,3e38,3e38]}},{{"name":"a","translation":[3e38,3e38,3e38],"scale":[3e38,3e38,3e38],"children":[2]}},{{"name":"b","translation":[3e38,3e38,3e38],"scale":[3e38,3e38,3e38]}}],"skins":[{{"joints":[1,2]}}],"animations":[{{"name":"big","samplers":[{{"input":3,"output":4}}],"channels":[{{"sampler":0,"target":{{"node":2,"path":"translation"}}}}]}}],"scenes":[{{"nodes":[0,1]}}],"scene":0}}"#,
        bin.len()
    );
    glb(&json, &bin)
}

fn non_finite() -> Vec<Attack> {
    let mut files = canaries();
    files.push(("in/model.glb".into(), non_finite_glb()));
    let mut big = canaries();
    big.push(("in/model.glb".into(), overflowing_glb()));
    vec![
        Attack {
            name: "non-finite-glb".into(),
            attack: "NaN, infinities and values past f32 in every float of a .glb".into(),
            input: "in/model.glb".into(),
            files,
            ..Attack::default()
        },
        Attack {
            name: "overflowing-glb".into(),
            attack: "finite values that overflow once combined (world matrices, baked nodes)"
                .into(),
            input: "in/model.glb".into(),
            files: big,
            ..Attack::default()
        },
    ]
}

/// A `.glb` of `model` (our exporter).
fn model_glb(model: &Model) -> Vec<u8> {
    use meshfmt_core::format::{Context, Format};
    let cx = Context::new("m.glb");
    meshfmt::gltf::FORMAT
        .from_core(model, &cx)
        .and_then(|f| f.value.write(&cx))
        .map(|w| w.main)
        .unwrap_or_default()
}

/// Split outputs that would land on a link planted in `--anims-dir` (to a canary
/// outside) and on a file already there.
fn planted_outputs() -> Vec<Attack> {
    let mut m = meshfmt_core::canonical::skinned_arm();
    let mut second = m.animations.first().cloned().unwrap_or_default();
    if let Some(c) = m.animations.first_mut() {
        c.name = "victim".into();
    }
    second.name = "existing".into();
    m.animations.push(second);
    let mut files = canaries();
    files.push(("in/model.glb".into(), model_glb(&m)));
    files.push(("out/anims/existing.anim".into(), INSIDE.to_vec()));
    let mut bin_files = canaries();
    bin_files.push((
        "in/model.glb".into(),
        model_glb(&meshfmt_core::canonical::cube()),
    ));
    vec![
        Attack {
            name: "anims-dir-planted".into(),
            attack: "--anims-dir holding a link to a file outside and a file already there".into(),
            input: "in/model.glb".into(),
            files,
            links: vec![("out/anims/victim.anim".into(), "../../secret.anim".into())],
            convert_args: vec!["--anims-dir".into(), "{case}/out/anims".into()],
            outputs: vec![("mesh", Some("unigine-mesh"))],
            convert_fails: true,
            ..Attack::default()
        },
        Attack {
            name: "gltf-bin-planted".into(),
            attack: "a .gltf output whose .bin would land on a link to a file outside".into(),
            input: "in/model.glb".into(),
            files: bin_files,
            links: vec![("out/model-out0.bin".into(), "../secret.bin".into())],
            outputs: vec![("gltf", None)],
            convert_fails: true,
            ..Attack::default()
        },
    ]
}

/// A Vitaboy appearance whose bindings, meshes and textures sit in the FreeSO layout's
/// sibling folders, outside the appearance's own.
fn appearance() -> Vec<Attack> {
    use niotso_mesh::companions::{Appearance, AssetRef, BindingFile, TaggedRef};
    let r = |file_id, type_id| AssetRef { file_id, type_id };
    let tagged = |id, type_id| TaggedRef {
        tag: 8,
        asset: Some((0, r(id, type_id))),
    };
    let apr = Appearance {
        version: 1,
        thumbnail: AssetRef::default(),
        bindings: vec![r(1, 11)],
    }
    .write()
    .unwrap_or_default();
    let bnd = BindingFile {
        version: 1,
        bone: "L_ARM".into(),
        mesh: tagged(0x10, 9),
        texture: tagged(0x20, 20),
    }
    .write()
    .unwrap_or_default();
    let mut files = canaries();
    files.push(("in/outfit.0000000a0000000c.apr".into(), apr));
    files.push(("Bindings/canary.000000010000000b.bnd".into(), bnd));
    files.push((
        "Meshes/canary.0000001000000009.mesh".into(),
        CANARY.to_vec(),
    ));
    vec![Attack {
        name: "appearance-siblings".into(),
        attack: "a Vitaboy appearance whose loose files are in sibling folders".into(),
        input: "in/outfit.0000000a0000000c.apr".into(),
        files,
        outputs: vec![("glb", None)],
        ..Attack::default()
    }]
}

/// The files the test puts in the folder holding every case (`ROOT`): canaries that
/// absolute names point at.
pub fn root_files() -> Vec<(String, Vec<u8>)> {
    canaries()
}

/// Every case, each to be built in `ROOT/NAME` (absolute names point at canaries in
/// `ROOT`: [`root_files`]).
pub fn corpus(root: &Path) -> Vec<Attack> {
    let mut out = references(root);
    out.extend(positive_controls());
    out.extend(hostile_names_in_files());
    out.extend(obj_indices());
    out.extend(non_finite());
    out.extend(planted_outputs());
    out.extend(appearance());
    // glTF inputs compressed: the document's own way (no model) under the same attacks.
    let compressed: Vec<Attack> = out
        .iter()
        .filter(|a| {
            (a.input.ends_with(".gltf") || a.input.ends_with(".glb"))
                && a.must_read.is_empty()
                && !a.convert_fails
        })
        .map(|a| Attack {
            name: format!("{}-compress", a.name),
            attack: format!("{}, compressed (--compress)", a.attack),
            convert_args: [a.convert_args.clone(), vec!["--compress".into()]].concat(),
            outputs: vec![("glb", None), ("gltf", None)],
            ..a.clone()
        })
        .collect();
    out.extend(compressed);
    let mut files = canaries();
    files.push(("in/nodes.gltf".into(), many_nodes_gltf(1_000_000)));
    out.push(Attack {
        name: "million-nodes-gltf".into(),
        attack: "a million empty glTF nodes in 3 MB of JSON (parsed, they take 227 MB)".into(),
        input: "in/nodes.gltf".into(),
        files,
        outputs: vec![("glb", None), ("obj", None)],
        ..Attack::default()
    });
    out
}

/// A `.gltf` of `nodes` empty nodes: a few bytes each that a parser makes into a few
/// hundred (the memory bound's worst case).
pub fn many_nodes_gltf(nodes: usize) -> Vec<u8> {
    let mut s = String::with_capacity(nodes * 3 + 64);
    s.push_str(r#"{"asset":{"version":"2.0"},"nodes":["#);
    for i in 0..nodes {
        if i > 0 {
            s.push(',');
        }
        s.push_str("{}");
    }
    s.push_str("]}");
    s.into_bytes()
}
