//! Loads without synchronisation, loom's `unsync_load`: a plain read of an
//! atomic's value, which races with a store of another thread unless each
//! happens before the other one way. Under weak memory a race fails the
//! run with loom's `Causality violation`: an unsync load that a kept store
//! (one of its atomic's last [`super::HISTORY`]) does not happen before,
//! or a store that does not see an earlier unsync load. The load puts the
//! model in use, so a racing store made before the run's model was in use
//! (a SeqCst-only run until then) goes unseen: races are missed, never
//! made up.

use rankcheck_engine::ThreadId;

use super::model::Site;
use super::{Bits, WEAK};
use crate::executor::with;
use crate::object::Handle;
use crate::var::short_file;

/// `handle`'s atomic, whose value is `value`, is loaded without
/// synchronisation at `site`.
///
/// # Panics
/// When a store of another thread races with it, naming both.
pub fn load<V: Bits>(handle: &Handle, value: V, site: Site) {
    if !WEAK.get() || std::thread::panicking() {
        return;
    }
    let raced = with(|ex| {
        if !ex.is_live_for(handle) {
            return None;
        }
        ex.memory.engaged = true;
        let model = ex.memory.model.as_mut()?;
        let (thread, object) = (ex.current.index(), handle.object.index());
        model.unsync_load(thread, object, value.to_bits(), site)
    });
    // Described once the execution is let go: `describe` visits it again.
    if let Some(raced) = raced {
        let message = describe(
            handle,
            "`unsync_load` and atomic store",
            ("loads it with unsync_load", "stored to it"),
            raced,
        );
        panic!("{message}");
    }
}

/// A store of `handle`'s atomic did not see the unsync load `raced` (its
/// thread and site).
///
/// # Panics
/// Always, naming both.
pub fn store_raced(handle: &Handle, raced: (usize, Site)) -> ! {
    let message = describe(
        handle,
        "atomic store and `unsync_load`",
        ("stores to it", "loaded it with unsync_load"),
        raced,
    );
    panic!("{message}");
}

/// `Causality violation: Concurrent {kinds} of AtomicUsize@..: {running}
/// {doing}, and {other} {did} at x.rs:12 with no happens-before between
/// them`.
fn describe(
    handle: &Handle,
    kinds: &str,
    (doing, did): (&str, &str),
    (other, site): (usize, Site),
) -> String {
    let (atomic, running, other) = with(|ex| {
        (
            ex.registry.name_of(handle.var).to_owned(),
            ex.threads.name(ex.current),
            ex.threads.name(ThreadId(other as u32)),
        )
    });
    format!(
        "Causality violation: Concurrent {kinds} of {atomic}: {running} {doing}, and {other} {did} at {}:{} with no happens-before between them",
        short_file(site.file()),
        site.line()
    )
}
