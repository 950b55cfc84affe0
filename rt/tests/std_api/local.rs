//! `rankcheck::thread_local!`: a value per test thread, fresh in every
//! run, dropped when the thread ends, with std's `LocalKey` API.

use std::cell::{Cell, RefCell};

use rankcheck::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use rankcheck::sync::{mpsc, Arc};
use rankcheck::thread;
use rankcheck_rt as rankcheck;

rankcheck::thread_local! {
    static COUNT: Cell<u32> = const { Cell::new(0) };
    /// A doc comment and a non-const initialiser.
    static LOG: RefCell<Vec<u32>> = RefCell::new(vec![7]);
}

#[test]
fn every_test_thread_has_its_own_value_fresh_in_every_run() {
    rankcheck::Builder::new().runs(200).seed(2).check(|| {
        // Fresh per run: a value left by the last run would show here.
        assert_eq!(COUNT.get(), 0);
        COUNT.set(COUNT.get() + 5);
        let children: Vec<_> = (0..2)
            .map(|i| {
                thread::spawn(move || {
                    assert_eq!(COUNT.replace(i), 0);
                    thread::yield_now();
                    LOG.with_borrow_mut(|log| log.push(i));
                    (COUNT.get(), LOG.with_borrow(|log| log.clone()))
                })
            })
            .collect();
        for (i, child) in children.into_iter().enumerate() {
            assert_eq!(child.join().unwrap(), (i as u32, vec![7, i as u32]));
        }
        assert_eq!(COUNT.take(), 5);
        assert_eq!(LOG.take(), vec![7]);
    });
}

/// Sends on its channel when dropped.
struct Farewell(mpsc::Sender<&'static str>);

impl Drop for Farewell {
    fn drop(&mut self) {
        // The key is being destroyed: std refuses to reach it again.
        assert!(GOODBYE.try_with(|_| ()).is_err());
        self.0.send("bye").unwrap();
    }
}

rankcheck::thread_local! {
    static GOODBYE: RefCell<Option<Farewell>> = const { RefCell::new(None) };
}

#[test]
fn values_are_dropped_on_their_thread_when_it_ends() {
    rankcheck::Builder::new().runs(100).seed(4).check(|| {
        let (tx, rx) = mpsc::channel();
        let child = thread::spawn(move || {
            GOODBYE.set(Some(Farewell(tx)));
        });
        child.join().unwrap();
        // The destructor ran before the thread finished, so before join.
        assert_eq!(rx.try_recv(), Ok("bye"));
    });
}

rankcheck::thread_local! {
    static CACHED: Cell<Option<usize>> = const { Cell::new(None) };
}

#[test]
fn a_stale_per_thread_cache_is_found() {
    // Each thread caches the shared value on first sight; the main thread
    // reads it before the writer stores, and its cache is then stale.
    let message = crate::support::panic_message(|| {
        rankcheck::Builder::new().runs(500).seed(8).check(|| {
            let shared = Arc::new(AtomicUsize::new(0));
            let read = |shared: &AtomicUsize| {
                if CACHED.get().is_none() {
                    CACHED.set(Some(shared.load(SeqCst)));
                }
                CACHED.get().unwrap()
            };
            let writer = {
                let shared = shared.clone();
                thread::spawn(move || shared.store(1, SeqCst))
            };
            let early = read(&shared);
            writer.join().unwrap();
            assert_eq!(read(&shared), 1, "stale cache (first read {early})");
        });
    })
    .expect("the stale read is found");
    assert!(message.contains("stale cache"), "{message}");
}
