//! What the history says: its nights, the evidence accumulated per
//! (program, fingerprint, setting), and its failures with when they were
//! seen. Sums are taken in Rust in a fixed order (night, seed, first run),
//! so the same chunks give the same bits however they were merged.

use std::collections::BTreeMap;

use rusqlite::{params, OptionalExtension};

use crate::error::HistoryError;
use crate::record::{Budget, Signature};
use crate::store::History;

/// A night as recorded.
#[derive(Clone, Debug, PartialEq)]
pub struct Night {
    /// Its name.
    pub name: String,
    /// Its index: its runs are `[index << 40, (index + 1) << 40)`.
    pub index: u64,
    /// The suite it ran.
    pub suite: String,
    /// The suite seed.
    pub suite_seed: u64,
    /// Runs per chunk.
    pub chunk_runs: u64,
    /// Its budget.
    pub budget: Option<Budget>,
}

/// The evidence one (program, fingerprint, setting) has accumulated.
#[derive(Clone, Debug, PartialEq)]
pub struct Evidence {
    /// The program's name.
    pub program: String,
    /// Its fingerprint.
    pub fingerprint: String,
    /// The setting key.
    pub setting: String,
    /// Chunks recorded.
    pub chunks: u64,
    /// Runs done.
    pub runs: u64,
    /// Runs that did not fail.
    pub clean_runs: u64,
    /// Failing runs.
    pub failures: u64,
    /// Nights with runs.
    pub nights: u64,
    /// The last night with runs.
    pub last_night_index: u64,
    /// Runs done in that night.
    pub last_night_runs: u64,
    /// Its per-run bound that night.
    pub last_bound_ln: Option<f64>,
    /// `ln` of the probability that every clean run missed a bug of the
    /// setting's class: the sum over chunks of `clean * ln(1 - p_chunk)`.
    /// `None` when no chunk had a bound.
    pub ln_miss: Option<f64>,
}

/// A failure with its history.
#[derive(Clone, Debug, PartialEq)]
pub struct FailureSummary {
    /// The program's name.
    pub program: String,
    /// What identifies it.
    pub signature: Signature,
    /// [`Signature::key`].
    pub key: String,
    /// The first night it was seen.
    pub first_night: u64,
    /// The last night it was seen.
    pub last_night: u64,
    /// Failing chunks that met it.
    pub count: u64,
    /// Its replay file (from its latest sighting), as stored.
    pub replay: Option<String>,
    /// The fingerprint of the program that replay file belongs to.
    pub replay_fingerprint: Option<String>,
}

impl History {
    /// Every night, in index order.
    pub fn nights(&self) -> Result<Vec<Night>, HistoryError> {
        let mut statement = self
            .conn
            .prepare("SELECT name, night_index, suite, suite_seed, chunk_runs, budget FROM nights ORDER BY night_index")
            .map_err(|e| self.error(e))?;
        let rows = statement
            .query_map([], |r| {
                Ok(Night {
                    name: r.get(0)?,
                    index: r.get::<_, i64>(1)? as u64,
                    suite: r.get(2)?,
                    suite_seed: r.get::<_, String>(3)?.parse().unwrap_or(0),
                    chunk_runs: r.get::<_, i64>(4)? as u64,
                    budget: serde_json::from_str(&r.get::<_, String>(5)?).ok(),
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.error(e))?;
        Ok(rows)
    }

    /// The night called `name`, if recorded.
    pub fn night(&self, name: &str) -> Result<Option<Night>, HistoryError> {
        Ok(self.nights()?.into_iter().find(|n| n.name == name))
    }

    /// The index the next new night takes: one past the highest.
    pub fn next_night_index(&self) -> Result<u64, HistoryError> {
        let highest: Option<i64> = self
            .conn
            .query_row("SELECT MAX(night_index) FROM nights", [], |r| r.get(0))
            .optional()
            .map_err(|e| self.error(e))?
            .flatten();
        Ok(highest.map_or(0, |h| h as u64 + 1))
    }

    /// The evidence of every (program, fingerprint, setting), from the
    /// nights before `before` (every night when `None`).
    pub fn evidence(&self, before: Option<u64>) -> Result<Vec<Evidence>, HistoryError> {
        let limit = before.map_or(i64::MAX, |b| b as i64);
        let mut statement = self
            .conn
            .prepare(
                "SELECT p.name, f.fingerprint, s.setting, n.night_index, c.runs, c.clean_runs,
                        c.failures, c.ln_miss, c.bound_ln
                 FROM chunks c
                 JOIN streams s ON s.id = c.stream_id
                 JOIN fingerprints f ON f.id = s.fingerprint_id
                 JOIN programs p ON p.id = f.program_id
                 JOIN nights n ON n.id = c.night_id
                 WHERE n.night_index < ?1
                 ORDER BY p.name, f.fingerprint, s.setting, n.night_index, s.seed, c.first_run",
            )
            .map_err(|e| self.error(e))?;
        let mut rows = statement.query(params![limit]).map_err(|e| self.error(e))?;
        let mut all: BTreeMap<(String, String, String), Evidence> = BTreeMap::new();
        while let Some(row) = rows.next().map_err(|e| self.error(e))? {
            let read = || -> rusqlite::Result<_> {
                Ok((
                    (
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                    ),
                    row.get::<_, i64>(3)? as u64,
                    row.get::<_, i64>(4)? as u64,
                    row.get::<_, i64>(5)? as u64,
                    row.get::<_, i64>(6)? as u64,
                    row.get::<_, Option<f64>>(7)?,
                    row.get::<_, Option<f64>>(8)?,
                ))
            };
            let (key, night, runs, clean, failures, ln_miss, bound_ln) =
                read().map_err(|e| self.error(e))?;
            let entry = all.entry(key.clone()).or_insert_with(|| Evidence {
                program: key.0,
                fingerprint: key.1,
                setting: key.2,
                chunks: 0,
                runs: 0,
                clean_runs: 0,
                failures: 0,
                nights: 0,
                last_night_index: night,
                last_night_runs: 0,
                last_bound_ln: None,
                ln_miss: None,
            });
            if entry.chunks == 0 || night != entry.last_night_index {
                entry.nights += 1;
                entry.last_night_index = night;
                entry.last_night_runs = 0;
            }
            entry.chunks += 1;
            entry.runs += runs;
            entry.clean_runs += clean;
            entry.failures += failures;
            entry.last_night_runs += runs;
            entry.last_bound_ln = bound_ln;
            if let Some(ln) = ln_miss {
                entry.ln_miss = Some(entry.ln_miss.unwrap_or(0.0) + ln);
            }
        }
        Ok(all.into_values().collect())
    }

    /// Every failure with when it was seen, by program, then kind and line.
    pub fn failures(&self) -> Result<Vec<FailureSummary>, HistoryError> {
        let mut statement = self
            .conn
            .prepare(
                "SELECT id, program, signature, kind, source_line, source_column, message,
                        variables, threads, first_night_index, last_night_index, count
                 FROM failure_history
                 ORDER BY program, kind, source_line, source_column, signature",
            )
            .map_err(|e| self.error(e))?;
        let found = statement
            .query_map([], |r| {
                let list =
                    |text: String| serde_json::from_str::<Vec<String>>(&text).unwrap_or_default();
                Ok((
                    r.get::<_, i64>(0)?,
                    FailureSummary {
                        program: r.get(1)?,
                        key: r.get(2)?,
                        signature: Signature {
                            kind: r.get(3)?,
                            line: r.get::<_, i64>(4)? as u64,
                            column: r.get::<_, i64>(5)? as u64,
                            message: r.get(6)?,
                            variables: list(r.get(7)?),
                            threads: list(r.get(8)?),
                        },
                        first_night: r.get::<_, i64>(9)? as u64,
                        last_night: r.get::<_, i64>(10)? as u64,
                        count: r.get::<_, i64>(11)? as u64,
                        replay: None,
                        replay_fingerprint: None,
                    },
                ))
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.error(e))?;
        let mut out = Vec::with_capacity(found.len());
        for (id, mut failure) in found {
            let latest: Option<(String, String)> = self
                .conn
                .query_row(
                    "SELECT g.replay, f.fingerprint FROM sightings g
                     JOIN nights n ON n.id = g.night_id
                     JOIN streams s ON s.id = g.stream_id
                     JOIN fingerprints f ON f.id = s.fingerprint_id
                     WHERE g.failure_id = ?1 AND g.replay IS NOT NULL
                     ORDER BY n.night_index DESC, s.setting, s.seed, g.run
                     LIMIT 1",
                    [id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()
                .map_err(|e| self.error(e))?;
            if let Some((replay, fingerprint)) = latest {
                failure.replay = Some(replay);
                failure.replay_fingerprint = Some(fingerprint);
            }
            out.push(failure);
        }
        Ok(out)
    }
}
