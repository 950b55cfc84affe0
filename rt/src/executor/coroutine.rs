//! The coroutines threads run on: corosensei coroutines on the test's OS
//! thread, each looping over jobs so that its stack (an mmap) is reused from
//! execution to execution, as awslabs/shuttle pools its continuations.

use std::cell::Cell;
use std::rc::Rc;

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult};
use rankcheck_engine::ThreadId;

use super::suspend::{Suspender, YielderPtr};

/// A job: one thread's whole body.
pub type Job = Box<dyn FnOnce()>;

/// What the executor tells a coroutine when it resumes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Go {
    /// Go on: take the job given, or go on with the one it is in.
    On,
    /// End (an idle worker dropped): its function returns, so the
    /// coroutine is dropped finished, with nothing left to unwind (an
    /// unwind costs as much as a panic).
    End,
}

/// What a coroutine tells the executor when it gives control back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Yield {
    /// Its thread stopped in the middle of its job, at a scheduling point
    /// where another thread was chosen.
    Switched,
    /// Its job returned (the thread finished): it can take another.
    JobDone(YielderPtr),
}

/// Each coroutine's stack. Virtual memory, touched only as deep as the
/// test's threads go.
const STACK_SIZE: usize = 1 << 20;

/// A coroutine that runs jobs, one after the other: each a thread's body,
/// run by [`super::run_thread`].
pub struct Worker {
    coroutine: Coroutine<Go, Yield, ()>,
    job: Rc<Cell<Option<(ThreadId, Job)>>>,
    suspender: Suspender,
    /// Whether it is in the middle of a job.
    busy: bool,
}

impl Worker {
    /// A new coroutine, stopped before its first job.
    fn new() -> Worker {
        let job: Rc<Cell<Option<(ThreadId, Job)>>> = Rc::new(Cell::new(None));
        let slot = job.clone();
        let stack = DefaultStack::new(STACK_SIZE).unwrap_or_else(|error| {
            panic!("rankcheck: cannot allocate a coroutine stack: {error}")
        });
        let mut coroutine = Coroutine::with_stack(stack, move |yielder, _: Go| loop {
            // Hand the yielder out, then run whatever job comes, until told
            // to end.
            if yielder.suspend(Yield::JobDone(YielderPtr::of(yielder))) == Go::End {
                return;
            }
            if let Some((thread, job)) = slot.take() {
                super::run_thread(thread, job);
            }
        });
        let CoroutineResult::Yield(Yield::JobDone(ptr)) = coroutine.resume(Go::On) else {
            unreachable!("invariant: a new coroutine first hands out its yielder")
        };
        Worker {
            coroutine,
            job,
            suspender: Suspender::new(ptr),
            busy: false,
        }
    }

    /// What suspends this coroutine from inside its job.
    pub fn suspender(&self) -> Suspender {
        self.suspender
    }

    /// Give it `thread`'s `job`, to start at the next [`Worker::resume`].
    fn start(&mut self, thread: ThreadId, job: Job) {
        debug_assert!(!self.busy, "invariant: a worker takes a job when idle");
        self.job.set(Some((thread, job)));
        self.busy = true;
    }

    /// Run the job until it switches or finishes.
    pub fn resume(&mut self) -> Yield {
        match self.coroutine.resume(Go::On) {
            CoroutineResult::Yield(yielded) => {
                if matches!(yielded, Yield::JobDone(_)) {
                    self.busy = false;
                }
                yielded
            }
            CoroutineResult::Return(()) => {
                unreachable!("invariant: a worker's loop never returns")
            }
        }
    }

    /// Whether the job stopped in the middle.
    pub fn busy(&self) -> bool {
        self.busy
    }

    /// Unwind a job stopped in the middle, running the destructors on its
    /// stack. The coroutine cannot be reused afterwards.
    pub fn unwind(mut self) {
        self.coroutine.force_unwind();
    }
}

impl Drop for Worker {
    /// An idle worker (the pool's, when its OS thread ends) is told to end,
    /// rather than left for corosensei to unwind; a busy one was unwound
    /// or leaked by the executor (executor::teardown).
    fn drop(&mut self) {
        if !self.busy && !self.coroutine.done() {
            let ended = self.coroutine.resume(Go::End);
            debug_assert!(
                matches!(ended, CoroutineResult::Return(())),
                "invariant: an idle worker told to end returns"
            );
        }
    }
}

/// Idle workers of this OS thread, reused by later executions.
#[derive(Default)]
pub struct Pool {
    idle: Vec<Worker>,
}

impl Pool {
    /// An idle worker started on `thread`'s `job`.
    pub fn take(&mut self, thread: ThreadId, job: Job) -> Worker {
        let mut worker = self.idle.pop().unwrap_or_else(Worker::new);
        worker.start(thread, job);
        worker
    }

    /// Take back a worker whose job finished.
    pub fn put(&mut self, worker: Worker) {
        debug_assert!(!worker.busy(), "invariant: only idle workers are pooled");
        self.idle.push(worker);
    }
}
