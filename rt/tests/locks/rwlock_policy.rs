//! std leaves `RwLock`'s policy to the platform: a read asked for while a
//! writer waits may go ahead or wait behind the writer (Linux). Both are
//! explored.

use rankcheck::sync::{Arc, RwLock};
use rankcheck::thread;
use rankcheck_rt as rankcheck;

/// shuttle's `async_match_deadlock`, with threads: a read guard held
/// while a writer comes to wait, then a second read by the same thread.
/// Under a writer-preferring lock the second read waits for the writer,
/// which waits for the first read: a deadlock.
fn second_read_while_a_writer_waits() {
    let lock = Arc::new(RwLock::new(0));
    let first = lock.read().unwrap();
    let writer = {
        let lock = lock.clone();
        thread::spawn(move || *lock.write().unwrap() += 1)
    };
    let second = lock.read().unwrap();
    assert_eq!(*first + *second, 0);
    drop((first, second));
    writer.join().unwrap();
}

#[test]
fn a_second_read_behind_a_waiting_writer_is_found_as_a_deadlock() {
    let explored = rankcheck::explore(second_read_while_a_writer_waits, 10_000, 1_000);
    assert!(explored.complete);
    let kinds: Vec<_> = explored.failures.iter().map(|f| f.kind).collect();
    assert_eq!(kinds, ["deadlock"], "{:?}", explored.failures);
    let message = &explored.failures.iter().next().unwrap().message;
    assert!(message.contains("prefers writers"), "{message}");
    let found = crate::support::panic_message(|| {
        rankcheck::Builder::new()
            .runs(2_000)
            .seed(1)
            .check(second_read_while_a_writer_waits);
    })
    .expect("the search finds the deadlock");
    assert!(found.contains("prefers writers"), "{found}");
}

#[test]
fn a_read_while_a_writer_waits_may_go_ahead_of_it_or_wait_behind_it() {
    // The writer is made to wait by a read held by main; then a reader
    // comes. Ahead of the writer, the reader sees 0; behind it, 1.
    let seen = Arc::new(std::sync::Mutex::new(std::collections::BTreeSet::new()));
    let record = seen.clone();
    let explored = rankcheck::explore(
        move || {
            let lock = Arc::new(RwLock::new(0));
            let held = lock.read().unwrap();
            let writer = {
                let lock = lock.clone();
                thread::spawn(move || *lock.write().unwrap() = 1)
            };
            let reader = {
                let lock = lock.clone();
                thread::spawn(move || *lock.read().unwrap())
            };
            thread::yield_now();
            drop(held);
            writer.join().unwrap();
            let value = reader.join().unwrap();
            record.lock().unwrap().insert(value);
        },
        100_000,
        1_000,
    );
    assert!(explored.complete);
    assert!(explored.failures.is_empty(), "{:?}", explored.failures);
    assert_eq!(*seen.lock().unwrap(), [0, 1].into_iter().collect());
}
