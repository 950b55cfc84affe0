//! Weak memory (`MemoryModel::Weak`): the litmus tests' exact outcome
//! sets over every schedule and every read choice, and lock-free code with
//! a wrong ordering found, with the stale read named, and passing once the
//! orderings are right.

#[path = "../support/mod.rs"]
mod support;

mod cells;
mod litmus;
mod programs;
mod reduction;
mod spin;
mod spurious;
mod stale_rereads;
mod structures;
