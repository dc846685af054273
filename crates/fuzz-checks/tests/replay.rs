//! Replays every minimized fuzz finding under `fuzz/regressions/<target>/` and every
//! committed fixture through the fuzz checks, so a fixed crash stays fixed without
//! cargo-fuzz or a nightly toolchain.

use std::path::Path;

fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn regressions_replay() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    let mut n = 0;
    for (target, _) in fuzz_checks::TARGETS {
        for path in files(&root.join(target)) {
            let Ok(data) = std::fs::read(&path) else {
                continue;
            };
            fuzz_checks::run_target(target, &data);
            n += 1;
        }
    }
    println!("replayed {n} fuzz regressions");
}

#[test]
fn fixtures_pass_the_fuzz_checks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut n = 0;
    for path in test_support::files_under(&root, &[]) {
        if path.extension().is_some_and(|e| e == "txt" || e == "md") {
            continue;
        }
        let Ok(data) = std::fs::read(&path) else {
            continue;
        };
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        let Ok(f) = meshfmt::formats::detect(&data, &format!("x.{ext}")) else {
            continue;
        };
        fuzz_checks::check(f.info().name, &data);
        // The cross-format target: this fixture into every writer and back.
        fuzz_checks::check_convert(&data);
        n += 1;
    }
    assert!(n >= 20, "only {n} fixtures checked");
    println!("{n} fixtures pass the fuzz checks");
}
