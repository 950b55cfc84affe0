//! The programs of `examples/`, ported to Rust with the same threads and
//! shared variables. A `.rk` global is an `AtomicI64` read with `load` and
//! written with `store` (`a = a + 1` is both, two steps as in `.rk`), a
//! `mutex` a `Mutex<()>` (or the `Mutex` around the data it guards), a
//! `cond` a `Condvar`. A `.rk` program's initial threads are spawned by the
//! test's main thread in source order, then joined.

use rankcheck_rt::sync::atomic::{AtomicI64, Ordering::SeqCst};
use rankcheck_rt::sync::{Arc, Condvar, Mutex};
use rankcheck_rt::thread;

/// What a program's `// expect:` header says.
#[derive(Clone, Copy, Debug)]
pub enum Expect {
    /// A failure of this kind at bounds (c, v).
    Fails {
        /// `panic` (an `assert` of `.rk`) or `deadlock`.
        kind: &'static str,
        /// Preemptions.
        c: u32,
        /// Variables.
        v: usize,
    },
    /// No schedule fails.
    Ok,
}

/// One example.
pub struct Example {
    /// Its `.rk` file's name.
    pub name: &'static str,
    /// The test body.
    pub body: fn(),
    /// Its header.
    pub expect: Expect,
}

const fn fails(kind: &'static str, c: u32, v: usize) -> Expect {
    Expect::Fails { kind, c, v }
}

/// Every example of `examples/`.
pub const EXAMPLES: [Example; 13] = [
    Example {
        name: "corner_variable",
        body: corner_variable_50,
        expect: fails("panic", 1, 1),
    },
    Example {
        name: "fig01_c0v0",
        body: fig01,
        expect: fails("panic", 0, 0),
    },
    Example {
        name: "fig02_c1v1",
        body: fig02,
        expect: fails("panic", 1, 1),
    },
    Example {
        name: "fig03_c2v1",
        body: fig03,
        expect: fails("panic", 2, 1),
    },
    Example {
        name: "fig04_c2v2",
        body: fig04,
        expect: fails("panic", 2, 2),
    },
    Example {
        name: "fig08_c0v0t3",
        body: fig08,
        expect: fails("panic", 0, 0),
    },
    Example {
        name: "fig09_c1v1t3",
        body: fig09,
        expect: fails("panic", 1, 1),
    },
    Example {
        name: "fig10_c2v2t3",
        body: fig10,
        expect: fails("panic", 2, 2),
    },
    Example {
        name: "fig12_allocation_vector",
        body: fig12,
        expect: fails("panic", 2, 1),
    },
    Example {
        name: "lock_order_deadlock",
        body: lock_order_deadlock,
        expect: fails("deadlock", 1, 1),
    },
    Example {
        name: "locked_counter_ok",
        body: locked_counter_ok,
        expect: Expect::Ok,
    },
    Example {
        name: "lost_push",
        body: lost_push,
        expect: fails("panic", 1, 1),
    },
    Example {
        name: "lost_wakeup",
        body: lost_wakeup,
        expect: fails("deadlock", 1, 1),
    },
];

/// A shared global.
type Global = Arc<AtomicI64>;

fn global() -> Global {
    Arc::new(AtomicI64::new(0))
}

/// `x = x + 1`: a read, then a write.
fn increment(x: &AtomicI64) {
    let value = x.load(SeqCst);
    x.store(value + 1, SeqCst);
}

/// Spawn the initial threads in order, then join them all.
fn run_all(threads: Vec<Box<dyn FnOnce() + Send>>) {
    // A closure, not `map(thread::spawn)`: through a function pointer the
    // spawn's caller location would be the standard library's.
    #[allow(clippy::redundant_closure)]
    let handles: Vec<_> = threads.into_iter().map(|t| thread::spawn(t)).collect();
    for handle in handles {
        handle.join().expect("a failing thread fails the run first");
    }
}

/// `corner_variable.rk`: `hot` is accessed `4 * hot_count` times, `cold`
/// three times; the bug is a preemption between the reader's reads of
/// `cold`.
pub fn corner_variable(hot_count: u32) {
    let (hot, cold) = (global(), global());
    let reader = {
        let (hot, cold) = (hot.clone(), cold.clone());
        Box::new(move || {
            for _ in 0..hot_count {
                increment(&hot);
            }
            let x = cold.load(SeqCst);
            let y = cold.load(SeqCst);
            assert!(x == y, "cold changed between two reads");
        }) as Box<dyn FnOnce() + Send>
    };
    let writer = Box::new(move || {
        for _ in 0..hot_count {
            increment(&hot);
        }
        cold.store(1, SeqCst);
    });
    run_all(vec![reader, writer]);
}

fn corner_variable_50() {
    corner_variable(50);
}

/// `fig01_c0v0.rk`: the writer only has to run first.
fn fig01() {
    let a = global();
    let checker = {
        let a = a.clone();
        Box::new(move || assert!(a.load(SeqCst) == 0, "a was already incremented"))
            as Box<dyn FnOnce() + Send>
    };
    run_all(vec![checker, Box::new(move || increment(&a))]);
}

/// `fig02_c1v1.rk`: one preemption between the two reads of `a`.
pub fn fig02() {
    let a = global();
    let reader = {
        let a = a.clone();
        Box::new(move || {
            let t1 = a.load(SeqCst);
            let t2 = a.load(SeqCst);
            assert!(t1 == t2, "a changed between two reads");
        }) as Box<dyn FnOnce() + Send>
    };
    run_all(vec![reader, Box::new(move || increment(&a))]);
}

/// `fig03_c2v1.rk`: the reader runs between the writer's two stores.
fn fig03() {
    let a = global();
    let reader = {
        let a = a.clone();
        Box::new(move || {
            let t1 = a.load(SeqCst);
            let t2 = a.load(SeqCst);
            assert!(t1 == t2, "a changed between two reads");
        }) as Box<dyn FnOnce() + Send>
    };
    let writer = Box::new(move || {
        a.store(1, SeqCst);
        a.store(0, SeqCst);
    });
    run_all(vec![reader, writer]);
}

/// `fig04_c2v2.rk`: two preemptions, at accesses to two variables.
fn fig04() {
    let (a, b) = (global(), global());
    let reader = {
        let (a, b) = (a.clone(), b.clone());
        Box::new(move || {
            let t1 = a.load(SeqCst);
            let t2 = a.load(SeqCst);
            let t3 = b.load(SeqCst);
            assert!(t1 == t2 || t3 != 1, "saw a change of a and b == 1");
        }) as Box<dyn FnOnce() + Send>
    };
    let writer = Box::new(move || {
        a.store(1, SeqCst);
        b.store(1, SeqCst);
        b.store(0, SeqCst);
    });
    run_all(vec![reader, writer]);
}

/// `fig08_c0v0t3.rk`: both increments before the check.
fn fig08() {
    let a = global();
    let (a1, a2) = (a.clone(), a.clone());
    run_all(vec![
        Box::new(move || increment(&a1)),
        Box::new(move || increment(&a2)),
        Box::new(move || assert!(a.load(SeqCst) != 2, "both increments ran first")),
    ]);
}

/// `fig09_c1v1t3.rk`: both incrementers between the reader's reads.
fn fig09() {
    let a = global();
    let reader = {
        let a = a.clone();
        Box::new(move || {
            let t1 = a.load(SeqCst);
            let t2 = a.load(SeqCst);
            assert!(t2 <= t1 + 1, "two increments between two reads");
        }) as Box<dyn FnOnce() + Send>
    };
    let a1 = a.clone();
    run_all(vec![
        reader,
        Box::new(move || increment(&a1)),
        Box::new(move || increment(&a)),
    ]);
}

/// `fig10_c2v2t3.rk`: one incrementer between the reads of `a`, the other
/// between those of `b`.
fn fig10() {
    let (a, b) = (global(), global());
    let reader = {
        let (a, b) = (a.clone(), b.clone());
        Box::new(move || {
            let t1 = a.load(SeqCst);
            let t2 = a.load(SeqCst);
            let t3 = b.load(SeqCst);
            let t4 = b.load(SeqCst);
            assert!(
                t1 == t2 || t3 == t4,
                "both a and b changed under the reader"
            );
        }) as Box<dyn FnOnce() + Send>
    };
    run_all(vec![
        reader,
        Box::new(move || increment(&a)),
        Box::new(move || increment(&b)),
    ]);
}

/// `fig12_allocation_vector.rk`: finding a free block and marking it are
/// two critical sections of `m`, which guards the blocks.
fn fig12() {
    const BLOCKS: usize = 8;
    let blocks = Arc::new(Mutex::new([0_i64; BLOCKS]));
    let worker = |blocks: Arc<Mutex<[i64; BLOCKS]>>| {
        Box::new(move || {
            let free = blocks.lock().unwrap().iter().position(|&b| b == 0);
            let b = free.expect("a free block");
            let still_free = blocks.lock().unwrap()[b] == 0;
            assert!(still_free, "the block was taken by another thread");
            blocks.lock().unwrap()[b] = 1;
            *blocks.lock().unwrap() = [0; BLOCKS];
        }) as Box<dyn FnOnce() + Send>
    };
    run_all(vec![worker(blocks.clone()), worker(blocks)]);
}

/// `lock_order_deadlock.rk`: two locks taken in opposite orders.
fn lock_order_deadlock() {
    let (a, b) = (Arc::new(Mutex::new(())), Arc::new(Mutex::new(())));
    let first = {
        let (a, b) = (a.clone(), b.clone());
        Box::new(move || {
            let _a = a.lock().unwrap();
            let _b = b.lock().unwrap();
        }) as Box<dyn FnOnce() + Send>
    };
    let second = Box::new(move || {
        let _b = b.lock().unwrap();
        let _a = a.lock().unwrap();
    });
    run_all(vec![first, second]);
}

/// `locked_counter_ok.rk`: three workers increment under `m`; correct.
pub fn locked_counter_ok() {
    const N: i64 = 3;
    let counter = global();
    let m = Arc::new(Mutex::new(()));
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let (counter, m) = (counter.clone(), m.clone());
            thread::spawn(move || {
                for _ in 0..N {
                    let _held = m.lock().unwrap();
                    increment(&counter);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    assert!(counter.load(SeqCst) == 3 * N, "an increment was lost");
}

/// A node of `lost_push.rk`'s stack.
struct Node {
    next: Mutex<Option<Arc<Node>>>,
}

/// `lost_push.rk`: an unsynchronised push (read `head`, link, write
/// `head`) loses a node when preempted in between.
fn lost_push() {
    let head: Arc<Mutex<Option<Arc<Node>>>> = Arc::new(Mutex::new(None));
    let push = |head: Arc<Mutex<Option<Arc<Node>>>>| {
        thread::spawn(move || {
            let node = Arc::new(Node {
                next: Mutex::new(None),
            });
            let old = head.lock().unwrap().clone();
            *node.next.lock().unwrap() = old;
            *head.lock().unwrap() = Some(node);
        })
    };
    let (a, b) = (push(head.clone()), push(head.clone()));
    a.join().unwrap();
    b.join().unwrap();
    let mut n = 0;
    let mut p = head.lock().unwrap().clone();
    while let Some(node) = p {
        n += 1;
        p = node.next.lock().unwrap().clone();
    }
    assert!(n == 2, "a push was lost");
}

/// `lost_wakeup.rk`: the consumer tests `count` outside the lock; the
/// signal can come between the test and the wait.
fn lost_wakeup() {
    let count = global();
    let m = Arc::new(Mutex::new(()));
    let nonempty = Arc::new(Condvar::new());
    let consumer = {
        let (count, m, nonempty) = (count.clone(), m.clone(), nonempty.clone());
        Box::new(move || {
            if count.load(SeqCst) == 0 {
                let held = m.lock().unwrap();
                let _held = nonempty.wait(held).unwrap();
            }
            let _held = m.lock().unwrap();
            let value = count.load(SeqCst);
            count.store(value - 1, SeqCst);
        }) as Box<dyn FnOnce() + Send>
    };
    let producer = Box::new(move || {
        let _held = m.lock().unwrap();
        increment(&count);
        nonempty.notify_one();
    });
    run_all(vec![consumer, producer]);
}
