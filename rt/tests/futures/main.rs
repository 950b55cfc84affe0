//! Async code under the search: tasks and `block_on`, the async
//! synchronisation types, time as scheduling choices.

#[path = "../support/mod.rs"]
mod support;

mod corner;
mod first_step;
mod sync;
mod tasks;
mod time;
