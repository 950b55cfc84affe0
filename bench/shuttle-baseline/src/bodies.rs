// The benchmark programs' bodies, included by `program.rs` once with
// shuttle's types in scope and once with rankcheck-rt's (`thread`,
// `AtomicI64`, `SeqCst`, `Mutex`, `Arc`, `black_box`, and `future`: `spawn`, `block_on`,
// `yield_now`).

/// One execution of `program`.
pub fn run(program: Program) {
    match program {
        Program::Fig02NoAssert => fig02_noassert(),
        Program::LockedCounter => locked_counter(),
        Program::LockedCounterInner => locked_counter_inner(),
        Program::MutexCounter => mutex_counter(),
        Program::FlagHandoff => flag_handoff(),
        Program::AsyncYields => async_yields(),
        Program::CornerVariable { hot, assertion } => corner_variable(hot, assertion),
    }
}

/// `fig02_c1v1.rk` without `assert(t1 == t2, ...)`: `reader` reads `a` twice, `writer` does
/// `a = a + 1`. The two reads are kept (passed to `black_box`), so the steps are the same.
fn fig02_noassert() {
    let a = Arc::new(AtomicI64::new(0));
    let reader = {
        let a = Arc::clone(&a);
        thread::spawn(move || {
            let t1 = a.load(SeqCst);
            let t2 = a.load(SeqCst);
            black_box((t1, t2));
        })
    };
    let writer = {
        let a = Arc::clone(&a);
        thread::spawn(move || {
            let value = a.load(SeqCst);
            a.store(value + 1, SeqCst);
        })
    };
    reader.join().expect("reader cannot panic");
    writer.join().expect("writer cannot panic");
}

/// `locked_counter_ok.rk`: main spawns three workers, each doing `N = 3` increments of
/// `counter` inside `sync m { ... }`, joins them and asserts `counter == 9`.
///
/// As in the `.rk` program, `counter` is a global apart from the mutex (an `AtomicI64`, not
/// data inside a `Mutex<i64>`), so each increment is lock, read, write, unlock: four scheduling
/// points, as in our engine. The mutex guards `()`.
fn locked_counter() {
    let counter = Arc::new(AtomicI64::new(0));
    let m = Arc::new(Mutex::new(()));
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let counter = Arc::clone(&counter);
            let m = Arc::clone(&m);
            thread::spawn(move || work(&m, &counter, LOCKED_COUNTER_TIMES))
        })
        .collect();
    for worker in workers {
        worker.join().expect("a worker cannot panic");
    }
    assert_eq!(
        counter.load(SeqCst),
        3 * LOCKED_COUNTER_TIMES,
        "an increment was lost"
    );
}

/// `fn work(times)` of `locked_counter_ok.rk`.
fn work(m: &Mutex<()>, counter: &AtomicI64, times: i64) {
    for _ in 0..times {
        // `sync m { counter = counter + 1; }`: the guard unlocks at the end of the block.
        let _held = m
            .lock()
            .expect("m is never poisoned: no thread panics while holding it");
        let value = counter.load(SeqCst);
        counter.store(value + 1, SeqCst);
    }
}

/// `locked_counter_ok.rk` with `counter` inside the mutex: each increment is lock, unlock.
fn locked_counter_inner() {
    let counter = Arc::new(Mutex::new(0_i64));
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let counter = Arc::clone(&counter);
            thread::spawn(move || {
                for _ in 0..LOCKED_COUNTER_TIMES {
                    *counter
                        .lock()
                        .expect("counter is never poisoned: no thread panics while holding it") +=
                        1;
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().expect("a worker cannot panic");
    }
    let total = *counter
        .lock()
        .expect("counter is never poisoned: no thread panics while holding it");
    assert_eq!(total, 3 * LOCKED_COUNTER_TIMES, "an increment was lost");
}

/// Issue 20's mutex counter: three threads each add 1 to a `Mutex<i64>` `MUTEX_COUNTER_TIMES`
/// times (lock, unlock: two scheduling points an increment); main joins them and checks the sum.
fn mutex_counter() {
    let counter = Arc::new(Mutex::new(0_i64));
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let counter = Arc::clone(&counter);
            thread::spawn(move || {
                for _ in 0..MUTEX_COUNTER_TIMES {
                    *counter
                        .lock()
                        .expect("counter is never poisoned: no thread panics while holding it") +=
                        1;
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().expect("a worker cannot panic");
    }
    let total = *counter
        .lock()
        .expect("counter is never poisoned: no thread panics while holding it");
    assert_eq!(total, 3 * MUTEX_COUNTER_TIMES, "an increment was lost");
}

/// Issue 20's flag/data handoff: a producer writes `data`, then raises `flag`; a consumer reads
/// `flag` and, when it is raised, reads `data`, which must be the producer's. Main spawns both
/// and joins them.
fn flag_handoff() {
    let data = Arc::new(AtomicI64::new(0));
    let flag = Arc::new(AtomicI64::new(0));
    let producer = {
        let (data, flag) = (Arc::clone(&data), Arc::clone(&flag));
        thread::spawn(move || {
            data.store(42, SeqCst);
            flag.store(1, SeqCst);
        })
    };
    let consumer = {
        let (data, flag) = (Arc::clone(&data), Arc::clone(&flag));
        thread::spawn(move || {
            if flag.load(SeqCst) == 1 {
                assert_eq!(data.load(SeqCst), 42, "the flag was raised before the data");
            }
        })
    };
    producer.join().expect("the producer cannot panic");
    consumer.join().expect("the consumer fails only through the execution");
}

/// `corner_variable.rk` with `HOT = hot`: both threads increment `hot` `hot` times, then
/// `reader` reads `cold` twice and asserts the reads equal, and `writer` sets `cold = 1`.
fn corner_variable(hot: u32, assertion: Assertion) {
    let hot_var = Arc::new(AtomicI64::new(0));
    let cold = Arc::new(AtomicI64::new(0));
    let reader = {
        let hot_var = Arc::clone(&hot_var);
        let cold = Arc::clone(&cold);
        thread::spawn(move || {
            increment_times(&hot_var, hot);
            let x = cold.load(SeqCst);
            let y = cold.load(SeqCst);
            match assertion {
                Assertion::Checked => assert!(x == y, "{CORNER_VARIABLE_MESSAGE}"),
                Assertion::Skipped => {
                    black_box((x, y));
                }
            }
        })
    };
    let writer = {
        let hot_var = Arc::clone(&hot_var);
        let cold = Arc::clone(&cold);
        thread::spawn(move || {
            increment_times(&hot_var, hot);
            cold.store(1, SeqCst);
        })
    };
    // A failed assertion fails the execution at once, before these joins return.
    reader
        .join()
        .expect("reader fails only through the execution");
    writer.join().expect("writer cannot panic");
}

/// `for i in 0..times { var = var + 1; }`: a read and a write per iteration.
fn increment_times(var: &AtomicI64, times: u32) {
    for _ in 0..times {
        let value = var.load(SeqCst);
        var.store(value + 1, SeqCst);
    }
}

/// Issue 23's async task switches: the test blocks on three tasks, each of which increments a
/// shared counter (a read and a write) then yields, `ASYNC_YIELDS` times; each yield is a
/// task's `Pending` and a switch.
fn async_yields() {
    let counter = Arc::new(AtomicI64::new(0));
    let total = future::block_on(async move {
        let tasks: Vec<_> = (0..3)
            .map(|_| {
                let counter = Arc::clone(&counter);
                future::spawn(async move {
                    for _ in 0..ASYNC_YIELDS {
                        let value = counter.load(SeqCst);
                        counter.store(value + 1, SeqCst);
                        future::yield_now().await;
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("a task cannot panic");
        }
        counter.load(SeqCst)
    });
    black_box(total);
}
