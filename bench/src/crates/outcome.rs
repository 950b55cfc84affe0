//! What a test binary says: the tests it lists (`--list`), and one test's
//! outcome read off its exit and its output, with the first lines of a
//! failure's message.

use std::fmt;

use crate::crates::process::{signal_name, Ending};

/// One test's outcome under one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// The harness reported it passed.
    Pass,
    /// It panicked (the harness exits 101) or the binary exited with
    /// another code.
    Fail,
    /// It ran past the per-test timeout.
    Timeout,
    /// A signal ended the binary (an abort, a segfault).
    Abort,
    /// It is `#[ignore]`d: the crate's own command does not run it.
    Ignored,
    /// The binary exited 0 without reporting the test (filtered away).
    NotRun,
    /// Not run: beyond the crate's `--max-tests`.
    Skipped,
}

impl Outcome {
    /// The outcome's word in the CSV and tables.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Timeout => "timeout",
            Outcome::Abort => "abort",
            Outcome::Ignored => "ignored",
            Outcome::NotRun => "not-run",
            Outcome::Skipped => "skipped",
        }
    }

    /// The outcome a CSV word names.
    pub fn from_word(word: &str) -> Option<Outcome> {
        [
            Outcome::Pass,
            Outcome::Fail,
            Outcome::Timeout,
            Outcome::Abort,
            Outcome::Ignored,
            Outcome::NotRun,
            Outcome::Skipped,
        ]
        .into_iter()
        .find(|o| o.word() == word)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// The tests a libtest binary lists with `--list` (lines `name: test`;
/// benchmarks and the count line are left out).
pub fn parse_test_list(listing: &str) -> Vec<String> {
    listing
        .lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .map(str::to_string)
        .collect()
}

/// The most lines of a message kept, and the most characters per line.
const MESSAGE_LINES: usize = 4;
const LINE_CHARS: usize = 240;

/// The outcome of running `test` alone (`--exact`), from how the binary
/// ended and what it printed; and, for anything but a pass, the first
/// lines of what it said.
pub fn classify(ending: Ending, output: &str, test: &str) -> (Outcome, String) {
    match ending {
        Ending::TimedOut => (Outcome::Timeout, String::new()),
        Ending::Signalled(signal) => {
            let name = signal_name(signal);
            let lines = match panic_lines(output) {
                Some(mut lines) => {
                    // The runtime's last word (`thread caused non-unwinding
                    // panic. aborting.`), unless the lines hold it already.
                    let last = last_lines(output).pop();
                    if let Some(last) = last.filter(|l| !lines.contains(l)) {
                        lines.truncate(MESSAGE_LINES - 1);
                        lines.push(last);
                    }
                    lines
                }
                None => last_lines(output),
            };
            (Outcome::Abort, join([format!("{name} ({signal})")], lines))
        }
        Ending::Exited(0) => match summary(output) {
            Some(Summary { passed: 1, .. }) => (Outcome::Pass, verdict(output)),
            Some(Summary { ignored: 1, .. }) => (Outcome::Ignored, String::new()),
            _ => (Outcome::NotRun, last_lines(output).join(" | ")),
        },
        Ending::Exited(code) => {
            let message = captured_message(output, test)
                .or_else(|| panic_lines(output))
                .unwrap_or_else(|| last_lines(output));
            let lead = (code != 101).then(|| format!("exit code {code}"));
            (Outcome::Fail, join(lead, message))
        }
    }
}

fn join(lead: impl IntoIterator<Item = String>, lines: Vec<String>) -> String {
    lead.into_iter()
        .chain(lines)
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The counts of libtest's `test result:` line.
#[derive(Debug, PartialEq, Eq)]
struct Summary {
    passed: u32,
    ignored: u32,
}

fn summary(output: &str) -> Option<Summary> {
    let line = output
        .lines()
        .rev()
        .find(|l| l.starts_with("test result:"))?;
    let count = |word: &str| {
        line.split(';')
            .find_map(|part| part.trim().strip_suffix(word))
            .and_then(|n| n.trim().rsplit(' ').next()?.parse().ok())
            .unwrap_or(0)
    };
    Some(Summary {
        passed: count(" passed"),
        ignored: count(" ignored"),
    })
}

/// The first lines of the failed test's captured output (`---- name
/// stdout ----`), the panic's place and message first when there is one.
fn captured_message(output: &str, test: &str) -> Option<Vec<String>> {
    let header = format!("---- {test} stdout ----");
    let start = output.find(&header)? + header.len();
    let section = &output[start..];
    let end = section.find("\nfailures:").unwrap_or(section.len());
    let lines: Vec<&str> = section[..end]
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with("note: run with `RUST_BACKTRACE"))
        .collect();
    // A panic's own line, then what follows it, ahead of whatever the
    // test printed before panicking (loom's and rankcheck's logs).
    let first = lines
        .iter()
        .position(|l| l.contains("panicked at"))
        .unwrap_or(0);
    let kept: Vec<String> = lines[first..]
        .iter()
        .take(MESSAGE_LINES)
        .map(|l| shorten(l))
        .collect();
    (!kept.is_empty()).then_some(kept)
}

/// The first panic's line and the lines after it up to a backtrace, when
/// the output was not captured (an abort ends the harness before it
/// prints its failures).
fn panic_lines(output: &str) -> Option<Vec<String>> {
    let lines: Vec<&str> = output.lines().collect();
    let first = lines.iter().position(|l| l.contains("panicked at"))?;
    Some(
        lines[first..]
            .iter()
            .map(|l| l.trim_end())
            .take_while(|l| !l.starts_with("stack backtrace:") && !l.starts_with("note: run with"))
            .filter(|l| !l.is_empty())
            .take(MESSAGE_LINES - 1)
            .map(shorten)
            .collect(),
    )
}

/// What a passing rankcheck test said it earned: its `rankcheck: ` lines
/// (the guarantee of a search, the schedules of a loom model's complete
/// exploration) and why a model fell back to a search, as the harness
/// shows a passing test's output (`--show-output`); empty for any other
/// tool's test.
fn verdict(output: &str) -> String {
    output
        .lines()
        .map(str::trim_end)
        .filter(|l| l.starts_with("rankcheck: ") || l.ends_with("randomized search runs instead"))
        .take(MESSAGE_LINES)
        .map(shorten)
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The output's last non-empty lines.
fn last_lines(output: &str) -> Vec<String> {
    let mut lines: Vec<String> = output
        .lines()
        .rev()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .take(MESSAGE_LINES)
        .map(shorten)
        .collect();
    lines.reverse();
    lines
}

fn shorten(line: &str) -> String {
    let line = &without_thread_id(line);
    match line.char_indices().nth(LINE_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

/// `line` without the OS thread id the panic message gives a thread
/// (`thread 'spsc' (10816) panicked`), which differs from run to run.
fn without_thread_id(line: &str) -> String {
    let Some(start) = line.find("' (") else {
        return line.to_string();
    };
    let rest = &line[start + 3..];
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || !rest[digits..].starts_with(')') {
        return line.to_string();
    }
    format!("{}'{}", &line[..start], &rest[digits + 1..])
}

/// The first error of a failed build's diagnostics (cargo's or rustc's:
/// `error...` and its lines up to the next `error` or `warning`, without
/// the blank, gutter-only and cargo's `...` lines), else its last lines.
pub fn build_cause(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().collect();
    let Some(first) = lines.iter().position(|l| l.starts_with("error")) else {
        return last_lines(stderr).join(" | ");
    };
    let block = std::iter::once(lines[first]).chain(
        lines[first + 1..]
            .iter()
            .copied()
            .take_while(|l| !l.starts_with("error") && !l.starts_with("warning")),
    );
    block
        .map(str::trim)
        .filter(|l| {
            !l.is_empty()
                && *l != "|"
                && !l.starts_with("...")
                && !l.starts_with("versions that meet")
        })
        .take(MESSAGE_LINES)
        .map(shorten)
        .collect::<Vec<_>>()
        .join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_gives_its_tests_only() {
        let listing = "loom_basic: test\nmpsc::tests::loom_send: test\nbench_push: benchmark\n\n2 tests, 1 benchmark\n";
        assert_eq!(
            parse_test_list(listing),
            ["loom_basic", "mpsc::tests::loom_send"]
        );
    }

    const PASSED: &str = "\nrunning 1 test\ntest a::b ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 40 filtered out; finished in 0.52s\n\n";
    const IGNORED: &str = "running 1 test\ntest a::b ... ignored\n\ntest result: ok. 0 passed; 0 failed; 1 ignored; 0 measured; 40 filtered out\n";
    const FAILED: &str = "running 1 test\ntest a::b ... FAILED\n\nfailures:\n\n---- a::b stdout ----\nCompleted in 3 iterations\n\nthread 'a::b' panicked at src/lib.rs:10:5:\nassertion `left == right` failed\n  left: 1\n right: 2\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    a::b\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored\n";

    #[test]
    fn a_pass_an_ignore_and_a_panic_are_read_off_the_output() {
        assert_eq!(classify(Ending::Exited(0), PASSED, "a::b").0, Outcome::Pass);
        assert_eq!(
            classify(Ending::Exited(0), IGNORED, "a::b").0,
            Outcome::Ignored
        );
        let (outcome, message) = classify(Ending::Exited(101), FAILED, "a::b");
        assert_eq!(outcome, Outcome::Fail);
        assert_eq!(
            message,
            "thread 'a::b' panicked at src/lib.rs:10:5: | assertion `left == right` failed |   left: 1 |  right: 2"
        );
    }

    #[test]
    fn a_pass_keeps_what_rankcheck_said_it_earned() {
        let shown = "running 1 test\ntest a::b ... ok\n\nsuccesses:\n\n---- a::b stdout ----\n\
            loom model at src/a.rs:3:5: the exploration stopped at its cap of 100000 schedules; rankcheck's randomized search runs instead\n\
            rankcheck: no bug of depth 3 with probability >= 0.99 (20000 runs)\n\n\
            successes:\n    a::b\n\ntest result: ok. 1 passed; 0 failed; 0 ignored\n";
        let (outcome, verdict) = classify(Ending::Exited(0), shown, "a::b");
        assert_eq!(outcome, Outcome::Pass);
        assert_eq!(
            verdict,
            "loom model at src/a.rs:3:5: the exploration stopped at its cap of 100000 schedules; \
             rankcheck's randomized search runs instead | rankcheck: no bug of depth 3 with \
             probability >= 0.99 (20000 runs)"
        );
        assert_eq!(classify(Ending::Exited(0), PASSED, "a::b").1, "");
    }

    #[test]
    fn signals_timeouts_and_odd_exits_are_their_own_outcomes() {
        let aborted = "running 1 test\nfatal runtime error: stack overflow\n";
        let (outcome, message) = classify(Ending::Signalled(6), aborted, "a::b");
        assert_eq!(outcome, Outcome::Abort);
        assert_eq!(
            message,
            "SIGABRT (6) | running 1 test | fatal runtime error: stack overflow"
        );
        let non_unwinding = "running 1 test\nno failure in 20000 runs\nthread 'spsc' (32687) panicked at tests/loom.rs:208:43:\ncalled `Result::unwrap()` on an `Err` value: PoisonError { .. }\nstack backtrace:\n   0:     0x55 - std::backtrace\nthread caused non-unwinding panic. aborting.\n";
        let (outcome, message) = classify(Ending::Signalled(6), non_unwinding, "spsc");
        assert_eq!(outcome, Outcome::Abort);
        assert_eq!(
            message,
            "SIGABRT (6) | thread 'spsc' panicked at tests/loom.rs:208:43: | called `Result::unwrap()` on an `Err` value: PoisonError { .. } | thread caused non-unwinding panic. aborting."
        );
        assert_eq!(classify(Ending::TimedOut, "", "a::b").0, Outcome::Timeout);
        let (outcome, message) = classify(Ending::Exited(3), "bye\n", "a::b");
        assert_eq!(
            (outcome, message.as_str()),
            (Outcome::Fail, "exit code 3 | bye")
        );
        let nothing = "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 9 filtered out\n";
        assert_eq!(
            classify(Ending::Exited(0), nothing, "a::b").0,
            Outcome::NotRun
        );
        for outcome in [Outcome::Pass, Outcome::Abort, Outcome::NotRun] {
            assert_eq!(Outcome::from_word(outcome.word()), Some(outcome));
        }
    }

    #[test]
    fn a_build_cause_is_the_first_error() {
        let stderr = "   Compiling loom v0.7.2\nwarning: unused\n\nerror: Package `rankcheck-loom v0.1.0 (/r/rt-loom)` does not have feature `futures`. It has an optional dependency with that name, but that dependency uses the \"dep:\" syntax\n\nerror: could not compile\n";
        assert!(build_cause(stderr).starts_with(
            "error: Package `rankcheck-loom v0.1.0 (/r/rt-loom)` does not have feature `futures`"
        ));
        let rustc = "error[E0432]: unresolved import `loom::sync::atomic::AtomicU128`\n --> src/lib.rs:3:5\n  |\n3 | use loom::sync::atomic::AtomicU128;\n\nerror: aborting\n";
        assert_eq!(
            build_cause(rustc),
            "error[E0432]: unresolved import `loom::sync::atomic::AtomicU128` | --> src/lib.rs:3:5 | 3 | use loom::sync::atomic::AtomicU128;"
        );
    }
}
