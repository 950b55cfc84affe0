//! loom's `lazy_static` module: what loom's `lazy_static!` expansion
//! names, of which code outside it uses [`AccessError`] (tokio does).
//! The macro itself is [`crate::lazy_static!`]; loom's `Lazy`, the type
//! its expansion builds, is not here, the macro building a rankcheck-rt
//! `LazyStatic` instead (a value per execution, also across OS threads).

pub use crate::thread::{yield_now, AccessError};
pub use std::thread::panicking;
