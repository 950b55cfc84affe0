//! The blocking operations beyond locks: rendezvous channels and parking.

#[path = "../support/mod.rs"]
mod support;

mod park;
mod rendezvous;
