//! A generator of small, well-formed, terminating `.rk` programs for
//! differential testing: [`program`] is a proptest [`Strategy`] of source
//! text.
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
//! program small enough for [`crate::Reference::reachable_failures`] to
//! explore in a few milliseconds.

use std::fmt::Write as _;

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

fn plan(knobs: Knobs) -> impl Strategy<Value = Plan> {
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
    let mut out = Renderer {
        plan,
        text: String::new(),
        depth: 0,
        fresh: 0,
        replicated: false,
    };
    out.declarations();
    out.helpers();
    match plan.style {
        Style::Items => {
            for (k, body) in plan.bodies.iter().enumerate() {
                out.open(&format!("thread t{k} {{"));
                out.body(body);
                if k + 1 == plan.bodies.len() {
                    out.check();
                }
                out.close();
            }
        }
        Style::Replicated => {
            out.open("thread w[2](i) {");
            out.replicated = true;
            out.body(&plan.bodies[0]);
            out.replicated = false;
            if plan.bodies.len() == 1 {
                out.check();
            }
            out.close();
            if let Some(body) = plan.bodies.get(1) {
                out.open("thread t {");
                out.body(body);
                out.check();
                out.close();
            }
        }
        Style::Spawner => out.spawner(),
    }
    out.text
}

/// Writes a program out, one statement per line.
struct Renderer<'p> {
    plan: &'p Plan,
    text: String,
    /// Indentation level.
    depth: usize,
    /// Counter for fresh local names.
    fresh: usize,
    /// Whether the body being written is a replicated thread's (`i` in
    /// scope).
    replicated: bool,
}

impl Renderer<'_> {
    fn line(&mut self, line: &str) {
        let _ = writeln!(self.text, "{}{line}", "    ".repeat(self.depth));
    }

    fn open(&mut self, line: &str) {
        self.line(line);
        self.depth += 1;
    }

    fn close(&mut self) {
        self.depth -= 1;
        self.line("}");
    }

    fn local(&mut self) -> String {
        self.fresh += 1;
        format!("x{}", self.fresh)
    }

    fn global(&self, g: u8) -> String {
        format!("g{}", g as usize % self.plan.globals.len())
    }

    fn mutex(&self, m: u8) -> Option<String> {
        (self.plan.mutexes > 0).then(|| format!("m{}", m as usize % self.plan.mutexes))
    }

    fn declarations(&mut self) {
        let plan = self.plan;
        for (k, init) in plan.globals.iter().enumerate() {
            self.line(&format!("global g{k} = {init};"));
        }
        if plan.array {
            self.line("global arr[2];");
        }
        if plan.heap != Heap::None {
            self.line("global box = null;");
        }
        for m in 0..plan.mutexes {
            self.line(&format!("mutex m{m};"));
        }
        if plan.cond {
            self.line("cond c;");
        }
    }

    fn uses(&self, wanted: fn(&Snippet) -> bool) -> bool {
        self.plan.bodies.iter().flatten().any(wanted)
    }

    fn helpers(&mut self) {
        if self.uses(|s| matches!(s, Snippet::Call(true, _))) {
            self.open("fn add(k) {");
            self.line("g0 = g0 + k;");
            self.close();
        }
        if self.uses(|s| matches!(s, Snippet::Call(false, _))) {
            self.open("fn get() {");
            self.line("return g0;");
            self.close();
        }
        if self.uses(|s| matches!(s, Snippet::AwaitHelper(_))) {
            self.open("fn ready(v) {");
            self.line("return g0 >= v;");
            self.close();
        }
    }

    fn body(&mut self, body: &[Snippet]) {
        for snippet in body {
            self.snippet(*snippet);
        }
    }

    /// `main` makes the heap object, spawns the workers (the last one
    /// inside `atomic` if the plan says so), runs its own snippets, joins
    /// the workers and checks a final value.
    fn spawner(&mut self) {
        let plan = self.plan;
        let workers = plan.n_threads - 1;
        for k in 0..workers {
            self.open(&format!("fn w{k}() {{"));
            self.body(&plan.bodies[k + 1]);
            self.close();
        }
        self.open("fn main() {");
        match plan.heap {
            Heap::None => {}
            Heap::Record => self.line("box = new { v: 0, w: 0 };"),
            Heap::Array => self.line("box = new [2];"),
        }
        for k in 0..workers {
            if k + 1 == workers && plan.spawn_in_atomic {
                self.line(&format!("let h{k} = null;"));
                self.open("atomic {");
                self.line(&format!("h{k} = spawn w{k}();"));
                self.line("g0 = g0 + 1;");
                self.close();
            } else {
                self.line(&format!("let h{k} = spawn w{k}();"));
            }
        }
        self.body(&plan.bodies[0]);
        for k in 0..workers {
            self.line(&format!("join(h{k});"));
        }
        self.check();
        self.close();
    }

    /// The plan's final check, if it has one.
    fn check(&mut self) {
        if let Some((g, v)) = self.plan.final_check {
            let g = self.global(g);
            self.line(&format!("assert({g} != {v}, \"{g} ends at {v}\");"));
        }
    }

    fn snippet(&mut self, snippet: Snippet) {
        match snippet {
            Snippet::Increment(g) => self.increment(g),
            Snippet::Store(g, v) => {
                let g = self.global(g);
                self.line(&format!("{g} = {v};"));
            }
            Snippet::ReadTwice(g) => self.read_twice(g),
            Snippet::AssertAtMost(g, bound) => {
                let g = self.global(g);
                self.line(&format!(
                    "assert({g} <= {bound}, \"{g} is at most {bound}\");"
                ));
            }
            Snippet::IfShared(g, v, h) => self.if_shared(g, v, h),
            Snippet::Locked(m, g) => self.locked(m, g),
            Snippet::Sync(m, g) => self.sync(m, g),
            Snippet::Nested(forward, g) => self.nested(forward, g),
            Snippet::Await(g, v) => {
                let g = self.global(g);
                self.line(&format!("await {g} == {v};"));
            }
            Snippet::AwaitHelper(v) => self.line(&format!("await ready({v});")),
            Snippet::Atomic(g, h) => self.atomic(g, h),
            Snippet::AtomicUnlock(m, g, h) => self.atomic_unlock(m, g, h),
            Snippet::Yield => self.line("yield;"),
            Snippet::Loop(n, g) => self.bounded_loop(n, g),
            Snippet::Call(add, k) => self.call(add, k),
            Snippet::Divide(g) => {
                let (q, g) = (self.local(), self.global(g));
                self.line(&format!("let {q} = 6 / {g};"));
            }
            Snippet::ArrayBump(index) => self.array_bump(index),
            Snippet::HeapBump(index) => self.heap_bump(index),
            Snippet::Consume(g) => self.consume(g),
            Snippet::Produce(g, all) => self.produce(g, all),
        }
    }

    fn increment(&mut self, g: u8) {
        let g = self.global(g);
        self.line(&format!("{g} = {g} + 1;"));
    }

    fn read_twice(&mut self, g: u8) {
        let (first, second, g) = (self.local(), self.local(), self.global(g));
        self.line(&format!("let {first} = {g};"));
        self.line(&format!("let {second} = {g};"));
        self.line(&format!(
            "assert({first} == {second}, \"{g} changed between two reads\");"
        ));
    }

    fn if_shared(&mut self, g: u8, v: u8, h: u8) {
        let (g, h) = (self.global(g), self.global(h));
        self.open(&format!("if {g} == {v} {{"));
        self.line(&format!("{h} = 1;"));
        self.depth -= 1;
        self.open("} else {");
        self.line(&format!("{h} = 2;"));
        self.close();
    }

    fn locked(&mut self, m: u8, g: u8) {
        let Some(m) = self.mutex(m) else {
            return self.increment(g);
        };
        self.line(&format!("lock({m});"));
        self.increment(g);
        self.line(&format!("unlock({m});"));
    }

    fn sync(&mut self, m: u8, g: u8) {
        let Some(m) = self.mutex(m) else {
            return self.increment(g);
        };
        let (t, g) = (self.local(), self.global(g));
        self.open(&format!("sync {m} {{"));
        self.line(&format!("let {t} = {g};"));
        self.line(&format!("{g} = {t} + 1;"));
        self.close();
    }

    fn nested(&mut self, forward: bool, g: u8) {
        if self.plan.mutexes < 2 {
            return self.locked(0, g);
        }
        let (outer, inner) = if forward { ("m0", "m1") } else { ("m1", "m0") };
        self.line(&format!("lock({outer});"));
        self.line(&format!("lock({inner});"));
        self.increment(g);
        self.line(&format!("unlock({inner});"));
        self.line(&format!("unlock({outer});"));
    }

    fn atomic(&mut self, g: u8, h: u8) {
        let (g, h) = (self.global(g), self.global(h));
        self.open("atomic {");
        self.line(&format!("{g} = {g} + 1;"));
        self.line(&format!("{h} = {g};"));
        self.close();
    }

    fn atomic_unlock(&mut self, m: u8, g: u8, h: u8) {
        let Some(m) = self.mutex(m) else {
            return self.atomic(g, h);
        };
        let (g, h) = (self.global(g), self.global(h));
        self.line(&format!("lock({m});"));
        self.line(&format!("{g} = {g} + 1;"));
        self.open("atomic {");
        self.line(&format!("{h} = {g};"));
        self.line(&format!("unlock({m});"));
        self.close();
    }

    fn bounded_loop(&mut self, n: u8, g: u8) {
        let k = self.local();
        self.open(&format!("for {k} in 0..{n} {{"));
        self.increment(g);
        self.close();
    }

    fn call(&mut self, add: bool, k: u8) {
        if add {
            self.line(&format!("add({k});"));
        } else {
            let t = self.local();
            self.line(&format!("let {t} = get();"));
        }
    }

    fn array_bump(&mut self, index: u8) {
        if !self.plan.array {
            return self.increment(index);
        }
        let index = if self.replicated {
            "i".to_string()
        } else {
            index.to_string()
        };
        self.line(&format!("arr[{index}] = arr[{index}] + 1;"));
    }

    fn heap_bump(&mut self, index: u8) {
        let b = self.local();
        match self.plan.heap {
            Heap::None => self.increment(index),
            Heap::Record => {
                let field = if index % 2 == 0 { "v" } else { "w" };
                self.line(&format!("let {b} = box;"));
                self.line(&format!("{b}.{field} = {b}.{field} + 1;"));
            }
            Heap::Array => {
                let index = index % 2;
                self.line(&format!("let {b} = box;"));
                self.line(&format!("{b}[{index}] = {b}[{index}] + 1;"));
            }
        }
    }

    fn consume(&mut self, g: u8) {
        if !self.plan.cond {
            return self.increment(g);
        }
        let g = self.global(g);
        self.line("lock(m0);");
        self.open(&format!("while {g} == 0 {{"));
        self.line("wait(c, m0);");
        self.close();
        self.line(&format!("{g} = {g} - 1;"));
        self.line("unlock(m0);");
    }

    fn produce(&mut self, g: u8, all: bool) {
        if !self.plan.cond {
            return self.increment(g);
        }
        let g = self.global(g);
        self.line("lock(m0);");
        self.line(&format!("{g} = {g} + 1;"));
        self.line(if all { "broadcast(c);" } else { "signal(c);" });
        self.line("unlock(m0);");
    }
}
