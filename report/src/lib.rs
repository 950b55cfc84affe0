//! rankcheck's report, one implementation for both front ends: the
//! `rankcheck` command line (`.rk` programs) and `rankcheck-rt` (Rust
//! tests).
//!
//! A front end builds the model from its own facts (the summary of a search
//! in [`summary`], a failure with its interleaving in [`failure`]) and this
//! crate renders it: as the text the command prints, as the JSON of
//! `--format json` (the models are that JSON), and as CSV rows. What only a
//! front end knows how to show (the source excerpt at a failure, which
//! command replays it) it renders itself and hands over as text.
//!
//! [`shard`] is the record a nightly campaign's shard file holds, written
//! by the command line for a `.rk` program and by `rankcheck-rt` for a
//! Rust test (`RANKCHECK_RECORDS`), and read by the history. [`words`]
//! counts and lists in English.
//!
//! The crate depends on the engine and `rankcheck-stats` (the models'
//! inputs and the bounds' words) and serde, never on a front end: a front
//! end names its variables through [`summary::VarNames`].

pub mod failure;
pub mod shard;
pub mod summary;
pub mod words;
