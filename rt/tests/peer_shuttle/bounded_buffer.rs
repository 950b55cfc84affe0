//! Ported from awslabs/shuttle 0.9.9, `tests/demo/bounded_buffer.rs`
//! (Apache-2.0; shuttle's port of Coyote's bounded-buffer demo).
//! Changed: shuttle's types to rankcheck's; `check_random` to the helper
//! in `main.rs`; `test_bounded_buffer_trivial` runs 200 runs, not 1000;
//! `test_bounded_buffer_find_deadlock_configuration` tries a fixed list of
//! configurations (shuttle draws them from its own `rand`); the replay
//! test replays the string rankcheck's report gives (see it).
//! Skipped: none.

use rankcheck::sync::{Arc, Condvar, Mutex};
use rankcheck::thread;
use rankcheck_rt as rankcheck;

use crate::check_random;
use crate::support::panic_message;

/// Let’s walk through how Coyote can easily solve the programming problem posed by Tom Cargill. He
/// shared a BoundedBuffer implementation written in Java with a known, but tricky, deadlock bug.
///
/// The BoundedBuffer implements a buffer of fixed length with concurrent writers adding items to
/// the buffer and readers consuming items from the buffer. The readers wait if there are no items
/// in the buffer and writers wait if the buffer is full, resuming only once a slot has been
/// consumed by a reader. This is also known as a producer/consumer queue.
///
/// The concrete ask was for the community to find a particular bug that Cargill knew about in the
/// above program. The meta-ask was to come up with a methodology for catching such bugs rapidly.
// Unlike in the C# and Java code, Rust doesn't have monitors. But a monitor is just a Mutex and a
// Condvar anyway, so we implement it that way instead. Some of this code is not idiomatic Rust,
// but is written this way to match the C# code more closely.
#[derive(Clone)]
struct BoundedBuffer<T: Copy> {
    inner: Arc<Mutex<Inner<T>>>,
    cond: Arc<Condvar>,
}

struct Inner<T: Copy> {
    buffer: Box<[T]>,
    buffer_size: usize,
    put_at: usize,
    take_at: usize,
    occupied: usize,
}

impl<T: Copy + Default> BoundedBuffer<T> {
    fn new(buffer_size: usize) -> Self {
        let inner = Inner {
            buffer: vec![T::default(); buffer_size].into_boxed_slice(),
            buffer_size,
            put_at: 0,
            take_at: 0,
            occupied: 0,
        };

        BoundedBuffer {
            inner: Arc::new(Mutex::new(inner)),
            cond: Arc::new(Condvar::new()),
        }
    }

    fn put(&self, x: T) {
        let mut this = self.inner.lock().unwrap();
        while this.occupied == this.buffer_size {
            this = self.cond.wait(this).unwrap();
        }

        this.occupied += 1;
        this.put_at %= this.buffer_size;
        let put_at = this.put_at;
        this.buffer[put_at] = x;
        this.put_at += 1;

        self.cond.notify_one();
    }

    fn take(&self) -> T {
        let mut this = self.inner.lock().unwrap();
        while this.occupied == 0 {
            this = self.cond.wait(this).unwrap();
        }

        this.occupied -= 1;
        this.take_at %= this.buffer_size;
        let result = this.buffer[this.take_at];
        this.take_at += 1;

        self.cond.notify_one();

        result
    }
}

fn reader(buffer: BoundedBuffer<usize>, iterations: usize) {
    for _ in 0..iterations {
        let _ = buffer.take();
    }
}

fn writer(buffer: BoundedBuffer<usize>, iterations: usize) {
    for i in 0..iterations {
        buffer.put(i);
    }
}

/// We’ll now write a small test driver program, which Coyote can use to find the bug.
///
/// The first test you write might look like this. Here we setup two tasks. First is a reader
/// calling Take and the other is a Writer calling Put.
///
/// Clearly, we have to Put the same number of items as we Take.
///
/// Otherwise, there will be a trivial deadlock waiting for more items.
///
/// We have matched both in this test with 10 iterations of each Put and Take. We find no deadlock
/// when we run the test above, despite Coyote systematically exploring different possible
/// interleavings between the Put and Take calls.
#[test]
fn test_bounded_buffer_trivial() {
    check_random(
        || {
            let buffer = BoundedBuffer::new(1);

            let reader = {
                let buffer = buffer.clone();
                thread::spawn(move || reader(buffer, 10))
            };

            let writer = {
                let buffer = buffer.clone();
                thread::spawn(move || writer(buffer, 10))
            };

            reader.join().unwrap();
            writer.join().unwrap();
        },
        200,
    )
}

/// Shuttle draws the configuration from its scheduler-controlled `rand`;
/// rankcheck has none, so the port tries a fixed list of configurations
/// (buffer size, readers, writers, iterations), the deadlocking one last.
#[test]
#[should_panic(expected = "deadlock")]
fn test_bounded_buffer_find_deadlock_configuration() {
    for (buffer_size, readers, writers, iterations) in [(3, 1, 1, 4), (2, 2, 2, 3), (1, 2, 1, 3)] {
        check_random(
            move || {
                let total_iterations = iterations * readers;
                let writer_iterations = total_iterations / writers;
                let remainder = total_iterations % writers;
                let buffer = BoundedBuffer::new(buffer_size);
                let mut tasks = vec![];
                for _ in 0..readers {
                    let buffer = buffer.clone();
                    tasks.push(thread::spawn(move || reader(buffer, iterations)));
                }
                for i in 0..writers {
                    let buffer = buffer.clone();
                    let mut w = writer_iterations;
                    if i == writers - 1 {
                        w += remainder;
                    }
                    tasks.push(thread::spawn(move || writer(buffer, w)));
                }
                for task in tasks {
                    task.join().unwrap();
                }
            },
            300,
        )
    }
}

/// Indeed, we now see clearly that there is a minimal test with two readers and one writer. We also
/// see all these deadlocks can be found with a buffer size of one and a small number of iterations.
#[allow(clippy::vec_init_then_push)]
fn bounded_buffer_minimal() {
    let buffer = BoundedBuffer::new(1);

    let mut tasks = vec![];

    tasks.push({
        let buffer = buffer.clone();
        thread::spawn(move || reader(buffer, 5))
    });

    tasks.push({
        let buffer = buffer.clone();
        thread::spawn(move || reader(buffer, 5))
    });

    tasks.push({
        let buffer = buffer.clone();
        thread::spawn(move || writer(buffer, 10))
    });

    for task in tasks {
        task.join().unwrap();
    }
}

/// Now we can write the minimal test. We’ll use 10 iterations just to be sure it deadlocks often.
#[test]
#[should_panic(expected = "deadlock")]
fn test_bounded_buffer_minimal_deadlock() {
    check_random(bounded_buffer_minimal, 1000)
}

/// Shuttle replays a schedule string it printed; rankcheck's differ, so
/// the port takes the replay string from the failure's report and replays
/// it, as a user would.
#[test]
#[should_panic(expected = "deadlock")]
fn test_bounded_buffer_minimal_deadlock_replay() {
    let report = panic_message(|| check_random(bounded_buffer_minimal, 1000))
        .expect("the search found no failure");
    let start = report
        .find("rankcheck::replay(test, \"")
        .expect("a replay string")
        + 25;
    let end = start + report[start..].find('"').unwrap();
    rankcheck::replay(bounded_buffer_minimal, &report[start..end]);
}
