//! The replay file: a versioned, human-readable record of one failing
//! execution, with a fingerprint of the program it belongs to.
//!
//! ```text
//! rankcheck-replay 1
//! program examples/fig02_c1v1.rk
//! fingerprint 5f0c2a1d9e3b4c77
//! define HOT=400
//! strategy random
//! tracking all
//! seed 42
//! run 3
//! max-steps 1000000
//! kind assert
//! schedule 0 1*2 0*3
//! ```
//!
//! The schedule lists the thread chosen at each scheduling point; `t*n`
//! stands for `n` choices of thread `t` in a row. Lines starting with `#` are
//! comments.

use std::fmt::Write as _;

use thiserror::Error;

use crate::id::ThreadId;

/// The version this engine writes and reads.
pub const REPLAY_VERSION: u32 = 1;

/// Everything needed to replay one execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayFile {
    /// The program's path as the user gave it.
    pub program: String,
    /// [`fingerprint`] of the program's source and defines.
    pub fingerprint: String,
    /// `-D NAME=VALUE` overrides, in the order given.
    pub defines: Vec<(String, i64)>,
    /// The strategy that found it.
    pub strategy: String,
    /// Which variables were tracked, which decides where the scheduling
    /// points are: `all`, `sync`, `none` or `vars NAME,...`.
    pub tracking: String,
    /// The search's master seed.
    pub seed: u64,
    /// The execution's number, from 1.
    pub run: u64,
    /// The step limit the execution ran under.
    pub max_steps: u64,
    /// The kind of failure it ends with.
    pub kind: String,
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
        "line 1: replay file version {found}, but this rankcheck reads version {REPLAY_VERSION}"
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
}

/// A stable fingerprint of a program's source and its `-D` values: FNV-1a,
/// 64 bits, over the source, then each define as `NAME=VALUE` in the order
/// given. It detects edits, not attacks.
pub fn fingerprint(source: &str, defines: &[(String, i64)]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    feed(source.as_bytes());
    for (name, value) in defines {
        feed(b"\0");
        feed(format!("{name}={value}").as_bytes());
    }
    format!("{hash:016x}")
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
        let _ = writeln!(out, "strategy {}", self.strategy);
        let _ = writeln!(out, "tracking {}", self.tracking);
        let _ = writeln!(out, "seed {}", self.seed);
        let _ = writeln!(out, "run {}", self.run);
        let _ = writeln!(out, "max-steps {}", self.max_steps);
        let _ = writeln!(out, "kind {}", self.kind);
        let _ = writeln!(out, "schedule {}", encode_schedule(&self.schedule));
        out
    }

    /// Read a file's text.
    pub fn parse(text: &str) -> Result<ReplayFile, ReplayFileError> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
        let Some((_, header)) = lines.next() else {
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
        let mut program = None;
        let mut fingerprint = None;
        let mut defines = Vec::new();
        let mut strategy = None;
        let mut tracking = None;
        let mut seed = None;
        let mut run = None;
        let mut max_steps = None;
        let mut kind = None;
        let mut schedule = None;
        for (index, line) in lines {
            let line_no = index + 1;
            let malformed = |message: String| ReplayFileError::Malformed {
                line: line_no,
                message,
            };
            let (key, value) = line
                .trim()
                .split_once(' ')
                .map(|(k, v)| (k, v.trim()))
                .unwrap_or((line.trim(), ""));
            let number = |what: &str| {
                value.parse::<u64>().map_err(|_| {
                    malformed(format!("`{what}` needs a whole number, found `{value}`"))
                })
            };
            match key {
                "program" => program = Some(value.to_string()),
                "fingerprint" => fingerprint = Some(value.to_string()),
                "define" => {
                    let parsed = value.split_once('=').and_then(|(n, v)| {
                        Some((n.trim().to_string(), v.trim().parse::<i64>().ok()?))
                    });
                    match parsed {
                        Some(define) => defines.push(define),
                        None => {
                            return Err(malformed(format!(
                                "`define` needs NAME=INTEGER, found `{value}`"
                            )))
                        }
                    }
                }
                "strategy" => strategy = Some(value.to_string()),
                "tracking" => tracking = Some(value.to_string()),
                "seed" => seed = Some(number("seed")?),
                "run" => run = Some(number("run")?),
                "max-steps" => max_steps = Some(number("max-steps")?),
                "kind" => kind = Some(value.to_string()),
                "schedule" => schedule = Some(decode_schedule(value).map_err(malformed)?),
                other => return Err(malformed(format!("unknown key `{other}`"))),
            }
        }
        Ok(ReplayFile {
            program: program.ok_or(ReplayFileError::Missing("program"))?,
            fingerprint: fingerprint.ok_or(ReplayFileError::Missing("fingerprint"))?,
            defines,
            strategy: strategy.ok_or(ReplayFileError::Missing("strategy"))?,
            tracking: tracking.ok_or(ReplayFileError::Missing("tracking"))?,
            seed: seed.ok_or(ReplayFileError::Missing("seed"))?,
            run: run.ok_or(ReplayFileError::Missing("run"))?,
            max_steps: max_steps.ok_or(ReplayFileError::Missing("max-steps"))?,
            kind: kind.ok_or(ReplayFileError::Missing("kind"))?,
            schedule: schedule.ok_or(ReplayFileError::Missing("schedule"))?,
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
        if count == 0 || schedule.len() + count > 100_000_000 {
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
            program: "examples/fig02_c1v1.rk".into(),
            fingerprint: fingerprint("global a = 0;", &[("HOT".into(), 400)]),
            defines: vec![("HOT".into(), 400)],
            strategy: "random".into(),
            tracking: "all".into(),
            seed: 42,
            run: 3,
            max_steps: 1000,
            kind: "assert".into(),
            schedule: [0, 0, 0, 1, 0, 1, 1].map(ThreadId).to_vec(),
        }
    }

    #[test]
    fn round_trips_through_text() {
        let file = sample();
        let text = file.to_text();
        assert!(text.contains("schedule 0*3 1 0 1*2\n"), "{text}");
        assert_eq!(ReplayFile::parse(&text), Ok(file));
    }

    #[test]
    fn fingerprint_changes_with_source_and_defines() {
        let base = fingerprint("a", &[]);
        assert_ne!(base, fingerprint("b", &[]));
        assert_ne!(base, fingerprint("a", &[("N".into(), 1)]));
        assert_eq!(base, fingerprint("a", &[]));
    }

    #[test]
    fn corrupt_files_name_the_line() {
        let text = sample().to_text().replace("seed 42", "seed forty");
        assert_eq!(
            ReplayFile::parse(&text),
            Err(ReplayFileError::Malformed {
                line: 7,
                message: "`seed` needs a whole number, found `forty`".into()
            })
        );
        let text = sample().to_text().replace("schedule 0*3", "schedule x*3");
        assert!(matches!(
            ReplayFile::parse(&text),
            Err(ReplayFileError::Malformed { line: 11, .. })
        ));
        assert_eq!(ReplayFile::parse("hello"), Err(ReplayFileError::NotAReplay));
        assert_eq!(
            ReplayFile::parse("rankcheck-replay 9\n"),
            Err(ReplayFileError::Version { found: "9".into() })
        );
        let text = sample().to_text().replace("kind assert\n", "");
        assert_eq!(
            ReplayFile::parse(&text),
            Err(ReplayFileError::Missing("kind"))
        );
    }
}
