//! What a step touched, as the executor logs it for [`crate::explore`]:
//! the places its independence is read off. Logged as the step runs, so
//! that what a thread did is known also where its next operation was not
//! (a new thread's first step, the end of a blocking operation).

use std::cell::RefCell;
use std::rc::Rc;

use rankcheck_engine::ThreadId;

/// Something shared a step may read or change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Place {
    /// An object's memory (an atomic, a cell, a synchronisation object
    /// read as memory), by its variable: which object it is does not
    /// depend on the order in which threads made theirs (crate::var: the
    /// kind, the site, the thread that made it and how many it made
    /// there).
    Memory(u32),
    /// A synchronisation object (a mutex, a channel, a barrier...), by its
    /// variable, with the threads blocked on it.
    Object(u32),
    /// Whether a thread finished (its end writes it, `join` reads it),
    /// with the threads joining it.
    End(ThreadId),
    /// A thread's park token.
    Token(ThreadId),
    /// The thread table: a spawn takes the next thread id.
    Threads,
    /// Every atomic at once, under weak memory: which stores a load may
    /// read depends on what ran before it on every atomic, through
    /// happens-before and the SeqCst order (a fence orders against all).
    Atomics,
    /// The spawned threads' panics, in order: the first no `join` took
    /// fails the run.
    Panics,
    /// Anything: what the step touched is not known (the async runtime,
    /// a failure).
    Everything,
}

/// One access of a step to a place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Touch {
    /// The place.
    pub place: Place,
    /// Whether it may change what others see of it.
    pub write: bool,
}

/// The running step's touches so far.
#[derive(Debug, Default)]
pub struct Steps {
    /// The touches, in order.
    pub touches: Vec<Touch>,
    /// How many of them came before the operation now running.
    pub mark: usize,
}

/// Where the executor logs the running step's touches, shared with the
/// scheduler that reads them at the next scheduling point.
pub type StepLog = Rc<RefCell<Steps>>;
