//! A panic inside a test run is a failure to report, not a message for
//! stderr: a panic hook, installed once, keeps the message and location of
//! panics on an OS thread that is running a test, and hands every other
//! panic to the hook that was there before. A spawned thread's panic is
//! kept for its `join` (`executor::thread_panicked`), and fails the run
//! only when nothing takes it.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{self, Location};

use crate::failure::SourceLocation;
use std::sync::Once;

thread_local! {
    /// The location of the last panic in a test run on this OS thread.
    static LAST: RefCell<Option<SourceLocation>> = const { RefCell::new(None) };

    /// The place the next panic on this OS thread is reported at, in
    /// place of the `panic!` that raised it ([`panic_at`]).
    static AT: std::cell::Cell<Option<&'static Location<'static>>> =
        const { std::cell::Cell::new(None) };
}

static INSTALL: Once = Once::new();

/// Install the hook (once per process).
pub fn install() {
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let at = AT.take();
            if crate::executor::active() {
                let location = at.or(info.location()).map(SourceLocation::from);
                LAST.with(|last| *last.borrow_mut() = location);
            } else {
                previous(info);
            }
        }));
    });
}

/// Panic with `message` as if at `place`: for a check that runs where the
/// test's own code is not on the stack (a cell access ending in a guard's
/// `drop`), so that the report points at the test.
pub fn panic_at(place: &'static Location<'static>, message: &str) -> ! {
    AT.set(Some(place));
    panic!("{message}");
}

/// The message and location of the panic whose payload is `payload`.
pub fn take(payload: &(dyn Any + Send)) -> (String, Option<SourceLocation>) {
    let message = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a payload that is not a string".to_owned()
    };
    let location = LAST.with(|last| last.borrow_mut().take());
    (message, location)
}
