//! Who may reach the data of a [`Mutex`](super::Mutex) or
//! [`RwLock`](super::RwLock): the guards of one run at a time.
//!
//! Within a run the executor's lock state decides which of its threads
//! hold guards (one writer, or readers), and they are all coroutines on
//! the run's OS thread. Across runs, the data is claimed by the run whose
//! guards reach it, and free again once the last of them drops. A failed
//! run leaks its threads' stacks, guards included (crate::executor's
//! teardown): its claim is [abandoned](abandon), and the next run that
//! locks takes the data over, where a real lock would stay held forever.
//! A run on another OS thread that finds the data claimed by a run still
//! going on (two tests sharing a `static` lock at once) is refused, never
//! let in.

use std::collections::BTreeSet;
use std::sync::atomic::{
    AtomicBool, AtomicU64, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};
use std::sync::{LockResult, Mutex as StdMutex, PoisonError};

use crate::object::ObjectKind;

/// The runs that ended early and leaked their guards: their claims may be
/// taken over.
static ABANDONED: StdMutex<BTreeSet<u64>> = StdMutex::new(BTreeSet::new());

/// Execution `id` ended early: the data its leaked guards claimed is free.
pub(crate) fn abandon(id: u64) {
    ABANDONED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(id);
}

fn abandoned(id: u64) -> bool {
    ABANDONED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .contains(&id)
}

/// The claim on one lock's data.
#[derive(Debug)]
pub(crate) struct DataLock {
    /// The execution whose guards reach the data; 0: none.
    owner: AtomicU64,
    /// How many of its guards are alive (changed only by the owner's OS
    /// thread).
    guards: AtomicUsize,
}

impl DataLock {
    pub(crate) const fn new() -> DataLock {
        DataLock {
            owner: AtomicU64::new(0),
            guards: AtomicUsize::new(0),
        }
    }

    /// A guard of the running execution starts: the data is the
    /// execution's until its last guard drops.
    ///
    /// # Panics
    /// When a run going on on another OS thread has it (module doc).
    pub(crate) fn enter(&self, kind: ObjectKind) {
        let execution = crate::lazy::running_execution();
        let owner = self.owner.load(Acquire);
        if owner == execution && execution != 0 {
            self.guards.fetch_add(1, Relaxed);
            return;
        }
        let free = owner == 0 || abandoned(owner);
        if !free
            || self
                .owner
                .compare_exchange(owner, execution, Acquire, Relaxed)
                .is_err()
        {
            shared(kind);
        }
        self.guards.store(1, Relaxed);
    }

    /// A guard of the owner ends: the last one frees the data.
    pub(crate) fn leave(&self) {
        if self.guards.fetch_sub(1, Relaxed) == 1 {
            self.owner.store(0, Release);
        }
    }
}

/// A lock's poison flag, as std's: set by a guard dropped in a panic that
/// began while it was held.
#[derive(Debug)]
pub(crate) struct Poison(AtomicBool);

impl Poison {
    pub(crate) const fn new() -> Poison {
        Poison(AtomicBool::new(false))
    }

    pub(crate) fn get(&self) -> bool {
        self.0.load(Relaxed)
    }

    pub(crate) fn clear(&self) {
        self.0.store(false, Relaxed);
    }

    /// A guard lets go: it poisons the lock if its thread panics now and
    /// did not when it locked (`panicking_at_lock`).
    pub(crate) fn let_go(&self, panicking_at_lock: bool) {
        if !panicking_at_lock && std::thread::panicking() {
            self.0.store(true, Relaxed);
        }
    }

    /// `value` (a guard, the data), `Err` with it when poisoned.
    pub(crate) fn result<V>(&self, value: V) -> LockResult<V> {
        if self.get() {
            Err(PoisonError::new(value))
        } else {
            Ok(value)
        }
    }
}

#[cold]
fn shared(kind: ObjectKind) -> ! {
    panic!(
        "rankcheck: a {kind} is held by a test running at the same time on another OS thread; \
         a static shared by rankcheck tests needs them to run one at a time \
         (cargo test -- --test-threads=1)"
    )
}
