//! Checks the codecs against meshoptimizer itself: the npm package (its WebAssembly
//! build of the C++ library) in `.ci/node_modules/meshoptimizer`, run by
//! `tests/reference.mjs` under node.
//!
//! For deterministic inputs (a grid mesh's quantized attributes, random bytes, grid and
//! random triangle lists, index sequences, filter inputs) it encodes with this crate,
//! has the reference decoder decode the result (which must give the input back, or this
//! crate's own decoding), has the reference encoder encode the same input, and asserts
//! that this crate's encoding is byte-identical to the reference's (or, failing that, no
//! larger and exact). It also decodes the reference's encodings (version 0 and 1) with
//! this crate. Prints a size table (run with `--nocapture` to see it).
//!
//! Without node or the package the test prints a notice and passes, unless
//! `MESHFMT_REQUIRE_MESHOPT_REF=1`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::f32::consts::FRAC_1_SQRT_2;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use meshfmt_meshopt::{
    ExpMode, Filter, Mode, decode_filter_exp, decode_filter_oct, decode_filter_quat,
    decode_gltf_buffer, decode_vertex_buffer, encode_filter_exp, encode_filter_oct,
    encode_filter_quat, encode_index_buffer, encode_index_sequence, encode_vertex_buffer,
};

/// xorshift64*: the same inputs on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn signed(&mut self) -> f32 {
        self.unit() * 2.0 - 1.0
    }
}

const STRIDES: [usize; 6] = [4, 8, 12, 16, 20, 64];
const COUNTS: [usize; 10] = [0, 1, 15, 16, 17, 255, 256, 257, 1000, 70000];

/// Interleaved quantized attributes of the vertices of a grid, 4 bytes per field:
/// position x/y (u16), position z (u16) + padding, normal (i8 x 3), uv (u16 x 2),
/// color (u8 x 4), repeating until the stride is filled.
fn grid_vertices(count: usize, stride: usize) -> Vec<u8> {
    let side = (count as f64).sqrt().ceil().max(1.0) as usize;
    let mut out = Vec::with_capacity(count * stride);
    for i in 0..count {
        let (gx, gy) = ((i % side) as f32, (i / side) as f32);
        let height = (gx * 0.3).sin() * (gy * 0.2).cos();
        let (nx, ny) = ((gx * 0.3).cos() * 0.3, -(gy * 0.2).sin() * 0.2);
        let nz = (1.0 - nx * nx - ny * ny).sqrt();
        for field in 0..stride / 4 {
            let bytes: [u8; 4] = match field % 5 {
                0 => {
                    let x = (gx * 40.0) as u16;
                    let y = (gy * 40.0) as u16;
                    let [a, b] = x.to_le_bytes();
                    let [c, d] = y.to_le_bytes();
                    [a, b, c, d]
                }
                1 => {
                    let [a, b] = ((height * 2000.0 + 30000.0) as u16).to_le_bytes();
                    [a, b, 0, 0]
                }
                2 => [
                    (nx * 127.0).round() as i8 as u8,
                    (ny * 127.0).round() as i8 as u8,
                    (nz * 127.0).round() as i8 as u8,
                    0,
                ],
                3 => {
                    let u = (gx / side as f32 * 65535.0) as u16;
                    let v = (gy / side as f32 * 65535.0) as u16;
                    let [a, b] = u.to_le_bytes();
                    let [c, d] = v.to_le_bytes();
                    [a, b, c, d]
                }
                _ => [200, (gx as u8).wrapping_mul(3), 40, 255],
            };
            out.extend_from_slice(&bytes);
        }
    }
    out
}

fn grid_triangles(n: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for y in 0..n {
        for x in 0..n {
            let v = y * (n + 1) + x;
            out.extend_from_slice(&[v, v + 1, v + n + 1, v + 1, v + n + 2, v + n + 1]);
        }
    }
    out
}

fn index_bytes(indices: &[u32], size: usize) -> Vec<u8> {
    if size == 2 {
        indices
            .iter()
            .flat_map(|&i| (i as u16).to_le_bytes())
            .collect()
    } else {
        indices.iter().flat_map(|&i| i.to_le_bytes()).collect()
    }
}

/// One case handed to reference.mjs.
struct Case {
    kind: &'static str,
    name: String,
    args: String,
    /// The input as the decoders must give it back (vertex cases), for our checks.
    input: Vec<u8>,
    count: usize,
    stride: usize,
}

struct Writer {
    dir: PathBuf,
    manifest: String,
    cases: Vec<Case>,
}

impl Writer {
    fn file(&self, name: &str, bytes: &[u8]) {
        std::fs::write(self.dir.join(name), bytes).unwrap();
    }

    fn add(&mut self, case: Case) {
        writeln!(self.manifest, "{} {} {}", case.kind, case.name, case.args).unwrap();
        self.cases.push(case);
    }

    fn vertex(&mut self, name: String, data: Vec<u8>, count: usize, stride: usize) {
        let ours = encode_vertex_buffer(&data, count, stride).unwrap();
        let mut decoded = vec![0; data.len()];
        decode_vertex_buffer(&mut decoded, count, stride, &ours).unwrap();
        assert!(decoded == data, "{name}: our round trip differs");
        self.file(&format!("{name}.in"), &data);
        self.file(&format!("{name}.ours"), &ours);
        self.add(Case {
            kind: "vertex",
            args: format!("{count} {stride}"),
            name,
            input: data,
            count,
            stride,
        });
    }

    fn indices(&mut self, kind: &'static str, name: String, indices: &[u32], size: usize) {
        assert!(
            size == 4 || indices.iter().all(|&i| i < 65536),
            "{name}: not u16"
        );
        let ours = if kind == "index" {
            encode_index_buffer(indices).unwrap()
        } else {
            encode_index_sequence(indices)
        };
        let mode = if kind == "index" {
            Mode::Triangles
        } else {
            Mode::Indices
        };
        let mut ourdec = vec![0; indices.len() * size];
        decode_gltf_buffer(&mut ourdec, indices.len(), size, &ours, mode, Filter::None).unwrap();
        let input = index_bytes(indices, size);
        self.file(&format!("{name}.in"), &input);
        self.file(&format!("{name}.ours"), &ours);
        self.file(&format!("{name}.ourdec"), &ourdec);
        self.add(Case {
            kind,
            args: format!("{} {size}", indices.len()),
            name,
            input,
            count: indices.len(),
            stride: size,
        });
    }

    #[allow(clippy::too_many_arguments)] // one per column of the manifest line
    fn filter(
        &mut self,
        kind: &'static str,
        name: String,
        floats: &[f32],
        count: usize,
        stride: usize,
        bits: u32,
        mode: ExpMode,
    ) {
        let ours = match kind {
            "oct" => encode_filter_oct(floats, count, stride, bits),
            "quat" => encode_filter_quat(floats, count, stride, bits),
            _ => encode_filter_exp(floats, count, stride, bits, mode),
        }
        .unwrap();
        let mut ourdec = ours.clone();
        match kind {
            "oct" => decode_filter_oct(&mut ourdec, count, stride),
            "quat" => decode_filter_quat(&mut ourdec, count, stride),
            _ => decode_filter_exp(&mut ourdec, count, stride),
        }
        .unwrap();
        let oursv = encode_vertex_buffer(&ours, count, stride).unwrap();
        let f32s: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
        self.file(&format!("{name}.f32"), &f32s);
        self.file(&format!("{name}.ours"), &ours);
        self.file(&format!("{name}.oursv"), &oursv);
        self.file(&format!("{name}.ourdec"), &ourdec);
        let mode_arg = if kind == "exp" {
            format!(" {mode:?}")
        } else {
            String::new()
        };
        self.add(Case {
            kind,
            args: format!("{count} {stride} {bits}{mode_arg}"),
            name,
            input: ours,
            count,
            stride,
        });
    }
}

fn write_cases(dir: &Path) -> Writer {
    let mut w = Writer {
        dir: dir.to_path_buf(),
        manifest: String::new(),
        cases: Vec::new(),
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);

    // vertex: a grid's attributes and random bytes at every stride and count
    for &stride in &STRIDES {
        for &count in &COUNTS {
            w.vertex(
                format!("vgrid_s{stride}_n{count}"),
                grid_vertices(count, stride),
                count,
                stride,
            );
            let random: Vec<u8> = (0..count * stride).map(|_| rng.next() as u8).collect();
            w.vertex(format!("vrand_s{stride}_n{count}"), random, count, stride);
        }
    }
    // small deltas: every group width (0, 2, 4, 8 bits) and their ties
    for &stride in &[4usize, 8, 16] {
        let count = 3000;
        let mut data = vec![0u8; count * stride];
        let mut value = [0u8; 64];
        for (i, element) in data.chunks_mut(stride).enumerate() {
            for (k, b) in element.iter_mut().enumerate() {
                let spread = [0u64, 1, 2, 7, 20][(i / 64 + k) % 5];
                value[k] = value[k].wrapping_add(rng.below(spread + 1) as u8);
                *b = value[k];
            }
        }
        w.vertex(format!("vwalk_s{stride}_n{count}"), data, count, stride);
    }

    // triangles: grids, random (with degenerate triangles), restarts, large values
    let mut triangle_sets: Vec<(String, Vec<u32>)> = vec![
        ("tempty".into(), Vec::new()),
        ("tone".into(), vec![0, 1, 2]),
        ("tgrid4".into(), grid_triangles(4)),
        ("tgrid50".into(), grid_triangles(50)),
        ("tgrid200".into(), grid_triangles(200)),
    ];
    let mut restart = grid_triangles(8);
    restart.extend(grid_triangles(8));
    restart.extend([0, 1, 2, 2, 1, 3]);
    triangle_sets.push(("trestart".into(), restart));
    let random: Vec<u32> = (0..3000 * 3).map(|_| rng.below(500) as u32).collect();
    triangle_sets.push(("trandom".into(), random));
    let degenerate: Vec<u32> = (0..1000)
        .flat_map(|_| {
            let a = rng.below(60) as u32;
            let b = if rng.below(3) == 0 {
                a
            } else {
                rng.below(60) as u32
            };
            [a, b, if rng.below(4) == 0 { b } else { a + 1 }]
        })
        .collect();
    triangle_sets.push(("tdegenerate".into(), degenerate));
    for (name, tris) in &triangle_sets {
        w.indices("index", format!("{name}_u16"), tris, 2);
        w.indices("index", format!("{name}_u32"), tris, 4);
    }
    let shifted: Vec<u32> = grid_triangles(30).iter().map(|i| i + 3_000_000).collect();
    w.indices("index", "tgridhigh_u32".into(), &shifted, 4);
    let wide: Vec<u32> = (0..600 * 3).map(|_| rng.next() as u32).collect();
    w.indices("index", "trandomwide_u32".into(), &wide, 4);

    // sequences: a strip, line lists, random, and jumps of 2^31 (lossy in the format)
    let strip: Vec<u32> = (0..40u32)
        .flat_map(|row| (0..41u32).flat_map(move |x| [row * 41 + x, (row + 1) * 41 + x]))
        .collect();
    let lines: Vec<u32> = grid_triangles(30)
        .chunks(3)
        .flat_map(|t| [t[0], t[1], t[1], t[2]])
        .collect();
    let random: Vec<u32> = (0..5000).map(|_| rng.below(65536) as u32).collect();
    let walk: Vec<u32> = (0..5000)
        .scan(30_000u32, |v, _| {
            *v = v.wrapping_add(rng.below(61) as u32).wrapping_sub(30);
            Some(*v)
        })
        .collect();
    for (name, seq) in [
        ("sempty", Vec::new()),
        ("sone", vec![7]),
        ("sstrip", strip),
        ("slines", lines),
        ("srandom", random),
        ("swalk", walk),
    ] {
        w.indices("sequence", format!("{name}_u16"), &seq, 2);
        w.indices("sequence", format!("{name}_u32"), &seq, 4);
    }
    let high: Vec<u32> = (0..3000).map(|_| rng.below(1 << 30) as u32).collect();
    w.indices("sequence", "shigh_u32".into(), &high, 4);
    // deltas of exactly 2^31 (i32::MIN) decide the baseline switch too
    let jumps: Vec<u32> = [0x8000_0000, 0, 0x8000_0000, 0x8000_0000, 0]
        .into_iter()
        .chain((0..200u32).map(|i| if i % 3 == 0 { i } else { i ^ 0x8000_0000 }))
        .collect();
    w.indices("sequence", "sjumps_u32".into(), &jumps, 4);

    // filters
    let count = 1000;
    let mut vectors: Vec<f32> = Vec::new();
    for i in 0..count {
        let (x, y, z) = match i {
            0 => (0.0, 0.0, 0.0),
            1 => (0.0, 0.0, -1.0),
            2 => (1.0, 0.0, 0.0),
            3 => (0.0, -1.0, 0.0),
            4 => (0.5, 0.5, 0.0),
            _ => (rng.signed(), rng.signed(), rng.signed()),
        };
        let l = (x * x + y * y + z * z).sqrt();
        let s = if l == 0.0 || i % 7 == 0 { 1.0 } else { 1.0 / l };
        let w = if rng.below(2) == 0 { 1.0 } else { -1.0 };
        vectors.extend_from_slice(&[x * s, y * s, z * s, w]);
    }
    for (stride, bits) in [(4, 8), (4, 6), (8, 10), (8, 12), (8, 16)] {
        w.filter(
            "oct",
            format!("foct_s{stride}_b{bits}"),
            &vectors,
            count,
            stride,
            bits,
            ExpMode::Separate,
        );
    }
    let mut quats: Vec<f32> = Vec::new();
    for i in 0..count {
        let q = match i {
            0 => [0.0, 0.0, 0.0, 1.0],
            1 => [0.0, 0.0, 0.0, -1.0],
            2 => [FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2, 0.0],
            3 => [0.5, -0.5, 0.5, -0.5],
            _ => [rng.signed(), rng.signed(), rng.signed(), rng.signed()],
        };
        let l = q.iter().map(|c| c * c).sum::<f32>().sqrt();
        quats.extend(q.iter().map(|c| c / l));
    }
    for bits in [4, 8, 12, 16] {
        w.filter(
            "quat",
            format!("fquat_b{bits}"),
            &quats,
            count,
            8,
            bits,
            ExpMode::Separate,
        );
    }
    for stride in [4usize, 8, 12, 16] {
        let floats: Vec<f32> = (0..count * stride / 4)
            .map(|i| match i % 23 {
                0 => 0.0,
                1 => -0.0,
                2 => 1e-30,
                3 => -3e30,
                4 => 1e-40, // subnormal
                _ => {
                    let e = rng.below(40) as i32 - 20;
                    rng.signed() * 2f32.powi(e)
                }
            })
            .collect();
        for bits in [8u32, 15, 23, 24] {
            for mode in [
                ExpMode::Separate,
                ExpMode::SharedVector,
                ExpMode::SharedComponent,
                ExpMode::Clamped,
            ] {
                w.filter(
                    "exp",
                    format!("fexp_s{stride}_b{bits}_{mode:?}"),
                    &floats,
                    count,
                    stride,
                    bits,
                    mode,
                );
            }
        }
    }

    std::fs::write(dir.join("manifest.txt"), &w.manifest).unwrap();
    w
}

fn node_and_module() -> Result<(PathBuf, PathBuf), String> {
    let module = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/node_modules/meshoptimizer");
    if !module.join("index.js").is_file() {
        return Err(format!("{} is missing", module.display()));
    }
    let node = PathBuf::from(std::env::var_os("NODE").unwrap_or_else(|| "node".into()));
    match Command::new(&node).arg("--version").output() {
        Ok(o) if o.status.success() => Ok((node, module)),
        _ => Err(format!("{} does not run", node.display())),
    }
}

#[test]
fn matches_meshoptimizer() {
    let (node, module) = match node_and_module() {
        Ok(found) => found,
        Err(why) => {
            assert!(
                std::env::var("MESHFMT_REQUIRE_MESHOPT_REF").as_deref() != Ok("1"),
                "the meshoptimizer reference is required but {why}"
            );
            eprintln!("notice: skipping the meshoptimizer reference comparison: {why}");
            return;
        }
    };

    let dir = std::env::temp_dir().join(format!("meshfmt-meshopt-ref-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let w = write_cases(&dir);

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference.mjs");
    let run = Command::new(&node)
        .arg(&script)
        .arg(&dir)
        .env("MESHOPT_MODULE", &module)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "reference.mjs failed: {}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let results = std::fs::read_to_string(dir.join("results.txt")).unwrap();
    let failures: Vec<&str> = results.lines().filter(|l| !l.ends_with(" ok")).collect();
    assert!(
        failures.is_empty(),
        "reference checks failed:\n{}",
        failures.join("\n")
    );
    assert_eq!(results.lines().count(), w.cases.len());

    let mut table = String::new();
    let mut problems = Vec::new();
    let (mut identical, mut differing) = (0, 0);
    let (mut ours_total, mut ref_total) = (0usize, 0usize);
    for case in &w.cases {
        let ours = std::fs::read(dir.join(format!("{}.ours", case.name))).unwrap();
        let reference = std::fs::read(dir.join(format!("{}.ref", case.name))).unwrap();
        ours_total += ours.len();
        ref_total += reference.len();
        let same = ours == reference;
        if same {
            identical += 1;
        } else {
            differing += 1;
            // the reference checks above showed ours decodes exactly; it must not be larger
            if ours.len() > reference.len() {
                problems.push(format!(
                    "{}: ours {} bytes > reference {} bytes",
                    case.name,
                    ours.len(),
                    reference.len()
                ));
            }
            if case.kind == "oct" || case.kind == "quat" || case.kind == "exp" {
                problems.push(format!(
                    "{}: filter bytes differ from the reference",
                    case.name
                ));
            }
        }
        writeln!(
            table,
            "{:<34} {:>9} {:>9} {}",
            case.name,
            ours.len(),
            reference.len(),
            if same { "identical" } else { "DIFFERENT" }
        )
        .unwrap();

        if case.kind == "vertex" {
            // our decoder reads the reference's version 0 and version 1 streams
            for file in ["ref", "ref1"] {
                let encoded = std::fs::read(dir.join(format!("{}.{file}", case.name))).unwrap();
                let mut decoded = vec![0; case.count * case.stride];
                decode_vertex_buffer(&mut decoded, case.count, case.stride, &encoded)
                    .unwrap_or_else(|e| panic!("{}.{file}: {e}", case.name));
                assert!(
                    decoded == case.input,
                    "{}.{file}: decodes differently",
                    case.name
                );
            }
        }
    }
    println!(
        "{:<34} {:>9} {:>9}\n{table}{identical} identical, {differing} different; \
         total ours {ours_total} bytes, reference {ref_total} bytes",
        "case", "ours", "reference"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(
        differing, 0,
        "every encoding should match the reference byte for byte"
    );

    let _ = std::fs::remove_dir_all(&dir);
}
