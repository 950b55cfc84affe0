//! An independent reference interpreter of the `.rk` language, for
//! differential testing of the rankcheck VM (as wasmtime is fuzzed against
//! the WebAssembly reference interpreter).
//!
//! Only the syntax half of the front end is shared with the VM:
//! [`rankcheck_instr::parse`] and the [`rankcheck_instr::ast`] types. Names
//! are resolved, constants folded and the tree interpreted here, following
//! `docs/LANGUAGE.md` and nothing else. The interpreter is small-step over
//! the (resolved) syntax tree: a thread is plain data, an explicit stack of
//! frames and tasks, so a whole machine state can be cloned and hashed, and
//! every scheduling decision is made in one place ([`replay`](Reference::replay),
//! the two searches) from the events the interpreter reports.
//!
//! Besides the interpreter: a brute-force model checker
//! ([`Reference::reachable_failures`]), a minimal-preemption search
//! ([`Reference::min_preemptions`]). The crate's tests hold the engine to
//! it on programs drawn by rankcheck-generate and on every hand-written
//! program under the workspace's `tests/` (differential testing); only
//! they use the engine.
//!
//! # Readings of the specification
//!
//! Where docs/LANGUAGE.md leaves a choice open, the reference takes the reading a
//! C or Rust programmer would expect:
//!
//! - **Evaluation order.** Operands are evaluated left to right, and an
//!   assignment evaluates its place's operands (`p` in `p.f = e`, `a` and
//!   `i` in `a[i] = e`) before the value; the store's own checks (`null`,
//!   missing field, bounds) happen at the store, after the value.
//! - **Completing a blocked `lock`** (taking the now free mutex, the whole
//!   step of the thread that waited) ends at a change point when the mutex
//!   is tracked: it is a `lock` of a tracked mutex after which the thread
//!   can go on. "Never a blocking operation" is read as the step in which
//!   the thread blocked. A woken `wait`er taking its mutex back is treated
//!   the same way, and so is passing a blocked `await` whose condition read
//!   a tracked variable.
//! - **The end of a thread** is a step of its own whenever the thread's
//!   last operation before it ended a step (for instance a tracked write as
//!   the last statement).
//! - **Write that wakes an awaiter (step end 3)**: a write ends the step when
//!   some thread blocked in `await` could not run before it and can after
//!   it, its condition being true *or failing* (both make it able to run).
//! - **`sync`**: the implicit unlock at the end of the block is located at
//!   its closing brace, and on `break`, `continue` or `return` at that
//!   statement, where the engine puts them; leaving blocks
//!   early through `sync` and `atomic` exits runs those exits in order, and
//!   each may end the step on the way (the rest of the `return` continues in
//!   the next step).
//! - **`await` conditions** must be booleans; another value is a run-time
//!   error at the condition. A blocked thread whose condition evaluates to a
//!   non-boolean counts as able to run and reports the error when chosen.
//! - **`i64::MIN % -1`** is an overflow error, like `i64::MIN / -1`.
//! - **Schedules** longer than the execution are accepted: entries after
//!   its end are ignored. The end (no thread can run) is detected at a
//!   scheduling point before an entry is read, so a deadlock needs no extra
//!   entry.
//! - **Operations counted against `max_ops`**: scheduling points, loop
//!   iterations and calls, as docs/LANGUAGE.md's step limit counts (calls made
//!   while a thread evaluates its own `await` condition included). The
//!   searches count them along the path from the start and report a path
//!   past `max_ops_per_execution` as a [`Kind::StepLimit`] failure (line 0
//!   when the limit falls on a scheduling point, else the loop or call's
//!   line).
//! - **Allocation sites** are named by the start of the `new` expression's
//!   span as the parser gives it; a parenthesised `(new {..})` starts at its
//!   parenthesis.
//! - **A `new [n]`** of more than 2^24 elements is the heap-limit error; the
//!   other resource limits (threads, calls) are not modelled.
//! - **`main`** takes no parameters: `fn main(x)` is refused (the initial
//!   thread is started with none). A replicated `thread` item of no copies
//!   is still a `thread` item: the program is valid and has no thread.
//! - **Unknown [`VarKey`]s** in a tracked set are ignored (see
//!   [`Reference::variables`] for the program's variables).
//!
//! # The preemption bound
//!
//! [`Reference::min_preemptions`] searches executions rather than priority
//! orders: at a scheduling point after a change point it may cut the thread
//! (start a new fragment, costing one), then run any thread that can run,
//! recording that its fragment outranks the current fragments of the other
//! threads that can run, and refusing cyclic constraints. The constraints
//! are kept transitively closed over current fragments only, which is all
//! that older fragments matter for. See `preemption.rs` and `order.rs`.

mod access;
mod body;
mod condition;
mod error;
mod explore;
mod failure;
mod fold;
mod interpret;
mod lines;
mod machine;
mod memory;
mod operator;
mod order;
mod preemption;
mod program;
mod purity;
mod replay;
mod resolve;
mod statement;
mod step;
mod synchronise;
mod thread;
mod value;
mod visited;

use std::collections::BTreeSet;
use std::fmt;

pub use error::RefError;
pub use failure::{Failure, Kind};

use program::Program;
use step::TrackSet;

/// A resolved program, ready to run.
#[derive(Clone, Debug)]
pub struct Reference {
    /// The program, names resolved and constants folded.
    program: Program,
}

/// Which variables a run tracks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tracked {
    /// Every variable.
    All,
    /// These variables only.
    Vars(BTreeSet<VarKey>),
}

/// How a test names a variable.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum VarKey {
    /// A `global`, `mutex` or `cond` declaration, by name.
    Decl(String),
    /// An allocation site, by the byte offset where its `new` expression
    /// starts in the source.
    Alloc(usize),
}

/// How a replayed execution ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replayed {
    /// Every thread finished.
    Pass,
    /// The execution failed.
    Fail(Failure),
    /// The schedule named a thread that cannot run at this point (0-based
    /// point index).
    Diverged {
        /// The scheduling point.
        point: usize,
        /// The thread the schedule named.
        wanted: u32,
        /// The threads that could run, in increasing order.
        enabled: Vec<u32>,
    },
    /// The schedule ran out before the execution ended.
    Unfinished {
        /// The scheduling point with no schedule entry.
        point: usize,
    },
    /// More than `max_ops` operations: possible non-termination.
    StepLimit,
}

/// Limits of a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The most distinct states a search may visit.
    pub max_states: u64,
    /// The most operations one execution may take; past it the execution
    /// is a step-limit failure.
    pub max_ops_per_execution: u64,
}

/// A search gave up: it would visit more states than its budget allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exhausted {
    /// The states visited when it gave up.
    pub states: u64,
}

impl fmt::Display for Exhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the search budget ran out after {} states", self.states)
    }
}

impl std::error::Error for Exhausted {}

impl Reference {
    /// Parses `source`, resolves names and folds constants, `defines`
    /// overriding the program's consts (a later define of the same name
    /// wins). Refuses an `await` condition that may have side effects.
    pub fn new(source: &str, defines: &[(String, i64)]) -> Result<Reference, RefError> {
        let module = rankcheck_instr::parse(source).map_err(RefError::Syntax)?;
        let program = resolve::resolve(source, &module, defines)?;
        Ok(Reference { program })
    }

    /// The program's variables: declarations in source order, then
    /// allocation sites in source order.
    pub fn variables(&self) -> Vec<VarKey> {
        let mut variables = self.program.variables.clone();
        // Stable: declarations keep their source order.
        variables.sort_by_key(|key| match key {
            VarKey::Decl(_) => None,
            VarKey::Alloc(offset) => Some(*offset),
        });
        variables
    }

    /// Re-runs one execution: `schedule[i]` is the thread id chosen at the
    /// `i`-th scheduling point (the first point comes before any thread
    /// runs). Steps end exactly as docs/LANGUAGE.md says for `tracked`.
    pub fn replay(&self, schedule: &[u32], tracked: &Tracked, max_ops: u64) -> Replayed {
        replay::replay(&self.program, schedule, &self.track_set(tracked), max_ops)
    }

    /// Every failure reachable when every variable is tracked and any thread
    /// that can run may be chosen at every scheduling point.
    pub fn reachable_failures(&self, budget: &Budget) -> Result<BTreeSet<Failure>, Exhausted> {
        explore::reachable_failures(&self.program, budget)
    }

    /// The fewest change points (every variable tracked) with which some
    /// priority order of fragments makes some failure happen, with the
    /// failures reachable at that count; `None` if no failure is reachable
    /// with at most `max_c`.
    pub fn min_preemptions(
        &self,
        max_c: u32,
        budget: &Budget,
    ) -> Result<Option<(u32, BTreeSet<Failure>)>, Exhausted> {
        preemption::min_preemptions(&self.program, max_c, budget)
    }

    fn track_set(&self, tracked: &Tracked) -> TrackSet {
        match tracked {
            Tracked::All => TrackSet::All,
            Tracked::Vars(keys) => TrackSet::Some(
                self.program
                    .variables
                    .iter()
                    .map(|key| keys.contains(key))
                    .collect(),
            ),
        }
    }
}
