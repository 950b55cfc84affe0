//! rankcheck-loom under loom's own package name.
//!
//! A crate's tests reach rankcheck-loom by renaming their `loom`
//! dependency (`loom = { package = "rankcheck-loom", path = ... }`). A
//! dependency of the crate that uses loom too (scc's `sdd` and `saa`
//! behind their `loom` feature, say) keeps the real loom, whose types
//! panic inside rankcheck's model ("cannot access Loom execution state
//! from outside a Loom model"). Patching loom with this package puts
//! rankcheck-loom in every such place at once:
//!
//! ```toml
//! [patch.crates-io]
//! loom = { path = "../rankcheck/rt-loom/as-loom" }
//! ```
//!
//! The patch alone also serves the crate's own `loom` dependency, so the
//! rename becomes optional. Its version, 0.7.99, satisfies any `0.7`
//! requirement; a dependency pinned to an older loom (0.5, 0.6) keeps the
//! real one, and cargo warns that the patch went unused for it.
//!
//! Everything here is rankcheck-loom's, re-exported: the same model, the
//! same types, one exploration for the crate and its dependencies.

#![no_std]

pub use rankcheck_loom::*;
