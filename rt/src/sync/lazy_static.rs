//! The statics of [`lazy_static!`](crate::lazy_static): each run builds
//! its own value on first use, as loom's lazy statics are per execution.
//!
//! A run's value lives in a cell of its own (a [`OnceLock`]), found by the
//! static's address in a table of the run going on on this OS thread, so
//! that tests running at once on several OS threads (`cargo test`'s
//! default) each have theirs, where an inline cell would be shared by
//! them. The cell belongs to the run, as a `OnceLock`'s value does: the
//! run drops it at its end (and leaks it after a failure). Reaching it
//! through the table's raw pointer is this module's unsafe code.
#![allow(unsafe_code)]

use std::cell::RefCell;
use std::panic::Location;

use super::once_lock::{adopt, drop_box, OnceLock};

/// A value each run builds on its first use: what `lazy_static!`'s
/// `static ref NAME: T = EXPR;` keeps. Reached by [`LazyStatic::force`]
/// on a `static`.
#[derive(Debug)]
pub struct LazyStatic<T: 'static> {
    init: fn() -> T,
    site: &'static Location<'static>,
}

/// The cells of the run going on on this OS thread, by the address of
/// their static.
#[derive(Default)]
struct Cells {
    execution: u64,
    cells: Vec<(usize, *mut ())>,
}

thread_local! {
    static CELLS: RefCell<Cells> = RefCell::new(Cells::default());
}

impl<T: 'static> LazyStatic<T> {
    /// A static whose value `init` builds in each run: a new variable,
    /// known by this call's site.
    #[track_caller]
    pub const fn new(init: fn() -> T) -> LazyStatic<T> {
        LazyStatic {
            init,
            site: Location::caller(),
        }
    }

    /// This run's value, built first if this run has not yet: a thread
    /// racing the build blocks until it is done, as std's `LazyLock`.
    ///
    /// # Panics
    /// Outside a run, and when a destructor run at a run's end reaches a
    /// static whose value that end already dropped.
    pub fn force(&'static self) -> &'static T {
        self.cell().get_or_init(self.init)
    }

    /// This run's cell for the static, made if it has none yet.
    fn cell(&'static self) -> &'static OnceLock<T> {
        let key = std::ptr::from_ref(self) as usize;
        let execution = crate::lazy::running_execution();
        if execution == 0 {
            outside();
        }
        let found = CELLS.with(|cells| {
            let mut cells = cells.borrow_mut();
            if cells.execution != execution {
                cells.execution = execution;
                cells.cells.clear();
            }
            cells.cells.iter().find(|(k, _)| *k == key).map(|(_, c)| *c)
        });
        let cell = found.unwrap_or_else(|| self.new_cell(key, execution));
        // SAFETY: the table holds, for this static's address, a
        // `Box<OnceLock<T>>` made by `new_cell` (only a `LazyStatic<T>`
        // has this address: a `'static` value, never freed), alive until
        // the run's arena drops it, which first takes it out of the table
        // (`drop_cell`); this run's borrows of it end before.
        unsafe { &*cell.cast::<OnceLock<T>>() }
    }

    fn new_cell(&'static self, key: usize, execution: u64) -> *mut () {
        if super::once_lock::dropping(execution) {
            dropped_at_end(self.site);
        }
        let cell = Box::into_raw(Box::new(OnceLock::<T>::new_at(self.site))).cast::<()>();
        CELLS.with(|cells| cells.borrow_mut().cells.push((key, cell)));
        adopt(execution, cell, drop_cell::<T>);
        cell
    }
}

/// Drop a run's cell, first taken out of the table.
///
/// # Safety
/// `cell` is a `Box<OnceLock<T>>` made into a raw pointer by `new_cell`
/// and owned by the caller.
unsafe fn drop_cell<T>(cell: *mut ()) {
    CELLS.with(|cells| cells.borrow_mut().cells.retain(|(_, c)| *c != cell));
    // SAFETY: as the function's contract says.
    unsafe { drop_box::<OnceLock<T>>(cell) }
}

#[cold]
fn outside() -> ! {
    panic!(
        "rankcheck: a lazy static was used outside a test run; use it only inside the closure \
         given to rankcheck::check or rankcheck::replay"
    )
}

#[cold]
fn dropped_at_end(site: &Location<'_>) -> ! {
    panic!(
        "rankcheck: the lazy static declared at {}:{} was reached by a destructor at the end of \
         the run, after its value was dropped",
        site.file(),
        site.line()
    )
}
