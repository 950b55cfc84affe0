//! Threads blocked in `await`: a blocked thread can run exactly when its
//! condition is true (docs/LANGUAGE.md, Which threads can run). Conditions read
//! shared memory but change nothing (the compiler rejects side effects), so
//! the VM decides by evaluating a blocked thread's condition again, without
//! letting the thread move on, whenever a write touches a variable some
//! condition may read.

use crate::scheduler::EventKind;

use super::stack::Stack;
use super::{Status, Vm};
use crate::id::ThreadId;

impl Vm<'_> {
    /// Evaluate every blocked `await` condition again after a write to an
    /// awaited variable, and update which of those threads can run. True
    /// when one that could not run now can: the write ends the writer's
    /// step.
    pub(super) fn refresh_awaiters(&mut self, stacks: &mut Vec<Stack>) -> bool {
        let mut woke = false;
        for index in 0..self.awaiters.len() {
            let thread = self.awaiters[index];
            let ready = self.condition_holds(thread, stacks);
            let Status::Awaiting { ready: was } = self.status[thread.index()] else {
                unreachable!("invariant: awaiters are in Status::Awaiting")
            };
            if ready == was {
                continue;
            }
            self.status[thread.index()] = Status::Awaiting { ready };
            if ready {
                self.enabled.insert(thread);
                woke = true;
            } else {
                self.enabled.remove(thread);
            }
        }
        woke
    }

    /// Whether `thread`, blocked in `await`, would pass it now: its
    /// condition is true, or evaluating it fails (the thread then reports
    /// the failure when it runs). The thread's state is left as it was: the
    /// frame stays at the `AwaitBegin`, and steps spent evaluating do not
    /// count against the step limit.
    fn condition_holds(&mut self, thread: ThreadId, stacks: &mut Vec<Stack>) -> bool {
        let exe = self.exe;
        let stack = &stacks[thread.index()];
        let (n_regs, n_frames) = (stack.regs.len(), stack.frames.len());
        let top = stack.frames.last().copied();
        let state = &self.threads[thread.index()];
        let saved = (
            state.atomic_depth,
            state.atomic_touched,
            state.atomic_synced,
        );
        let budget = self.budget;
        let log = self.accesses.take();
        self.speculating = true;
        let result = self.interpret_outlined(exe, thread, stacks);
        self.speculating = false;
        self.accesses = log;
        self.budget = budget;
        // A condition writes only temporaries above the live registers and
        // frames it pushes for calls: cut them back.
        let stack = &mut stacks[thread.index()];
        stack.regs.truncate(n_regs);
        stack.frames.truncate(n_frames);
        if let (Some(frame), Some(top)) = (stack.frames.last_mut(), top) {
            *frame = top;
        }
        let state = &mut self.threads[thread.index()];
        (
            state.atomic_depth,
            state.atomic_touched,
            state.atomic_synced,
        ) = saved;
        match result {
            Ok(event) => event.kind == EventKind::Await,
            Err(_) => true,
        }
    }
}
