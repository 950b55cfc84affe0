//! What the rt test binaries share.

use std::panic::{self, AssertUnwindSafe};

/// The message a closure panicked with (`None`: it returned).
pub fn panic_message(f: impl FnOnce()) -> Option<String> {
    let outcome = panic::catch_unwind(AssertUnwindSafe(f));
    outcome.err().map(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default()
    })
}
