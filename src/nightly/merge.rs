//! `rankcheck merge DIR...`: ingest shard files into the history. Each
//! shard file is read line by line; a line that cannot be read (a write cut
//! short by a crash, a corrupted line) is reported with its file and line
//! and the rest is still ingested. Ingesting what the history already has
//! changes nothing.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use rankcheck_history::{parse_shard, History, Ingested, Replay};
use rankcheck_report::words::count;

use crate::cli::MergeArgs;
use crate::exit::Status;

use super::HISTORY_FILE;

/// What a merge did.
#[derive(Debug, Default)]
pub struct Merged {
    /// Shard files read.
    pub files: u64,
    /// What they added, summed.
    pub added: Ingested,
    /// Lines or files that could not be read.
    pub problems: u64,
}

impl Merged {
    /// `merged 4 shard files into DB: 12 new chunks, ...`.
    pub fn line(&self, db: &Path) -> String {
        let added = &self.added;
        format!(
            "merged {} into {}: {} new ({} already there), {} new ({} already there)",
            count(self.files, "shard file", "shard files"),
            db.display(),
            count(added.chunks_new, "chunk", "chunks"),
            added.chunks_known,
            count(added.sightings_new, "failure sighting", "failure sightings"),
            added.sightings_known
        )
    }
}

/// Merge the shard files under every directory `args` names (or the files
/// themselves) into the history. Exit 3 when some line or file could not be
/// read (each is reported; the rest is ingested).
pub fn merge(args: &MergeArgs) -> Result<ExitCode> {
    let db = match &args.db {
        Some(db) => db.clone(),
        None => match args.dirs.iter().find(|d| d.is_dir()) {
            Some(dir) => dir.join(HISTORY_FILE),
            None => bail!("give the history database with --db FILE"),
        },
    };
    let mut files = Vec::new();
    for dir in &args.dirs {
        files.extend(shard_files(dir)?);
    }
    if files.is_empty() {
        bail!("no shard file under {}", list_paths(&args.dirs));
    }
    let merged = merge_files(&db, &files)?;
    outln!("{}", merged.line(&db));
    Ok(if merged.problems > 0 {
        Status::Incomplete
    } else {
        Status::Clean
    }
    .into())
}

/// The shard files a path names: itself, or every
/// `nights/NIGHT/shard-*.jsonl` under an output directory, sorted.
fn shard_files(path: &Path) -> Result<Vec<PathBuf>> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    if !path.is_dir() {
        bail!("{}: no such file or directory", path.display());
    }
    let mut files = Vec::new();
    let nights = path.join("nights");
    let Ok(entries) = std::fs::read_dir(&nights) else {
        return Ok(files);
    };
    for night in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        let Ok(inner) = std::fs::read_dir(&night) else {
            continue;
        };
        files.extend(inner.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| {
            p.extension().is_some_and(|e| e == "jsonl")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("shard-"))
        }));
    }
    files.sort();
    Ok(files)
}

/// Ingest `files` into the history at `db` (created if missing).
pub fn merge_files(db: &Path, files: &[PathBuf]) -> Result<Merged> {
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut history = History::open(db)?;
    let mut merged = Merged::default();
    for file in files {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(error) => {
                errln!("warning: {}: cannot read it: {error}", file.display());
                merged.problems += 1;
                continue;
            }
        };
        let read = parse_shard(&text);
        for problem in &read.problems {
            errln!(
                "warning: {}:{}: {}",
                file.display(),
                problem.line,
                problem.message
            );
            merged.problems += 1;
        }
        let Some(header) = &read.header else {
            errln!(
                "warning: {}:1: no shard header, so nothing in it can be placed: skipped",
                file.display()
            );
            merged.problems += 1;
            continue;
        };
        let out_dir = output_dir_of(file);
        let mapping = |replay: &str| stored_replay_path(&out_dir, db, replay);
        let added = history
            .ingest(header, &read.records, &mapping)
            .with_context(|| format!("cannot merge {}", file.display()))?;
        for problem in &added.skipped {
            errln!(
                "warning: {}:{}: {}",
                file.display(),
                problem.line,
                problem.message
            );
            merged.problems += 1;
        }
        merged.files += 1;
        merged.added.chunks_new += added.chunks_new;
        merged.added.chunks_known += added.chunks_known;
        merged.added.sightings_new += added.sightings_new;
        merged.added.sightings_known += added.sightings_known;
    }
    Ok(merged)
}

/// The output directory a shard file belongs to:
/// `DIR/nights/NIGHT/shard-I-of-N.jsonl` is in `DIR`.
fn output_dir_of(file: &Path) -> PathBuf {
    file.parent()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// A Rust test's replay command is kept as it is.
/// A replay path as a shard file gives it (relative to its output
/// directory), as the history keeps it: relative to the database's
/// directory when it is under it, else absolute.
fn stored_replay_path(out_dir: &Path, db: &Path, replay: &str) -> String {
    let Replay::File(replay) = Replay::of(replay) else {
        return replay.to_string();
    };
    let full = out_dir.join(replay);
    let db_dir = db.parent().unwrap_or(Path::new(""));
    let canonical = |p: &Path| {
        let p = if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        };
        p.canonicalize().ok()
    };
    match (canonical(&full), canonical(db_dir)) {
        (Some(full), Some(dir)) => match full.strip_prefix(&dir) {
            Ok(relative) => relative.display().to_string(),
            Err(_) => full.display().to_string(),
        },
        _ => full.display().to_string(),
    }
}

/// Paths for a message.
fn list_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
