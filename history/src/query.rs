//! What the history says: its nights, the evidence accumulated per
//! (program, fingerprint, setting), the same evidence night by night for
//! each program's current fingerprint (what the history figures draw), and
//! its failures by identity, with their variants and when they were
//! seen. Sums are taken in Rust in a fixed order (night, seed, first run),
//! so the same chunks give the same bits however they were merged.

use std::collections::BTreeMap;

use rusqlite::{params, OptionalExtension};

use crate::error::HistoryError;
use crate::identity::{Identity, Variant};
use crate::record::Budget;
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
    pub identity: Identity,
    /// [`Identity::key`].
    pub key: String,
    /// How its sightings differed, each with how many sightings showed it,
    /// the most seen first.
    pub variants: Vec<(Variant, u64)>,
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

/// One night of a stream: what the stream had accumulated by its end.
#[derive(Clone, Debug, PartialEq)]
pub struct NightEvidence {
    /// The night's name.
    pub night: String,
    /// Its index.
    pub night_index: u64,
    /// Runs done in this night and every earlier one.
    pub runs: u64,
    /// Of which clean.
    pub clean_runs: u64,
    /// Failing runs in this night alone.
    pub failures: u64,
    /// Failing runs in this night and every earlier one.
    pub failures_so_far: u64,
    /// `ln` of the probability that every clean run so far missed a bug of
    /// the setting's class (as [`Evidence::ln_miss`]); `None` while no
    /// chunk had a bound.
    pub ln_miss: Option<f64>,
}

impl NightEvidence {
    /// The guarantee the clean runs so far earned (see [`confidence`]);
    /// `None` for a stream without a bound, and from the night it first
    /// failed on: a stream that failed claims none, as the report says.
    pub fn confidence(&self) -> Option<f64> {
        claimed(self.failures_so_far, self.ln_miss)
    }
}

/// The guarantee a stream with `failures` failing runs and `ln_miss`
/// claims: none once it failed, none without a bound.
fn claimed(failures: u64, ln_miss: Option<f64>) -> Option<f64> {
    if failures > 0 {
        return None;
    }
    ln_miss.map(confidence)
}

/// A stream's nights, in index order.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamNights {
    /// The program's name.
    pub program: String,
    /// Its fingerprint.
    pub fingerprint: String,
    /// The setting key.
    pub setting: String,
    /// Every night with runs of this stream, oldest first.
    pub nights: Vec<NightEvidence>,
}

impl StreamNights {
    /// The night `row` belongs to, started from the night before's totals
    /// when it is the first chunk of that night (rows come night by night).
    fn night_of(&mut self, row: &ChunkRow) -> &mut NightEvidence {
        let last = self.nights.last();
        if last.is_none_or(|n| n.night_index != row.night_index) {
            let (runs, clean_runs, failures_so_far, ln_miss) = last.map_or((0, 0, 0, None), |n| {
                (n.runs, n.clean_runs, n.failures_so_far, n.ln_miss)
            });
            self.nights.push(NightEvidence {
                night: row.night.clone(),
                night_index: row.night_index,
                runs,
                clean_runs,
                failures: 0,
                failures_so_far,
                ln_miss,
            });
        }
        self.nights
            .last_mut()
            .expect("invariant: a night was just pushed or matched")
    }
}

impl Evidence {
    /// The guarantee its clean runs earned (see [`confidence`]); `None`
    /// for a stream without a bound, or one that failed.
    pub fn confidence(&self) -> Option<f64> {
        claimed(self.failures, self.ln_miss)
    }
}

/// The guarantee `1 - exp(ln_miss)` that a bug of the setting's class was
/// not missed by every clean run, computed without cancellation (`exp_m1`)
/// so that a tiny miss probability still shows; never negative.
pub fn confidence(ln_miss: f64) -> f64 {
    (-ln_miss.exp_m1()).max(0.0)
}

/// Each program's current version, from `(program, fingerprint, last night
/// with runs)`: the fingerprint run most recently, the first given when two
/// tie. Reports show only this version's evidence; the others stay in the
/// history.
pub fn current_fingerprints<'a>(
    streams: impl IntoIterator<Item = (&'a str, &'a str, u64)>,
) -> BTreeMap<String, String> {
    let mut current: BTreeMap<String, (u64, String)> = BTreeMap::new();
    for (program, fingerprint, last_night) in streams {
        let entry = current
            .entry(program.to_string())
            .or_insert_with(|| (last_night, fingerprint.to_string()));
        if last_night > entry.0 {
            *entry = (last_night, fingerprint.to_string());
        }
    }
    current
        .into_iter()
        .map(|(program, (_, fingerprint))| (program, fingerprint))
        .collect()
}

/// A stream's key: program, fingerprint, setting.
type StreamKey = (String, String, String);

/// One chunk as the evidence queries read it.
struct ChunkRow {
    key: StreamKey,
    night_index: u64,
    night: String,
    runs: u64,
    clean_runs: u64,
    failures: u64,
    ln_miss: Option<f64>,
    bound_ln: Option<f64>,
}

/// A sum of `ln` miss probabilities, `None` until one chunk has a bound.
fn add_ln_miss(sum: Option<f64>, chunk: Option<f64>) -> Option<f64> {
    match chunk {
        Some(ln) => Some(sum.unwrap_or(0.0) + ln),
        None => sum,
    }
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
        let mut all: BTreeMap<StreamKey, Evidence> = BTreeMap::new();
        for row in self.chunk_rows(before)? {
            let entry = all.entry(row.key.clone()).or_insert_with(|| Evidence {
                program: row.key.0.clone(),
                fingerprint: row.key.1.clone(),
                setting: row.key.2.clone(),
                chunks: 0,
                runs: 0,
                clean_runs: 0,
                failures: 0,
                nights: 0,
                last_night_index: row.night_index,
                last_night_runs: 0,
                last_bound_ln: None,
                ln_miss: None,
            });
            if entry.chunks == 0 || row.night_index != entry.last_night_index {
                entry.nights += 1;
                entry.last_night_index = row.night_index;
                entry.last_night_runs = 0;
            }
            entry.chunks += 1;
            entry.runs += row.runs;
            entry.clean_runs += row.clean_runs;
            entry.failures += row.failures;
            entry.last_night_runs += row.runs;
            entry.last_bound_ln = row.bound_ln;
            entry.ln_miss = add_ln_miss(entry.ln_miss, row.ln_miss);
        }
        Ok(all.into_values().collect())
    }

    /// Night by night, what each program's current version (see
    /// [`current_fingerprints`]) had accumulated per setting: the numbers
    /// of [`History::evidence`] as they stood at the end of every night
    /// with runs. The last night of a stream equals its evidence bit for
    /// bit: the sums are taken over the same chunks in the same order.
    pub fn nightly_evidence(&self) -> Result<Vec<StreamNights>, HistoryError> {
        let mut all: BTreeMap<StreamKey, StreamNights> = BTreeMap::new();
        for row in self.chunk_rows(None)? {
            let stream = all.entry(row.key.clone()).or_insert_with(|| StreamNights {
                program: row.key.0.clone(),
                fingerprint: row.key.1.clone(),
                setting: row.key.2.clone(),
                nights: Vec::new(),
            });
            let night = stream.night_of(&row);
            night.runs += row.runs;
            night.clean_runs += row.clean_runs;
            night.failures += row.failures;
            night.failures_so_far += row.failures;
            night.ln_miss = add_ln_miss(night.ln_miss, row.ln_miss);
        }
        let current = current_fingerprints(all.values().filter_map(|s| {
            let last = s.nights.last()?;
            Some((s.program.as_str(), s.fingerprint.as_str(), last.night_index))
        }));
        Ok(all
            .into_values()
            .filter(|s| current.get(&s.program) == Some(&s.fingerprint))
            .collect())
    }

    /// Every chunk of the nights before `before` (all when `None`), in
    /// the order sums are taken: stream, then night, seed and first run.
    fn chunk_rows(&self, before: Option<u64>) -> Result<Vec<ChunkRow>, HistoryError> {
        let limit = before.map_or(i64::MAX, |b| b as i64);
        let mut statement = self
            .conn
            .prepare(
                "SELECT p.name, f.fingerprint, s.setting, n.night_index, n.name, c.runs,
                        c.clean_runs, c.failures, c.ln_miss, c.bound_ln
                 FROM chunks c
                 JOIN streams s ON s.id = c.stream_id
                 JOIN fingerprints f ON f.id = s.fingerprint_id
                 JOIN programs p ON p.id = f.program_id
                 JOIN nights n ON n.id = c.night_id
                 WHERE n.night_index < ?1
                 ORDER BY p.name, f.fingerprint, s.setting, n.night_index, s.seed, c.first_run",
            )
            .map_err(|e| self.error(e))?;
        let rows = statement
            .query_map(params![limit], |r| {
                Ok(ChunkRow {
                    key: (r.get(0)?, r.get(1)?, r.get(2)?),
                    night_index: r.get::<_, i64>(3)? as u64,
                    night: r.get(4)?,
                    runs: r.get::<_, i64>(5)? as u64,
                    clean_runs: r.get::<_, i64>(6)? as u64,
                    failures: r.get::<_, i64>(7)? as u64,
                    ln_miss: r.get(8)?,
                    bound_ln: r.get(9)?,
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.error(e))?;
        Ok(rows)
    }

    /// Every failure with when it was seen, by program, then kind and line.
    pub fn failures(&self) -> Result<Vec<FailureSummary>, HistoryError> {
        let mut statement = self
            .conn
            .prepare(
                "SELECT id, program, fingerprint, identity, kind, file, source_line, source_column,
                        message, first_night_index, last_night_index, count
                 FROM failure_history
                 ORDER BY program, kind, source_line, source_column, identity",
            )
            .map_err(|e| self.error(e))?;
        let found = statement
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    FailureSummary {
                        program: r.get(1)?,
                        key: r.get(3)?,
                        identity: Identity {
                            fingerprint: r.get(2)?,
                            kind: r.get(4)?,
                            file: r.get(5)?,
                            line: r.get::<_, i64>(6)? as u64,
                            column: r.get::<_, i64>(7)? as u64,
                            message: r.get(8)?,
                        },
                        variants: Vec::new(),
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
            failure.variants = self.variants(id)?;
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

    /// The variants of failure `id` with their sightings, the most seen
    /// first (then by key).
    fn variants(&self, id: i64) -> Result<Vec<(Variant, u64)>, HistoryError> {
        let mut statement = self
            .conn
            .prepare(
                "SELECT v.message, v.variables, v.threads, COUNT(*) AS seen
                 FROM variants v JOIN sightings g ON g.variant_id = v.id
                 WHERE v.failure_id = ?1
                 GROUP BY v.id
                 ORDER BY seen DESC, v.variant",
            )
            .map_err(|e| self.error(e))?;
        let rows = statement
            .query_map([id], |r| {
                let list =
                    |text: String| serde_json::from_str::<Vec<String>>(&text).unwrap_or_default();
                Ok((
                    Variant {
                        message: r.get(0)?,
                        variables: list(r.get(1)?),
                        threads: list(r.get(2)?),
                    },
                    r.get::<_, i64>(3)? as u64,
                ))
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.error(e))?;
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{ChunkRecord, Header, ProgramRecord, Record, StreamRecord, SHARD_FORMAT};

    /// The per-run bound of the bounded setting, `ln(1/10)`.
    const BOUND_LN: f64 = -std::f64::consts::LN_10;

    /// A night of program `p` at `fingerprint` with a bounded setting
    /// `pct` and a setting without a bound, `pos`.
    fn night(name: &str, index: u64, fingerprint: &str) -> Header {
        let stream = |setting: &str, bound_ln| StreamRecord {
            setting: setting.into(),
            seed: 1,
            bound_ln,
        };
        Header {
            format: SHARD_FORMAT,
            suite: "suite".into(),
            night: name.into(),
            night_index: index,
            shard: 0,
            shards: 1,
            suite_seed: 1,
            chunk_runs: 10,
            budget: Budget::Runs(30),
            rankcheck: "test".into(),
            programs: vec![ProgramRecord {
                name: "p".into(),
                path: "p.rk".into(),
                fingerprint: fingerprint.into(),
                streams: vec![stream("pct", Some(BOUND_LN)), stream("pos", None)],
            }],
        }
    }

    /// A chunk of `runs` runs, the last failing when `failed`.
    fn chunk(header: &Header, setting: &str, first: u64, runs: u64, failed: bool) -> Record {
        let bound_ln = (setting == "pct").then_some(BOUND_LN);
        Record::Chunk(ChunkRecord {
            program: "p".into(),
            fingerprint: header.programs[0].fingerprint.clone(),
            setting: setting.into(),
            plan_index: first,
            first_run: (header.night_index << 40) + first,
            runs,
            clean_runs: runs - u64::from(failed),
            failures: u64::from(failed),
            bound_ln,
            elapsed_s: 0.1,
        })
    }

    /// Three nights: `old` on an earlier version of `p`, then `n1` and
    /// `n2` on the current one; `n2` has a failing chunk of `pct` and no
    /// run of `pos`.
    fn three_nights() -> History {
        let dir = std::env::temp_dir().join(format!("rankcheck-query-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut history = History::open(&dir.join("h.sqlite")).unwrap();
        let same = |r: &str| r.to_string();
        let old = night("old", 0, "f0");
        let n1 = night("n1", 1, "f1");
        let n2 = night("n2", 2, "f1");
        let nights = [
            (&old, vec![chunk(&old, "pct", 0, 10, false)]),
            (
                &n1,
                vec![
                    chunk(&n1, "pct", 0, 10, false),
                    chunk(&n1, "pct", 10, 10, false),
                    chunk(&n1, "pos", 0, 7, false),
                ],
            ),
            (
                &n2,
                vec![
                    chunk(&n2, "pct", 0, 10, false),
                    chunk(&n2, "pct", 10, 4, true),
                ],
            ),
        ];
        for (header, records) in nights {
            let lines: Vec<(usize, Record)> = records.into_iter().map(|r| (2, r)).collect();
            history.ingest(header, &lines, &same).unwrap();
        }
        history
    }

    #[test]
    fn nightly_evidence_accumulates_night_by_night_on_the_current_version() {
        let history = three_nights();
        let streams = history.nightly_evidence().unwrap();
        let settings: Vec<(&str, &str)> = streams
            .iter()
            .map(|s| (s.fingerprint.as_str(), s.setting.as_str()))
            .collect();
        assert_eq!(
            settings,
            [("f1", "pct"), ("f1", "pos")],
            "only f1, the current version"
        );
        let pct = &streams[0].nights;
        let summary: Vec<(&str, u64, u64, u64)> = pct
            .iter()
            .map(|n| (n.night.as_str(), n.runs, n.clean_runs, n.failures))
            .collect();
        assert_eq!(summary, [("n1", 20, 20, 0), ("n2", 34, 33, 1)]);
        // (1 - 1/10)^20 after n1, (1 - 1/10)^33 after n2.
        let expected = |clean: i32| 1.0 - 0.9f64.powi(clean);
        assert!((pct[0].confidence().unwrap() - expected(20)).abs() < 1e-12);
        assert!((pct[1].ln_miss.unwrap() - 33.0 * 0.9f64.ln()).abs() < 1e-12);
        // n2 failed: from then on the stream claims no guarantee, as the
        // report says.
        assert_eq!(pct[1].confidence(), None);
        let pos = &streams[1].nights;
        assert_eq!(pos.len(), 1, "no night without runs");
        assert_eq!((pos[0].runs, pos[0].confidence()), (7, None));
        // The last night of each stream is its evidence, bit for bit.
        for (stream, evidence) in streams.iter().zip(
            history
                .evidence(None)
                .unwrap()
                .iter()
                .filter(|e| e.fingerprint == "f1"),
        ) {
            let last = stream.nights.last().unwrap();
            assert_eq!(
                (last.runs, last.clean_runs, last.ln_miss),
                (evidence.runs, evidence.clean_runs, evidence.ln_miss)
            );
            assert_eq!(last.confidence(), evidence.confidence());
        }
    }

    #[test]
    fn the_current_version_is_the_one_run_most_recently() {
        let current =
            current_fingerprints([("p", "a", 3), ("p", "b", 5), ("p", "c", 5), ("q", "z", 0)]);
        assert_eq!(current["p"], "b", "the first of the latest");
        assert_eq!(current["q"], "z");
        assert_eq!(confidence(0.0), 0.0);
        assert!(confidence(-1e-20) > 0.0, "no cancellation");
    }
}
