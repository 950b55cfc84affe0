//! A service's statistics, shared by its worker threads: a request counter
//! every request bumps, and a rate limit an operator reloads now and then.
//! Its rankcheck-rt tests run in a nightly campaign (`rankcheck.toml`
//! beside this crate): `no_request_is_lost` is correct, and
//! `a_reload_is_seen_whole` finds the bug in [`Stats::limits`], which
//! needs one preemption at the one moment, among hundreds of accesses to
//! the hot counter, when a reload lands between two reads of the limit.

#[cfg(test)]
use rankcheck::sync::atomic::{AtomicUsize, Ordering::SeqCst};
#[cfg(not(test))]
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

/// The counters of a service.
#[derive(Debug)]
pub struct Stats {
    served: AtomicUsize,
    limit: AtomicUsize,
}

impl Stats {
    /// Statistics with nothing served and a limit of `limit` requests.
    pub fn new(limit: usize) -> Stats {
        Stats {
            served: AtomicUsize::new(0),
            limit: AtomicUsize::new(limit),
        }
    }

    /// Count one request: the hot path.
    pub fn serve(&self) {
        self.served.fetch_add(1, SeqCst);
    }

    /// Requests counted so far.
    pub fn served(&self) -> usize {
        self.served.load(SeqCst)
    }

    /// Reload the limit: rare.
    pub fn reload(&self, limit: usize) {
        self.limit.store(limit, SeqCst);
    }

    /// The limit to show and the limit to enforce. The bug: it reads the
    /// limit twice, so a reload between the reads makes them differ.
    pub fn limits(&self) -> (usize, usize) {
        let shown = self.limit.load(SeqCst);
        let enforced = self.limit.load(SeqCst);
        (shown, enforced)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rankcheck::thread;

    use super::Stats;

    /// Requests each worker serves: the hot accesses the bug hides among.
    const REQUESTS: usize = 100;

    /// Two workers serve concurrently; none of their counts is lost.
    #[test]
    fn no_request_is_lost() {
        rankcheck::check(|| {
            let stats = Arc::new(Stats::new(10));
            let workers: Vec<_> = (0..2)
                .map(|_| {
                    let stats = stats.clone();
                    thread::spawn(move || (0..REQUESTS).for_each(|_| stats.serve()))
                })
                .collect();
            workers.into_iter().for_each(|w| w.join().unwrap());
            assert_eq!(stats.served(), 2 * REQUESTS, "a request was lost");
        });
    }

    /// A worker reads the limits early, between requests; an operator's
    /// thread serves, then reloads the limit. The limits read must be one
    /// limit. A random interleaving almost never has the operator's
    /// hundred requests done exactly between the worker's two reads; a
    /// preemption right after the first read (PCTVB over `limit`) does.
    #[test]
    fn a_reload_is_seen_whole() {
        rankcheck::check(|| {
            let stats = Arc::new(Stats::new(10));
            let operator = {
                let stats = stats.clone();
                thread::spawn(move || {
                    (0..REQUESTS).for_each(|_| stats.serve());
                    stats.reload(20);
                })
            };
            (0..5).for_each(|_| stats.serve());
            let (shown, enforced) = stats.limits();
            assert_eq!(shown, enforced, "the limit changed between two reads");
            (5..REQUESTS).for_each(|_| stats.serve());
            operator.join().unwrap();
        });
    }
}

/// The statistics under the facades, as a crate's own tokio and loom tests
/// run under rankcheck by a dependency rename (Cargo.toml's `facades`
/// feature, which the campaign `all-kinds.toml` switches on).
#[cfg(all(test, feature = "facades"))]
mod facades {
    use std::sync::Arc;

    use super::Stats;

    /// A loom test: the loom facade's `model` explores every schedule of
    /// its two threads, which the campaign records as a proof.
    #[test]
    fn two_threads_serve_two_requests() {
        loom::model(|| {
            let stats = Arc::new(Stats::new(10));
            let worker = {
                let stats = stats.clone();
                loom::thread::spawn(move || stats.serve())
            };
            stats.serve();
            worker.join().unwrap();
            assert_eq!(stats.served(), 2);
        });
    }

    /// A tokio test: the tokio facade's `#[tokio::test]` runs it under
    /// rankcheck's search, which the campaign counts as a `check`'s.
    #[tokio::test]
    async fn two_tasks_serve_two_requests() {
        let stats = Arc::new(Stats::new(10));
        let task = tokio::spawn({
            let stats = stats.clone();
            async move { stats.serve() }
        });
        stats.serve();
        task.await.unwrap();
        assert_eq!(stats.served(), 2);
    }
}
