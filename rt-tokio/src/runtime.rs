//! Runtimes, as `tokio::runtime`, enough for
//! `Runtime::new().unwrap().block_on(...)` inside a check: a runtime is
//! only a handle on the search's executor, so building one never fails;
//! its flavor is the run's (`rankcheck_rt::future::Flavor`: a
//! current-thread runtime runs one task at a time, switching where a task
//! returns `Pending`), and the worker count changes nothing (the search
//! interleaves every task on its own).

use std::future::Future;
use std::io;

use rankcheck_rt::future::{block_on, set_flavor, spawn, Flavor, JoinHandle};

/// As `tokio::runtime::Runtime`.
#[derive(Debug)]
pub struct Runtime {
    flavor: Flavor,
}

impl Runtime {
    /// A runtime, as tokio's multi-threaded one: never an error here.
    pub fn new() -> io::Result<Runtime> {
        Ok(Runtime {
            flavor: Flavor::MultiThread,
        })
    }

    /// Run `future` to completion on the calling thread of the test, as
    /// `rankcheck_rt::future::block_on`, under the runtime's flavor (for
    /// the rest of the run). Only inside a check.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        set_flavor(self.flavor);
        block_on(future)
    }

    /// Spawn a task, as `tokio::spawn`.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        spawn(future)
    }
}

/// As `tokio::runtime::Builder`: every setting is accepted; only the
/// flavor changes the search.
#[derive(Debug)]
pub struct Builder {
    flavor: Flavor,
}

impl Builder {
    /// As tokio's, for a current-thread runtime.
    pub fn new_current_thread() -> Builder {
        Builder {
            flavor: Flavor::CurrentThread,
        }
    }

    /// As tokio's, for a multi-threaded runtime.
    pub fn new_multi_thread() -> Builder {
        Builder {
            flavor: Flavor::MultiThread,
        }
    }

    /// Accepted: time and I/O need no driver here.
    pub fn enable_all(&mut self) -> &mut Builder {
        self
    }

    /// Accepted: time needs no driver here.
    pub fn enable_time(&mut self) -> &mut Builder {
        self
    }

    /// Accepted: the search interleaves every task whatever the count.
    pub fn worker_threads(&mut self, count: usize) -> &mut Builder {
        assert!(count > 0, "Worker threads cannot be set to 0");
        self
    }

    /// Accepted: threads are named by the search.
    pub fn thread_name(&mut self, name: impl Into<String>) -> &mut Builder {
        let _ = name.into();
        self
    }

    /// The runtime: never an error here.
    pub fn build(&mut self) -> io::Result<Runtime> {
        Ok(Runtime {
            flavor: self.flavor,
        })
    }
}
