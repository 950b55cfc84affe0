//! Async Rust under the same search: tasks, `block_on`, and (in `sync`
//! and `time`) tokio-shaped primitives.
//!
//! Each task is a thread to the strategies: its body polls its future
//! and, on `Pending`, waits to be woken; a wake that came while it was
//! polled is kept. Wakers are `std::task::Waker`s, so hand-written
//! futures work as under any executor. A thread waiting to be woken that
//! nothing wakes is a deadlock, reported with where its future was last
//! polled. A test is `rankcheck::check(|| rankcheck::future::block_on(async
//! { ... }))`.

mod task;
mod tasks;

pub use task::{block_on, spawn, yield_now, JoinError, JoinHandle};
pub(crate) use tasks::{describe_wait, Tasks};
