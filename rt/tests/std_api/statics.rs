//! `static` items of the replacement types: `const fn new` compiles, and
//! every run starts from the state `new` gave, whatever earlier runs did.

use rankcheck::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicUsize, Ordering::SeqCst};
use rankcheck::sync::{Barrier, Condvar, Mutex, RwLock};
use rankcheck::thread;
use rankcheck_rt as rankcheck;

use crate::support::panic_message;

static HITS: AtomicUsize = AtomicUsize::new(10);
static READY: AtomicBool = AtomicBool::new(false);
static NOTHING: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static GATE: Mutex<()> = Mutex::new(());
static WOKEN: Condvar = Condvar::new();
static TABLE: RwLock<()> = RwLock::new(());
static MEET: Barrier = Barrier::new(2);

#[test]
fn every_run_starts_from_the_statics_initial_state() {
    rankcheck::Builder::new().runs(200).seed(6).check(|| {
        // A value left by the last run would show here.
        assert_eq!(HITS.load(SeqCst), 10);
        assert!(!READY.load(SeqCst));
        assert!(NOTHING.load(SeqCst).is_null());
        let child = thread::spawn(|| {
            MEET.wait();
            HITS.fetch_add(1, SeqCst);
            let _read = TABLE.read().unwrap();
            let _g = GATE.lock().unwrap();
            READY.store(true, SeqCst);
            WOKEN.notify_one();
        });
        // A barrier that kept an arrival from the last run would let this
        // wait through alone, or never.
        MEET.wait();
        HITS.fetch_add(1, SeqCst);
        {
            let mut g = GATE.lock().unwrap();
            while !READY.load(SeqCst) {
                g = WOKEN.wait(g).unwrap();
            }
        }
        let _write = TABLE.write().unwrap();
        child.join().unwrap();
        NOTHING.store(std::ptr::dangling_mut(), SeqCst);
        assert_eq!(HITS.load(SeqCst), 12);
    });
}

static FIRST: Mutex<()> = Mutex::new(());
static SECOND: Mutex<()> = Mutex::new(());

#[test]
fn a_lock_order_inversion_on_statics_is_found() {
    // Each run releases both locks or deadlocks: a lock held when the
    // last run ended would make every later run deadlock at once.
    let message = panic_message(|| {
        rankcheck::Builder::new().runs(500).seed(12).check(|| {
            let other = thread::spawn(|| {
                let _b = SECOND.lock().unwrap();
                let _a = FIRST.lock().unwrap();
            });
            {
                let _a = FIRST.lock().unwrap();
                let _b = SECOND.lock().unwrap();
            }
            other.join().unwrap();
        });
    })
    .expect("the inversion deadlocks in some run");
    assert!(message.contains("deadlock"), "{message}");
    assert!(
        message.contains("FIRST") && message.contains("SECOND"),
        "named by their statics: {message}"
    );
}

static TOTAL: AtomicI32 = AtomicI32::new(0);

#[test]
fn a_static_is_the_same_variable_in_every_run() {
    // Whichever thread touches the static first in a run, it is one
    // variable over the whole test: the profile counts Q = 1.
    let json = std::env::temp_dir().join(format!("rankcheck-static-q-{}.json", std::process::id()));
    rankcheck::Builder::new()
        .runs(50)
        .seed(3)
        .json(&json)
        .check(|| {
            let other = thread::spawn(|| TOTAL.fetch_add(1, SeqCst));
            // A point before main's first touch: the child may come first.
            thread::yield_now();
            TOTAL.fetch_add(1, SeqCst);
            other.join().unwrap();
            assert_eq!(TOTAL.load(SeqCst), 2);
        });
    let text = std::fs::read_to_string(&json).unwrap();
    let _ = std::fs::remove_file(&json);
    let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(summary["Q"], 1, "{text}");
}

static LOG: Mutex<Vec<u32>> = Mutex::new(Vec::new());

#[test]
fn a_static_lock_whose_data_a_run_changed_is_refused_in_the_next() {
    let message = panic_message(|| {
        rankcheck::Builder::new().runs(10).seed(1).check(|| {
            LOG.lock().unwrap().push(1);
        });
    })
    .expect("refused");
    assert!(message.contains("would leak into this run"), "{message}");
    assert!(message.contains("LazyLock"), "{message}");
}
