//! loom's `sync::Arc`: std's `Arc` for the value, and beside it a strong
//! count that is a rankcheck-rt `AtomicUsize`, so that the count orders
//! accesses as std's does. A clone is a `Relaxed` increment; a drop a
//! `Release` decrement, and the last drop acquires (an `Acquire` fence)
//! before the value is dropped. So a value freed by the last drop is
//! ordered after every other thread's accesses through its clones: under
//! weak memory an `UnsafeCell` written by one thread and reached again in
//! the value's `Drop` on another is no data race. (With std's `Arc` there
//! is no such edge, and the race checker reports one.) Each of these is
//! an operation of the count's variable, a scheduling point as loom's
//! `Arc` operations are its branch points; in a report the count is an
//! `AtomicUsize` made where the `Arc` was.
//!
//! As loom's, an `Arc` of an unsized value is made from std's with
//! [`Arc::from_std`] (no `CoerceUnsized` on stable Rust), and a raw pointer
//! from [`Arc::into_raw`] finds its count again in [`Arc::from_raw`]: the
//! count of each value whose pointer was handed out is kept, per
//! execution, by the value's address until its last drop. Not checked, as
//! loom does: that every `Arc` is dropped by the end of the execution
//! (loom's leak check).

use std::borrow::Borrow;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::pin::Pin;

use rankcheck_rt::sync::atomic::{
    fence, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release, SeqCst},
};

/// A model's counted reference, as loom's `Arc`.
pub struct Arc<T: ?Sized> {
    /// Declared first, so dropped first: the model's decrement, and the
    /// last one's acquire, come before the value's drop.
    count: Count,
    /// The value; its std count equals the model's (`count`) between
    /// operations, raw pointers included.
    value: std::sync::Arc<T>,
}

/// One `Arc`'s share of the model's strong count.
struct Count {
    /// The count every clone shares; `None` once this share was handed
    /// over (to a raw pointer, or by `try_unwrap`): its drop then does
    /// nothing.
    shared: Option<std::sync::Arc<AtomicUsize>>,
    /// The value's address: what raw pointers find the count by.
    address: usize,
}

impl Count {
    /// A count of 1, at the caller's site.
    #[track_caller]
    fn new(address: usize) -> Count {
        Count {
            shared: Some(std::sync::Arc::new(AtomicUsize::new(1))),
            address,
        }
    }

    /// The shared count.
    fn shared(&self) -> &std::sync::Arc<AtomicUsize> {
        self.shared
            .as_ref()
            .expect("invariant: an Arc's count is handed over only as the Arc is consumed")
    }
}

impl Drop for Count {
    fn drop(&mut self) {
        let Some(shared) = self.shared.take() else {
            return;
        };
        if shared.fetch_sub(1, Release) == 1 {
            // std's `Arc` too: every other drop's `Release` happens before
            // the value's drop.
            fence(Acquire);
            raw::forget(self.address);
        }
    }
}

/// The address `value` is known by.
fn address_of<T: ?Sized>(value: *const T) -> usize {
    value.cast::<()>() as usize
}

impl<T> Arc<T> {
    /// A new `Arc`: its count a new variable, known by this call's site.
    #[track_caller]
    pub fn new(value: T) -> Arc<T> {
        Arc::from_std(std::sync::Arc::new(value))
    }

    /// A new pinned `Arc`.
    #[track_caller]
    #[allow(unsafe_code)]
    pub fn pin(value: T) -> Pin<Arc<T>> {
        // SAFETY: the value lives in the `Arc`'s heap allocation and is
        // never moved out while an `Arc` to it exists (`try_unwrap` takes
        // an `Arc`, which a `Pin<Arc<T>>` does not give back), as std's
        // `Arc::pin`.
        unsafe { Pin::new_unchecked(Arc::new(value)) }
    }

    /// The value, if this is its only `Arc` (a compare-exchange of the
    /// count from 1 to 0, `Acquire`, as std's); else the `Arc` back.
    #[track_caller]
    pub fn try_unwrap(this: Arc<T>) -> Result<T, Arc<T>> {
        let unique = this
            .count
            .shared()
            .compare_exchange(1, 0, Acquire, Relaxed)
            .is_ok();
        if !unique {
            return Err(this);
        }
        let Arc { mut count, value } = this;
        count.shared = None;
        raw::forget(count.address);
        match std::sync::Arc::try_unwrap(value) {
            Ok(value) => Ok(value),
            Err(_) => unreachable!("invariant: the model's count is std's"),
        }
    }
}

impl<T: ?Sized> Arc<T> {
    /// An `Arc` of std's `Arc`'s value, as loom's: how an `Arc` of an
    /// unsized value (`Arc<dyn Fn()>`, `Arc<[T]>`) is made, since loom's
    /// `Arc` cannot coerce.
    ///
    /// # Panics
    /// When `std` has other references (it must be unique), as loom's.
    #[track_caller]
    pub fn from_std(mut std: std::sync::Arc<T>) -> Arc<T> {
        assert!(
            std::sync::Arc::get_mut(&mut std).is_some(),
            "Arc provided to `from_std` is not unique"
        );
        Arc {
            count: Count::new(address_of(std::sync::Arc::as_ptr(&std))),
            value: std,
        }
    }

    /// The number of `Arc`s to the value: a `SeqCst` load of the count,
    /// as loom's.
    #[track_caller]
    pub fn strong_count(this: &Arc<T>) -> usize {
        this.count.shared().load(SeqCst)
    }

    /// The value, mutably, if this is its only `Arc` (an `Acquire` load
    /// of the count, as loom's).
    #[track_caller]
    pub fn get_mut(this: &mut Arc<T>) -> Option<&mut T> {
        if this.count.shared().load(Acquire) != 1 {
            return None;
        }
        let value = std::sync::Arc::get_mut(&mut this.value);
        Some(value.expect("invariant: the model's count is std's"))
    }

    /// Whether both point to the same value (not equal values).
    pub fn ptr_eq(this: &Arc<T>, other: &Arc<T>) -> bool {
        std::sync::Arc::ptr_eq(&this.value, &other.value)
    }

    /// A pointer to the value, which [`Arc::increment_strong_count`] and
    /// [`Arc::from_raw`] accept as std's do.
    pub fn as_ptr(this: &Arc<T>) -> *const T {
        raw::keep(this.count.address, this.count.shared());
        std::sync::Arc::as_ptr(&this.value)
    }

    /// The `Arc` as a pointer to its value, its count unchanged:
    /// [`Arc::from_raw`] takes it back.
    pub fn into_raw(this: Arc<T>) -> *const T {
        raw::keep(this.count.address, this.count.shared());
        let Arc { mut count, value } = this;
        count.shared = None;
        std::sync::Arc::into_raw(value)
    }

    /// The `Arc` that [`Arc::into_raw`] made `ptr` of.
    ///
    /// # Safety
    /// As std's `Arc::from_raw`: `ptr` came from [`Arc::into_raw`] (or
    /// [`Arc::as_ptr`], its count raised by
    /// [`Arc::increment_strong_count`]), the `Arc` it stands for is taken
    /// back once.
    ///
    /// # Panics
    /// When `ptr` is no value's whose `Arc` lives in this execution.
    #[track_caller]
    #[allow(unsafe_code)]
    pub unsafe fn from_raw(ptr: *const T) -> Arc<T> {
        let address = address_of(ptr);
        let shared = raw::find(address);
        // SAFETY: the caller's, as std's `Arc::from_raw`; `raw::find` found
        // the value's count, so the value is an `Arc`'s and alive.
        let value = unsafe { std::sync::Arc::from_raw(ptr) };
        Arc {
            count: Count {
                shared: Some(shared),
                address,
            },
            value,
        }
    }

    /// Add 1 to the count of the value `ptr` points to (a `Relaxed`
    /// increment, a clone's).
    ///
    /// # Safety
    /// As std's `Arc::increment_strong_count`: `ptr` came from
    /// [`Arc::into_raw`] or [`Arc::as_ptr`], and its value has an `Arc`
    /// throughout.
    ///
    /// # Panics
    /// As [`Arc::from_raw`].
    #[track_caller]
    #[allow(unsafe_code)]
    pub unsafe fn increment_strong_count(ptr: *const T) {
        raw::find(address_of(ptr)).fetch_add(1, Relaxed);
        // SAFETY: the caller's, as std's.
        unsafe { std::sync::Arc::increment_strong_count(ptr) }
    }

    /// Drop one `Arc` of the value `ptr` points to, as dropping the `Arc`
    /// [`Arc::from_raw`] gives.
    ///
    /// # Safety
    /// As std's `Arc::decrement_strong_count`: `ptr` came from
    /// [`Arc::into_raw`], and the count it stands for is still held.
    ///
    /// # Panics
    /// As [`Arc::from_raw`].
    #[track_caller]
    #[allow(unsafe_code)]
    pub unsafe fn decrement_strong_count(ptr: *const T) {
        // SAFETY: the caller's, as `from_raw`'s.
        drop(unsafe { Arc::from_raw(ptr) });
    }
}

impl<T: ?Sized> Clone for Arc<T> {
    /// Another `Arc` to the value: a `Relaxed` increment of the count.
    #[track_caller]
    fn clone(&self) -> Arc<T> {
        let shared = self.count.shared();
        shared.fetch_add(1, Relaxed);
        Arc {
            count: Count {
                shared: Some(shared.clone()),
                address: self.count.address,
            },
            value: self.value.clone(),
        }
    }
}

impl<T: ?Sized> Deref for Arc<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: ?Sized> AsRef<T> for Arc<T> {
    fn as_ref(&self) -> &T {
        &self.value
    }
}

impl<T: ?Sized> Borrow<T> for Arc<T> {
    fn borrow(&self) -> &T {
        &self.value
    }
}

impl<T: Default> Default for Arc<T> {
    #[track_caller]
    fn default() -> Arc<T> {
        Arc::new(T::default())
    }
}

impl<T> From<T> for Arc<T> {
    #[track_caller]
    fn from(value: T) -> Arc<T> {
        Arc::new(value)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Arc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.value, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for Arc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.value, f)
    }
}

impl<T: ?Sized> fmt::Pointer for Arc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Pointer::fmt(&self.value, f)
    }
}

impl<T: ?Sized + PartialEq> PartialEq for Arc<T> {
    fn eq(&self, other: &Arc<T>) -> bool {
        *self.value == *other.value
    }
}

impl<T: ?Sized + Eq> Eq for Arc<T> {}

impl<T: ?Sized + PartialOrd> PartialOrd for Arc<T> {
    fn partial_cmp(&self, other: &Arc<T>) -> Option<std::cmp::Ordering> {
        (*self.value).partial_cmp(&*other.value)
    }
}

impl<T: ?Sized + Ord> Ord for Arc<T> {
    fn cmp(&self, other: &Arc<T>) -> std::cmp::Ordering {
        (*self.value).cmp(&*other.value)
    }
}

impl<T: ?Sized + Hash> Hash for Arc<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (*self.value).hash(state);
    }
}

/// The counts of the values whose pointers were handed out, by address,
/// per OS thread (an execution runs on its test's): an entry lives from
/// the first `into_raw` or `as_ptr` to the value's last drop.
pub(crate) mod raw {
    use super::*;

    thread_local! {
        static COUNTS: RefCell<BTreeMap<usize, std::sync::Arc<AtomicUsize>>> =
            const { RefCell::new(BTreeMap::new()) };
    }

    /// Keep `shared` as the count of the value at `address`.
    pub fn keep(address: usize, shared: &std::sync::Arc<AtomicUsize>) {
        COUNTS.with_borrow_mut(|counts| {
            counts.entry(address).or_insert_with(|| shared.clone());
        });
    }

    /// The count of the value at `address`.
    ///
    /// # Panics
    /// When no `Arc` of this execution handed out a pointer to it.
    #[track_caller]
    pub fn find(address: usize) -> std::sync::Arc<AtomicUsize> {
        let found = COUNTS.with_borrow(|counts| counts.get(&address).cloned());
        found.unwrap_or_else(|| {
            panic!(
                "loom::sync::Arc: {address:#x} is no pointer that `Arc::into_raw` or \
                 `Arc::as_ptr` gave for a value alive in this execution"
            )
        })
    }

    /// The value at `address` was dropped (or taken out): its pointers
    /// are no more.
    pub fn forget(address: usize) {
        // Taken out before it drops: dropping a count touches no table.
        let kept = COUNTS.with_borrow_mut(|counts| counts.remove(&address));
        drop(kept);
    }

    /// A new execution begins: the earlier ones' pointers are no more.
    pub fn clear() {
        let kept = COUNTS.with_borrow_mut(std::mem::take);
        drop(kept);
    }
}
