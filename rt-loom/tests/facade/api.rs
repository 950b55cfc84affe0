//! loom 0.7's public API, item by item (its `src/` at tag v0.7.2): each
//! function pinned to loom's signature (a coercion to a `fn` pointer of
//! loom's type), each type's trait impls asked for, so that a crate
//! written against loom compiles here; and what each does, run in a
//! model. The table in the user guide (`docs/guide/src/rust/loom.md`)
//! says how each behaves.

#![allow(unsafe_code)]

use std::future::poll_fn;
use std::hash::Hash;
use std::path::PathBuf;
use std::sync::{LockResult, TryLockResult};
use std::task::Poll;
use std::time::Duration;

use crate::loom;
use crate::support::panic_message;
use loom::alloc::{Layout, Track};
use loom::cell::{Cell, ConstPtr, MutPtr, UnsafeCell};
use loom::future::AtomicWaker;
use loom::sync::atomic::{
    AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicIsize, AtomicPtr, AtomicU16,
    AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
};
use loom::sync::{
    mpsc, Arc, Barrier, Condvar, Mutex, MutexGuard, Notify, RwLock, RwLockReadGuard,
    RwLockWriteGuard, WaitTimeoutResult,
};
use loom::thread::{self, AccessError, JoinHandle, LocalKey, Thread, ThreadId};

fn send_sync<T: Send + Sync>() {}
fn debug<T: std::fmt::Debug>() {}
fn default<T: Default>() {}

#[test]
fn the_crate_root_and_model() {
    let _: usize = loom::MAX_THREADS;
    let _: fn() = loom::explore;
    let _: fn() = loom::stop_exploring;
    let _: fn() = loom::skip_branch;
    let _: fn(fn()) = loom::model::<fn()>;
    let _: fn(fn()) = loom::model::model::<fn()>;
    let mut builder = loom::model::Builder::new();
    let _: &mut loom::model::Builder = builder.checkpoint_file("unused.json");
    let loom::model::Builder {
        max_threads,
        max_branches,
        max_permutations,
        max_duration,
        preemption_bound,
        checkpoint_file,
        checkpoint_interval,
        expect_explicit_explore,
        location,
        log,
        ..
    } = &builder;
    let _: (&usize, &usize, &Option<usize>) = (max_threads, max_branches, max_permutations);
    let _: (&Option<Duration>, &Option<usize>) = (max_duration, preemption_bound);
    let _: (&Option<PathBuf>, &usize) = (checkpoint_file, checkpoint_interval);
    let _: (&bool, &bool, &bool) = (expect_explicit_explore, location, log);
    default::<loom::model::Builder>();
    debug::<loom::model::Builder>();
    builder.check(|| {});
}

#[test]
fn alloc_passes_through_to_std_s_allocator() {
    let _: unsafe fn(Layout) -> *mut u8 = loom::alloc::alloc;
    let _: unsafe fn(Layout) -> *mut u8 = loom::alloc::alloc_zeroed;
    let _: unsafe fn(*mut u8, Layout) = loom::alloc::dealloc;
    debug::<Track<u8>>();
    loom::model(|| {
        let layout = Layout::new::<[u64; 4]>();
        unsafe {
            let zeroed = loom::alloc::alloc_zeroed(layout).cast::<[u64; 4]>();
            assert_eq!(*zeroed, [0; 4]);
            let plain = loom::alloc::alloc(layout).cast::<[u64; 4]>();
            plain.write([1, 2, 3, 4]);
            assert_eq!((*plain)[3], 4);
            loom::alloc::dealloc(zeroed.cast(), layout);
            loom::alloc::dealloc(plain.cast(), layout);
        }
        let mut tracked = Track::new(vec![1]);
        tracked.get_mut().push(2);
        assert_eq!(tracked.get_ref(), &[1, 2]);
        assert_eq!(tracked.into_inner(), [1, 2]);
    });
}

#[test]
fn cells_are_loom_s() {
    default::<UnsafeCell<u8>>();
    default::<Cell<u8>>();
    debug::<UnsafeCell<u8>>();
    debug::<ConstPtr<u8>>();
    debug::<MutPtr<u8>>();
    debug::<Cell<u8>>();
    fn ord<T: Ord + Clone>() {}
    ord::<Cell<u8>>();
    loom::model(|| {
        let cell = UnsafeCell::from(1);
        cell.with_mut(|data| unsafe { *data += 1 });
        assert_eq!(cell.with(|data| unsafe { *data }), 2);
        let read: ConstPtr<i32> = cell.get();
        assert_eq!(unsafe { *read.deref() }, 2);
        assert_eq!(read.with(|data| unsafe { *data }), 2);
        drop(read);
        let write: MutPtr<i32> = cell.get_mut();
        unsafe { *write.deref() = 3 };
        write.with(|data| unsafe { *data += 1 });
        drop(write);
        assert_eq!(cell.into_inner(), 4);

        let (one, two) = (Cell::from(1), Cell::new(2));
        assert!(one < two && one.clone() == Cell::new(1));
        one.swap(&two);
        assert_eq!((one.get(), two.replace(5), two.take()), (2, 1, 5));
        one.set(7);
        assert_eq!(one.into_inner(), 7);
    });
}

#[test]
fn future_is_built_without_a_feature() {
    default::<AtomicWaker>();
    debug::<AtomicWaker>();
    loom::model(|| {
        let waker = AtomicWaker::new();
        assert_eq!(loom::future::block_on(async { 1 }), 1);
        loom::future::block_on(poll_fn(|cx| {
            waker.register(cx.waker().clone());
            Poll::Ready(())
        }));
        assert!(waker.take_waker().is_some());
        waker.wake();
    });
}

#[test]
fn hints_yield_and_unreachable_unchecked_panics() {
    let _: fn() = loom::hint::spin_loop;
    let _: unsafe fn() -> ! = loom::hint::unreachable_unchecked;
    let message = panic_message(|| loom::model(|| unsafe { loom::hint::unreachable_unchecked() }));
    assert!(
        message.is_some_and(|m| m.contains("unreachable_unchecked was reached")),
        "it fails the model"
    );
}

loom::thread_local! {
    static LOCAL: u8 = 1;
}

#[test]
fn lazy_static_s_module_names_the_thread_local_error() {
    let _: fn() = loom::lazy_static::yield_now;
    let _: fn() -> bool = loom::lazy_static::panicking;
    fn same(error: loom::lazy_static::AccessError) -> thread::AccessError {
        error
    }
    debug::<AccessError>();
    let _ = same;
    let _: &LocalKey<u8> = &LOCAL;
    loom::model(|| {
        let read: Result<u8, loom::lazy_static::AccessError> = LOCAL.try_with(|v| *v);
        assert_eq!(read.map_err(|e| e.to_string()), Ok(1));
        assert_eq!(LOCAL.with(|v| *v), 1);
    });
}

loom::lazy_static! {
    static ref STATIC: Mutex<u8> = Mutex::new(1);
    pub(crate) static ref PUBLIC: u8 = 2;
}

#[test]
fn lazy_static_takes_loom_s_forms() {
    loom::model(|| {
        *STATIC.lock().unwrap() += *PUBLIC;
        assert_eq!(*STATIC.lock().unwrap(), 3, "built again in every execution");
    });
}

#[test]
fn locks_and_condvars_are_loom_s() {
    send_sync::<Mutex<u8>>();
    send_sync::<RwLock<u8>>();
    send_sync::<Condvar>();
    send_sync::<Notify>();
    send_sync::<Barrier>();
    default::<Mutex<u8>>();
    default::<RwLock<u8>>();
    default::<Condvar>();
    default::<Notify>();
    debug::<Mutex<u8>>();
    debug::<MutexGuard<'static, u8>>();
    debug::<RwLock<u8>>();
    debug::<RwLockReadGuard<'static, u8>>();
    debug::<RwLockWriteGuard<'static, u8>>();
    debug::<Condvar>();
    debug::<WaitTimeoutResult>();
    debug::<Notify>();
    debug::<Barrier>();
    loom::model(|| {
        let mut mutex = Mutex::from(1);
        let guard: LockResult<MutexGuard<'_, i32>> = mutex.lock();
        drop(guard);
        let tried: TryLockResult<MutexGuard<'_, i32>> = mutex.try_lock();
        drop(tried);
        *mutex.get_mut().unwrap() += 1;
        assert_eq!(mutex.into_inner().unwrap(), 2);

        let mut lock = RwLock::from(1);
        assert_eq!(*lock.read().unwrap() + *lock.try_read().unwrap(), 2);
        *lock.write().unwrap() += 1;
        *lock.try_write().unwrap() += 1;
        *lock.get_mut().unwrap() += 1;
        assert_eq!(lock.into_inner().unwrap(), 4);

        let (mutex, condvar) = (Mutex::new(false), Condvar::new());
        let (guard, waited) = condvar
            .wait_timeout(mutex.lock().unwrap(), Duration::from_secs(1))
            .unwrap();
        assert!(waited.timed_out(), "no other thread: the wait times out");
        drop(guard);
        condvar.notify_one();
        condvar.notify_all();
        assert!(Barrier::new(1).wait().is_leader());
    });
}

#[test]
fn channels_are_loom_s() {
    loom::model(|| {
        let (sender, receiver): (mpsc::Sender<u8>, mpsc::Receiver<u8>) = mpsc::channel();
        let other = sender.clone();
        thread::spawn(move || other.send(1).unwrap());
        assert_eq!(receiver.recv(), Ok(1));
        assert_eq!(
            receiver.try_recv(),
            Err(std::sync::mpsc::TryRecvError::Empty)
        );
        drop(sender);
        assert_eq!(
            receiver.recv_timeout(Duration::from_secs(1)),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected)
        );
    });
}

/// Every method of loom's integer atomics, for one width.
macro_rules! integer_atomic {
    ($atomic:ident, $int:ty) => {{
        default::<$atomic>();
        debug::<$atomic>();
        send_sync::<$atomic>();
        let mut atomic = <$atomic>::from(1);
        atomic.with_mut(|value| *value += 1);
        assert_eq!(unsafe { atomic.unsync_load() }, 2);
        let order = Ordering::SeqCst;
        atomic.store(3, order);
        assert_eq!(atomic.swap(4, order), 3);
        #[allow(deprecated)]
        let swapped: $int = atomic.compare_and_swap(4, 5, order);
        assert_eq!(swapped, 4);
        assert_eq!(atomic.compare_exchange(5, 6, order, order), Ok(5));
        let _: Result<$int, $int> = atomic.compare_exchange_weak(6, 7, order, order);
        atomic.store(6, order);
        let results: [$int; 7] = [
            atomic.fetch_add(1, order),
            atomic.fetch_sub(1, order),
            atomic.fetch_and(3, order),
            atomic.fetch_or(4, order),
            atomic.fetch_xor(1, order),
            atomic.fetch_max(9, order),
            atomic.fetch_min(8, order),
        ];
        assert_eq!(results, [6, 7, 6, 2, 6, 7, 9]);
        assert_eq!(atomic.fetch_update(order, order, |v| Some(v + 1)), Ok(8));
        assert_eq!(atomic.load(order), 9);
        assert_eq!(atomic.fetch_nand(0, order), 9);
        assert_eq!(atomic.into_inner(), !0);
    }};
}

#[test]
fn atomics_are_loom_s() {
    let _: fn() = loom::sync::atomic::spin_loop_hint;
    let _: fn(Ordering) = loom::sync::atomic::fence;
    loom::model(|| {
        integer_atomic!(AtomicU8, u8);
        integer_atomic!(AtomicU16, u16);
        integer_atomic!(AtomicU32, u32);
        integer_atomic!(AtomicU64, u64);
        integer_atomic!(AtomicUsize, usize);
        integer_atomic!(AtomicI8, i8);
        integer_atomic!(AtomicI16, i16);
        integer_atomic!(AtomicI32, i32);
        integer_atomic!(AtomicI64, i64);
        integer_atomic!(AtomicIsize, isize);

        default::<AtomicBool>();
        let mut flag = AtomicBool::from(false);
        flag.with_mut(|value| *value = true);
        assert!(unsafe { flag.unsync_load() });
        let order = Ordering::AcqRel;
        #[allow(deprecated)]
        let swapped = flag.compare_and_swap(true, false, order);
        assert!(swapped);
        let rmw = [
            flag.fetch_or(true, order),
            flag.fetch_and(false, order),
            flag.fetch_nand(true, order),
            flag.fetch_xor(true, order),
        ];
        assert_eq!(rmw, [false, true, false, true]);
        assert_eq!(
            flag.fetch_update(order, Ordering::Acquire, |_| None),
            Err(false)
        );
        assert!(!flag.into_inner());

        default::<AtomicPtr<u8>>();
        let mut byte = 1u8;
        let mut pointer = AtomicPtr::from(std::ptr::null_mut());
        pointer.with_mut(|value| *value = &mut byte);
        assert_eq!(unsafe { *pointer.unsync_load() }, 1);
        assert!(!pointer.swap(std::ptr::null_mut(), order).is_null());
        assert!(pointer.into_inner().is_null());
    });
}

#[test]
fn threads_are_loom_s() {
    send_sync::<JoinHandle<()>>();
    debug::<JoinHandle<()>>();
    debug::<Thread>();
    fn id<T: Copy + Eq + Hash + std::fmt::Debug>() {}
    id::<ThreadId>();
    let _: fn() -> Thread = thread::current;
    let _: fn() = thread::park;
    let _: fn() = thread::yield_now;
    let _: fn() -> bool = thread::panicking;
    let _: fn(fn() -> u8) -> JoinHandle<u8> = thread::spawn::<fn() -> u8, u8>;
    type Spawn = fn(thread::Builder, fn() -> u8) -> std::io::Result<JoinHandle<u8>>;
    let _: Spawn = thread::Builder::spawn::<fn() -> u8, u8>;
    loom::model(|| {
        let parked = thread::current();
        let handle = thread::Builder::new()
            .name("named".into())
            .stack_size(1 << 16)
            .spawn(move || parked.unpark())
            .unwrap();
        let named: &Thread = handle.thread();
        assert_eq!(named.name(), Some("named"));
        assert_ne!(named.id(), thread::current().id());
        thread::park();
        handle.join().unwrap();
    });
}

#[test]
fn arc_is_loom_s() {
    send_sync::<Arc<u8>>();
    debug::<Arc<u8>>();
    default::<Arc<u8>>();
    let _: fn(u8) -> Arc<u8> = Arc::new;
    let _: fn(u8) -> std::pin::Pin<Arc<u8>> = Arc::pin;
    let _: fn(Arc<u8>) -> Result<u8, Arc<u8>> = Arc::try_unwrap;
    let _: fn(std::sync::Arc<u8>) -> Arc<u8> = Arc::from_std;
    let _: fn(&Arc<u8>) -> usize = Arc::strong_count;
    let _: unsafe fn(*const u8) = Arc::increment_strong_count;
    let _: unsafe fn(*const u8) = Arc::decrement_strong_count;
    let _: fn(&mut Arc<u8>) -> Option<&mut u8> = Arc::get_mut;
    let _: fn(&Arc<u8>, &Arc<u8>) -> bool = Arc::ptr_eq;
    let _: fn(Arc<u8>) -> *const u8 = Arc::into_raw;
    let _: fn(&Arc<u8>) -> *const u8 = Arc::as_ptr;
    let _: unsafe fn(*const u8) -> Arc<u8> = Arc::from_raw;
    fn refs<T: AsRef<u8> + std::borrow::Borrow<u8> + Clone + From<u8>>() {}
    refs::<Arc<u8>>();
}
