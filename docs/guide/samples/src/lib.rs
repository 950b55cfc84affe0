//! The user guide's Rust samples, compiled by `cargo test` as doctests:
//! each chapter of `docs/guide/src` with a `rust` code block is this
//! crate's documentation of one module, so that its blocks are doctests
//! (with mdBook's and rustdoc's shared `# ` hidden lines), with the crates
//! named as the guide names them (`rankcheck`, `tokio`, `loom`: see
//! Cargo.toml), so every sample compiles as a user reads it. A sample's
//! `#[test]` functions are compiled, not run (the guide's tests and
//! examples run them: `rt/tests/examples/readme.rs`, `examples/`).
//! `tests/cli/docs.rs` checks that every chapter with a Rust sample is
//! here, and that the README's samples are the guide's.

// The samples show `#[test]` functions as a user writes them; a doctest
// compiles them without running them, which is all that is checked here.
#![allow(clippy::test_attr_in_doctest)]

#[doc = include_str!("../../src/rust.md")]
pub mod rust {}

#[doc = include_str!("../../src/rust/builder.md")]
pub mod builder {}

#[doc = include_str!("../../src/rust/async.md")]
pub mod r#async {}

#[doc = include_str!("../../src/rust/tokio.md")]
pub mod tokio_facade {}

#[doc = include_str!("../../src/rust/loom.md")]
pub mod loom_facade {}
