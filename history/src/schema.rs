//! The history's schema, version by version (docs/HISTORY.md). The version
//! is SQLite's `PRAGMA user_version`; opening an older history applies the
//! migrations after it in one transaction each, and a newer one is refused.

use rusqlite::{params, Transaction};

use crate::identity::{Identity, Variant};
use crate::record::Signature;

/// The schema version this crate writes.
pub const SCHEMA_VERSION: i64 = 2;

/// What `meta.application` holds in every rankcheck history: how a history
/// is told from any other SQLite file.
pub const APPLICATION: &str = "rankcheck-history";

/// A migration: the statements that take a history from one version to
/// the next, inside the transaction it is given.
pub type Migration = fn(&Transaction) -> rusqlite::Result<()>;

/// Migration `i` takes a history from version `i` to `i + 1`.
pub const MIGRATIONS: &[Migration] = &[version_1, version_2];

fn version_1(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(VERSION_1)
}

/// Version 1: nights, programs and their fingerprints, streams, chunks of
/// evidence, failures by signature and where each was seen.
const VERSION_1: &str = "
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT INTO meta (key, value) VALUES ('application', 'rankcheck-history');

CREATE TABLE nights (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    night_index INTEGER NOT NULL UNIQUE,
    suite TEXT NOT NULL,
    suite_seed TEXT NOT NULL,
    chunk_runs INTEGER NOT NULL,
    budget TEXT NOT NULL
);

CREATE TABLE programs (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);

CREATE TABLE fingerprints (
    id INTEGER PRIMARY KEY,
    program_id INTEGER NOT NULL REFERENCES programs (id),
    fingerprint TEXT NOT NULL,
    path TEXT NOT NULL,
    first_night_id INTEGER NOT NULL REFERENCES nights (id),
    UNIQUE (program_id, fingerprint)
);

CREATE TABLE streams (
    id INTEGER PRIMARY KEY,
    fingerprint_id INTEGER NOT NULL REFERENCES fingerprints (id),
    setting TEXT NOT NULL,
    seed TEXT NOT NULL,
    UNIQUE (fingerprint_id, setting, seed)
);

CREATE TABLE chunks (
    stream_id INTEGER NOT NULL REFERENCES streams (id),
    first_run INTEGER NOT NULL,
    night_id INTEGER NOT NULL REFERENCES nights (id),
    shard INTEGER NOT NULL,
    shards INTEGER NOT NULL,
    plan_index INTEGER NOT NULL,
    runs INTEGER NOT NULL,
    clean_runs INTEGER NOT NULL,
    failures INTEGER NOT NULL,
    bound_ln REAL,
    ln_miss REAL,
    elapsed_s REAL NOT NULL,
    PRIMARY KEY (stream_id, first_run)
);

CREATE TABLE failures (
    id INTEGER PRIMARY KEY,
    program_id INTEGER NOT NULL REFERENCES programs (id),
    signature TEXT NOT NULL,
    kind TEXT NOT NULL,
    source_line INTEGER NOT NULL,
    source_column INTEGER NOT NULL,
    message TEXT NOT NULL,
    variables TEXT NOT NULL,
    threads TEXT NOT NULL,
    UNIQUE (program_id, signature)
);

CREATE TABLE sightings (
    failure_id INTEGER NOT NULL REFERENCES failures (id),
    stream_id INTEGER NOT NULL REFERENCES streams (id),
    night_id INTEGER NOT NULL REFERENCES nights (id),
    run INTEGER NOT NULL,
    replay TEXT,
    PRIMARY KEY (stream_id, run)
);

CREATE VIEW evidence AS
SELECT p.name AS program, f.fingerprint, s.setting, n.name AS night,
       n.night_index, c.shard, c.shards, COUNT(*) AS chunks,
       SUM(c.runs) AS runs, SUM(c.clean_runs) AS clean_runs,
       SUM(c.failures) AS failures, SUM(c.ln_miss) AS ln_miss
FROM chunks c
JOIN streams s ON s.id = c.stream_id
JOIN fingerprints f ON f.id = s.fingerprint_id
JOIN programs p ON p.id = f.program_id
JOIN nights n ON n.id = c.night_id
GROUP BY c.stream_id, c.night_id, c.shard, c.shards;

CREATE VIEW failure_history AS
SELECT fl.id, p.name AS program, fl.signature, fl.kind, fl.source_line,
       fl.source_column, fl.message, fl.variables, fl.threads,
       MIN(n.night_index) AS first_night_index,
       MAX(n.night_index) AS last_night_index,
       COUNT(*) AS count
FROM failures fl
JOIN programs p ON p.id = fl.program_id
JOIN sightings g ON g.failure_id = fl.id
JOIN nights n ON n.id = g.night_id
GROUP BY fl.id;
";

/// Version 2: a failure is its identity (fingerprint, kind, file, line,
/// column, masked message), and what a sighting showed besides (threads,
/// variables raced on, the message unmasked) is a variant under it.
/// Version 1 kept a failure per program and signature; its sightings are
/// regrouped by the identity of the version each was seen on.
fn version_2(tx: &Transaction) -> rusqlite::Result<()> {
    let old = version_1_sightings(tx)?;
    tx.execute_batch("DROP VIEW failure_history; DROP TABLE sightings; DROP TABLE failures;")?;
    tx.execute_batch(VERSION_2)?;
    for sighting in old {
        let (failure_id, variant_id) = failure_and_variant(
            tx,
            sighting.program_id,
            sighting.fingerprint_id,
            &sighting.identity,
            &sighting.variant,
        )?;
        tx.execute(
            "INSERT INTO sightings (failure_id, variant_id, stream_id, night_id, run, replay) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![failure_id, variant_id, sighting.stream_id, sighting.night_id, sighting.run, sighting.replay],
        )?;
    }
    Ok(())
}

/// A version 1 sighting, with the identity and variant it has now.
struct OldSighting {
    program_id: i64,
    fingerprint_id: i64,
    stream_id: i64,
    night_id: i64,
    run: i64,
    replay: Option<String>,
    identity: Identity,
    variant: Variant,
}

/// Every sighting of a version 1 history, in key order.
fn version_1_sightings(tx: &Transaction) -> rusqlite::Result<Vec<OldSighting>> {
    let mut statement = tx.prepare(
        "SELECT fl.program_id, s.fingerprint_id, g.stream_id, g.night_id, g.run, g.replay,
                f.fingerprint, f.path, fl.kind, fl.source_line, fl.source_column, fl.message,
                fl.variables, fl.threads
         FROM sightings g
         JOIN failures fl ON fl.id = g.failure_id
         JOIN streams s ON s.id = g.stream_id
         JOIN fingerprints f ON f.id = s.fingerprint_id
         ORDER BY g.stream_id, g.run",
    )?;
    let rows = statement.query_map([], |r| {
        let list = |text: String| serde_json::from_str::<Vec<String>>(&text).unwrap_or_default();
        let signature = Signature {
            kind: r.get(8)?,
            file: None,
            line: r.get::<_, i64>(9)? as u64,
            column: r.get::<_, i64>(10)? as u64,
            message: r.get(11)?,
            masked: None,
            variables: list(r.get(12)?),
            threads: list(r.get(13)?),
        };
        let fingerprint: String = r.get(6)?;
        let file: String = r.get(7)?;
        Ok(OldSighting {
            program_id: r.get(0)?,
            fingerprint_id: r.get(1)?,
            stream_id: r.get(2)?,
            night_id: r.get(3)?,
            run: r.get(4)?,
            replay: r.get(5)?,
            identity: Identity::of(&signature, &fingerprint, &file),
            variant: Variant::of(&signature),
        })
    })?;
    rows.collect()
}

/// The ids of a failure and of its variant, each made on first sight.
pub(crate) fn failure_and_variant(
    tx: &Transaction,
    program_id: i64,
    fingerprint_id: i64,
    identity: &Identity,
    variant: &Variant,
) -> rusqlite::Result<(i64, i64)> {
    let key = identity.key();
    tx.execute(
        "INSERT OR IGNORE INTO failures (program_id, fingerprint_id, identity, kind, file, source_line, source_column, message)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            program_id,
            fingerprint_id,
            key,
            identity.kind,
            identity.file,
            identity.line as i64,
            identity.column as i64,
            identity.message
        ],
    )?;
    let failure_id: i64 = tx.query_row(
        "SELECT id FROM failures WHERE fingerprint_id = ?1 AND identity = ?2",
        params![fingerprint_id, key],
        |r| r.get(0),
    )?;
    let list = |items: &[String]| {
        serde_json::to_string(items)
            .unwrap_or_else(|_| unreachable!("invariant: strings serialise"))
    };
    let variant_key = variant.key();
    tx.execute(
        "INSERT OR IGNORE INTO variants (failure_id, variant, message, variables, threads) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            failure_id,
            variant_key,
            variant.message,
            list(&variant.variables),
            list(&variant.threads)
        ],
    )?;
    let variant_id: i64 = tx.query_row(
        "SELECT id FROM variants WHERE failure_id = ?1 AND variant = ?2",
        params![failure_id, variant_key],
        |r| r.get(0),
    )?;
    Ok((failure_id, variant_id))
}

/// Version 2's failures, variants and sightings, and the view over them.
const VERSION_2: &str = "
CREATE TABLE failures (
    id INTEGER PRIMARY KEY,
    program_id INTEGER NOT NULL REFERENCES programs (id),
    fingerprint_id INTEGER NOT NULL REFERENCES fingerprints (id),
    identity TEXT NOT NULL,
    kind TEXT NOT NULL,
    file TEXT NOT NULL,
    source_line INTEGER NOT NULL,
    source_column INTEGER NOT NULL,
    message TEXT NOT NULL,
    UNIQUE (fingerprint_id, identity)
);

CREATE TABLE variants (
    id INTEGER PRIMARY KEY,
    failure_id INTEGER NOT NULL REFERENCES failures (id),
    variant TEXT NOT NULL,
    message TEXT NOT NULL,
    variables TEXT NOT NULL,
    threads TEXT NOT NULL,
    UNIQUE (failure_id, variant)
);

CREATE TABLE sightings (
    failure_id INTEGER NOT NULL REFERENCES failures (id),
    variant_id INTEGER NOT NULL REFERENCES variants (id),
    stream_id INTEGER NOT NULL REFERENCES streams (id),
    night_id INTEGER NOT NULL REFERENCES nights (id),
    run INTEGER NOT NULL,
    replay TEXT,
    PRIMARY KEY (stream_id, run)
);

CREATE VIEW failure_history AS
SELECT fl.id, p.name AS program, f.fingerprint, fl.identity, fl.kind, fl.file,
       fl.source_line, fl.source_column, fl.message,
       MIN(n.night_index) AS first_night_index,
       MAX(n.night_index) AS last_night_index,
       COUNT(*) AS count,
       COUNT(DISTINCT g.variant_id) AS variants
FROM failures fl
JOIN programs p ON p.id = fl.program_id
JOIN fingerprints f ON f.id = fl.fingerprint_id
JOIN sightings g ON g.failure_id = fl.id
JOIN nights n ON n.id = g.night_id
GROUP BY fl.id;
";
