//! The atomics are one word, as loom 0.7's (`rt::Atomic<T>`: an index into
//! the execution's objects), so that a crate asserting its layout in a
//! `const` builds (arcstr 1.2.0's `ThinInner`); and what the word changes
//! keeps loom's behaviour: `new` outside a model, `into_inner`, a dropped
//! atomic, one (wrongly) kept for a later execution, zeroed memory, and
//! no destructor (a drop of uninitialised memory frees nothing).

#![allow(unsafe_code)]

use std::alloc::{alloc, dealloc, Layout};
use std::mem::{align_of, size_of};
use std::ptr::{addr_of, addr_of_mut};

use crate::loom;
use crate::support::panic_message;
use loom::sync::atomic::{
    AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicIsize, AtomicPtr, AtomicU16,
    AtomicU32, AtomicU64, AtomicU8, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release, SeqCst},
};
use loom::sync::Arc;
use loom::thread;

/// Whether `T` has loom's size and alignment: one `usize`.
const fn one_word<T>() -> bool {
    size_of::<T>() == size_of::<usize>() && align_of::<T>() == align_of::<usize>()
}

// In `const` items, as crates assert it: these fail the build otherwise.
const _: () = assert!(one_word::<AtomicBool>());
const _: () = assert!(one_word::<AtomicU8>());
const _: () = assert!(one_word::<AtomicU16>());
const _: () = assert!(one_word::<AtomicU32>());
const _: () = assert!(one_word::<AtomicU64>());
const _: () = assert!(one_word::<AtomicUsize>());
const _: () = assert!(one_word::<AtomicI8>());
const _: () = assert!(one_word::<AtomicI16>());
const _: () = assert!(one_word::<AtomicI32>());
const _: () = assert!(one_word::<AtomicI64>());
const _: () = assert!(one_word::<AtomicIsize>());
const _: () = assert!(one_word::<AtomicPtr<u8>>());
const _: () = assert!(one_word::<AtomicPtr<[u64; 4]>>());

#[test]
fn every_atomic_is_one_word_as_loom_s() {
    let sizes = [
        (size_of::<AtomicBool>(), align_of::<AtomicBool>()),
        (size_of::<AtomicU8>(), align_of::<AtomicU8>()),
        (size_of::<AtomicU16>(), align_of::<AtomicU16>()),
        (size_of::<AtomicU32>(), align_of::<AtomicU32>()),
        (size_of::<AtomicU64>(), align_of::<AtomicU64>()),
        (size_of::<AtomicUsize>(), align_of::<AtomicUsize>()),
        (size_of::<AtomicI8>(), align_of::<AtomicI8>()),
        (size_of::<AtomicI16>(), align_of::<AtomicI16>()),
        (size_of::<AtomicI32>(), align_of::<AtomicI32>()),
        (size_of::<AtomicI64>(), align_of::<AtomicI64>()),
        (size_of::<AtomicIsize>(), align_of::<AtomicIsize>()),
        (
            size_of::<AtomicPtr<String>>(),
            align_of::<AtomicPtr<String>>(),
        ),
    ];
    for (size, align) in sizes {
        assert_eq!((size, align), (size_of::<usize>(), align_of::<usize>()));
    }
}

/// arcstr 1.2.0's header (`src/arc_str.rs`): a length, loom's
/// `AtomicUsize` as the count, the string's bytes after them.
#[repr(C, align(8))]
struct ThinInner {
    len_flag: usize,
    count_flag: AtomicUsize,
    data: [u8; 0],
}

// arcstr's own assertions, as written there (src/arc_str.rs:1118-1123).
const _: [(); size_of::<ThinInner>()] = [(); 2 * size_of::<usize>()];
const _: [(); align_of::<ThinInner>()] = [(); 8];
const _: [(); align_of::<AtomicUsize>()] = [(); align_of::<usize>()];
const _: [(); align_of::<AtomicUsize>()] = [(); size_of::<usize>()];
const _: [(); size_of::<AtomicUsize>()] = [(); size_of::<usize>()];

/// A `ThinInner` as arcstr makes one: raw memory, the count written into
/// it with `ptr::write`.
fn allocate(text: &str) -> *mut ThinInner {
    let layout = Layout::from_size_align(size_of::<ThinInner>() + text.len(), 8).unwrap();
    unsafe {
        let inner = alloc(layout).cast::<ThinInner>();
        assert!(!inner.is_null());
        addr_of_mut!((*inner).len_flag).write(text.len());
        addr_of_mut!((*inner).count_flag).write(AtomicUsize::new(1));
        let data = addr_of_mut!((*inner).data).cast::<u8>();
        std::ptr::copy_nonoverlapping(text.as_ptr(), data, text.len());
        inner
    }
}

/// Frees a `ThinInner` as arcstr does: the count dropped in place, the
/// memory given back.
unsafe fn free(inner: *mut ThinInner) {
    unsafe {
        let len = (*inner).len_flag;
        std::ptr::drop_in_place(addr_of_mut!((*inner).count_flag));
        let layout = Layout::from_size_align(size_of::<ThinInner>() + len, 8).unwrap();
        dealloc(inner.cast(), layout);
    }
}

/// A shared pointer to a `ThinInner`, as an `ArcStr`.
struct Shared(*mut ThinInner);

// SAFETY: the count is atomic and the bytes are never written after
// `allocate`.
unsafe impl Send for Shared {}

impl Shared {
    fn count(&self) -> &AtomicUsize {
        unsafe { &*addr_of!((*self.0).count_flag) }
    }

    fn text(&self) -> &str {
        unsafe {
            let data = addr_of!((*self.0).data).cast::<u8>();
            std::str::from_utf8(std::slice::from_raw_parts(data, (*self.0).len_flag)).unwrap()
        }
    }

    fn share(&self) -> Shared {
        self.count().fetch_add(1, Relaxed);
        Shared(self.0)
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        if self.count().fetch_sub(1, Release) == 1 {
            loom::sync::atomic::fence(Acquire);
            unsafe { free(self.0) };
        }
    }
}

#[test]
fn arcstr_s_header_holds_a_working_count() {
    loom::model(|| {
        let first = Shared(allocate("abcdefgh"));
        let second = first.share();
        let other = thread::spawn(move || {
            assert_eq!(second.text(), "abcdefgh");
            drop(second);
        });
        assert_eq!(first.text(), "abcdefgh");
        drop(first);
        other.join().unwrap();
    });
}

#[test]
fn new_outside_a_model_panics_naming_the_misuse_as_loom_s_does() {
    let outside = [
        panic_message(|| _ = AtomicUsize::new(0)),
        panic_message(|| _ = AtomicBool::default()),
        panic_message(|| _ = AtomicPtr::<u8>::from(std::ptr::null_mut())),
    ];
    for message in outside {
        let message = message.expect("new panics outside a model");
        assert!(message.contains("outside a loom model"), "{message}");
        assert!(message.contains("loom::lazy_static!"), "{message}");
    }
}

#[test]
fn std_s_methods_reach_the_value_behind_the_word() {
    loom::model(|| {
        let mut count = AtomicU8::new(1);
        *count.get_mut() += 1;
        assert_eq!(count.load(SeqCst), 2);
        count.with_mut(|value| *value += 1);
        assert_eq!(unsafe { *count.as_ptr() }, 3);
        assert_eq!(format!("{count:?}"), "3");
        let mut target = 5_u32;
        let pointer = AtomicPtr::new(std::ptr::from_mut(&mut target));
        assert_eq!(unsafe { *pointer.load(Acquire) }, 5);
        assert_eq!(
            format!("{pointer:p}"),
            format!("{:p}", std::ptr::from_mut(&mut target))
        );
    });
}

#[test]
fn into_inner_is_the_latest_value_once_the_other_thread_is_joined() {
    loom::model(|| {
        let count = Arc::new(AtomicUsize::new(0));
        let other = {
            let count = count.clone();
            thread::spawn(move || count.store(1, Relaxed))
        };
        other.join().unwrap();
        let count = Arc::try_unwrap(count).unwrap_or_else(|_| panic!("the last Arc"));
        assert_eq!(count.into_inner(), 1);
    });
}

/// A thread stores to the atomic, gives up its share of a std `Arc` (whose
/// count the model does not see) and raises a flag with `flag_order`; the
/// main thread, seeing the flag, takes the atomic and consumes it.
fn consumed_after_flag(flag_order: (std::sync::atomic::Ordering, std::sync::atomic::Ordering)) {
    let (raise, see) = flag_order;
    let count = std::sync::Arc::new(AtomicUsize::new(0));
    let flag = Arc::new(AtomicBool::new(false));
    let other = {
        let (count, flag) = (count.clone(), flag.clone());
        thread::spawn(move || {
            count.store(1, Relaxed);
            drop(count);
            flag.store(true, raise);
        })
    };
    if flag.load(see) {
        let count = std::sync::Arc::try_unwrap(count).unwrap_or_else(|_| panic!("dropped"));
        assert_eq!(count.into_inner(), 1);
    }
    other.join().unwrap();
}

#[test]
fn into_inner_is_loom_s_unsync_load() {
    // Release and Acquire order the store before the load: no race.
    loom::model(|| consumed_after_flag((Release, Acquire)));
    // Relaxed does not: the exploration reaches the race, as loom's.
    let report = panic_message(|| loom::model(|| consumed_after_flag((Relaxed, Relaxed))))
        .expect("the model fails");
    assert!(
        report.starts_with(
            "error[panic]: Causality violation: Concurrent `unsync_load` and atomic store"
        ),
        "{report}"
    );
}

#[test]
fn a_dropped_atomic_leaves_nothing_to_a_later_one() {
    loom::model(|| {
        for round in 0..4 {
            let count = AtomicUsize::new(round);
            assert_eq!(count.fetch_add(10, SeqCst), round);
        }
    });
}

/// A run's atomics share chunks of memory reused by the next run: many
/// atomics of mixed sizes, over several chunks and several runs, each keep
/// their own value, and a pointer taken early still reaches its atomic
/// after hundreds more were made.
#[test]
fn hundreds_of_atomics_a_run_keep_their_own_values_run_after_run() {
    loom::model(|| {
        let first = AtomicU64::new(u64::MAX);
        let early = first.as_ptr();
        let mut words = Vec::new();
        let mut bytes = Vec::new();
        for i in 0..300 {
            words.push(AtomicUsize::new(i));
            bytes.push(AtomicU8::new((i % 251) as u8));
        }
        let t = thread::spawn(|| ());
        for (i, (word, byte)) in words.iter().zip(&bytes).enumerate() {
            assert_eq!(word.fetch_add(1, Relaxed), i);
            assert_eq!(byte.load(Relaxed), (i % 251) as u8);
        }
        // SAFETY: `first` lives to the end of the closure; the pointer is
        // std's `as_ptr`, read with no other thread touching it.
        assert_eq!(unsafe { *early }, u64::MAX);
        t.join().unwrap();
    });
}

#[test]
fn an_atomic_kept_for_a_later_execution_panics_naming_the_misuse() {
    // A misuse (loom's would index another execution's objects): an
    // atomic made in the first run and kept past it. Its run's slots are
    // freed when the next run makes an atomic; the word is checked first.
    static KEPT: std::sync::OnceLock<&'static AtomicUsize> = std::sync::OnceLock::new();
    let report = panic_message(|| {
        rankcheck_rt::Builder::new().runs(3).seed(1).check(|| {
            let kept = KEPT.get_or_init(|| Box::leak(Box::new(AtomicUsize::new(7))));
            let _fresh = AtomicUsize::new(1);
            assert_eq!(kept.swap(8, SeqCst), 7, "the first run's own value");
        });
    })
    .expect("the second run fails");
    assert!(
        report.contains("this AtomicUsize was made in an earlier execution of the model"),
        "{report}"
    );
    assert_eq!(
        format!("{:?}", KEPT.get().expect("kept")),
        "<outside the model>"
    );
}

/// nexosim 1.0.0's `spawn` (src/executor/task.rs:354) assigns its task,
/// which holds an atomic, into fresh `alloc` memory with `*ptr = task;`,
/// which first drops the uninitialised "old value" there: undefined
/// behaviour that loom's atomics (indexes, no destructor) survive. Here,
/// too, that drop frees nothing, whether the memory holds garbage or (the
/// allocator handing the same block back) an earlier task's atomic.
#[test]
fn assigning_over_uninitialised_memory_drops_no_atomic() {
    struct Task {
        state: AtomicU64,
        tag: u64,
    }
    loom::model(|| {
        let layout = Layout::new::<Task>();
        for round in 0..3 {
            unsafe {
                let task = alloc(layout).cast::<Task>();
                assert!(!task.is_null());
                if round == 0 {
                    task.cast::<u8>().write_bytes(0xA5, layout.size());
                }
                *task = Task {
                    state: AtomicU64::new(round),
                    tag: round,
                };
                assert_eq!((*task).state.fetch_add(1, SeqCst), (*task).tag);
                std::ptr::drop_in_place(task);
                dealloc(task.cast(), layout);
            }
        }
    });
}

#[test]
fn zeroed_memory_is_no_atomic() {
    // SAFETY: the word is an integer; zero names no slot.
    let zeroed: AtomicUsize = unsafe { std::mem::zeroed() };
    assert_eq!(format!("{zeroed:?}"), "<zeroed>");
    let message = panic_message(|| {
        zeroed.load(SeqCst);
    })
    .expect("the operation panics");
    assert!(
        message.contains("was not made by AtomicUsize::new"),
        "{message}"
    );
}

#[test]
fn a_report_names_the_atomic_as_the_source_does_at_its_new() {
    let report = panic_message(|| loom::model(crate::lost_update)).expect("the model fails");
    // `let count = Arc::new(AtomicUsize::new(0))`: the binding at the site
    // of `new`.
    assert!(report.contains("write count"), "{report}");
}

/// crossbeam-epoch's call on its loom atomics (crossbeam-utils's
/// `AtomicConsume`, which it implements for real loom's types only): an
/// `Acquire` load here, so a pointer published with `Release` carries the
/// data written before it, and the model finds no race.
#[test]
fn load_consume_is_crossbeam_s_acquire_load() {
    loom::model(|| {
        let cell = Arc::new(loom::cell::UnsafeCell::new(0_u32));
        let ready = Arc::new(AtomicUsize::new(0));
        let writer = {
            let (cell, ready) = (cell.clone(), ready.clone());
            thread::spawn(move || {
                cell.with_mut(|value| unsafe { *value = 7 });
                ready.store(1, Release);
            })
        };
        if ready.load_consume() == 1 {
            assert_eq!(cell.with(|value| unsafe { *value }), 7);
        }
        writer.join().unwrap();
        assert!(AtomicPtr::<u8>::default().load_consume().is_null());
    });
}

/// A weak compare-exchange that should succeed, relied on as if strong.
fn a_weak_exchange_taken_as_strong() {
    let flag = AtomicUsize::new(0);
    let result = flag.compare_exchange_weak(0, 1, SeqCst, Relaxed);
    assert!(
        result.is_ok(),
        "the weak compare-exchange failed spuriously"
    );
}

#[test]
fn a_weak_compare_exchange_fails_spuriously_only_when_asked() {
    // As loom's: every weak compare-exchange that would succeed does.
    loom::model(a_weak_exchange_taken_as_strong);
    let mut builder = loom::model::Builder::new();
    builder.spurious_cas_failures = true;
    let report = panic_message(|| builder.check(a_weak_exchange_taken_as_strong))
        .expect("a spurious failure is explored");
    assert!(
        report.contains("failed spuriously") && report.contains("replay:"),
        "{report}"
    );
}
