//! Synchronisation, as `tokio::sync`: rankcheck-rt's async types, each
//! instance a variable to the search and each operation a scheduling
//! point: `Mutex` (with `lock_owned`), `RwLock`, `Semaphore`, `Notify`,
//! `mpsc` (bounded and unbounded), `oneshot` and `watch`. Not provided:
//! `broadcast`, `Barrier`, `OnceCell`, `SetOnce`.

pub use rankcheck_rt::future::sync::*;
