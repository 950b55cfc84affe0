//! The shared state of a generated program's Rust twin, in rankcheck-rt's
//! types: the vocabulary `rankcheck_generate::RustTwin`
//! documents. Every operation is one `.rk` visible operation (or, for a
//! guarded global, one critical section of the state's mutex).

use rankcheck_rt::sync::atomic::{AtomicI64, Ordering::SeqCst};
use rankcheck_rt::sync::{Arc, Condvar, Mutex, MutexGuard};
use rankcheck_rt::thread::{self, JoinHandle};

/// The shared state, as every thread function takes it.
pub type W = Arc<World>;

/// The guarded globals' values (the others' entries are unused).
#[derive(Debug)]
pub struct Vals {
    /// `g0`, `g1`, ...
    pub g: Vec<i64>,
}

/// The heap object `box` points to: a record's fields or an array's
/// elements, by slot.
#[derive(Debug)]
pub struct Heap([AtomicI64; 2]);

impl Heap {
    /// A read of slot `slot`.
    pub fn get(&self, slot: usize) -> i64 {
        self.0[slot].load(SeqCst)
    }

    /// A write of slot `slot`.
    pub fn set(&self, slot: usize, value: i64) {
        self.0[slot].store(value, SeqCst);
    }
}

/// A generated program's shared state.
#[derive(Debug)]
pub struct World {
    /// Which globals are guarded: kept in `guarded` rather than in
    /// `atomics`, because an `atomic` block or an `await` uses them.
    guards: Vec<bool>,
    /// Whether a thread awaits a condition: every write of a guarded
    /// global then notifies `written`.
    awaited: bool,
    atomics: Vec<AtomicI64>,
    guarded: Mutex<Vals>,
    /// Notified at every write of a guarded global when a thread awaits.
    written: Condvar,
    arr: [AtomicI64; 2],
    /// `box`: 0 for `null`, 1 for the heap object.
    boxed: AtomicI64,
    heap: Heap,
    /// The mutexes `m0`, `m1`.
    pub m: [Mutex<()>; 2],
    /// The condition variable `c`.
    pub c: Condvar,
}

impl World {
    /// The state with the globals' initial values, `guards` saying which
    /// are guarded, `awaited` whether a thread awaits.
    pub fn new(initial: &[i64], guards: &[bool], awaited: bool) -> W {
        Arc::new(World {
            guards: guards.to_vec(),
            awaited,
            atomics: initial.iter().map(|&v| AtomicI64::new(v)).collect(),
            guarded: Mutex::new(Vals {
                g: initial.to_vec(),
            }),
            written: Condvar::new(),
            arr: [AtomicI64::new(0), AtomicI64::new(0)],
            boxed: AtomicI64::new(0),
            heap: Heap([AtomicI64::new(0), AtomicI64::new(0)]),
            m: [Mutex::new(()), Mutex::new(())],
            c: Condvar::new(),
        })
    }

    /// A read of global `k`.
    #[track_caller]
    pub fn g(&self, k: usize) -> i64 {
        if self.guards[k] {
            self.state().g[k]
        } else {
            self.atomics[k].load(SeqCst)
        }
    }

    /// A write of global `k`.
    #[track_caller]
    pub fn set(&self, k: usize, value: i64) {
        if self.guards[k] {
            let mut st = self.state();
            st.g[k] = value;
            self.changed();
        } else {
            self.atomics[k].store(value, SeqCst);
        }
    }

    /// The guarded globals, locked: an `atomic` block.
    #[track_caller]
    pub fn state(&self) -> MutexGuard<'_, Vals> {
        self.guarded.lock().unwrap()
    }

    /// Globals were written: wake the awaiting threads to look again.
    #[track_caller]
    pub fn changed(&self) {
        if self.awaited {
            self.written.notify_all();
        }
    }

    /// `await`: block until `condition` holds of the globals.
    #[track_caller]
    pub fn await_until(&self, condition: impl Fn(&Vals) -> bool) {
        let mut st = self.state();
        while !condition(&st) {
            st = self.written.wait(st).unwrap();
        }
    }

    /// A read of `arr[i]`.
    pub fn arr(&self, i: usize) -> i64 {
        self.arr[i].load(SeqCst)
    }

    /// A write of `arr[i]`.
    pub fn set_arr(&self, i: usize, value: i64) {
        self.arr[i].store(value, SeqCst);
    }

    /// `box = new ..`: the heap object made reachable.
    pub fn set_box(&self) {
        self.boxed.store(1, SeqCst);
    }

    /// `let b = box;`: a read of `box`.
    ///
    /// # Panics
    /// When `box` is `null` (an error of the `.rk` program).
    pub fn boxed(&self) -> &Heap {
        match self.boxed.load(SeqCst) {
            0 => panic!("box is null"),
            _ => &self.heap,
        }
    }
}

/// `spawn f()`, and a `thread` item started.
pub fn spawn(cx: &W, body: fn(&W)) -> JoinHandle<()> {
    let cx = cx.clone();
    thread::spawn(move || body(&cx))
}

/// Copy `i` of a replicated thread started.
pub fn spawn_copy(cx: &W, body: fn(&W, usize), i: usize) -> JoinHandle<()> {
    let cx = cx.clone();
    thread::spawn(move || body(&cx, i))
}
