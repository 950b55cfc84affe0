//! Threads as std has them, and as the priority schedulers treat them.

#[path = "../support/mod.rs"]
mod support;

mod give_way;
mod kinds;
mod names;
mod priorities;
mod teardown;
