//! Opening a history: create it, or check that the file is a healthy
//! rankcheck history of a version this crate knows, and bring an older one
//! up to date. A file that fails a check is refused and never written.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::error::HistoryError;
use crate::schema::{APPLICATION, MIGRATIONS, SCHEMA_VERSION};

/// The first 16 bytes of every SQLite database file.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// How long a writer waits for another one (two merges at once).
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// An open history database.
pub struct History {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
}

impl History {
    /// Open the history at `path`, creating it when there is no file.
    pub fn open(path: &Path) -> Result<History, HistoryError> {
        Self::open_with(path, true)
    }

    /// Open the history at `path`, which must exist.
    pub fn open_existing(path: &Path) -> Result<History, HistoryError> {
        Self::open_with(path, false)
    }

    fn open_with(path: &Path, create: bool) -> Result<History, HistoryError> {
        let exists = path.exists();
        if !exists && !create {
            return Err(HistoryError::Missing {
                path: path.to_path_buf(),
            });
        }
        if exists {
            check_magic(path)?;
        }
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if create {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let conn = Connection::open_with_flags(path, flags).map_err(|e| classify(path, e))?;
        let mut history = History {
            conn,
            path: path.to_path_buf(),
        };
        history
            .conn
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| history.error(e))?;
        history.check_integrity()?;
        history.migrate()?;
        history
            .conn
            .execute_batch("PRAGMA foreign_keys = ON;")
            .map_err(|e| history.error(e))?;
        Ok(history)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// SQLite's `integrity_check` must answer `ok`.
    fn check_integrity(&self) -> Result<(), HistoryError> {
        let mut statement = self
            .conn
            .prepare("PRAGMA integrity_check")
            .map_err(|e| classify(&self.path, e))?;
        let answers: Vec<String> = statement
            .query_map([], |row| row.get::<_, String>(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| classify(&self.path, e))?;
        if answers != ["ok"] {
            return Err(HistoryError::Corrupt {
                path: self.path.clone(),
                detail: format!("integrity check: {}", answers.join("; ")),
            });
        }
        Ok(())
    }

    /// Check the file is ours and of a known version, and apply the
    /// migrations it lacks.
    fn migrate(&mut self) -> Result<(), HistoryError> {
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(|e| classify(&self.path, e))?;
        if version > SCHEMA_VERSION {
            return Err(HistoryError::Newer {
                path: self.path.clone(),
                found: version,
                known: SCHEMA_VERSION,
            });
        }
        if version == 0 {
            let tables: i64 = self
                .conn
                .query_row("SELECT COUNT(*) FROM sqlite_master", [], |row| row.get(0))
                .map_err(|e| classify(&self.path, e))?;
            if tables > 0 {
                return Err(HistoryError::Foreign {
                    path: self.path.clone(),
                });
            }
        } else {
            let application: Option<String> = self
                .conn
                .query_row(
                    "SELECT value FROM meta WHERE key = 'application'",
                    [],
                    |row| row.get(0),
                )
                .ok();
            if application.as_deref() != Some(APPLICATION) {
                return Err(HistoryError::Foreign {
                    path: self.path.clone(),
                });
            }
        }
        for (from, migration) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            let tx = self
                .conn
                .transaction()
                .map_err(|e| classify(&self.path, e))?;
            migration(&tx)
                .and_then(|()| tx.pragma_update(None, "user_version", from as i64 + 1))
                .and_then(|()| tx.commit())
                .map_err(|e| classify(&self.path, e))?;
        }
        Ok(())
    }

    /// An SQLite error, with the file named.
    pub(crate) fn error(&self, source: rusqlite::Error) -> HistoryError {
        classify(&self.path, source)
    }
}

/// A file that exists and is not empty must start as SQLite files do.
fn check_magic(path: &Path) -> Result<(), HistoryError> {
    let mut head = Vec::with_capacity(16);
    let read = std::fs::File::open(path)
        .and_then(|file| file.take(16).read_to_end(&mut head))
        .map_err(|e| HistoryError::Corrupt {
            path: path.to_path_buf(),
            detail: format!("cannot read it: {e}"),
        })?;
    if read > 0 && head.as_slice() != SQLITE_MAGIC {
        return Err(HistoryError::Corrupt {
            path: path.to_path_buf(),
            detail: "it does not start with the SQLite header".into(),
        });
    }
    Ok(())
}

/// SQLite's "not a database" and "malformed" are a corrupt file; anything
/// else is an error of its own.
fn classify(path: &Path, source: rusqlite::Error) -> HistoryError {
    let corrupt = matches!(
        source.sqlite_error_code(),
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt)
    );
    if corrupt {
        HistoryError::Corrupt {
            path: path.to_path_buf(),
            detail: source.to_string(),
        }
    } else {
        HistoryError::Sqlite {
            path: path.to_path_buf(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("rankcheck-history-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("history.sqlite")
    }

    #[test]
    fn a_new_history_gets_the_current_schema_and_opens_again() {
        let path = scratch("new");
        assert!(matches!(
            History::open_existing(&path),
            Err(HistoryError::Missing { .. })
        ));
        drop(History::open(&path).unwrap());
        let history = History::open_existing(&path).unwrap();
        assert_eq!(version(&history), SCHEMA_VERSION);
    }

    fn version(history: &History) -> i64 {
        history
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn foreign_and_newer_databases_are_refused_and_left_alone() {
        let path = scratch("foreign");
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE t (x INTEGER);")
            .unwrap();
        let before = std::fs::read(&path).unwrap();
        assert!(matches!(
            History::open(&path),
            Err(HistoryError::Foreign { .. })
        ));
        assert_eq!(std::fs::read(&path).unwrap(), before);

        let path = scratch("newer");
        drop(History::open(&path).unwrap());
        Connection::open(&path)
            .unwrap()
            .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        let error = History::open(&path).err().unwrap();
        assert!(matches!(error, HistoryError::Newer { found, .. } if found == SCHEMA_VERSION + 1));
        assert!(error.to_string().contains("use a newer rankcheck"));
    }

    #[test]
    fn a_file_that_is_not_sqlite_is_corrupt() {
        let path = scratch("text");
        std::fs::write(&path, "not a database at all, just text").unwrap();
        let error = History::open(&path).err().unwrap();
        assert!(matches!(error, HistoryError::Corrupt { .. }), "{error}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "not a database at all, just text"
        );
    }

    /// A version 1 history (failures per program and signature, so one
    /// bug seen with two sets of variables was two failures) opens as the
    /// current version with one failure of two variants, its sightings and
    /// nights kept.
    #[test]
    fn a_version_1_history_migrates_to_failure_identities() {
        let path = scratch("version-1");
        {
            let conn = Connection::open(&path).unwrap();
            let tx = conn.unchecked_transaction().unwrap();
            MIGRATIONS[0](&tx).unwrap();
            tx.pragma_update(None, "user_version", 1).unwrap();
            tx.execute_batch(
                "INSERT INTO nights VALUES (1, 'n1', 0, 's', '1', 10, '{\"runs\":20}');
                 INSERT INTO nights VALUES (2, 'n2', 1, 's', '1', 10, '{\"runs\":20}');
                 INSERT INTO programs VALUES (1, 'p');
                 INSERT INTO fingerprints VALUES (1, 1, 'f', 'p.rk', 1);
                 INSERT INTO streams VALUES (1, 1, 'pos', '9');
                 INSERT INTO failures VALUES (1, 1, 'a', 'assert', 4, 5, 'got 3', '[\"x\"]', '[\"main\",\"w\"]');
                 INSERT INTO failures VALUES (2, 1, 'b', 'assert', 4, 5, 'got 7', '[\"x\",\"y\"]', '[\"main\"]');
                 INSERT INTO sightings VALUES (1, 1, 1, 3, 'replays/a.replay');
                 INSERT INTO sightings VALUES (2, 1, 2, 1099511627780, NULL);",
            )
            .unwrap();
            tx.commit().unwrap();
        }
        let history = History::open_existing(&path).unwrap();
        assert_eq!(version(&history), SCHEMA_VERSION);
        let failures = history.failures().unwrap();
        assert_eq!(failures.len(), 1, "{failures:?}");
        let failure = &failures[0];
        assert_eq!(failure.identity.message, "got N");
        assert_eq!(failure.identity.file, "p.rk");
        assert_eq!((failure.first_night, failure.last_night), (0, 1));
        assert_eq!(failure.count, 2);
        assert_eq!(failure.variants.len(), 2);
        assert_eq!(failure.replay.as_deref(), Some("replays/a.replay"));
    }
}
