//! Threads as std has them, and as the priority schedulers treat them.

mod give_way;
mod kinds;
mod names;
mod priorities;
