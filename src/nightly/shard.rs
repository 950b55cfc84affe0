//! Which share of the night this process does (`--shard I/N`, or the job
//! engine's environment), and its shard file: append-only JSON Lines under
//! `DIR/nights/NIGHT/shard-I-of-N.jsonl`, one append per finished chunk.
//!
//! Each append is written before the next chunk starts, so a killed process
//! loses at most the chunk in flight (the kernel holds what was written).
//! The fsync that makes it survive a crash of the machine runs on a thread
//! of its own, at most every [`SYNC_INTERVAL`], so that checkpoints cost the
//! search next to nothing: a power cut loses at most that much more.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rankcheck_engine::search::run_seed;
use rankcheck_history::{failure_identity, parse_shard, Budget, Header, Record};

/// The least time between two fsyncs of a shard file: an fsync costs a
/// few hundred microseconds, a chunk a few milliseconds.
pub const SYNC_INTERVAL: Duration = Duration::from_millis(100);

/// This process's share: shard `index` of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardSpec {
    /// From 0.
    pub index: u32,
    /// At least 1.
    pub count: u32,
}

impl ShardSpec {
    /// Whether chunk `index` of the night's plan is this shard's: the
    /// shard a fixed mix of the index names. The greedy plan often
    /// alternates between streams, so `index % count` would hand each
    /// shard whole streams, and streams differ in cost per run (sampling
    /// looks ahead, PCT does not): shards then finish at different times.
    /// A mix spreads every stream's chunks evenly.
    pub fn owns(self, index: u64) -> bool {
        // The seed is arbitrary and fixed: every shard must agree.
        run_seed(0x5ba2_d5ee_d000_0001, index) % u64::from(self.count) == u64::from(self.index)
    }

    /// Whether this process does the whole night.
    pub fn whole(self) -> bool {
        self.count == 1
    }
}

/// The shard from `--shard I/N`; else Slurm's array variables; else a
/// Kubernetes Indexed Job's `JOB_COMPLETION_INDEX` with `--shards N`; else
/// the whole night.
pub fn shard_spec(flag: Option<ShardSpec>, shards: Option<u32>) -> Result<ShardSpec> {
    shard_from(flag, shards, &|name| std::env::var(name).ok())
}

/// [`shard_spec`] with the environment given, for tests.
fn shard_from(
    flag: Option<ShardSpec>,
    shards: Option<u32>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ShardSpec> {
    if let Some(spec) = flag {
        return Ok(spec);
    }
    let number = |name: &str| -> Result<Option<u32>> {
        match env(name) {
            None => Ok(None),
            Some(text) => text
                .trim()
                .parse::<u32>()
                .map(Some)
                .with_context(|| format!("{name}={text} is not a whole number")),
        }
    };
    if let (Some(id), Some(count)) = (
        number("SLURM_ARRAY_TASK_ID")?,
        number("SLURM_ARRAY_TASK_COUNT")?,
    ) {
        // An array may start anywhere (`--array=1-4`): shards count from
        // its first task.
        let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let index = id.checked_sub(min).filter(|&i| i < count);
        return match index {
            Some(index) => Ok(ShardSpec { index, count }),
            None => bail!(
                "SLURM_ARRAY_TASK_ID={id} is not one of {count} tasks from {min}: submit a contiguous array such as --array=0-{}",
                count.saturating_sub(1)
            ),
        };
    }
    if let Some(index) = number("JOB_COMPLETION_INDEX")? {
        let Some(count) = shards else {
            bail!("JOB_COMPLETION_INDEX is set: give the job's completions with --shards N");
        };
        if index >= count {
            bail!("JOB_COMPLETION_INDEX={index} is not below --shards {count}");
        }
        return Ok(ShardSpec { index, count });
    }
    match shards {
        Some(n) if n > 1 => bail!(
            "--shards {n} without a shard index: give --shard I/{n}, or run under a Slurm array or a Kubernetes Indexed Job"
        ),
        _ => Ok(ShardSpec { index: 0, count: 1 }),
    }
}

/// The directory of a night's shard files.
pub fn night_dir(out: &Path, night: &str) -> PathBuf {
    out.join("nights").join(night)
}

/// A shard file's path.
pub fn shard_path(out: &Path, night: &str, spec: ShardSpec) -> PathBuf {
    night_dir(out, night).join(format!("shard-{}-of-{}.jsonl", spec.index, spec.count))
}

/// What an earlier process recorded in this shard file: the chunks it
/// finished and the failures it wrote replay files for.
#[derive(Debug, Default)]
pub struct Resumed {
    /// Plan indices of the chunks recorded.
    pub chunks: BTreeSet<u64>,
    /// Identity keys of the failures with a replay file this night.
    pub replays: BTreeSet<String>,
    /// Runs recorded.
    pub runs: u64,
}

/// An open shard file.
pub struct ShardFile {
    file: File,
    path: PathBuf,
    sync: Option<(Sender<()>, JoinHandle<()>)>,
}

/// The header of an existing shard file, if it has a readable one.
pub fn read_header(path: &Path) -> Option<Header> {
    let text = std::fs::read_to_string(path).ok()?;
    parse_shard(&text).header
}

/// Whether two headers describe the same night plan: same night, index,
/// seed, chunk size, budget, shard, and the same programs with the same
/// streams and bounds (the plan is built from them).
fn same_plan(a: &Header, b: &Header) -> bool {
    let budget = match (a.budget, b.budget) {
        (Budget::Runs(x), Budget::Runs(y)) => x == y,
        (Budget::Seconds(_), Budget::Seconds(_)) => true,
        _ => false,
    };
    a.night == b.night
        && a.night_index == b.night_index
        && a.suite_seed == b.suite_seed
        && a.chunk_runs == b.chunk_runs
        && a.shard == b.shard
        && a.shards == b.shards
        && a.programs == b.programs
        && budget
}

impl ShardFile {
    /// Open the shard file at `path` for `header`'s night: a new file gets
    /// the header; an existing one must be for the same plan, and what it
    /// recorded is returned so that it is not done again. A last line cut
    /// short by a crash is dropped (its chunk was in flight, and is redone).
    pub fn open(path: &Path, header: &Header) -> Result<(ShardFile, Resumed)> {
        let mut resumed = Resumed::default();
        if path.exists() {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read shard file {}", path.display()))?;
            let read = parse_shard(&text);
            let Some(old) = &read.header else {
                bail!(
                    "{}: exists but has no shard header: move it away to run this shard again",
                    path.display()
                );
            };
            if old.programs != header.programs {
                bail!(
                    "{}: the suite or its programs changed since night {} started here, so its chunks would be other chunks: finish it with the suite it started with, or give another --night",
                    path.display(),
                    old.night
                );
            }
            if !same_plan(old, header) {
                bail!(
                    "{}: recorded night {} (index {}, seed {}, chunks of {}, budget {:?}); this run plans index {}, seed {}, chunks of {}, budget {:?}: give the same --seed, --chunk and budget, or another --night",
                    path.display(), old.night, old.night_index, old.suite_seed, old.chunk_runs, old.budget,
                    header.night_index, header.suite_seed, header.chunk_runs, header.budget
                );
            }
            for problem in &read.problems {
                errln!(
                    "warning: {}:{}: {}",
                    path.display(),
                    problem.line,
                    problem.message
                );
            }
            for (_, record) in &read.records {
                match record {
                    Record::Chunk(c) => {
                        resumed.chunks.insert(c.plan_index);
                        resumed.runs += c.runs;
                    }
                    Record::Failure(f) if f.replay.is_some() => {
                        if let Some(identity) = failure_identity(old, f) {
                            resumed.replays.insert(identity.key());
                        }
                    }
                    _ => {}
                }
            }
            let file = OpenOptions::new()
                .write(true)
                .open(path)
                .with_context(|| format!("cannot open shard file {}", path.display()))?;
            // Drop a torn last line, so that the next append starts a line.
            file.set_len(read.complete_len as u64)
                .with_context(|| format!("cannot repair shard file {}", path.display()))?;
            let mut shard = ShardFile::start(file, path)?;
            shard.seek_end()?;
            return Ok((shard, resumed));
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .with_context(|| format!("cannot create shard file {}", path.display()))?;
        let mut shard = ShardFile::start(file, path)?;
        shard.append(&[Record::Header(header.clone())])?;
        Ok((shard, resumed))
    }

    fn start(file: File, path: &Path) -> Result<ShardFile> {
        let syncing = file
            .try_clone()
            .with_context(|| format!("cannot open shard file {}", path.display()))?;
        let (sender, requests) = channel::<()>();
        let handle = std::thread::spawn(move || {
            // One fsync covers every append before it: wait out the
            // interval, then drain what queued up meanwhile.
            let mut last: Option<Instant> = None;
            while requests.recv().is_ok() {
                if let Some(wait) = last.and_then(|l| SYNC_INTERVAL.checked_sub(l.elapsed())) {
                    std::thread::sleep(wait);
                }
                while requests.try_recv().is_ok() {}
                let _ = syncing.sync_data();
                last = Some(Instant::now());
            }
            let _ = syncing.sync_data();
        });
        Ok(ShardFile {
            file,
            path: path.to_path_buf(),
            sync: Some((sender, handle)),
        })
    }

    fn seek_end(&mut self) -> Result<()> {
        use std::io::Seek as _;
        self.file
            .seek(std::io::SeekFrom::End(0))
            .with_context(|| format!("cannot append to {}", self.path.display()))?;
        Ok(())
    }

    /// Append `records` in one write, and have them synced to disk.
    pub fn append(&mut self, records: &[Record]) -> Result<()> {
        let mut text = String::new();
        for record in records {
            text.push_str(&record.to_line());
            text.push('\n');
        }
        self.file
            .write_all(text.as_bytes())
            .with_context(|| format!("cannot append to {}", self.path.display()))?;
        if let Some((sender, _)) = &self.sync {
            let _ = sender.send(());
        }
        Ok(())
    }

    /// Wait until everything appended is on disk.
    pub fn close(mut self) -> Result<()> {
        if let Some((sender, handle)) = self.sync.take() {
            drop(sender);
            let _ = handle.join();
        }
        self.file
            .sync_all()
            .with_context(|| format!("cannot sync {}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_shard_comes_from_the_flag_slurm_or_kubernetes() {
        let given = ShardSpec { index: 1, count: 3 };
        assert_eq!(shard_from(Some(given), None, &env(&[])).unwrap(), given);
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
        ]);
        assert_eq!(
            shard_from(None, None, &slurm).unwrap(),
            ShardSpec { index: 2, count: 4 }
        );
        let k8s = env(&[("JOB_COMPLETION_INDEX", "2")]);
        assert_eq!(
            shard_from(None, Some(3), &k8s).unwrap(),
            ShardSpec { index: 2, count: 3 }
        );
        assert!(shard_from(None, None, &k8s).is_err());
        assert_eq!(
            shard_from(None, None, &env(&[])).unwrap(),
            ShardSpec { index: 0, count: 1 }
        );
        assert!(shard_from(None, Some(2), &env(&[])).is_err());
    }
}
