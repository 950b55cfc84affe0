//! Why the history could not be opened, read or written.

use std::path::PathBuf;

use thiserror::Error;

/// A history error; every one names the database file.
#[derive(Debug, Error)]
pub enum HistoryError {
    /// The file is not an SQLite database, or SQLite finds it damaged.
    #[error("{path}: corrupt history database ({detail}); it is left as it is: restore it from a backup, or move it away to start a new history")]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        detail: String,
    },
    /// A healthy SQLite database that rankcheck did not make.
    #[error("{path}: not a rankcheck history (an SQLite database without rankcheck's tables); it is left as it is: give another file with --db")]
    Foreign {
        /// The database file.
        path: PathBuf,
    },
    /// A history written by a newer rankcheck.
    #[error("{path}: history schema version {found}, but this rankcheck knows versions up to {known}: use a newer rankcheck")]
    Newer {
        /// The database file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// The newest this crate knows.
        known: i64,
    },
    /// No history where one was expected.
    #[error(
        "{path}: no history database here (run `rankcheck nightly` or `rankcheck merge` first)"
    )]
    Missing {
        /// The expected file.
        path: PathBuf,
    },
    /// A shard file that contradicts what the history says of its night.
    #[error("{0}")]
    Mismatch(String),
    /// SQLite failed.
    #[error("{path}: {source}")]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
}
