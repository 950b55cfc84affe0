//! Where the facade's atomics live: each run's table of the rankcheck-rt
//! atomics made in it, on the OS thread the run goes on, as loom's live in
//! its execution's object store.
//!
//! A facade atomic is one word naming its slot: the low half the slot's
//! index plus one (so that a word of zeros names none), the high half the
//! low bits of the run that made it. The word owns nothing and has no
//! destructor, as loom's index has none: a crate that drops what it takes
//! to be an atomic in uninitialised memory (nexosim 1.0.0's `spawn`,
//! `*ptr = task;` into fresh `alloc` memory) drops nothing, as under loom.
//! The run's atomics are freed when the next run on this OS thread makes
//! its first one, or when the OS thread exits; until then the references
//! and pointers they hand out (`get_mut`, `as_ptr`) hold. They live in
//! chunks of memory the table keeps from run to run ([`Arena`]): a run
//! makes dozens of atomics (boxcar makes one per entry of a bucket), and
//! allocating each apart was a tenth of a small run's cost.
//!
//! Every use reads the word before it reaches memory, so a word that names
//! no atomic of the run going on (zeros, an earlier run's atomic, garbage)
//! is a clear panic, never a read of freed memory.
#![allow(unsafe_code)]

use std::cell::RefCell;
use std::fmt;
use std::mem::{align_of, size_of};
use std::ptr::NonNull;

/// Bits of a word that hold the slot (its index plus one).
const SLOT_BITS: u32 = usize::BITS / 2;
const SLOT_MASK: usize = (1 << SLOT_BITS) - 1;

/// A slot: the atomic, its kind (the facade type's name, checked on every
/// use) and what frees it.
struct Slot {
    atomic: *mut (),
    kind: &'static str,
    free: unsafe fn(*mut ()),
}

/// The atomics of the latest run on this OS thread.
#[derive(Default)]
struct Slots {
    run: u64,
    slots: Vec<Slot>,
    arena: Arena,
}

impl Slots {
    /// Free every atomic: the table starts over for `run`.
    fn start(&mut self, run: u64) {
        for slot in self.slots.drain(..) {
            // SAFETY: the slot owns its atomic, made by `put` with `free`.
            unsafe { (slot.free)(slot.atomic) };
        }
        // Every atomic in the arena was dropped above.
        self.arena.reset();
        self.run = run;
    }
}

/// One unit of an arena's chunk: room aligned for any atomic.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Word([u8; 16]);

/// Words in one chunk (4 KiB).
const CHUNK_WORDS: usize = 256;

/// Chunks of memory the run's atomics are placed in, one after the other,
/// kept for the next run. Chunks are held as raw pointers, never as
/// references, so that placing an atomic does not invalidate the pointers
/// to those placed before it.
#[derive(Default)]
struct Arena {
    chunks: Vec<NonNull<Word>>,
    /// The chunk being filled, and the words of it used.
    chunk: usize,
    used: usize,
}

impl Arena {
    /// Move `value` into the arena: where it is, or the value back when it
    /// does not fit a chunk (too big, or aligned beyond a word).
    fn place<T>(&mut self, value: T) -> Result<*mut T, T> {
        let words = size_of::<T>().div_ceil(size_of::<Word>()).max(1);
        if align_of::<T>() > align_of::<Word>() || words > CHUNK_WORDS {
            return Err(value);
        }
        if self.used + words > CHUNK_WORDS {
            self.chunk += 1;
            self.used = 0;
        }
        if self.chunk == self.chunks.len() {
            let chunk = Box::new([Word([0; 16]); CHUNK_WORDS]);
            self.chunks.push(NonNull::from(Box::leak(chunk)).cast());
        }
        // SAFETY: `used + words <= CHUNK_WORDS` words from the chunk's
        // start are in bounds, unused since `reset`, and aligned for `T`.
        let at = unsafe { self.chunks[self.chunk].as_ptr().add(self.used) }.cast::<T>();
        self.used += words;
        // SAFETY: as above: room for a `T`, which nothing else holds.
        unsafe { at.write(value) };
        Ok(at)
    }

    /// Reuse every chunk from its start: the caller dropped what was in
    /// them.
    fn reset(&mut self) {
        self.chunk = 0;
        self.used = 0;
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        for chunk in self.chunks.drain(..) {
            // SAFETY: made by `Box::leak` of a chunk in `place`, freed once.
            drop(unsafe { Box::from_raw(chunk.cast::<[Word; CHUNK_WORDS]>().as_ptr()) });
        }
    }
}

impl Drop for Slots {
    fn drop(&mut self) {
        self.start(0);
    }
}

thread_local! {
    static SLOTS: RefCell<Slots> = RefCell::new(Slots::default());
}

/// Why a word names no atomic of the run going on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Unnamed {
    /// A word of zeros: zeroed memory taken for an atomic.
    Zeroed,
    /// No run goes on on this OS thread.
    OutsideRun,
    /// An atomic an earlier run made.
    EarlierRun,
    /// A word no `new` made (uninitialised memory), or of another kind.
    Garbage,
}

impl Unnamed {
    /// The panic message for an operation on such a word of `kind`.
    pub(super) fn message(self, kind: &str) -> String {
        match self {
            Unnamed::Zeroed => format!(
                "loom: this {kind} was not made by {kind}::new: its word is zero (zeroed memory \
                 taken for an atomic, as std's atomics allow but loom's do not)"
            ),
            Unnamed::OutsideRun => format!(
                "loom: a {kind} was used outside a loom model: loom's atomics belong to the \
                 execution that made them"
            ),
            Unnamed::EarlierRun => format!(
                "loom: this {kind} was made in an earlier execution of the model (or is \
                 uninitialised memory): loom's atomics belong to the execution that made them; \
                 make it inside the closure given to loom::model (a static through \
                 loom::lazy_static!)"
            ),
            Unnamed::Garbage => format!(
                "loom: this {kind} was not made by {kind}::new: its word names no atomic of this \
                 execution (uninitialised memory taken for an atomic)"
            ),
        }
    }
}

impl fmt::Display for Unnamed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unnamed::Zeroed => "<zeroed>",
            Unnamed::OutsideRun => "<outside the model>",
            Unnamed::EarlierRun => "<of an earlier execution>",
            Unnamed::Garbage => "<not made by new>",
        })
    }
}

/// The low bits of `run` that a word keeps.
fn run_tag(run: u64) -> usize {
    (run as usize) & SLOT_MASK
}

/// The run going on on this OS thread.
fn running() -> Option<u64> {
    rankcheck_rt::run_id().map(std::num::NonZeroU64::get)
}

/// Keep `atomic`, of facade type `kind`, in the slots of the run going on:
/// its word.
///
/// # Panics
/// Outside a run (callers check first), and when one run makes more
/// atomics than a half word counts.
pub(super) fn put<T>(atomic: T, kind: &'static str) -> usize {
    let run = running().unwrap_or_else(|| panic!("{}", Unnamed::OutsideRun.message(kind)));
    SLOTS.with(|slots| {
        let mut slots = slots.borrow_mut();
        if slots.run != run {
            slots.start(run);
        }
        let slot = slots.slots.len() + 1;
        assert!(
            slot <= SLOT_MASK,
            "loom: one execution made more than {SLOT_MASK} atomics"
        );
        let kept = match slots.arena.place(atomic) {
            Ok(at) => Slot {
                atomic: at.cast(),
                kind,
                free: drop_placed::<T>,
            },
            Err(atomic) => Slot {
                atomic: Box::into_raw(Box::new(atomic)).cast(),
                kind,
                free: free_box::<T>,
            },
        };
        slots.slots.push(kept);
        (run_tag(run) << SLOT_BITS) | slot
    })
}

/// The atomic `word` names, of facade type `kind`: a `T` that `put` kept.
///
/// The reference lives as long as the caller's borrow of the word: the
/// slot is freed only when another run starts on this OS thread, and no
/// borrow of a run's atomic spans the end of its run (runs do not nest).
pub(super) fn get<'word, T>(word: usize, kind: &'static str) -> Result<&'word T, Unnamed> {
    // SAFETY: `find` checked the slot holds a `T` of `kind`, alive until
    // the next run; the word's holder only borrows it.
    find(word, kind).map(|atomic| unsafe { &*atomic.cast::<T>() })
}

/// As [`get`], mutably: the caller holds the word mutably, so it is the
/// only one reaching the slot.
pub(super) fn get_mut<'word, T>(word: usize, kind: &'static str) -> Result<&'word mut T, Unnamed> {
    // SAFETY: as `get`'s, and the caller's `&mut` to the word is the only
    // way to the slot (a word is made once, by `put`, and not copied).
    find(word, kind).map(|atomic| unsafe { &mut *atomic.cast::<T>() })
}

/// The slot `word` names in the run going on.
fn find(word: usize, kind: &'static str) -> Result<*mut (), Unnamed> {
    if word == 0 {
        return Err(Unnamed::Zeroed);
    }
    let run = running().ok_or(Unnamed::OutsideRun)?;
    let slot = word & SLOT_MASK;
    if slot == 0 {
        return Err(Unnamed::Garbage);
    }
    if word >> SLOT_BITS != run_tag(run) {
        return Err(Unnamed::EarlierRun);
    }
    SLOTS.with(|slots| {
        let slots = slots.borrow();
        if slots.run != run {
            return Err(Unnamed::EarlierRun);
        }
        match slots.slots.get(slot - 1) {
            Some(found) if found.kind == kind => Ok(found.atomic),
            _ => Err(Unnamed::Garbage),
        }
    })
}

/// Drop the `T` the arena holds at `atomic` (its room stays the arena's).
///
/// # Safety
/// `atomic` is a `T` placed by [`Arena::place`], dropped once.
unsafe fn drop_placed<T>(atomic: *mut ()) {
    // SAFETY: as the function's contract says.
    unsafe { std::ptr::drop_in_place(atomic.cast::<T>()) };
}

/// Free the `Box<T>` behind `atomic`.
///
/// # Safety
/// `atomic` is a `Box<T>` made into a raw pointer, owned by the caller.
unsafe fn free_box<T>(atomic: *mut ()) {
    // SAFETY: as the function's contract says.
    drop(unsafe { Box::from_raw(atomic.cast::<T>()) });
}
