//! The exploration seam: one depth-first search over every schedule of a
//! program, behind a [`Runner`] each front end implements (the VM's in
//! [`super::explore_every_schedule`], rt's executor in rankcheck-rt's
//! `explore`), as shrinking is behind [`crate::shrink::Replayer`].
//!
//! A run replays the choices of the path so far and then takes the first
//! thread that can run (lowest id first) and is not pruned; the next run
//! changes the last choice that has an untried thread. An execution is a
//! function of its choices, so the runs cover every schedule, up to what
//! the pruning proves needless. A front end's choice among values at one
//! step (under weak memory, which store a load of an atomic reads:
//! [`SearchPath::read`], named by the atomic's place) is a node of the
//! same path, its options tried in turn.
//!
//! The front end tells the path what every step touched
//! ([`SearchPath::stepped`], [`super::Touch`]es), and the search prunes by
//! one of:
//!
//! - **sleep sets** (Godefroid): a thread explored from a node sleeps
//!   below a later choice there whose step commutes with its step
//!   ([`super::Footprint::commutes_with`]), until a step that does not
//!   commute with it runs. A step known only once it ran is compared only
//!   once it ran: a node keeps, for each thread explored from it, what its
//!   step touched. A node whose first choice touched nothing (the thread
//!   only found that it must wait) has no other: every schedule from
//!   there is a schedule from after it.
//! - **a dynamic partial-order reduction** with those sleep sets
//!   ([`Pruning::Dpor`], `races`): a new point explores only its first
//!   choice; after each run, every two steps of different threads that
//!   conflict and that the run's happens-before did not order ask the
//!   point before the earlier one to explore a thread that starts the
//!   other order (a source set, Abdulla et al.). A thread that could still
//!   run when a failure ended the run is taken to touch everything.
//!   Under a preemption bound, with a second point per race (the last
//!   switch before it); with the spin-loop guard, by sleep sets alone.
//!
//! Under a preemption bound a thread sleeps only behind a sibling whose
//! subtree the bound cut nowhere: a thread sleeps because a sibling
//! explored the same steps in the other order, and the bound may have
//! cut that sibling's orders (DPOR-NOTES trap 1; the toy programs of
//! `dfs::tests` lost classes when every sibling counted). A subtree is
//! cut where a point below it left a thread unexplored for the bound
//! alone (`node::mark_cut`).
//! - **state caching**: a scheduling point whose happens-before signature
//!   was reached before is not explored again; sound only when the
//!   touches are every access a step makes (the VM's), so that equal
//!   signatures mean equal states.
//!
//! A run that reaches a point with nothing new to choose (every thread
//! asleep, a state seen, or the preemption bound reached) is stopped
//! there when the front end stops cheaply (it is then pruned, not a
//! schedule), else finished without preempting and without adding to
//! the path (it counts as a schedule).
//!
//! A preemption is a choice of another thread than the one that ran up to
//! the point while it could go on; with a bound, only schedules with at
//! most that many are explored. A thread that yielded more than the
//! spin-loop guard allows is tried only when nothing else can run, so
//! that spin loops end.
//!
//! A search that stops at its first failure may first run the same
//! search under lower preemption bounds (`deepen`, [`Deepening`]), so
//! that a failure with few preemptions is met before the many schedules
//! with more.
//!
//! A program that is not a function of its choices (it reads the clock,
//! or keeps a value between runs) breaks the premise: a run that replays
//! an earlier run's choices is then offered others (a thread that cannot
//! run, a read where the earlier run scheduled). The search stops at the
//! first such run and says where ([`Searched::parted`]) rather than
//! explore a tree that is not one: it cannot tell which schedules it
//! covered.

mod deepen;
mod node;
mod path;
mod races;
mod spare;
#[cfg(test)]
mod tests;

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

pub use deepen::Deepening;
pub use path::SearchPath;

use path::Verdict;

use super::{Monitor, Progress, Stop};

/// What the depth-first search runs executions with: the front end's
/// execution of a program under a [`SearchPath`].
pub trait Runner {
    /// Run the program once from its start under `path`: at every
    /// scheduling point after the first, tell `path` which thread ran the
    /// step that just ended and what it touched ([`SearchPath::stepped`],
    /// then [`SearchPath::yielded`] if it yielded); at every point run
    /// the thread [`SearchPath::choose`] gives; at every choice among
    /// values, take [`SearchPath::read`]'s; once the run ended, tell what
    /// its last step touched (a front end that cannot is taken to have
    /// touched everything). A failing run is the front
    /// end's to keep ([`SearchPath::schedule`] numbers it).
    fn run(&mut self, path: &mut SearchPath) -> Ending;

    /// Whether a run the search no longer needs is best stopped at once
    /// (the VM: its threads are data), rather than finished without
    /// preempting (rt: stopping unwinds real threads' stacks).
    fn stops_cheaply(&self) -> bool;
}

/// How a run ended, as its front end saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// It ran to its end without failing.
    Passed,
    /// It failed.
    Failed,
    /// It ended at a scheduling point whose chosen thread could not run
    /// there ([`SearchPath::STOP`], or a replayed choice the run does not
    /// offer).
    Cut,
}

/// How the search prunes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pruning {
    /// Not at all: every schedule (the reference of differential tests).
    #[default]
    None,
    /// By sleep sets over the steps' footprints; under a preemption bound,
    /// only behind siblings the bound cut nowhere (a bound may prune the
    /// orders a sleep set counts on).
    SleepSets,
    /// By the happens-before signatures of the states reached (the
    /// touches must be every access of every step).
    States,
    /// By a dynamic partial-order reduction with sleep sets: a point
    /// explores another thread only where a race in a run asks for it
    /// (`races`). Under a preemption bound with sleep sets as
    /// [`Pruning::SleepSets`] keeps them, and with a race also asking the
    /// last point before it where the run switched
    /// threads (Coons, Musuvathi and McKinley 2013, as loom does: the
    /// bound makes independent steps dependent). With the spin-loop
    /// guard, by sleep sets instead.
    Dpor,
}

impl Pruning {
    /// Whether it keeps sleep sets.
    fn sleeps(self) -> bool {
        matches!(self, Pruning::SleepSets | Pruning::Dpor)
    }
}

/// A depth-first search's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// How it prunes.
    pub pruning: Pruning,
    /// The most preemptions a schedule may make (`None`: no bound).
    pub preemption_bound: Option<u32>,
    /// The yields after which a thread is tried only when nothing else
    /// can run (`None`: no spin-loop guard).
    pub spin_yields: Option<u32>,
    /// Stop after this many schedules (the result is then not
    /// exhausted); the first passes ([`Settings::deepening`]) run within
    /// their own budget besides.
    pub max_schedules: u64,
    /// Stop when the path and the states seen pass this many bytes.
    pub max_memory: u64,
    /// Stop after the first failing schedule.
    pub stop_at_first_failure: bool,
    /// First passes under lower preemption bounds, to reach a failure
    /// with few preemptions sooner (`deepen`; `None`: the search alone).
    /// Only a search that stops at its first failure runs them: one that
    /// goes on would run their schedules twice for nothing.
    pub deepening: Option<Deepening>,
}

/// What a depth-first search covered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Searched {
    /// Schedules run (runs stopped as pruned do not count), the first
    /// passes' among them.
    pub schedules: u64,
    /// Schedules run by the first passes under lower preemption bounds
    /// ([`Settings::deepening`]).
    pub first_passes: u64,
    /// Runs stopped because they had nothing new left.
    pub pruned: u64,
    /// Schedules that failed.
    pub failed: u64,
    /// The schedule (from 1) that failed first, if one did.
    pub first_failure: Option<u64>,
    /// Whether every schedule was explored (up to what pruning proves
    /// needless, within the preemption bound).
    pub exhausted: bool,
    /// Why it stopped early, if a limit stopped it.
    pub stop: Option<Stop>,
    /// Where a run parted from the runs before it, which stopped the
    /// search: the program is not a function of its choices.
    pub parted: Option<Parted>,
}

/// A run that replayed the choices of earlier runs and was offered other
/// ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parted {
    /// The run (from 1) that parted from the earlier ones.
    pub schedule: u64,
    /// The scheduling point (from 1) of that run where it parted.
    pub point: usize,
}

/// How often (in runs) the monitor is told the progress at least.
const MONITOR_EVERY: u64 = 256;

/// How long the monitor goes untold at most (where runs are slow), so
/// that a time limit or an interrupt it checks is not overshot by 256
/// slow runs.
const MONITOR_PERIOD: Duration = Duration::from_millis(100);

/// Explore every schedule `runner` runs, by `settings`, telling `monitor`
/// the progress now and then (it returns whether to go on).
pub fn search(runner: &mut impl Runner, settings: &Settings, monitor: &Monitor<'_>) -> Searched {
    let mut settings = *settings;
    if settings.pruning == Pruning::Dpor && settings.spin_yields.is_some() {
        settings.pruning = Pruning::SleepSets;
    }
    let first = match deepen::first_passes(runner, &settings, monitor) {
        ControlFlow::Continue(first) => first,
        ControlFlow::Break(ended) => return ended,
    };
    // The search proper keeps the whole cap: the first passes must not
    // cost a search that finished within it its proof.
    let searched = pass(runner, &settings, monitor, first.schedules);
    first.then(searched)
}

/// One depth-first search by `settings` (its own preemption bound, no
/// first passes), after `before` schedules of earlier passes: its runs
/// are numbered after them, its counts are its own.
fn pass(
    runner: &mut impl Runner,
    settings: &Settings,
    monitor: &Monitor<'_>,
    before: u64,
) -> Searched {
    let mut path = SearchPath::new(settings, runner.stops_cheaply());
    let mut searched = Searched::default();
    let mut told_at = Instant::now();
    loop {
        if searched.schedules >= settings.max_schedules {
            searched.stop = Some(Stop::Schedules);
            return searched;
        }
        path.start(before + searched.schedules + 1);
        let ending = runner.run(&mut path);
        match path.verdict(ending) {
            Verdict::Pruned => searched.pruned += 1,
            Verdict::Passed => searched.schedules += 1,
            Verdict::Failed => {
                searched.schedules += 1;
                searched.failed += 1;
                searched
                    .first_failure
                    .get_or_insert(before + searched.schedules);
            }
            Verdict::Parted(point) => {
                searched.schedules += 1;
                searched.parted = Some(Parted {
                    schedule: before + searched.schedules,
                    point,
                });
                return searched;
            }
        }
        if !path.advance() {
            searched.exhausted = true;
            return searched;
        }
        if settings.stop_at_first_failure && searched.failed > 0 {
            return searched;
        }
        if let Some(stop) = limit(&path, &searched, settings, monitor, &mut told_at) {
            searched.stop = Some(stop);
            return searched;
        }
    }
}

impl Searched {
    /// This pass's result followed by `next`'s (whose schedules are
    /// numbered after this one's): the counts summed, the first failure
    /// the earliest, the rest `next`'s.
    fn then(self, next: Searched) -> Searched {
        Searched {
            schedules: self.schedules + next.schedules,
            first_passes: self.first_passes + next.first_passes,
            pruned: self.pruned + next.pruned,
            failed: self.failed + next.failed,
            first_failure: self.first_failure.or(next.first_failure),
            exhausted: next.exhausted,
            stop: next.stop,
            parted: self.parted.or(next.parted),
        }
    }
}

/// Whether the memory cap or the monitor stops the search now: the
/// monitor is told every [`MONITOR_EVERY`] runs, or once
/// [`MONITOR_PERIOD`] passed since it was last told (`told_at`).
fn limit(
    path: &SearchPath,
    searched: &Searched,
    settings: &Settings,
    monitor: &Monitor<'_>,
    told_at: &mut Instant,
) -> Option<Stop> {
    let runs = searched.schedules + searched.pruned;
    let told = runs.is_multiple_of(MONITOR_EVERY) || told_at.elapsed() >= MONITOR_PERIOD;
    if told {
        *told_at = Instant::now();
    }
    if settings.max_memory == u64::MAX && !told {
        return None;
    }
    let memory = path.bytes();
    if memory > settings.max_memory {
        return Some(Stop::Memory(memory));
    }
    let progress = Progress {
        schedules: searched.schedules,
        pruned: searched.pruned,
        items_left: path.left(),
        bound: 0,
        memory,
    };
    (told && !monitor(&progress)).then_some(Stop::Interrupted)
}
