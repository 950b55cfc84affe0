//! What one execution of a model knows of itself, kept per OS thread (an
//! execution runs on its test's): its main thread, which loom leaves
//! unnamed, and how many threads it spawned against `max_threads`.

use std::cell::Cell;

use rankcheck_rt::thread::{current, ThreadId};

thread_local! {
    static RUN: Cell<Option<Run>> = const { Cell::new(None) };
}

#[derive(Clone, Copy)]
struct Run {
    main: ThreadId,
    threads: usize,
    max_threads: usize,
}

/// An execution begins on its main thread, allowed `max_threads` threads.
pub fn begin(max_threads: usize) {
    let run = Run {
        main: current().id(),
        threads: 1,
        max_threads,
    };
    RUN.set(Some(run));
    crate::sync::arc::raw::clear();
}

/// Whether `id` is the running execution's main thread.
pub fn is_main(id: ThreadId) -> bool {
    RUN.get().is_some_and(|run| run.main == id)
}

/// A thread is about to be spawned.
///
/// # Panics
/// When the execution would run more threads than `max_threads`, as
/// loom's does.
#[track_caller]
pub fn spawning() {
    let Some(mut run) = RUN.get() else {
        return;
    };
    run.threads += 1;
    RUN.set(Some(run));
    if run.threads > run.max_threads {
        panic!(
            "loom: the model runs more than {} threads (model::Builder::max_threads, at most loom::MAX_THREADS)",
            run.max_threads
        );
    }
}
