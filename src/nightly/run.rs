//! Working through this shard's share of the night's plan: each chunk is a
//! search of one stream over its range of runs, recorded in the shard file
//! as soon as it ends, until the plan or the time is used up or a signal
//! arrives (which lets the chunk in flight finish).

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use rankcheck_engine::{search_plan, SearchConfig, SearchResult};
use rankcheck_history::{chunk_ln_miss, ChunkRecord, FailureRecord, Identity, Record};

use crate::interrupt;

use super::night_plan::{NightPlan, PlannedChunk};
use super::rust_chunk::{RustChunk, RustRun};
use super::shard::{Resumed, ShardFile, ShardSpec};
use super::signature::{examine, write_replay};
use super::stream::{ProgramRun, Stream};

/// What one program got from this process.
#[derive(Clone, Debug, Default)]
pub struct ProgramTotals {
    /// Chunks finished.
    pub chunks: u64,
    /// Runs done.
    pub runs: u64,
    /// Failing chunks.
    pub failures: u64,
    /// The identity keys of the distinct failures met.
    pub failures_distinct: BTreeSet<String>,
}

/// What this process did.
#[derive(Clone, Debug, Default)]
pub struct ShareDone {
    /// Per program of the suite that loaded, then per Rust test.
    pub programs: Vec<ProgramTotals>,
    /// Whether a signal stopped it.
    pub interrupted: bool,
    /// Whether a Rust test's executable failed to run a chunk (each said
    /// on stderr; the test's later chunks are skipped).
    pub broken: bool,
    /// Wall time.
    pub elapsed: f64,
}

/// Where the streams are: (program, stream within it) by flat index; a
/// program index past the programs is a Rust test's (the tests follow
/// the programs), whose one planned stream runs all its settings.
pub type StreamIndex = Vec<(usize, usize)>;

/// How this process works through its share.
pub struct Share<'a> {
    /// The loaded programs.
    pub programs: &'a [ProgramRun],
    /// The Rust tests.
    pub rust: &'a [RustRun],
    /// Flat stream index.
    pub streams: &'a StreamIndex,
    /// Accumulated `ln` miss per flat stream before this night.
    pub prior_ln_miss: Vec<f64>,
    /// This shard.
    pub shard: ShardSpec,
    /// The output directory (replay files go under it).
    pub out: &'a Path,
    /// Worker threads of each chunk's search.
    pub jobs: usize,
    /// When to stop taking chunks.
    pub deadline: Option<Instant>,
}

impl Share<'_> {
    /// Do this shard's chunks of `plan` that `resumed` does not already
    /// hold, appending each to `file`.
    pub fn run(
        &self,
        plan: NightPlan,
        file: &mut ShardFile,
        resumed: &mut Resumed,
    ) -> Result<ShareDone> {
        let started = Instant::now();
        let mut done = ShareDone {
            programs: vec![ProgramTotals::default(); self.programs.len() + self.rust.len()],
            ..ShareDone::default()
        };
        let mut ln_miss = self.prior_ln_miss.clone();
        let lines = ProgressLines::new(&self.names());
        let mut broken = BTreeSet::new();
        let shard = self.shard;
        for chunk in plan.filter(|c| shard.owns(c.index)) {
            if interrupt::requested() {
                done.interrupted = true;
                break;
            }
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            if resumed.chunks.contains(&chunk.index) {
                continue;
            }
            let (p, s) = self.streams[chunk.stream];
            if broken.contains(&p) {
                continue;
            }
            let Some((records, path)) = self.chunk_records(p, s, &chunk, resumed)? else {
                // A Rust test that gave no records is not run again tonight.
                broken.insert(p);
                done.broken = true;
                continue;
            };
            file.append(&records)?;
            resumed.chunks.insert(chunk.index);
            let totals = &mut done.programs[p];
            totals.chunks += 1;
            for record in &records {
                if let Record::Failure(f) = record {
                    totals.failures += 1;
                    let identity = Identity::of(&f.signature, &f.fingerprint, &path);
                    totals.failures_distinct.insert(identity.key());
                }
                if let Record::Chunk(c) = record {
                    totals.runs += c.runs;
                    ln_miss[chunk.stream] += chunk_ln_miss(c.bound_ln, c.clean_runs).unwrap_or(0.0);
                }
            }
            lines.update(p, totals, self.lowest_confidence(p, &ln_miss));
        }
        lines.finish();
        done.interrupted |= interrupt::requested();
        done.elapsed = started.elapsed().as_secs_f64();
        Ok(done)
    }

    /// The names of the programs, then of the Rust tests.
    fn names(&self) -> Vec<String> {
        let programs = self.programs.iter().map(|p| p.spec.name.clone());
        programs
            .chain(self.rust.iter().map(|r| r.test.name.clone()))
            .collect()
    }

    /// Do one chunk of program (or Rust test) `p`'s stream `s`: its
    /// records and the file its failures' identity names; `None` when a
    /// Rust test's executable gave no records (said on stderr).
    fn chunk_records(
        &self,
        p: usize,
        s: usize,
        chunk: &PlannedChunk,
        resumed: &mut Resumed,
    ) -> Result<Option<(Vec<Record>, String)>> {
        let Some(program) = self.programs.get(p) else {
            let rust = &self.rust[p - self.programs.len()];
            let share = RustChunk {
                plan_index: chunk.index,
                first_run: chunk.first_run,
                runs: chunk.runs,
            };
            return Ok(match rust.chunk(share) {
                Ok(records) => Some((records, rust.test.path())),
                Err(error) => {
                    errln!(
                        "error: {}: test {}: {error:#}",
                        rust.test.spec.entry,
                        rust.test.test
                    );
                    None
                }
            });
        };
        let stream = &program.streams[s];
        let started = Instant::now();
        let result = self.search(program, stream, chunk);
        let elapsed = started.elapsed().as_secs_f64();
        let records = self.records(program, stream, chunk, &result, elapsed, resumed)?;
        Ok(Some((records, program.path())))
    }

    /// Search one chunk: runs `first_run..first_run + runs` of the stream,
    /// stopping at the first failure.
    fn search(&self, program: &ProgramRun, stream: &Stream, chunk: &PlannedChunk) -> SearchResult {
        let config = SearchConfig {
            first_run: chunk.first_run,
            runs: chunk.runs,
            seed: stream.seed,
            limits: program.limits,
            keep_going: false,
            jobs: self.jobs,
        };
        // The chunk in flight always finishes: a signal is looked at
        // between chunks, so that what is recorded is whole.
        let keep_running = |_: u64| true;
        search_plan(&stream.plan, &program.executables, &config, &keep_running)
    }

    /// The chunk's records: its failure (with a replay file the first time
    /// this shard meets the failure this night), then the chunk.
    fn records(
        &self,
        program: &ProgramRun,
        stream: &Stream,
        chunk: &PlannedChunk,
        result: &SearchResult,
        elapsed: f64,
        resumed: &mut Resumed,
    ) -> Result<Vec<Record>> {
        let mut records = Vec::new();
        if let Some(failure) = &result.first_failure {
            let examined = examine(program, stream, failure)?;
            let key =
                Identity::of(&examined.signature, &program.fingerprint, &program.path()).key();
            let replay = if resumed.replays.contains(&key) {
                None
            } else {
                match write_replay(self.out, program, examined.replay) {
                    Ok(path) => {
                        resumed.replays.insert(key);
                        Some(path)
                    }
                    Err(error) => {
                        errln!("warning: {error:#}");
                        None
                    }
                }
            };
            records.push(Record::Failure(FailureRecord {
                program: program.spec.name.clone(),
                fingerprint: program.fingerprint.clone(),
                setting: stream.key.clone(),
                run: failure.run,
                signature: examined.signature,
                replay,
            }));
        }
        records.push(Record::Chunk(ChunkRecord {
            program: program.spec.name.clone(),
            fingerprint: program.fingerprint.clone(),
            setting: stream.key.clone(),
            plan_index: chunk.index,
            first_run: chunk.first_run,
            runs: result.runs,
            clean_runs: result.runs - result.failures,
            failures: result.failures,
            bound_ln: stream.bound.map(|b| b.ln()),
            elapsed_s: elapsed,
        }));
        Ok(records)
    }

    /// The lowest confidence among program `p`'s bounded streams.
    fn lowest_confidence(&self, p: usize, ln_miss: &[f64]) -> Option<f64> {
        self.streams
            .iter()
            .enumerate()
            .filter(|(_, &(program, s))| {
                program == p
                    && self
                        .programs
                        .get(p)
                        .is_some_and(|p| p.streams[s].bound.is_some())
            })
            .map(|(i, _)| (-ln_miss[i].exp_m1()).max(0.0))
            .reduce(f64::min)
    }
}

/// One progress line per program on stderr, only on a terminal.
struct ProgressLines {
    _group: MultiProgress,
    bars: Vec<ProgressBar>,
    names: Vec<String>,
}

impl ProgressLines {
    fn new(names: &[String]) -> ProgressLines {
        let names = names.to_vec();
        if !std::io::stderr().is_terminal() {
            return ProgressLines {
                _group: MultiProgress::with_draw_target(ProgressDrawTarget::hidden()),
                bars: names.iter().map(|_| ProgressBar::hidden()).collect(),
                names,
            };
        }
        let group = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
        let bars = names
            .iter()
            .map(|name| {
                let bar = group.add(ProgressBar::new_spinner());
                if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed} {msg}") {
                    bar.set_style(style);
                }
                bar.set_message(format!("{name}: waiting"));
                bar
            })
            .collect();
        ProgressLines {
            _group: group,
            bars,
            names,
        }
    }

    fn update(&self, p: usize, totals: &ProgramTotals, confidence: Option<f64>) {
        let bar = &self.bars[p];
        if bar.is_hidden() {
            return;
        }
        let mut message = format!(
            "{}: {} runs in {} chunks, {} failing",
            self.names[p], totals.runs, totals.chunks, totals.failures
        );
        if let Some(c) = confidence {
            message.push_str(&format!(", lowest confidence {c:.4}"));
        }
        bar.set_message(message);
        bar.tick();
    }

    fn finish(&self) {
        for bar in &self.bars {
            bar.finish_and_clear();
        }
    }
}
