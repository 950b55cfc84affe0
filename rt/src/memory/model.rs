//! The C11 memory model as Rust's atomics use it, operationally: every
//! atomic has a modification order (mo) of its stores, of which the last
//! [`HISTORY`] are kept, and every thread a vector clock for
//! happens-before. A load may read any kept store that coherence and
//! happens-before allow; which one is a choice made by the caller
//! ([`crate::memory::choice`]).
//!
//! The rules, and where the model is stronger than C11 (it then misses
//! some outcomes C11 allows, never allows one C11 forbids):
//!
//! - A store goes last in its atomic's mo, in execution order (so load
//!   buffering and the weak outcome of 2+2W are not explored, as in loom).
//! - A load reads a store no earlier in mo than the latest one it has
//!   *observed*: one whose write, or a read of it, happens before the load
//!   (coherence: CoRR, CoWR, CoRW, CoWW, also across threads).
//! - A read-modify-write reads the latest store in mo (atomicity), and its
//!   store continues the release sequence of the store it read.
//! - Release/acquire: an acquire load (or a relaxed load followed by an
//!   acquire fence) of a store that is release (or follows a release fence
//!   in its thread, or continues such a store's release sequence)
//!   synchronises: the store's thread's history happens before the load.
//! - SeqCst (RC11 / C++20): SeqCst stores and fences publish into one
//!   global SeqCst clock, in execution order (the total order S), and a
//!   SeqCst fence also takes it in; a SeqCst load reads no store older than
//!   what that clock has seen: the latest SeqCst store or a later one in
//!   mo, and nothing older than a store sequenced before an earlier SeqCst
//!   fence. A SeqCst fence orders as an acquire-release of that clock,
//!   which is stronger than C11 (it makes happens-before, C11 only orders).
//! - Every other synchronisation (spawn, join, locks, condition variables,
//!   channels, barriers, once cells, park) is a release of the thread's
//!   history into the object and an acquire of it back
//!   ([`Model::release_into`], [`Model::acquire_from`]).
//! - A stale value does not stay visible forever (C++ [atomics.order]: a
//!   store becomes visible to loads "within a reasonable amount of time").
//!   A thread that reads again a store it has already read, while a newer
//!   one exists, does so at most [`STALE_REREADS`] times in a row for that
//!   atomic; its next load of it reads a newer store. A spin loop that
//!   never yields therefore advances, as one that yields does under loom's
//!   rule ([`Model::gave_way`]).

use std::collections::VecDeque;
use std::panic::Location;
use std::sync::atomic::Ordering;

use super::clock::VectorClock;

/// The stores kept per atomic, the latest in mo included: a load chooses
/// among at most this many (loom 0.7 keeps 7). Older ones are dropped, and
/// a load that might have read one is counted ([`Model::cut`]).
pub const HISTORY: usize = 4;

/// How many times in a row a thread may read again a store of an atomic
/// it has already read while a newer one exists; the next load of that
/// atomic by that thread reads a newer store. Two keeps every outcome of a
/// straight-line test that reads one atomic up to three times.
pub const STALE_REREADS: u8 = 2;

/// Where a store was made in the test's code.
pub type Site = &'static Location<'static>;

/// One store in an atomic's modification order.
#[derive(Clone, Debug)]
pub struct Store {
    /// The value, as bits (see `crate::memory::Bits`).
    pub value: u64,
    /// Where it was made (`None`: the atomic's value before the run's first
    /// access to it).
    pub site: Option<Site>,
    /// The clock an acquire of it takes in: its release (or the release
    /// sequence it continues), empty for a relaxed store with no release
    /// fence before it.
    sync: VectorClock,
    /// For each thread, the stamp at which it first observed the store
    /// (wrote or read it); 0: never.
    seen: VectorClock,
    /// The thread that made it and its stamp then (`None`: the value
    /// before the model saw the atomic).
    writer: Option<(usize, u32)>,
}

/// One atomic: its kept stores, oldest first in mo.
#[derive(Clone, Debug)]
struct Atomic {
    stores: VecDeque<Store>,
    /// Stores dropped from the front by the history bound.
    dropped: u64,
    /// Each thread's last load without synchronisation (loom's
    /// `unsync_load`): its stamp and site. A later store must see them.
    unsync: Vec<(usize, u32, Site)>,
    /// By thread: its stale re-reads of this atomic in a row (see
    /// [`STALE_REREADS`]).
    stale_rereads: Vec<u8>,
}

impl Atomic {
    fn stale_rereads(&self, thread: usize) -> u8 {
        self.stale_rereads.get(thread).copied().unwrap_or(0)
    }

    /// `thread` read the store at `index`, which it had already read
    /// before if `again`: counts a stale re-read, or ends the row.
    fn count_reread(&mut self, thread: usize, index: usize, again: bool) {
        let stale = index + 1 < self.stores.len();
        if self.stale_rereads.len() <= thread {
            self.stale_rereads.resize(thread + 1, 0);
        }
        let count = &mut self.stale_rereads[thread];
        *count = if stale && again {
            count.saturating_add(1)
        } else {
            0
        };
    }
}

/// One thread's view.
#[derive(Clone, Debug, Default)]
struct ThreadView {
    /// What happens before its next event.
    clock: VectorClock,
    /// Its clock at its last release fence: what a later relaxed store of
    /// its releases.
    fence_release: VectorClock,
    /// What its relaxed loads read from releases: an acquire fence takes it
    /// in.
    fence_acquire: VectorClock,
    /// Its own stamp when it last gave way (`thread::give_way`; 0: never):
    /// a store it observed at or before it is read again only if it is
    /// its atomic's latest (loom's rule, which lets a spin loop advance).
    gave_way: u32,
}

/// The memory of one execution.
#[derive(Clone, Debug, Default)]
pub struct Model {
    threads: Vec<ThreadView>,
    /// By object index: its atomic state, for atomics touched so far.
    atomics: Vec<Option<Atomic>>,
    /// By object index: what a synchronisation object released so far.
    objects: Vec<VectorClock>,
    /// By thread: what the unparks of it released (std: an unpark
    /// synchronises with the park that takes its token).
    tokens: Vec<VectorClock>,
    /// The SeqCst clock: what SeqCst stores and fences published, in the
    /// order they ran.
    seq_cst: VectorClock,
    /// Loads whose choice the history bound cut: a store older than the
    /// kept ones might have been readable.
    pub cut: u64,
    /// A store that raced with a load without synchronisation made before
    /// it: that load's thread and site (taken by `crate::memory`).
    pub unsync_race: Option<(usize, Site)>,
    /// Atomics of earlier runs, emptied, for this run's to reuse.
    spare: Vec<Atomic>,
}

/// Whether `order` releases (for a store or a fence).
fn releases(order: Ordering) -> bool {
    matches!(
        order,
        Ordering::Release | Ordering::AcqRel | Ordering::SeqCst
    )
}

/// Whether `order` acquires (for a load or a fence).
fn acquires(order: Ordering) -> bool {
    matches!(
        order,
        Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst
    )
}

impl Model {
    /// Forget everything, keeping the memory for the next run.
    pub fn clear(&mut self) {
        self.threads.clear();
        for mut atomic in self.atomics.drain(..).flatten() {
            atomic.stores.clear();
            self.spare.push(atomic);
        }
        self.objects.clear();
        self.tokens.clear();
        self.seq_cst.clear();
        self.cut = 0;
        self.unsync_race = None;
    }

    fn thread(&mut self, thread: usize) -> &mut ThreadView {
        if self.threads.len() <= thread {
            self.threads.resize_with(thread + 1, ThreadView::default);
        }
        &mut self.threads[thread]
    }

    /// The atomic `object`, created holding `initial` (its value before the
    /// run's first access) if it is new.
    fn atomic(&mut self, object: usize, initial: u64) -> &mut Atomic {
        if self.atomics.len() <= object {
            self.atomics.resize_with(object + 1, || None);
        }
        let spare = &mut self.spare;
        self.atomics[object].get_or_insert_with(|| {
            let mut atomic = spare.pop().unwrap_or_else(|| Atomic {
                stores: VecDeque::with_capacity(HISTORY + 1),
                dropped: 0,
                unsync: Vec::new(),
                stale_rereads: Vec::new(),
            });
            atomic.dropped = 0;
            atomic.unsync.clear();
            atomic.stale_rereads.clear();
            atomic.stores.push_back(Store {
                value: initial,
                site: None,
                sync: VectorClock::default(),
                seen: VectorClock::default(),
                writer: None,
            });
            atomic
        })
    }

    /// The atomic `object`'s value is `value`: if the model knows another
    /// latest value, the value was changed behind the scheduler's back
    /// (`get_mut`, `as_ptr`), and its history starts again from it.
    pub fn behind_the_back(&mut self, object: usize, value: u64) {
        let Some(Some(atomic)) = self.atomics.get_mut(object) else {
            return;
        };
        if atomic.stores.back().is_some_and(|s| s.value != value) {
            atomic.stores.clear();
            atomic.stores.push_back(Store {
                value,
                site: None,
                sync: VectorClock::default(),
                seen: VectorClock::default(),
                writer: None,
            });
        }
    }

    /// The stores `thread` may read from `object` with `order`, newest
    /// first: index 0 is the latest in mo, `i` the `i`-th before it. At
    /// least one. `initial` is the atomic's value if the model has not
    /// seen it yet.
    pub fn readable(
        &mut self,
        thread: usize,
        object: usize,
        order: Ordering,
        initial: u64,
    ) -> usize {
        self.atomic(object, initial);
        self.thread(thread);
        let clock = &self.threads[thread].clock;
        let seq_cst = (order == Ordering::SeqCst).then_some(&self.seq_cst);
        let Some(atomic) = self.atomics[object].as_ref() else {
            unreachable!("invariant: the atomic was just made")
        };
        let observed = |store: &Store| store.seen.any_seen(clock, seq_cst);
        // After too many stale re-reads in a row, everything the thread
        // has read is behind it, as if it had given way now.
        let gave_way = if atomic.stale_rereads(thread) >= STALE_REREADS {
            clock.get(thread)
        } else {
            self.threads[thread].gave_way
        };
        let seen_before_giving_way = |store: &Store| {
            let seen = store.seen.get(thread);
            seen != 0 && seen <= gave_way
        };
        let last = atomic.stores.len() - 1;
        let past_giving_way = atomic
            .stores
            .iter()
            .rposition(seen_before_giving_way)
            .map_or(0, |i| (i + 1).min(last));
        let oldest = atomic
            .stores
            .iter()
            .rposition(observed)
            .unwrap_or(0)
            .max(past_giving_way);
        if oldest == 0 && atomic.dropped > 0 {
            self.cut += 1;
        }
        atomic.stores.len() - oldest
    }

    /// The store `back` places before the latest in `object`'s mo.
    pub fn store_at(&self, object: usize, back: usize) -> &Store {
        let stores = &self.atomics[object]
            .as_ref()
            .unwrap_or_else(|| unreachable!("invariant: a read atomic is known"))
            .stores;
        &stores[stores.len() - 1 - back]
    }

    /// `thread` loads from `object` with `order` the store `back` places
    /// before the latest (one [`Model::readable`] allowed): its value.
    pub fn load(&mut self, thread: usize, object: usize, order: Ordering, back: usize) -> u64 {
        let view = self.thread(thread);
        let stamp = view.clock.tick(thread);
        let Some(atomic) = self.atomics[object].as_mut() else {
            unreachable!("invariant: a read atomic is known")
        };
        let index = atomic.stores.len() - 1 - back;
        let again = atomic.stores[index].seen.get(thread) != 0;
        atomic.count_reread(thread, index, again);
        let store = &mut atomic.stores[index];
        if !again {
            store.seen.set(thread, stamp);
        }
        let view = &mut self.threads[thread];
        if acquires(order) {
            view.clock.join(&store.sync);
        } else {
            view.fence_acquire.join(&store.sync);
        }
        store.value
    }

    /// `thread` stores `value` into `object` with `order` at `site`
    /// (`initial`: the value before, if the model has not seen the atomic).
    pub fn store(
        &mut self,
        thread: usize,
        object: usize,
        value: u64,
        order: Ordering,
        site: Site,
        initial: u64,
    ) {
        self.atomic(object, initial);
        let sync = self.release_clock(thread, order);
        self.append(thread, object, value, order, site, sync);
    }

    /// `thread` does a read-modify-write of `object` with `order` at
    /// `site`: it reads the latest store, then stores `value` (`None`: a
    /// failed compare-exchange, which only reads). The value read.
    pub fn read_modify_write(
        &mut self,
        thread: usize,
        object: usize,
        value: Option<u64>,
        order: Ordering,
        site: Site,
        initial: u64,
    ) -> u64 {
        self.atomic(object, initial);
        let read = self.load(thread, object, order, 0);
        if let Some(value) = value {
            let mut sync = self.release_clock(thread, order);
            // The release sequence of the store read goes on through this
            // one (C++20: only read-modify-writes continue it).
            sync.join(&self.store_at(object, 0).sync);
            self.append(thread, object, value, order, site, sync);
        }
        read
    }

    /// What a store by `thread` with `order` releases: its clock, or its
    /// last release fence's. Ticks the thread's clock.
    fn release_clock(&mut self, thread: usize, order: Ordering) -> VectorClock {
        let view = self.thread(thread);
        view.clock.tick(thread);
        if releases(order) {
            view.clock.clone()
        } else {
            view.fence_release.clone()
        }
    }

    fn append(
        &mut self,
        thread: usize,
        object: usize,
        value: u64,
        order: Ordering,
        site: Site,
        sync: VectorClock,
    ) {
        let stamp = self.threads[thread].clock.get(thread);
        self.unsync_race = self.unsync_unseen(thread, object);
        if order == Ordering::SeqCst {
            self.seq_cst.join(&self.threads[thread].clock);
        }
        let mut seen = VectorClock::default();
        seen.set(thread, stamp);
        let Some(atomic) = self.atomics[object].as_mut() else {
            unreachable!("invariant: a stored atomic is known")
        };
        atomic.stores.push_back(Store {
            value,
            site: Some(site),
            sync,
            seen,
            writer: Some((thread, stamp)),
        });
        if atomic.stores.len() > HISTORY {
            atomic.stores.pop_front();
            atomic.dropped += 1;
        }
    }

    /// `thread` loads `object` without synchronisation at `site` (loom's
    /// `unsync_load`; `initial`: its value if the model has not seen it):
    /// a kept store that does not happen before the load, its thread and
    /// site, if there is one (a race).
    pub fn unsync_load(
        &mut self,
        thread: usize,
        object: usize,
        initial: u64,
        site: Site,
    ) -> Option<(usize, Site)> {
        self.atomic(object, initial);
        let stamp = self.thread(thread).clock.tick(thread);
        let clock = &self.threads[thread].clock;
        let Some(atomic) = self.atomics[object].as_mut() else {
            unreachable!("invariant: the atomic was just made")
        };
        match atomic.unsync.iter_mut().find(|(t, _, _)| *t == thread) {
            Some(last) => *last = (thread, stamp, site),
            None => atomic.unsync.push((thread, stamp, site)),
        }
        atomic.stores.iter().find_map(|store| {
            let (writer, stamp) = store.writer?;
            (clock.get(writer) < stamp).then_some((writer, store.site?))
        })
    }

    /// A load without synchronisation of `object` that `thread`'s next
    /// store does not see: its thread and site.
    fn unsync_unseen(&self, thread: usize, object: usize) -> Option<(usize, Site)> {
        let atomic = self.atomics[object].as_ref()?;
        let clock = &self.threads[thread].clock;
        atomic
            .unsync
            .iter()
            .find(|(t, stamp, _)| *t != thread && clock.get(*t) < *stamp)
            .map(|(t, _, site)| (*t, *site))
    }

    /// `thread` runs a fence with `order`.
    pub fn fence(&mut self, thread: usize, order: Ordering) {
        let view = self.thread(thread);
        view.clock.tick(thread);
        if acquires(order) {
            let pending = std::mem::take(&mut view.fence_acquire);
            view.clock.join(&pending);
        }
        if order == Ordering::SeqCst {
            let view = &mut self.threads[thread];
            view.clock.join(&self.seq_cst);
            self.seq_cst.join(&view.clock);
        }
        let view = &mut self.threads[thread];
        if releases(order) {
            view.fence_release = view.clock.clone();
        }
    }

    /// `thread`'s clock at a new event of its own (an access to a cell's
    /// data, crate::memory::race).
    pub fn event_clock(&mut self, thread: usize) -> &VectorClock {
        let view = self.thread(thread);
        view.clock.tick(thread);
        &view.clock
    }

    /// `thread`'s clock as of its last event, with no new one: where an
    /// access to a cell's data ends (a pointer dropped after the store
    /// that publishes what it wrote is ordered by that store, as loom
    /// checks it with the clock of the thread's last branch point).
    pub fn clock_now(&mut self, thread: usize) -> &VectorClock {
        &self.thread(thread).clock
    }

    /// `thread` gives way: what it observed so far is behind it.
    pub fn gave_way(&mut self, thread: usize) {
        let view = self.thread(thread);
        view.gave_way = view.clock.get(thread);
    }

    /// `parent` starts `child`: everything before happens before the
    /// child's first event.
    pub fn spawn(&mut self, parent: usize, child: usize) {
        let clock = self.released(parent);
        self.thread(child).clock.join(&clock);
    }

    /// `joiner` joined the finished `joined`.
    pub fn join(&mut self, joiner: usize, joined: usize) {
        let clock = self.thread(joined).clock.clone();
        self.take_in(joiner, Some(clock));
    }

    /// `thread` releases its history into the synchronisation object
    /// `object`: a later [`Model::acquire_from`] of it takes it in.
    pub fn release_into(&mut self, thread: usize, object: usize) {
        let clock = self.released(thread);
        join_at(&mut self.objects, object, &clock);
    }

    /// `thread` acquires what `object` released so far.
    pub fn acquire_from(&mut self, thread: usize, object: usize) {
        let released = self.objects.get(object).cloned();
        self.take_in(thread, released);
    }

    /// `thread` unparks `target`: releases into its token.
    pub fn unpark(&mut self, thread: usize, target: usize) {
        let clock = self.released(thread);
        join_at(&mut self.tokens, target, &clock);
    }

    /// `thread` returns from a park with its token: acquires what the
    /// unparks released.
    pub fn park(&mut self, thread: usize) {
        let released = self.tokens.get(thread).cloned();
        self.take_in(thread, released);
    }

    /// What `thread` releases at a new event of its.
    fn released(&mut self, thread: usize) -> VectorClock {
        let view = self.thread(thread);
        view.clock.tick(thread);
        view.clock.clone()
    }

    /// `thread` takes in `released` (if anything was) at a new event.
    fn take_in(&mut self, thread: usize, released: Option<VectorClock>) {
        let Some(released) = released else {
            return;
        };
        let view = self.thread(thread);
        view.clock.join(&released);
        view.clock.tick(thread);
    }
}

/// Join `clock` into `clocks[index]`, growing `clocks` as needed.
fn join_at(clocks: &mut Vec<VectorClock>, index: usize, clock: &VectorClock) {
    if clocks.len() <= index {
        clocks.resize_with(index + 1, VectorClock::default);
    }
    clocks[index].join(clock);
}

#[cfg(test)]
mod tests {
    use super::*;
    use Ordering::{Acquire, Relaxed, Release, SeqCst};

    const X: usize = 0;
    const Y: usize = 1;

    fn here() -> Site {
        Location::caller()
    }

    /// A model where threads 1 and 2 were spawned by thread 0.
    fn two_threads() -> Model {
        let mut m = Model::default();
        m.spawn(0, 1);
        m.spawn(0, 2);
        m
    }

    /// The values thread `t` may read from `object` with `order`.
    fn values(m: &mut Model, t: usize, object: usize, order: Ordering) -> Vec<u64> {
        let n = m.readable(t, object, order, 0);
        (0..n).map(|back| m.store_at(object, back).value).collect()
    }

    /// Store buffering after both stores ran: (0 may be read, 0 may be read).
    fn store_buffering(order: Ordering, fence: bool) -> (bool, bool) {
        let mut m = two_threads();
        m.store(1, X, 1, order, here(), 0);
        if fence {
            m.fence(1, SeqCst);
        }
        m.store(2, Y, 1, order, here(), 0);
        if fence {
            m.fence(2, SeqCst);
        }
        let first = values(&mut m, 1, Y, order).contains(&0);
        let second = values(&mut m, 2, X, order).contains(&0);
        (first, second)
    }

    #[test]
    fn relaxed_store_buffering_may_read_stale_seq_cst_may_not() {
        assert_eq!(store_buffering(Relaxed, false), (true, true));
        // The second thread's load comes after both SeqCst stores in S.
        assert!(!store_buffering(SeqCst, false).1);
        assert!(!store_buffering(Relaxed, true).1);
    }

    #[test]
    fn message_passing_synchronises_only_with_release_and_acquire() {
        for (store_order, load_order, stale) in
            [(Relaxed, Relaxed, true), (Release, Acquire, false)]
        {
            let mut m = two_threads();
            m.store(1, X, 1, Relaxed, here(), 0);
            m.store(1, Y, 1, store_order, here(), 0);
            assert_eq!(values(&mut m, 2, Y, load_order), [1, 0]);
            m.load(2, Y, load_order, 0);
            assert_eq!(values(&mut m, 2, X, Relaxed).contains(&0), stale);
        }
    }

    #[test]
    fn fences_make_relaxed_message_passing_synchronise() {
        let mut m = two_threads();
        m.store(1, X, 1, Relaxed, here(), 0);
        m.fence(1, Release);
        m.store(1, Y, 1, Relaxed, here(), 0);
        m.load(2, Y, Relaxed, 0);
        assert_eq!(values(&mut m, 2, X, Relaxed), [1, 0]);
        m.fence(2, Acquire);
        assert_eq!(values(&mut m, 2, X, Relaxed), [1]);
    }

    #[test]
    fn a_read_never_goes_back_in_modification_order() {
        let mut m = two_threads();
        m.store(1, X, 1, Relaxed, here(), 0);
        m.store(1, X, 2, Relaxed, here(), 0);
        // CoWR: the writer reads its own latest store or later.
        assert_eq!(values(&mut m, 1, X, Relaxed), [2]);
        // CoRR: once 1 is read, 0 is not.
        assert_eq!(values(&mut m, 2, X, Relaxed), [2, 1, 0]);
        m.load(2, X, Relaxed, 1);
        assert_eq!(values(&mut m, 2, X, Relaxed), [2, 1]);
        // A read-modify-write reads the latest.
        assert_eq!(m.read_modify_write(2, X, Some(3), Relaxed, here(), 0), 2);
        assert_eq!(values(&mut m, 2, X, Relaxed), [3]);
    }

    #[test]
    fn the_history_bound_drops_old_stores_and_counts_the_cut() {
        let mut m = two_threads();
        for v in 1..=HISTORY as u64 + 1 {
            m.store(1, X, v, Relaxed, here(), 0);
        }
        assert_eq!(values(&mut m, 2, X, Relaxed).len(), HISTORY);
        assert_eq!(m.cut, 1);
    }

    #[test]
    fn a_join_sees_everything_the_thread_did() {
        let mut m = Model::default();
        m.spawn(0, 1);
        m.store(1, X, 1, Relaxed, here(), 0);
        assert_eq!(values(&mut m, 0, X, Relaxed), [1, 0]);
        m.join(0, 1);
        assert_eq!(values(&mut m, 0, X, Relaxed), [1]);
    }

    #[test]
    fn a_stale_value_is_read_again_only_so_many_times_in_a_row() {
        let mut m = two_threads();
        assert_eq!(values(&mut m, 2, X, Relaxed), [0]);
        m.load(2, X, Relaxed, 0);
        m.store(1, X, 1, Relaxed, here(), 0);
        for _ in 0..STALE_REREADS {
            assert_eq!(values(&mut m, 2, X, Relaxed), [1, 0]);
            m.load(2, X, Relaxed, 1);
        }
        // A spin loop that never yields sees the store at last.
        assert_eq!(values(&mut m, 2, X, Relaxed), [1]);
        m.load(2, X, Relaxed, 0);
        assert_eq!(values(&mut m, 2, X, Relaxed), [1]);
    }

    #[test]
    fn reading_the_latest_ends_a_row_of_stale_rereads() {
        let mut m = two_threads();
        assert_eq!(values(&mut m, 2, X, Relaxed), [0]);
        m.load(2, X, Relaxed, 0);
        m.store(1, X, 1, Relaxed, here(), 0);
        m.load(2, X, Relaxed, 1);
        m.load(2, X, Relaxed, 1);
        m.store(1, X, 2, Relaxed, here(), 0);
        // 1 is not yet read: 0, read twice again, is still readable once.
        assert_eq!(values(&mut m, 2, X, Relaxed), [2, 1]);
        m.load(2, X, Relaxed, 1);
        assert_eq!(values(&mut m, 2, X, Relaxed), [2, 1]);
    }
}
