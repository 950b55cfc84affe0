//! Thread-locals of test threads, as `std::thread_local!` and
//! `std::thread::LocalKey`: std's are per OS thread, and every test thread
//! runs on the one OS thread of its test, so each would see the others'.
//! Here a key's value is per test thread of the run: built by the key's
//! initialiser on the thread's first access, dropped when the thread's
//! body returns (destructors run on that thread, in reverse order of
//! initialisation), fresh in every run. Thread-local data is not shared:
//! accessing it is no scheduling point.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::error::Error;
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::rc::Rc;

use rankcheck_engine::ThreadId;

use crate::executor;

/// A thread-local key, as `std::thread::LocalKey`: made by
/// [`thread_local!`](crate::thread_local).
pub struct LocalKey<T: 'static> {
    init: fn() -> T,
}

impl<T: 'static> fmt::Debug for LocalKey<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalKey").finish_non_exhaustive()
    }
}

/// The error of [`LocalKey::try_with`] on a thread whose thread-locals
/// are being destroyed, as `std::thread::AccessError`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessError;

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("already destroyed")
    }
}

impl Error for AccessError {}

/// One key's value on one thread.
enum Slot {
    Live(Rc<dyn Any>),
    /// Dropped at the thread's end (or being dropped): no longer reachable.
    Destroyed,
}

/// Every thread-local value of the execution running on this OS thread.
#[derive(Default)]
struct Table {
    execution: u64,
    slots: HashMap<(ThreadId, usize), Slot>,
    /// Each thread's keys in the order they were initialised.
    order: HashMap<ThreadId, Vec<usize>>,
}

thread_local! {
    static TABLE: RefCell<Table> = RefCell::new(Table::default());
}

impl<T: 'static> LocalKey<T> {
    #[doc(hidden)]
    /// The key whose values `init` builds (the macro's; not std API).
    pub const fn new(init: fn() -> T) -> LocalKey<T> {
        LocalKey { init }
    }

    fn address(&'static self) -> usize {
        self as *const LocalKey<T> as usize
    }

    /// Run `f` on this thread's value, built first if this is the
    /// thread's first access, as std's.
    ///
    /// # Panics
    /// While or after the thread's thread-locals are destroyed, as std's.
    pub fn with<F, R>(&'static self, f: F) -> R
    where
        F: FnOnce(&T) -> R,
    {
        self.try_with(f).unwrap_or_else(|_| destroyed())
    }

    /// The `set` of `Cell` and `RefCell` keys: a thread without a value
    /// gets `wrap(value)` (no initialiser runs), else `put` stores `value`.
    fn set_with<V>(&'static self, value: V, wrap: impl FnOnce(V) -> T, put: impl FnOnce(&T, V)) {
        let mut value = Some(value);
        let made = self.value(|| {
            wrap(
                value
                    .take()
                    .unwrap_or_else(|| unreachable!("invariant: a value is made once")),
            )
        });
        match (made, value) {
            (Ok(cell), Some(value)) => put(&cell, value),
            (Ok(_), None) => {}
            (Err(_), _) => destroyed(),
        }
    }

    /// Run `f` on this thread's value, or `Err` while or after the
    /// thread's thread-locals are destroyed, as std's.
    pub fn try_with<F, R>(&'static self, f: F) -> Result<R, AccessError>
    where
        F: FnOnce(&T) -> R,
    {
        let value = self.value(|| (self.init)())?;
        Ok(f(&value))
    }

    /// This thread's value, made by `make` if it has none yet. The table
    /// is not borrowed while `make` or the caller's closure runs: both may
    /// reach other thread-locals.
    fn value(&'static self, make: impl FnOnce() -> T) -> Result<Rc<T>, AccessError> {
        let (execution, thread) = executor::running();
        let key = self.address();
        match lookup(execution, thread, key) {
            Some(Slot::Live(value)) => return Ok(downcast(value)),
            Some(Slot::Destroyed) => return Err(AccessError),
            None => {}
        }
        let value: Rc<T> = Rc::new(make());
        TABLE.with(|table| {
            let mut table = table.borrow_mut();
            table.order.entry(thread).or_default().push(key);
            table.slots.insert((thread, key), Slot::Live(value.clone()));
        });
        Ok(value)
    }
}

#[cold]
fn destroyed() -> ! {
    panic!("cannot access a Thread Local Storage value during or after destruction")
}

fn downcast<T: 'static>(value: Rc<dyn Any>) -> Rc<T> {
    value
        .downcast::<T>()
        .unwrap_or_else(|_| unreachable!("invariant: a key's slot holds the key's type"))
}

/// The slot of (thread, key) in the running execution, if any; a table of
/// an earlier execution is dropped first.
fn lookup(execution: u64, thread: ThreadId, key: usize) -> Option<Slot> {
    let stale = TABLE.with(|table| {
        let mut table = table.borrow_mut();
        if table.execution == execution {
            return None;
        }
        let stale = std::mem::take(&mut *table);
        table.execution = execution;
        Some(stale)
    });
    drop(stale);
    TABLE.with(|table| {
        table.borrow().slots.get(&(thread, key)).map(|s| match s {
            Slot::Live(value) => Slot::Live(value.clone()),
            Slot::Destroyed => Slot::Destroyed,
        })
    })
}

/// Drop `thread`'s values, newest first, as its body returns: each key
/// is marked destroyed before its value drops, so a destructor that
/// reaches it gets `AccessError`.
pub(crate) fn destroy(thread: ThreadId) {
    let execution = crate::lazy::running_execution();
    loop {
        let value = TABLE.with(|table| {
            let mut table = table.borrow_mut();
            if table.execution != execution {
                return None;
            }
            let key = table.order.get_mut(&thread)?.pop()?;
            table.slots.insert((thread, key), Slot::Destroyed)
        });
        match value {
            Some(value) => drop(value),
            None => return,
        }
    }
}

/// The values left by threads the run never finished: dropped (tasks a
/// run that ended normally drops, a destructor's panic caught), or leaked
/// after a failure (`early`), whose state they may see half-updated
/// (crate::executor's teardown).
pub(crate) fn tear_down(early: bool) {
    let stale = TABLE.with(|table| {
        let mut table = table.borrow_mut();
        (!table.slots.is_empty()).then(|| std::mem::take(&mut *table))
    });
    if early {
        std::mem::forget(stale);
    } else if let Err(payload) = std::panic::catch_unwind(AssertUnwindSafe(|| drop(stale))) {
        std::mem::forget(payload);
    }
}

impl<T: 'static> LocalKey<Cell<T>> {
    /// Set the value, as std's (no initialiser runs for it).
    pub fn set(&'static self, value: T) {
        self.set_with(value, Cell::new, Cell::set);
    }

    /// A copy of the value, as std's.
    pub fn get(&'static self) -> T
    where
        T: Copy,
    {
        self.with(Cell::get)
    }

    /// Take the value, leaving the default, as std's.
    pub fn take(&'static self) -> T
    where
        T: Default,
    {
        self.with(Cell::take)
    }

    /// Replace the value, returning the old one, as std's.
    pub fn replace(&'static self, value: T) -> T {
        self.with(|cell| cell.replace(value))
    }
}

impl<T: 'static> LocalKey<RefCell<T>> {
    /// Run `f` on a shared borrow of the value, as std's.
    pub fn with_borrow<F, R>(&'static self, f: F) -> R
    where
        F: FnOnce(&T) -> R,
    {
        self.with(|cell| f(&cell.borrow()))
    }

    /// Run `f` on a mutable borrow of the value, as std's.
    pub fn with_borrow_mut<F, R>(&'static self, f: F) -> R
    where
        F: FnOnce(&mut T) -> R,
    {
        self.with(|cell| f(&mut cell.borrow_mut()))
    }

    /// Set the value, as std's (no initialiser runs for it).
    pub fn set(&'static self, value: T) {
        self.set_with(value, RefCell::new, |cell, value| {
            *cell.borrow_mut() = value
        });
    }

    /// Take the value, leaving the default, as std's.
    pub fn take(&'static self) -> T
    where
        T: Default,
    {
        self.with(RefCell::take)
    }

    /// Replace the value, returning the old one, as std's.
    pub fn replace(&'static self, value: T) -> T {
        self.with(|cell| cell.replace(value))
    }
}

/// Declare thread-locals of test threads, as `std::thread_local!`: each
/// test thread has its own value, fresh in every run, dropped when the
/// thread ends.
///
/// ```
/// use rankcheck_rt as rankcheck;
/// use std::cell::Cell;
///
/// rankcheck::thread_local! {
///     static DEPTH: Cell<u32> = const { Cell::new(0) };
/// }
///
/// rankcheck::Builder::new().runs(10).check(|| {
///     DEPTH.set(DEPTH.get() + 1);
///     let child = rankcheck::thread::spawn(|| DEPTH.get());
///     assert_eq!(child.join().unwrap(), 0);
///     assert_eq!(DEPTH.get(), 1);
/// });
/// ```
#[macro_export]
macro_rules! thread_local {
    () => {};
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = const { $init:expr }; $($rest:tt)*) => {
        $crate::thread_local!($(#[$attr])* $vis static $name: $t = $init; $($rest)*);
    };
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = const $init:block; $($rest:tt)*) => {
        $crate::thread_local!($(#[$attr])* $vis static $name: $t = $init; $($rest)*);
    };
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = $init:expr; $($rest:tt)*) => {
        $(#[$attr])*
        $vis static $name: $crate::thread::LocalKey<$t> = $crate::thread::LocalKey::new({
            fn init() -> $t {
                $init
            }
            init
        });
        $crate::thread_local!($($rest)*);
    };
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = $init:expr) => {
        $crate::thread_local!($(#[$attr])* $vis static $name: $t = $init;);
    };
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = const { $init:expr }) => {
        $crate::thread_local!($(#[$attr])* $vis static $name: $t = $init;);
    };
}
