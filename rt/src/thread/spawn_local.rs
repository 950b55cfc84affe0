//! A spawn whose closure need not be `Send`, as loom's `thread::spawn`:
//! a test's threads are coroutines on the test's one OS thread, so a value
//! that may not cross OS threads (an `Rc`) never does.

use std::panic::Location;

use super::{body, JoinHandle};
use crate::op;

/// Spawn a thread of the test that runs `f`, as [`spawn`](super::spawn)
/// without its `Send` bounds (loom's `thread::spawn` has none): a
/// synchronisation operation, a scheduling point.
#[track_caller]
pub fn spawn_local<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + 'static,
    T: 'static,
{
    let (job, result) = body(f);
    let id = op::spawn(job, None, Location::caller());
    JoinHandle::from_parts(id, result)
}
