//! The replay string a failure report ends with: what the failing run
//! tracked, its budgets of spurious wake-ups and timeouts, its memory
//! model and stale reads, and the thread chosen at every scheduling point,
//! with a checksum.
//! `rc4:TRACKED:WAKES:MEMORY:READS:SCHEDULE:CHECKSUM`, where TRACKED is
//! `all` or the creation ordinals of the tracked objects (`o3,7`; an
//! object's ordinal is the same in every run of the same schedule), WAKES
//! the waits that ended early (spurious wake-ups and timeouts, see
//! `crate::wake`) by their ordinal in the run (`w` for none, `w0,4`),
//! MEMORY the memory model the run ran under (`sc` or `weak`, as
//! [`MemoryModel::name`]), followed by `+nocells` when accesses to
//! `UnsafeCell`s were not scheduling points (the loom facade's runs, as
//! loom's), READS the weak memory choices other than the
//! latest store (crate::memory::choice), each `ordinal.back` (`r` for
//! none, `r2.1,5.3`), and SCHEDULE the thread indices, `t*n` for `n`
//! choices of thread `t` in a row.
//!
//! The model is written out because a run under weak memory that read no
//! stale store is still not a sequentially consistent run: its data races
//! on `UnsafeCell`s and its `unsync_load`s are checked only under weak
//! memory, so a race replayed under sequential consistency would not fail.
//! The strings of the earlier versions read with the model their stale
//! reads imply (`rc3:TRACKED:WAKES:READS:SCHEDULE:CHECKSUM`: weak when it
//! has one), with no stale read (`rc2:TRACKED:WAKES:SCHEDULE:CHECKSUM`)
//! and with no early wait either (`rc1:TRACKED:SCHEDULE:CHECKSUM`).

use rankcheck_engine::ThreadId;

use crate::executor::Tracking;
use crate::memory::choice::ReadChoice;
use crate::memory::MemoryModel;
use crate::object::ObjectId;

const VERSION: &str = "rc4";

/// After the memory model: the run's `UnsafeCell` accesses were not
/// scheduling points.
const NO_CELL_POINTS: &str = "+nocells";

/// The version before the memory model was written out.
const VERSION_3: &str = "rc3";

/// The version before stale reads were choices.
const VERSION_2: &str = "rc2";

/// The version before wake-ups were choices.
const VERSION_1: &str = "rc1";

/// A failing run, as a replay string holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayString {
    /// What was tracked.
    pub tracking: Tracking,
    /// The waits that ended early, by ordinal, ascending.
    pub early: Vec<u32>,
    /// The memory model the run ran under.
    pub memory: MemoryModel,
    /// Whether accesses to `UnsafeCell`s were scheduling points: the
    /// schedule's choices are only those of a run that makes the same.
    pub cell_points: bool,
    /// The stale reads, by ordinal, ascending.
    pub reads: Vec<ReadChoice>,
    /// The choices.
    pub schedule: Vec<ThreadId>,
}

impl ReplayString {
    /// The string.
    pub fn encode(&self) -> String {
        let tracked = match &self.tracking {
            Tracking::All => "all".to_owned(),
            Tracking::Objects(objects) => {
                let ids: Vec<String> = objects.iter().map(|o| o.0.to_string()).collect();
                format!("o{}", ids.join(","))
            }
            Tracking::Vars(_) => unreachable!("invariant: a replay string names objects"),
        };
        let early: Vec<String> = self.early.iter().map(u32::to_string).collect();
        let wakes = format!("w{}", early.join(","));
        let reads: Vec<String> = self
            .reads
            .iter()
            .map(|r| format!("{}.{}", r.ordinal, r.back))
            .collect();
        let reads = format!("r{}", reads.join(","));
        let cells = if self.cell_points { "" } else { NO_CELL_POINTS };
        let body = format!(
            "{VERSION}:{tracked}:{wakes}:{}{cells}:{reads}:{}",
            self.memory.name(),
            schedule_text(&self.schedule)
        );
        format!("{body}:{:08x}", checksum(&body))
    }

    /// Read a string back.
    pub fn decode(text: &str) -> Result<ReplayString, String> {
        let text = text.trim();
        let (body, sum) = text
            .rsplit_once(':')
            .ok_or("it has no checksum (is it the whole string?)")?;
        if u32::from_str_radix(sum, 16).ok() != Some(checksum(body)) {
            return Err("its checksum does not match: it was cut or edited".to_owned());
        }
        let parts: Vec<&str> = body.split(':').collect();
        let mut cell_points = true;
        let (tracked, early, memory, reads, schedule) = match parts[..] {
            [VERSION, tracked, early, memory, reads, schedule] => (
                tracked,
                parse_early(early)?,
                Some(match memory.strip_suffix(NO_CELL_POINTS) {
                    Some(memory) => {
                        cell_points = false;
                        parse_memory(memory)?
                    }
                    None => parse_memory(memory)?,
                }),
                parse_reads(reads)?,
                schedule,
            ),
            [VERSION_3, tracked, early, reads, schedule] => (
                tracked,
                parse_early(early)?,
                None,
                parse_reads(reads)?,
                schedule,
            ),
            [VERSION_2, tracked, early, schedule] => {
                (tracked, parse_early(early)?, None, Vec::new(), schedule)
            }
            [VERSION_1, tracked, schedule] => (tracked, Vec::new(), None, Vec::new(), schedule),
            [version, ..] if ![VERSION, VERSION_3, VERSION_2, VERSION_1].contains(&version) => {
                return Err(format!("version {version} is not {VERSION}"));
            }
            _ => {
                return Err(
                    "expected VERSION:TRACKED:WAKES:MEMORY:READS:SCHEDULE:CHECKSUM".to_owned(),
                )
            }
        };
        // Before rc4 the model was implied: weak exactly when a load read
        // a stale store.
        let memory = memory.unwrap_or(if reads.is_empty() {
            MemoryModel::Sc
        } else {
            MemoryModel::Weak
        });
        let tracking = match tracked {
            "all" => Tracking::All,
            t => Tracking::Objects(objects(t)?),
        };
        Ok(ReplayString {
            tracking,
            early,
            memory,
            cell_points,
            reads,
            schedule: parse_schedule(schedule)?,
        })
    }
}

/// `sc` or `weak`: the memory model, as [`MemoryModel::name`] writes it.
fn parse_memory(text: &str) -> Result<MemoryModel, String> {
    [MemoryModel::Sc, MemoryModel::Weak]
        .into_iter()
        .find(|m| m.name() == text)
        .ok_or_else(|| format!("bad memory model {text} (expected sc or weak)"))
}

/// `r2.1,5.3`: the stale reads, `ordinal.back`.
fn parse_reads(text: &str) -> Result<Vec<ReadChoice>, String> {
    let list = text
        .strip_prefix('r')
        .ok_or_else(|| format!("bad read list {text}"))?;
    let mut reads: Vec<ReadChoice> = list
        .split(',')
        .filter(|r| !r.is_empty())
        .map(|r| {
            let parsed = r
                .split_once('.')
                .and_then(|(o, b)| Some((o.parse().ok()?, b.parse().ok()?)));
            match parsed {
                Some((ordinal, back)) if back > 0 => Ok(ReadChoice { ordinal, back }),
                _ => Err(format!("bad read {r} (expected ORDINAL.BACK)")),
            }
        })
        .collect::<Result<_, _>>()?;
    reads.sort_unstable();
    Ok(reads)
}

/// `w0,4`: the waits that ended early.
fn parse_early(text: &str) -> Result<Vec<u32>, String> {
    numbers(text, 'w', "early wait")
}

/// `o3,7`: the tracked objects.
fn objects(text: &str) -> Result<Vec<ObjectId>, String> {
    Ok(numbers(text, 'o', "object")?
        .into_iter()
        .map(ObjectId)
        .collect())
}

/// The numbers of `text`, a comma-separated list after `prefix`
/// (`what` names one in an error), ascending.
fn numbers(text: &str, prefix: char, what: &str) -> Result<Vec<u32>, String> {
    let list = text
        .strip_prefix(prefix)
        .ok_or_else(|| format!("bad {what} list {text}"))?;
    if list.is_empty() {
        return Ok(Vec::new());
    }
    let mut numbers: Vec<u32> = list
        .split(',')
        .map(|n| n.parse().map_err(|_| format!("bad {what} {n}")))
        .collect::<Result<_, _>>()?;
    numbers.sort_unstable();
    Ok(numbers)
}

fn schedule_text(schedule: &[ThreadId]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < schedule.len() {
        let t = schedule[i];
        let run = schedule[i..].iter().take_while(|&&x| x == t).count();
        parts.push(if run == 1 {
            t.0.to_string()
        } else {
            format!("{}*{run}", t.0)
        });
        i += run;
    }
    parts.join("_")
}

fn parse_schedule(text: &str) -> Result<Vec<ThreadId>, String> {
    let mut schedule = Vec::new();
    for part in text.split('_').filter(|p| !p.is_empty()) {
        let (thread, run) = part.split_once('*').unwrap_or((part, "1"));
        let thread: u32 = thread.parse().map_err(|_| format!("bad thread {thread}"))?;
        let run: usize = run.parse().map_err(|_| format!("bad count {run}"))?;
        if run > 100_000_000 {
            return Err(format!("count {run} is too large"));
        }
        schedule.extend(std::iter::repeat_n(ThreadId(thread), run));
    }
    Ok(schedule)
}

/// FNV-1a, 32 bits.
fn checksum(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5, |h: u32, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_reads_back_and_refuses_edits() {
        let replay = ReplayString {
            tracking: Tracking::Objects(vec![ObjectId(1), ObjectId(4)]),
            early: vec![0, 3],
            memory: MemoryModel::Weak,
            cell_points: true,
            reads: vec![ReadChoice {
                ordinal: 2,
                back: 1,
            }],
            schedule: [0, 0, 0, 1, 2, 2, 0].map(ThreadId).to_vec(),
        };
        let text = replay.encode();
        assert!(
            text.starts_with("rc4:o1,4:w0,3:weak:r2.1:0*3_1_2*2_0:"),
            "{text}"
        );
        assert_eq!(ReplayString::decode(&text), Ok(replay));
        let edited = text.replacen("1_2", "2_2", 1);
        assert!(ReplayString::decode(&edited)
            .unwrap_err()
            .contains("checksum"));
        assert!(ReplayString::decode("nonsense").is_err());
    }

    #[test]
    fn a_second_version_string_reads_with_no_stale_reads() {
        let body = "rc2:all:w1:0_1";
        let text = format!("{body}:{:08x}", checksum(body));
        let replay = ReplayString::decode(&text).unwrap();
        assert_eq!(replay.early, [1]);
        assert!(replay.reads.is_empty());
        assert_eq!(replay.memory, MemoryModel::Sc);
    }

    #[test]
    fn a_weak_run_without_stale_reads_keeps_its_model() {
        // A data race needs no stale read, and replays only under weak
        // memory.
        let replay = ReplayString {
            tracking: Tracking::All,
            early: Vec::new(),
            memory: MemoryModel::Weak,
            cell_points: true,
            reads: Vec::new(),
            schedule: [0, 1, 1, 0].map(ThreadId).to_vec(),
        };
        let text = replay.encode();
        assert!(text.starts_with("rc4:all:w:weak:r:0_1*2_0:"), "{text}");
        assert_eq!(ReplayString::decode(&text), Ok(replay.clone()));
        let silent = ReplayString {
            cell_points: false,
            ..replay
        };
        let text = silent.encode();
        assert!(
            text.starts_with("rc4:all:w:weak+nocells:r:0_1*2_0:"),
            "{text}"
        );
        assert_eq!(ReplayString::decode(&text), Ok(silent));
        let body = "rc4:all:w:tso:r:0_1";
        let text = format!("{body}:{:08x}", checksum(body));
        let error = ReplayString::decode(&text).unwrap_err();
        assert!(error.contains("bad memory model tso"), "{error}");
    }

    #[test]
    fn a_third_version_string_reads_with_the_model_its_reads_imply() {
        for (body, memory) in [
            ("rc3:all:w:r:0_1", MemoryModel::Sc),
            ("rc3:all:w:r2.1:0_1", MemoryModel::Weak),
        ] {
            let text = format!("{body}:{:08x}", checksum(body));
            let replay = ReplayString::decode(&text).unwrap();
            assert_eq!(replay.memory, memory, "{body}");
        }
    }

    #[test]
    fn a_bad_read_is_named() {
        let body = "rc4:all:w:weak:r1x:0_1";
        let text = format!("{body}:{:08x}", checksum(body));
        let error = ReplayString::decode(&text).unwrap_err();
        assert!(error.contains("bad read 1x"), "{error}");
    }

    #[test]
    fn a_first_version_string_reads_with_no_early_wakes() {
        let body = "rc1:all:0_1";
        let text = format!("{body}:{:08x}", checksum(body));
        let replay = ReplayString::decode(&text).unwrap();
        assert!(replay.early.is_empty());
        assert_eq!(replay.schedule, [ThreadId(0), ThreadId(1)]);
    }
}
