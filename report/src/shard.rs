//! The shard file: what one shard of one night did, as JSON Lines, one
//! record a line, appended chunk by chunk (`docs/HISTORY.md`, Shard
//! files).
//!
//! A file opens with a [`Header`], then holds a [`ChunkRecord`] per finished
//! chunk of runs, a [`FailureRecord`] per failing chunk (written in the same
//! append as its chunk), and an [`EndRecord`] each time the shard stopped.
//! Reading is lenient: a line that does not parse (a truncated last line
//! after a SIGKILL, a corrupted one) is reported with its number and the
//! other lines are still read.
//!
//! Also here, so that both writers agree: what a failure's signature reads
//! off its steps ([`raced_on`], [`thread_functions`]), a test executable's
//! fingerprint ([`executable_fingerprint`]) and an exploration's setting
//! key ([`ExplorationSetting`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::failure::StepView;

/// The shard file format this crate writes and reads.
pub const SHARD_FORMAT: u32 = 1;

/// One line of a shard file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Record {
    /// What the night is: the first line.
    Header(Header),
    /// A finished chunk of runs of one stream.
    Chunk(ChunkRecord),
    /// The first failure of a chunk.
    Failure(FailureRecord),
    /// The shard stopped: complete or interrupted.
    End(EndRecord),
}

/// The night's budget: a fixed number of runs over all streams, or time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Budget {
    /// Exactly this many runs planned for the night (`--runs`).
    Runs(u64),
    /// An unbounded plan worked through for this many seconds (`--time`).
    Seconds(f64),
}

/// The first record: everything that makes the night reproducible.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// [`SHARD_FORMAT`] of the writer.
    pub format: u32,
    /// The suite's path as given.
    pub suite: String,
    /// The night's name (`--night`, by default the UTC date).
    pub night: String,
    /// The night's index: its runs are `[index << 40, (index + 1) << 40)`
    /// of every stream.
    pub night_index: u64,
    /// This shard, from 0.
    pub shard: u32,
    /// How many shards the night was split into.
    pub shards: u32,
    /// The suite seed every stream seed is derived from.
    pub suite_seed: u64,
    /// Runs per chunk.
    pub chunk_runs: u64,
    /// The night's budget.
    pub budget: Budget,
    /// The version of rankcheck that wrote the file.
    pub rankcheck: String,
    /// The programs and their streams, as this night planned them.
    pub programs: Vec<ProgramRecord>,
}

/// A program of the suite, as one night saw it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramRecord {
    /// Its name: the path relative to the suite, with its `-D` values.
    pub name: String,
    /// The path it was read from, as the suite gives it.
    pub path: String,
    /// The fingerprint of its source and `-D` values.
    pub fingerprint: String,
    /// Its streams: one per setting.
    pub streams: Vec<StreamRecord>,
}

/// One (program, setting) stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StreamRecord {
    /// The setting key, such as `pctvb d=2 v=1 pct`.
    pub setting: String,
    /// The stream seed: run `i` is seeded `run_seed(seed, i)`.
    pub seed: u64,
    /// The natural logarithm of this night's per-run bound (null where
    /// none is claimed).
    pub bound_ln: Option<f64>,
}

/// A finished chunk: runs `first_run..first_run + runs` of a stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkRecord {
    /// The program's name.
    pub program: String,
    /// Its fingerprint.
    pub fingerprint: String,
    /// The setting key.
    pub setting: String,
    /// The chunk's place in the night's plan (shard `plan_index % shards`
    /// runs it).
    pub plan_index: u64,
    /// The first run index of the chunk.
    pub first_run: u64,
    /// Runs done: the planned count, or up to and including the first
    /// failing run.
    pub runs: u64,
    /// Runs that did not fail.
    pub clean_runs: u64,
    /// Failing runs (0 or 1: a chunk stops at its first failure).
    pub failures: u64,
    /// The per-run bound's logarithm the clean runs count with.
    pub bound_ln: Option<f64>,
    /// Wall time of the chunk.
    pub elapsed_s: f64,
}

/// What a shard records of a failing run: the fields its identity (with
/// the program's version and file) and its variant are read from
/// (`rankcheck_history::identity`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Signature {
    /// `assert`, `error`, `deadlock` or `step-limit` for a `.rk` program;
    /// `panic`, `deadlock` or `step-limit` for a Rust test.
    pub kind: String,
    /// The source file of `line`, for a Rust test, whose code spans files
    /// (absent for a `.rk` program: the program's own file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The 1-based source line.
    pub line: u64,
    /// The 1-based column.
    pub column: u64,
    /// The message.
    pub message: String,
    /// The message as the failure's identity reads it: the run's values
    /// masked, for a deadlock its wait cycle only (absent in records of
    /// rankcheck before failure identities: its numbers are masked then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub masked: Option<String>,
    /// The variables its interleaving raced on, sorted.
    pub variables: Vec<String>,
    /// The functions of the threads that ran (names without `#id`),
    /// sorted.
    pub threads: Vec<String>,
}

/// A chunk's first failing run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FailureRecord {
    /// The program's name.
    pub program: String,
    /// Its fingerprint.
    pub fingerprint: String,
    /// The setting key.
    pub setting: String,
    /// The failing run's number (its index plus one), as replay files and
    /// reports count.
    pub run: u64,
    /// What identifies it.
    #[serde(flatten)]
    pub signature: Signature,
    /// What replays it: for a `.rk` program the replay file, relative to
    /// the output directory (null when the shard already wrote one for
    /// this signature this night); for a Rust test the command that
    /// replays it, `RANKCHECK_REPLAY=rc4:... cargo test ...` ([`Replay`]).
    pub replay: Option<String>,
}

/// How a shard stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EndStatus {
    /// Its share of the plan (or its time) was used up.
    Complete,
    /// SIGINT or SIGTERM stopped it after the chunk in flight.
    Interrupted,
}

/// The shard stopped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EndRecord {
    /// Why.
    pub status: EndStatus,
    /// Chunks this process finished.
    pub chunks: u64,
    /// Runs this process did.
    pub runs: u64,
    /// Its wall time.
    pub elapsed_s: f64,
}

/// What a failure record's `replay` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replay<'a> {
    /// A replay file's path.
    File(&'a str),
    /// A command that replays a Rust test's failure.
    Command(&'a str),
}

/// How a Rust test's replay command begins.
pub const REPLAY_COMMAND_PREFIX: &str = "RANKCHECK_REPLAY=";

impl<'a> Replay<'a> {
    /// Which kind `text` is.
    pub fn of(text: &'a str) -> Replay<'a> {
        if text.starts_with(REPLAY_COMMAND_PREFIX) {
            Replay::Command(text)
        } else {
            Replay::File(text)
        }
    }
}

impl Record {
    /// The record as one line, without its newline.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| unreachable!("invariant: records serialise"))
    }
}

/// A line of a shard file that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineProblem {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

/// A shard file as read: its header (if its first line is one), the
/// records after it with their line numbers, and the lines skipped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShardText {
    /// The header.
    pub header: Option<Header>,
    /// Every other record that parsed, with its 1-based line number.
    pub records: Vec<(usize, Record)>,
    /// Lines that did not parse.
    pub problems: Vec<LineProblem>,
    /// The length in bytes of the text up to the end of the last complete
    /// line: where an append may safely go after a torn write.
    pub complete_len: usize,
}

/// Read a shard file's text. A last line without its newline was cut by a
/// crash mid-write and is reported as truncated; any line that is not a
/// record is reported and skipped.
pub fn parse_shard(text: &str) -> ShardText {
    let mut out = ShardText::default();
    let mut offset = 0;
    for (i, piece) in text.split_inclusive('\n').enumerate() {
        let line = i + 1;
        let complete = piece.ends_with('\n');
        offset += piece.len();
        if complete {
            out.complete_len = offset;
        }
        let body = piece.trim_end_matches(['\n', '\r']);
        if body.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Record>(body) {
            Ok(_) if !complete => out.problems.push(LineProblem {
                line,
                message: "the last line has no newline: a write cut short, skipped".into(),
            }),
            Ok(Record::Header(header)) if out.header.is_none() && out.records.is_empty() => {
                if header.format != SHARD_FORMAT {
                    out.problems.push(LineProblem {
                        line,
                        message: format!(
                            "shard file format {}, but this rankcheck reads format {SHARD_FORMAT}",
                            header.format
                        ),
                    });
                } else {
                    out.header = Some(header);
                }
            }
            Ok(Record::Header(_)) => out.problems.push(LineProblem {
                line,
                message: "a second header, skipped".into(),
            }),
            Ok(record) => out.records.push((line, record)),
            Err(error) if !complete => out.problems.push(LineProblem {
                line,
                message: format!("truncated record (a write cut short), skipped: {error}"),
            }),
            Err(error) => out.problems.push(LineProblem {
                line,
                message: format!("not a shard record, skipped: {error}"),
            }),
        }
    }
    out
}

/// The fingerprint of a built executable (a Rust test binary): FNV-1a, 64
/// bits, over its bytes, as 16 hex digits. A rebuilt test with other code
/// has another, and starts its evidence again.
pub fn executable_fingerprint(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The variables two threads of a failing interleaving touched, at least
/// one writing: what it raced on, sorted (a [`Signature`]'s `variables`).
/// Unlike the variables where change points fired, these do not depend on
/// the strategy that found the failure, so one bug found by PCT and by POS
/// has one signature.
pub fn raced_on(steps: &[StepView]) -> Vec<String> {
    let mut readers: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut writers: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for step in steps {
        for touched in &step.touched {
            if touched.read {
                readers
                    .entry(&touched.var)
                    .or_default()
                    .insert(&step.thread);
            }
            if touched.write {
                writers
                    .entry(&touched.var)
                    .or_default()
                    .insert(&step.thread);
            }
        }
    }
    writers
        .iter()
        .filter(|(var, writing)| {
            let reading = readers
                .get(*var)
                .map_or(0, |r| r.difference(writing).count());
            writing.len() >= 2 || reading >= 1
        })
        .map(|(var, _)| var.to_string())
        .collect()
}

/// The functions of the threads of an interleaving (names without the
/// `#id` of a spawned thread), sorted: a [`Signature`]'s `threads`.
pub fn thread_functions(steps: &[StepView]) -> Vec<String> {
    let mut threads: Vec<String> = steps
        .iter()
        .map(|s| thread_function(&s.thread).to_string())
        .collect();
    threads.sort();
    threads.dedup();
    threads
}

/// A thread's function: its name without the `#id` of a spawned thread.
fn thread_function(name: &str) -> &str {
    match name.rsplit_once('#') {
        Some((function, id)) if id.chars().all(|c| c.is_ascii_digit()) => function,
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(first_run: u64) -> Record {
        Record::Chunk(ChunkRecord {
            program: "a.rk".into(),
            fingerprint: "00".into(),
            setting: "pctvb d=1 v=0 pct".into(),
            plan_index: 0,
            first_run,
            runs: 10,
            clean_runs: 10,
            failures: 0,
            bound_ln: Some(-1.0),
            elapsed_s: 0.5,
        })
    }

    #[test]
    fn a_truncated_last_line_and_a_garbled_one_are_skipped_with_their_line() {
        let mut text = String::new();
        for first in [0, 10, 20] {
            text.push_str(&chunk(first).to_line());
            text.push('\n');
        }
        text.insert_str(text.find("\n{").unwrap() + 1, "garbage\n");
        let cut = chunk(30).to_line();
        let whole = text.len();
        text.push_str(&cut[..cut.len() / 2]);
        let read = parse_shard(&text);
        assert_eq!(read.records.len(), 3);
        let lines: Vec<usize> = read.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [2, 5]);
        assert_eq!(read.complete_len, whole);
    }

    #[test]
    fn a_spawned_thread_is_known_by_its_function() {
        assert_eq!(thread_function("push#2"), "push");
        assert_eq!(thread_function("main"), "main");
        assert_eq!(thread_function("a#b"), "a#b");
    }

    #[test]
    fn records_round_trip_through_their_line() {
        let record = Record::Failure(FailureRecord {
            program: "a.rk".into(),
            fingerprint: "00".into(),
            setting: "random".into(),
            run: 3,
            signature: Signature {
                kind: "assert".into(),
                file: None,
                line: 4,
                column: 5,
                message: "m".into(),
                masked: Some("m".into()),
                variables: vec!["a".into()],
                threads: vec!["main".into(), "w".into()],
            },
            replay: Some("replays/a.replay".into()),
        });
        let read = parse_shard(&format!("{}\n", record.to_line()));
        assert_eq!(read.records, [(1, record)]);
    }
}

/// How an exploration's chunk ended, as its setting key says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExplorationEnd {
    /// Every schedule (within the bound) was explored, none failing.
    Complete,
    /// A schedule failed.
    Failed,
    /// The test turned out not to be a function of its schedule.
    Nondeterministic,
    /// The schedule cap or the time limit stopped it.
    Capped,
}

impl ExplorationEnd {
    const ALL: [ExplorationEnd; 4] = [
        ExplorationEnd::Complete,
        ExplorationEnd::Failed,
        ExplorationEnd::Nondeterministic,
        ExplorationEnd::Capped,
    ];

    /// Its word in the key.
    pub fn word(self) -> &'static str {
        match self {
            ExplorationEnd::Complete => "complete",
            ExplorationEnd::Failed => "failed",
            ExplorationEnd::Nondeterministic => "nondeterministic",
            ExplorationEnd::Capped => "capped",
        }
    }
}

/// The setting an exploration (rankcheck-rt's `explore`, the loom facade's
/// `model`) records its one chunk under: `explore complete`, or with a
/// preemption bound `explore c=2 capped`. The key is written by the Rust
/// front end's campaign chunk and read by the night's report, which
/// states a complete one as a proof; this type is both ends, so that
/// neither parses the other's prose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExplorationSetting {
    /// The preemption bound, if the exploration had one.
    pub preemption_bound: Option<u32>,
    /// How it ended.
    pub end: ExplorationEnd,
}

impl ExplorationSetting {
    /// The first word of every exploration's key.
    pub const PREFIX: &'static str = "explore";

    /// The exploration a setting key names; `None` for any other setting
    /// (a search's, such as `pctvb d=2 v=1`).
    pub fn parse(key: &str) -> Option<ExplorationSetting> {
        let mut words = key.split(' ');
        if words.next() != Some(Self::PREFIX) {
            return None;
        }
        let mut preemption_bound = None;
        let mut word = words.next()?;
        if let Some(bound) = word.strip_prefix("c=") {
            preemption_bound = Some(bound.parse().ok()?);
            word = words.next()?;
        }
        let end = ExplorationEnd::ALL.into_iter().find(|e| e.word() == word)?;
        match words.next() {
            None => Some(ExplorationSetting {
                preemption_bound,
                end,
            }),
            Some(_) => None,
        }
    }

    /// What it claims when no chunk of it failed: every schedule (within
    /// the bound) when complete, nothing otherwise.
    pub fn claim(self) -> String {
        match (self.end, self.preemption_bound) {
            (ExplorationEnd::Complete, None) => "proved: every schedule".into(),
            (ExplorationEnd::Complete, Some(c)) => {
                format!("proved: every schedule with at most {c} preemptions")
            }
            _ => "none: the exploration did not finish".into(),
        }
    }
}

impl std::fmt::Display for ExplorationSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(Self::PREFIX)?;
        if let Some(c) = self.preemption_bound {
            write!(f, " c={c}")?;
        }
        write!(f, " {}", self.end.word())
    }
}

#[cfg(test)]
mod exploration_setting_tests {
    use super::*;

    #[test]
    fn every_key_reads_back_as_written() {
        for end in ExplorationEnd::ALL {
            for preemption_bound in [None, Some(0), Some(2)] {
                let setting = ExplorationSetting {
                    preemption_bound,
                    end,
                };
                assert_eq!(
                    ExplorationSetting::parse(&setting.to_string()),
                    Some(setting)
                );
            }
        }
    }

    #[test]
    fn the_keys_are_the_history_s() {
        let bounded = ExplorationSetting {
            preemption_bound: Some(2),
            end: ExplorationEnd::Complete,
        };
        assert_eq!(bounded.to_string(), "explore c=2 complete");
        assert_eq!(
            bounded.claim(),
            "proved: every schedule with at most 2 preemptions"
        );
        let capped = ExplorationSetting::parse("explore capped").expect("a key");
        assert_eq!(capped.claim(), "none: the exploration did not finish");
    }

    #[test]
    fn a_search_s_setting_is_no_exploration() {
        for key in [
            "pctvb d=2 v=1",
            "explorer",
            "explore",
            "explore c=x complete",
            "explore done",
        ] {
            assert_eq!(ExplorationSetting::parse(key), None, "{key}");
        }
    }
}
