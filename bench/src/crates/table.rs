//! `results/crates.csv` (one row per crate, tool and test, and a build row
//! per crate and tool) and `results/crates.md`, the tables made from it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::crates::corpus::{Corpus, Entry, Facade};
use crate::crates::executions::{self, Exhausted};
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
    /// `loom` or `rankcheck-loom`, `tokio` or `rankcheck-tokio`: the side,
    /// and so the facade.
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
    /// The executions its models took to be exhausted, summed, when
    /// every one was (`crate::crates::executions`); empty otherwise, and
    /// in rows measured before the column existed.
    #[serde(default)]
    pub executions: String,
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
            executions: String::new(),
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
            executions: String::new(),
        }
    }

    /// The row with the executions its test's models took to be
    /// exhausted, if they were.
    pub fn with_executions(mut self, executions: Option<u64>) -> Row {
        self.executions = executions.map(|n| n.to_string()).unwrap_or_default();
        self
    }

    /// The tool the row names (`None` for a word no tool has).
    pub fn tool(&self) -> Option<Tool> {
        Tool::from_word(&self.tool)
    }

    /// Whether the row measured `entry`: its crate, under its facade (a
    /// crate may be in the corpus once per facade).
    pub fn is_of(&self, entry: &Entry) -> bool {
        self.name == entry.name
            && self.version == entry.version
            && self.tool().is_some_and(|t| t.facade() == entry.facade)
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

/// One test under both sides of a facade's comparison.
#[derive(Default)]
struct Pair<'a> {
    /// As published (real loom, real tokio).
    published: Option<&'a Row>,
    /// Renamed to the facade.
    renamed: Option<&'a Row>,
}

impl Pair<'_> {
    fn outcomes(&self) -> (Option<Outcome>, Option<Outcome>) {
        let outcome = |row: Option<&Row>| row.and_then(|r| Outcome::from_word(&r.outcome));
        (outcome(self.published), outcome(self.renamed))
    }
}

/// One crate's rows under one facade, sorted out.
struct CrateRows<'a> {
    builds: BTreeMap<&'a str, &'a Row>,
    /// By (target, test), in the CSV's order.
    tests: Vec<((&'a str, &'a str), Pair<'a>)>,
}

fn crate_rows<'a>(rows: &'a [Row], entry: &Entry) -> Option<CrateRows<'a>> {
    let mut found = CrateRows {
        builds: BTreeMap::new(),
        tests: Vec::new(),
    };
    let mut any = false;
    for row in rows.iter().filter(|r| r.is_of(entry)) {
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
        if row.tool().is_some_and(Tool::is_renamed) {
            pair.renamed = Some(row);
        } else {
            pair.published = Some(row);
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
    /// Passes as published that fail or abort under the facade.
    false_failures: usize,
    /// Fails as published that pass under the facade.
    missed: usize,
    renamed_aborts: usize,
    published_aborts: usize,
    renamed_timeouts: usize,
    published_timeouts: usize,
    /// Tests run under the facade whose published side did not run.
    renamed_only: usize,
    renamed_passes: usize,
}

/// Whether the pair passes as published and fails or aborts under the
/// facade.
fn is_false_failure(pair: &Pair<'_>) -> bool {
    let (published, renamed) = pair.outcomes();
    published == Some(Outcome::Pass) && matches!(renamed, Some(Outcome::Fail | Outcome::Abort))
}

impl Tally {
    fn add(&mut self, pair: &Pair<'_>) {
        let (published, renamed) = pair.outcomes();
        if renamed == Some(Outcome::Pass) {
            self.renamed_passes += 1;
        }
        match (published, renamed) {
            (Some(Outcome::Skipped), _) | (_, Some(Outcome::Skipped)) => {}
            (Some(p), Some(r)) => {
                self.paired += 1;
                self.agree += usize::from(p == r);
                self.both_pass += usize::from(p == Outcome::Pass && r == Outcome::Pass);
                self.false_failures += usize::from(is_false_failure(pair));
                self.missed += usize::from(p == Outcome::Fail && r == Outcome::Pass);
                self.renamed_aborts += usize::from(r == Outcome::Abort);
                self.published_aborts += usize::from(p == Outcome::Abort);
                self.renamed_timeouts += usize::from(r == Outcome::Timeout);
                self.published_timeouts += usize::from(p == Outcome::Timeout);
            }
            (None, Some(_)) => self.renamed_only += 1,
            _ => {}
        }
    }
}

/// `results/crates.md` from the corpus and every row: the loom crates,
/// then the tokio crates, each with its summary, table and a section per
/// crate.
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
         a crate, not across files). The crates whose `#[tokio::test]`s run under real tokio and \
         rankcheck-tokio follow the loom crates ([below](#published-crates-tokio-tests-real-tokio-against-rankcheck-tokio)).\n",
        join_words(commits.iter().map(|c| format!("`{c}`"))),
        join_words(timeouts.iter().map(u64::to_string)),
    );
    facade_part(&mut md, corpus, rows, Facade::Loom);
    let _ = writeln!(
        md,
        "# Published crates' tokio tests: real tokio against rankcheck-tokio\n"
    );
    let _ = writeln!(
        md,
        "Each crate marked `facade = \"tokio\"` is fetched as published, copied twice, and built as published \
         (real tokio) and with its `tokio` dependency renamed to `rankcheck-tokio` in every table that declares \
         it (`dependencies`, `dev-dependencies`, target tables), its features kept, nothing else changed but an \
         empty `[workspace]` in both copies; a dependency of the crate that uses tokio itself (tokio-test, \
         tokio-util) keeps real tokio. Every test of the crate's command runs alone under both, alternating, \
         each killed with its process group at the timeout. Under rankcheck-tokio a `#[tokio::test]` is a \
         search (its body run many times under the default budget, interleavings and `select!` choices \
         explored, time on a virtual clock); a plain `#[test]` runs once, as under tokio. Tools: `tokio` (as \
         published), `rankcheck-tokio` (renamed).\n"
    );
    facade_part(&mut md, corpus, rows, Facade::Tokio);
    md
}

/// One facade's summary, table and crate sections.
fn facade_part(md: &mut String, corpus: &Corpus, rows: &[Row], facade: Facade) {
    let [published, renamed] = Tool::pair(facade).map(Tool::word);
    let crates: Vec<&Entry> = corpus.crates_of(facade).collect();
    let mut total = Tally::default();
    let mut run = 0;
    let mut built = [0usize; 2];
    let mut not_run = Vec::new();
    let mut build_failures = Vec::new();
    let mut all_agree = Vec::new();
    let mut false_failures = Vec::new();
    for entry in &crates {
        let Some(found) = crate_rows(rows, entry) else {
            not_run.push(entry.id());
            continue;
        };
        run += 1;
        for (slot, tool) in Tool::pair(facade).iter().enumerate() {
            match found.builds.get(tool.word()) {
                Some(row) if row.outcome == BUILT => built[slot] += 1,
                _ if tool.is_renamed() => build_failures.push(entry.id()),
                _ => {}
            }
        }
        let mut tally = Tally::default();
        for ((target, test), pair) in &found.tests {
            total.add(pair);
            tally.add(pair);
            if is_false_failure(pair) {
                let name = test_name(target, test);
                let diagnosed = if entry.diagnosed.contains_key(&name) {
                    ", diagnosed in its section"
                } else {
                    ""
                };
                false_failures.push(format!("{} `{name}`{diagnosed}", entry.id()));
            }
        }
        if tally.paired > 0 && tally.paired == found.tests.len() && tally.agree == tally.paired {
            all_agree.push(entry.id());
        }
    }
    let _ = writeln!(md, "## Summary\n");
    let _ = writeln!(
        md,
        "- Crates: {} in the corpus's {} list, {run} run, {} not yet run{}.",
        crates.len(),
        facade.word(),
        not_run.len(),
        if not_run.is_empty() {
            String::new()
        } else {
            format!(" ({})", not_run.join(", "))
        }
    );
    let _ = writeln!(
        md,
        "- Builds: {} of {run} build as published with real {published}; {} of {run} build with the rename alone{}.",
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
        "- Crates whose every test ran under both with the same outcome: {} of {run}{}.",
        all_agree.len(),
        if all_agree.is_empty() {
            String::new()
        } else {
            format!(" ({})", all_agree.join(", "))
        }
    );
    let _ = writeln!(
        md,
        "- False failures (pass under {published}, fail or abort under {renamed}): {}{}; the reverse (fail under \
         {published}, pass under {renamed}): {}.",
        total.false_failures,
        if false_failures.is_empty() {
            String::new()
        } else {
            format!(" ({})", false_failures.join("; "))
        },
        total.missed
    );
    let _ = writeln!(
        md,
        "- Aborts (a signal ended the test binary): {renamed} {}, {published} {}. Timeouts: {renamed} {}, {published} {}.",
        total.renamed_aborts, total.published_aborts, total.renamed_timeouts, total.published_timeouts
    );
    let _ = writeln!(
        md,
        "- Tests run under {renamed} alone (the {published} side did not build): {}; {renamed} passes in all: {}.\n",
        total.renamed_only, total.renamed_passes
    );

    let mut failures = String::new();
    for entry in &crates {
        let Some(found) = crate_rows(rows, entry) else {
            continue;
        };
        if let Some(row) = found.builds.get(renamed) {
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

    let abbreviation = match facade {
        Facade::Loom => "rc",
        Facade::Tokio => "rt",
    };
    let _ = writeln!(md, "| crate | {published} build | {renamed} build | tests listed | agree | both pass | false failures | aborts ({abbreviation}) | timeouts ({abbreviation} / {published}) |");
    let _ = writeln!(
        md,
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for entry in &crates {
        let Some(found) = crate_rows(rows, entry) else {
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
        let build = |word: &str| match found.builds.get(word) {
            Some(row) if row.outcome == BUILT => "built".to_string(),
            Some(_) => "**failure**".to_string(),
            None => "—".to_string(),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} / {} |",
            entry.id(),
            build(published),
            build(renamed),
            found.tests.len(),
            tally.agree,
            tally.both_pass,
            tally.false_failures,
            tally.renamed_aborts,
            tally.renamed_timeouts,
            tally.published_timeouts
        );
    }
    md.push('\n');
    if facade == Facade::Loom {
        md.push_str(&executions_section(&crates, rows));
    }

    for entry in &crates {
        crate_section(md, entry, rows);
    }
}

/// The executions each tool took to exhaust the tests both ran, where
/// loom's count is known (`crate::crates::executions`).
fn executions_section(crates: &[&Entry], rows: &[Row]) -> String {
    let count = |row: Option<&Row>| row.and_then(|r| r.executions.parse::<u64>().ok());
    let mut tests = Vec::new();
    for entry in crates {
        let Some(found) = crate_rows(rows, entry) else {
            continue;
        };
        for ((target, test), pair) in &found.tests {
            if let Some(loom) = count(pair.published) {
                let name = format!("{} `{}`", entry.id(), test_name(target, test));
                tests.push(Exhausted {
                    name,
                    loom,
                    rankcheck: count(pair.renamed),
                });
            }
        }
    }
    executions::markdown(&tests)
}

fn crate_section(md: &mut String, entry: &Entry, rows: &[Row]) {
    let [published, renamed] = Tool::pair(entry.facade).map(Tool::word);
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
        if entry.dependency_key() == entry.facade.word() {
            String::new()
        } else {
            format!(", renaming the dependency `{}`", entry.dependency_key())
        }
    );
    let Some(found) = crate_rows(rows, entry) else {
        let _ = writeln!(md, "**Not yet run.**\n");
        return;
    };
    for tool in Tool::pair(entry.facade) {
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
    let published_alone = found.tests.iter().all(|(_, pair)| {
        pair.renamed.is_none()
            && pair
                .published
                .is_some_and(|r| r.outcome == Outcome::Skipped.word())
    });
    if published_alone {
        let names: Vec<String> = found
            .tests
            .iter()
            .map(|((target, test), _)| format!("`{}`", test_name(target, test)))
            .collect();
        let _ = writeln!(
            md,
            "The {published} side lists {} tests, not run as {renamed} did not build (`--published-alone` runs them): {}.\n",
            names.len(),
            names.join(", ")
        );
        return;
    }
    // What rankcheck said a passing test earned, where it said it (rows
    // written before the bench kept it have none).
    let earned_of = |pair: &Pair| {
        pair.renamed
            .filter(|r| r.outcome == Outcome::Pass.word())
            .map(|r| earned(&r.detail))
            .unwrap_or_default()
    };
    let with_earned = found
        .tests
        .iter()
        .any(|(_, pair)| !earned_of(pair).is_empty());
    let (earned_head, earned_rule) = if with_earned {
        (format!(" what {renamed} earned |"), " --- |")
    } else {
        (String::new(), "")
    };
    let _ = writeln!(
        md,
        "| test | {published} | s | {renamed} | s | cause where they differ |{earned_head}"
    );
    let _ = writeln!(md, "| --- | --- | ---: | --- | ---: | --- |{earned_rule}");
    for ((target, test), pair) in &found.tests {
        let side = |row: Option<&Row>| match row {
            Some(row) => (row.outcome.clone(), row.seconds.clone()),
            None => ("—".to_string(), String::new()),
        };
        let (published_outcome, published_s) = side(pair.published);
        let (renamed_outcome, renamed_s) = side(pair.renamed);
        let cause = if published_outcome == renamed_outcome {
            String::new()
        } else {
            // The side that did not pass says why.
            [pair.renamed, pair.published]
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
        let earned_cell = if with_earned {
            format!(" {} |", cell(&earned_of(pair)))
        } else {
            String::new()
        };
        let _ = writeln!(
            md,
            "| `{name}` | {} | {published_s} | {} | {renamed_s} | {cause} |{earned_cell}",
            strong(&published_outcome),
            strong(&renamed_outcome)
        );
    }
    md.push('\n');
    diagnoses(md, entry);
}

/// The by-hand diagnoses of the crate's differences, as a list.
fn diagnoses(md: &mut String, entry: &Entry) {
    if entry.diagnosed.is_empty() {
        return;
    }
    let _ = writeln!(md, "Diagnosed by hand:\n");
    for (test, finding) in &entry.diagnosed {
        let _ = writeln!(md, "- `{test}`: {}", finding.trim());
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
/// A passing test's verdict lines (`outcome::verdict`) in short: a loom
/// model's complete exploration as "every schedule ... explored, N
/// schedules", a fallback as its reason then the search's guarantee.
fn earned(detail: &str) -> String {
    detail
        .split(" | ")
        .filter(|part| !part.is_empty())
        .map(|part| {
            let said = part.strip_prefix("rankcheck: ").unwrap_or(part);
            let said = match said.strip_prefix("loom model at ") {
                Some(rest) => rest.split_once(": ").map_or(rest, |(_, what)| what),
                None => said,
            };
            let said = said.trim_end_matches("; rankcheck's randomized search runs instead");
            // The memory model and the first passes' share, in brackets.
            said.split_once(" (C11 weak memory")
                .map_or(said, |(verdict, _)| verdict)
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("; then ")
}

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

    #[test]
    fn what_rankcheck_earned_is_said_in_short() {
        let complete = "rankcheck: loom model at src/a.rs:3:5: every schedule with at most 2 \
            preemptions explored, 41 schedules (C11 weak memory; 6 of them first at fewer \
            preemptions)";
        assert_eq!(
            earned(complete),
            "every schedule with at most 2 preemptions explored, 41 schedules"
        );
        let fallback = "loom model at src/a.rs:3:5: the exploration did not finish within 100000 \
            schedules (LOOM_MAX_PERMUTATIONS); rankcheck's randomized search runs instead | \
            rankcheck: no bug of depth 3 with probability >= 0.99";
        assert_eq!(
            earned(fallback),
            "the exploration did not finish within 100000 schedules (LOOM_MAX_PERMUTATIONS); \
             then no bug of depth 3 with probability >= 0.99"
        );
        assert_eq!(earned(""), "");
    }

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
            executions: String::new(),
        }
    }

    /// Crate `a` 1.0.0 under the loom facade, and `second` after it.
    fn corpus_with(second: &str) -> Corpus {
        let first = r#"
[[crate]]
name = "a"
version = "1.0.0"
facade = "loom"
args = ["--test", "loom"]
command = "cargo test --test loom"
why = "a queue"
"#;
        Corpus::parse(&format!("{first}\n[[crate]]\n{second}")).unwrap()
    }

    #[test]
    fn a_diagnosed_false_failure_says_so_in_the_summary_and_its_section() {
        let text = r#"
[[crate]]
name = "a"
version = "1.0.0"
facade = "loom"
args = ["--test", "loom"]
command = "cargo test --test loom"
why = "a queue"

[crate.diagnosed]
"loom: t2" = "the crate synchronises through std atomics"
"#;
        let corpus = Corpus::parse(text).unwrap();
        let rows = vec![
            row(Tool::Loom, "", BUILT),
            row(Tool::RankcheckLoom, "", BUILT),
            row(Tool::Loom, "t2", "pass"),
            row(Tool::RankcheckLoom, "t2", "fail"),
        ];
        let md = markdown(&corpus, &rows);
        assert!(
            md.contains(": 1 (a-1.0.0 `loom: t2`, diagnosed in its section);"),
            "{md}"
        );
        assert!(md.contains(
            "Diagnosed by hand:\n\n- `loom: t2`: the crate synchronises through std atomics"
        ));
    }

    #[test]
    fn rows_round_trip_and_make_a_summary() {
        let corpus = corpus_with(
            r#"name = "b"
version = "2.0.0"
facade = "loom"
args = []
command = "cargo test"
why = "not run""#,
        );
        let rows = vec![
            row(Tool::Loom, "", BUILT),
            row(Tool::RankcheckLoom, "", BUILT),
            row(Tool::Loom, "t1", "pass"),
            row(Tool::RankcheckLoom, "t1", "pass"),
            row(Tool::Loom, "t2", "pass"),
            row(Tool::RankcheckLoom, "t2", "abort"),
            row(Tool::Loom, "t3", "timeout"),
            row(Tool::RankcheckLoom, "t3", "timeout"),
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
        assert!(md.contains(
            "False failures (pass under loom, fail or abort under rankcheck-loom): 1 (a-1.0.0 `loom: t2`);"
        ));
        assert!(md.contains("| `loom: t2` | pass | 1.0 | **abort** | 1.0 | rankcheck-loom: thread panicked \\| at x |"));
        assert!(md.contains("## b 2.0.0"));
        assert!(md.contains("**Not yet run.**"));
    }

    #[test]
    fn a_crate_under_both_facades_keeps_its_rows_apart() {
        let corpus = corpus_with(
            r#"name = "a"
version = "1.0.0"
facade = "tokio"
args = ["--tests"]
command = "cargo test --tests"
why = "its tokio tests""#,
        );
        let [loom, tokio] = &corpus.crates[..] else {
            panic!("two entries expected");
        };
        let rows = vec![
            row(Tool::Loom, "", BUILT),
            row(Tool::RankcheckLoom, "", BUILT),
            row(Tool::Loom, "t1", "pass"),
            row(Tool::RankcheckLoom, "t1", "pass"),
            row(Tool::Tokio, "", BUILT),
            row(Tool::RankcheckTokio, "", BUILD_FAILURE),
            row(Tool::Tokio, "t1", "skipped"),
        ];
        assert!(rows[..4].iter().all(|r| r.is_of(loom) && !r.is_of(tokio)));
        assert!(rows[4..].iter().all(|r| r.is_of(tokio) && !r.is_of(loom)));
        let md = markdown(&corpus, &rows);
        let (loom_part, tokio_part) = md
            .split_once("# Published crates' tokio tests")
            .expect("a tokio part");
        assert!(loom_part.contains("1 in the corpus's loom list, 1 run, 0 not yet run"));
        assert!(
            loom_part.contains("Tests run under both: 1; outcomes agree on 1 (1 pass under both)")
        );
        assert!(tokio_part.contains("1 in the corpus's tokio list, 1 run, 0 not yet run"));
        assert!(tokio_part.contains(
            "- Builds: 1 of 1 build as published with real tokio; 0 of 1 build with the rename alone (not: a-1.0.0)."
        ));
        assert!(
            tokio_part.contains("| a-1.0.0 | built | **failure** | 1 |"),
            "{tokio_part}"
        );
        assert!(tokio_part
            .contains("The tokio side lists 1 tests, not run as rankcheck-tokio did not build"));
    }
}
