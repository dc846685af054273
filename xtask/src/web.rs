//! `cargo xtask web [--serve] [--port N] [--no-build] [--test]`: the page.
//!
//! Builds `crates/meshfmt-web` for `wasm32-unknown-unknown` (the `web` profile), runs
//! wasm-bindgen (the CLI at the version Cargo.lock pins, installed with `cargo install`
//! when missing), installs three.js from npm (the package-lock's version) and writes the
//! site to `target/web/`: `index.html` at its root, the module in `pkg/`, three.js in
//! `vendor/` (its bare `three` imports made relative, so no import map and no CDN).
//!
//! `--serve` then serves `target/web/` on 127.0.0.1 (port 8000, `--port N`, 0: any).
//! `--test` serves it on a free port and runs the browser tests
//! (`crates/meshfmt-web/tests/browser.mjs`, playwright-core driving Debian's chromium)
//! against the native tool (`MESHFMT_BIN`, else a release build of it).
//!
//! Exit codes: 0 done; 1 failed; 3 the wasm target cannot be installed on this machine
//! (said loudly; `.ci/run` skips the page's step on it and on nothing else).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, ExitCode};

const TARGET: &str = "wasm32-unknown-unknown";
/// The page's budget for its module: 1 MB gzipped.
const MAX_WASM_GZIP: usize = 1_000_000;
/// Exit code: the wasm target cannot be installed.
const NO_TARGET: u8 = 3;

pub const USAGE: &str = "cargo xtask web [--serve] [--port N] [--no-build] [--test]";

struct Options {
    serve: bool,
    test: bool,
    build: bool,
    port: u16,
}

fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    root.canonicalize().unwrap_or(root)
}

pub fn run(args: &[&str]) -> ExitCode {
    let mut o = Options {
        serve: false,
        test: false,
        build: true,
        port: 8000,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match *a {
            "--serve" => o.serve = true,
            "--test" => o.test = true,
            "--no-build" => o.build = false,
            "--port" => match it.next().and_then(|p| p.parse().ok()) {
                Some(p) => o.port = p,
                None => return usage(),
            },
            _ => return usage(),
        }
    }
    let site = root().join("target/web");
    if o.build {
        match build(&site) {
            Ok(()) => {}
            Err(Failure::NoTarget(why)) => {
                eprintln!(
                    "\n!!! xtask web: SKIPPED: the {TARGET} target cannot be installed on this machine: {why}\n"
                );
                return ExitCode::from(NO_TARGET);
            }
            Err(Failure::Other(why)) => {
                eprintln!("xtask web: {why}");
                return ExitCode::FAILURE;
            }
        }
    }
    if o.test {
        return match test(&site) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("xtask web --test: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if o.serve {
        let listener = match TcpListener::bind(("127.0.0.1", o.port)) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("xtask web: 127.0.0.1:{}: {e}", o.port);
                return ExitCode::FAILURE;
            }
        };
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(o.port);
        println!("serving {} at http://127.0.0.1:{port}/", site.display());
        serve(&listener, &site);
    }
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    eprintln!("usage: {USAGE}");
    ExitCode::from(2)
}

enum Failure {
    NoTarget(String),
    Other(String),
}

impl From<String> for Failure {
    fn from(s: String) -> Self {
        Failure::Other(s)
    }
}

/// Runs `cmd`, failing with its name when it cannot start or fails.
fn run_cmd(cmd: &mut Command) -> Result<(), String> {
    let what = format!("{cmd:?}");
    let status = cmd.status().map_err(|e| format!("{what}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what}: {status}"))
    }
}

fn output_of(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn build(site: &Path) -> Result<(), Failure> {
    let root = root();
    ensure_target()?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run_cmd(Command::new(&cargo).current_dir(&root).args([
        "build",
        "--locked",
        "-p",
        "meshfmt-web",
        "--lib",
        "--target",
        TARGET,
        "--profile",
        "web",
    ]))?;
    let wasm = root
        .join("target")
        .join(TARGET)
        .join("web/meshfmt_web.wasm");
    let bindgen = wasm_bindgen(&cargo)?;
    if site.exists() {
        std::fs::remove_dir_all(site).map_err(|e| format!("{}: {e}", site.display()))?;
    }
    let pkg = site.join("pkg");
    run_cmd(
        Command::new(&bindgen)
            .args(["--target", "web", "--no-typescript", "--out-dir"])
            .arg(&pkg)
            .arg(&wasm),
    )?;
    let web = root.join("crates/meshfmt-web");
    npm_ci(&web)?;
    copy_site(&web, site).map_err(|e| format!("writing {}: {e}", site.display()))?;
    let module = std::fs::read(pkg.join("meshfmt_web_bg.wasm")).map_err(|e| e.to_string())?;
    let gz = gzip_size(&module);
    println!(
        "site in {}: meshfmt_web_bg.wasm {} bytes, {gz} gzipped (budget {MAX_WASM_GZIP})",
        site.display(),
        module.len()
    );
    if gz > MAX_WASM_GZIP {
        return Err(Failure::Other(format!(
            "the module is {gz} bytes gzipped, over the page's {MAX_WASM_GZIP}"
        )));
    }
    Ok(())
}

/// The wasm target, installed with rustup when missing.
fn ensure_target() -> Result<(), Failure> {
    let installed = output_of(Command::new("rustup").args(["target", "list", "--installed"]));
    if installed.is_some_and(|l| l.lines().any(|t| t.trim() == TARGET)) {
        return Ok(());
    }
    match Command::new("rustup")
        .args(["target", "add", TARGET])
        .status()
    {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(Failure::NoTarget(format!(
            "rustup target add {TARGET}: {s}"
        ))),
        Err(e) => Err(Failure::NoTarget(format!("rustup: {e}"))),
    }
}

/// The wasm-bindgen version Cargo.lock pins.
fn pinned_bindgen() -> Result<String, String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).map_err(|e| e.to_string())?;
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l == "name = \"wasm-bindgen\"" {
            if let Some(v) = lines.next().and_then(|v| v.strip_prefix("version = \"")) {
                return Ok(v.trim_end_matches('"').to_string());
            }
        }
    }
    Err("Cargo.lock pins no wasm-bindgen".into())
}

/// The wasm-bindgen CLI of the pinned version: `MESHFMT_WASM_BINDGEN`, else the one on
/// the PATH, else installed with `cargo install` (a few minutes, once).
fn wasm_bindgen(cargo: &str) -> Result<PathBuf, String> {
    let version = pinned_bindgen()?;
    let want = format!("wasm-bindgen {version}");
    let has =
        |p: &Path| output_of(Command::new(p).arg("--version")).is_some_and(|v| v.trim() == want);
    if let Some(p) = std::env::var_os("MESHFMT_WASM_BINDGEN").map(PathBuf::from) {
        return if has(&p) {
            Ok(p)
        } else {
            Err(format!(
                "MESHFMT_WASM_BINDGEN={} is not {want}",
                p.display()
            ))
        };
    }
    let on_path = PathBuf::from("wasm-bindgen");
    if has(&on_path) {
        return Ok(on_path);
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .ok_or("no CARGO_HOME or HOME")?;
    let installed = home.join("bin/wasm-bindgen");
    if has(&installed) {
        return Ok(installed);
    }
    println!("xtask web: installing {want} (cargo install wasm-bindgen-cli)");
    let exact = format!("={version}");
    let locked = Command::new(cargo)
        .args([
            "install",
            "--locked",
            "wasm-bindgen-cli",
            "--version",
            &exact,
        ])
        .status();
    if !locked.is_ok_and(|s| s.success()) {
        // Its lock file can name a release the registry has since withdrawn.
        println!("xtask web: --locked failed; installing with fresh dependency versions");
        run_cmd(Command::new(cargo).args(["install", "wasm-bindgen-cli", "--version", &exact]))?;
    }
    if has(&installed) {
        Ok(installed)
    } else {
        Err(format!(
            "{} is not {want} after installing",
            installed.display()
        ))
    }
}

/// three.js and playwright-core at the package-lock's versions.
fn npm_ci(web: &Path) -> Result<(), String> {
    let lock = std::fs::read_to_string(web.join("package-lock.json")).map_err(|e| e.to_string())?;
    let have = std::fs::read_to_string(web.join("node_modules/.package-lock.json")).ok();
    let same = have
        .as_deref()
        .is_some_and(|h| packages_of(h) == packages_of(&lock));
    if same {
        return Ok(());
    }
    run_cmd(
        Command::new("npm")
            .current_dir(web)
            .args(["ci", "--no-audit", "--no-fund"]),
    )
}

/// The `"node_modules/...": {"version": ...}` lines of a lock file.
fn packages_of(lock: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l.trim_start().starts_with("\"node_modules/") {
            out.push(l.trim().to_string());
            if let Some(v) = lines.next() {
                out.push(v.trim().to_string());
            }
        }
    }
    out
}

/// The three.js files the page imports (with what they import), from node_modules.
const THREE_FILES: &[&str] = &[
    "build/three.module.js",
    "build/three.core.js",
    "examples/jsm/loaders/GLTFLoader.js",
    "examples/jsm/controls/OrbitControls.js",
    "examples/jsm/utils/BufferGeometryUtils.js",
    "examples/jsm/utils/SkeletonUtils.js",
    "LICENSE",
];

fn copy_site(web: &Path, site: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(web.join("site"))? {
        let entry = entry?;
        std::fs::copy(entry.path(), site.join(entry.file_name()))?;
    }
    let three = web.join("node_modules/three");
    for f in THREE_FILES {
        let to = site.join("vendor/three").join(f);
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut text = std::fs::read_to_string(three.join(f))?;
        // `examples/jsm/<kind>/x.js` imports the bare `three`: made relative.
        if f.starts_with("examples/jsm/") {
            text = text.replace("from 'three';", "from '../../../build/three.module.js';");
        }
        std::fs::write(to, text)?;
    }
    Ok(())
}

/// The size of `data` gzipped at the best level (what a server sends).
fn gzip_size(data: &[u8]) -> usize {
    // A deflate stream plus gzip's 18 bytes of header and trailer.
    miniz_oxide::deflate::compress_to_vec(data, 10).len() + 18
}

/// Serves `site` to one connection at a time, each on its own thread.
fn serve(listener: &TcpListener, site: &Path) {
    for stream in listener.incoming().flatten() {
        let site = site.to_path_buf();
        std::thread::spawn(move || {
            let _ = answer(stream, &site);
        });
    }
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("json") => "application/json",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

/// One request: GET or HEAD of a file under `site` (`/` is `index.html`); nothing
/// outside it, whatever the path says.
fn answer(mut stream: TcpStream, site: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    // Headers are read and dropped.
    let mut h = String::new();
    while reader.read_line(&mut h)? > 2 {
        h.clear();
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let rel = Path::new(path.trim_start_matches('/'));
    let safe = rel.components().all(|c| matches!(c, Component::Normal(_)));
    let file = if rel.as_os_str().is_empty() {
        site.join("index.html")
    } else {
        site.join(rel)
    };
    let body = if safe && (method == "GET" || method == "HEAD") {
        std::fs::File::open(&file).and_then(|mut f| {
            let mut b = Vec::new();
            f.read_to_end(&mut b).map(|_| b)
        })
    } else {
        Err(std::io::Error::other("refused"))
    };
    match body {
        Ok(b) => {
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
                content_type(&file),
                b.len()
            )?;
            if method == "GET" {
                stream.write_all(&b)?;
            }
        }
        Err(_) => {
            stream.write_all(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            )?;
        }
    }
    stream.flush()
}

/// The browser tests: the site served on a free port, the native tool beside it.
fn test(site: &Path) -> Result<(), String> {
    let root = root();
    let listener = TcpListener::bind(("127.0.0.1", 0)).map_err(|e| e.to_string())?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let served = site.to_path_buf();
    std::thread::spawn(move || serve(&listener, &served));
    let bin = match std::env::var_os("MESHFMT_BIN") {
        // The tests run it from other folders.
        Some(b) => std::path::absolute(PathBuf::from(b)).map_err(|e| e.to_string())?,
        None => crate::bench::release_tool()?,
    };
    let work = root.join("target/web-test");
    let _ = std::fs::remove_dir_all(&work);
    let hostile = work.join("hostile");
    std::fs::create_dir_all(&hostile).map_err(|e| e.to_string())?;
    let corpus = fuzz_checks::hostile::corpus();
    for h in &corpus {
        std::fs::write(hostile.join(h.file_name()), &h.bytes).map_err(|e| e.to_string())?;
    }
    let web = root.join("crates/meshfmt-web");
    run_cmd(
        Command::new("node")
            .current_dir(&web)
            .arg("tests/browser.mjs")
            .env("MESHFMT_WEB_URL", format!("http://127.0.0.1:{port}/"))
            .env("MESHFMT_BIN", &bin)
            .env("MESHFMT_WEB_WORK", &work)
            .env("MESHFMT_HOSTILE_DIR", &hostile)
            .env("MESHFMT_ROOT", &root),
    )
}
