//! Threads as std has them, and as the priority schedulers treat them.

mod kinds;
mod names;
mod priorities;
