//! What a step touched, as the executor logs it for [`crate::explore`]:
//! the places its independence is read off, in the engine's terms
//! ([`Place`], [`Touch`]: the exploration seam's). Logged as the step
//! runs, so that what a thread did is known also where its next operation
//! was not (a new thread's first step, the end of a blocking operation).
//! rt's places: an object by its variable (crate::var: the kind, the
//! site, the thread that made it and how many it made there, so which
//! object it is does not depend on the order in which threads made
//! theirs), a thread's end and park token, the thread table, the
//! spawned threads' panics, and everything (the async runtime, a
//! failure).

use std::cell::RefCell;
use std::rc::Rc;

pub use rankcheck_engine::explore::{Place, Touch};

/// The running step's touches so far.
#[derive(Debug, Default)]
pub struct Steps {
    /// The touches, in order.
    pub touches: Vec<Touch>,
    /// How many of them came before the operation now running.
    pub mark: usize,
}

/// Where the executor logs the running step's touches, shared with the
/// scheduler that reads them at the next scheduling point.
pub type StepLog = Rc<RefCell<Steps>>;
