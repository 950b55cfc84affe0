//! Ported from awslabs/shuttle 0.9.9, `tests/basic/lazy_static.rs`
//! (Apache-2.0).
//! Changed: `shuttle::lazy_static!` to `rankcheck::lazy_static!`
//! (`lazy_static::initialize(&S)` is `let _ = &*S;`);
//! runners to the helpers in `main.rs`; `mutex_random` runs 2000 random
//! runs, not 10 000; the tests sharing one lazy static (`mutex_dfs`,
//! `mutex_random`) each have their own; `shared_static` runs
//! `rankcheck::explore` on three OS threads (shuttle: `DfsScheduler`
//! runners).
//! Skipped: none.

use std::collections::{HashMap, HashSet};

use rankcheck::sync::{Arc, LazyLock};
use rankcheck::thread::{self, ThreadId};
use rankcheck_rt as rankcheck;

use crate::{check_dfs, check_random};

#[test]
fn basic() {
    rankcheck::lazy_static! {
        static ref HASH_MAP: HashMap<u32, u32> = {
            let mut m = HashMap::new();
            m.insert(1, 1);
            m
        };
    }

    check_dfs(|| assert_eq!(HASH_MAP.get(&1), Some(&1)));
}

#[test]
fn racing_init() {
    use std::sync::atomic::{AtomicUsize, Ordering};

    static COUNTER: AtomicUsize = AtomicUsize::new(0);

    rankcheck::lazy_static! {
        static ref HASH_MAP: HashMap<u32, u32> = {
            let mut m = HashMap::new();
            m.insert(1, 1);
            COUNTER.fetch_add(1, Ordering::SeqCst);
            m
        };
    }

    check_dfs(|| {
        let thds = (0..2)
            .map(|_| {
                thread::spawn(move || {
                    assert_eq!(HASH_MAP.get(&1), Some(&1));
                })
            })
            .collect::<Vec<_>>();

        for thd in thds {
            thd.join().unwrap();
        }

        assert_eq!(COUNTER.swap(0, Ordering::SeqCst), 1);
    });
}

// Same as `racing_init` but each thread first tries to manually initialize the static
#[test]
fn racing_init_explicit() {
    use std::sync::atomic::{AtomicUsize, Ordering};

    static COUNTER: AtomicUsize = AtomicUsize::new(0);

    rankcheck::lazy_static! {
        static ref HASH_MAP: HashMap<u32, u32> = {
            let mut m = HashMap::new();
            m.insert(1, 1);
            COUNTER.fetch_add(1, Ordering::SeqCst);
            m
        };
    }

    check_dfs(|| {
        let thds = (0..2)
            .map(|_| {
                thread::spawn(move || {
                    let _ = &*HASH_MAP;
                    assert_eq!(HASH_MAP.get(&1), Some(&1));
                })
            })
            .collect::<Vec<_>>();

        for thd in thds {
            thd.join().unwrap();
        }

        assert_eq!(COUNTER.swap(0, Ordering::SeqCst), 1);
    });
}

#[test]
fn init_with_yield() {
    rankcheck::lazy_static! {
        static ref THING: Arc<usize> = {
            // check that it's valid to yield in the initializer
            thread::yield_now();
            Default::default()
        };
    }

    check_dfs(|| {
        let thd = thread::spawn(|| {
            assert_eq!(**THING, 0);
        });

        assert_eq!(**THING, 0);

        thd.join().unwrap();
    });
}

// Run N threads racing to acquire a Mutex and record the order they resolved the race in. Check
// that we saw all N! possible orderings to make sure `lazy_static` allows any thread to win the
// initialization race.
// Shuttle's two tests share one lazy static; rankcheck refuses a static in
// use by two tests running at once on different OS threads, so each test
// passes its own.
type Threads = LazyLock<std::sync::Mutex<Vec<ThreadId>>>;

#[track_caller]
fn run_mutex_test(
    threads: &'static Threads,
    num_threads: usize,
    tester: impl FnOnce(Box<dyn Fn() + Send + Sync>),
) {
    let initializers = Arc::new(std::sync::Mutex::new(HashSet::new()));
    let initializers_clone = Arc::clone(&initializers);

    tester(Box::new(move || {
        let thds = (0..num_threads)
            .map(|_| {
                thread::spawn(move || {
                    threads.lock().unwrap().push(thread::current().id());
                })
            })
            .collect::<Vec<_>>();

        for thd in thds {
            thd.join().unwrap();
        }

        assert_eq!(threads.lock().unwrap().len(), num_threads);
        initializers
            .lock()
            .unwrap()
            .insert(threads.lock().unwrap().clone());
    }));

    let initializers = Arc::try_unwrap(initializers_clone)
        .unwrap()
        .into_inner()
        .unwrap();
    assert_eq!(initializers.len(), (1..num_threads + 1).product::<usize>());
}

// Check all the interleavings of two racing threads trying to acquire a static Mutex.
#[test]
fn mutex_dfs() {
    static THREADS: Threads = LazyLock::new(Default::default);
    run_mutex_test(&THREADS, 2, check_dfs);
}

// Like `mutex_dfs` but with more threads, making it too expensive to do DFS.
#[test]
fn mutex_random() {
    // Not guaranteed to pass, but should be pretty likely for 4 threads to see all 24 interleavings
    // in 10,000 iterations of a random scheduler
    static THREADS: Threads = LazyLock::new(Default::default);
    run_mutex_test(&THREADS, 4, |f| check_random(f, 2_000));
}

#[test]
fn chained() {
    rankcheck::lazy_static! {
        static ref S1: Arc<usize> = Default::default();
        static ref S2: Arc<usize> = Arc::new(**S1);
    }

    check_dfs(move || {
        let thd = thread::spawn(|| {
            assert_eq!(**S2, 0);
        });

        assert_eq!(**S1, 0);

        thd.join().unwrap();
    });
}

// Ensure that concurrent Shuttle tests see an isolated version of a lazy_static. This test is best
// effort, as it spawns OS threads and hopes they race.
#[test]
fn shared_static() {
    use std::sync::atomic::{AtomicUsize, Ordering};

    static COUNTER: AtomicUsize = AtomicUsize::new(0);

    rankcheck::lazy_static! {
        static ref S: usize = {
            COUNTER.fetch_add(1, Ordering::SeqCst);
            0
        };
    }

    let mut total_executions = 0;

    // Try a bunch of times to provoke the race
    for _ in 0..10 {
        #[allow(clippy::needless_collect)] // https://github.com/rust-lang/rust-clippy/issues/7207
        let threads = (0..3)
            .map(|_| {
                std::thread::spawn(move || {
                    let explored = rankcheck::explore(
                        move || {
                            let thds = (0..2)
                                .map(|_| {
                                    thread::spawn(move || {
                                        assert_eq!(*S, 0);
                                    })
                                })
                                .collect::<Vec<_>>();

                            for thd in thds {
                                thd.join().unwrap();
                            }
                        },
                        1_000,
                        1_000,
                    );
                    explored.schedules as usize
                })
            })
            .collect::<Vec<_>>();

        total_executions += threads
            .into_iter()
            .map(|handle| handle.join().unwrap())
            .sum::<usize>();
    }

    // The static should be initialized exactly once per test execution, otherwise the tests are
    // incorrectly sharing state
    assert_eq!(total_executions, COUNTER.load(Ordering::SeqCst));
}

/// Check that the drop handler does not panic if executed while panicking.
#[test]
#[should_panic(expected = "the only panic")]
fn panic() {
    rankcheck::lazy_static! {
        static ref S: usize = {
             42
        };
    }

    check_dfs(|| {
        assert_eq!(*S, 42);
        panic!("the only panic");
    });
}
