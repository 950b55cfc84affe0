//! The registered strategies, one file each (the sampling family's six
//! share one): every file submits its
//! [`Registered`](super::registry::Registered) entry (name, options,
//! constructor), and its `mod` line below is all that adds it. The
//! algorithms stay where they are (`crate::pos`, `crate::walk`,
//! `crate::priority`, ...): a file here says how its name becomes a
//! search.

mod pct;
mod pctvb;
mod portfolio;
mod random;
mod sampling;

// A strategy for tests only: it shows that a strategy file alone reaches
// every front end.
#[cfg(any(test, feature = "test-strategies"))]
mod test_lowest;
