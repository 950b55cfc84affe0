//! Suspending the running coroutine from anywhere in its thread's code: the
//! one place this crate needs `unsafe`.
//!
//! corosensei hands a coroutine's `Yielder` only to the coroutine's own
//! function, as a reference. A scheduling point happens deep inside user
//! code (a `lock()` three calls down), which cannot be given that
//! reference, so the executor keeps a raw pointer to it, as awslabs/shuttle
//! does. Everything else in the crate is safe code.
#![allow(unsafe_code)]

use corosensei::Yielder;

use super::coroutine::{Go, Yield};

/// A pointer to a worker coroutine's yielder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct YielderPtr(*const Yielder<Go, Yield>);

impl YielderPtr {
    /// The pointer to `yielder`.
    pub fn of(yielder: &Yielder<Go, Yield>) -> YielderPtr {
        YielderPtr(yielder)
    }
}

/// Suspends one worker coroutine from inside its job.
#[derive(Clone, Copy, Debug)]
pub struct Suspender(YielderPtr);

impl Suspender {
    /// The suspender of the coroutine whose yielder `ptr` points to.
    pub fn new(ptr: YielderPtr) -> Suspender {
        Suspender(ptr)
    }

    /// Give control back to the executor until it resumes this coroutine.
    ///
    /// Must be called on the stack of the coroutine the pointer came from:
    /// the executor only calls it for the running thread, whose worker is
    /// the coroutine currently executing.
    pub fn suspend(self) {
        // SAFETY: the yielder lives in the frame of the worker's function,
        // which loops until an idle worker is told to end (when none of its
        // jobs runs), so it is valid while a job runs; workers are never
        // dropped while one of their jobs runs (the executor unwinds or
        // leaks them first, from outside). `suspend` is
        // called only by the running thread, on its own coroutine's stack,
        // which is what `Yielder::suspend` requires; corosensei's yielder
        // takes `&self`, so no `&mut` aliasing arises.
        unsafe { &*self.0 .0 }.suspend(Yield::Switched);
    }
}
