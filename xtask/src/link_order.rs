//! `cargo xtask link-order`: the functions short runs of the tool execute, written to
//! `crates/meshfmt/link/hot.ld`, a linker script that puts them first, in one block
//! (crates/meshfmt/build.rs says why and when it is used).
//!
//! Training: every committed fixture is read (`info`, `validate`), converted to `.glb`,
//! and that `.glb` compressed (`--compress`, `--quality quantized`), [`ROUNDS`] rounds
//! under `perf record -g`, each kind of run profiled on its own ([`KINDS`]). A sample counts for the first user-space function of its
//! stack, so the kernel's time in a page fault counts for the function whose first touch
//! faulted. The delivery bench's inputs (the real samples) are left out on purpose: the
//! order must not be fitted to what the bench times.
//!
//! A line names a function without the hash rustc gives it (legacy `17h<hash>E`, v0
//! crate disambiguators), so it still matches after a dependency or toolchain change.
//! Where that pattern would also pull in many other instances of a generic function, the
//! line names the exact symbol instead.
//!
//! `--check` builds the tool in release and fails when a line places no function in the
//! block: the code moved on since the script was written.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

pub const USAGE: &str = "cargo xtask link-order [--check]";

/// The script, from the workspace root.
const SCRIPT: &str = "crates/meshfmt/link/hot.ld";
/// The output section the script adds before `.text`.
const SECTION: &str = ".text.hot";
/// Rounds of the training runs.
const ROUNDS: usize = 8;
/// Samples per second of CPU time.
const FREQUENCY: &str = "20000";
/// A function sampled fewer times is left where it was.
const MIN_SAMPLES: usize = 1;
/// Functions of the C runtime's start files, linked in their `.text`, `.init`, `.fini`.
const CRT: [&str; 3] = ["_start", "_init", "_fini"];
/// Where a pattern matches more than this times the sampled function's size, the line
/// names the exact symbol (a generic function's other instances are not hot).
const OVERMATCH: u64 = 2;

pub fn run(args: &[&str]) -> ExitCode {
    let result = match args {
        [] => generate(),
        ["--check"] => check(),
        _ => Err(format!("usage: {USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("link-order: {e}");
            ExitCode::FAILURE
        }
    }
}

fn root() -> PathBuf {
    test_support::workspace_root()
}

/// A command's standard output, or why it failed.
fn output(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("{:?}: {e}", cmd.get_program()))?;
    if !out.status.success() {
        return Err(format!("{:?} failed", cmd.get_program()));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("{:?}: {e}", cmd.get_program()))
}

/// A defined function of the binary.
struct Symbol {
    name: String,
    address: u64,
    size: u64,
}

/// The binary's defined functions (`nm -S --defined-only`).
fn functions(bin: &Path) -> Result<Vec<Symbol>, String> {
    let text = output(Command::new("nm").args(["-S", "--defined-only"]).arg(bin))?;
    Ok(text
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let [address, size, kind, name] = f.as_slice() else {
                return None;
            };
            if !"tTwWi".contains(*kind) {
                return None;
            }
            Some(Symbol {
                name: (*name).to_owned(),
                address: u64::from_str_radix(address, 16).ok()?,
                size: u64::from_str_radix(size, 16).ok()?,
            })
        })
        .collect())
}

/// The address range of the binary's section `name` (`readelf -SW`), if it has one.
fn section(bin: &Path, name: &str) -> Result<Option<std::ops::Range<u64>>, String> {
    let text = output(Command::new("readelf").arg("-SW").arg(bin))?;
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let Some(i) = f.iter().position(|t| *t == name) else {
            continue;
        };
        let hex = |k: usize| f.get(i + k).and_then(|t| u64::from_str_radix(t, 16).ok());
        if let (Some(address), Some(size)) = (hex(2), hex(4)) {
            return Ok(Some(address..address + size));
        }
    }
    Ok(None)
}

/// Whether `name` matches `pattern`, whose only wildcard is `*` (what the script uses).
fn glob(pattern: &str, name: &str) -> bool {
    let (p, n) = (pattern.as_bytes(), name.as_bytes());
    let (mut i, mut j) = (0, 0);
    // The last star's position in the pattern, and where its match began in the name.
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && p[i] == b'*' {
            star = Some((i, j));
            i += 1;
        } else if i < p.len() && p[i] == n[j] {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == b'*')
}

/// `name` without what rustc and LLVM derive from hashes: the legacy `17h<16 hex>E`
/// tail, v0 crate disambiguators (`Cs<base62>_`), and LTO's `.llvm.<n>` or `.<n>`
/// suffix, each replaced by `*`.
fn pattern(name: &str) -> String {
    let mut base = name;
    let mut tail = "";
    if let Some(i) = base.find(".llvm.") {
        base = &base[..i];
        tail = "*";
    } else if let Some((head, digits)) = base.rsplit_once('.') {
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            base = head;
            tail = "*";
        }
    }
    let mut out = String::with_capacity(base.len());
    if base.starts_with("_ZN") && base.len() > 20 && base.ends_with('E') {
        let (head, hash) = base.split_at(base.len() - 20);
        if hash.starts_with("17h") && hash[3..19].bytes().all(|b| b.is_ascii_hexdigit()) {
            out.push_str(head);
            out.push_str("17h*");
            return out;
        }
    }
    if base.starts_with("_R") {
        let mut rest = base;
        while let Some(i) = rest.find("Cs") {
            out.push_str(&rest[..i + 2]);
            rest = &rest[i + 2..];
            let end = rest
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(rest.len());
            if end > 0 && rest[end..].starts_with('_') {
                out.push('*');
                rest = &rest[end..];
            }
        }
        out.push_str(rest);
        if !out.ends_with('*') {
            out.push_str(tail);
        }
        return out;
    }
    format!("{base}{tail}")
}

/// Characters a pattern may hold unquoted in both linkers' script syntax.
fn plain(name: &str) -> bool {
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"_.$*".contains(&b))
}

/// The kinds of run trained, each profiled on its own; the block holds the functions
/// of the first kind, then those the second adds, and so on. `--compress` comes first:
/// delivery output is the run whose time we compare with a peer (BENCHMARKS.md).
const KINDS: [&str; 5] = ["compress", "quantized", "convert", "info", "validate"];

/// The fixtures the training reads: every committed file of a format the tool reads.
fn fixture_inputs() -> Vec<PathBuf> {
    let extensions: Vec<&str> = meshfmt::formats::FORMATS
        .iter()
        .flat_map(|f| f.info().extensions.iter().copied())
        .collect();
    test_support::files_under(&root().join("fixtures"), &extensions)
}

/// A path quoted for `sh`.
fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

/// The training's commands, by kind (the order of [`KINDS`]).
fn commands(bin: &Path, work: &Path) -> Result<[Vec<String>; KINDS.len()], String> {
    let inputs = fixture_inputs();
    let mut out: [Vec<String>; KINDS.len()] = Default::default();
    let b = quote(bin);
    for (i, input) in inputs.iter().enumerate() {
        let glb = work.join(format!("{i}.glb"));
        // Converted once, untimed: the compress runs read this .glb.
        let ok = Command::new(bin)
            .arg("convert")
            .arg(input)
            .arg(&glb)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        let inp = quote(input);
        out[3].push(format!("{b} info {inp}"));
        out[4].push(format!("{b} validate {inp}"));
        if ok {
            let g = quote(&glb);
            let c = quote(&work.join(format!("{i}.c.glb")));
            let q = quote(&work.join(format!("{i}.q.glb")));
            let again = quote(&work.join(format!("{i}.again.glb")));
            out[0].push(format!("{b} convert {g} {c} --compress"));
            out[1].push(format!("{b} convert {g} {q} --quality quantized"));
            out[2].push(format!("{b} convert {inp} {again}"));
        }
    }
    eprintln!(
        "link-order: {} fixtures; per round {} runs",
        inputs.len(),
        out.iter().map(Vec::len).sum::<usize>()
    );
    Ok(out)
}

/// Runs `commands` [`ROUNDS`] times under `perf record`: samples per function of `bin`.
fn profile(
    bin: &Path,
    work: &Path,
    name: &str,
    commands: &[String],
) -> Result<HashMap<String, usize>, String> {
    let mut script = format!("set +e\nfor round in $(seq {ROUNDS}); do\n");
    for c in commands {
        script.push_str(&format!("{c} >/dev/null 2>&1\n"));
    }
    script.push_str("done\n");
    let sh = work.join(format!("{name}.sh"));
    std::fs::write(&sh, script).map_err(|e| e.to_string())?;
    let data = work.join(format!("{name}.perf.data"));
    let status = Command::new("perf")
        .args([
            "record",
            "-q",
            "-g",
            "-e",
            "cpu-clock",
            "-F",
            FREQUENCY,
            "-o",
        ])
        .arg(&data)
        .arg("--")
        .arg("sh")
        .arg(&sh)
        .status()
        .map_err(|e| format!("perf (linux-perf): {e}"))?;
    if !status.success() {
        return Err("perf record failed".into());
    }
    let text = output(
        Command::new("perf")
            .args(["script", "--no-demangle", "-F", "ip,sym,dso", "-i"])
            .arg(&data),
    )?;
    let dso = format!(
        "({})",
        std::fs::canonicalize(bin)
            .map_err(|e| e.to_string())?
            .display()
    );
    // A sample is a block of frames, innermost first; it counts for the first frame
    // outside the kernel when that frame is in the tool.
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut seen_user = false;
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() {
            seen_user = false;
            continue;
        }
        if seen_user || line.contains("[kernel.kallsyms]") || f.len() < 3 {
            continue;
        }
        seen_user = true;
        if f[f.len() - 1] == dso && f[1] != "[unknown]" {
            *counts.entry(f[1].to_owned()).or_default() += 1;
        }
    }
    Ok(counts)
}

/// The sampled functions in link order: those of the first kind, then those the next
/// kind adds, and so on; within one group, those more kinds run first, then the hotter.
fn train(bin: &Path, work: &Path) -> Result<Vec<String>, String> {
    let commands = commands(bin, work)?;
    let mut kinds: HashMap<String, [usize; KINDS.len()]> = HashMap::new();
    for (k, (name, cmds)) in KINDS.iter().zip(&commands).enumerate() {
        for (sym, n) in profile(bin, work, name, cmds)? {
            kinds.entry(sym).or_default()[k] += n;
        }
    }
    let mut hot: Vec<(String, [usize; KINDS.len()])> = kinds
        .into_iter()
        .filter(|(_, n)| n.iter().sum::<usize>() >= MIN_SAMPLES)
        .collect();
    let key = |n: &[usize; KINDS.len()]| {
        let first = n.iter().position(|&c| c > 0).unwrap_or(KINDS.len());
        let spread = n.iter().filter(|&&c| c > 0).count();
        (
            first,
            std::cmp::Reverse(spread),
            std::cmp::Reverse(n.iter().sum::<usize>()),
        )
    };
    hot.sort_by(|a, b| key(&a.1).cmp(&key(&b.1)).then_with(|| a.0.cmp(&b.0)));
    Ok(hot.into_iter().map(|(s, _)| s).collect())
}

fn generate() -> Result<(), String> {
    let bin = crate::bench::release_tool()?;
    let work = root().join("target/link-order");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let hot = train(&bin, &work)?;
    let symbols = functions(&bin)?;
    let size_of: HashMap<&str, u64> = symbols.iter().map(|s| (s.name.as_str(), s.size)).collect();
    let mut lines: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let (mut exact, mut skipped, mut bytes) = (0, 0, 0);
    for name in &hot {
        // The C runtime's entry code, in sections no script can move.
        if CRT.contains(&name.as_str()) {
            skipped += 1;
            continue;
        }
        let Some(&size) = size_of.get(name.as_str()) else {
            skipped += 1;
            continue;
        };
        let p = pattern(name);
        let matched: u64 = symbols
            .iter()
            .filter(|s| glob(&p, &s.name))
            .map(|s| s.size)
            .sum();
        let line = if matched > OVERMATCH * size.max(64) {
            exact += 1;
            name.clone()
        } else {
            p
        };
        if !plain(&line) {
            skipped += 1;
            continue;
        }
        if seen.insert(line.clone()) {
            bytes += size;
            lines.push(line);
        }
    }
    let mut text = String::new();
    text.push_str(
        "/* Generated by `cargo xtask link-order`: do not edit. The functions short runs of\n   \
         meshfmt execute, linked before the rest of the code so that a run touches few\n   \
         pages of it (crates/meshfmt/build.rs). Trained on the fixtures; grouped by the\n   \
         first of --compress, --quality quantized, convert to .glb, info, validate that\n   \
         runs them. */\n",
    );
    text.push_str(&format!("SECTIONS\n{{\n  {SECTION} :\n  {{\n"));
    // LLVM puts a function it judges cold (called once, as `main` is) in
    // `.text.unlikely.<name>`.
    for l in &lines {
        text.push_str(&format!("    *(.text.{l} .text.unlikely.{l})\n"));
    }
    text.push_str("  }\n}\nINSERT BEFORE .text;\n");
    let path = root().join(SCRIPT);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!(
        "link-order: {} lines ({exact} exact symbols), {} kB of sampled functions, {skipped} sampled symbols left out; wrote {SCRIPT}",
        lines.len(),
        bytes / 1024
    );
    Ok(())
}

/// The script's patterns, in order.
fn read_patterns() -> Result<Vec<String>, String> {
    let path = root().join(SCRIPT);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("*(.text.")?;
            let end = rest.find([' ', ')'])?;
            Some(rest[..end].to_owned())
        })
        .collect())
}

fn check() -> Result<(), String> {
    let patterns = read_patterns()?;
    if patterns.is_empty() {
        return Err(format!("{SCRIPT} names no function"));
    }
    let bin = crate::bench::release_tool()?;
    let Some(block) = section(&bin, SECTION)? else {
        return Err(format!(
            "{} has no {SECTION} section: the build did not use {SCRIPT}",
            bin.display()
        ));
    };
    let symbols = functions(&bin)?;
    let mut problems = Vec::new();
    let mut placed: BTreeMap<u64, u64> = BTreeMap::new();
    for p in &patterns {
        if !plain(p) {
            problems.push(format!("{p}: a character outside [A-Za-z0-9_.$*]"));
            continue;
        }
        let matched: Vec<&Symbol> = symbols.iter().filter(|s| glob(p, &s.name)).collect();
        if matched.is_empty() {
            problems.push(format!("{p}: matches no function of the binary"));
        } else if !matched.iter().any(|s| block.contains(&s.address)) {
            problems.push(format!("{p}: its functions are not in {SECTION}"));
        }
        for s in matched.iter().filter(|s| block.contains(&s.address)) {
            placed.insert(s.address, s.size);
        }
    }
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("  {p}");
        }
        return Err(format!(
            "{} of {} lines of {SCRIPT} are stale: run `cargo xtask link-order`",
            problems.len(),
            patterns.len()
        ));
    }
    println!(
        "link-order: {} lines, {} functions in {SECTION} ({} kB)",
        patterns.len(),
        placed.len(),
        (block.end - block.start) / 1024
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches_stars_only() {
        assert!(glob("a*c", "abc"));
        assert!(glob("a*c", "ac"));
        assert!(glob("a*b*c", "axxbyyc"));
        assert!(!glob("a*b*c", "axxbyy"));
        assert!(glob("*", ""));
        assert!(!glob("abc", "abcd"));
        assert!(glob("_ZN3foo17h*", "_ZN3foo17h0123456789abcdefE"));
        // Backtracking past a partial match of the text after the star.
        assert!(glob("*ab", "aab"));
        assert!(!glob("*ab", "aba"));
    }

    #[test]
    fn patterns_drop_hashes() {
        assert_eq!(
            pattern("_ZN7meshfmt4main17h0123456789abcdefE"),
            "_ZN7meshfmt4main17h*"
        );
        assert_eq!(
            pattern("_ZN7meshfmt4main17h0123456789abcdefE.llvm.1234"),
            "_ZN7meshfmt4main17h*"
        );
        assert_eq!(
            pattern("_RNvNtCsgEmfK2I1SDS_4core3fmt5write"),
            "_RNvNtCs*_4core3fmt5write"
        );
        assert_eq!(
            pattern("_RNvXsZ_NtCslNYArtu3iFV_5alloc6stringNtB5_6String9write_str.694"),
            "_RNvXsZ_NtCs*_5alloc6stringNtB5_6String9write_str*"
        );
        // Not a hash: kept whole.
        assert_eq!(pattern("main"), "main");
        assert_eq!(pattern("_ZN3foo3barE"), "_ZN3foo3barE");
    }
}
