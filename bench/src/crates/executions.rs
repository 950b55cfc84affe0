//! How many executions a test's models took to be explored to their end,
//! read off the test's output: loom's `Completed in N iterations` (its
//! log, which the bench turns on with `LOOM_LOG=loom::model=info`) and
//! rankcheck-loom's `every schedule ... explored, N schedules` verdicts.
//! A test counts only when every model it ran was exhausted: loom stops
//! silently at `max_permutations` or `max_duration`, and rankcheck-loom
//! falls back to its randomized search, and neither count is then the
//! size of the model.

use std::fmt::Write as _;

use crate::crates::Tool;

/// The variable that turns on loom's count, and its value: only
/// `loom::model`'s events (a banner as each model starts, the count as it
/// completes), not the operations' traces.
pub const LOOM_LOG: (&str, &str) = ("LOOM_LOG", "loom::model=info");

/// The executions of every model of the test, summed, when each was
/// exhausted; `None` when one was not, or the output names none.
pub fn exhausted_executions(tool: Tool, output: &str) -> Option<u64> {
    match tool {
        Tool::Loom => loom_iterations(output),
        Tool::RankcheckLoom => rankcheck_schedules(output),
        Tool::Tokio | Tool::RankcheckTokio => None,
    }
}

/// loom: `Completed in N iterations` as a model is exhausted. loom checks
/// its caps only every `checkpoint_interval` iterations (20,000), where it
/// logs a banner `Iteration K`: a model a cap stopped logged a banner and
/// no count, which shows as a banner not followed by a count of at least
/// its iterations.
fn loom_iterations(output: &str) -> Option<u64> {
    let plain = without_escapes(output);
    let mut total = 0;
    let mut models = 0;
    let mut banner: Option<u64> = None;
    for line in plain.lines() {
        if let Some(k) = number_between(line, " Iteration ", " =") {
            if banner.is_some_and(|b| k <= b) {
                return None;
            }
            banner = Some(k);
        } else if let Some(n) = number_between(line, "Completed in ", " iterations") {
            if banner.is_some_and(|b| n < b) {
                return None;
            }
            banner = None;
            total += n;
            models += 1;
        }
    }
    (models > 0 && banner.is_none()).then_some(total)
}

/// rankcheck-loom: one line per model, `every schedule ... explored, N
/// schedules` when it was exhausted, a fallback notice when it was not.
fn rankcheck_schedules(output: &str) -> Option<u64> {
    let mut total = 0;
    let mut models = 0;
    for line in output.lines() {
        if line.contains("randomized search runs instead") {
            return None;
        }
        if !line.starts_with("rankcheck: loom model at ") {
            continue;
        }
        let Some(count) = line
            .split_once(" explored, ")
            .and_then(|(_, rest)| number_between(rest, "", " schedules"))
        else {
            continue;
        };
        total += count;
        models += 1;
    }
    (models > 0).then_some(total)
}

/// A test loom exhausted: its executions under each tool (rankcheck's
/// `None` when it did not exhaust every model).
pub struct Exhausted {
    /// The crate and test, as the tables name them.
    pub name: String,
    pub loom: u64,
    pub rankcheck: Option<u64>,
}

/// The section of `results/crates.md` that sets the tools' executions
/// side by side: a summary, then a row per test loom exhausted.
pub fn markdown(tests: &[Exhausted]) -> String {
    let mut md = String::from(
        "## Executions to exhaust a test's models

",
    );
    md.push_str(
        "Where loom explored every model of a test to its end (its log's `Completed in N iterations`, \
         `LOOM_LOG=loom::model=info`, recorded since the column `executions` of `crates.csv` exists), \
         its iterations beside rankcheck-loom's schedules for the same test and settings (its verdict lines \
         `every schedule ... explored, N schedules`), summed over the test's models. rankcheck-loom \
         explores every store a load may read and, under `LOOM_MAX_PREEMPTIONS`, every schedule within the \
         bound up to reordering independent steps; loom's bounded search is not exhaustive in that sense \
         (its reduction keeps only the last access to each object). A test that calls loom's \
         `model::Builder::check` itself (scc's, thingbuf's, sharded-slab's models) has no loom count: \
         loom installs its log only in `loom::model`.\n\n",
    );
    if tests.is_empty() {
        md.push_str("No test has loom's count yet.\n\n");
        return md;
    }
    let mut ratios: Vec<f64> = tests
        .iter()
        .filter_map(|t| Some(t.rankcheck? as f64 / t.loom.max(1) as f64))
        .collect();
    ratios.sort_by(f64::total_cmp);
    let exhausted = ratios.len();
    let _ = writeln!(
        md,
        "- Tests loom exhausted: {}; rankcheck-loom exhausted {exhausted} of them.",
        tests.len()
    );
    if let (Some(median), Some(most)) = (median(&ratios), ratios.last()) {
        let fewer = ratios.iter().filter(|r| **r <= 1.0).count();
        let _ = writeln!(
            md,
            "- rankcheck-loom's executions over loom's: median {median:.2}, at most {most:.2}; no more than \
             loom's in {fewer} of {exhausted}.",
        );
    }
    md.push_str("\n| test | loom | rankcheck-loom | ratio |\n| --- | ---: | ---: | ---: |\n");
    for test in tests {
        let (rankcheck, ratio) = match test.rankcheck {
            Some(n) => (
                n.to_string(),
                format!("{:.2}", n as f64 / test.loom.max(1) as f64),
            ),
            None => ("not exhausted".to_string(), "—".to_string()),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {rankcheck} | {ratio} |",
            test.name, test.loom
        );
    }
    md.push('\n');
    md
}

/// The median of sorted `values`.
fn median(values: &[f64]) -> Option<f64> {
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
    }
}

/// The number between `before` and `after` in `line`.
fn number_between(line: &str, before: &str, after: &str) -> Option<u64> {
    let (_, rest) = line.split_once(before)?;
    let (number, _) = rest.split_once(after)?;
    number.trim().parse().ok()
}

/// `text` without ANSI colour escapes (tracing's formatter colours loom's
/// log when it thinks it writes to a terminal).
fn without_escapes(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // An escape runs to its final letter (`ESC [ 32 m`).
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            plain.push(c);
        }
    }
    plain
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOOM_TWO_MODELS: &str = "running 1 test\n\
        \u{1b}[32m INFO\u{1b}[0m \u{1b}[2mloom::model\u{1b}[0m\u{1b}[2m:\u{1b}[0m  ================== Iteration 20000 ==================\n\
        \u{1b}[32m INFO\u{1b}[0m loom::model: Completed in 20396 iterations\n\
         INFO loom::model: Completed in 4 iterations\n\
        test result: ok. 1 passed;";

    #[test]
    fn loom_counts_the_iterations_of_every_completed_model() {
        assert_eq!(
            exhausted_executions(Tool::Loom, LOOM_TWO_MODELS),
            Some(20_400)
        );
    }

    #[test]
    fn a_loom_model_stopped_by_a_cap_leaves_the_test_uncounted() {
        let banner = |k| {
            format!(" INFO loom::model:  ================== Iteration {k} ==================\n")
        };
        let completed = |n| format!(" INFO loom::model: Completed in {n} iterations\n");
        // Stopped at its first check, the last model of the test.
        assert_eq!(exhausted_executions(Tool::Loom, &banner(20_000)), None);
        // Stopped, then another model completed.
        let then = banner(20_000) + &completed(300);
        assert_eq!(exhausted_executions(Tool::Loom, &then), None);
        // Stopped, then another model checked its cap.
        let twice = completed(5) + &banner(20_000) + &banner(20_000) + &completed(20_001);
        assert_eq!(exhausted_executions(Tool::Loom, &twice), None);
        assert_eq!(exhausted_executions(Tool::Loom, "test result: ok."), None);
    }

    #[test]
    fn rankcheck_counts_the_schedules_of_every_exhausted_model() {
        let output = "rankcheck: loom model at src/a.rs:3:5: every schedule with at most 2 preemptions explored, 1374 schedules (C11 weak memory; 120 of them first at fewer preemptions)\n\
             rankcheck: loom model at src/a.rs:9:5: every schedule explored, 26 schedules (C11 weak memory)\n";
        assert_eq!(
            exhausted_executions(Tool::RankcheckLoom, output),
            Some(1400)
        );
    }

    #[test]
    fn a_rankcheck_model_that_fell_back_leaves_the_test_uncounted() {
        let output = "rankcheck: loom model at src/a.rs:3:5: every schedule explored, 26 schedules (C11 weak memory)\n\
             loom model at src/a.rs:9:5: the exploration did not finish within 100000 schedules (...); rankcheck's randomized search runs instead\n";
        assert_eq!(exhausted_executions(Tool::RankcheckLoom, output), None);
        assert_eq!(exhausted_executions(Tool::Tokio, output), None);
    }

    #[test]
    fn the_section_sets_the_counts_side_by_side_with_their_median() {
        let test = |name: &str, loom, rankcheck| Exhausted {
            name: name.to_string(),
            loom,
            rankcheck,
        };
        let md = markdown(&[
            test("a", 100, Some(50)),
            test("b", 10, Some(30)),
            test("c", 7, None),
        ]);
        assert!(
            md.contains("Tests loom exhausted: 3; rankcheck-loom exhausted 2 of them."),
            "{md}"
        );
        assert!(
            md.contains("median 1.75, at most 3.00; no more than loom's in 1 of 2."),
            "{md}"
        );
        assert!(md.contains("| a | 100 | 50 | 0.50 |"), "{md}");
        assert!(md.contains("| c | 7 | not exhausted | — |"), "{md}");
    }
}
