//! The std API a real test reaches for beyond threads and locks: scoped
//! threads, thread-locals, statics, one-time initialisation, the full
//! atomics API, and the harness (the test attribute, the environment).

#[path = "../support/mod.rs"]
mod support;

mod atomics;
mod attribute;
mod local;
mod once;
mod registry;
mod scope;
mod statics;
