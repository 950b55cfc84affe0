//! A Rust test's share of the night: each chunk of its runs is one run of
//! its test executable (`--exact NAME`), steered by the environment rt
//! reads (`RANKCHECK_SEED`, `RANKCHECK_RUNS`, `RANKCHECK_FIRST_RUN`), which
//! appends its shard records to `RANKCHECK_RECORDS` (rt's `campaign`):
//! a chunk record per setting of its search, after the failure's. Before
//! the first chunk, a run of no runs (the preparatory runs only) tells the
//! settings and their bounds, which the shard file's header lists.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anyhow::{bail, Context, Result};
use rankcheck_history::{parse_shard, Record, ShardText, StreamRecord, REPLAY_COMMAND_PREFIX};
use rankcheck_report::shard::ExplorationSetting;

use super::rust_build::RustTest;
use super::stream::stream_seed;

/// The stream key a Rust test's seed is derived with (and its name): the
/// test runs its settings under one master seed, as `check` does.
const SEED_KEY: &str = "rankcheck-rt";

/// A Rust test ready for the night: its seed and its settings.
pub struct RustRun {
    /// The test.
    pub test: RustTest,
    /// The master seed of every chunk's search.
    pub seed: u64,
    /// Its settings as the header lists them.
    pub streams: Vec<StreamRecord>,
    /// Where a chunk's records are written before they join the shard
    /// file.
    scratch: PathBuf,
}

/// One chunk of a Rust test: runs `first_run..first_run + runs`.
#[derive(Clone, Copy, Debug)]
pub struct RustChunk {
    /// The chunk's place in the plan.
    pub plan_index: u64,
    /// Its first run index.
    pub first_run: u64,
    /// Its runs.
    pub runs: u64,
}

/// Ready `test` for the night: its seed, and its settings from a run of
/// its preparatory runs alone. `scratch` is a file of this shard's own.
pub fn rust_run(test: RustTest, suite_seed: u64, scratch: PathBuf) -> Result<RustRun> {
    let key = format!("{SEED_KEY} {}", test.test);
    let seed = stream_seed(suite_seed, &test.executable.fingerprint, &key);
    let mut run = RustRun {
        test,
        seed,
        streams: Vec::new(),
        scratch,
    };
    let probe = RustChunk {
        plan_index: 0,
        first_run: 0,
        runs: 0,
    };
    for record in run.chunk(probe)? {
        if let Record::Chunk(c) = record {
            if !run.streams.iter().any(|s| s.setting == c.setting) {
                run.streams.push(StreamRecord {
                    setting: c.setting,
                    seed,
                    bound_ln: c.bound_ln,
                });
            }
        }
    }
    Ok(run)
}

impl RustRun {
    /// Whether the test's only work is an exploration (its settings are
    /// all explorations: the loom facade's `model`, rt's `explore`): a
    /// function of the test, so a night runs it once.
    pub fn explores_only(&self) -> bool {
        !self.streams.is_empty()
            && self
                .streams
                .iter()
                .all(|s| ExplorationSetting::parse(&s.setting).is_some())
    }

    /// Run one chunk: its records, named as the history knows the test,
    /// with the command that replays a failure; or why the test executable
    /// gave none (it crashed, or the test does not call `rankcheck::check`).
    pub fn chunk(&self, chunk: RustChunk) -> Result<Vec<Record>> {
        let _ = std::fs::remove_file(&self.scratch);
        let output = self.execute(chunk)?;
        let text = std::fs::read_to_string(&self.scratch).unwrap_or_default();
        let _ = std::fs::remove_file(&self.scratch);
        let read = parse_shard(&text);
        whole(&read, &output)?;
        read.records
            .into_iter()
            .map(|(_, record)| self.named(record, chunk))
            .collect()
    }

    /// `record` as the shard file holds it: the test's name in the
    /// history, the chunk's place in the plan, the full replay command.
    fn named(&self, record: Record, chunk: RustChunk) -> Result<Record> {
        let fingerprint = &self.test.executable.fingerprint;
        Ok(match record {
            Record::Chunk(mut c) => {
                self.same_build(&c.fingerprint)?;
                c.program = self.test.name.clone();
                c.fingerprint = fingerprint.clone();
                c.plan_index = chunk.plan_index;
                Record::Chunk(c)
            }
            Record::Failure(mut f) => {
                self.same_build(&f.fingerprint)?;
                f.program = self.test.name.clone();
                f.fingerprint = fingerprint.clone();
                f.replay = f
                    .replay
                    .as_deref()
                    .and_then(replay_string)
                    .map(|replay| self.test.replay_command(replay));
                Record::Failure(f)
            }
            other => other,
        })
    }

    /// The records must come from the executable that was fingerprinted.
    fn same_build(&self, recorded: &str) -> Result<()> {
        if recorded != self.test.executable.fingerprint {
            bail!(
                "{} changed during the night (fingerprint {recorded}, built {})",
                self.test.executable.path.display(),
                self.test.executable.fingerprint
            );
        }
        Ok(())
    }

    /// The test executable, on the one test, with the chunk's share.
    fn execute(&self, chunk: RustChunk) -> Result<Output> {
        let executable = &self.test.executable;
        let mut command = Command::new(&executable.path);
        // A group of its own: a SIGINT from the terminal stops the night
        // after the chunk in flight, which this run is, as for a program.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        command
            .args([
                "--exact",
                &self.test.test,
                "--include-ignored",
                "--test-threads=1",
            ])
            .current_dir(&executable.package_dir)
            .env("RANKCHECK_SEED", self.seed.to_string())
            .env("RANKCHECK_RUNS", chunk.runs.to_string())
            .env("RANKCHECK_FIRST_RUN", chunk.first_run.to_string())
            .env("RANKCHECK_RECORDS", &self.scratch)
            .envs(&self.test.spec.env)
            .env_remove("RANKCHECK_TIME")
            .env_remove("RANKCHECK_REPLAY")
            .output()
            .with_context(|| format!("cannot run {}", executable.path.display()))
    }
}

/// Whether the records a run of the test executable left are one whole
/// search: a chunk record per setting, once each, and a failure record if
/// the test failed.
fn whole(read: &ShardText, output: &Output) -> Result<()> {
    let failed = read
        .records
        .iter()
        .any(|(_, r)| matches!(r, Record::Failure(_)));
    let settings: Vec<&str> = read
        .records
        .iter()
        .filter_map(|(_, r)| match r {
            Record::Chunk(c) => Some(c.setting.as_str()),
            _ => None,
        })
        .collect();
    let distinct: BTreeSet<&str> = settings.iter().copied().collect();
    if distinct.len() < settings.len() {
        bail!(
            "the test calls rankcheck::check more than once: a campaign counts one search per test"
        );
    }
    if !output.status.success() && !failed {
        bail!(
            "the test executable exited with {} and recorded no failure (a crash, or a panic outside rankcheck::check):\n{}",
            output.status,
            tail(output)
        );
    }
    if settings.is_empty() || !read.problems.is_empty() {
        bail!(
            "the test recorded no search (does it call rankcheck::check?)\n{}",
            tail(output)
        );
    }
    Ok(())
}

/// The replay string of rt's replay command (`RANKCHECK_REPLAY=rc4:...
/// cargo test NAME`).
fn replay_string(command: &str) -> Option<&str> {
    command
        .strip_prefix(REPLAY_COMMAND_PREFIX)?
        .split_whitespace()
        .next()
}

/// The last lines the test executable printed, for an error.
fn tail(output: &Output) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

/// The scratch file of test `i` of this shard.
pub fn scratch_path(night_dir: &Path, shard: &str, i: usize) -> PathBuf {
    night_dir.join(format!(".{shard}-rust-{i}.jsonl"))
}
