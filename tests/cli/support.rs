//! Running the real binary and reading what it says, for every test module.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn rankcheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rankcheck"))
        .args(args)
        .output()
        .expect("rankcheck runs")
}

pub fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// The `.rk` files of a directory, sorted.
pub fn programs(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .expect("test directory exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rk"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no programs in {dir}");
    files
}

/// The words after `// expect:` on a program's first line.
pub fn expectation(path: &Path) -> Vec<String> {
    let source = std::fs::read_to_string(path).expect("program readable");
    let first = source.lines().next().unwrap_or_default();
    let rest = first
        .strip_prefix("// expect:")
        .unwrap_or_else(|| panic!("{}: no expect header", path.display()));
    rest.split_whitespace().map(str::to_string).collect()
}

pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rankcheck-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The `(c, v, t)` of an example's header.
pub fn header_bounds(path: &Path) -> Option<(u32, u32, u32)> {
    let expect = expectation(path);
    let field = |name: &str| {
        expect
            .iter()
            .find_map(|w| w.strip_prefix(&format!("{name}=")))
            .and_then(|v| v.parse().ok())
    };
    Some((field("c")?, field("v")?, field("t")?))
}

/// Run `rankcheck classify` or `explore` with JSON output.
pub fn exhaustive(args: &[&str], program: &Path) -> (Option<i32>, Value) {
    let dir = temp_dir("exhaustive");
    let mut all: Vec<&str> = args.to_vec();
    let dir = dir.to_str().unwrap().to_string();
    all.extend([
        "--format",
        "json",
        "--replay-dir",
        &dir,
        program.to_str().unwrap(),
    ]);
    let out = rankcheck(&all);
    (out.status.code(), json(&out))
}

/// The programs with a bug and a classified header: the examples, then the
/// regression programs of `tests/bugs`.
pub fn buggy_programs() -> Vec<PathBuf> {
    let mut all = programs("examples");
    all.extend(programs("tests/bugs"));
    all
}

/// A `check` under `--strategy strategy` with `--runs`, `--seed` and
/// replay files in `replays`: its exit status and JSON report.
pub fn search_under(
    strategy: &str,
    runs: &str,
    seed: &str,
    replays: &Path,
    program: &Path,
) -> (Option<i32>, Value) {
    let out = rankcheck(&[
        "--strategy",
        strategy,
        "--runs",
        runs,
        "--seed",
        seed,
        "--format",
        "json",
        "--replay-dir",
        replays.to_str().unwrap(),
        program.to_str().unwrap(),
    ]);
    (out.status.code(), json(&out))
}
