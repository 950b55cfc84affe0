//! Time, as `tokio::time`, never the clock's: `sleep` and an interval's
//! ticks are yields, and whether a `timeout` fires is a choice of the
//! search (both outcomes explored). `Instant` has no `now()`: a test's
//! time is only what intervals count. Not provided: `sleep_until`,
//! `timeout_at`, `interval_at`, `pause`/`advance`/`resume`.

pub use rankcheck_rt::future::time::{
    interval, sleep, timeout, Elapsed, Instant, Interval, Timeout,
};
pub use std::time::Duration;

/// Time's errors, as `tokio::time::error`.
pub mod error {
    pub use super::Elapsed;
}
