//! A run's virtual clock, for a runtime that keeps time (the tokio
//! facade's `time`): it reads zero when the run begins and moves only
//! when the test moves it ([`advance`]) or when no thread can run and a
//! timer is armed, then to the earliest deadline, as tokio's paused clock
//! auto-advances when its runtime is idle. So a run never waits for the
//! real clock, its times are the same in every run of a schedule, and a
//! timer never fires while a thread can still run (a race between timers
//! of equal deadlines is still the scheduler's: their tasks are woken
//! together).
//!
//! Timers have tokio's millisecond resolution: a deadline is rounded up
//! to the next millisecond, and fires once the clock's whole milliseconds
//! reach it (tokio's `deadline_to_tick` and `instant_to_tick`); moving
//! on its own the clock goes to that millisecond.
//!
//! A timer keeps the waker of its last poll and the thread that polled
//! it. When no thread can run, the clock moves, the due timers' threads
//! are enabled, and the first of them to go on wakes the due wakers
//! (outside the executor, as any waker is woken: a waker of a
//! `FuturesUnordered` or of a test's mock task must see the wake), before
//! its future is polled again. Reading the clock is not a scheduling
//! point; arming, firing and advancing are bookkeeping of the async
//! runtime, as a wake is.

use std::collections::BTreeMap;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use rankcheck_engine::ThreadId;

use crate::executor::threads::{Status, Wait};
use crate::executor::{self, with, Execution};
use crate::footprint::Place;

/// One millisecond: the timers' resolution.
const TICK: Duration = Duration::from_millis(1);

/// A run's clock and its armed timers.
#[derive(Debug, Default)]
pub struct Clock {
    /// Time since the run began.
    now: Duration,
    /// Whether the test paused time (tokio's `time::pause`): a flag for
    /// the facade, which keeps tokio's checks; the clock moves the same
    /// either way.
    paused: bool,
    /// The armed timers, by id (ids in arming order: deterministic).
    timers: BTreeMap<u64, Armed>,
    /// The next timer's id.
    next_id: u64,
    /// The wakers of timers that fired when no thread could run, for the
    /// first thread that goes on to wake.
    due: Vec<Waker>,
}

/// An armed timer.
#[derive(Debug)]
struct Armed {
    /// Its deadline, rounded up to a tick.
    deadline: Duration,
    /// The waker of its last poll.
    waker: Waker,
    /// The thread that polled it last.
    owner: ThreadId,
}

impl Clock {
    /// Forget the run: the clock back at zero, no timer.
    pub fn clear(&mut self) {
        self.now = Duration::ZERO;
        self.paused = false;
        self.timers.clear();
        self.next_id = 0;
        self.due.clear();
    }

    /// The wakers of the timers due at the clock's time, taken.
    fn take_due(&mut self) -> Vec<Waker> {
        let now = floor_tick(self.now);
        let due: Vec<u64> = self
            .timers
            .iter()
            .filter(|(_, armed)| armed.deadline <= now)
            .map(|(id, _)| *id)
            .collect();
        due.into_iter()
            .filter_map(|id| self.timers.remove(&id))
            .map(|armed| armed.waker)
            .collect()
    }
}

/// `duration` rounded up to a whole tick (a deadline's tick).
fn ceil_tick(duration: Duration) -> Duration {
    let floor = floor_tick(duration);
    if floor == duration {
        floor
    } else {
        floor + TICK
    }
}

/// `duration` rounded down to a whole tick (the clock's tick).
fn floor_tick(duration: Duration) -> Duration {
    Duration::from_millis(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
}

/// The run's time since it began; `None` outside a run (a runtime's
/// clock outside its runtime is the caller's to choose).
pub fn now() -> Option<Duration> {
    executor::with_present(|ex| {
        ex.touch(Place::Everything, false);
        ex.tasks.clock.now
    })
}

/// Move the run's clock forward by `by`, as tokio's `time::advance`
/// (without its yield): the timers it reaches fire, their wakers woken.
///
/// # Panics
/// Outside a run.
pub fn advance(by: Duration) {
    let due = with(|ex| {
        ex.touch(Place::Everything, true);
        let clock = &mut ex.tasks.clock;
        clock.now += by;
        clock.take_due()
    });
    for waker in due {
        waker.wake();
    }
}

/// Mark time paused or not, as the facade's `pause` and `resume` do;
/// whether it was.
///
/// # Panics
/// Outside a run.
pub fn set_paused(paused: bool) -> bool {
    with(|ex| std::mem::replace(&mut ex.tasks.clock.paused, paused))
}

/// A timer of the run's clock: [`Timer::poll_until`] is ready once the
/// clock reaches a deadline, and until then arms the timer to wake the
/// poll's waker then. Disarmed when dropped.
#[derive(Debug, Default)]
pub struct Timer {
    /// `(execution, id)` while armed.
    armed: Option<(u64, u64)>,
}

impl Timer {
    /// A timer not armed.
    pub fn new() -> Timer {
        Timer::default()
    }

    /// Ready once the clock has reached `deadline` (rounded up to a
    /// millisecond); else the timer is armed with the deadline and `cx`'s
    /// waker (replacing what it had), and `Pending`.
    ///
    /// # Panics
    /// Outside a run, as a timer polled outside its runtime.
    pub fn poll_until(&mut self, deadline: Duration, cx: &mut Context<'_>) -> Poll<()> {
        let deadline = ceil_tick(deadline);
        let armed = self.armed;
        let outcome = with(|ex| {
            ex.touch(Place::Everything, true);
            let execution = ex.id;
            let owner = ex.current;
            let clock = &mut ex.tasks.clock;
            let mine = armed.filter(|(e, _)| *e == execution).map(|(_, id)| id);
            if deadline <= floor_tick(clock.now) {
                if let Some(id) = mine {
                    clock.timers.remove(&id);
                }
                return None;
            }
            let id = mine.unwrap_or_else(|| {
                clock.next_id += 1;
                clock.next_id
            });
            match clock.timers.get_mut(&id) {
                Some(timer) => {
                    timer.deadline = deadline;
                    timer.owner = owner;
                    if !timer.waker.will_wake(cx.waker()) {
                        timer.waker = cx.waker().clone();
                    }
                }
                None => {
                    let waker = cx.waker().clone();
                    clock.timers.insert(
                        id,
                        Armed {
                            deadline,
                            waker,
                            owner,
                        },
                    );
                }
            }
            Some((execution, id))
        });
        self.armed = outcome;
        match outcome {
            None => Poll::Ready(()),
            Some(_) => Poll::Pending,
        }
    }

    /// Move the deadline of an armed timer to `deadline`, keeping its
    /// waker, as a runtime re-registers a reset timer: woken at once if
    /// the clock has reached it. Nothing for a timer not armed (its next
    /// poll arms it).
    pub fn reset(&mut self, deadline: Duration) {
        let Some((execution, id)) = self.armed else {
            return;
        };
        let deadline = ceil_tick(deadline);
        let fired = executor::with_present(|ex| {
            if ex.id != execution {
                return None;
            }
            ex.touch(Place::Everything, true);
            let clock = &mut ex.tasks.clock;
            let timer = clock.timers.get_mut(&id)?;
            timer.deadline = deadline;
            if deadline <= floor_tick(clock.now) {
                clock.timers.remove(&id).map(|t| t.waker)
            } else {
                None
            }
        })
        .flatten();
        if let Some(waker) = fired {
            self.armed = None;
            waker.wake();
        }
    }

    /// Disarm the timer (it will not wake its waker).
    pub fn cancel(&mut self) {
        let Some((execution, id)) = self.armed.take() else {
            return;
        };
        executor::with_present(|ex| {
            if ex.id == execution {
                ex.touch(Place::Everything, true);
                ex.tasks.clock.timers.remove(&id);
            }
        });
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// No thread can run: if a timer is armed, the clock moves to the
/// earliest deadline, and the threads of the timers due then are enabled
/// (or, where none of them waits to be woken, the first thread that
/// does), to wake the due wakers as they go on. Whether a thread was
/// enabled.
pub(crate) fn fire_when_idle(ex: &mut Execution) -> bool {
    let clock = &mut ex.tasks.clock;
    let Some(earliest) = clock.timers.values().map(|t| t.deadline).min() else {
        return false;
    };
    clock.now = clock.now.max(earliest);
    let now = clock.now;
    let owners: Vec<ThreadId> = clock
        .timers
        .values()
        .filter(|t| t.deadline <= now)
        .map(|t| t.owner)
        .collect();
    let due = clock.take_due();
    clock.due.extend(due);
    let waits_to_be_woken = |ex: &Execution, thread: ThreadId| {
        matches!(
            ex.threads.get(thread).status,
            Status::Blocked {
                wait: Wait::Woken,
                ..
            }
        )
    };
    let mut any = false;
    for owner in owners {
        if waits_to_be_woken(ex, owner) {
            ex.threads.enable(owner);
            any = true;
        }
    }
    if !any {
        let first = (0..ex.threads.all.len())
            .map(|i| ThreadId(i as u32))
            .find(|&thread| waits_to_be_woken(ex, thread));
        if let Some(thread) = first {
            ex.threads.enable(thread);
            any = true;
        }
    }
    any
}

/// The running thread goes on after a wait: it wakes the wakers of the
/// timers that fired while no thread could run, outside the executor.
pub(crate) fn wake_due() {
    let due = executor::with_present(|ex| std::mem::take(&mut ex.tasks.clock.due));
    for waker in due.into_iter().flatten() {
        waker.wake();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_round_up_and_the_clock_rounds_down_to_a_millisecond() {
        let ms = Duration::from_millis;
        assert_eq!(ceil_tick(ms(2)), ms(2));
        assert_eq!(ceil_tick(ms(2) + Duration::from_nanos(1)), ms(3));
        assert_eq!(floor_tick(ms(2) + Duration::from_micros(999)), ms(2));
        assert_eq!(ceil_tick(Duration::ZERO), Duration::ZERO);
    }
}
