//! A drop-in `std::sync::LazyLock` (and `lazy_static!`): a value built on
//! first use, by a [`OnceLock`]. A `static` one is built anew in the first
//! use of every run and dropped at the run's end, so its initialiser must
//! be callable again: `F: Fn` (std asks `FnOnce`), which every `fn` item
//! and closure that only reads what it captured is.

use std::fmt;
use std::ops::Deref;

use super::once_lock::OnceLock;

/// As `std::sync::LazyLock`.
pub struct LazyLock<T, F = fn() -> T> {
    cell: OnceLock<T>,
    init: F,
}

impl<T, F: Fn() -> T> LazyLock<T, F> {
    /// A value that `init` builds on first use: a new variable, known by
    /// this call's site.
    #[track_caller]
    pub const fn new(init: F) -> LazyLock<T, F> {
        LazyLock {
            cell: OnceLock::new(),
            init,
        }
    }

    /// The value, built first if this run has not yet, as std's: a thread
    /// racing the build blocks until it is done.
    #[track_caller]
    pub fn force(this: &LazyLock<T, F>) -> &T {
        this.cell.get_or_init(&this.init)
    }

    /// The value if built, else the initialiser, consuming the lock.
    pub fn into_inner(this: LazyLock<T, F>) -> Result<T, F> {
        let LazyLock { cell, init } = this;
        cell.into_inner().ok_or(init)
    }
}

impl<T, F: Fn() -> T> Deref for LazyLock<T, F> {
    type Target = T;

    #[track_caller]
    fn deref(&self) -> &T {
        LazyLock::force(self)
    }
}

impl<T: Default> Default for LazyLock<T> {
    #[track_caller]
    fn default() -> LazyLock<T> {
        LazyLock::new(T::default)
    }
}

impl<T: fmt::Debug, F> fmt::Debug for LazyLock<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("LazyLock").field(&self.cell).finish()
    }
}

/// Statics built on first use in every run, as the `lazy_static` crate's
/// macro: `static ref NAME: T = EXPR;` becomes a static that dereferences
/// to this run's value, which `EXPR` builds on first use (a
/// [`LazyStatic`](crate::sync::LazyStatic)). Each run has its own, also
/// when tests run at once on several OS threads, as loom's lazy statics;
/// a run's value is dropped at its end.
///
/// ```
/// use rankcheck_rt as rankcheck;
/// use rankcheck::sync::Mutex;
///
/// rankcheck::lazy_static! {
///     static ref LOG: Mutex<Vec<u32>> = Mutex::new(Vec::new());
/// }
///
/// rankcheck::Builder::new().runs(10).check(|| {
///     LOG.lock().unwrap().push(1);
///     assert_eq!(LOG.lock().unwrap().len(), 1);
/// });
/// ```
#[macro_export]
macro_rules! lazy_static {
    () => {};
    ($(#[$attr:meta])* $vis:vis static ref $name:ident: $t:ty = $init:expr; $($rest:tt)*) => {
        $crate::lazy_static!(@one [$(#[$attr])*] $vis $name: $t = $init);
        $crate::lazy_static!($($rest)*);
    };
    (@one [$(#[$attr:meta])*] $vis:vis $name:ident: $t:ty = $init:expr) => {
        // One type per static, as the lazy_static crate's: its `Deref`
        // reaches a `'static` LazyStatic.
        #[allow(non_camel_case_types, missing_docs)]
        $vis struct $name {
            __private: (),
        }
        $(#[$attr])*
        $vis static $name: $name = $name { __private: () };
        impl ::std::ops::Deref for $name {
            type Target = $t;

            fn deref(&self) -> &$t {
                static LAZY: $crate::sync::LazyStatic<$t> =
                    $crate::sync::LazyStatic::new(|| $init);
                LAZY.force()
            }
        }
    };
}
