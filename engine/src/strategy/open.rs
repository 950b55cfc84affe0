//! Strategies outside the built-in families: any [`Strategy`] whose runs'
//! schedulers are boxed, so that a new strategy runs in every front end
//! without a variant of its own anywhere. The box costs an allocation per
//! run and a virtual call per scheduling point; a strategy that becomes a
//! built-in family earns a [`PlanKind`](super::PlanKind) variant, and its
//! direct calls, when measurements ask for it.

use std::fmt;

use super::{Strategy, Tracked};
use crate::scheduler::Scheduler;

/// A scheduler behind a box.
pub type BoxedScheduler = Box<dyn Scheduler + Send>;

/// Any strategy, its scheduler boxed.
pub struct OpenStrategy {
    name: &'static str,
    strategy: Box<dyn Boxing>,
}

impl OpenStrategy {
    /// `strategy`, run by the name `name` (for debugging output).
    pub fn new<St: Strategy + 'static>(name: &'static str, strategy: St) -> OpenStrategy {
        OpenStrategy {
            name,
            strategy: Box::new(strategy),
        }
    }
}

impl Clone for OpenStrategy {
    fn clone(&self) -> OpenStrategy {
        OpenStrategy {
            name: self.name,
            strategy: self.strategy.clone_boxed(),
        }
    }
}

impl fmt::Debug for OpenStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("OpenStrategy").field(&self.name).finish()
    }
}

impl Strategy for OpenStrategy {
    type Scheduler = BoxedScheduler;

    fn prepare(&mut self, run: u64, seed: u64) -> (Tracked<'_>, BoxedScheduler) {
        self.strategy.prepare_boxed(run, seed)
    }
}

/// [`Strategy`] with its scheduler boxed: the object-safe face of any
/// strategy.
trait Boxing: Send + Sync {
    fn prepare_boxed(&mut self, run: u64, seed: u64) -> (Tracked<'_>, BoxedScheduler);
    fn clone_boxed(&self) -> Box<dyn Boxing>;
}

impl<St: Strategy + 'static> Boxing for St {
    fn prepare_boxed(&mut self, run: u64, seed: u64) -> (Tracked<'_>, BoxedScheduler) {
        let (tracked, scheduler) = self.prepare(run, seed);
        (tracked, Box::new(scheduler))
    }

    fn clone_boxed(&self) -> Box<dyn Boxing> {
        Box::new(self.clone())
    }
}
