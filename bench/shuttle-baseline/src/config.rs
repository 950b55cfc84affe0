//! The shuttle `Config` that every measurement runs with, and the panic-hook silencing.

use shuttle::scheduler::RandomScheduler;
use shuttle::{Config, FailurePersistence, Runner};
use std::any::Any;
use std::panic::{self, PanicHookInfo};

/// Shuttle's default configuration (stack size, the 1,000,000-step bound), except that a failing
/// schedule is not printed and the warning about non-`SeqCst` atomics is off (we only use
/// `SeqCst`). Neither change touches what an execution does.
pub fn config() -> Config {
    let mut config = Config::new();
    config.failure_persistence = FailurePersistence::None;
    config.silence_warnings = true;
    config
}

type Hook = Box<dyn Fn(&PanicHookInfo<'_>) + Sync + Send + 'static>;

/// While alive, panics print nothing; dropping it restores shuttle's panic hook.
///
/// Shuttle installs its hook (which prints the failing task and schedule, then calls the hook it
/// found) once per process, on its first execution. `QuietPanics::new` makes that happen with a
/// one-execution run, then swaps the hook for a silent one, so shuttle does not install it again.
/// Shuttle still writes one line to stderr per failed execution ("test panicked in task ..."),
/// from outside the hook.
pub struct QuietPanics {
    shuttle_hook: Option<Hook>,
}

impl QuietPanics {
    /// Installs a silent panic hook, after making sure that shuttle has installed its own.
    pub fn new() -> Self {
        Runner::new(RandomScheduler::new_from_seed(0, 1), config()).run(|| {});
        let shuttle_hook = panic::take_hook();
        panic::set_hook(Box::new(|_| {}));
        QuietPanics {
            shuttle_hook: Some(shuttle_hook),
        }
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        if let Some(hook) = self.shuttle_hook.take() {
            panic::set_hook(hook);
        }
    }
}

/// The message of a panic payload, if it is a string, as those of `panic!` and `assert!` are.
pub fn panic_message(payload: &(dyn Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}
