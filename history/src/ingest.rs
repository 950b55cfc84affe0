//! Merging a shard file into the history. Every row has a natural key (a
//! chunk is its stream and first run, a sighting its stream and run), and
//! rows already there are left alone, so ingesting a file twice, or two
//! files that overlap, changes nothing the second time.

use rankcheck_stats::Probability;
use rusqlite::{params, OptionalExtension, Transaction};

use crate::error::HistoryError;
use crate::identity::{Identity, Variant};
use crate::record::{Budget, ChunkRecord, FailureRecord, Header, LineProblem, Record};
use crate::schema::failure_and_variant;
use crate::store::History;

/// What an ingest added.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ingested {
    /// Chunks new to the history.
    pub chunks_new: u64,
    /// Chunks it already had.
    pub chunks_known: u64,
    /// Failure sightings new to the history.
    pub sightings_new: u64,
    /// Sightings it already had.
    pub sightings_known: u64,
    /// Records that name a stream the header does not list.
    pub skipped: Vec<LineProblem>,
}

/// The key of a stream in a shard file: program, fingerprint, setting.
type StreamKey = (String, String, String);

/// A stream's row and what a failure met on it is identified with.
struct StreamRow {
    stream_id: i64,
    program_id: i64,
    fingerprint_id: i64,
    /// The program's file, as the suite names it.
    path: String,
    fingerprint: String,
}

impl History {
    /// Ingest one shard file's header and records; `replay_path` turns a
    /// replay path as the file gives it (relative to its output directory)
    /// into the one the history keeps. One transaction: all or nothing.
    pub fn ingest(
        &mut self,
        header: &Header,
        records: &[(usize, Record)],
        replay_path: &dyn Fn(&str) -> String,
    ) -> Result<Ingested, HistoryError> {
        let path = self.path.clone();
        let sqlite = |e| HistoryError::Sqlite {
            path: path.clone(),
            source: e,
        };
        let tx = self.conn.transaction().map_err(sqlite)?;
        let night_id = night(&tx, header).map_err(|e| e.into_history(&path))?;
        let streams = streams(&tx, header, night_id).map_err(sqlite)?;
        let mut done = Ingested::default();
        for (line, record) in records {
            let key = match record {
                Record::Chunk(c) => (&c.program, &c.fingerprint, &c.setting),
                Record::Failure(f) => (&f.program, &f.fingerprint, &f.setting),
                Record::Header(_) | Record::End(_) => continue,
            };
            let key: StreamKey = (key.0.clone(), key.1.clone(), key.2.clone());
            let Some(stream) = streams.get(&key) else {
                done.skipped.push(LineProblem {
                    line: *line,
                    message: format!(
                        "names a stream the header does not list ({} {} {}), skipped",
                        key.0, key.1, key.2
                    ),
                });
                continue;
            };
            match record {
                Record::Chunk(chunk) => {
                    let new = chunk_row(&tx, chunk, stream.stream_id, night_id, header)
                        .map_err(sqlite)?;
                    if new {
                        done.chunks_new += 1;
                    } else {
                        done.chunks_known += 1;
                    }
                }
                Record::Failure(failure) => {
                    let new =
                        sighting(&tx, failure, stream, night_id, replay_path).map_err(sqlite)?;
                    if new {
                        done.sightings_new += 1;
                    } else {
                        done.sightings_known += 1;
                    }
                }
                Record::Header(_) | Record::End(_) => {}
            }
        }
        tx.commit().map_err(sqlite)?;
        Ok(done)
    }
}

/// Why a night could not be recorded.
enum NightError {
    Sqlite(rusqlite::Error),
    Mismatch(String),
}

impl From<rusqlite::Error> for NightError {
    fn from(e: rusqlite::Error) -> Self {
        NightError::Sqlite(e)
    }
}

impl NightError {
    fn into_history(self, path: &std::path::Path) -> HistoryError {
        match self {
            NightError::Sqlite(source) => HistoryError::Sqlite {
                path: path.to_path_buf(),
                source,
            },
            NightError::Mismatch(message) => HistoryError::Mismatch(message),
        }
    }
}

/// The night's row, made on first sight. A shard file must agree with what
/// the history already says of its night: the index, seed, chunk size and
/// budget decide which runs are which, so a disagreement could count a run
/// twice.
fn night(tx: &Transaction, header: &Header) -> Result<i64, NightError> {
    let budget = serde_json::to_string(&header.budget)
        .unwrap_or_else(|_| unreachable!("invariant: a budget serialises"));
    let known: Option<(i64, i64, String, i64, String)> = tx
        .query_row(
            "SELECT id, night_index, suite_seed, chunk_runs, budget FROM nights WHERE name = ?1",
            [&header.night],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .optional()?;
    if let Some((id, index, seed, chunk_runs, known_budget)) = known {
        let known_budget: Option<Budget> = serde_json::from_str(&known_budget).ok();
        let same_budget = match (known_budget, header.budget) {
            (Some(Budget::Runs(a)), Budget::Runs(b)) => a == b,
            (Some(Budget::Seconds(_)), Budget::Seconds(_)) => true,
            _ => false,
        };
        if index as u64 != header.night_index
            || seed != header.suite_seed.to_string()
            || chunk_runs as u64 != header.chunk_runs
            || !same_budget
        {
            return Err(NightError::Mismatch(format!(
                "night {} is recorded with index {index}, seed {seed}, chunks of {chunk_runs} runs and budget {}, but this file has index {}, seed {}, chunks of {} and budget {budget}: its runs would not be the same runs",
                header.night, budget_text(known_budget), header.night_index, header.suite_seed, header.chunk_runs
            )));
        }
        return Ok(id);
    }
    let taken: Option<String> = tx
        .query_row(
            "SELECT name FROM nights WHERE night_index = ?1",
            [header.night_index as i64],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(other) = taken {
        return Err(NightError::Mismatch(format!(
            "night {} has index {}, which night {other} already has: was the shard planned against another history?",
            header.night, header.night_index
        )));
    }
    tx.execute(
        "INSERT INTO nights (name, night_index, suite, suite_seed, chunk_runs, budget) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            header.night,
            header.night_index as i64,
            header.suite,
            header.suite_seed.to_string(),
            header.chunk_runs as i64,
            budget
        ],
    )?;
    Ok(tx.last_insert_rowid())
}

/// A budget as the history stores it, for messages.
fn budget_text(budget: Option<Budget>) -> String {
    budget
        .and_then(|b| serde_json::to_string(&b).ok())
        .unwrap_or_else(|| "?".into())
}

/// The ids of the header's streams (and their programs), made on first
/// sight.
fn streams(
    tx: &Transaction,
    header: &Header,
    night_id: i64,
) -> rusqlite::Result<std::collections::BTreeMap<StreamKey, StreamRow>> {
    let mut ids = std::collections::BTreeMap::new();
    for program in &header.programs {
        tx.execute(
            "INSERT OR IGNORE INTO programs (name) VALUES (?1)",
            [&program.name],
        )?;
        let program_id: i64 = tx.query_row(
            "SELECT id FROM programs WHERE name = ?1",
            [&program.name],
            |r| r.get(0),
        )?;
        tx.execute(
            "INSERT OR IGNORE INTO fingerprints (program_id, fingerprint, path, first_night_id) VALUES (?1, ?2, ?3, ?4)",
            params![program_id, program.fingerprint, program.path, night_id],
        )?;
        let fingerprint_id: i64 = tx.query_row(
            "SELECT id FROM fingerprints WHERE program_id = ?1 AND fingerprint = ?2",
            params![program_id, program.fingerprint],
            |r| r.get(0),
        )?;
        for stream in &program.streams {
            let seed = stream.seed.to_string();
            tx.execute(
                "INSERT OR IGNORE INTO streams (fingerprint_id, setting, seed) VALUES (?1, ?2, ?3)",
                params![fingerprint_id, stream.setting, seed],
            )?;
            let stream_id: i64 = tx.query_row(
                "SELECT id FROM streams WHERE fingerprint_id = ?1 AND setting = ?2 AND seed = ?3",
                params![fingerprint_id, stream.setting, seed],
                |r| r.get(0),
            )?;
            ids.insert(
                (
                    program.name.clone(),
                    program.fingerprint.clone(),
                    stream.setting.clone(),
                ),
                StreamRow {
                    stream_id,
                    program_id,
                    fingerprint_id,
                    path: program.path.clone(),
                    fingerprint: program.fingerprint.clone(),
                },
            );
        }
    }
    Ok(ids)
}

/// `ln` of the probability that every clean run of a chunk missed a bug its
/// bound covers: `clean * ln(1 - p)`.
pub fn chunk_ln_miss(bound_ln: Option<f64>, clean_runs: u64) -> Option<f64> {
    let bound = Probability::from_ln(bound_ln?).ok()?;
    Some(bound.complement().repeated(clean_runs).ln())
}

/// Add a chunk; whether it was new.
fn chunk_row(
    tx: &Transaction,
    chunk: &ChunkRecord,
    stream_id: i64,
    night_id: i64,
    header: &Header,
) -> rusqlite::Result<bool> {
    let changed = tx.execute(
        "INSERT OR IGNORE INTO chunks (stream_id, first_run, night_id, shard, shards, plan_index, runs, clean_runs, failures, bound_ln, ln_miss, elapsed_s)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![
            stream_id,
            chunk.first_run as i64,
            night_id,
            header.shard,
            header.shards,
            chunk.plan_index as i64,
            chunk.runs as i64,
            chunk.clean_runs as i64,
            chunk.failures as i64,
            chunk.bound_ln,
            chunk_ln_miss(chunk.bound_ln, chunk.clean_runs),
            chunk.elapsed_s
        ],
    )?;
    Ok(changed > 0)
}

/// Add a failure's sighting, and the failure (by its identity) and the
/// sighting's variant on their first; whether the sighting was new.
fn sighting(
    tx: &Transaction,
    failure: &FailureRecord,
    stream: &StreamRow,
    night_id: i64,
    replay_path: &dyn Fn(&str) -> String,
) -> rusqlite::Result<bool> {
    let identity = Identity::of(&failure.signature, &stream.fingerprint, &stream.path);
    let variant = Variant::of(&failure.signature);
    let (failure_id, variant_id) = failure_and_variant(
        tx,
        stream.program_id,
        stream.fingerprint_id,
        &identity,
        &variant,
    )?;
    let changed = tx.execute(
        "INSERT OR IGNORE INTO sightings (failure_id, variant_id, stream_id, night_id, run, replay) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            failure_id,
            variant_id,
            stream.stream_id,
            night_id,
            failure.run as i64,
            failure.replay.as_deref().map(replay_path)
        ],
    )?;
    Ok(changed > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{ChunkRecord, ProgramRecord, StreamRecord, SHARD_FORMAT};

    fn header(night: &str, index: u64) -> Header {
        Header {
            format: SHARD_FORMAT,
            suite: "suite".into(),
            night: night.into(),
            night_index: index,
            shard: 0,
            shards: 1,
            suite_seed: 1,
            chunk_runs: 10,
            budget: Budget::Runs(20),
            rankcheck: "test".into(),
            programs: vec![ProgramRecord {
                name: "p".into(),
                path: "p.rk".into(),
                fingerprint: "f".into(),
                streams: vec![StreamRecord {
                    setting: "s".into(),
                    seed: 9,
                    bound_ln: Some(-2.0),
                }],
            }],
        }
    }

    fn chunk(first_run: u64) -> (usize, Record) {
        (
            2,
            Record::Chunk(ChunkRecord {
                program: "p".into(),
                fingerprint: "f".into(),
                setting: "s".into(),
                plan_index: first_run / 10,
                first_run,
                runs: 10,
                clean_runs: 10,
                failures: 0,
                bound_ln: Some(-2.0),
                elapsed_s: 0.1,
            }),
        )
    }

    #[test]
    fn ingesting_twice_adds_nothing_and_a_contradicting_night_is_refused() {
        let dir = std::env::temp_dir().join(format!("rankcheck-ingest-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut history = History::open(&dir.join("h.sqlite")).unwrap();
        let records = [chunk(0), chunk(10)];
        let same = |r: &str| r.to_string();
        let first = history.ingest(&header("n", 0), &records, &same).unwrap();
        assert_eq!((first.chunks_new, first.chunks_known), (2, 0));
        let second = history.ingest(&header("n", 0), &records, &same).unwrap();
        assert_eq!((second.chunks_new, second.chunks_known), (0, 2));
        let evidence = history.evidence(None).unwrap();
        assert_eq!(evidence.len(), 1);
        assert_eq!(evidence[0].runs, 20);
        let expected = chunk_ln_miss(Some(-2.0), 10).unwrap() * 2.0;
        assert_eq!(evidence[0].ln_miss, Some(expected));
        let moved = history.ingest(&header("n", 1), &records, &same);
        assert!(matches!(moved, Err(HistoryError::Mismatch(_))));
        let taken = history.ingest(&header("m", 0), &records, &same);
        assert!(matches!(taken, Err(HistoryError::Mismatch(_))));
        assert_eq!(history.next_night_index().unwrap(), 1);
    }
}
