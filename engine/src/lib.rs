//! The rankcheck engine: the IR it executes, the virtual machine, schedulers
//! and search strategies, bug reports and replay.

pub mod span;

pub use span::Span;
