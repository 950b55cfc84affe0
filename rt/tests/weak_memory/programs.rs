//! Lock-free programs whose correctness rests on their orderings, for the
//! tests and for the weak memory benchmark (`rt/examples/weak_memory.rs`
//! includes this file): each takes the ordering that publishes and the one
//! that consumes, and is correct with `Release`/`Acquire`, wrong with
//! `Relaxed`. Its other accesses are `Relaxed`, or `SeqCst` when it
//! publishes with `SeqCst` (a SeqCst-only test).

use rankcheck::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use rankcheck::sync::Arc;
use rankcheck::thread;
use rankcheck_rt as rankcheck;

use Ordering::{Relaxed, SeqCst};

/// The ordering of the accesses that need none: `Relaxed`, or `SeqCst`
/// in a SeqCst-only run.
fn plain(publish: Ordering) -> Ordering {
    if publish == SeqCst {
        SeqCst
    } else {
        Relaxed
    }
}

/// The ring's slots.
const CAPACITY: usize = 2;

/// The items the producer sends through it.
const ITEMS: usize = 3;

/// A single-producer single-consumer ring buffer: the producer writes a
/// slot, then publishes its index with `publish`; the consumer reads the
/// index with `consume`, then the slot. With `Relaxed` the consumer may
/// see the index before the slot's item.
pub fn spsc_ring(publish: Ordering, consume: Ordering) {
    let relaxed = plain(publish);
    let slots = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
    let head = Arc::new(AtomicUsize::new(0));
    let tail = Arc::new(AtomicUsize::new(0));
    let producer = {
        let (slots, head, tail) = (slots.clone(), head.clone(), tail.clone());
        thread::spawn(move || {
            for item in 1..=ITEMS {
                let t = tail.load(relaxed);
                while t - head.load(consume) == CAPACITY {
                    thread::yield_now();
                }
                slots[t % CAPACITY].store(item, relaxed);
                tail.store(t + 1, publish);
            }
        })
    };
    for expected in 1..=ITEMS {
        let h = head.load(relaxed);
        while tail.load(consume) == h {
            thread::yield_now();
        }
        let item = slots[h % CAPACITY].load(relaxed);
        assert_eq!(item, expected, "the consumer read a slot before its item");
        head.store(h + 1, publish);
    }
    producer.join().unwrap();
}

/// A flag/data handoff: the writer stores the data, then sets the flag
/// with `publish`; the reader, seeing the flag with `consume`, reads the
/// data.
pub fn flag_handoff(publish: Ordering, consume: Ordering) {
    let relaxed = plain(publish);
    let data = Arc::new(AtomicUsize::new(0));
    let ready = Arc::new(AtomicBool::new(false));
    let writer = {
        let (data, ready) = (data.clone(), ready.clone());
        thread::spawn(move || {
            data.store(42, relaxed);
            ready.store(true, publish);
        })
    };
    if ready.load(consume) {
        assert_eq!(data.load(relaxed), 42, "the flag was seen before the data");
    }
    writer.join().unwrap();
}
