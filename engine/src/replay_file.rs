//! The replay file: a versioned, human-readable record of one failing
//! execution, with a fingerprint of the program it belongs to and a
//! checksum over every line, so that an edited file is refused rather than
//! echoed back as fact.
//!
//! ```text
//! rankcheck-replay 2
//! program ../examples/fig02_c1v1.rk
//! fingerprint 5f0c2a1d9e3b4c77
//! define HOT=400
//! found-by search
//! search portfolio
//! strategy pctvb
//! priorities pct
//! tracking vars 0:a
//! depth 2
//! seed 42
//! run 3
//! max-steps 1000000
//! kind assert
//! preemptions 4
//! schedule 0 1*2 0*3
//! checksum 0c1d2e3f4a5b6c7d
//! ```
//!
//! `program` is relative to the file's own directory when it can be. The
//! schedule lists the thread chosen at each scheduling point; `t*n` stands
//! for `n` choices of thread `t` in a row. `preemptions` lists the steps
//! after which a priority change point fired; for a schedule shrunk before
//! it was reported (docs/ALGORITHMS.md, Shrinking), they are the steps
//! after which it preempts, and an optional `critical` line lists the steps
//! the switch to which the failure needs. `strategy` is the strategy of the
//! run itself, and the optional `search` line the search it was one run of
//! when that differs (the portfolio, whose run this was a PCTVB one), so
//! that a replay names the run as the search's report did; files written
//! before it was added read as runs of their `strategy`'s own search.
//! Lines starting with `#` are comments, outside the checksum.

use std::fmt::Write as _;

use thiserror::Error;

use crate::id::ThreadId;

/// The version this engine writes and reads.
pub const REPLAY_VERSION: u32 = 2;

/// Everything needed to replay one execution and to report it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayFile {
    /// The program's path, relative to the replay file's directory when
    /// possible.
    pub program: String,
    /// [`fingerprint`] of the program's source and defines.
    pub fingerprint: String,
    /// `-D NAME=VALUE` overrides, in the order given.
    pub defines: Vec<(String, i64)>,
    /// What found it: `search`, `preparatory` (a random preparatory run)
    /// or `explore`.
    pub found_by: String,
    /// The search the run belonged to, where it is not the run's own
    /// strategy: `portfolio` for a portfolio's `pctvb` run. `None`: the
    /// search was `strategy` itself.
    pub search: Option<String>,
    /// The strategy of the run, the search's or (in a portfolio) the
    /// component's, or `explore`.
    pub strategy: String,
    /// The priority scheme (`pct`, `thread-bounded`), or `none` for the
    /// random scheduler.
    pub priorities: String,
    /// Which variables were tracked, which decides where the scheduling
    /// points are: `all`, or `vars` and `id:name` items (then `instances`
    /// and `var:context:index` items).
    pub tracking: String,
    /// The run's depth `d` (0 when it had none: random scheduling).
    pub depth: u32,
    /// The search's master seed.
    pub seed: u64,
    /// The execution's number, from 1.
    pub run: u64,
    /// The step limit the execution ran under.
    pub max_steps: u64,
    /// The kind of failure it ends with.
    pub kind: String,
    /// The steps (1-based) after which a priority change point fired.
    pub preemptions: Vec<u64>,
    /// For a schedule shrunk before it was reported: the steps (from 1)
    /// the switch to which is critical (`critical` line; absent for a
    /// schedule as the search found it, whose `preemptions` are then
    /// change points).
    pub critical: Option<Vec<u64>>,
    /// The thread chosen at each scheduling point.
    pub schedule: Vec<ThreadId>,
}

/// Why a replay file could not be read. Lines are 1-based.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ReplayFileError {
    /// The first line is not `rankcheck-replay N`.
    #[error("line 1: not a rankcheck replay file (expected `rankcheck-replay {REPLAY_VERSION}`)")]
    NotAReplay,
    /// Written by another version.
    #[error(
        "line 1: replay file version {found}, but this rankcheck reads version {REPLAY_VERSION}: run the search again to record it anew"
    )]
    Version {
        /// The version in the file.
        found: String,
    },
    /// A line that does not parse.
    #[error("line {line}: {message}")]
    Malformed {
        /// The line.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A required key is absent.
    #[error("missing `{0}` line")]
    Missing(&'static str),
    /// The checksum does not match the lines: the file was edited.
    #[error("the checksum does not match: the file was changed after rankcheck wrote it, so it is not what the run recorded")]
    Edited,
}

/// FNV-1a, 64 bits, over `bytes`, from `hash`.
fn fnv(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// A stable fingerprint of a program's source and its `-D` values: FNV-1a,
/// 64 bits, over the source, then each define as `NAME=VALUE` in the order
/// given. It detects edits, not attacks.
pub fn fingerprint(source: &str, defines: &[(String, i64)]) -> String {
    let mut hash = fnv(FNV_START, source.as_bytes());
    for (name, value) in defines {
        hash = fnv(hash, b"\0");
        hash = fnv(hash, format!("{name}={value}").as_bytes());
    }
    format!("{hash:016x}")
}

/// The checksum of a file's lines before the `checksum` line.
fn checksum(lines: &str) -> String {
    format!("{:016x}", fnv(FNV_START, lines.as_bytes()))
}

impl ReplayFile {
    /// The file's text.
    pub fn to_text(&self) -> String {
        let mut out = format!("rankcheck-replay {REPLAY_VERSION}\n");
        let _ = writeln!(out, "program {}", self.program);
        let _ = writeln!(out, "fingerprint {}", self.fingerprint);
        for (name, value) in &self.defines {
            let _ = writeln!(out, "define {name}={value}");
        }
        let _ = writeln!(out, "found-by {}", self.found_by);
        if let Some(search) = &self.search {
            let _ = writeln!(out, "search {search}");
        }
        let _ = writeln!(out, "strategy {}", self.strategy);
        let _ = writeln!(out, "priorities {}", self.priorities);
        let _ = writeln!(out, "tracking {}", self.tracking);
        let _ = writeln!(out, "depth {}", self.depth);
        let _ = writeln!(out, "seed {}", self.seed);
        let _ = writeln!(out, "run {}", self.run);
        let _ = writeln!(out, "max-steps {}", self.max_steps);
        let _ = writeln!(out, "kind {}", self.kind);
        let preemptions: Vec<String> = self.preemptions.iter().map(u64::to_string).collect();
        let _ = writeln!(out, "preemptions {}", preemptions.join(" "));
        if let Some(critical) = &self.critical {
            let critical: Vec<String> = critical.iter().map(u64::to_string).collect();
            let _ = writeln!(out, "critical {}", critical.join(" "));
        }
        let _ = writeln!(out, "schedule {}", encode_schedule(&self.schedule));
        // The reader checks lines without trailing blanks (an empty list
        // leaves one): write them so.
        let mut out: String = out.lines().map(|l| format!("{}\n", l.trim_end())).collect();
        let sum = checksum(&out);
        let _ = writeln!(out, "checksum {sum}");
        out
    }

    /// Read a file's text.
    pub fn parse(text: &str) -> Result<ReplayFile, ReplayFileError> {
        let lines: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l))
            .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
            .collect();
        let Some(&(_, header)) = lines.first() else {
            return Err(ReplayFileError::NotAReplay);
        };
        match header.trim().strip_prefix("rankcheck-replay ") {
            None => return Err(ReplayFileError::NotAReplay),
            Some(v) if v.trim() != REPLAY_VERSION.to_string() => {
                return Err(ReplayFileError::Version {
                    found: v.trim().to_string(),
                })
            }
            Some(_) => {}
        }
        let mut fields = Fields::default();
        let mut covered = String::new();
        let mut sum = None;
        for &(line, text) in &lines {
            if let Some(value) = text.trim().strip_prefix("checksum ") {
                sum = Some(value.trim().to_string());
                break;
            }
            covered.push_str(text.trim_end());
            covered.push('\n');
            if line != lines[0].0 {
                fields.read(line, text)?;
            }
        }
        if sum.ok_or(ReplayFileError::Missing("checksum"))? != checksum(&covered) {
            return Err(ReplayFileError::Edited);
        }
        fields.finish()
    }
}

/// The values read so far.
#[derive(Default)]
struct Fields {
    program: Option<String>,
    fingerprint: Option<String>,
    defines: Vec<(String, i64)>,
    found_by: Option<String>,
    search: Option<String>,
    strategy: Option<String>,
    priorities: Option<String>,
    tracking: Option<String>,
    depth: Option<u32>,
    seed: Option<u64>,
    run: Option<u64>,
    max_steps: Option<u64>,
    kind: Option<String>,
    preemptions: Option<Vec<u64>>,
    critical: Option<Vec<u64>>,
    schedule: Option<Vec<ThreadId>>,
}

impl Fields {
    /// Read line `line`, `KEY VALUE`.
    fn read(&mut self, line: usize, text: &str) -> Result<(), ReplayFileError> {
        let malformed = |message: String| ReplayFileError::Malformed { line, message };
        let (key, value) = text
            .trim()
            .split_once(' ')
            .map(|(k, v)| (k, v.trim()))
            .unwrap_or((text.trim(), ""));
        let number = |what: &str| {
            value
                .parse::<u64>()
                .map_err(|_| malformed(format!("`{what}` needs a whole number, found `{value}`")))
        };
        let once = |present: bool| {
            if present {
                Err(malformed(format!("`{key}` given twice")))
            } else {
                Ok(())
            }
        };
        match key {
            "program" => once(self.program.is_some())?,
            "fingerprint" => once(self.fingerprint.is_some())?,
            "found-by" => once(self.found_by.is_some())?,
            "search" => once(self.search.is_some())?,
            "strategy" => once(self.strategy.is_some())?,
            "priorities" => once(self.priorities.is_some())?,
            "tracking" => once(self.tracking.is_some())?,
            "depth" => once(self.depth.is_some())?,
            "seed" => once(self.seed.is_some())?,
            "run" => once(self.run.is_some())?,
            "max-steps" => once(self.max_steps.is_some())?,
            "kind" => once(self.kind.is_some())?,
            "preemptions" => once(self.preemptions.is_some())?,
            "critical" => once(self.critical.is_some())?,
            "schedule" => once(self.schedule.is_some())?,
            _ => {}
        }
        match key {
            "program" => self.program = Some(value.to_string()),
            "fingerprint" => self.fingerprint = Some(value.to_string()),
            "define" => {
                let parsed = value
                    .split_once('=')
                    .and_then(|(n, v)| Some((n.trim().to_string(), v.trim().parse::<i64>().ok()?)));
                let define = parsed.ok_or_else(|| {
                    malformed(format!("`define` needs NAME=INTEGER, found `{value}`"))
                })?;
                self.defines.push(define);
            }
            "found-by" => self.found_by = Some(value.to_string()),
            "search" => self.search = Some(value.to_string()),
            "strategy" => self.strategy = Some(value.to_string()),
            "priorities" => self.priorities = Some(value.to_string()),
            "tracking" => self.tracking = Some(value.to_string()),
            "depth" => {
                let depth = number("depth")?;
                self.depth = Some(
                    u32::try_from(depth)
                        .map_err(|_| malformed(format!("`depth` {depth} is out of range")))?,
                );
            }
            "seed" => self.seed = Some(number("seed")?),
            "run" => self.run = Some(number("run")?),
            "max-steps" => self.max_steps = Some(number("max-steps")?),
            "kind" => self.kind = Some(value.to_string()),
            "preemptions" | "critical" => {
                let steps = value
                    .split_whitespace()
                    .map(|s| s.parse::<u64>())
                    .collect::<Result<Vec<u64>, _>>()
                    .map_err(|_| {
                        malformed(format!("`{key}` needs step numbers, found `{value}`"))
                    })?;
                if key == "critical" {
                    self.critical = Some(steps);
                } else {
                    self.preemptions = Some(steps);
                }
            }
            "schedule" => self.schedule = Some(decode_schedule(value).map_err(malformed)?),
            other => return Err(malformed(format!("unknown key `{other}`"))),
        }
        Ok(())
    }

    fn finish(self) -> Result<ReplayFile, ReplayFileError> {
        use ReplayFileError::Missing;
        Ok(ReplayFile {
            program: self.program.ok_or(Missing("program"))?,
            fingerprint: self.fingerprint.ok_or(Missing("fingerprint"))?,
            defines: self.defines,
            found_by: self.found_by.ok_or(Missing("found-by"))?,
            search: self.search,
            strategy: self.strategy.ok_or(Missing("strategy"))?,
            priorities: self.priorities.ok_or(Missing("priorities"))?,
            tracking: self.tracking.ok_or(Missing("tracking"))?,
            depth: self.depth.ok_or(Missing("depth"))?,
            seed: self.seed.ok_or(Missing("seed"))?,
            run: self.run.ok_or(Missing("run"))?,
            max_steps: self.max_steps.ok_or(Missing("max-steps"))?,
            kind: self.kind.ok_or(Missing("kind"))?,
            preemptions: self.preemptions.ok_or(Missing("preemptions"))?,
            critical: self.critical,
            schedule: self.schedule.ok_or(Missing("schedule"))?,
        })
    }
}

/// `0 0 0 1 0` as `0*3 1 0`.
fn encode_schedule(schedule: &[ThreadId]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < schedule.len() {
        let thread = schedule[i];
        let run = schedule[i..].iter().take_while(|&&t| t == thread).count();
        if !out.is_empty() {
            out.push(' ');
        }
        if run == 1 {
            let _ = write!(out, "{thread}");
        } else {
            let _ = write!(out, "{thread}*{run}");
        }
        i += run;
    }
    out
}

fn decode_schedule(text: &str) -> Result<Vec<ThreadId>, String> {
    let mut schedule = Vec::new();
    for item in text.split_whitespace() {
        let (thread, count) = item.split_once('*').unwrap_or((item, "1"));
        let bad = || format!("bad schedule entry `{item}`: expected THREAD or THREAD*COUNT");
        let thread: u32 = thread.parse().map_err(|_| bad())?;
        let count: usize = count.parse().map_err(|_| bad())?;
        if count == 0 || schedule.len().saturating_add(count) > 100_000_000 {
            return Err(bad());
        }
        schedule.extend(std::iter::repeat_n(ThreadId(thread), count));
    }
    Ok(schedule)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ReplayFile {
        ReplayFile {
            program: "../examples/fig02_c1v1.rk".into(),
            fingerprint: fingerprint("global a = 0;", &[("HOT".into(), 400)]),
            defines: vec![("HOT".into(), 400)],
            found_by: "search".into(),
            search: None,
            strategy: "pctvb".into(),
            priorities: "pct".into(),
            tracking: "vars 0:a".into(),
            depth: 2,
            seed: 42,
            run: 3,
            max_steps: 1000,
            kind: "assert".into(),
            preemptions: vec![4],
            critical: None,
            schedule: [0, 0, 0, 1, 0, 1, 1].map(ThreadId).to_vec(),
        }
    }

    #[test]
    fn empty_lists_round_trip() {
        let mut file = sample();
        file.preemptions.clear();
        file.defines.clear();
        assert_eq!(ReplayFile::parse(&file.to_text()), Ok(file));
    }

    #[test]
    fn a_portfolio_run_names_its_search() {
        let mut file = sample();
        file.search = Some("portfolio".into());
        let text = file.to_text();
        assert!(
            text.contains("search portfolio\nstrategy pctvb\n"),
            "{text}"
        );
        assert_eq!(ReplayFile::parse(&text), Ok(file));
    }

    #[test]
    fn round_trips_through_text() {
        let file = sample();
        let text = file.to_text();
        assert!(text.contains("schedule 0*3 1 0 1*2\n"), "{text}");
        assert_eq!(ReplayFile::parse(&text), Ok(file));
        let commented = format!("# a note\n{}", sample().to_text());
        assert_eq!(ReplayFile::parse(&commented), Ok(sample()));
    }

    #[test]
    fn fingerprint_changes_with_source_and_defines() {
        let base = fingerprint("a", &[]);
        assert_ne!(base, fingerprint("b", &[]));
        assert_ne!(base, fingerprint("a", &[("N".into(), 1)]));
        assert_eq!(base, fingerprint("a", &[]));
    }

    #[test]
    fn every_edited_field_is_refused() {
        let text = sample().to_text();
        for (from, to) in [
            ("kind assert", "kind deadlock"),
            ("run 3", "run 4"),
            ("seed 42", "seed 41"),
            ("tracking vars 0:a", "tracking all"),
            ("preemptions 4", "preemptions 5"),
            ("schedule 0*3", "schedule 0*2"),
            ("depth 2", "depth 3"),
        ] {
            let edited = text.replace(from, to);
            assert_ne!(edited, text);
            assert_eq!(
                ReplayFile::parse(&edited),
                Err(ReplayFileError::Edited),
                "{from}"
            );
        }
    }

    /// Found by the replay_file fuzz target: a repeat count near 2^64
    /// overflowed the length check.
    #[test]
    fn huge_repeat_counts_are_refused() {
        let text = "rankcheck-replay 2\nschedule 177 75*00000000018446744073709551615\n";
        assert!(matches!(
            ReplayFile::parse(text),
            Err(ReplayFileError::Malformed { line: 2, .. })
        ));
        let twice = "rankcheck-replay 2\nkind assert\nkind deadlock\n";
        assert_eq!(
            ReplayFile::parse(twice),
            Err(ReplayFileError::Malformed {
                line: 3,
                message: "`kind` given twice".into()
            })
        );
    }

    #[test]
    fn corrupt_files_name_the_line() {
        let text = sample().to_text().replace("seed 42", "seed forty");
        assert_eq!(
            ReplayFile::parse(&text),
            Err(ReplayFileError::Malformed {
                line: 10,
                message: "`seed` needs a whole number, found `forty`".into()
            })
        );
        assert_eq!(ReplayFile::parse("hello"), Err(ReplayFileError::NotAReplay));
        assert_eq!(
            ReplayFile::parse("rankcheck-replay 9\n"),
            Err(ReplayFileError::Version { found: "9".into() })
        );
        let text = sample().to_text();
        let without_checksum = &text[..text.find("checksum").unwrap()];
        assert_eq!(
            ReplayFile::parse(without_checksum),
            Err(ReplayFileError::Missing("checksum"))
        );
    }
}
