//! The threads of one execution: what each waits on, and the enabled set
//! the scheduler chooses from, kept up to date as threads block and wake.
//! Waiters are kept per object, so an unlock looks only at the threads
//! waiting on its own object.

use std::panic::Location;
use std::rc::Rc;

use rankcheck_engine::ThreadId;

use super::coroutine::Job;
use super::suspend::Suspender;
use crate::object::ObjectId;

/// What a blocked thread waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// A mutex (or, woken from a condition variable, its mutex back).
    Lock(ObjectId),
    /// A read lock of a `RwLock`.
    ReadLock(ObjectId),
    /// A write lock of a `RwLock`.
    WriteLock(ObjectId),
    /// A notification of a condition variable (one made after `since`,
    /// the condition variable's generation when the wait began), or, when
    /// `timed`, the timeout; then its mutex.
    Condvar {
        /// The condition variable.
        condvar: ObjectId,
        /// The mutex it released.
        mutex: ObjectId,
        /// The generation of the condition variable the wait began in.
        since: u64,
        /// Whether the wait has a timeout.
        timed: bool,
    },
    /// The end of another thread.
    Join(ThreadId),
    /// The last thread to reach a barrier.
    Barrier(ObjectId),
    /// A message, or every sender gone (or, when `timed`, the timeout).
    Recv {
        /// The channel.
        channel: ObjectId,
        /// Whether the receive has a timeout.
        timed: bool,
    },
    /// Room in a bounded channel, or the receiver gone.
    Send(ObjectId),
    /// Its park token, from `Thread::unpark` (or, when `timed`, the
    /// timeout).
    Park {
        /// Whether the park has a timeout.
        timed: bool,
    },
    /// A receiver taking the message this thread sent on a rendezvous
    /// channel (the channel's `ticket`-th), or the receiver gone.
    Handoff {
        /// The channel.
        channel: ObjectId,
        /// How many messages must have been taken.
        ticket: u64,
    },
    /// A task's (or `block_on`'s) waker, after its future returned
    /// `Pending` (crate::future).
    Woken,
}

impl Wait {
    /// The objects whose changes a thread waiting for this looks at again
    /// (a condition variable's waiter: both it and its mutex).
    pub fn objects(self) -> [Option<ObjectId>; 2] {
        match self {
            Wait::Lock(o) | Wait::ReadLock(o) | Wait::WriteLock(o) | Wait::Send(o) => {
                [Some(o), None]
            }
            Wait::Recv { channel, .. } | Wait::Handoff { channel, .. } => [Some(channel), None],
            Wait::Condvar { condvar, mutex, .. } => [Some(condvar), Some(mutex)],
            Wait::Join(_) | Wait::Park { .. } | Wait::Barrier(_) | Wait::Woken => [None, None],
        }
    }
}

/// Where a thread is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Not blocked (it may still be about to block).
    Runnable,
    /// Blocked at `at`, waiting for `wait`.
    Blocked {
        /// What for.
        wait: Wait,
        /// The operation that blocked.
        at: &'static Location<'static>,
    },
    /// Its body returned.
    Finished,
}

/// One thread of the execution.
pub struct ThreadState {
    /// Blocked, runnable or finished.
    pub status: Status,
    /// Its identity across runs (see [`crate::var::Registry::child`]).
    pub identity: u32,
    /// The name given to `thread::Builder::name`, if any.
    pub label: Option<String>,
    /// Its place (from 1) among the threads of its label (or spawn site):
    /// it is called `LABEL#k`; 0 for the main thread.
    pub ordinal: u32,
    /// Where it was spawned: its end is reported there.
    pub site: &'static Location<'static>,
    /// Threads it spawned so far: the next child's place among them.
    pub children: u32,
    /// Objects it created so far, per creation site: the next one's
    /// place (a variable's identity includes it).
    pub created: Vec<(&'static Location<'static>, u32)>,
    /// Its body, until a coroutine takes it.
    pub job: Option<Job>,
    /// What suspends it, once it runs on a coroutine.
    pub suspender: Option<Suspender>,
    /// Its park token: set by `Thread::unpark`, taken by `thread::park`.
    pub unparked: bool,
    /// Whether it is an async task (crate::future): named `task@LINE#k`,
    /// and dropped, not waited for, once the test's threads finished.
    pub task: bool,
    /// A task whose future completed: it keeps the run open until its
    /// end, so that it finishes (one more step) instead of being dropped
    /// by an unwinding of its coroutine, which costs far more.
    pub exiting: bool,
    /// A spawned task's future, kept apart from its coroutine's stack so
    /// that a run ending with the task between two polls drops it as a
    /// runtime drops its tasks, not by unwinding (crate::executor::teardown).
    pub future: Option<Rc<dyn TaskFuture>>,
    /// A task in the middle of a poll of its future ([`Threads::polling`]).
    pub polling: bool,
}

/// A task's future, as the teardown sees it.
pub trait TaskFuture {
    /// Drop the future if it is not being polled (the task waits between
    /// two polls); whether it was dropped. Its destructor runs here.
    fn cancel(&self) -> bool;
}

/// Every thread, and which can run.
#[derive(Default)]
pub struct Threads {
    /// By [`ThreadId`].
    pub all: Vec<ThreadState>,
    /// The threads that can run, in the order they became able to.
    pub enabled: Vec<ThreadId>,
    /// `position[t]`: where `t` is in `enabled`, or `u32::MAX`.
    pub position: Vec<u32>,
    /// Threads that became able to run since the last scheduling point.
    pub newly_enabled: Vec<ThreadId>,
    /// `waiters[o]`: the blocked threads, by id, that look again when
    /// object `o` changes (most changes concern none), so that an unlock
    /// looks at its own waiters only. The lists keep their memory from run
    /// to run.
    waiters: Vec<Vec<ThreadId>>,
    /// Threads that are no task and have not finished: the run is over
    /// when none is left (tasks still unfinished then are dropped, as a
    /// runtime drops its tasks when `block_on` returns).
    pub live: u32,
    /// The thread that gave way since the last point
    /// (crate::executor::give_way).
    pub gave_way: Option<ThreadId>,
    /// The threads that gave way and still wait a step from others.
    pub yielded: Vec<super::give_way::GaveWay>,
}

impl Threads {
    /// Add a runnable thread.
    pub fn add(&mut self, state: ThreadState) -> ThreadId {
        let id = ThreadId(self.all.len() as u32);
        self.live += u32::from(!state.task);
        self.all.push(state);
        self.position.push(u32::MAX);
        self.enable(id);
        id
    }

    /// Forget every thread, keeping the memory.
    pub fn clear(&mut self) {
        self.all.clear();
        self.enabled.clear();
        self.position.clear();
        self.newly_enabled.clear();
        for list in &mut self.waiters {
            list.clear();
        }
        self.live = 0;
        self.gave_way = None;
        self.yielded.clear();
    }

    /// `id` finished its body.
    pub fn finish(&mut self, id: ThreadId) {
        let thread = &mut self.all[id.index()];
        thread.status = Status::Finished;
        self.live -= u32::from(!thread.task || thread.exiting);
        self.disable(id);
    }

    /// Whether a blocked thread looks again when `object` changes.
    #[inline]
    pub fn waiting_on(&self, object: ObjectId) -> bool {
        self.waiters
            .get(object.index())
            .is_some_and(|list| !list.is_empty())
    }

    /// The `k`-th (by id) of the threads waiting on `object`, and what it
    /// waits for.
    #[inline(always)]
    pub fn waiter(&self, object: ObjectId, k: usize) -> Option<(ThreadId, Wait)> {
        let id = *self.waiters.get(object.index())?.get(k)?;
        match self.all[id.index()].status {
            Status::Blocked { wait, .. } => Some((id, wait)),
            _ => unreachable!("invariant: a listed waiter is blocked"),
        }
    }

    /// List `id` among the waiters of the objects `wait` concerns.
    #[inline(always)]
    fn list(&mut self, id: ThreadId, wait: Wait) {
        for object in wait.objects().into_iter().flatten() {
            let i = object.index();
            if i >= self.waiters.len() {
                self.waiters.resize_with(i + 1, Vec::new);
            }
            let list = &mut self.waiters[i];
            if let Err(place) = list.binary_search(&id) {
                list.insert(place, id);
            }
        }
    }

    /// Take `id` off the waiters of the objects `wait` concerns.
    #[inline(always)]
    fn unlist(&mut self, id: ThreadId, wait: Wait) {
        for object in wait.objects().into_iter().flatten() {
            if let Some(list) = self.waiters.get_mut(object.index()) {
                if let Ok(place) = list.binary_search(&id) {
                    list.remove(place);
                }
            }
        }
    }

    /// `id`, running, blocks at `at` waiting for `wait`.
    #[inline(always)]
    pub fn block(&mut self, id: ThreadId, wait: Wait, at: &'static Location<'static>) {
        self.all[id.index()].status = Status::Blocked { wait, at };
        self.list(id, wait);
    }

    /// `id`, blocked, now waits for `wait` instead (from the same place).
    #[inline(always)]
    pub fn wait_instead(&mut self, id: ThreadId, wait: Wait) {
        if let Status::Blocked { wait: was, at } = self.all[id.index()].status {
            self.unlist(id, was);
            self.list(id, wait);
            self.all[id.index()].status = Status::Blocked { wait, at };
        }
    }

    /// `id`, blocked, is chosen to run again: what it waited for.
    #[inline(always)]
    pub fn unblock(&mut self, id: ThreadId) -> Wait {
        let Status::Blocked { wait, .. } = self.all[id.index()].status else {
            unreachable!("invariant: a blocked thread wakes blocked")
        };
        self.all[id.index()].status = Status::Runnable;
        self.unlist(id, wait);
        wait
    }

    /// Task `id` starts (`true`) or ends (`false`) a poll of its future:
    /// while it polls, the run waits for it, as a runtime's shutdown waits
    /// for the polls its workers are in, so that a run ends only with its
    /// tasks between two polls, where their futures can be dropped
    /// (crate::executor's teardown).
    pub fn polling(&mut self, id: ThreadId, polling: bool) {
        let thread = &mut self.all[id.index()];
        if thread.task && !thread.exiting && thread.polling != polling {
            thread.polling = polling;
            if polling {
                self.live += 1;
            } else {
                self.live -= 1;
            }
        }
    }

    /// Task `id`'s future completed: the run waits for its end.
    pub fn exiting(&mut self, id: ThreadId) {
        let thread = &mut self.all[id.index()];
        if thread.task && !thread.exiting {
            thread.exiting = true;
            self.live += u32::from(!std::mem::take(&mut thread.polling));
        }
    }

    /// The name of thread `id` in reports: `main`, or `LABEL#k` where the
    /// label is the builder's name or `thread@LINE` of the spawn.
    pub fn name(&self, id: ThreadId) -> String {
        let thread = &self.all[id.index()];
        match (&thread.label, thread.ordinal) {
            (_, 0) => "main".to_owned(),
            (Some(label), k) => format!("{label}#{k}"),
            (None, k) if thread.task => format!("task@{}#{k}", thread.site.line()),
            (None, k) => format!("thread@{}#{k}", thread.site.line()),
        }
    }

    /// The name of thread `id` as `Thread::name` gives it: `main`, or the
    /// builder's name.
    pub fn given_name(&self, id: ThreadId) -> Option<String> {
        let thread = &self.all[id.index()];
        match thread.ordinal {
            0 => Some("main".to_owned()),
            _ => thread.label.clone(),
        }
    }

    /// The thread `id`.
    #[inline]
    pub fn get(&self, id: ThreadId) -> &ThreadState {
        &self.all[id.index()]
    }

    /// The thread `id`, to change.
    #[inline]
    pub fn get_mut(&mut self, id: ThreadId) -> &mut ThreadState {
        &mut self.all[id.index()]
    }

    /// Whether `id` can run.
    #[inline]
    pub fn is_enabled(&self, id: ThreadId) -> bool {
        self.position[id.index()] != u32::MAX
    }

    /// `id` can run.
    #[inline(always)]
    pub fn enable(&mut self, id: ThreadId) {
        if self.is_enabled(id) {
            return;
        }
        self.position[id.index()] = self.enabled.len() as u32;
        self.enabled.push(id);
        self.newly_enabled.push(id);
    }

    /// `id` cannot run.
    #[inline(always)]
    pub fn disable(&mut self, id: ThreadId) {
        let at = self.position[id.index()];
        if at == u32::MAX {
            return;
        }
        self.enabled.swap_remove(at as usize);
        if let Some(&moved) = self.enabled.get(at as usize) {
            self.position[moved.index()] = at;
        }
        self.position[id.index()] = u32::MAX;
    }

    /// Set `id` enabled or not.
    #[inline(always)]
    pub fn set_enabled(&mut self, id: ThreadId, enabled: bool) {
        if enabled {
            self.enable(id);
        } else {
            self.disable(id);
        }
    }

    /// Whether a thread is blocked on something `wanted` says yes to.
    pub fn any_blocked_on(&self, wanted: impl Fn(Wait) -> bool) -> bool {
        self.all
            .iter()
            .any(|t| matches!(t.status, Status::Blocked { wait, .. } if wanted(wait)))
    }

    /// Enable every thread blocked on `wait` (they stay blocked until
    /// chosen), in the order of their ids.
    pub fn enable_blocked_on(&mut self, wait: Wait) {
        for i in 0..self.all.len() {
            if matches!(self.all[i].status, Status::Blocked { wait: w, .. } if w == wait) {
                self.enable(ThreadId(i as u32));
            }
        }
    }
}
