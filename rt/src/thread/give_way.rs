//! A yield that gives way, loom's `yield_now`: for a spin loop that an
//! exhaustive search (`rankcheck::explore`) must see the end of.

use std::panic::Location;

use crate::op;

/// Let another thread run, and give way to it, as loom's
/// `thread::yield_now`: a scheduling point after which the calling thread
/// does not run again until every thread that could run then took a step
/// or can no longer run (so a spin loop that calls it lets the others
/// take a step between any two of its turns), after which,
/// under weak memory, its loads no longer read a store it read before
/// where a newer one exists (so the loop sees progress). Under the
/// priority strategies it is [`yield_now`](super::yield_now); under the
/// others and `explore`, the schedules where the thread goes on at once
/// are not run.
#[track_caller]
pub fn give_way() {
    op::give_way(Location::caller());
}
