//! The threads of one execution: what each waits on, and the enabled set
//! the scheduler chooses from, kept up to date as threads block and wake.

use std::panic::Location;

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
    /// Threads that are no task and have not finished: the run is over
    /// when none is left (tasks still unfinished then are dropped, as a
    /// runtime drops its tasks when `block_on` returns).
    pub live: u32,
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
        self.live = 0;
    }

    /// `id` finished its body.
    pub fn finish(&mut self, id: ThreadId) {
        let thread = &mut self.all[id.index()];
        thread.status = Status::Finished;
        self.live -= u32::from(!thread.task || thread.exiting);
        self.disable(id);
    }

    /// Task `id`'s future completed: the run waits for its end.
    pub fn exiting(&mut self, id: ThreadId) {
        let thread = &mut self.all[id.index()];
        if thread.task && !thread.exiting {
            thread.exiting = true;
            self.live += 1;
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
    pub fn get(&self, id: ThreadId) -> &ThreadState {
        &self.all[id.index()]
    }

    /// The thread `id`, to change.
    pub fn get_mut(&mut self, id: ThreadId) -> &mut ThreadState {
        &mut self.all[id.index()]
    }

    /// Whether `id` can run.
    pub fn is_enabled(&self, id: ThreadId) -> bool {
        self.position[id.index()] != u32::MAX
    }

    /// `id` can run.
    pub fn enable(&mut self, id: ThreadId) {
        if self.is_enabled(id) {
            return;
        }
        self.position[id.index()] = self.enabled.len() as u32;
        self.enabled.push(id);
        self.newly_enabled.push(id);
    }

    /// `id` cannot run.
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
    pub fn set_enabled(&mut self, id: ThreadId, enabled: bool) {
        if enabled {
            self.enable(id);
        } else {
            self.disable(id);
        }
    }

    /// The threads blocked on something `wanted` says yes to.
    pub fn blocked_on(&self, wanted: impl Fn(Wait) -> bool) -> Vec<ThreadId> {
        self.all
            .iter()
            .enumerate()
            .filter_map(|(i, t)| match t.status {
                Status::Blocked { wait, .. } if wanted(wait) => Some(ThreadId(i as u32)),
                _ => None,
            })
            .collect()
    }
}
