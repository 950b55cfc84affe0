//! loom 0.2's `sync::CausalCell`, the name loom 0.3 changed to
//! `cell::UnsafeCell`: crates still on loom 0.2 (spmc 0.3.0) build by the
//! rename too. It is this facade's [`UnsafeCell`] under the old name,
//! whose `new`, `with` and `with_mut` are loom 0.2's: a read or a write
//! of the cell, checked for data races.
//!
//! loom 0.2's deferred and unchecked accesses (`with_deferred`,
//! `with_unchecked`, `CausalCheck`) are left out: a deferred check that
//! ran at once could report a race the crate's later validation discards
//! (a seqlock's read), and an unchecked one would hide races. A crate
//! that calls them does not build, naming the method.

use crate::cell::UnsafeCell;

/// As loom 0.2's `CausalCell`: the facade's [`UnsafeCell`].
pub type CausalCell<T> = UnsafeCell<T>;
