//! Locks as std's: what `try_lock`, `try_read` and `try_write` can see at
//! their own scheduling point, and poisoning.

#[path = "../support/mod.rs"]
mod support;

mod poison;
mod rwlock_policy;
mod try_lock;
