//! The running thread's registers and frames, held out of its state while
//! the scheduler keeps choosing it: the interpreter works on them in place,
//! and a step of the thread that ran last moves nothing. They go back when
//! another thread is chosen, before the VM looks ahead at every thread,
//! and when the execution ends.

use crate::id::ThreadId;
use crate::value::Value;

use super::{Frame, Thread};

/// Whose registers and frames are out, and the buffers themselves. The
/// thread's own fields hold this struct's empty buffers meanwhile.
#[derive(Default)]
pub(super) struct Held {
    thread: Option<ThreadId>,
    pub(super) regs: Vec<Value>,
    pub(super) frames: Vec<Frame>,
}

impl Held {
    /// Hold `thread`'s registers and frames, putting back another's first.
    #[inline(always)]
    pub(super) fn take(&mut self, threads: &mut [Thread], thread: ThreadId) {
        if self.thread == Some(thread) {
            return;
        }
        self.put_back(threads);
        self.swap(threads, thread);
        self.thread = Some(thread);
    }

    /// Give the held registers and frames back to their thread.
    #[inline]
    pub(super) fn put_back(&mut self, threads: &mut [Thread]) {
        if let Some(thread) = self.thread.take() {
            self.swap(threads, thread);
        }
    }

    fn swap(&mut self, threads: &mut [Thread], thread: ThreadId) {
        let state = &mut threads[thread.index()];
        std::mem::swap(&mut self.regs, &mut state.regs);
        std::mem::swap(&mut self.frames, &mut state.frames);
    }
}
