//! A drop-in `std::sync::Once`: one initialisation per run. The thread
//! that runs it holds the `Once` as a lock, so a racing `call_once` blocks
//! until it is done, and a `Once` whose initialiser it reaches again
//! deadlocks, as std's does. Reading whether it is done is a read of its
//! variable.
//!
//! `new` is a `const fn`: a static `Once` is not done at the start of
//! every run (crate::lazy).

use std::fmt;
use std::panic::Location;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use crate::lazy::{LazyHandle, Registration};
use crate::object::{Handle, ObjectKind, SyncState};
use crate::op;

const INCOMPLETE: u8 = 0;
const COMPLETE: u8 = 1;
const POISONED: u8 = 2;

/// As `std::sync::Once`.
pub struct Once {
    handle: LazyHandle,
    /// INCOMPLETE, COMPLETE or POISONED (an initialiser panicked).
    state: AtomicU8,
}

/// What `call_once_force`'s closure is told, as `std::sync::OnceState`.
#[derive(Debug)]
pub struct OnceState {
    poisoned: bool,
}

impl OnceState {
    /// Whether an earlier initialiser panicked.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }
}

/// Marks the `Once` poisoned and releases it if the initialiser unwinds.
struct Running<'a> {
    once: &'a Once,
    handle: Handle,
    site: op::Site,
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        crate::memory::publish(&self.handle);
        self.once.state.store(POISONED, Relaxed);
        op::unlock(&self.handle, self.site, || {});
    }
}

impl Once {
    /// A new `Once`: a new variable, known by this call's site.
    #[track_caller]
    pub const fn new() -> Once {
        Once {
            handle: LazyHandle::new(
                ObjectKind::Once,
                Location::caller(),
                SyncState::Mutex { owner: None },
            ),
            state: AtomicU8::new(INCOMPLETE),
        }
    }

    /// A new `Once` known by `site` (a lazy static's declaration).
    pub(crate) const fn new_at(site: &'static Location<'static>) -> Once {
        Once {
            handle: LazyHandle::new(ObjectKind::Once, site, SyncState::Mutex { owner: None }),
            state: AtomicU8::new(INCOMPLETE),
        }
    }

    /// A `Once` already done (a `OnceLock` made from its value).
    #[track_caller]
    pub(crate) const fn done() -> Once {
        Once {
            handle: LazyHandle::new(
                ObjectKind::Once,
                Location::caller(),
                SyncState::Mutex { owner: None },
            ),
            state: AtomicU8::new(COMPLETE),
        }
    }

    /// Not done again (a `OnceLock` whose value was taken).
    pub(crate) fn reset(&mut self) {
        *self.state.get_mut() = INCOMPLETE;
    }

    /// Its object in the running execution, and whether it was carried
    /// over from an earlier run (its state then starts again).
    pub(crate) fn begin(&self) -> (Handle, bool) {
        let (handle, registration) = self.handle.resolve();
        let carried_over = registration == Registration::CarriedOver;
        if carried_over {
            self.state.store(INCOMPLETE, Relaxed);
        }
        (handle, carried_over)
    }

    /// Run `f` if no initialiser ran to its end in this run, as std's:
    /// a racing call blocks until the first is done.
    ///
    /// # Panics
    /// If an earlier initialiser panicked (the `Once` is poisoned).
    #[track_caller]
    pub fn call_once<F: FnOnce()>(&self, f: F) {
        self.run(false, Location::caller(), |_| f());
    }

    /// As `call_once`, also after an initialiser panicked, as std's.
    #[track_caller]
    pub fn call_once_force<F: FnOnce(&OnceState)>(&self, f: F) {
        self.run(true, Location::caller(), f);
    }

    /// Whether an initialiser ran to its end in this run: a read.
    #[track_caller]
    pub fn is_completed(&self) -> bool {
        let (handle, _) = self.begin();
        op::access(&handle, false, Location::caller());
        self.state.load(Relaxed) == COMPLETE
    }

    /// Block until an initialiser ran to its end, as std's (here by
    /// yielding: a thread that waits gives way until it is done).
    ///
    /// # Panics
    /// If the `Once` is poisoned.
    #[track_caller]
    pub fn wait(&self) {
        self.wait_at(false, Location::caller());
    }

    /// As `wait`, also when the `Once` is poisoned.
    #[track_caller]
    pub fn wait_force(&self) {
        self.wait_at(true, Location::caller());
    }

    fn wait_at(&self, force: bool, site: op::Site) {
        loop {
            let (handle, _) = self.begin();
            op::access(&handle, false, site);
            match self.state.load(Relaxed) {
                COMPLETE => return,
                POISONED if !force => poisoned(),
                _ => crate::thread::yield_now(),
            }
        }
    }

    /// The common path of the `call_once`s: whether `f` ran.
    pub(crate) fn run(&self, force: bool, site: op::Site, f: impl FnOnce(&OnceState)) -> bool {
        let (handle, _) = self.begin();
        op::access(&handle, false, site);
        if self.state.load(Relaxed) == COMPLETE {
            return false;
        }
        op::lock(&handle, site);
        let state = self.state.load(Relaxed);
        if state == COMPLETE || (state == POISONED && !force) {
            op::unlock(&handle, site, || {});
            if state == POISONED {
                poisoned();
            }
            return false;
        }
        let running = Running {
            once: self,
            handle,
            site,
        };
        f(&OnceState {
            poisoned: state == POISONED,
        });
        std::mem::forget(running);
        // Released before it is seen complete (a thread that finds it so
        // acquires: crate::op::access).
        crate::memory::publish(&handle);
        self.state.store(COMPLETE, Relaxed);
        op::unlock(&handle, site, || {});
        true
    }
}

#[cold]
fn poisoned() -> ! {
    panic!("Once instance has previously been poisoned")
}

impl Default for Once {
    #[track_caller]
    fn default() -> Once {
        Once::new()
    }
}

impl fmt::Debug for Once {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Once").finish_non_exhaustive()
    }
}
