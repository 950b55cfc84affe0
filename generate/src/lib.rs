//! A generator of small, well-formed, terminating `.rk` programs for
//! differential testing: [`program`] is a proptest [`Strategy`] of source
//! text, and [`render_rust`] writes a drawn [`Plan`] also as its Rust twin,
//! a rankcheck-rt test. The reference interpreter's tests hold the VM to
//! it on these programs (rankcheck-reference), and crossfront holds the
//! two front ends to one verdict on their twins.
//!
//! The crate depends on nothing of rankcheck's: crossfront's build script
//! draws its programs with it, and what a build script uses is compiled
//! once more, for the host.
//!
//! A program is drawn as a [`Plan`] (its shape, its shared state and a list
//! of [`Snippet`]s per thread) and then rendered. Snippets name globals,
//! mutexes and values by small numbers that the renderer reduces to what
//! the plan declares, so every combination renders to a valid program; a
//! snippet that needs something the plan lacks (a second mutex, a condition
//! variable, a heap object) falls back to a plain increment.
//!
//! Programs terminate on every schedule: loops are `for` loops of 1-3
//! iterations, and the only `while` loop is the condition-variable wait
//! loop, whose every iteration needs a fresh `signal` or `broadcast`. They
//! may deadlock, fail an assertion or divide by zero, which is the point.
//! Every statement is on its own line, because failures are compared by
//! line. Nothing is generated that the compiler refuses: `await` conditions
//! only read, and no `await`, `wait` or `lock` is put inside `atomic`.
//!
//! The knobs are [`Knobs`]; [`program`] uses the defaults, which keep every
//! program small enough for the reference's model checker to
//! explore in a few milliseconds.

mod render;

use proptest::collection::vec;
use proptest::prelude::*;

/// What the generator may produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Knobs {
    /// The most threads, `main` included (at least 2; 2 or 3 is tiny).
    pub max_threads: usize,
    /// The most snippets per thread body (each is one to six visible
    /// operations).
    pub max_snippets: usize,
    /// The most global scalars (1 to 4).
    pub max_globals: usize,
    /// The most iterations of a generated `for` loop.
    pub max_loop: u8,
    /// The most visible operations (roughly counted, see [`Snippet::cost`])
    /// of one thread body; snippets past it are dropped, the first is
    /// always kept.
    pub max_thread_ops: u32,
}

impl Default for Knobs {
    /// 2-3 threads of 1-3 snippets and at most about 5 visible
    /// operations each, up to 4 globals, loops of 1-3 iterations.
    fn default() -> Knobs {
        Knobs {
            max_threads: 3,
            max_snippets: 3,
            max_globals: 4,
            max_loop: 3,
            max_thread_ops: 5,
        }
    }
}

/// Source text of small programs drawn with the default [`Knobs`].
pub fn program() -> impl Strategy<Value = String> {
    program_with(Knobs::default())
}

/// Source text of small programs drawn with `knobs`.
pub fn program_with(knobs: Knobs) -> impl Strategy<Value = String> {
    plan(knobs).prop_map(|plan| render(&plan))
}

/// How threads come to exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// One `thread` item per thread.
    Items,
    /// A replicated `thread w[2](i)`, plus a `thread` item for a third.
    Replicated,
    /// `fn main` spawns `fn` threads, sometimes inside `atomic`, and joins
    /// them before a final assertion.
    Spawner,
}

/// The heap object `main` makes and shares through the global `box`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heap {
    /// No heap object.
    None,
    /// `new { v: 0, w: 0 }`
    Record,
    /// `new [2]`
    Array,
}

/// One piece of a thread body. Numbers are reduced modulo what the plan
/// declares when rendered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Snippet {
    /// `g = g + 1;`
    Increment(u8),
    /// `g = v;`
    Store(u8, u8),
    /// Two reads of `g` and an assertion that they agree.
    ReadTwice(u8),
    /// `assert(g <= bound, ..)`
    AssertAtMost(u8, u8),
    /// `if g == v { h = 1; } else { h = 2; }`
    IfShared(u8, u8, u8),
    /// `lock(m); g = g + 1; unlock(m);`
    Locked(u8, u8),
    /// `sync m { let t = g; g = t + 1; }`
    Sync(u8, u8),
    /// Two mutexes nested, in the order given by the flag: two threads
    /// with different flags make a lock-order inversion.
    Nested(bool, u8),
    /// `await g == v;`
    Await(u8, u8),
    /// `await ready(v);`, a helper that only reads.
    AwaitHelper(u8),
    /// `atomic { g = g + 1; h = g; }`
    Atomic(u8, u8),
    /// `lock(m); g = g + 1; atomic { h = g; unlock(m); }`
    AtomicUnlock(u8, u8, u8),
    /// `yield;`
    Yield,
    /// `for k in 0..n { g = g + 1; }`
    Loop(u8, u8),
    /// `add(k);` or `let t = get();`: calls of helpers over `g0`.
    Call(bool, u8),
    /// `let q = 6 / g;`: divides by zero when `g` is 0.
    Divide(u8),
    /// `arr[i] = arr[i] + 1;` (`i` the copy index in a replicated thread).
    ArrayBump(u8),
    /// A read-modify-write of the heap object through `box`.
    HeapBump(u8),
    /// `lock(m); while g == 0 { wait(c, m); } g = g - 1; unlock(m);`
    Consume(u8),
    /// `lock(m); g = g + 1; signal(c); unlock(m);` (or `broadcast`)
    Produce(u8, bool),
}

impl Snippet {
    /// Roughly how many visible operations the snippet performs when
    /// nothing blocks: what keeps generated programs tiny.
    pub fn cost(self) -> u32 {
        match self {
            Snippet::Store(..)
            | Snippet::AssertAtMost(..)
            | Snippet::Await(..)
            | Snippet::AwaitHelper(_)
            | Snippet::Atomic(..)
            | Snippet::Yield
            | Snippet::Divide(_) => 1,
            Snippet::Increment(_)
            | Snippet::ReadTwice(_)
            | Snippet::IfShared(..)
            | Snippet::ArrayBump(_) => 2,
            Snippet::Call(add, _) => 1 + u32::from(add),
            Snippet::HeapBump(_) => 3,
            Snippet::Locked(..) | Snippet::Sync(..) | Snippet::AtomicUnlock(..) => 4,
            Snippet::Consume(_) | Snippet::Produce(..) => 5,
            Snippet::Nested(..) => 6,
            Snippet::Loop(n, _) => 2 * u32::from(n),
        }
    }
}

/// The longest prefix of `body` within `max_ops` visible operations.
fn within(mut body: Vec<Snippet>, max_ops: u32) -> Vec<Snippet> {
    let mut total = 0;
    let keep = body
        .iter()
        .position(|snippet| {
            total += snippet.cost();
            total > max_ops
        })
        .unwrap_or(body.len());
    body.truncate(keep);
    body
}

/// The bodies the style renders: one per thread, but one for both copies
/// of the replicated thread.
fn rendered(style: Style, n_threads: usize, mut bodies: Vec<Vec<Snippet>>) -> Vec<Vec<Snippet>> {
    let distinct = match style {
        Style::Replicated => n_threads - 1,
        Style::Items | Style::Spawner => n_threads,
    };
    bodies.truncate(distinct);
    bodies
}

/// Each thread's body within its budget: `main` in the spawner style
/// already spends about six operations on spawning, joining and its final
/// check, so its own snippets get half the budget; the thread item that
/// ends with the final check gets one operation less; a thread item keeps
/// at least its first snippet.
fn budgeted(
    style: Style,
    bodies: Vec<Vec<Snippet>>,
    max_ops: u32,
    checked: bool,
) -> Vec<Vec<Snippet>> {
    let last = bodies.len() - 1;
    bodies
        .into_iter()
        .enumerate()
        .map(|(k, body)| {
            let first = body[0];
            let budget = match (style, k) {
                (Style::Spawner, 0) => return within(body, max_ops / 2),
                (Style::Spawner, _) => max_ops,
                _ if k == last && checked => max_ops.saturating_sub(1),
                _ => max_ops,
            };
            Some(within(body, budget))
                .filter(|kept| !kept.is_empty())
                .unwrap_or_else(|| vec![first])
        })
        .collect()
}

/// A whole program before rendering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// How threads come to exist.
    pub style: Style,
    /// How many threads, `main` included.
    pub n_threads: usize,
    /// Initial values of the global scalars `g0`, `g1`, ... (1 to 4).
    pub globals: Vec<i64>,
    /// Whether there is a global array `arr[2]`.
    pub array: bool,
    /// The heap object, in the [`Style::Spawner`] style only.
    pub heap: Heap,
    /// How many mutexes (0 to 2; at least 1 with a condition variable).
    pub mutexes: usize,
    /// Whether there is a condition variable `c`.
    pub cond: bool,
    /// Each thread's snippets (the replicated copies share the first).
    pub bodies: Vec<Vec<Snippet>>,
    /// [`Style::Spawner`]: whether the last worker is spawned inside
    /// `atomic`.
    pub spawn_in_atomic: bool,
    /// An `assert(g != v)` as `(g, v)`, at the end of `main` after the
    /// joins in the [`Style::Spawner`] style, else at the end of the last
    /// thread item.
    pub final_check: Option<(u8, u8)>,
}

fn snippet(max_loop: u8) -> impl Strategy<Value = Snippet> {
    let small = 0u8..4;
    prop_oneof![
        6 => small.clone().prop_map(Snippet::Increment),
        2 => (small.clone(), 0u8..3).prop_map(|(g, v)| Snippet::Store(g, v)),
        4 => small.clone().prop_map(Snippet::ReadTwice),
        3 => (small.clone(), 0u8..4).prop_map(|(g, v)| Snippet::AssertAtMost(g, v)),
        2 => (small.clone(), 0u8..3, small.clone()).prop_map(|(g, v, h)| Snippet::IfShared(g, v, h)),
        3 => (0u8..2, small.clone()).prop_map(|(m, g)| Snippet::Locked(m, g)),
        2 => (0u8..2, small.clone()).prop_map(|(m, g)| Snippet::Sync(m, g)),
        1 => (any::<bool>(), small.clone()).prop_map(|(f, g)| Snippet::Nested(f, g)),
        2 => (small.clone(), 0u8..3).prop_map(|(g, v)| Snippet::Await(g, v)),
        1 => (0u8..3).prop_map(Snippet::AwaitHelper),
        2 => (small.clone(), small.clone()).prop_map(|(g, h)| Snippet::Atomic(g, h)),
        1 => (0u8..2, small.clone(), small.clone()).prop_map(|(m, g, h)| Snippet::AtomicUnlock(m, g, h)),
        1 => Just(Snippet::Yield),
        2 => (1..=max_loop, small.clone()).prop_map(|(n, g)| Snippet::Loop(n, g)),
        2 => (any::<bool>(), 1u8..3).prop_map(|(add, k)| Snippet::Call(add, k)),
        1 => small.clone().prop_map(Snippet::Divide),
        2 => (0u8..2).prop_map(Snippet::ArrayBump),
        2 => (0u8..2).prop_map(Snippet::HeapBump),
        2 => small.clone().prop_map(Snippet::Consume),
        2 => (small, any::<bool>()).prop_map(|(g, all)| Snippet::Produce(g, all)),
    ]
}

/// Plans of small programs drawn with `knobs`, to render with [`render`]
/// and [`render_rust`].
pub fn plan(knobs: Knobs) -> impl Strategy<Value = Plan> {
    let style = prop_oneof![
        Just(Style::Items),
        Just(Style::Replicated),
        Just(Style::Spawner)
    ];
    let heap = prop_oneof![2 => Just(Heap::None), 1 => Just(Heap::Record), 1 => Just(Heap::Array)];
    let max_threads = knobs.max_threads.max(2);
    let bodies = vec(
        vec(
            snippet(knobs.max_loop.max(1)),
            1..=knobs.max_snippets.max(1),
        ),
        max_threads,
    );
    let shape = (
        style,
        2..=max_threads,
        vec(0i64..2, 1..=knobs.max_globals.clamp(1, 4)),
    );
    let sync = (any::<bool>(), heap, 0usize..3, prop::bool::weighted(0.3));
    let spawner = (any::<bool>(), prop::option::weighted(0.7, (0u8..4, 0u8..4)));
    (shape, sync, bodies, spawner).prop_map(
        move |((style, n_threads, globals), (array, heap, mutexes, cond), bodies, spawner)| {
            let (spawn_in_atomic, final_check) = spawner;
            Plan {
                style,
                n_threads,
                globals,
                array,
                heap: if style == Style::Spawner {
                    heap
                } else {
                    Heap::None
                },
                mutexes: if cond { mutexes.max(1) } else { mutexes },
                cond,
                bodies: budgeted(
                    style,
                    rendered(style, n_threads, bodies),
                    knobs.max_thread_ops,
                    final_check.is_some(),
                ),
                spawn_in_atomic,
                final_check,
            }
        },
    )
}

/// Renders `plan` as source text.
pub fn render(plan: &Plan) -> String {
    render::render(plan).rk
}

/// A generated program as a Rust test of rankcheck-rt, each `.rk`
/// construct as its Rust counterpart, one line for one line.
///
/// The code is a module body: `pub fn run()`, the test (make the shared
/// state, start the threads), and one function per thread and helper. It
/// expects in scope: `thread` (rankcheck-rt's), `W` (an `Arc` of the
/// shared state, which functions take as `cx: &W`), `World::new(&[initial
/// values], &[guarded], awaited)`, `Vals` (the guarded globals,
/// `st.g[k]`), `spawn(&W, fn(&W))` and `spawn_copy(&W, fn(&W,
/// usize), usize)`; and of the state: `cx.g(k)` and `cx.set(k, v)` (global
/// `gk`), `cx.arr(i)` and `cx.set_arr(i, v)` (`arr`), `cx.set_box()` and
/// `cx.boxed()` (the heap object through `box`, with `get(slot)` and
/// `set(slot, v)`), `cx.m[k]` (mutex `mk`), `cx.c` (`c`), `cx.state()`
/// (the globals' guard: `atomic`), `cx.changed()` (wake the awaiting
/// threads, at the end of `atomic`) and `cx.await_until(|st: &Vals|
/// condition)` (`await`).
///
/// | `.rk` | Rust |
/// | --- | --- |
/// | `global gk` | `cx.g(k)`: an atomic, or a field of one mutex-guarded state (guarded) when an `atomic` block or `await` uses it |
/// | `lock(m)` ... `unlock(m)` | `let m = cx.m[k].lock().unwrap();` ... `drop(m);` |
/// | `sync m { .. }` | `{ let m = cx.m[k].lock().unwrap(); .. }` |
/// | `wait(c, m)` | `m = cx.c.wait(m).unwrap();` |
/// | `signal(c)` / `broadcast(c)` | `cx.c.notify_one()` / `cx.c.notify_all()` |
/// | `await e` | a wait on a condition variable, in a loop over `e`, that every write of a global notifies |
/// | `atomic { .. }` | the state's guard held over the block |
/// | `assert(e, "m")` | `assert!(e, "m")` |
/// | `yield` | `thread::yield_now()` |
/// | `spawn f()` / `join(h)` | `thread::spawn` / `h.join().unwrap()` |
/// | thread items | spawned by `run`, in id order |
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RustTwin {
    /// The Rust items.
    pub code: String,
    /// `(line in code, line in the .rk text)`, 1-based, for every Rust
    /// line that renders a `.rk` line: where a failure of one is in the
    /// other.
    pub lines: Vec<(u32, u32)>,
}

/// Renders `plan` as source text and as its Rust twin.
pub fn render_rust(plan: &Plan) -> (String, RustTwin) {
    let rendered = render::render(plan);
    (
        rendered.rk,
        RustTwin {
            code: rendered.rust,
            lines: rendered.lines,
        },
    )
}
