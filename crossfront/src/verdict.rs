//! One failure in the terms both front ends share: what went wrong and
//! where in the `.rk` text, from the engine's bugs and from the runtime's
//! failures (whose Rust lines map back to `.rk` lines).

use rankcheck_engine::outcome::Bug;
use rankcheck_engine::BugKind as Kind;
use rankcheck_rt::Reached;

/// A failure, located in the `.rk` text.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Verdict {
    /// What went wrong (a panic in Rust is an `assert` or an error).
    pub kind: Kind,
    /// The failing statement's line; 0 for a deadlock (see `blocked`) and
    /// the step limit.
    pub line: u32,
    /// An assert's message.
    pub message: Option<String>,
    /// For a deadlock, every blocked thread's blocking line, sorted.
    pub blocked: Vec<u32>,
}

/// A `.rk` program's lines, for turning places into lines.
pub struct RkText<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> RkText<'a> {
    /// The lines of `text`.
    pub fn new(text: &'a str) -> RkText<'a> {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        RkText { text, starts }
    }

    /// The 1-based line of byte `offset`.
    pub fn line(&self, offset: u32) -> u32 {
        self.starts.partition_point(|&s| s <= offset as usize) as u32
    }

    /// Whether line `line` (1-based) is an `assert` statement.
    fn is_assert(&self, line: u32) -> bool {
        self.text
            .lines()
            .nth(line.saturating_sub(1) as usize)
            .is_some_and(|l| l.trim_start().starts_with("assert("))
    }

    /// The engine's bug as a verdict.
    pub fn engine(&self, bug: &Bug) -> Verdict {
        let kind = bug.kind;
        let mut blocked: Vec<u32> = bug
            .blocked
            .iter()
            .map(|b| self.line(b.span.start))
            .collect();
        blocked.sort_unstable();
        Verdict {
            kind,
            line: match kind {
                Kind::Assert | Kind::Error => self.line(bug.span.start),
                Kind::Deadlock | Kind::StepLimit => 0,
            },
            message: (kind == Kind::Assert).then(|| bug.message.clone()),
            blocked,
        }
    }
}

/// Where the twin's lines are: the generated file and its line map.
pub struct TwinLines<'a> {
    /// `(line in the generated file, .rk line)`, sorted.
    pub lines: &'a [(u32, u32)],
}

/// A Rust place the twin's line map does not cover: a failure at a line
/// that renders no `.rk` statement, or outside the generated file.
pub const UNMAPPED: u32 = u32::MAX;

impl TwinLines<'_> {
    /// The `.rk` line of the generated file's `file:line`, or
    /// [`UNMAPPED`].
    pub fn rk_line(&self, file: Option<&str>, line: Option<u32>) -> u32 {
        let (Some(file), Some(line)) = (file, line) else {
            return UNMAPPED;
        };
        if !file.ends_with("programs.rs") {
            return UNMAPPED;
        }
        self.lines
            .binary_search_by_key(&line, |&(rust, _)| rust)
            .map_or(UNMAPPED, |i| self.lines[i].1)
    }

    /// The runtime's failure as a verdict: a panic is an `assert` when it
    /// is on an `assert` line (its message then compared), else an error.
    /// A `.rk` run ends at its first failure, where std lets the other
    /// threads go on after a spawned thread panics: the verdict is rt's
    /// first panic, which its report names (`first_panic`).
    pub fn runtime(&self, reached: &Reached, rk: &RkText<'_>) -> Verdict {
        let (file, line, message) = first_panic(reached);
        let line = self.rk_line(file.as_deref(), line);
        match reached.kind {
            "panic" if rk.is_assert(line) => Verdict {
                kind: Kind::Assert,
                line,
                message: Some(message),
                blocked: Vec::new(),
            },
            "panic" => Verdict {
                kind: Kind::Error,
                line,
                message: None,
                blocked: Vec::new(),
            },
            "deadlock" => {
                let mut blocked: Vec<u32> = reached
                    .blocked
                    .iter()
                    .map(|(file, line)| self.rk_line(Some(file), Some(*line)))
                    .collect();
                blocked.sort_unstable();
                Verdict {
                    kind: Kind::Deadlock,
                    line: 0,
                    message: None,
                    blocked,
                }
            }
            _ => Verdict {
                kind: Kind::StepLimit,
                line: 0,
                message: None,
                blocked: Vec::new(),
            },
        }
    }
}

/// The first panic of the run `reached` reports: its file, line and
/// message. rt names it first when a thread took it from `join` and then
/// panicked (`"M (then T, which took it from join, panicked ..)"`, at the
/// first panic's place), and last when another thread panicked after it
/// and no `join` took it (`"M2 (after thread T panicked at F:L:C: M)"`,
/// at the later panic's place).
fn first_panic(reached: &Reached) -> (Option<String>, Option<u32>, String) {
    let message = &reached.message;
    if let Some((first, _)) = message.split_once(" (then ") {
        return (reached.file.clone(), reached.line, first.to_owned());
    }
    let earlier = message
        .split_once(" (after thread ")
        .and_then(|(_, rest)| rest.split_once(" panicked at "))
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .and_then(|rest| rest.split_once(": "));
    match earlier {
        Some((place, first)) => {
            let mut parts = place.rsplitn(3, ':');
            let _column = parts.next();
            let line = parts.next().and_then(|l| l.parse().ok());
            (parts.next().map(str::to_owned), line, first.to_owned())
        }
        None => (reached.file.clone(), reached.line, message.clone()),
    }
}
