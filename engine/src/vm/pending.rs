//! Each enabled thread's next visible operation, for schedulers that decide
//! by it (partial order sampling, SURW). Steps still end after an
//! operation (docs/LANGUAGE.md), so the next one is found by running the
//! thread ahead over its local code and stopping before the first visible
//! operation, then putting everything back. A runnable thread's next
//! operation depends on its own state alone (local code reads no shared
//! memory), so it is worked out once after each step the thread takes.

use crate::id::ThreadId;
use crate::scheduler::{Location, Pending};

use super::stack::Stack;
use super::{Status, Vm};

impl Vm<'_> {
    /// Bring `pending` up to date for every enabled thread.
    pub(super) fn refresh_pending(&mut self, stacks: &mut Vec<Stack>) {
        let threads = self.n_threads;
        self.pending.resize(threads, Pending::LOCAL);
        self.pending_fresh.resize(threads, false);
        for i in 0..self.enabled.as_slice().len() {
            let thread = self.enabled.as_slice()[i];
            let pending = match self.status[thread.index()] {
                Status::Runnable if self.pending_fresh[thread.index()] => continue,
                Status::Runnable => {
                    self.pending_fresh[thread.index()] = true;
                    self.look_ahead(thread, stacks)
                }
                Status::Locking { mutex, .. } => Pending {
                    location: Some(Location::Mutex(mutex.0)),
                    var: Some(self.mutexes[mutex.index()].var),
                    write: true,
                },
                Status::Joining { .. } | Status::Awaiting { .. } => Pending::LOCAL,
                Status::Waiting { .. } | Status::Finished => {
                    unreachable!("invariant: only enabled threads are looked at")
                }
            };
            self.pending[thread.index()] = pending;
        }
    }

    /// Run `thread` ahead to just before its next visible operation and
    /// put it back: the operation, or [`Pending::LOCAL`] when none (the
    /// thread will fail, or reach a synchronisation on no location).
    fn look_ahead(&mut self, thread: ThreadId, stacks: &mut Vec<Stack>) -> Pending {
        let exe = self.exe;
        // Local code writes live registers and may return into callers:
        // the thread runs ahead on copies, and the originals go back.
        let copy = stacks[thread.index()].clone();
        let original = std::mem::replace(&mut stacks[thread.index()], copy);
        let state = &self.threads[thread.index()];
        let saved = (
            state.atomic_depth,
            state.atomic_touched,
            state.atomic_synced,
        );
        let budget = self.budget;
        let heap = self.heap.mark();
        let (mutexes, conds) = (self.mutexes.len(), self.conds.len());
        let instances = self
            .instances_seen
            .as_ref()
            .map(|_| self.instance_counts.clone());
        let seen = self.instances_seen.as_ref().map(Vec::len);
        let prints = self.prints.take();
        let log = self.accesses.take();
        self.peeking = true;
        let result = self.interpret_outlined(exe, thread, stacks);
        stacks[thread.index()] = original;
        self.peeking = false;
        self.accesses = log;
        self.prints = prints;
        if let (Some(counts), Some(seen_len)) = (instances, seen) {
            self.instance_counts = counts;
            if let Some(list) = &mut self.instances_seen {
                list.truncate(seen_len);
            }
        }
        self.conds.truncate(conds);
        self.mutexes.truncate(mutexes);
        self.heap.truncate(heap);
        self.budget = budget;
        let state = &mut self.threads[thread.index()];
        (
            state.atomic_depth,
            state.atomic_touched,
            state.atomic_synced,
        ) = saved;
        let peeked = self.peeked.take();
        match result {
            Ok(_) => peeked.unwrap_or(Pending::LOCAL),
            Err(_) => Pending::LOCAL,
        }
    }
}
