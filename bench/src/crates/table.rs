//! `results/crates.csv` (one row per crate, tool and test, and a build row
//! per crate and tool) and `results/crates.md`, the tables made from it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::crates::corpus::{Corpus, Entry, Facade};
use crate::crates::outcome::Outcome;
use crate::crates::Tool;

/// The `target` of a build row.
pub const BUILD: &str = "(build)";
/// A build row's outcomes.
pub const BUILT: &str = "built";
pub const BUILD_FAILURE: &str = "build-failure";

/// One row of `results/crates.csv`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    /// The crate's name.
    #[serde(rename = "crate")]
    pub name: String,
    /// Its pinned version.
    pub version: String,
    /// `loom` or `rankcheck-loom`.
    pub tool: String,
    /// `(build)`, `lib` or a test target's name.
    pub target: String,
    /// The test's full name (empty on a build row).
    pub test: String,
    /// `built`, `build-failure`, or a test's `Outcome` word.
    pub outcome: String,
    /// Wall seconds of the build or the test (empty when it did not run).
    pub seconds: String,
    /// The per-test timeout the row was measured under.
    pub timeout_s: u64,
    /// A failure's first lines, a build failure's cause.
    pub detail: String,
    /// What the bench changed in the crate's Cargo.toml (build rows).
    pub manifest: String,
    /// The commit of rankcheck measured.
    pub commit: String,
}

/// What every row of one command-line run shares.
pub struct RunFacts {
    /// The per-test timeout.
    pub timeout_s: u64,
    /// The commit measured.
    pub commit: String,
}

impl Row {
    /// A build row: `seconds` absent when the build never started.
    pub fn build(
        entry: &Entry,
        tool: Tool,
        seconds: Option<f64>,
        cause: String,
        manifest: &str,
        facts: RunFacts,
    ) -> Row {
        let outcome = if cause.is_empty() {
            BUILT
        } else {
            BUILD_FAILURE
        };
        Row {
            name: entry.name.clone(),
            version: entry.version.clone(),
            tool: tool.word().to_string(),
            target: BUILD.to_string(),
            test: String::new(),
            outcome: outcome.to_string(),
            seconds: seconds.map(|s| format!("{s:.1}")).unwrap_or_default(),
            timeout_s: facts.timeout_s,
            detail: cause,
            manifest: manifest.to_string(),
            commit: facts.commit,
        }
    }

    /// A test's row.
    #[allow(clippy::too_many_arguments)]
    pub fn test(
        entry: &Entry,
        tool: Tool,
        target: &str,
        test: &str,
        outcome: Outcome,
        seconds: Option<f64>,
        detail: String,
        facts: RunFacts,
    ) -> Row {
        Row {
            name: entry.name.clone(),
            version: entry.version.clone(),
            tool: tool.word().to_string(),
            target: target.to_string(),
            test: test.to_string(),
            outcome: outcome.word().to_string(),
            seconds: seconds.map(|s| format!("{s:.2}")).unwrap_or_default(),
            timeout_s: facts.timeout_s,
            detail,
            manifest: String::new(),
            commit: facts.commit,
        }
    }

    /// `name-version`.
    pub fn crate_id(&self) -> String {
        format!("{}-{}", self.name, self.version)
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

/// One test under both tools.
#[derive(Default)]
struct Pair<'a> {
    loom: Option<&'a Row>,
    rankcheck: Option<&'a Row>,
}

impl Pair<'_> {
    fn outcomes(&self) -> (Option<Outcome>, Option<Outcome>) {
        let outcome = |row: Option<&Row>| row.and_then(|r| Outcome::from_word(&r.outcome));
        (outcome(self.loom), outcome(self.rankcheck))
    }
}

/// One crate's rows, sorted out.
struct CrateRows<'a> {
    builds: BTreeMap<&'a str, &'a Row>,
    /// By (target, test), in the CSV's order.
    tests: Vec<((&'a str, &'a str), Pair<'a>)>,
}

fn crate_rows<'a>(rows: &'a [Row], id: &str) -> Option<CrateRows<'a>> {
    let mut found = CrateRows {
        builds: BTreeMap::new(),
        tests: Vec::new(),
    };
    let mut any = false;
    for row in rows.iter().filter(|r| r.crate_id() == id) {
        any = true;
        if row.target == BUILD {
            found.builds.insert(row.tool.as_str(), row);
            continue;
        }
        let key = (row.target.as_str(), row.test.as_str());
        let at = match found.tests.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                found.tests.push((key, Pair::default()));
                found.tests.len() - 1
            }
        };
        let pair = &mut found.tests[at].1;
        if row.tool == Tool::Loom.word() {
            pair.loom = Some(row);
        } else {
            pair.rankcheck = Some(row);
        }
    }
    any.then_some(found)
}

/// Counts over paired tests, for the summary and each crate's line.
#[derive(Default)]
struct Tally {
    /// Tests run under both tools (skipped ones aside).
    paired: usize,
    agree: usize,
    both_pass: usize,
    /// Passes under loom that fail or abort under rankcheck-loom.
    false_failures: usize,
    /// Fails under loom that pass under rankcheck-loom.
    missed: usize,
    rankcheck_aborts: usize,
    loom_aborts: usize,
    rankcheck_timeouts: usize,
    loom_timeouts: usize,
    /// Tests run under rankcheck-loom whose loom side did not run.
    rankcheck_only: usize,
    rankcheck_passes: usize,
}

impl Tally {
    fn add(&mut self, pair: &Pair<'_>) {
        let (loom, rankcheck) = pair.outcomes();
        if let Some(r) = rankcheck {
            if r == Outcome::Pass {
                self.rankcheck_passes += 1;
            }
        }
        match (loom, rankcheck) {
            (Some(Outcome::Skipped), _) | (_, Some(Outcome::Skipped)) => {}
            (Some(l), Some(r)) => {
                self.paired += 1;
                self.agree += usize::from(l == r);
                self.both_pass += usize::from(l == Outcome::Pass && r == Outcome::Pass);
                self.false_failures +=
                    usize::from(l == Outcome::Pass && matches!(r, Outcome::Fail | Outcome::Abort));
                self.missed += usize::from(l == Outcome::Fail && r == Outcome::Pass);
                self.rankcheck_aborts += usize::from(r == Outcome::Abort);
                self.loom_aborts += usize::from(l == Outcome::Abort);
                self.rankcheck_timeouts += usize::from(r == Outcome::Timeout);
                self.loom_timeouts += usize::from(l == Outcome::Timeout);
            }
            (None, Some(_)) => self.rankcheck_only += 1,
            _ => {}
        }
    }
}

/// `results/crates.md` from the corpus and every row.
pub fn markdown(corpus: &Corpus, rows: &[Row]) -> String {
    let mut md =
        String::from("# Published crates' loom tests: real loom against rankcheck-loom\n\n");
    let commits: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r.commit.as_str()).collect();
    let timeouts: std::collections::BTreeSet<u64> = rows.iter().map(|r| r.timeout_s).collect();
    let _ = writeln!(
        md,
        "Written by `cargo run --release -p rankcheck-bench -- crates` (`--crates a,b` runs a subset and keeps \
         the other crates' rows; `--report-only` rewrites this file from `crates.csv`). Each crate of \
         `bench/crates/corpus.toml` is fetched as published, copied twice, and built as published (real loom) \
         and with its `loom` dependency renamed to `rankcheck-loom` (nothing else changed but an empty \
         `[workspace]` in both copies); every test of its loom command runs alone under both, alternating, each \
         killed with its process group at the timeout. Raw rows: `crates.csv`. Rows from rankcheck commit(s) {}; \
         per-test timeout(s) {} s; machine: 2 shared cores (wall times of the two tools are comparable within \
         a crate, not across files).\n",
        join_words(commits.iter().map(|c| format!("`{c}`"))),
        join_words(timeouts.iter().map(u64::to_string)),
    );

    let loom_crates: Vec<&Entry> = corpus.loom_crates().collect();
    let mut total = Tally::default();
    let mut run = 0;
    let mut built = [0usize; 2];
    let mut not_run = Vec::new();
    let mut build_failures = Vec::new();
    for entry in &loom_crates {
        let Some(found) = crate_rows(rows, &entry.id()) else {
            not_run.push(entry.id());
            continue;
        };
        run += 1;
        for (slot, tool) in Tool::BOTH.iter().enumerate() {
            match found.builds.get(tool.word()) {
                Some(row) if row.outcome == BUILT => built[slot] += 1,
                _ if *tool == Tool::Rankcheck => build_failures.push(entry.id()),
                _ => {}
            }
        }
        for (_, pair) in &found.tests {
            total.add(pair);
        }
    }
    let _ = writeln!(md, "## Summary\n");
    let _ = writeln!(
        md,
        "- Crates: {} in the corpus's loom list, {run} run, {} not yet run{}.",
        loom_crates.len(),
        not_run.len(),
        if not_run.is_empty() {
            String::new()
        } else {
            format!(" ({})", not_run.join(", "))
        }
    );
    let _ = writeln!(
        md,
        "- Builds: {} of {run} build as published with real loom; {} of {run} build with the rename alone{}.",
        built[0],
        built[1],
        if build_failures.is_empty() {
            String::new()
        } else {
            format!(" (not: {})", build_failures.join(", "))
        }
    );
    let _ = writeln!(
        md,
        "- Tests run under both: {}; outcomes agree on {} ({} pass under both).",
        total.paired, total.agree, total.both_pass
    );
    let _ = writeln!(
        md,
        "- False failures (pass under loom, fail or abort under rankcheck-loom): {}; the reverse (fail under loom, \
         pass under rankcheck-loom): {}.",
        total.false_failures, total.missed
    );
    let _ = writeln!(
        md,
        "- Aborts (a signal ended the test binary): rankcheck-loom {}, loom {}. Timeouts: rankcheck-loom {}, loom {}.",
        total.rankcheck_aborts, total.loom_aborts, total.rankcheck_timeouts, total.loom_timeouts
    );
    let _ = writeln!(
        md,
        "- Tests run under rankcheck-loom alone (the loom side did not build): {}; rankcheck-loom passes in all: {}.\n",
        total.rankcheck_only, total.rankcheck_passes
    );

    let mut failures = String::new();
    for entry in &loom_crates {
        let Some(found) = crate_rows(rows, &entry.id()) else {
            continue;
        };
        if let Some(row) = found.builds.get(Tool::Rankcheck.word()) {
            if row.outcome == BUILD_FAILURE {
                let _ = writeln!(
                    failures,
                    "- {}: `{}`",
                    entry.id(),
                    row.detail.replace('`', "'")
                );
            }
        }
    }
    if !failures.is_empty() {
        let _ = writeln!(md, "Why the rename alone does not build:\n\n{failures}");
    }

    let _ = writeln!(md, "| crate | loom build | rankcheck-loom build | tests listed | agree | both pass | false failures | aborts (rc) | timeouts (rc / loom) |");
    let _ = writeln!(
        md,
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for entry in &loom_crates {
        let Some(found) = crate_rows(rows, &entry.id()) else {
            let _ = writeln!(
                md,
                "| {} | not yet run | not yet run | | | | | | |",
                entry.id()
            );
            continue;
        };
        let mut tally = Tally::default();
        for (_, pair) in &found.tests {
            tally.add(pair);
        }
        let build = |tool: Tool| match found.builds.get(tool.word()) {
            Some(row) if row.outcome == BUILT => "built".to_string(),
            Some(_) => "**failure**".to_string(),
            None => "—".to_string(),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} / {} |",
            entry.id(),
            build(Tool::Loom),
            build(Tool::Rankcheck),
            found.tests.len(),
            tally.agree,
            tally.both_pass,
            tally.false_failures,
            tally.rankcheck_aborts,
            tally.rankcheck_timeouts,
            tally.loom_timeouts
        );
    }
    md.push('\n');

    for entry in &loom_crates {
        crate_section(&mut md, entry, rows);
    }

    let _ = writeln!(md, "## Tokio facade candidates (not run yet)\n");
    let _ = writeln!(
        md,
        "Crates whose `#[tokio::test]` suites could run under `rt-tokio/` by renaming `tokio` to \
         `rankcheck-tokio`; running them is a later step.\n"
    );
    let _ = writeln!(md, "| crate | command | why |\n| --- | --- | --- |");
    for entry in corpus.crates.iter().filter(|c| c.facade == Facade::Tokio) {
        let _ = writeln!(
            md,
            "| {} | `{}` | {} |",
            entry.id(),
            entry.command,
            cell(&entry.why)
        );
    }
    md
}

fn crate_section(md: &mut String, entry: &Entry, rows: &[Row]) {
    let _ = writeln!(md, "## {} {}\n", entry.name, entry.version);
    let _ = writeln!(md, "{}.\n", entry.why);
    let env: Vec<String> = entry.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let _ = writeln!(
        md,
        "Its command: {}. Run here as: `{}{}cargo test {}`{}{}.\n",
        entry.command,
        if entry.rustflags.is_empty() {
            String::new()
        } else {
            format!("RUSTFLAGS=\"{}\" ", entry.rustflags)
        },
        if env.is_empty() {
            String::new()
        } else {
            format!("{} ", env.join(" "))
        },
        entry.args.join(" "),
        entry
            .filter
            .as_ref()
            .map(|f| format!(", the tests whose names contain `{f}`"))
            .unwrap_or_default(),
        if entry.dependency_key() == "loom" {
            String::new()
        } else {
            format!(", renaming the dependency `{}`", entry.dependency_key())
        }
    );
    let Some(found) = crate_rows(rows, &entry.id()) else {
        let _ = writeln!(md, "**Not yet run.**\n");
        return;
    };
    for tool in Tool::BOTH {
        match found.builds.get(tool.word()) {
            Some(row) if row.outcome == BUILT => {
                let _ = writeln!(
                    md,
                    "- {}: built in {} s ({}).",
                    tool.word(),
                    row.seconds,
                    row.manifest
                );
            }
            Some(row) => {
                let _ = writeln!(
                    md,
                    "- {}: **build failure**{}: `{}`",
                    tool.word(),
                    if row.manifest.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", row.manifest)
                    },
                    row.detail.replace('`', "'")
                );
            }
            None => {
                let _ = writeln!(md, "- {}: no build row.", tool.word());
            }
        }
    }
    md.push('\n');
    if found.tests.is_empty() {
        let _ = writeln!(md, "No test ran.\n");
        return;
    }
    let loom_alone = found.tests.iter().all(|(_, pair)| {
        pair.rankcheck.is_none()
            && pair
                .loom
                .is_some_and(|r| r.outcome == Outcome::Skipped.word())
    });
    if loom_alone {
        let names: Vec<String> = found
            .tests
            .iter()
            .map(|((target, test), _)| format!("`{}`", test_name(target, test)))
            .collect();
        let _ = writeln!(
            md,
            "The loom side lists {} tests, not run as rankcheck-loom did not build (`--loom-alone` runs them): {}.\n",
            names.len(),
            names.join(", ")
        );
        return;
    }
    let _ = writeln!(
        md,
        "| test | loom | s | rankcheck-loom | s | cause where they differ |"
    );
    let _ = writeln!(md, "| --- | --- | ---: | --- | ---: | --- |");
    for ((target, test), pair) in &found.tests {
        let side = |row: Option<&Row>| match row {
            Some(row) => (row.outcome.clone(), row.seconds.clone()),
            None => ("—".to_string(), String::new()),
        };
        let (loom, loom_s) = side(pair.loom);
        let (rankcheck, rankcheck_s) = side(pair.rankcheck);
        let cause = if loom == rankcheck {
            String::new()
        } else {
            // The side that did not pass says why.
            [pair.rankcheck, pair.loom]
                .into_iter()
                .flatten()
                .find(|r| r.outcome != "pass" && !r.detail.is_empty())
                .map(|r| format!("{}: {}", r.tool, cell(&r.detail)))
                .unwrap_or_default()
        };
        let name = test_name(target, test);
        let strong = |o: &str| {
            if o == "pass" || o == "—" {
                o.to_string()
            } else {
                format!("**{o}**")
            }
        };
        let _ = writeln!(
            md,
            "| `{name}` | {} | {loom_s} | {} | {rankcheck_s} | {cause} |",
            strong(&loom),
            strong(&rankcheck)
        );
    }
    md.push('\n');
}

/// A test's name in the tables: the library's tests by their path, an
/// integration test's with its target first.
fn test_name(target: &str, test: &str) -> String {
    if target == "lib" {
        test.to_string()
    } else {
        format!("{target}: {test}")
    }
}

/// Text made safe for a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn join_words(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    if items.is_empty() {
        "none yet".to_string()
    } else {
        items.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(tool: Tool, test: &str, outcome: &str) -> Row {
        Row {
            name: "a".into(),
            version: "1.0.0".into(),
            tool: tool.word().into(),
            target: if test.is_empty() {
                BUILD.into()
            } else {
                "loom".into()
            },
            test: test.into(),
            outcome: outcome.into(),
            seconds: "1.0".into(),
            timeout_s: 300,
            detail: if outcome == "pass" {
                String::new()
            } else {
                "thread panicked | at x".into()
            },
            manifest: String::new(),
            commit: "abc".into(),
        }
    }

    #[test]
    fn rows_round_trip_and_make_a_summary() {
        let corpus = Corpus::parse(
            r#"
[[crate]]
name = "a"
version = "1.0.0"
facade = "loom"
args = ["--test", "loom"]
command = "cargo test --test loom"
why = "a queue"

[[crate]]
name = "b"
version = "2.0.0"
facade = "loom"
args = []
command = "cargo test"
why = "not run"
"#,
        )
        .unwrap();
        let rows = vec![
            row(Tool::Loom, "", BUILT),
            row(Tool::Rankcheck, "", BUILT),
            row(Tool::Loom, "t1", "pass"),
            row(Tool::Rankcheck, "t1", "pass"),
            row(Tool::Loom, "t2", "pass"),
            row(Tool::Rankcheck, "t2", "abort"),
            row(Tool::Loom, "t3", "timeout"),
            row(Tool::Rankcheck, "t3", "timeout"),
        ];
        let dir = std::env::temp_dir().join(format!("rankcheck-crates-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("crates.csv");
        write(&path, &rows).unwrap();
        let back = read(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(back.len(), rows.len());
        let md = markdown(&corpus, &back);
        assert!(
            md.contains("2 in the corpus's loom list, 1 run, 1 not yet run (b-2.0.0)"),
            "{md}"
        );
        assert!(md.contains("Tests run under both: 3; outcomes agree on 2 (1 pass under both)"));
        assert!(
            md.contains("False failures (pass under loom, fail or abort under rankcheck-loom): 1;")
        );
        assert!(md.contains("| `loom: t2` | pass | 1.0 | **abort** | 1.0 | rankcheck-loom: thread panicked \\| at x |"));
        assert!(md.contains("## b 2.0.0"));
        assert!(md.contains("**Not yet run.**"));
    }
}
