//! The blocking operations beyond locks: channels and parking.

#[path = "../support/mod.rs"]
mod support;

mod condvar;
mod park;
mod rendezvous;
mod timeouts;
mod try_send;
