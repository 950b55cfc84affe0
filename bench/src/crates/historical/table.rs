//! `results/historical.csv` (a row per build, and per test run: the tool,
//! its mode, its seed) and `results/historical.md`, the table made from
//! it: per bug, the time to the first failure under loom, rankcheck's
//! model and rankcheck's search (median of its seeds), whether rankcheck's
//! replays reproduce, whether the fixed version passes; and the median
//! ratio rankcheck/loom over the bugs.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::crates::historical::bugs::{Bug, Bugs};
use crate::crates::outcome::Outcome;

/// How a row's test was run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A side's build (`tool`: loom or rankcheck-loom).
    Build,
    /// Real loom's `loom::model` (exhaustive DFS, the crate's bounds).
    Loom,
    /// rankcheck-loom's `loom::model` as it is: explore, else search.
    Model,
    /// rankcheck's randomized search (`RANKCHECK_LOOM_SEARCH=random`,
    /// `RANKCHECK_SEED`).
    Search,
}

impl Mode {
    pub const RUNS: [Mode; 3] = [Mode::Loom, Mode::Model, Mode::Search];

    /// The mode's word in the CSV.
    pub fn word(self) -> &'static str {
        match self {
            Mode::Build => "build",
            Mode::Loom => "loom-model",
            Mode::Model => "rankcheck-model",
            Mode::Search => "rankcheck-search",
        }
    }

    /// The column heading of the mode in the tables.
    fn heading(self) -> &'static str {
        match self {
            Mode::Build => "build",
            Mode::Loom => "loom `model`",
            Mode::Model => "rankcheck `model`",
            Mode::Search => "rankcheck search",
        }
    }
}

/// Which of a bug's two versions a row ran.
pub const BUGGY: &str = "buggy";
pub const FIXED: &str = "fixed";

/// A build row's outcomes.
pub const BUILT: &str = "built";
pub const BUILD_FAILURE: &str = "build-failure";

/// One row of `results/historical.csv`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Row {
    /// `name-buggy`.
    pub bug: String,
    /// `buggy` or `fixed`.
    pub side: String,
    /// The version run.
    pub version: String,
    /// `build`, `loom-model`, `rankcheck-model` or `rankcheck-search`.
    pub mode: String,
    /// For builds: `loom` or `rankcheck-loom`.
    pub tool: String,
    /// The search's seed (`RANKCHECK_SEED`), else empty.
    pub seed: String,
    /// Which run of a deterministic mode (1, 2, ...), else empty.
    #[serde(default)]
    pub repeat: String,
    /// The regression test (empty on a build row).
    pub test: String,
    /// `built`, `build-failure`, or the test's `Outcome` word.
    pub outcome: String,
    /// Wall seconds of the build or of the test to its end.
    pub seconds: String,
    /// The per-test timeout.
    pub timeout_s: u64,
    /// rankcheck's replay string of a failure.
    pub replay: String,
    /// Whether `RANKCHECK_REPLAY=<replay>` reran the same failure (`yes`,
    /// `no`; empty when there was nothing to replay).
    pub reproduces: String,
    /// The failure's head line (`error[...]: ...`) or first lines; a
    /// build failure's cause; a build's manifest change and overlay.
    pub detail: String,
    /// The commit of rankcheck measured.
    pub commit: String,
}

impl Row {
    /// Whether this is a test run of `mode` on `side`.
    fn is(&self, side: &str, mode: Mode) -> bool {
        self.side == side && self.mode == mode.word()
    }

    fn outcome(&self) -> Option<Outcome> {
        Outcome::from_word(&self.outcome)
    }

    /// Whether the run failed: a panic or an error exit, or an abort (loom
    /// aborts when the bug's panic is followed by one in a destructor).
    fn failed(&self) -> bool {
        matches!(self.outcome(), Some(Outcome::Fail | Outcome::Abort))
    }

    fn seconds(&self) -> Option<f64> {
        self.seconds.parse().ok()
    }
}

/// The rows of `path`, none if it does not exist yet.
pub fn read(path: &Path) -> Result<Vec<Row>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let mut reader = csv::Reader::from_path(path)?;
    let rows = reader.deserialize().collect::<Result<Vec<Row>, _>>()?;
    Ok(rows)
}

/// Write every row to `path`.
pub fn write(path: &Path, rows: &[Row]) -> Result<()> {
    let mut writer = csv::Writer::from_path(path)?;
    for row in rows {
        writer.serialize(row)?;
    }
    writer.flush()?;
    Ok(())
}

/// What one tool's runs of a bug's test came to.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Runs that failed (found the bug, on the buggy side).
    pub failed: usize,
    /// Runs in all.
    pub runs: usize,
    /// The median wall time to the end of a run, a run that did not fail
    /// counting as infinitely long on the buggy side; `None` when no run.
    pub median: Option<f64>,
    /// The median wall time of every run, failed or not.
    pub spent: Option<f64>,
    /// The outcome words met, in order, without repeats.
    pub outcomes: Vec<String>,
    /// The same mode fails on the fixed version too: its failures here
    /// say nothing of the bug, and count as a miss.
    pub also_fixed: bool,
}

impl Verdict {
    /// The verdict of `rows` (one tool's runs of one side).
    fn of(rows: &[&Row], buggy: bool) -> Verdict {
        let mut times: Vec<f64> = rows
            .iter()
            .map(|r| match r.seconds() {
                Some(s) if r.failed() || !buggy => s,
                _ => f64::INFINITY,
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let mut spent: Vec<f64> = rows.iter().filter_map(|r| r.seconds()).collect();
        spent.sort_by(f64::total_cmp);
        let mut outcomes: Vec<String> = Vec::new();
        for row in rows {
            if !outcomes.contains(&row.outcome) {
                outcomes.push(row.outcome.clone());
            }
        }
        Verdict {
            failed: rows.iter().filter(|r| r.failed()).count(),
            runs: rows.len(),
            median: median(&times),
            spent: median(&spent),
            outcomes,
            also_fixed: false,
        }
    }

    /// Whether every run found the bug.
    fn found(&self) -> bool {
        self.runs > 0 && self.failed == self.runs && !self.also_fixed
    }

    /// The finite time to the failure, when the median run found the bug.
    pub fn time_to_failure(&self) -> Option<f64> {
        self.median
            .filter(|m| m.is_finite())
            .filter(|_| !self.also_fixed)
    }
}

/// The median of sorted `values` (the mean of the middle two for an even
/// count).
pub fn median(sorted: &[f64]) -> Option<f64> {
    match sorted.len() {
        0 => None,
        n if n % 2 == 1 => Some(sorted[n / 2]),
        n => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// rankcheck's time over loom's for one bug: both found it, the ratio of
/// their times; only loom found it, infinite (rankcheck missed);
/// only rankcheck found it, 0 (loom missed); neither, or one did not
/// run, none.
pub fn ratio(rankcheck: &Verdict, loom: &Verdict) -> Option<f64> {
    if rankcheck.runs == 0 || loom.runs == 0 {
        return None;
    }
    match (rankcheck.time_to_failure(), loom.time_to_failure()) {
        (Some(r), Some(l)) => Some(r / l.max(0.001)),
        (None, Some(_)) => Some(f64::INFINITY),
        (Some(_), None) => Some(0.0),
        (None, None) => None,
    }
}

/// One bug's rows, sorted into verdicts.
struct BugRows<'a> {
    builds: Vec<&'a Row>,
    buggy: [Verdict; 3],
    fixed: [Verdict; 3],
    /// rankcheck's failing runs on the buggy side whose replay was run,
    /// and how many reproduced.
    replays: (usize, usize),
    /// The first rankcheck failure of the `model` mode, else the search's.
    report: Option<&'a Row>,
    loom_failure: Option<&'a Row>,
}

fn bug_rows<'a>(rows: &'a [Row], id: &str) -> Option<BugRows<'a>> {
    let mine: Vec<&Row> = rows.iter().filter(|r| r.bug == id).collect();
    if mine.is_empty() {
        return None;
    }
    let verdicts = |side: &str| {
        Mode::RUNS.map(|mode| {
            let runs: Vec<&Row> = mine.iter().copied().filter(|r| r.is(side, mode)).collect();
            Verdict::of(&runs, side == BUGGY)
        })
    };
    let replayed: Vec<&Row> = mine
        .iter()
        .copied()
        .filter(|r| r.side == BUGGY && !r.reproduces.is_empty())
        .collect();
    let failing = |mode: Mode| {
        mine.iter()
            .copied()
            .find(|r| r.is(BUGGY, mode) && r.failed())
    };
    let fixed = verdicts(FIXED);
    let mut buggy = verdicts(BUGGY);
    for (verdict, on_fixed) in buggy.iter_mut().zip(&fixed) {
        verdict.also_fixed = verdict.failed > 0 && on_fixed.failed > 0;
    }
    Some(BugRows {
        builds: mine
            .iter()
            .copied()
            .filter(|r| r.mode == Mode::Build.word())
            .collect(),
        buggy,
        fixed,
        replays: (
            replayed.len(),
            replayed.iter().filter(|r| r.reproduces == "yes").count(),
        ),
        report: failing(Mode::Model).or_else(|| failing(Mode::Search)),
        loom_failure: failing(Mode::Loom),
    })
}

/// A buggy-side cell (a failure is a panic, an error exit or an abort):
/// `**found** 0.31 s`, `**found** 5/5, median 2.10 s`, `found 3/5,
/// median 9.00 s (else pass)`, `pass (missed) 0.58 s`, a failure that the
/// fixed version shows too, or what did not run.
fn buggy_cell(verdict: &Verdict, builds: &[&Row], tool: &str) -> String {
    if verdict.runs == 0 {
        return not_run(builds, tool);
    }
    let several = verdict.runs > 1;
    let count = if several {
        format!(" {}/{}", verdict.failed, verdict.runs)
    } else {
        String::new()
    };
    let time = |t: Option<f64>| match t.filter(|t| t.is_finite()) {
        Some(t) if several => format!(", median {}", seconds(t)),
        Some(t) => format!(" {}", seconds(t)),
        None => String::new(),
    };
    if verdict.also_fixed {
        return format!(
            "fails{count}{}, **also on the fixed version** (a miss)",
            time(verdict.median)
        );
    }
    if verdict.failed == 0 {
        return format!(
            "{} (missed){}",
            verdict.outcomes.join("/"),
            time(verdict.spent)
        );
    }
    let found = if verdict.found() {
        "**found**"
    } else {
        "found"
    };
    let aborts = if verdict.outcomes.iter().any(|o| o == "abort") {
        " (abort)"
    } else {
        ""
    };
    let others: Vec<&str> = verdict
        .outcomes
        .iter()
        .map(String::as_str)
        .filter(|o| *o != "fail" && *o != "abort")
        .collect();
    let others = if others.is_empty() {
        String::new()
    } else {
        format!(" (else {})", others.join(", "))
    };
    format!("{found}{count}{}{aborts}{others}", time(verdict.median))
}

/// Why a mode has no runs: its side's build failed, or it was not run.
fn not_run(builds: &[&Row], tool: &str) -> String {
    let failed = builds
        .iter()
        .any(|b| b.tool == tool && b.outcome == BUILD_FAILURE);
    if failed {
        "build failure".to_string()
    } else {
        "not run".to_string()
    }
}

/// A fixed-side cell: `pass`, or the outcomes met.
fn fixed_cell(verdict: &Verdict) -> String {
    match verdict.outcomes.as_slice() {
        [] => "—".to_string(),
        [only] if only == "pass" => "pass".to_string(),
        many => format!("**{}**", many.join("/")),
    }
}

/// Seconds with the digits that mean something: milliseconds under a
/// second (the runs' resolution), whole seconds from ten.
fn seconds(s: f64) -> String {
    if s < 1.0 {
        format!("{s:.3} s")
    } else if s < 10.0 {
        format!("{s:.2} s")
    } else {
        format!("{s:.0} s")
    }
}

fn ratio_cell(ratio: Option<f64>) -> String {
    match ratio {
        None => "—".to_string(),
        Some(r) if r.is_infinite() => "∞ (missed)".to_string(),
        Some(0.0) => "0 (loom missed)".to_string(),
        Some(r) => format!("{r:.2}"),
    }
}

/// The tool a mode's runs build under.
fn tool_of(mode: Mode) -> &'static str {
    match mode {
        Mode::Loom => "loom",
        _ => "rankcheck-loom",
    }
}

/// `results/historical.md` from the bugs file and every row.
pub fn markdown(bugs: &Bugs, rows: &[Row], seeds: usize) -> String {
    let mut md =
        String::from("# Historical bugs: time to the first failure, loom against rankcheck\n\n");
    let commits: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r.commit.as_str()).collect();
    let timeouts: std::collections::BTreeSet<u64> = rows.iter().map(|r| r.timeout_s).collect();
    let _ = writeln!(
        md,
        "Regenerate: `cargo run --release -p rankcheck-bench -- historical` (`--bugs a,b` reruns some and \
         keeps the others' rows; `--report-only` rewrites this file from `historical.csv`; \
         `bench/crates/README.md`, \"Historical bugs\"). Each bug of `bench/crates/historical.toml` is a \
         published version before a fix and the first with it; the fix's regression test (a loom test) is laid \
         over the buggy version's published source (files under `bench/crates/historical/<crate>-<buggy>/`), \
         and both versions are built as published (real loom) and with `loom` renamed to `rankcheck-loom`. \
         The test runs alone, killed at the timeout: under real loom's `loom::model`; under rankcheck-loom's \
         `loom::model` as it is (explore, then a search for the report); and under rankcheck's randomized \
         search (`RANKCHECK_LOOM_SEARCH=random`) with seeds 1 to {seeds} (`RANKCHECK_SEED`). Every \
         rankcheck failure's replay string is rerun (`RANKCHECK_REPLAY=<string> <test binary> <test> \
         --exact`). Where a mode ran several times (the search once per seed; loom's and rankcheck's `model`, \
         which are deterministic, repeated up to 5 times while their runs take under 30 s in all), its cell \
         gives the runs that failed and their median time. A run finds the bug when it fails: a panic, an error exit, or an abort (loom aborts when the \
         bug's panic is followed by a second one in a destructor). Times are wall seconds of the test process \
         to its end. Raw rows: `historical.csv`. \
         Rows from rankcheck commit(s) {}; per-test timeout(s) {} s; machine: 2 shared cores.\n",
        join(commits.iter().map(|c| format!("`{c}`"))),
        join(timeouts.iter().map(u64::to_string)),
    );
    let (table, ratios) = summary_table(bugs, rows);
    let _ = writeln!(md, "## Summary\n");
    md.push_str(&summary_lines(bugs, rows, &ratios));
    md.push('\n');
    md.push_str(&table);
    for bug in &bugs.bugs {
        md.push_str(&bug_section(bug, rows));
    }
    md
}

/// A time to the failure this short is the process's start-up, mostly.
const QUICK: f64 = 0.05;

/// Each bug's ratio of rankcheck's model and search to loom.
type Ratios = Vec<(Option<f64>, Option<f64>)>;

fn summary_table(bugs: &Bugs, rows: &[Row]) -> (String, Ratios) {
    let mut table = String::new();
    let _ = writeln!(
        table,
        "| bug | fix | {} | {} | {} (median of seeds) | model / loom | search / loom | replay reproduces | fixed passes (loom / model / search) |",
        Mode::Loom.heading(),
        Mode::Model.heading(),
        Mode::Search.heading()
    );
    let _ = writeln!(
        table,
        "| --- | --- | --- | --- | --- | ---: | ---: | --- | --- |"
    );
    let mut ratios = Vec::new();
    for bug in &bugs.bugs {
        let Some(found) = bug_rows(rows, &bug.id()) else {
            let _ = writeln!(
                table,
                "| {} → {} | {} | not yet run | | | | | | |",
                bug.id(),
                bug.fixed,
                bug.reference
            );
            continue;
        };
        let [loom, model, search] = &found.buggy;
        let cells: Vec<String> = Mode::RUNS
            .iter()
            .zip(&found.buggy)
            .map(|(mode, v)| buggy_cell(v, &found.builds, tool_of(*mode)))
            .collect();
        let pair = (ratio(model, loom), ratio(search, loom));
        ratios.push(pair);
        let (replayed, reproduced) = found.replays;
        let replay = match (replayed, reproduced) {
            (0, _) => "—".to_string(),
            (n, r) if n == r => format!("yes ({r}/{n})"),
            (n, r) => format!("**no** ({r}/{n})"),
        };
        let fixed: Vec<String> = found.fixed.iter().map(fixed_cell).collect();
        let _ = writeln!(
            table,
            "| {} → {} | {} | {} | {} | {} | {} | {} | {replay} | {} |",
            bug.id(),
            bug.fixed,
            bug.reference,
            cells[0],
            cells[1],
            cells[2],
            ratio_cell(pair.0),
            ratio_cell(pair.1),
            fixed.join(" / ")
        );
    }
    table.push('\n');
    (table, ratios)
}

fn summary_lines(bugs: &Bugs, rows: &[Row], ratios: &Ratios) -> String {
    let mut out = String::new();
    let run: Vec<BugRows<'_>> = bugs
        .bugs
        .iter()
        .filter_map(|b| bug_rows(rows, &b.id()))
        .collect();
    let count = |f: &dyn Fn(&BugRows<'_>) -> bool| run.iter().filter(|b| f(b)).count();
    let _ = writeln!(
        out,
        "- Bugs: {} in `historical.toml`, {} run.",
        bugs.bugs.len(),
        run.len()
    );
    let _ = writeln!(
        out,
        "- Found (the run failed): loom {}, rankcheck `model` {}, rankcheck search in every seed {} (in some seed {}).",
        count(&|b| b.buggy[0].found()),
        count(&|b| b.buggy[1].found()),
        count(&|b| b.buggy[2].found()),
        count(&|b| b.buggy[2].failed > 0),
    );
    for (index, name) in [(0, "`model`"), (1, "search")] {
        let mut values: Vec<f64> = ratios
            .iter()
            .filter_map(|pair| if index == 0 { pair.0 } else { pair.1 })
            .collect();
        values.sort_by(f64::total_cmp);
        let median = median(&values).map_or("—".to_string(), |m| {
            if m.is_infinite() {
                "∞".to_string()
            } else {
                format!("{m:.2}")
            }
        });
        let _ = writeln!(
            out,
            "- Median ratio rankcheck {name} / loom over {} bugs: **{median}** (a ratio per bug: both found it, \
             rankcheck's time over loom's; only loom, ∞; only rankcheck, 0; neither, left out; a mode that \
             fails on the fixed version too has not found the bug).",
            values.len()
        );
    }
    let quick = run
        .iter()
        .filter(|b| {
            b.buggy
                .iter()
                .all(|v| v.time_to_failure().is_some_and(|t| t < QUICK))
        })
        .count();
    let _ = writeln!(
        out,
        "- Found by all three modes in under {} ms each (median): {quick} bugs. Their times are mostly the \
         test process's start and the harness's (a few ms), so ratios between them, from about 0.7 to 2, say \
         no more than that both tools fail at once.",
        QUICK * 1000.0
    );
    let _ = writeln!(
        out,
        "- Replays that reproduce: {} of {} rankcheck failures.",
        run.iter().map(|b| b.replays.1).sum::<usize>(),
        run.iter().map(|b| b.replays.0).sum::<usize>()
    );
    let _ = writeln!(
        out,
        "- Fixed version passes under every tool and mode: {} of {}.",
        count(&|b| b.fixed.iter().all(|v| v.runs > 0 && v.outcomes == ["pass"])),
        run.len()
    );
    out
}

/// A bug's section: what it is, its fix, its test and command, the
/// adaptation, the builds, loom's and rankcheck's failure, and the line
/// that replays rankcheck's.
fn bug_section(bug: &Bug, rows: &[Row]) -> String {
    let mut out = format!("\n## {} → {}\n\n{}\n\n", bug.id(), bug.fixed, bug.bug);
    let _ = writeln!(out, "- Fix: {}", bug.fix);
    let _ = writeln!(out, "- Regression test: `{}`", bug.test);
    let _ = writeln!(out, "- The crate's command: {}", bug.command);
    let _ = writeln!(out, "- Adaptation: {}", bug.adaptation);
    if let Some(notes) = &bug.notes {
        let _ = writeln!(out, "- Notes: {notes}");
    }
    let Some(found) = bug_rows(rows, &bug.id()) else {
        out.push_str("- Not yet run.\n");
        return out;
    };
    for build in &found.builds {
        let seconds = build
            .seconds()
            .map_or(String::new(), |s| format!(" in {s:.0} s"));
        let _ = writeln!(
            out,
            "- Build {} {} ({}): {}{seconds}; {}",
            bug.name, build.version, build.tool, build.outcome, build.detail
        );
    }
    if let Some(failure) = found.loom_failure {
        let _ = writeln!(out, "- loom's failure: {}", code(&failure.detail));
    }
    if let Some(report) = found.report {
        let _ = writeln!(
            out,
            "- rankcheck's report ({}{}): {}",
            report.mode,
            if report.seed.is_empty() {
                String::new()
            } else {
                format!(", seed {}", report.seed)
            },
            code(&report.detail)
        );
        if !report.replay.is_empty() {
            let env: String = bug.env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
            let _ = writeln!(
                out,
                "- Replay, in the rankcheck-loom copy of {}-{}: `{env}RUSTFLAGS=\"{}\" RANKCHECK_REPLAY=\"{}\" cargo test {} -- {} --exact` (reproduces: {})",
                bug.name,
                bug.buggy,
                bug.rustflags,
                report.replay,
                bug.args.join(" "),
                bug.test,
                report.reproduces
            );
        }
    }
    out
}

/// `text` as inline code, fenced with two backticks when it holds one.
fn code(text: &str) -> String {
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

fn join(words: impl Iterator<Item = String>) -> String {
    let words: Vec<String> = words.collect();
    if words.is_empty() {
        "—".to_string()
    } else {
        words.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(mode: Mode, side: &str, seed: &str, outcome: &str, seconds: f64) -> Row {
        Row {
            bug: "oneshot-0.1.10".into(),
            side: side.into(),
            version: if side == BUGGY { "0.1.10" } else { "0.1.11" }.into(),
            mode: mode.word().into(),
            seed: seed.into(),
            test: "poll_then_drop_receiver_during_send".into(),
            outcome: outcome.into(),
            seconds: format!("{seconds:.2}"),
            timeout_s: 300,
            detail: "error[panic]: unreachable".into(),
            commit: "abc1234".into(),
            ..Row::default()
        }
    }

    fn bugs() -> Bugs {
        Bugs::parse(
            r#"
[[bug]]
crate = "oneshot"
buggy = "0.1.10"
fixed = "0.1.11"
test = "poll_then_drop_receiver_during_send"
rustflags = "--cfg oneshot_loom"
args = ["--release", "--test", "loom"]
command = "cargo test"
reference = "CHANGELOG 0.1.11"
fix = "CHANGELOG 0.1.11; faern/oneshot"
bug = "Receiver::drop mishandles UNPARKING"
adaptation = "none"

[[bug]]
crate = "boxcar"
buggy = "0.2.12"
fixed = "0.2.13"
test = "iter_linearizability"
args = ["--test", "loom"]
command = "cargo test"
reference = "boxcar 0.2.13"
fix = "boxcar 0.2.13"
bug = "an iterator misses a pushed element"
adaptation = "none"
"#,
        )
        .unwrap()
    }

    #[test]
    fn medians_and_ratios_count_a_miss_as_infinitely_long() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[1.0, 2.0, 9.0]), Some(2.0));
        assert_eq!(median(&[1.0, 2.0, 4.0, 9.0]), Some(3.0));
        let a = run(Mode::Search, BUGGY, "1", "fail", 2.0);
        let b = run(Mode::Search, BUGGY, "2", "pass", 30.0);
        let c = run(Mode::Search, BUGGY, "3", "fail", 1.0);
        let search = Verdict::of(&[&a, &b, &c], true);
        assert_eq!((search.failed, search.runs), (2, 3));
        assert_eq!(search.median, Some(2.0));
        let loom = Verdict::of(&[&run(Mode::Loom, BUGGY, "", "fail", 4.0)], true);
        assert_eq!(ratio(&search, &loom), Some(0.5));
        let missed = Verdict::of(&[&b], true);
        assert_eq!(ratio(&missed, &loom), Some(f64::INFINITY));
        assert_eq!(ratio(&loom, &missed), Some(0.0));
        assert_eq!(ratio(&missed, &missed), None);
    }

    #[test]
    fn the_markdown_has_a_row_per_bug_and_the_median_ratio() {
        let mut rows = vec![
            run(Mode::Loom, BUGGY, "", "abort", 0.30),
            run(Mode::Model, BUGGY, "", "fail", 0.15),
            run(Mode::Loom, FIXED, "", "pass", 1.0),
            run(Mode::Model, FIXED, "", "pass", 1.0),
            run(Mode::Search, FIXED, "1", "pass", 1.0),
        ];
        for seed in 1..=3 {
            let mut row = run(
                Mode::Search,
                BUGGY,
                &seed.to_string(),
                "fail",
                0.1 * seed as f64,
            );
            row.replay = format!("rc4.seed{seed}");
            row.reproduces = "yes".into();
            rows.push(row);
        }
        rows[1].replay = "rc4.model".into();
        rows[1].reproduces = "yes".into();
        let md = markdown(&bugs(), &rows, 3);
        assert!(md.starts_with("# Historical bugs"), "{md}");
        assert!(md.contains("cargo run --release -p rankcheck-bench -- historical"));
        assert!(
            md.contains("| oneshot-0.1.10 → 0.1.11 | CHANGELOG 0.1.11 | **found** 0.300 s (abort) | **found** 0.150 s | **found** 3/3, median 0.200 s | 0.50 | 0.67 | yes (4/4) | pass / pass / pass |"),
            "{md}"
        );
        assert!(
            md.contains("| boxcar-0.2.12 → 0.2.13 | boxcar 0.2.13 | not yet run |"),
            "{md}"
        );
        assert!(
            md.contains("Median ratio rankcheck `model` / loom over 1 bugs: **0.50**"),
            "{md}"
        );
        assert!(
            md.contains("Median ratio rankcheck search / loom over 1 bugs: **0.67**"),
            "{md}"
        );
        assert!(md.contains("RANKCHECK_REPLAY=\"rc4.model\""), "{md}");
        assert!(
            md.contains("Fixed version passes under every tool and mode: 1 of 1."),
            "{md}"
        );
    }

    #[test]
    fn a_mode_that_fails_the_fixed_version_too_has_missed_the_bug() {
        let mut rows = Vec::new();
        for (mode, side, outcome) in [
            (Mode::Loom, BUGGY, "fail"),
            (Mode::Model, BUGGY, "fail"),
            (Mode::Loom, FIXED, "pass"),
            (Mode::Model, FIXED, "fail"),
        ] {
            rows.push(run(mode, side, "", outcome, 0.5));
        }
        let md = markdown(&bugs(), &rows, 3);
        assert!(
            md.contains(
                "| **found** 0.500 s | fails 0.500 s, **also on the fixed version** (a miss) | \
                 not run | ∞ (missed) | — |"
            ),
            "{md}"
        );
        assert!(
            md.contains("Found (the run failed): loom 1, rankcheck `model` 0,"),
            "{md}"
        );
        assert!(
            md.contains("Fixed version passes under every tool and mode: 0 of 1."),
            "{md}"
        );
    }

    #[test]
    fn rows_survive_the_csv() {
        let path = std::env::temp_dir().join(format!("historical-{}.csv", std::process::id()));
        let rows = vec![run(Mode::Loom, BUGGY, "", "fail", 0.3)];
        write(&path, &rows).unwrap();
        let back = read(&path).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].mode, "loom-model");
        assert_eq!(back[0].seconds, "0.30");
        std::fs::remove_file(&path).unwrap();
    }
}
