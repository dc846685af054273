//! The hostile corpus (fuzz-checks' generator) through the tool itself: `info`,
//! `validate` and `convert` to every output the tool writes, each under
//! `--max-memory 64M` and an operating-system cap on the process's data segment
//! (`prlimit --data`, when present). Every run must end with exit code 0 or 1, anything
//! on stderr must be `meshfmt: ` lines (a conversion's notes, then at most one error),
//! and nothing may run past the deadline. The table printed (with `--nocapture`) gives
//! each input's worst peak RSS over every command (`/usr/bin/time`, when present).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const MAX_MEMORY: u64 = 64 << 20;
const DEADLINE: Duration = Duration::from_secs(60);

const OUTPUTS: &[(&str, Option<&str>)] = fuzz_checks::TOOL_OUTPUTS;

fn tool(name: &str) -> Option<PathBuf> {
    ["/usr/bin", "/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.exists())
}

struct Run {
    code: Option<i32>,
    stderr: String,
    peak_kib: Option<u64>,
    elapsed: Duration,
}

/// `meshfmt ARGS` under the data cap, timed; `None` for the exit code when killed.
fn run(args: &[String], input_len: usize) -> Run {
    let exe = env!("CARGO_BIN_EXE_meshfmt");
    let report = std::env::temp_dir().join(format!("meshfmt-hostile-time-{}", std::process::id()));
    // stderr goes to a file: a conversion's notes can outgrow a pipe's buffer, and a
    // child blocked on a full pipe would look hung.
    let errors = std::env::temp_dir().join(format!("meshfmt-hostile-err-{}", std::process::id()));
    let mut cmd = match (tool("time"), tool("prlimit")) {
        (Some(time), Some(prlimit)) => {
            let mut c = Command::new(time);
            c.args(["-f", "%M", "-o"])
                .arg(&report)
                .arg(prlimit)
                .arg(format!(
                    "--data={}",
                    2 * MAX_MEMORY + (96 << 20) + 16 * input_len as u64
                ));
            c.arg(exe);
            c
        }
        _ => Command::new(exe),
    };
    cmd.args(["--max-memory", "64M"])
        .args(args)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&errors).unwrap());
    let started = Instant::now();
    let code = test_support::run_with_deadline(cmd, DEADLINE);
    let elapsed = started.elapsed();
    let stderr = std::fs::read_to_string(&errors).unwrap_or_default();
    std::fs::remove_file(&errors).ok();
    let peak_kib = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| t.lines().last().and_then(|l| l.trim().parse().ok()));
    std::fs::remove_file(&report).ok();
    Run {
        code,
        stderr,
        peak_kib,
        elapsed,
    }
}

#[test]
fn every_hostile_input_gets_a_value_or_one_line_through_the_tool() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile-cli");
    // Fresh each run: outputs beside an output (a .gltf's .bin) are never written over.
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    println!(
        "{:<24} {:>10} {:>14} {:>10}  outcome",
        "input", "bytes", "worst RSS", "slowest"
    );
    for h in fuzz_checks::hostile::corpus() {
        let input = dir.join(h.file_name());
        std::fs::write(&input, &h.bytes).unwrap();
        let input = input.to_str().unwrap().to_string();
        let mut commands: Vec<Vec<String>> = vec![
            vec!["info".into(), input.clone()],
            vec!["info".into(), "--json".into(), input.clone()],
            vec!["validate".into(), input.clone()],
        ];
        for (i, (ext, to)) in OUTPUTS.iter().enumerate() {
            let out = dir.join(format!("{}-out{i}.{ext}", h.name));
            let mut c = vec![
                "convert".into(),
                input.clone(),
                out.to_str().unwrap().into(),
            ];
            if let Some(to) = to {
                c.extend(["--to".into(), (*to).into()]);
            }
            commands.push(c);
        }
        let (mut worst_kib, mut slowest, mut errors) = (0u64, Duration::ZERO, 0usize);
        for args in &commands {
            let r = run(args, h.bytes.len());
            worst_kib = worst_kib.max(r.peak_kib.unwrap_or(0));
            slowest = slowest.max(r.elapsed);
            let what = format!("{} {}", h.name, args[0]);
            match r.code {
                None => failures.push(format!("{what}: still running after {DEADLINE:?}")),
                Some(0) => {}
                Some(1) => errors += 1,
                Some(c) => failures.push(format!("{what}: exit code {c}: {}", r.stderr)),
            }
            if r.code.is_none() {
                continue;
            }
            let lines: Vec<&str> = r.stderr.lines().collect();
            if lines.iter().any(|l| !l.starts_with("meshfmt: ")) {
                failures.push(format!("{what} {args:?}: stray stderr: {}", r.stderr));
            }
            // Notes (losses) and warnings (advice) come with a success.
            let error_lines = lines
                .iter()
                .filter(|l| {
                    !l.starts_with("meshfmt: note: ") && !l.starts_with("meshfmt: warning: ")
                })
                .count();
            if error_lines > usize::from(r.code == Some(1)) {
                failures.push(format!(
                    "{what} {args:?}: more than one error line: {}",
                    r.stderr
                ));
            }
        }
        println!(
            "{:<24} {:>10} {:>10} MiB {:>7} ms  {} of {} commands refused",
            h.name,
            h.bytes.len(),
            worst_kib >> 10,
            slowest.as_millis(),
            errors,
            commands.len()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
