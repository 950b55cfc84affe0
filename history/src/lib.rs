//! The history of rankcheck's nightly campaigns (docs/HISTORY.md): the
//! shard files each shard of a night appends to ([`record`]), and the
//! SQLite database they are merged into ([`History`]): nights, programs and
//! their fingerprints, the evidence of every (program, setting) stream
//! chunk by chunk, and failures by their [`Identity`], each sighting's differences a
//! [`Variant`] under it.
//!
//! Records are plain data; of the engine it uses only the masking of a
//! failure's message (`rankcheck_engine::identity::masked`), and of the
//! report only its shard format (`rankcheck_report::shard`, where
//! rankcheck-rt, which must not depend on this crate and its SQLite,
//! writes it too). It touches one file, the database (bundled SQLite):
//! [`schema`] holds its versions and migrations, `store` opens it and
//! refuses one that is corrupt, foreign or newer, `ingest` merges shard
//! records idempotently and [`query`] reads it back. Reading and writing
//! shard files is the binary's.

mod error;
pub mod identity;
pub mod ingest;
pub mod query;
pub mod record;
pub mod schema;
mod store;

pub use error::HistoryError;
pub use identity::{Identity, Variant};
pub use ingest::{chunk_ln_miss, Ingested};
pub use query::{
    confidence, current_fingerprints, Evidence, FailureSummary, Night, NightEvidence, StreamNights,
};
pub use record::{
    failure_identity, parse_shard, Budget, ChunkRecord, EndRecord, EndStatus, FailureRecord,
    Header, LineProblem, ProgramRecord, Record, Replay, ShardText, Signature, StreamRecord,
    REPLAY_COMMAND_PREFIX, SHARD_FORMAT,
};
pub use schema::SCHEMA_VERSION;
pub use store::History;
