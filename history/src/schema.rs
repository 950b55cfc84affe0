//! The history's schema, version by version (docs/HISTORY.md). The version
//! is SQLite's `PRAGMA user_version`; opening an older history applies the
//! migrations after it in one transaction each, and a newer one is refused.

/// The schema version this crate writes.
pub const SCHEMA_VERSION: i64 = 1;

/// What `meta.application` holds in every rankcheck history: how a history
/// is told from any other SQLite file.
pub const APPLICATION: &str = "rankcheck-history";

/// Migration `i` takes a history from version `i` to `i + 1`.
pub const MIGRATIONS: &[&str] = &[VERSION_1];

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
