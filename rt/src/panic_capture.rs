//! A panic inside a test run is a failure to report, not a message for
//! stderr: a panic hook, installed once, keeps the message and location of
//! panics on an OS thread that is running a test, and hands every other
//! panic to the hook that was there before.

use std::any::Any;
use std::cell::RefCell;
use std::panic;

use crate::failure::SourceLocation;
use std::sync::Once;

thread_local! {
    /// The location of the last panic in a test run on this OS thread.
    static LAST: RefCell<Option<SourceLocation>> = const { RefCell::new(None) };
}

static INSTALL: Once = Once::new();

/// Install the hook (once per process).
pub fn install() {
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if crate::executor::active() {
                let location = info.location().map(SourceLocation::from);
                LAST.with(|last| *last.borrow_mut() = location);
            } else {
                previous(info);
            }
        }));
    });
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
