//! The blocking operations beyond locks: channels and parking.

#[path = "../support/mod.rs"]
mod support;

mod park;
mod rendezvous;
mod try_send;
