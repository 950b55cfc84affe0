//! SIGINT and SIGTERM: a search, an exploration or a campaign stops after
//! the chunk of work in flight and reports what it did, with the guarantee
//! it earned. A second SIGINT ends the process at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use signal_hook::consts::{SIGINT, SIGTERM};

/// Set by the first SIGINT or SIGTERM.
static REQUESTED: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// Exit status of a process a second SIGINT ended: 128 + SIGINT.
const FORCED_EXIT: i32 = 130;

/// Catch SIGINT and SIGTERM from now on. Failing to install the handlers
/// is not fatal: the process then ends the default way.
pub fn install() {
    let flag = REQUESTED.get_or_init(|| Arc::new(AtomicBool::new(false)));
    for signal in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag as it was before this
        // signal: a second signal ends the process.
        let _ = signal_hook::flag::register_conditional_shutdown(signal, FORCED_EXIT, flag.clone());
        let _ = signal_hook::flag::register(signal, flag.clone());
    }
}

/// Whether SIGINT or SIGTERM arrived.
pub fn requested() -> bool {
    REQUESTED
        .get()
        .is_some_and(|flag| flag.load(Ordering::Relaxed))
}
