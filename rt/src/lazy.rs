//! Objects registered with the execution on their first use, which is
//! what lets the replacement types have `const fn new` and live in
//! `static` items.
//!
//! A `const fn` cannot reach the executor, so a new value only records its
//! kind, its creation site and its initial synchronisation state. Each
//! operation resolves it: the first in a run registers it with the running
//! execution (a new object, with its own lock state, waiters, poisoning);
//! later ones find it by the execution id it keeps. A value that outlives
//! a run (a `static`, or one the test closure owns) is registered again in
//! the next run, with fresh state: it is *carried over*, and its type
//! resets what it keeps inline (an atomic its value, a `OnceLock` its
//! contents) so that nothing of one run leaks into the next. A carried-over
//! value keeps the variable it had, so a static is the same variable in
//! every run of its test.

use std::cell::Cell;
use std::panic::Location;
use std::sync::atomic::{
    AtomicBool, AtomicU64, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};

use rankcheck_engine::VarId;

use crate::executor::{with, Execution};
use crate::object::{Handle, ObjectId, ObjectKind, SyncState};

/// Bits of `LazyHandle::current` that hold the object id.
const OBJECT_BITS: u32 = 24;
const OBJECT_MASK: u64 = (1 << OBJECT_BITS) - 1;
/// The bits of an execution id that `LazyHandle::current` keeps.
const EXECUTION_MASK: u64 = u64::MAX >> OBJECT_BITS;

/// The executions running now, on any OS thread (0: a free slot): two
/// atomic operations per run. With more tests at once than slots, the
/// extra ones go unlisted, and a static they share goes undetected.
static LIVE: [AtomicU64; 64] = [const { AtomicU64::new(0) }; 64];

thread_local! {
    /// The execution running on this OS thread (0: none): what a value
    /// registered in this run is recognised by, without reaching the
    /// execution itself.
    static RUNNING: Cell<u64> = const { Cell::new(0) };
    /// This OS thread's slot in `LIVE`, if it has one.
    static SLOT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The execution running on this OS thread (0: none).
pub fn running_execution() -> u64 {
    RUNNING.with(Cell::get)
}

/// Execution `id` starts running on this OS thread.
pub fn started(id: u64) {
    let free = LIVE
        .iter()
        .position(|slot| slot.compare_exchange(0, id, Release, Relaxed).is_ok());
    SLOT.with(|slot| slot.set(free));
    RUNNING.with(|running| running.set(id));
}

/// Execution `id` ended: the values it built for statics are dropped, or
/// leaked when it ended `early` (a failure: crate::executor's teardown).
pub fn ended(id: u64, early: bool) {
    if early {
        crate::sync::leak_run_values(id);
    } else {
        crate::sync::drop_run_values(id);
    }
    RUNNING.with(|running| running.set(0));
    if let Some(slot) = SLOT.with(|slot| slot.take()) {
        LIVE[slot].store(0, Release);
    }
}

/// How [`LazyHandle::resolve`] found the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Registration {
    /// Already registered in this run.
    Current,
    /// Registered now, for the first time.
    New,
    /// Registered now, having been registered in an earlier run: its
    /// inline state is the earlier run's, to be reset.
    CarriedOver,
}

/// What a replacement value keeps to reach its object.
#[derive(Debug)]
pub struct LazyHandle {
    /// `(execution << 24) | object` of the run it is registered in now;
    /// 0 before its first use. One word, so that it never tears.
    current: AtomicU64,
    /// `(registry << 32) | var`: its variable, in the registry (the test)
    /// that gave it; 0 before its first use. Written before `current`.
    var: AtomicU64,
    kind: ObjectKind,
    site: &'static Location<'static>,
    initial: SyncState,
}

impl LazyHandle {
    /// A value of kind `kind` made at `site`, whose object starts in
    /// `initial` in every run.
    pub const fn new(
        kind: ObjectKind,
        site: &'static Location<'static>,
        initial: SyncState,
    ) -> LazyHandle {
        LazyHandle {
            current: AtomicU64::new(0),
            var: AtomicU64::new(0),
            kind,
            site,
            initial,
        }
    }

    /// The handle of the value's object in the running execution.
    pub fn get(&self) -> Handle {
        self.resolve().0
    }

    /// The handle if the value is registered with the execution running
    /// now (or unwinding); `None` otherwise. Never registers: a release
    /// (a guard's drop) only ever follows an acquire in the same run.
    pub fn registered(&self) -> Option<Handle> {
        let running = RUNNING.with(Cell::get);
        let current = self.current.load(Relaxed);
        let here =
            running != 0 && current != 0 && current >> OBJECT_BITS == running & EXECUTION_MASK;
        here.then(|| Handle {
            execution: running,
            object: ObjectId((current & OBJECT_MASK) as u32),
            var: VarId(self.var.load(Relaxed) as u32),
        })
    }

    /// The handle, and how it was found.
    ///
    /// # Panics
    /// When the value is registered with a run going on on another OS
    /// thread (two tests sharing a static at once): their runs would see
    /// each other's state.
    pub fn resolve(&self) -> (Handle, Registration) {
        // The common case, on every operation: registered in this run.
        if let Some(handle) = self.registered() {
            return (handle, Registration::Current);
        }
        let current = self.current.load(Relaxed);
        with(|ex| self.register_now(ex, current))
    }

    fn register_now(&self, ex: &mut Execution, current: u64) -> (Handle, Registration) {
        {
            let execution = ex.id & EXECUTION_MASK;
            let carried_over = current != 0;
            if carried_over {
                self.refuse_if_shared(current >> OBJECT_BITS, ex);
            }
            let handle = self.register(ex, carried_over);
            let object = u64::from(handle.object.0);
            assert!(
                object <= OBJECT_MASK,
                "rankcheck: a run made more than {OBJECT_MASK} objects"
            );
            self.current
                .store(execution << OBJECT_BITS | object, Relaxed);
            let registration = if carried_over {
                Registration::CarriedOver
            } else {
                Registration::New
            };
            (handle, registration)
        }
    }

    /// A new object for the value in `ex`: with the variable it had if it
    /// is carried over within the same test.
    fn register(&self, ex: &mut Execution, carried_over: bool) -> Handle {
        let known = self.var.load(Relaxed);
        let registry = ex.registry.id();
        let handle = if carried_over && known >> 32 == registry {
            ex.add_object(VarId(known as u32), self.initial.clone())
        } else {
            ex.create_first_used(self.kind, self.site, self.initial.clone())
        };
        self.var
            .store(registry << 32 | u64::from(handle.var.0), Relaxed);
        handle
    }

    fn refuse_if_shared(&self, previous: u64, ex: &Execution) {
        let elsewhere = LIVE.iter().any(|slot| {
            let id = slot.load(Acquire);
            id != 0 && id != ex.id && id & EXECUTION_MASK == previous
        });
        if elsewhere {
            panic!(
                "rankcheck: the {} made at {}:{} is in use by a test running at the same time on \
                 another OS thread; a static shared by rankcheck tests needs them to run one at \
                 a time (cargo test -- --test-threads=1)",
                self.kind,
                self.site.file(),
                self.site.line()
            );
        }
    }
}

/// Whether a lock's data was ever reached mutably (a non-empty value):
/// a lock carried over to the next run with changed data would leak it
/// there.
#[derive(Debug)]
pub struct Changed(AtomicBool);

impl Changed {
    /// Not changed yet.
    pub const fn new() -> Changed {
        Changed(AtomicBool::new(false))
    }

    /// A guard hands out `data` mutably.
    pub fn mark<T: ?Sized>(&self, data: &T) {
        if std::mem::size_of_val(data) != 0 {
            self.0.store(true, Relaxed);
        }
    }
}

impl LazyHandle {
    /// The handle of a lock whose data `changed` watches; `fresh` clears
    /// what the lock keeps inline (its poison) when it is carried over.
    ///
    /// # Panics
    /// When the lock is carried over from a run that changed its data.
    pub fn resolve_lock(&self, changed: &Changed, fresh: impl FnOnce()) -> Handle {
        let (handle, registration) = self.resolve();
        if registration == Registration::CarriedOver {
            if changed.0.load(Relaxed) {
                refuse_changed_data(self.kind, handle);
            }
            fresh();
        }
        handle
    }
}

/// Refuse a lock carried over from an earlier run whose data that run
/// changed: it cannot be rebuilt, and would leak into this run.
#[cold]
fn refuse_changed_data(kind: ObjectKind, handle: Handle) -> ! {
    let name = with(|ex| ex.registry.name_of(handle.var).to_owned());
    panic!(
        "rankcheck: the {kind} {name} outlived a run that changed its data (a `static`, or a \
         value the test closure owns), and that data would leak into this run: rankcheck gives \
         a static its lock state afresh in every run, but cannot rebuild the value `new` was \
         given; build it in every run instead, e.g. `static X: LazyLock<{kind}<T>> = \
         LazyLock::new(|| {kind}::new(...))` with rankcheck::sync::LazyLock"
    )
}
