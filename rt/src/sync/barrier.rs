//! A drop-in `std::sync::Barrier`.

use std::fmt;
use std::panic::Location;

use crate::lazy::LazyHandle;
use crate::object::{ObjectKind, SyncState};
use crate::op;

/// As `std::sync::Barrier`.
pub struct Barrier {
    handle: LazyHandle,
}

/// As `std::sync::BarrierWaitResult`.
#[derive(Clone, Copy, Debug)]
pub struct BarrierWaitResult(bool);

impl BarrierWaitResult {
    /// Whether this thread was the last to arrive.
    pub fn is_leader(&self) -> bool {
        self.0
    }
}

impl Barrier {
    /// A barrier for `n` threads: a new variable, known by this call's site.
    #[track_caller]
    pub const fn new(n: usize) -> Barrier {
        Barrier {
            handle: LazyHandle::new(
                ObjectKind::Barrier,
                Location::caller(),
                SyncState::Barrier {
                    parties: n,
                    arrived: Vec::new(),
                },
            ),
        }
    }

    /// Wait until `n` threads have arrived: a synchronisation operation.
    #[track_caller]
    pub fn wait(&self) -> BarrierWaitResult {
        BarrierWaitResult(op::barrier(&self.handle.get(), Location::caller()))
    }
}

impl fmt::Debug for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Barrier").finish_non_exhaustive()
    }
}
