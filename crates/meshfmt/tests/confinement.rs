//! The side-file and output policy, attacked: every case of `fuzz_checks::attacks` is
//! built in a folder of its own (links, FIFOs and canaries included) and run through
//! `meshfmt info`, `info --json`, `validate` and `convert` to every output, under
//! `--max-memory 64M`, `strace` and `/usr/bin/time`. A run breaks a promise when it:
//!
//! - opens a file outside the input's folder (`CASE/in`) and the output folder
//!   (`CASE/out`) inside the sandbox, any of the system files the attacks name, or a
//!   FIFO; or creates, renames or links anything outside `CASE/out`;
//! - leaves the canary bytes in an output, in a message, or changes a canary;
//! - panics, passes the deadline, or peaks above the README's bound (2 x budget +
//!   32 MiB + 16 x input);
//! - prints a line to stderr that is not one printable `meshfmt: ` line;
//! - writes a control byte, or a NaN or infinity, into a text output (`.obj`, `.mtl`,
//!   `.a3d`);
//! - (planted outputs) succeeds, or writes anything, where it must refuse;
//! - (positive controls) fails to read a side file it may read.
//!
//! `strace` is needed for the open checks: without it they are skipped with a notice,
//! unless `MESHFMT_REQUIRE_STRACE` is set (CI sets it). `MESHFMT_BIN` runs another build
//! of the tool (an older one, to measure what it broke), and
//! `MESHFMT_ATTACK_REPORT_ONLY=1` prints the table without failing.
//! `MESHFMT_ATTACK_GLTF_OUT=DIR` copies every glTF written into `DIR/CASE/` for the
//! Khronos validator (`.ci/run`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use fuzz_checks::attacks::{Attack, CANARY, INSIDE, SYSTEM_FILES, corpus, root_files};

const MAX_MEMORY: u64 = 64 << 20;
const DEADLINE: Duration = Duration::from_secs(30);
/// The README's bound on a run's peak: twice the budget, 32 MiB, 16 times the input.
fn memory_bound(input_len: u64) -> u64 {
    2 * MAX_MEMORY + (32 << 20) + 16 * input_len
}

const ALL_OUTPUTS: &[(&str, Option<&str>)] = fuzz_checks::TOOL_OUTPUTS;

/// The outputs that carry references and names: enough for the reference cases.
const REFERENCE_OUTPUTS: &[(&str, Option<&str>)] = &[
    ("glb", None),
    ("gltf", None),
    ("obj", None),
    ("m3d", None),
    ("a3d", None),
];

fn exe() -> PathBuf {
    std::env::var_os("MESHFMT_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_meshfmt")),
        PathBuf::from,
    )
}

fn tool(name: &str) -> Option<PathBuf> {
    ["/usr/bin", "/bin", "/usr/sbin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.exists())
}

fn flag(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

/// `path` without `.` and `..` steps (never touching the file system).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Writes the case's files, links and FIFOs under `case` (emptied first).
fn build(case: &Path, a: &Attack) {
    let _ = std::fs::remove_dir_all(case);
    std::fs::create_dir_all(case.join("in")).unwrap();
    std::fs::create_dir_all(case.join("out")).unwrap();
    for (rel, bytes) in &a.files {
        let p = case.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
    }
    for (rel, target) in &a.links {
        let p = case.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, &p).unwrap();
    }
    for rel in &a.fifos {
        let p = case.join(rel);
        let ok = Command::new("mkfifo").arg(&p).status().unwrap().success();
        assert!(ok, "mkfifo {}", p.display());
    }
}

/// Every file under `dir`, sorted (links are reported as files, never followed into).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    test_support::files_under(dir, &[])
        .into_iter()
        .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file()))
        .collect()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// One syscall on a path, from the trace.
#[derive(Debug)]
struct Access {
    call: String,
    path: PathBuf,
    writes: bool,
}

/// The paths of the file syscalls in an `strace -f` log, relative ones joined to `cwd`.
fn accesses(log: &str, cwd: &Path) -> Vec<Access> {
    let mut out = Vec::new();
    for line in log.lines() {
        let rest = line.split_once(' ').map_or(line, |(_, r)| r).trim_start();
        let Some(paren) = rest.find('(') else {
            continue;
        };
        let call = &rest[..paren];
        // Every quoted argument is a path for these calls.
        let args = &rest[paren + 1..];
        let mut quoted = Vec::new();
        let mut chars = args.char_indices().peekable();
        while let Some((_, c)) = chars.next() {
            if c != '"' {
                continue;
            }
            let mut s = String::new();
            while let Some((_, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, n)) = chars.next() {
                            s.push('\\');
                            s.push(n);
                        }
                    }
                    '"' => break,
                    c => s.push(c),
                }
            }
            quoted.push(s);
        }
        let writes = matches!(
            call,
            "creat"
                | "link"
                | "linkat"
                | "rename"
                | "renameat"
                | "renameat2"
                | "symlink"
                | "symlinkat"
                | "mkdir"
                | "mkdirat"
                | "mknod"
                | "mknodat"
                | "truncate"
        ) || args.contains("O_WRONLY")
            || args.contains("O_RDWR")
            || args.contains("O_CREAT");
        for q in quoted {
            let p = PathBuf::from(&q);
            let path = if p.is_absolute() { p } else { cwd.join(p) };
            out.push(Access {
                call: call.to_string(),
                path,
                writes,
            });
        }
    }
    out
}

/// `/proc/<pid>/x` and `/proc/thread-self/x` as `/proc/self/x`.
fn proc_self(p: &Path) -> PathBuf {
    let mut c: Vec<String> = p
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if c.len() > 2
        && c[1] == "proc"
        && (c[2].chars().all(|d| d.is_ascii_digit()) || c[2] == "thread-self")
    {
        c[2] = "self".into();
    }
    c.iter().collect()
}

/// Why an access breaks the policy, if it does.
fn forbidden(a: &Access, root: &Path, case: &Path) -> Option<String> {
    let (inside, out) = (case.join("in"), case.join("out"));
    let lex = lexical(&a.path);
    let real = std::fs::canonicalize(&a.path).unwrap_or_else(|_| lex.clone());
    for p in [&lex, &real] {
        let system = proc_self(p);
        if SYSTEM_FILES.iter().any(|s| Path::new(s) == system) {
            return Some(format!("{} {}", a.call, p.display()));
        }
        if p.starts_with(root) {
            let allowed = if a.writes {
                p.starts_with(&out)
            } else {
                p.starts_with(&inside) || p.starts_with(&out)
            };
            if !allowed {
                return Some(format!("{} {}", a.call, p.display()));
            }
        }
    }
    if !a.writes
        && a.call.starts_with("open")
        && std::fs::metadata(&real).is_ok_and(|m| !m.is_file() && !m.is_dir())
        && real.starts_with(root)
    {
        return Some(format!("{} a special file {}", a.call, real.display()));
    }
    None
}

struct Run {
    code: Option<i32>,
    stderr: String,
    peak_kib: Option<u64>,
    trace: Option<String>,
}

/// `meshfmt --max-memory 64M ARGS` in `cwd`, under the data cap, timed and traced.
fn run(args: &[String], cwd: &Path, input_len: u64, traced: bool) -> Run {
    let tmp = std::env::temp_dir();
    let id = format!("{}-{}", std::process::id(), rand_id());
    let report = tmp.join(format!("meshfmt-confine-time-{id}"));
    let errors = tmp.join(format!("meshfmt-confine-err-{id}"));
    let log = tmp.join(format!("meshfmt-confine-trace-{id}"));
    let mut chain: Vec<std::ffi::OsString> = Vec::new();
    if let Some(time) = tool("time") {
        chain.extend([
            time.into(),
            "-f".into(),
            "%M".into(),
            "-o".into(),
            report.clone().into(),
        ]);
    }
    if let Some(prlimit) = tool("prlimit") {
        chain.push(prlimit.into());
        chain.push(format!("--data={}", memory_bound(input_len) + (64 << 20)).into());
    }
    if traced {
        if let Some(strace) = tool("strace") {
            chain.extend([
                strace.into(),
                "-f".into(),
                "-qq".into(),
                "-s".into(),
                "4096".into(),
                "-o".into(),
                log.clone().into(),
                "-e".into(),
                "trace=open,openat,openat2,creat,link,linkat,rename,renameat,renameat2,symlink,symlinkat,truncate,mknod,mknodat".into(),
                "--".into(),
            ]);
        }
    }
    chain.push(exe().into());
    let mut cmd = Command::new(&chain[0]);
    cmd.args(&chain[1..])
        .args(["--max-memory", "64M"])
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&errors).unwrap());
    let code = test_support::run_with_deadline(cmd, DEADLINE);
    let stderr = std::fs::read_to_string(&errors).unwrap_or_default();
    let peak_kib = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| t.lines().last().and_then(|l| l.trim().parse().ok()));
    let trace = std::fs::read_to_string(&log).ok();
    for f in [&report, &errors, &log] {
        let _ = std::fs::remove_file(f);
    }
    Run {
        code,
        stderr,
        peak_kib,
        trace,
    }
}

fn rand_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// The promises a run broke, by kind.
#[derive(Default)]
struct Broken(BTreeMap<&'static str, Vec<String>>);

impl Broken {
    fn add(&mut self, kind: &'static str, what: String) {
        self.0.entry(kind).or_default().push(what);
    }
}

/// Checks stderr: every line one printable `meshfmt: ` line of bounded length, no canary.
fn check_messages(r: &Run, what: &str, broken: &mut Broken) {
    if contains(r.stderr.as_bytes(), CANARY) {
        broken.add("content", format!("{what}: canary bytes in a message"));
    }
    for line in r.stderr.split('\n').filter(|l| !l.is_empty()) {
        let printable = !line.chars().any(meshfmt_core::text::is_unprintable);
        if !line.starts_with("meshfmt: ") || !printable || line.chars().count() > 1200 {
            broken.add(
                "message",
                format!(
                    "{what}: {}",
                    line.escape_debug()
                        .to_string()
                        .chars()
                        .take(200)
                        .collect::<String>()
                ),
            );
        }
        if line.contains("panicked") {
            broken.add("panic", format!("{what}: {line}"));
        }
    }
}

/// Checks the outputs a run left: canary bytes, control bytes in text files.
fn check_outputs(case: &Path, what: &str, broken: &mut Broken, planted: &[PathBuf]) {
    for f in files_under(&case.join("out")) {
        if planted.contains(&f) {
            continue;
        }
        let bytes = std::fs::read(&f).unwrap_or_default();
        if contains(&bytes, CANARY) {
            broken.add(
                "content",
                format!("{what}: canary bytes in {}", f.display()),
            );
        }
        let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
        if matches!(ext, "obj" | "mtl" | "a3d")
            && bytes
                .iter()
                .any(|&b| (b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t')) || b == 0x7f)
        {
            broken.add("text", format!("{what}: a control byte in {}", f.display()));
        }
        // A float printed as NaN or inf in a text format no reader takes.
        if matches!(ext, "obj" | "mtl" | "a3d")
            && String::from_utf8_lossy(&bytes)
                .split_ascii_whitespace()
                .any(|t| matches!(t, "NaN" | "inf" | "-inf"))
        {
            broken.add(
                "non-finite",
                format!("{what}: NaN or inf in {}", f.display()),
            );
        }
    }
}

/// Runs one case; gives the broken promises and how many runs it took.
fn attack(root: &Path, a: &Attack, traced: bool, gltf_out: Option<&Path>) -> (Broken, usize) {
    let case = root.join(&a.name);
    build(&case, a);
    let input = a.input.clone();
    let input_len = std::fs::metadata(case.join(&input)).map_or(0, |m| m.len());
    let planted: Vec<PathBuf> = files_under(&case.join("out"));
    let planted_bytes: Vec<Vec<u8>> = planted.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let mut broken = Broken::default();
    let mut commands: Vec<(String, Vec<String>, Option<PathBuf>)> = vec![
        ("info".into(), vec!["info".into(), input.clone()], None),
        (
            "info --json".into(),
            vec!["info".into(), "--json".into(), input.clone()],
            None,
        ),
        (
            "validate".into(),
            vec!["validate".into(), input.clone()],
            None,
        ),
    ];
    let outputs: &[(&str, Option<&str>)] = if !a.outputs.is_empty() {
        &a.outputs
    } else if a.name.contains('-') && REFERENCE_KINDS.iter().any(|k| a.name.starts_with(k)) {
        REFERENCE_OUTPUTS
    } else {
        ALL_OUTPUTS
    };
    for (i, (ext, to)) in outputs.iter().enumerate() {
        let out = format!("out/model-out{i}.{ext}");
        let mut c = vec!["convert".to_string(), input.clone(), out.clone()];
        if let Some(to) = to {
            c.extend(["--to".into(), (*to).into()]);
        }
        for arg in &a.convert_args {
            c.push(arg.replace("{case}", &case.to_string_lossy()));
        }
        commands.push((
            format!(
                "convert {ext}{}",
                to.map_or(String::new(), |t| format!(" --to {t}"))
            ),
            c,
            Some(case.join(&out)),
        ));
    }
    let mut read_inside = false;
    for (label, args, out) in &commands {
        let what = format!("{} {label}", a.name);
        let r = run(args, &case, input_len, traced);
        match r.code {
            None => broken.add("hang", format!("{what}: still running after {DEADLINE:?}")),
            Some(101) => broken.add("panic", format!("{what}: exit code 101")),
            Some(c) if c > 3 => broken.add("panic", format!("{what}: exit code {c}")),
            _ => {}
        }
        if let Some(kib) = r.peak_kib {
            if kib * 1024 > memory_bound(input_len) {
                broken.add("memory", format!("{what}: peak {} MiB", kib >> 10));
            }
        }
        check_messages(&r, &what, &mut broken);
        if let Some(trace) = &r.trace {
            for acc in accesses(trace, &case) {
                if let Some(why) = forbidden(&acc, root, &case) {
                    broken.add("opened", format!("{what}: {why}"));
                }
            }
        }
        check_outputs(&case, &what, &mut broken, &planted);
        if a.convert_fails && label.starts_with("convert") {
            if r.code == Some(0) {
                broken.add("output", format!("{what}: succeeded over a planted output"));
            }
            let now = files_under(&case.join("out"));
            if now != planted {
                broken.add("output", format!("{what}: wrote {:?}", now));
            }
        }
        if let Some(out) = out {
            for f in files_under(&case.join("out")) {
                if !planted.contains(&f) && contains(&std::fs::read(&f).unwrap_or_default(), INSIDE)
                {
                    read_inside = true;
                }
            }
            if let (Some(dest), Some("glb" | "gltf")) =
                (gltf_out, out.extension().and_then(|e| e.to_str()))
            {
                if out.exists() {
                    let d = dest.join(&a.name);
                    std::fs::create_dir_all(&d).unwrap();
                    for f in files_under(&case.join("out")) {
                        if !planted.contains(&f) {
                            std::fs::copy(&f, d.join(f.file_name().unwrap())).unwrap();
                        }
                    }
                }
            }
        }
        // Each conversion starts from the planted outputs alone.
        for f in files_under(&case.join("out")) {
            if !planted.contains(&f) {
                std::fs::remove_file(&f).unwrap();
            }
        }
    }
    if !a.must_read.is_empty() && !read_inside {
        broken.add(
            "control",
            format!("{}: a side file it may read was not in any output", a.name),
        );
    }
    for (p, before) in planted.iter().zip(&planted_bytes) {
        if std::fs::read(p).ok().as_ref() != Some(before) {
            broken.add("output", format!("{}: {} changed", a.name, p.display()));
        }
    }
    for (rel, bytes) in &a.files {
        let p = case.join(rel);
        if !rel.starts_with("out/") && std::fs::read(&p).ok().as_ref() != Some(bytes) {
            broken.add("output", format!("{}: {} changed", a.name, p.display()));
        }
    }
    (broken, commands.len())
}

/// The reference cases (one per hostile name and kind of reference).
const REFERENCE_KINDS: &[&str] = &[
    "gltf-buffer",
    "gltf-image",
    "obj-mtllib",
    "mtl-map",
    "m3d-texture",
    "a3d-texture",
];

#[test]
fn no_attack_reaches_outside_what_the_user_named() {
    let traced = tool("strace").is_some();
    if !traced {
        assert!(
            !flag("MESHFMT_REQUIRE_STRACE"),
            "strace is needed (MESHFMT_REQUIRE_STRACE is set)"
        );
        eprintln!("notice: strace not found: the open checks are skipped");
    }
    let root = std::fs::canonicalize(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
        .join("confinement");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    for (rel, bytes) in root_files() {
        std::fs::write(root.join(rel), bytes).unwrap();
    }
    let gltf_out = std::env::var_os("MESHFMT_ATTACK_GLTF_OUT").map(PathBuf::from);
    let mut totals: BTreeMap<&'static str, usize> = BTreeMap::new();
    let (mut runs, mut failing_cases, mut failures) = (0, 0, Vec::new());
    println!("{:<28} {:>5}  broken promises", "case", "runs");
    let attacks = corpus(&root);
    for a in &attacks {
        let (broken, n) = attack(&root, a, traced, gltf_out.as_deref());
        runs += n;
        let kinds: Vec<String> = broken
            .0
            .iter()
            .map(|(k, v)| format!("{k} {}", v.len()))
            .collect();
        println!(
            "{:<28} {:>5}  {}",
            a.name,
            n,
            if kinds.is_empty() {
                "-".into()
            } else {
                kinds.join(", ")
            }
        );
        if !broken.0.is_empty() {
            failing_cases += 1;
        }
        for (k, v) in broken.0 {
            *totals.entry(k).or_default() += v.len();
            failures.extend(v.into_iter().take(3));
        }
    }
    println!(
        "{} cases, {runs} runs: {failing_cases} cases broke a promise; by kind: {totals:?}",
        attacks.len()
    );
    if !flag("MESHFMT_ATTACK_REPORT_ONLY") {
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

/// The same cases in-process, through the library: every path the side-file loader
/// opened (it records them) is inside the input's folder, the positive controls open
/// what they may, and nothing panics. Needs no strace, so it runs everywhere.
#[test]
fn the_loader_opens_nothing_outside_the_input_folder() {
    use meshfmt_core::format::Context;
    use meshfmt_core::side_files::SideFolder;
    let root = std::fs::canonicalize(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
        .join("confinement-lib");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    for (rel, bytes) in root_files() {
        std::fs::write(root.join(rel), bytes).unwrap();
    }
    let (mut opened, mut refused, mut failures) = (0, 0, Vec::new());
    for a in corpus(&root) {
        let case = root.join(&a.name);
        build(&case, &a);
        let input = case.join(&a.input);
        let inside = std::fs::canonicalize(case.join("in")).unwrap();
        let data = std::fs::read(&input).unwrap();
        let name = input.to_string_lossy().into_owned();
        let budget = meshfmt_core::Budget::new(meshfmt_core::Limits {
            max_alloc_bytes: MAX_MEMORY,
            ..meshfmt_core::Limits::DEFAULT
        });
        let side = SideFolder::beside(&input, &budget);
        let cx = Context {
            side_files: Some(&side),
            ..Context::new(&name).with_budget(budget.clone())
        };
        if let Ok(f) = meshfmt::formats::detect(&data, &name) {
            let _ = f.read(&data, &cx).and_then(|file| {
                let _ = file.summary(&cx);
                file.to_core(&cx)
            });
        }
        for p in side.opened() {
            if !p.starts_with(&inside) {
                failures.push(format!("{}: opened {}", a.name, p.display()));
            }
        }
        for want in &a.must_read {
            let want = std::fs::canonicalize(case.join(want)).unwrap();
            if !side.opened().contains(&want) {
                failures.push(format!("{}: did not open {}", a.name, want.display()));
            }
        }
        opened += side.opened().len();
        refused += side.refusals().len();
    }
    println!("the loader opened {opened} files (all inside) and refused {refused} names");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The corpus asks for refusals: a loader that refused nothing was not attacked.
    assert!(refused >= 80, "only {refused} refusals");
}

/// `meshfmt ARGS` in `cwd` without the trace: (exit code, stderr).
fn plain(args: &[&str], cwd: &Path) -> (Option<i32>, String) {
    let args: Vec<String> = args.iter().map(|a| (*a).to_string()).collect();
    let r = run(&args, cwd, 0, false);
    (r.code, r.stderr)
}

/// A fresh folder for one of the tests below.
fn scratch(name: &str) -> PathBuf {
    let d = std::fs::canonicalize(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `convert --out-dir out --to obj a/x.obj b/x.obj c/x-2.obj` printed "converted 3 of 3"
/// and left two files: now three, none over another.
#[test]
fn batch_outputs_never_collide() {
    let d = scratch("confinement-batch");
    let tri = |z: u8| format!("v 0 0 {z}\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    for (dir, file, z) in [
        ("a", "x.obj", 1),
        ("b", "x.obj", 2),
        ("c", "x-2.obj", 3),
        ("d", "X.obj", 4),
    ] {
        std::fs::create_dir_all(d.join(dir)).unwrap();
        std::fs::write(d.join(dir).join(file), tri(z)).unwrap();
    }
    let (code, stderr) = plain(
        &[
            "convert",
            "--out-dir",
            "out",
            "--to",
            "obj",
            "a/x.obj",
            "b/x.obj",
            "c/x-2.obj",
            "d/X.obj",
        ],
        &d,
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("converted 4 of 4"), "{stderr}");
    let mut out: Vec<(String, String)> = files_under(&d.join("out"))
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            let z = text
                .lines()
                .find(|l| l.starts_with("v "))
                .unwrap()
                .to_string();
            (p.file_name().unwrap().to_string_lossy().into_owned(), z)
        })
        .collect();
    out.sort();
    // Each input in a file of its own: x, x-3 (x-2 is c's own name), x-2, X-4 (x
    // ignoring case is taken).
    let names: Vec<&str> = out.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["X-4.obj", "x-2.obj", "x-3.obj", "x.obj"]);
    let zs: std::collections::BTreeSet<&str> = out.iter().map(|(_, z)| z.as_str()).collect();
    assert_eq!(
        zs.len(),
        4,
        "every input's content is in one output: {out:?}"
    );
}

/// `--anims-dir` with a link planted where a clip goes: refused without `--force` (the
/// case `anims-dir-planted` of the corpus); with it, the link itself is replaced by the
/// clip file and the file it pointed at is left alone.
#[test]
fn force_replaces_a_planted_link_not_its_target() {
    let root = scratch("confinement-force");
    let a = corpus(&root)
        .into_iter()
        .find(|a| a.name == "anims-dir-planted")
        .unwrap();
    let case = root.join(&a.name);
    build(&case, &a);
    let target = case.join("secret.anim");
    let before = std::fs::read(&target).unwrap();
    let anims = case.join("out/anims");
    let args = [
        "convert",
        "in/model.glb",
        "out/model.mesh",
        "--to",
        "unigine-mesh",
        "--anims-dir",
    ];
    let mut refused: Vec<&str> = args.to_vec();
    refused.push(anims.to_str().unwrap());
    let (code, stderr) = plain(&refused, &case);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains("already exists (--force replaces it)"),
        "{stderr}"
    );
    assert!(
        !case.join("out/model.mesh").exists(),
        "nothing written when refused"
    );
    let mut forced = refused.clone();
    forced.push("--force");
    let (code, stderr) = plain(&forced, &case);
    assert_eq!(code, Some(0), "{stderr}");
    let victim = std::fs::symlink_metadata(anims.join("victim.anim")).unwrap();
    assert!(victim.is_file(), "the link is replaced by the clip file");
    assert_eq!(
        std::fs::read(&target).unwrap(),
        before,
        "the link's target is untouched"
    );
    assert_ne!(
        std::fs::read(anims.join("existing.anim")).unwrap(),
        INSIDE,
        "replaced"
    );
}

/// Refusals say nothing about what is outside: a link to a file that exists and one to a
/// file that does not get the same message, as do `../` names to both.
#[test]
fn messages_say_nothing_about_what_is_outside() {
    let root = scratch("confinement-messages");
    let by_name = |n: &str| corpus(&root).into_iter().find(|a| a.name == n).unwrap();
    let mut texts = Vec::new();
    for (case, uri) in [
        ("gltf-buffer-link", "link.bin"),
        ("gltf-buffer-dangling", "dangling.bin"),
    ] {
        let a = by_name(case);
        let dir = root.join(case);
        build(&dir, &a);
        let (code, stderr) = plain(&["info", "in/model.gltf"], &dir);
        assert_eq!(code, Some(1), "{stderr}");
        texts.push(stderr.replace(uri, "NAME"));
    }
    assert_eq!(texts[0], texts[1]);
    assert!(
        texts[0].contains("refused: a link that does not lead to a file inside"),
        "{}",
        texts[0]
    );
    // A parent-folder name to an existing and to a missing file.
    let a = by_name("gltf-buffer-parent");
    let dir = root.join("parent");
    build(&dir, &a);
    let mut texts = Vec::new();
    for uri in ["../secret.bin", "../missing.bin"] {
        let doc = String::from_utf8(std::fs::read(dir.join("in/model.gltf")).unwrap())
            .unwrap()
            .replace("../secret.bin", uri);
        std::fs::write(dir.join("in/other.gltf"), doc).unwrap();
        let (_, stderr) = plain(&["info", "in/other.gltf"], &dir);
        texts.push(stderr.replace(uri, "NAME"));
    }
    assert_eq!(texts[0], texts[1]);
}
