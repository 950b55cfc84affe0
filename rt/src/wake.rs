//! Wake-ups without the awaited event, as std allows them: a spurious
//! wake-up of `Condvar::wait` or `thread::park`, and the timeout of a timed
//! wait (`wait_timeout`, `wait_timeout_while`, `park_timeout`,
//! `recv_timeout`). Never the clock's: each such wait decides when it
//! begins whether it ends early, drawn from the run's seed with
//! probability [`EARLY`] while the run's budget lasts. An early wait
//! releases what it holds and is at once a thread that goes on (a
//! condition variable's waiter waits for its mutex only), so the
//! scheduler still decides when it wakes. The waits that ended early are
//! recorded by their ordinal in the run, and the replay string carries
//! them. Besides, a timed wait times out whenever no other thread can run
//! (its timeout would fire then), which is a choice of thread like any
//! other.
//!
//! Why not make a waiting thread one the scheduler may pick: a priority
//! scheduler always picks the highest thread, so a waiter above the others
//! would wake early in every such run, and hide the lost wake-up deadlocks
//! PCT is good at finding.

use rankcheck_engine::search::run_seed;
use rankcheck_engine::ThreadId;

use crate::executor::threads::{Status, Wait};
use crate::executor::Execution;

/// The chance that a wait ends early while the run's budget lasts.
pub const EARLY: f64 = 0.25;

/// Spurious wake-ups and timeouts: a run's budgets, or what it made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wakes {
    /// Spurious wake-ups of `Condvar::wait` and `thread::park`.
    pub spurious: u32,
    /// Early timeouts of timed waits (a timeout when no other thread can
    /// run is not counted against the budget).
    pub timeouts: u32,
}

/// The spurious wake-ups and timeouts of many runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WakeCount {
    /// Spurious wake-ups.
    pub spurious: u64,
    /// Timeouts.
    pub timeouts: u64,
}

impl WakeCount {
    /// Count a run's.
    pub fn add(&mut self, run: Wakes) {
        self.spurious += u64::from(run.spurious);
        self.timeouts += u64::from(run.timeouts);
    }
}

/// How a wait that may end without its event ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Woken {
    /// Its event came: a notification, an unpark, a message.
    Event,
    /// Spuriously.
    Spurious,
    /// Its timeout fired.
    Timeout,
}

/// Where a run's decisions come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WakeChoices {
    /// Drawn from this seed, within these budgets.
    Draw {
        /// The run's seed for them.
        seed: u64,
        /// The most of each.
        budget: Wakes,
    },
    /// The waits (by ordinal in the run) that end early: a replay.
    Replay(Vec<u32>),
}

/// A run's decisions so far.
#[derive(Clone, Debug)]
pub struct WakeState {
    choices: WakeChoices,
    /// Waits that could have ended early so far.
    waits: u32,
    /// The ordinals of those that did.
    pub early: Vec<u32>,
    /// What the run made (a forced timeout too).
    pub made: Wakes,
}

impl WakeState {
    /// A run deciding by `choices`.
    pub fn new(choices: WakeChoices) -> WakeState {
        WakeState {
            choices,
            waits: 0,
            early: Vec::new(),
            made: Wakes::default(),
        }
    }

    /// A wait (`timed` or not) begins that may end early: whether it does,
    /// and how.
    pub fn decide(&mut self, timed: bool) -> Woken {
        let ordinal = self.waits;
        self.waits += 1;
        let early = match &mut self.choices {
            WakeChoices::Replay(early) => early.binary_search(&ordinal).is_ok(),
            WakeChoices::Draw { seed, budget } => {
                let left = if timed {
                    &mut budget.timeouts
                } else {
                    &mut budget.spurious
                };
                let draw = run_seed(*seed, u64::from(ordinal)) as f64 / u64::MAX as f64;
                let early = *left > 0 && draw < EARLY;
                if early {
                    *left -= 1;
                }
                early
            }
        };
        if !early {
            return Woken::Event;
        }
        self.early.push(ordinal);
        if timed {
            self.made.timeouts += 1;
            Woken::Timeout
        } else {
            self.made.spurious += 1;
            Woken::Spurious
        }
    }

    /// A choice of one bit, unbudgeted, even odds, recorded with the
    /// early waits (a set bit is an ordinal of `early`): what
    /// `future::choose` draws from, so a replay repeats it. Always 0
    /// when replaying none (`explore`).
    pub fn bit(&mut self) -> bool {
        let ordinal = self.waits;
        self.waits += 1;
        let set = match &self.choices {
            WakeChoices::Replay(early) => early.binary_search(&ordinal).is_ok(),
            WakeChoices::Draw { seed, .. } => run_seed(*seed, u64::from(ordinal)) & 1 == 1,
        };
        if set {
            self.early.push(ordinal);
        }
        set
    }

    /// A timed wait timed out because no other thread could run.
    pub fn forced(&mut self) -> Woken {
        self.made.timeouts += 1;
        Woken::Timeout
    }
}

/// No thread can run: every thread in a timed wait that could go on once
/// its timeout fired (a condition variable's, once its mutex is free) may
/// now time out, and the run's clock moves to its earliest timer
/// (crate::future::clock). Whether a thread may now go on.
pub fn force_timeouts(ex: &mut Execution) -> bool {
    let mut any = false;
    for i in 0..ex.threads.all.len() {
        let Status::Blocked { wait, .. } = ex.threads.all[i].status else {
            continue;
        };
        let can = match wait {
            Wait::Condvar {
                mutex, timed: true, ..
            } => ex.objects[mutex.index()].sync.mutex_free(),
            Wait::Park { timed: true } | Wait::Recv { timed: true, .. } => true,
            Wait::Woken => ex.tasks.timed(ThreadId(i as u32)),
            _ => false,
        };
        if can {
            ex.threads.enable(ThreadId(i as u32));
            any = true;
        }
    }
    crate::future::clock::fire_when_idle(ex) || any
}
