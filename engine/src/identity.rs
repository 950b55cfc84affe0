//! What makes two failures of one program the same failure, as far as the
//! engine can tell (docs/HISTORY.md, Failure identity): the kind, the place
//! (a byte span) and the message with the values of the run masked. The
//! threads that ran, the variables raced on and the schedule are not part
//! of it: they are variants of one failure. The history adds the program's
//! version and file; shrinking keeps a schedule only if it fails the same.

use crate::id::ThreadId;
use crate::outcome::{BlockedThread, Bug, BugKind, WaitsOn};
use crate::span::Span;

/// A failure's identity within one program.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Identity {
    /// Its kind.
    pub kind: BugKind,
    /// Its place: the failing operation, or for a deadlock the blocking
    /// operation of the first thread of its wait cycle.
    pub span: Span,
    /// Its message with the run's values masked ([`masked`]); for a
    /// deadlock, the clauses of the threads of its wait cycle only.
    pub message: String,
}

impl Identity {
    /// The identity of `bug`.
    pub fn of(bug: &Bug) -> Identity {
        if bug.kind != BugKind::Deadlock || bug.blocked.is_empty() {
            return Identity {
                kind: bug.kind,
                span: bug.span,
                message: masked(&bug.message),
            };
        }
        let core = deadlock_core(&bug.blocked);
        let mut clauses: Vec<String> = core
            .iter()
            .map(|b| masked(&format!("{} waits for {}", b.name, b.waits_on)))
            .collect();
        clauses.sort_unstable();
        clauses.dedup();
        Identity {
            kind: bug.kind,
            span: core[0].span,
            message: format!("deadlock: {}", clauses.join("; ")),
        }
    }
}

/// The threads a deadlock is about: those on a wait cycle (each waits for
/// a mutex the next holds, or for the next to finish); without a cycle
/// (a lost signal, an `await` never true), those that wait for something
/// other than another thread's end. Threads merely stuck behind them (a
/// `join`, a second taker of a held mutex) vary from run to run of one bug.
fn deadlock_core(blocked: &[BlockedThread]) -> Vec<&BlockedThread> {
    let next = |thread: ThreadId| -> Option<ThreadId> {
        let b = blocked.iter().find(|b| b.thread == thread)?;
        match &b.waits_on {
            WaitsOn::Mutex {
                holder: Some((holder, _)),
                ..
            } => Some(*holder),
            WaitsOn::Join { thread, .. } => Some(*thread),
            _ => None,
        }
    };
    let on_cycle = |start: ThreadId| {
        let mut at = start;
        for _ in 0..blocked.len() {
            match next(at) {
                Some(t) if t == start => return true,
                Some(t) => at = t,
                None => return false,
            }
        }
        false
    };
    let cycle: Vec<&BlockedThread> = blocked.iter().filter(|b| on_cycle(b.thread)).collect();
    if !cycle.is_empty() {
        return cycle;
    }
    let waiting: Vec<&BlockedThread> = blocked
        .iter()
        .filter(|b| !matches!(b.waits_on, WaitsOn::Join { .. }))
        .collect();
    if waiting.is_empty() {
        blocked.iter().collect()
    } else {
        waiting
    }
}

/// A message with the values of one run masked, so that the same failure
/// met in another run reads the same: every number not inside a name
/// becomes `N` (an index, a length, a value, the `#2` of a spawned thread
/// `push#2`); names such as `t1` or `x_2` are kept.
pub fn masked(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut previous: Option<char> = None;
    let mut in_number = false;
    for c in message.chars() {
        let in_name = previous.is_some_and(|p| p.is_alphanumeric() || p == '_');
        if c.is_ascii_digit() && (in_number || !in_name) {
            if !in_number {
                out.push('N');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(c);
        }
        previous = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::VarId;

    #[test]
    fn numbers_are_masked_but_names_are_kept() {
        assert_eq!(
            masked("index 12 out of bounds for length 3"),
            "index N out of bounds for length N"
        );
        assert_eq!(masked("t1 saw -5 in x_2"), "t1 saw -N in x_2");
        assert_eq!(masked("torn pair"), "torn pair");
    }

    fn blocked(thread: u32, name: &str, waits_on: WaitsOn, at: u32) -> BlockedThread {
        BlockedThread {
            thread: ThreadId(thread),
            name: name.into(),
            waits_on,
            span: Span::new(at, at + 1),
        }
    }

    fn mutex(name: &str, holder: u32, holder_name: &str) -> WaitsOn {
        WaitsOn::Mutex {
            var: VarId(0),
            name: name.into(),
            holder: Some((ThreadId(holder), holder_name.into())),
        }
    }

    fn deadlock(blocked: Vec<BlockedThread>) -> Bug {
        Bug {
            kind: BugKind::Deadlock,
            message: String::new(),
            span: blocked[0].span,
            thread: blocked[0].thread,
            thread_name: blocked[0].name.clone(),
            blocked,
            steps: 0,
        }
    }

    /// Two runs of one lock-order inversion among replicated workers: other
    /// instances, other threads stuck behind the cycle, main at another
    /// join; one identity, placed at the cycle's first blocking operation.
    #[test]
    fn a_deadlock_is_its_wait_cycle() {
        let join = |t: u32, n: &str| WaitsOn::Join {
            thread: ThreadId(t),
            name: n.into(),
        };
        let one = deadlock(vec![
            blocked(0, "main", join(1, "fwd#1"), 100),
            blocked(1, "fwd#1", mutex("b", 4, "bwd#4"), 10),
            blocked(2, "fwd#2", mutex("a", 1, "fwd#1"), 9),
            blocked(4, "bwd#4", mutex("a", 1, "fwd#1"), 20),
        ]);
        let other = deadlock(vec![
            blocked(0, "main", join(2, "fwd#2"), 101),
            blocked(2, "fwd#2", mutex("b", 5, "bwd#5"), 10),
            blocked(5, "bwd#5", mutex("a", 2, "fwd#2"), 20),
            blocked(6, "bwd#6", mutex("b", 5, "bwd#5"), 19),
        ]);
        assert_eq!(Identity::of(&one), Identity::of(&other));
        assert_eq!(Identity::of(&one).span, Span::new(10, 11));
        assert_eq!(
            Identity::of(&one).message,
            "deadlock: bwd#N waits for mutex `a`, held by fwd#N; fwd#N waits for mutex `b`, held by bwd#N"
        );
    }
}
