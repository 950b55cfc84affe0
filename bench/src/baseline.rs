//! The cost of a change to the VM, measured against the binary of an
//! earlier commit in the same run: both `rankcheck` binaries search the
//! same programs with the same flags, round after round, alternating which
//! goes first, and the ratio is of medians (issue 13: looking ahead for
//! POS must leave random and PCTVB within 5% of their speed).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::workload::root;

/// A search whose speed is compared: its name and its `check` flags.
struct Search {
    name: &'static str,
    flags: &'static [&'static str],
}

const SEARCHES: [Search; 2] = [
    Search {
        name: "random",
        flags: &["--strategy", "random"],
    },
    Search {
        name: "pctvb d=3 v=1",
        flags: &["--depth", "3", "--vars", "1"],
    },
];

const PROGRAMS: [(&str, &str); 2] = [
    ("fig02-noassert", "bench/programs/fig02_noassert.rk"),
    ("locked-counter", "examples/locked_counter_ok.rk"),
];

/// One measurement.
pub struct Row {
    /// `baseline` or `current`.
    pub build: &'static str,
    pub program: &'static str,
    pub search: &'static str,
    pub round: u32,
    pub executions_per_s: f64,
}

/// Build `rankcheck` at `rev` in a worktree under `target/` (reused when
/// there) and return the binary.
pub fn build_baseline(rev: &str) -> Result<PathBuf> {
    let root = root();
    let tree = root.join("target/baseline").join(rev);
    if !tree.exists() {
        run(Command::new("git")
            .current_dir(&root)
            .args(["worktree", "add", "--detach"])
            .arg(&tree)
            .arg(rev))
        .with_context(|| format!("cannot check out {rev}"))?;
    }
    let target = root.join("target/baseline-target");
    run(Command::new("cargo")
        .args(["build", "--release", "--quiet", "--bin", "rankcheck"])
        .arg("--manifest-path")
        .arg(tree.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target))
    .with_context(|| format!("cannot build rankcheck at {rev}"))?;
    Ok(target.join("release/rankcheck"))
}

/// Build the current `rankcheck` and return the binary.
pub fn build_current() -> Result<PathBuf> {
    let root = root();
    run(Command::new("cargo").current_dir(&root).args([
        "build",
        "--release",
        "--quiet",
        "--bin",
        "rankcheck",
    ]))?;
    Ok(root.join("target/release/rankcheck"))
}

fn run(command: &mut Command) -> Result<()> {
    let status = command
        .status()
        .with_context(|| format!("cannot run {command:?}"))?;
    if !status.success() {
        bail!("{command:?} failed");
    }
    Ok(())
}

/// Executions per second `binary` reports for `search` on `program`.
fn measure(binary: &Path, search: &Search, program: &str, seconds: f64, seed: u32) -> Result<f64> {
    let output = Command::new(binary)
        .arg("check")
        .args(search.flags)
        .args(["--jobs", "1", "--format", "json", "--seed"])
        .arg(seed.to_string())
        .arg("--time")
        .arg(format!("{}s", seconds.ceil() as u64))
        .arg(root().join(program))
        .output()
        .with_context(|| format!("cannot run {}", binary.display()))?;
    if !output.status.success() {
        bail!(
            "{} failed on {program}: {}",
            binary.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let json: serde_json::Value = serde_json::from_slice(&output.stdout)
        .with_context(|| format!("{} printed no JSON", binary.display()))?;
    json["executions_per_s"]
        .as_f64()
        .context("no executions_per_s in the JSON")
}

/// Instructions `binary` executes for `runs` executions of `search` on
/// `program`, counted by valgrind's callgrind: unlike time, the count does
/// not move with the machine's load.
fn instructions(binary: &Path, search: &Search, program: &str, runs: u64) -> Result<u64> {
    let out = std::env::temp_dir().join(format!("rankcheck-callgrind-{}", std::process::id()));
    let output = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(binary)
        .arg("check")
        .args(search.flags)
        .args(["--jobs", "1", "--seed", "1", "--runs"])
        .arg(runs.to_string())
        .arg(root().join(program))
        .output()
        .context("cannot run valgrind")?;
    let _ = std::fs::remove_file(&out);
    let text = String::from_utf8_lossy(&output.stderr);
    let collected = text
        .lines()
        .find_map(|l| l.split("Collected :").nth(1))
        .with_context(|| format!("valgrind printed no count: {text}"))?;
    collected
        .trim()
        .parse()
        .with_context(|| format!("valgrind count `{collected}`"))
}

/// Instruction counts of both binaries per program and search, when
/// valgrind is installed: `(program, search, baseline, current)`.
pub fn count_instructions(
    baseline: &Path,
    current: &Path,
    runs: u64,
) -> Result<Vec<(&'static str, &'static str, u64, u64)>> {
    let mut rows = Vec::new();
    for (program, path) in PROGRAMS {
        for search in &SEARCHES {
            let before = instructions(baseline, search, path, runs)?;
            let now = instructions(current, search, path, runs)?;
            eprintln!("{program} {}: {before} -> {now} instructions", search.name);
            rows.push((program, search.name, before, now));
        }
    }
    Ok(rows)
}

/// Whether valgrind can be run.
pub fn have_valgrind() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Alternate the two binaries over every search and program.
pub fn compare(baseline: &Path, current: &Path, seconds: f64, rounds: u32) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for round in 1..=rounds {
        for (program, path) in PROGRAMS {
            for search in &SEARCHES {
                let mut order = [("baseline", baseline), ("current", current)];
                if round.is_multiple_of(2) {
                    order.reverse();
                }
                for (build, binary) in order {
                    let rate = measure(binary, search, path, seconds, round)?;
                    eprintln!(
                        "round {round} {program} {} {build}: {rate:.0}/s",
                        search.name
                    );
                    rows.push(Row {
                        build,
                        program,
                        search: search.name,
                        round,
                        executions_per_s: rate,
                    });
                }
            }
        }
    }
    Ok(rows)
}

/// The markdown section: median rates and their ratio per search, and
/// the instruction counts when measured.
pub fn section(rows: &[Row], counts: &[(&str, &str, u64, u64)], runs: u64, rev: &str) -> String {
    let mut md = format!(
        "\n## Against commit {rev}\n\n\
         Both `rankcheck` binaries run `check --jobs 1 --time` with the same flags and seeds, \
         alternating which goes first; medians over the rounds. The target is a ratio of at least 0.95.\n\n\
         | program | search | {rev} runs/s | current runs/s | ratio |\n| --- | --- | ---: | ---: | ---: |\n"
    );
    for (program, _) in PROGRAMS {
        for search in &SEARCHES {
            let rate = |build: &str| {
                super::throughput::median(
                    rows.iter()
                        .filter(|r| r.build == build && r.program == program)
                        .filter(|r| r.search == search.name)
                        .map(|r| r.executions_per_s),
                )
            };
            let (before, now) = (rate("baseline"), rate("current"));
            let _ = writeln!(
                md,
                "| {program} | {} | {before:.0} | {now:.0} | {:.3} |",
                search.name,
                now / before
            );
        }
    }
    if !counts.is_empty() {
        let _ = write!(
            md,
            "\nInstructions executed for {runs} executions (20 preparatory runs included), counted by \
             valgrind's callgrind: a measure machine load does not move.\n\n\
             | program | search | {rev} instructions | current instructions | ratio |\n| --- | --- | ---: | ---: | ---: |\n"
        );
        for (program, search, before, now) in counts {
            let _ = writeln!(
                md,
                "| {program} | {search} | {before} | {now} | {:.3} |",
                *now as f64 / *before as f64
            );
        }
    }
    md
}
