//! Shrinking a `.rk` program's failing schedule on the VM: each candidate
//! runs on one machine, reused, and fails the same way when its bug has
//! the first failure's identity.

use crate::executable::Executable;
use crate::identity::Identity;
use crate::outcome::Outcome;
use crate::vm::{Limits, Vm};

use super::{Guided, Replayer, Size};

/// Replays on the VM.
pub struct VmReplayer<'e> {
    vm: Vm<'e>,
    identity: Identity,
    stop: &'e mut dyn FnMut(Option<(Size, u64)>) -> bool,
}

impl<'e> VmReplayer<'e> {
    /// Replay on `exe` (the executable the failing run ran: the same
    /// scheduling points) under `limits`, for a failure of `identity`.
    /// `stop` is asked before every replay (with `None`) and after every
    /// improvement (with the new size and the replays so far): the front
    /// end's clock and progress line; true stops the search.
    pub fn new(
        exe: &'e Executable,
        limits: Limits,
        identity: Identity,
        stop: &'e mut dyn FnMut(Option<(Size, u64)>) -> bool,
    ) -> VmReplayer<'e> {
        VmReplayer {
            vm: Vm::new(exe, limits),
            identity,
            stop,
        }
    }
}

impl Replayer for VmReplayer<'_> {
    fn out_of_time(&mut self) -> bool {
        (self.stop)(None)
    }

    fn replay_anyway(&mut self, guided: &mut Guided) -> bool {
        matches!(self.vm.run(guided), Outcome::Bug(bug) if Identity::of(&bug) == self.identity)
    }

    fn improved(&mut self, size: Size, replays: u64) {
        (self.stop)(Some((size, replays)));
    }
}
