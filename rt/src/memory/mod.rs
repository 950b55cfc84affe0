//! Weak memory: the C11 model of Rust's atomics under
//! [`MemoryModel::Weak`] ([`model`]), and which store each load reads, a
//! scheduling choice ([`choice`]). Under [`MemoryModel::Sc`] (the default)
//! none of this runs: every atomic reads its latest store, as before.
//!
//! The atomics (`crate::sync::atomic`) call the functions here after their
//! operation's scheduling point; the executor's synchronisation operations
//! call [`Memory::spawn`], [`Memory::join`], [`Memory::release_into`] and
//! [`Memory::acquire_from`] (one release at an operation's start, one
//! acquire at its end: `crate::op`).
//!
//! Where `op` calls them: a release into the object as an operation
//! enters (`step::enter`), an acquire as it is done (`step::sync_done`),
//! and an acquire in `op/memory.rs`'s `access` when a synchronisation
//! object is read as memory (a `Once` found complete, which [`publish`]
//! released into first); and at spawn, join, park and unpark. The model is
//! in use from a run's first atomic operation other than `SeqCst` (or its
//! first cell access or unsync load): a run that uses `SeqCst` only pays
//! for nothing but that check.
//!
//! The parts: [`model`] (with `clock.rs`'s vector clocks), [`choice`],
//! `spurious.rs` (a weak compare-exchange's spurious failure, at most once
//! in a row per thread and atomic), `spin.rs` (a thread that re-reads one
//! value without yielding gives way), `race.rs` (data races on
//! `UnsafeCell`s) and `unsync.rs` (loom's `unsync_load`); this module
//! holds the atomics' and cells' hooks and the report's stale reads.

pub mod choice;
mod clock;
pub mod model;
pub mod race;
mod spin;
mod spurious;
pub mod unsync;

use std::fmt::Write as _;
use std::sync::atomic::Ordering;

use rankcheck_engine::ThreadId;
use rankcheck_stats::Probability;

use crate::executor::with;
use crate::footprint::Place;
use crate::object::Handle;
use crate::var::short_file;
use choice::{ReadChoices, ReadPolicy};
use model::{Model, Site, HISTORY};
use race::{Access, Race, Races};

/// The memory model runs explore (`Builder::memory_model`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemoryModel {
    /// Sequentially consistent: every atomic operation acts as `SeqCst`,
    /// whatever its `Ordering` (the default).
    #[default]
    Sc,
    /// C11 weak memory as Rust's atomics have it: a load may read a store
    /// other than the latest (one of its atomic's last 4 stores) where its
    /// `Ordering`s allow, fences order, and `compare_exchange_weak` may fail
    /// spuriously.
    Weak,
}

impl MemoryModel {
    /// Its name in the JSON summary's `memory_model`: `sc` or `weak`, as
    /// the test attribute's `memory_model` reads it.
    pub fn name(self) -> &'static str {
        match self {
            MemoryModel::Sc => "sc",
            MemoryModel::Weak => "weak",
        }
    }

    /// What a guarantee under this model covers, as reports say it.
    pub fn covers(self) -> String {
        match self {
            MemoryModel::Sc => "sequentially consistent".to_owned(),
            MemoryModel::Weak => format!("C11 weak memory, history bound {HISTORY}"),
        }
    }
}

impl MemoryModel {
    /// The per-run bound of a setting of `depth` whose sequentially
    /// consistent bound is `bound`: under weak memory each of the `depth -
    /// 1` change points is a stale read instead with chance 1/2, which
    /// reads the store the bug needs with chance at least `1/(HISTORY -
    /// 1)`; so a bug of depth `d`, its stale reads counted, is found with
    /// at least `bound` times `(2 (HISTORY - 1))^-(d-1)`
    /// (docs/ALGORITHMS.md, Weak memory).
    pub fn bound(self, bound: Probability, depth: u32) -> Probability {
        if self == MemoryModel::Sc {
            return bound;
        }
        let per_change = (2.0 * (HISTORY - 1) as f64).ln();
        let ln = bound.ln() - f64::from(depth.saturating_sub(1)) * per_change;
        Probability::from_ln(ln).unwrap_or(bound)
    }
}

/// A value of an atomic as the model keeps it: its bits.
pub trait Bits: Copy {
    /// The value's bits.
    fn to_bits(self) -> u64;
    /// The value of bits made by [`Bits::to_bits`].
    fn from_bits(bits: u64) -> Self;
    /// The value as a report shows it.
    fn show(bits: u64) -> String;
}

macro_rules! int_bits {
    ($($int:ty),*) => {
        $(impl Bits for $int {
            fn to_bits(self) -> u64 {
                self as u64
            }
            fn from_bits(bits: u64) -> $int {
                bits as $int
            }
            fn show(bits: u64) -> String {
                (bits as $int).to_string()
            }
        })*
    };
}

int_bits!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl Bits for bool {
    fn to_bits(self) -> u64 {
        u64::from(self)
    }
    fn from_bits(bits: u64) -> bool {
        bits != 0
    }
    fn show(bits: u64) -> String {
        (bits != 0).to_string()
    }
}

impl<T> Bits for *mut T {
    // A stale pointer comes back with the provenance its store exposed.
    fn to_bits(self) -> u64 {
        self.expose_provenance() as u64
    }
    fn from_bits(bits: u64) -> *mut T {
        std::ptr::with_exposed_provenance_mut(bits as usize)
    }
    fn show(bits: u64) -> String {
        format!("{:#x}", bits)
    }
}

/// A load that read a store other than the latest, or a weak
/// compare-exchange that failed spuriously: what a failing run's report
/// names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleRead {
    /// The thread that read.
    pub thread: ThreadId,
    /// Where.
    pub at: Site,
    /// Its ordering.
    pub order: Ordering,
    /// The value read (`None`: a spurious failure).
    pub read: Option<String>,
    /// Where the store read was made (`None`: the atomic's first value).
    pub from: Option<Site>,
    /// Where the atomic was made (its first value's place).
    pub created: Site,
    /// The latest value in mo.
    pub latest: String,
    /// Where the latest store was made.
    pub latest_at: Option<Site>,
}

impl StaleRead {
    /// `x.rs:30: read 0 from the store at x.rs:12 though 1 was stored at
    /// x.rs:20 (Relaxed)`, the thread named by `thread`.
    pub fn describe(&self, thread: &str) -> String {
        let created = format!(
            "{}:{}",
            short_file(self.created.file()),
            self.created.line()
        );
        let place = |site: Option<Site>| match site {
            Some(s) => format!("the store at {}:{}", short_file(s.file()), s.line()),
            None => format!("the initial value at {created}"),
        };
        let mut out = format!(
            "{thread} at {}:{}: ",
            short_file(self.at.file()),
            self.at.line()
        );
        match &self.read {
            Some(read) => {
                let _ = write!(out, "read {read} from {}", place(self.from));
                let latest = match self.latest_at {
                    Some(s) => format!("stored at {}:{}", short_file(s.file()), s.line()),
                    None => format!("its initial value at {created}"),
                };
                let _ = write!(
                    out,
                    " though {} was {latest} ({:?})",
                    self.latest, self.order
                );
            }
            None => {
                let _ = write!(
                    out,
                    "compare_exchange_weak failed spuriously, {} being there ({:?})",
                    self.latest, self.order
                );
            }
        }
        out
    }
}

/// What a finished run's memory leaves the next run: its model, cells and
/// spin rows, whose room the next run reuses (emptied) instead of
/// allocating it again (they were a sixth of the heap blocks of boxcar
/// 0.2.12's failing loom test, results/explore_rt.md).
#[derive(Debug, Default)]
pub struct Spare {
    model: Option<Model>,
    races: Races,
    spins: spin::Spins,
}

/// One execution's memory.
#[derive(Debug, Default)]
pub struct Memory {
    /// The model, under [`MemoryModel::Weak`].
    model: Option<Model>,
    /// Whether the model is in use: from the run's first atomic operation
    /// other than `SeqCst` on. Before it, the run is sequentially
    /// consistent, and the model starts as if every thread had seen every
    /// atomic's latest store then (which only strengthens the run, as a
    /// SeqCst fence in every thread would): a SeqCst-only test pays for
    /// nothing but this check.
    engaged: bool,
    choices: ReadChoices,
    /// The stale reads so far.
    pub stale: Vec<StaleRead>,
    /// The cells' accesses, for their data races.
    races: Races,
    /// The threads' re-reads of one value, to tell a spin.
    spins: spin::Spins,
}

impl Memory {
    /// The memory of a run under `model`, its choices by `policy`, its
    /// weak compare-exchanges offered the spurious failure when
    /// `spurious_cas` says, in the room an earlier run left (`spare`).
    pub fn new(model: MemoryModel, policy: ReadPolicy, spurious_cas: bool, spare: Spare) -> Memory {
        WEAK.set(model == MemoryModel::Weak);
        let Spare {
            model: spare_model,
            mut races,
            mut spins,
        } = spare;
        let model = (model == MemoryModel::Weak).then(|| {
            let mut m = spare_model.unwrap_or_default();
            m.clear();
            m
        });
        races.clear();
        spins.clear();
        Memory {
            model,
            engaged: false,
            choices: ReadChoices::new(policy).offering_spurious_failures(spurious_cas),
            stale: Vec::new(),
            races,
            spins,
        }
    }

    /// The choices other than the latest the run made, and the loads the
    /// history bound cut; gives back the memory's room for the next run.
    pub fn finish(self) -> (Vec<choice::ReadChoice>, u64, Spare) {
        WEAK.set(false);
        let cut = self.engaged().map_or(0, |m| m.cut);
        let spare = Spare {
            model: self.model,
            races: self.races,
            spins: self.spins,
        };
        (self.choices.made, cut, spare)
    }

    /// The model, once in use.
    fn engaged(&self) -> Option<&Model> {
        self.model.as_ref().filter(|_| self.engaged)
    }

    /// The model, once in use, to change.
    fn engaged_mut(&mut self) -> Option<&mut Model> {
        self.model.as_mut().filter(|_| self.engaged)
    }

    /// Whether the model is in use (the run is under weak memory and has
    /// made an atomic operation other than `SeqCst`).
    #[inline]
    pub fn is_engaged(&self) -> bool {
        self.engaged().is_some()
    }

    /// `parent` spawned `child`.
    pub fn spawn(&mut self, parent: ThreadId, child: ThreadId) {
        if let Some(m) = self.engaged_mut() {
            m.spawn(parent.index(), child.index());
        }
    }

    /// `joiner` joined the finished `joined`.
    pub fn join(&mut self, joiner: ThreadId, joined: ThreadId) {
        if let Some(m) = self.engaged_mut() {
            m.join(joiner.index(), joined.index());
        }
    }

    /// `thread` unparks `target`.
    pub fn unpark(&mut self, thread: ThreadId, target: ThreadId) {
        if let Some(m) = self.engaged_mut() {
            m.unpark(thread.index(), target.index());
        }
    }

    /// `thread` returns from a park, having taken its token.
    pub fn park(&mut self, thread: ThreadId) {
        if let Some(m) = self.engaged_mut() {
            m.park(thread.index());
        }
    }

    /// `thread` gives way (`thread::give_way`): the stores it read so far
    /// are not read again by it where a newer one exists.
    pub fn gave_way(&mut self, thread: ThreadId) {
        if let Some(m) = self.engaged_mut() {
            m.gave_way(thread.index());
        }
    }

    /// `thread` releases its history into the synchronisation object with
    /// index `object` (an operation on it begins).
    pub fn release_into(&mut self, thread: ThreadId, object: usize) {
        if let Some(m) = self.engaged_mut() {
            m.release_into(thread.index(), object);
        }
    }

    /// `thread` acquires what the object with index `object` released (an
    /// operation on it ends).
    pub fn acquire_from(&mut self, thread: ThreadId, object: usize) {
        if let Some(m) = self.engaged_mut() {
            m.acquire_from(thread.index(), object);
        }
    }
}

thread_local! {
    /// Whether the execution on this OS thread runs under weak memory: the
    /// atomics' one check under sequential consistency.
    static WEAK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Run `f` on the running execution's model (`None` before it is in use)
/// if the run is under weak memory and the operation on `handle` is live
/// (not unwinding, not another run's); an atomic operation of ordering
/// `order` other than `SeqCst` puts the model in use.
///
/// The step's footprint (for [`crate::explore`]'s reduction) takes the
/// model's state shared by every atomic, `Place::Atomics`: a `SeqCst`
/// operation reads the SeqCst order (a load) or writes it (a store, a
/// read-modify-write, a fence), and the operation that puts the model in
/// use writes it (the atomics' histories start there). Every other part
/// of the model is one atomic's or one thread's, so that other
/// operations on different atomics commute (their `Place::Memory`).
fn on_model<R>(
    handle: Option<&Handle>,
    order: Ordering,
    writes: bool,
    f: impl FnOnce(Option<&mut Model>, &mut ReadChoices, &mut Vec<StaleRead>, Running) -> Option<R>,
) -> Option<R> {
    if !WEAK.get() || std::thread::panicking() {
        return None;
    }
    with(|ex| {
        if ex.aborting {
            return None;
        }
        ex.memory.model.as_ref()?;
        let (access, created) = match handle {
            Some(h) if h.execution != ex.id => return None,
            Some(h) => {
                let var = ex.objects[h.object.index()].var;
                let created = ex.registry.vars()[var.index()].site;
                (ex.is_tracked(h.object).then_some(ex.tracked_steps), created)
            }
            None => (None, std::panic::Location::caller()),
        };
        let engages = !ex.memory.engaged && order != Ordering::SeqCst && handle.is_some();
        if engages || order == Ordering::SeqCst {
            ex.touch(Place::Atomics, engages || writes);
        }
        let memory = &mut ex.memory;
        memory.engaged |= engages;
        let model = memory.model.as_mut().filter(|_| memory.engaged);
        let running = Running {
            thread: ex.current,
            access,
            created,
        };
        f(model, &mut memory.choices, &mut memory.stale, running)
    })
}

/// The thread an atomic operation runs on, and its tracked-access count
/// if its atomic is tracked.
#[derive(Clone, Copy)]
struct Running {
    thread: ThreadId,
    access: Option<u64>,
    /// Where the atomic was made.
    created: Site,
}

/// A load of `handle`'s atomic with `order` at `site`, whose latest value
/// is `latest`: the value it reads, or `None` under
/// [`MemoryModel::Sc`] (the latest).
pub fn load<V: Bits>(handle: &Handle, order: Ordering, latest: V, site: Site) -> Option<V> {
    let read = read(handle, order, latest, site);
    spin_watch(handle, read.unwrap_or(latest).to_bits(), site);
    read
}

/// `handle`'s atomic was loaded, reading `bits`: a thread that spins on it
/// gives way (`spin.rs`, under either memory model), its step then
/// touching everything as a `give_way`'s does.
fn spin_watch(handle: &Handle, bits: u64, site: Site) {
    on_live(handle, |ex| {
        let thread = ex.current.index();
        if ex
            .memory
            .spins
            .loaded(thread, handle.object.index(), bits, site)
        {
            ex.give_way();
        }
    });
}

/// The running thread stored into `handle`'s atomic: it does not spin.
fn stored(handle: &Handle) {
    on_live(handle, |ex| ex.memory.spins.stored(ex.current.index()));
}

/// Run `f` on the running execution if the operation on `handle` is live
/// (not unwinding, not another run's, the run not being torn down).
fn on_live(handle: &Handle, f: impl FnOnce(&mut crate::executor::Execution)) {
    if std::thread::panicking() {
        return;
    }
    crate::executor::try_with(|ex| {
        if ex.is_live_for(handle) {
            f(ex);
        }
    });
}

/// The value a load reads, under weak memory (as [`load`]).
fn read<V: Bits>(handle: &Handle, order: Ordering, latest: V, site: Site) -> Option<V> {
    let latest = latest.to_bits();
    on_model(Some(handle), order, false, |model, choices, stale, run| {
        let model = model?;
        let (thread, object) = (run.thread.index(), handle.object.index());
        model.behind_the_back(object, latest);
        let options = model.readable(thread, object, order, latest);
        let back = if options > 1 {
            choices.decide(handle.var, options, run.access)
        } else {
            0
        };
        if back > 0 {
            let (store, newest) = (model.store_at(object, back), model.store_at(object, 0));
            stale.push(StaleRead {
                thread: run.thread,
                at: site,
                order,
                read: Some(V::show(store.value)),
                from: store.site,
                created: run.created,
                latest: V::show(newest.value),
                latest_at: newest.site,
            });
        }
        Some(V::from_bits(model.load(thread, object, order, back)))
    })
}

/// A store of `value` into `handle`'s atomic with `order` at `site`;
/// `before` is its value before.
pub fn store<V: Bits>(handle: &Handle, order: Ordering, before: V, value: V, site: Site) {
    let raced = on_model(Some(handle), order, true, |model, _, _, run| {
        let object = handle.object.index();
        let model = model?;
        model.behind_the_back(object, before.to_bits());
        model.store(
            run.thread.index(),
            object,
            value.to_bits(),
            order,
            site,
            before.to_bits(),
        );
        model.unsync_race.take()
    });
    stored(handle);
    if let Some(raced) = raced {
        unsync::store_raced(handle, raced);
    }
}

/// A read-modify-write of `handle`'s atomic with `order` at `site` that
/// read `before` and stored `after` (`None`: a compare-exchange that
/// failed, which only reads).
pub fn read_modify_write<V: Bits>(
    handle: &Handle,
    order: Ordering,
    before: V,
    after: Option<V>,
    site: Site,
) {
    let before = before.to_bits();
    let after = after.map(Bits::to_bits);
    let raced = on_model(Some(handle), order, true, |model, _, _, run| {
        let object = handle.object.index();
        let model = model?;
        model.behind_the_back(object, before);
        model.read_modify_write(run.thread.index(), object, after, order, site, before);
        model.unsync_race.take()
    });
    // A failed compare-exchange only reads: a retry loop of them that
    // keeps finding one value spins.
    match after {
        Some(_) => stored(handle),
        None => spin_watch(handle, before, site),
    }
    if let Some(raced) = raced {
        unsync::store_raced(handle, raced);
    }
}

/// A `compare_exchange_weak` of `handle`'s atomic at `site` that would
/// succeed, `current` being there: whether it fails spuriously instead (a
/// choice under [`MemoryModel::Weak`]; it then reads `current` with
/// `failure`).
pub fn fails_spuriously<V: Bits>(
    handle: &Handle,
    failure: Ordering,
    current: V,
    site: Site,
) -> bool {
    let bits = current.to_bits();
    on_model(
        Some(handle),
        failure,
        false,
        |model, choices, stale, run| {
            let object = handle.object.index();
            if !choices.fails_spuriously(run.thread, object, handle.var, run.access) {
                return Some(false);
            }
            if let Some(model) = model {
                model.behind_the_back(object, bits);
                model.read_modify_write(run.thread.index(), object, None, failure, site, bits);
            }
            stale.push(StaleRead {
                thread: run.thread,
                at: site,
                order: failure,
                read: None,
                from: None,
                created: run.created,
                latest: V::show(bits),
                latest_at: None,
            });
            Some(true)
        },
    )
    .unwrap_or(false)
}

/// The running thread publishes its history through `handle`'s
/// synchronisation object before a change other threads read without a
/// scheduling point of its own (a `Once` marked complete): what they
/// acquire from the object then includes it. The running step touches
/// the object (for [`crate::explore`], under every model).
pub fn publish(handle: &Handle) {
    crate::executor::try_with(|ex| {
        if ex.id != handle.execution || ex.aborting {
            return;
        }
        ex.touch(crate::footprint::Place::Object(handle.var.0), true);
        if WEAK.get() {
            ex.memory.release_into(ex.current, handle.object.index());
        }
    });
}

/// A fence with `order` on the running thread.
pub fn fence(order: Ordering) {
    // A fence before the model is in use orders nothing more: the run is
    // sequentially consistent so far. Only a SeqCst one touches what other
    // threads see (the SeqCst order); the others, their own thread's view.
    on_model(None, order, true, |model, _, _, run| {
        model.map(|m| m.fence(run.thread.index(), order))
    });
}

/// An access of kind `access` to `handle`'s cell begins at `site` (after
/// its scheduling point): under weak memory, the data race it makes, in
/// words (crate::memory::race). It puts the model in use.
pub fn cell_begin(handle: &Handle, access: Access, site: Site) -> Option<String> {
    on_cell(handle, |memory, thread| {
        let model = memory.model.as_mut()?;
        let clock = model.event_clock(thread.index());
        memory
            .races
            .begin(handle.object.index(), access, (thread, clock), site)
    })
}

/// The access begun by [`cell_begin`] ends: the race it makes, in words.
/// It ends at the thread's last event, not a new one (`Model::clock_now`).
/// The step it ends in touches the cell as the access did: another
/// thread's access to it races with the open access until then.
pub fn cell_end(handle: &Handle, access: Access) -> Option<String> {
    let write = access == Access::Write;
    crate::executor::try_with(|ex| {
        if WEAK.get() && ex.is_live_for(handle) {
            ex.touch(Place::Memory(handle.var.0), write);
        }
    });
    on_cell(handle, |memory, thread| {
        let model = memory.model.as_mut()?;
        let clock = model.clock_now(thread.index());
        memory.races.end(handle.object.index(), access, clock)
    })
}

/// Run `f` on the memory of the execution `handle`'s cell belongs to, under
/// weak memory, live (not unwinding): the race it found, in words.
fn on_cell(
    handle: &Handle,
    f: impl FnOnce(&mut Memory, ThreadId) -> Option<Race>,
) -> Option<String> {
    if !WEAK.get() || std::thread::panicking() {
        return None;
    }
    with(|ex| {
        if !ex.is_live_for(handle) {
            return None;
        }
        if !ex.memory.engaged {
            // The atomics' histories start here (as in `on_model`).
            ex.touch(Place::Atomics, true);
            ex.memory.engaged = true;
        }
        let race = f(&mut ex.memory, ex.current)?;
        let cell = ex.registry.name_of(handle.var).to_owned();
        let name = |t: ThreadId| ex.threads.name(t);
        Some(describe_race(&race, &cell, &name(ex.current), name))
    })
}

/// `Causality violation: ...`, loom's words, naming the cell, the two
/// threads and where the earlier access was.
fn describe_race(
    race: &Race,
    cell: &str,
    thread: &str,
    name: impl Fn(ThreadId) -> String,
) -> String {
    let verb = |access: Access| match access {
        Access::Read => "read",
        Access::Write => "write",
    };
    if race.overlapping {
        return format!(
            "Causality violation: {thread} begins to {} {cell} while another access to it is open",
            verb(race.access)
        );
    }
    let kinds = match race.earlier.map(|e| e.0) {
        Some(Access::Write) if race.access == Access::Write => "Concurrent write accesses",
        _ => "Concurrent read and write accesses",
    };
    let mut out = format!(
        "Causality violation: {kinds} to `UnsafeCell` {cell}: {thread} {}s it",
        verb(race.access)
    );
    if let Some((access, other, site)) = race.earlier {
        let _ = write!(
            out,
            ", and {} {} it at {}:{} with no happens-before between them",
            name(other),
            match access {
                Access::Read => "read",
                Access::Write => "wrote",
            },
            short_file(site.file()),
            site.line()
        );
    }
    out
}
