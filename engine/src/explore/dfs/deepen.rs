//! Iterative preemption bounding (Musuvathi and Qadeer, PLDI 2007) for a
//! search that stops at its first failure: before the search proper, the
//! same search runs under preemption bounds 0, 1, … up to
//! [`Deepening::deepest`] (and below the search's own bound), within a
//! budget of schedules.
//!
//! Why: a depth-first search reaches the schedules with few preemptions in
//! no particular order among the many with more, while most concurrency
//! bugs need one or two (the CHESS study). tokio's
//! `loom_notify::notify_waiters_and_one` (1.5.0, bound 2) fails at
//! schedule 909 of the plain search; its schedules without a preemption
//! are 19 and it fails at the 116th with at most one. Where the passes
//! below it finished, a failure found under bound b also shows that none
//! with fewer preemptions fails.
//!
//! What it costs: a search that does not fail runs the first passes as
//! well, their schedules again among the proper search's (a bound's
//! schedules are a subset of the next's, and a depth-first search cannot
//! skip a subtree it has not seen). The budget caps that: a pass that
//! would run past it is left unfinished and the search proper starts,
//! with the whole of its own cap (st3 0.4.1's `loom_fifo_extend` is
//! exhausted in 99,168 schedules of a cap of 100,000). For
//! a bound of 2 the first passes were 2% to 21% of the proper search's
//! schedules on tokio 1.47.4's loom tests of more than one schedule
//! (`results/explore_rt.md`).

use std::ops::ControlFlow;

use super::{pass, Monitor, Runner, Searched, Settings, Stop};

/// The first passes of a search ([`Settings::deepening`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deepening {
    /// The highest preemption bound of a first pass; none reaches the
    /// search's own bound.
    pub deepest: u32,
    /// The schedules the first passes may run together.
    pub budget: u64,
}

/// The first passes of `settings.deepening`: `Break` with the search's
/// result when one of them ends the search (a failure, a run that parted,
/// the monitor or the memory cap), else `Continue` with what they ran,
/// which the search proper adds to.
pub(super) fn first_passes(
    runner: &mut impl Runner,
    settings: &Settings,
    monitor: &Monitor<'_>,
) -> ControlFlow<Searched, Searched> {
    let mut spent = Searched::default();
    // A search that goes on past a failure would meet the passes'
    // failures again: the passes are for one that stops at the first.
    let deepening = settings
        .deepening
        .filter(|_| settings.stop_at_first_failure);
    let Some(deepening) = deepening else {
        return ControlFlow::Continue(spent);
    };
    let below = settings.preemption_bound.unwrap_or(u32::MAX);
    for bound in (0..=deepening.deepest).take_while(|&bound| bound < below) {
        let left = deepening.budget.saturating_sub(spent.schedules);
        if left == 0 {
            break;
        }
        let bounded = Settings {
            preemption_bound: Some(bound),
            max_schedules: left,
            deepening: None,
            ..*settings
        };
        let searched = pass(runner, &bounded, monitor, spent.schedules);
        let ends = searched.failed > 0
            || searched.parted.is_some()
            || matches!(searched.stop, Some(Stop::Interrupted | Stop::Memory(_)));
        spent = spent.then(searched);
        spent.first_passes = spent.schedules;
        if ends {
            spent.exhausted = false;
            return ControlFlow::Break(spent);
        }
    }
    spent.exhausted = false;
    spent.stop = None;
    ControlFlow::Continue(spent)
}
