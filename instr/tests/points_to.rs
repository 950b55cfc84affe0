//! Integration tests of the alias analysis and the instrumentation plans:
//! exact may-sets for small programs, soundness against what the VM touches
//! in randomly generated programs, and plans for the examples.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::Arc;

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed, TestCaseError, TestRunner};
use rankcheck_engine::ir::AccessKind::{self, Broadcast, Lock, Read, Signal, Unlock, Wait, Write};
use rankcheck_engine::ir::{Op, Program, VarKind};
use rankcheck_engine::scheduler::Point;
use rankcheck_engine::{
    Executable, Instrumentation, Limits, Outcome, RandomScheduler, Scheduler, SiteId, ThreadId,
    VarId, Vm,
};
use rankcheck_instr::{compile, PointsTo, Tracking};

// ----- Helpers -----

fn compile_ok(source: &str) -> Program {
    match compile(source, &[]) {
        Ok(program) => program,
        Err(error) => panic!("{source}\ndoes not compile: {error:?}"),
    }
}

/// A program with its analysis, and its variables and sites named the way
/// the tests write them.
struct Analysed {
    source: String,
    program: Program,
    points_to: PointsTo,
}

impl Analysed {
    fn new(source: &str) -> Analysed {
        let program = compile_ok(source);
        let points_to = PointsTo::analyze(&program);
        Analysed {
            source: source.to_string(),
            program,
            points_to,
        }
    }

    /// A variable as tests name it: a declaration by its name, an
    /// allocation site by its source text (`new { v: 1 }`).
    fn name(&self, var: VarId) -> String {
        let variable = &self.program.vars[var.index()];
        if variable.kind.is_allocation_site() {
            self.source[variable.span.range()].to_string()
        } else {
            variable.name.clone()
        }
    }

    fn var(&self, name: &str) -> VarId {
        let matching: Vec<VarId> = (0..self.program.vars.len())
            .map(|v| VarId(v as u32))
            .filter(|&v| self.name(v) == name)
            .collect();
        match matching[..] {
            [var] => var,
            _ => panic!("{} variables are named {name:?}", matching.len()),
        }
    }

    /// The sites with source text `text` and kind `kind`, in site order.
    fn sites(&self, text: &str, kind: AccessKind) -> Vec<SiteId> {
        let sites: Vec<SiteId> = self
            .program
            .sites
            .iter()
            .enumerate()
            .filter(|(_, site)| site.text == text && site.kind == kind)
            .map(|(index, _)| SiteId(index as u32))
            .collect();
        assert!(!sites.is_empty(), "no {kind:?} site `{text}`");
        sites
    }

    fn site(&self, text: &str, kind: AccessKind) -> SiteId {
        match self.sites(text, kind)[..] {
            [site] => site,
            ref several => panic!("{} {kind:?} sites `{text}`", several.len()),
        }
    }

    /// The may-set of the one site `text` of kind `kind`, by name, sorted.
    fn may(&self, text: &str, kind: AccessKind) -> Vec<String> {
        let may = self.points_to.may_access(self.site(text, kind));
        let mut names: Vec<String> = may.iter().map(|&v| self.name(v)).collect();
        names.sort();
        names
    }

    fn observed_texts(&self, instrumentation: &Instrumentation) -> BTreeSet<String> {
        self.program
            .sites
            .iter()
            .enumerate()
            .filter(|&(index, _)| instrumentation.observes(SiteId(index as u32)))
            .map(|(_, site)| site.text.clone())
            .collect()
    }
}

// ----- Exact may-sets -----

#[test]
fn references_through_locals() {
    let a = Analysed::new(
        "fn main() {
            let p = new { x: 1 };
            let q = new { x: 2 };
            let r = p;
            r.x = 3;
            q.x = 4;
            let s = q;
            s = p;
            s.x = 5;
            let t = q;
            if s == q { t = p; }
            t.x = 6;
        }",
    );
    assert_eq!(a.may("r.x", Write), ["new { x: 1 }"]);
    assert_eq!(a.may("q.x", Write), ["new { x: 2 }"]);
    // `s = p` overwrites `s = q` on every path to `s.x`: the two
    // definitions of the register are different webs.
    assert_eq!(a.may("s.x", Write), ["new { x: 1 }"]);
    // Both definitions of `t` reach `t.x`.
    assert_eq!(a.may("t.x", Write), ["new { x: 1 }", "new { x: 2 }"]);
}

#[test]
fn record_fields_are_kept_apart() {
    // A field-insensitive analysis would merge `holder.left` and
    // `holder.right`, and give both `l.tag` and `r.tag` both objects.
    let a = Analysed::new(
        "fn main() {
            let a = new { tag: 1 };
            let b = new { tag: 2 };
            let holder = new { left: null, right: null };
            holder.left = a;
            holder.right = b;
            let l = holder.left;
            let r = holder.right;
            l.tag = 10;
            r.tag = 20;
        }",
    );
    assert_eq!(a.may("l.tag", Write), ["new { tag: 1 }"]);
    assert_eq!(a.may("r.tag", Write), ["new { tag: 2 }"]);
    let holder = ["new { left: null, right: null }"];
    assert_eq!(a.may("holder.left", Write), holder);
    assert_eq!(a.may("holder.left", Read), holder);
    assert_eq!(a.may("holder.right", Read), holder);
}

#[test]
fn references_through_fields_of_other_objects() {
    // A two-link chain: the inner node is reached only through
    // `outer.next.next`, and `link` stores through a parameter.
    let a = Analysed::new(
        "fn link(from, to) { from.next = to; }
        fn main() {
            let inner = new { next: null, v: 1 };
            let middle = new { next: null, v: 2 };
            let outer = new { next: null, v: 3 };
            middle.next = inner;
            link(outer, middle);
            let x = outer.next.next;
            x.v = 9;
            let y = outer.next;
            y.v = 8;
        }",
    );
    assert_eq!(a.may("x.v", Write), ["new { next: null, v: 1 }"]);
    assert_eq!(a.may("y.v", Write), ["new { next: null, v: 2 }"]);
    assert_eq!(a.may("from.next", Write), ["new { next: null, v: 3 }"]);
    assert_eq!(a.may("outer.next.next", Read), ["new { next: null, v: 2 }"]);
}

#[test]
fn references_through_parameters_and_return_values() {
    let a = Analysed::new(
        "fn make() { return new { v: 1 }; }
        fn id(x) { return x; }
        fn touch(p) { p.v = 2; }
        fn main() {
            let made = make();
            made.v = 3;
            let b = new { v: 4 };
            let c = id(b);
            c.v = 5;
            touch(b);
        }",
    );
    assert_eq!(a.may("made.v", Write), ["new { v: 1 }"]);
    assert_eq!(a.may("c.v", Write), ["new { v: 4 }"]);
    assert_eq!(a.may("p.v", Write), ["new { v: 4 }"]);
}

#[test]
fn loops_carry_values_around_their_back_edges() {
    let a = Analysed::new(
        "fn main() {
            let prev = new { v: 0 };
            let cur = new { v: 1 };
            for i in 0..3 {
                prev.v = i;
                prev = cur;
                cur = new { v: 2 };
            }
            let k = 0;
            let p = new { w: 0 };
            while k < 3 {
                p.w = k;
                p = new { w: 1 };
                k = k + 1;
            }
        }",
    );
    // The second iteration sees the first's `cur`, the third the fresh one.
    assert_eq!(
        a.may("prev.v", Write),
        ["new { v: 0 }", "new { v: 1 }", "new { v: 2 }"]
    );
    assert_eq!(a.may("p.w", Write), ["new { w: 0 }", "new { w: 1 }"]);
}

#[test]
fn arrays_smash_their_elements() {
    let a = Analysed::new(
        "global slots[2] = null;
        fn main() {
            let r = new { v: 1 };
            let arr = new [2] = null;
            arr[0] = r;
            let x = arr[1];
            x.v = 3;
            slots[0] = arr;
            let y = slots[1];
            y[0] = 1;
            let z = new [3] = new { v: 2 };
            let w = z[2];
            w.v = 4;
        }",
    );
    // Elements are one node: what went into `arr[0]` comes out of `arr[1]`.
    assert_eq!(a.may("x.v", Write), ["new { v: 1 }"]);
    assert_eq!(a.may("arr[0]", Write), ["new [2] = null"]);
    assert_eq!(a.may("slots[0]", Write), ["slots"]);
    assert_eq!(a.may("slots[1]", Read), ["slots"]);
    assert_eq!(a.may("y[0]", Write), ["new [2] = null"]);
    // The initial value of a heap array flows into its elements.
    assert_eq!(a.may("w.v", Write), ["new { v: 2 }"]);
}

#[test]
fn references_through_globals_across_threads() {
    let a = Analysed::new(
        "global shared = null;
        global count = 0;
        fn publish() { shared = new { v: 1 }; }
        thread producer { publish(); count = count + 1; }
        thread consumer {
            let p = shared;
            if p != null { p.v = 2; }
        }",
    );
    assert_eq!(a.may("p.v", Write), ["new { v: 1 }"]);
    assert_eq!(a.may("shared", Write), ["shared"]);
    assert_eq!(a.may("shared", Read), ["shared"]);
    assert_eq!(a.may("count", Read), ["count"]);
    assert_eq!(a.may("count", Write), ["count"]);
}

#[test]
fn references_through_spawn_arguments() {
    let a = Analysed::new(
        "mutex m;
        fn worker(box, lk) {
            sync lk { box.n = box.n + 1; }
        }
        fn main() {
            let b = new { n: 0 };
            let other = new { n: 1 };
            let l = new mutex;
            let h1 = spawn worker(b, l);
            let h2 = spawn worker(b, m);
            other.n = 2;
            join(h1);
            join(h2);
        }",
    );
    assert_eq!(a.may("box.n", Write), ["new { n: 0 }"]);
    assert_eq!(a.may("box.n", Read), ["new { n: 0 }"]);
    assert_eq!(a.may("lk", Lock), ["m", "new mutex"]);
    assert_eq!(a.may("}", Unlock), ["m", "new mutex"]);
    assert_eq!(a.may("other.n", Write), ["new { n: 1 }"]);
}

#[test]
fn mutexes_and_conds() {
    let a = Analysed::new(
        "mutex m;
        cond c;
        fn main() {
            let m2 = new mutex;
            let c2 = new cond;
            let holder = new { lk: m2, cv: c2 };
            lock(m);
            wait(c, m);
            unlock(m);
            let lk = holder.lk;
            let cv = holder.cv;
            lock(lk);
            wait(cv, lk);
            unlock(lk);
            signal(c);
            broadcast(cv);
        }",
    );
    assert_eq!(a.may("lock(m);", Lock), ["m"]);
    assert_eq!(a.may("wait(c, m);", Wait), ["c", "m"]);
    assert_eq!(a.may("unlock(m);", Unlock), ["m"]);
    assert_eq!(a.may("lock(lk);", Lock), ["new mutex"]);
    assert_eq!(a.may("wait(cv, lk);", Wait), ["new cond", "new mutex"]);
    assert_eq!(a.may("signal(c);", Signal), ["c"]);
    assert_eq!(a.may("broadcast(cv);", Broadcast), ["new cond"]);
}

#[test]
fn accesses_keep_only_objects_they_can_succeed_on() {
    // `p` may be a record without field `x`, or an array, or a mutex;
    // `p.x` on those is a run-time error that touches nothing, so only the
    // first record stays. Likewise `p[0]` touches only the array,
    // `lock(p)` only the mutex.
    let a = Analysed::new(
        "fn pick(k) {
            let p = new { x: 1 };
            if k == 1 { p = new { y: 2 }; }
            if k == 2 { p = new [1]; }
            if k == 3 { p = new mutex; }
            p.x = 0;
            p[0] = 0;
            lock(p);
        }
        fn main() { pick(0); }",
    );
    assert_eq!(a.may("p.x", Write), ["new { x: 1 }"]);
    assert_eq!(a.may("p[0]", Write), ["new [1]"]);
    assert_eq!(a.may("lock(p);", Lock), ["new mutex"]);
}

#[test]
fn code_no_path_reaches_touches_only_what_the_lowering_names() {
    // The unlock that closes `sync m` after a `return` never runs: its
    // register holds no value there, but the site still names `m`.
    let a = Analysed::new(
        "mutex m;
        global g = null;
        fn f() {
            sync m { return 1; }
        }
        fn main() {
            let p = new { v: 1 };
            g = p;
            f();
            return;
            p.v = 2;
        }",
    );
    assert_eq!(a.may("}", Unlock), ["m"]);
    assert_eq!(a.may("p.v", Write), Vec::<String>::new());
}

#[test]
fn context_insensitivity_merges_callers() {
    // Known imprecision: `id` is analysed once for both calls, so its
    // result is {a, b} at both call sites, although at run time `c` only
    // ever refers to a and `d` to b. A context-sensitive analysis would
    // give exactly one object each.
    let a = Analysed::new(
        "fn id(x) { return x; }
        fn main() {
            let a = new { v: 1 };
            let b = new { v: 2 };
            let c = id(a);
            let d = id(b);
            c.v = 3;
            d.v = 4;
        }",
    );
    let both = ["new { v: 1 }", "new { v: 2 }"];
    assert_eq!(a.may("c.v", Write), both);
    assert_eq!(a.may("d.v", Write), both);
}

#[test]
fn sites_touching_is_the_inverse_of_may_sets() {
    let a = Analysed::new(
        "global g = null;
        fn main() {
            let p = new { v: 1 };
            g = p;
            let q = g;
            q.v = 2;
            p.v = 3;
        }",
    );
    let record = a.var("new { v: 1 }");
    let writes = [a.site("q.v", Write), a.site("p.v", Write)];
    assert_eq!(a.points_to.sites_touching(record), writes);
    let g = a.var("g");
    assert_eq!(
        a.points_to.sites_touching(g),
        [a.site("g", Write), a.site("g", Read)]
    );
    // Inverse index and may-sets are the same relation.
    for var in 0..a.program.vars.len() {
        let var = VarId(var as u32);
        for &site in a.points_to.sites_touching(var) {
            assert!(a.points_to.may_access(site).contains(&var));
        }
    }
}

// ----- Plans -----

#[test]
fn plans_observe_exactly_the_sites_that_may_touch_tracked_variables() {
    let a = Analysed::new(
        "global counter = 0;
        mutex m;
        fn main() {
            let p = new { v: 1 };
            let q = new { v: 2 };
            p.v = 3;
            q.v = 4;
            sync m { counter = counter + 1; }
        }",
    );
    let program = &a.program;
    let p = a.var("new { v: 1 }");
    let vars = |vs: &[VarId]| Tracking::Vars(vs.iter().copied().collect());

    let only_p = vars(&[p]).instrumentation(program, &a.points_to);
    assert_eq!(a.observed_texts(&only_p), BTreeSet::from(["p.v".into()]));
    assert!(only_p.tracked[p.index()]);
    assert_eq!(only_p.tracked.iter().filter(|&&t| t).count(), 1);

    let counter = vars(&[a.var("counter")]).instrumentation(program, &a.points_to);
    assert_eq!(
        a.observed_texts(&counter),
        BTreeSet::from(["counter".into()])
    );
    assert_eq!(
        a.sites("counter", Read).len() + a.sites("counter", Write).len(),
        2
    );

    // Sync sites say whether they may touch a tracked mutex.
    let mutex = vars(&[a.var("m")]).instrumentation(program, &a.points_to);
    assert_eq!(
        a.observed_texts(&mutex),
        BTreeSet::from(["m".into(), "}".into()])
    );

    let nothing = vars(&[]).instrumentation(program, &a.points_to);
    assert_eq!(nothing, Instrumentation::none(program));
    assert_eq!(
        Tracking::All.instrumentation(program, &a.points_to),
        Instrumentation::all(program)
    );
    assert_eq!(
        Tracking::SyncOnly.instrumentation(program, &a.points_to),
        Instrumentation::sync_only(program)
    );
    assert_eq!(
        Tracking::None.instrumentation(program, &a.points_to),
        Instrumentation::none(program)
    );
}

// ----- Soundness against the VM -----

/// A scheduler that records every (site, variable) pair the VM reports and
/// delegates its choices to the random scheduler.
struct Recorder {
    inner: RandomScheduler,
    touched: BTreeSet<(SiteId, VarId)>,
}

impl Scheduler for Recorder {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        if let (Some(site), Some(var)) = (point.event.site, point.event.var) {
            self.touched.insert((site, var));
        }
        self.inner.choose(point)
    }
}

/// Run `program` with every variable tracked under the random scheduler
/// seeded `seed`: the pairs touched, and how the run ended.
fn touched_pairs(program: &Arc<Program>, seed: u64) -> (BTreeSet<(SiteId, VarId)>, Outcome) {
    let exe = Executable::new(Arc::clone(program), &Instrumentation::all(program));
    let limits = Limits {
        max_steps: 200_000,
        ..Limits::default()
    };
    let mut vm = Vm::new(&exe, limits);
    let mut recorder = Recorder {
        inner: RandomScheduler::new(seed),
        touched: BTreeSet::new(),
    };
    let outcome = vm.run(&mut recorder);
    (recorder.touched, outcome)
}

/// Every pair in `touched` is in the may-set, and the plan tracking that
/// one variable observes the site; otherwise the first violation.
fn check_pairs(
    program: &Program,
    points_to: &PointsTo,
    touched: &BTreeSet<(SiteId, VarId)>,
) -> Result<(), String> {
    let mut plans: BTreeMap<VarId, Instrumentation> = BTreeMap::new();
    for &(site, var) in touched {
        let may = points_to.may_access(site);
        let plan = plans.entry(var).or_insert_with(|| {
            Tracking::Vars(BTreeSet::from([var])).instrumentation(program, points_to)
        });
        if !may.contains(&var) || !plan.observes(site) {
            let s = &program.sites[site.index()];
            let v = &program.vars[var.index()];
            return Err(format!(
                "site {site} ({:?} `{}`) touched {var} ({}), but its may-set is {may:?}",
                s.kind, s.text, v.name
            ));
        }
    }
    Ok(())
}

/// The kind of location an access site reaches, read off its instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Reach {
    Global,
    Field,
    Element,
    Sync,
}

fn reach_of_sites(program: &Program) -> BTreeMap<SiteId, Reach> {
    let mut reach = BTreeMap::new();
    for function in &program.functions {
        for op in &function.code {
            let entry = match *op {
                Op::GetGlobalObserved { site, .. } | Op::SetGlobalObserved { site, .. } => {
                    (site, Reach::Global)
                }
                Op::GetFieldObserved { site, .. } | Op::SetFieldObserved { site, .. } => {
                    (site, Reach::Field)
                }
                Op::GetIndexObserved { site, .. } | Op::SetIndexObserved { site, .. } => {
                    (site, Reach::Element)
                }
                _ => match op.sync_site() {
                    Some(site) => (site, Reach::Sync),
                    None => continue,
                },
            };
            reach.insert(entry.0, entry.1);
        }
    }
    reach
}

/// The shape of a generated program: a few functions that take a record,
/// an array and a mutex and return a record, and a few threads, each a list
/// of statements over typed locals. Operands are small numbers reduced
/// modulo what is in scope when rendered, so every value is well typed:
/// records hold records in `f` and `g`, an array in `a` and a mutex in `m`;
/// arrays hold records. Dereferences are guarded by `!= null`, calls and
/// spawns go only to later functions and loops run twice, so every run
/// ends in a pass or a deadlock (a `wait` nobody signals), never in a
/// run-time error.
#[derive(Clone, Debug)]
struct ProgramSpec {
    functions: Vec<Body>,
    threads: Vec<Body>,
}

#[derive(Clone, Debug)]
struct Body {
    /// How each local starts: `null`, a fresh object or a declared one.
    init: [u8; 8],
    stmts: Vec<Stmt>,
    ret: u8,
}

/// One generated statement; `u8` operands pick a local, field, global or
/// function modulo the choices.
#[derive(Clone, Debug)]
enum Stmt {
    NewRecord {
        dst: u8,
        ops: [u8; 4],
        reversed: bool,
    },
    NewArray {
        dst: u8,
        init: u8,
    },
    NewMutex {
        dst: u8,
        declared: bool,
    },
    NewCond {
        declared: bool,
    },
    Move {
        ty: u8,
        dst: u8,
        src: u8,
    },
    LoadField {
        ty: u8,
        dst: u8,
        base: u8,
        field: u8,
    },
    StoreField {
        ty: u8,
        base: u8,
        field: u8,
        src: u8,
    },
    LoadElement {
        dst: u8,
        array: u8,
        index: u8,
    },
    StoreElement {
        array: u8,
        index: u8,
        src: u8,
    },
    LoadGlobalArray {
        dst: u8,
        index: u8,
    },
    StoreGlobalArray {
        index: u8,
        src: u8,
    },
    LoadGlobal {
        ty: u8,
        dst: u8,
        global: u8,
    },
    StoreGlobal {
        ty: u8,
        global: u8,
        src: u8,
    },
    /// Fetch a record into a fresh local from a field, an element or a
    /// global, and access through it at once: the local has exactly that
    /// one value, so the access's may-set is what the analysis says the
    /// fetched location holds.
    Chain {
        source: u8,
        base: u8,
        field: u8,
        action: u8,
        operand: u8,
    },
    Call {
        dst: u8,
        callee: u8,
        args: [u8; 3],
    },
    Spawn {
        callee: u8,
        args: [u8; 3],
    },
    LockUnlock {
        mutex: u8,
    },
    Sync {
        mutex: u8,
        body: Vec<Stmt>,
    },
    /// Two iterations of `body`, as a `for` or a `while` loop: values
    /// defined late in one iteration reach uses early in the next.
    Repeat {
        with_for: bool,
        body: Vec<Stmt>,
    },
    Signal {
        broadcast: bool,
    },
    Wait {
        mutex: u8,
    },
}

const N_FUNCTIONS: usize = 3;
/// Locals of each type: records `r*`, arrays `a*`, mutexes `m*`; one cond.
const RECORDS: u8 = 3;
const ARRAYS: u8 = 2;
const MUTEXES: u8 = 2;
const RECORD_GLOBALS: u8 = 2;

/// A statement that neither calls, spawns nor synchronises: what a `sync`
/// body holds.
fn memory_stmt() -> impl Strategy<Value = Stmt> {
    let n = || 0u8..6;
    prop_oneof![
        3 => (n(), any::<[u8; 4]>(), any::<bool>())
            .prop_map(|(dst, ops, reversed)| Stmt::NewRecord { dst, ops, reversed }),
        2 => (n(), n()).prop_map(|(dst, init)| Stmt::NewArray { dst, init }),
        1 => (n(), any::<bool>()).prop_map(|(dst, declared)| Stmt::NewMutex { dst, declared }),
        1 => any::<bool>().prop_map(|declared| Stmt::NewCond { declared }),
        2 => (n(), n(), n()).prop_map(|(ty, dst, src)| Stmt::Move { ty, dst, src }),
        4 => (n(), n(), n(), n())
            .prop_map(|(ty, dst, base, field)| Stmt::LoadField { ty, dst, base, field }),
        4 => (n(), n(), n(), n())
            .prop_map(|(ty, base, field, src)| Stmt::StoreField { ty, base, field, src }),
        2 => (n(), n(), n()).prop_map(|(dst, array, index)| Stmt::LoadElement { dst, array, index }),
        2 => (n(), n(), n()).prop_map(|(array, index, src)| Stmt::StoreElement { array, index, src }),
        1 => (n(), n()).prop_map(|(dst, index)| Stmt::LoadGlobalArray { dst, index }),
        1 => (n(), n()).prop_map(|(index, src)| Stmt::StoreGlobalArray { index, src }),
        2 => (n(), n(), n()).prop_map(|(ty, dst, global)| Stmt::LoadGlobal { ty, dst, global }),
        2 => (n(), n(), n()).prop_map(|(ty, global, src)| Stmt::StoreGlobal { ty, global, src }),
        6 => (n(), n(), n(), n(), n()).prop_map(|(source, base, field, action, operand)| {
            Stmt::Chain { source, base, field, action, operand }
        }),
    ]
}

fn stmt() -> impl Strategy<Value = Stmt> {
    let n = || 0u8..6;
    prop_oneof![
        24 => memory_stmt(),
        6 => (n(), n(), any::<[u8; 3]>())
            .prop_map(|(dst, callee, args)| Stmt::Call { dst, callee, args }),
        2 => (n(), any::<[u8; 3]>()).prop_map(|(callee, args)| Stmt::Spawn { callee, args }),
        2 => n().prop_map(|mutex| Stmt::LockUnlock { mutex }),
        2 => (n(), prop::collection::vec(memory_stmt(), 1..3))
            .prop_map(|(mutex, body)| Stmt::Sync { mutex, body }),
        2 => any::<bool>().prop_map(|broadcast| Stmt::Signal { broadcast }),
        // Rare: a wait that nobody signals ends the run in a deadlock.
        1 => n().prop_map(|mutex| Stmt::Wait { mutex }),
        3 => (any::<bool>(), prop::collection::vec(memory_stmt(), 1..4))
            .prop_map(|(with_for, body)| Stmt::Repeat { with_for, body }),
    ]
}

fn body(len: std::ops::Range<usize>) -> impl Strategy<Value = Body> {
    (
        any::<[u8; 8]>(),
        prop::collection::vec(stmt(), len),
        any::<u8>(),
    )
        .prop_map(|(init, stmts, ret)| Body { init, stmts, ret })
}

fn program_spec() -> impl Strategy<Value = ProgramSpec> {
    (
        prop::collection::vec(body(2..8), N_FUNCTIONS),
        prop::collection::vec(body(3..10), 2..4),
    )
        .prop_map(|(functions, threads)| ProgramSpec { functions, threads })
}

/// Renders a [`ProgramSpec`] as `.rk` source.
struct Renderer {
    out: String,
    /// The function being rendered (`None` in a thread): calls and spawns
    /// go only to later functions, so there is no recursion.
    current: Option<usize>,
}

fn pick(operand: u8, count: u8) -> u8 {
    operand % count
}

impl Renderer {
    fn line(&mut self, depth: usize, text: &str) {
        let _ = writeln!(self.out, "{}{text}", "    ".repeat(depth));
    }

    /// A local of type `ty` (record, array or mutex).
    fn local(ty: u8, operand: u8) -> String {
        match ty % 3 {
            0 => format!("r{}", pick(operand, RECORDS)),
            1 => format!("a{}", pick(operand, ARRAYS)),
            _ => format!("m{}", pick(operand, MUTEXES)),
        }
    }

    /// The record field holding type `ty`: `f` or `g` for records.
    fn field(ty: u8, operand: u8) -> &'static str {
        match (ty % 3, operand % 2) {
            (0, 0) => "f",
            (0, _) => "g",
            (1, _) => "a",
            _ => "m",
        }
    }

    fn global(ty: u8, operand: u8) -> String {
        match ty % 3 {
            0 => format!("gr{}", pick(operand, RECORD_GLOBALS)),
            1 => "ga".to_string(),
            _ => "gm".to_string(),
        }
    }

    fn callee(&self, operand: u8) -> Option<usize> {
        let first = self.current.map_or(0, |f| f + 1);
        let choices = N_FUNCTIONS.checked_sub(first).filter(|&n| n > 0)?;
        Some(first + usize::from(operand) % choices)
    }

    fn args(args: [u8; 3]) -> String {
        format!(
            "{}, {}, {}",
            Self::local(0, args[0]),
            Self::local(1, args[1]),
            Self::local(2, args[2])
        )
    }

    fn stmt(&mut self, depth: usize, stmt: &Stmt) {
        let r = |o: u8| Self::local(0, o);
        let a = |o: u8| Self::local(1, o);
        let m = |o: u8| Self::local(2, o);
        let text = match stmt {
            Stmt::NewRecord { dst, ops, reversed } => {
                // Half the fields start `null`, so that what a load finds
                // mostly got there by a store.
                let value = |operand: u8, local: String| match operand % 2 {
                    0 => "null".to_string(),
                    _ => local,
                };
                let fields = [
                    format!("f: {}", value(ops[0], r(ops[0] / 2))),
                    format!("g: {}", value(ops[1], r(ops[1] / 2))),
                    format!("a: {}", value(ops[2], a(ops[2] / 2))),
                    format!("m: {}", value(ops[3], m(ops[3] / 2))),
                ];
                let fields = if *reversed {
                    fields.into_iter().rev().collect::<Vec<_>>()
                } else {
                    fields.to_vec()
                };
                format!("{} = new {{ {} }};", r(*dst), fields.join(", "))
            }
            Stmt::NewArray { dst, init } => format!("{} = new [2] = {};", a(*dst), r(*init)),
            Stmt::NewMutex { dst, declared } => {
                let value = if *declared { "dm" } else { "new mutex" };
                format!("{} = {value};", m(*dst))
            }
            Stmt::NewCond { declared } => {
                let value = if *declared { "dc" } else { "new cond" };
                format!("c0 = {value};")
            }
            Stmt::Move { ty, dst, src } => {
                format!("{} = {};", Self::local(*ty, *dst), Self::local(*ty, *src))
            }
            Stmt::LoadField {
                ty,
                dst,
                base,
                field,
            } => format!(
                "if {b} != null {{ {} = {b}.{}; }}",
                Self::local(*ty, *dst),
                Self::field(*ty, *field),
                b = r(*base)
            ),
            Stmt::StoreField {
                ty,
                base,
                field,
                src,
            } => format!(
                "if {b} != null {{ {b}.{} = {}; }}",
                Self::field(*ty, *field),
                Self::local(*ty, *src),
                b = r(*base)
            ),
            Stmt::LoadElement { dst, array, index } => format!(
                "if {x} != null {{ {} = {x}[{}]; }}",
                r(*dst),
                index % 2,
                x = a(*array)
            ),
            Stmt::StoreElement { array, index, src } => format!(
                "if {x} != null {{ {x}[{}] = {}; }}",
                index % 2,
                r(*src),
                x = a(*array)
            ),
            Stmt::LoadGlobalArray { dst, index } => {
                format!("{} = slots[{}];", r(*dst), index % 2)
            }
            Stmt::StoreGlobalArray { index, src } => {
                format!("slots[{}] = {};", index % 2, r(*src))
            }
            Stmt::LoadGlobal { ty, dst, global } => format!(
                "{} = {};",
                Self::local(*ty, *dst),
                Self::global(*ty, *global)
            ),
            Stmt::StoreGlobal { ty, global, src } => format!(
                "{} = {};",
                Self::global(*ty, *global),
                Self::local(*ty, *src)
            ),
            Stmt::Chain {
                source,
                base,
                field,
                action,
                operand,
            } => {
                let (guard, fetch) = match source % 4 {
                    0 => (
                        format!("{} != null", r(*base)),
                        format!("{}.{}", r(*base), Self::field(0, *field)),
                    ),
                    1 => (
                        format!("{} != null", a(*base)),
                        format!("{}[{}]", a(*base), field % 2),
                    ),
                    2 => ("true".to_string(), Self::global(0, *base)),
                    _ => ("true".to_string(), format!("slots[{}]", field % 2)),
                };
                let through = match action % 3 {
                    0 => format!("t.{} = {};", Self::field(0, *operand), r(*operand / 2)),
                    1 => format!("{} = t.{};", r(*operand / 2), Self::field(0, *operand)),
                    _ => "let u = t.m; if u != null { lock(u); unlock(u); }".to_string(),
                };
                format!("if {guard} {{ let t = {fetch}; if t != null {{ {through} }} }}")
            }
            Stmt::Call { dst, callee, args } => match self.callee(*callee) {
                Some(f) => format!("{} = f{f}({});", r(*dst), Self::args(*args)),
                None => return,
            },
            Stmt::Spawn { callee, args } => match self.callee(*callee) {
                Some(f) => format!("spawn f{f}({});", Self::args(*args)),
                None => return,
            },
            Stmt::LockUnlock { mutex } => {
                format!(
                    "if {x} != null {{ lock({x}); unlock({x}); }}",
                    x = m(*mutex)
                )
            }
            Stmt::Sync { mutex, body } => {
                self.line(
                    depth,
                    &format!("if {x} != null {{ sync {x} {{", x = m(*mutex)),
                );
                for inner in body {
                    self.stmt(depth + 1, inner);
                }
                self.line(depth, "} }");
                return;
            }
            Stmt::Repeat { with_for, body } => {
                if *with_for {
                    self.line(depth, "for k in 0..2 {");
                } else {
                    self.line(depth, "let k = 0;");
                    self.line(depth, "while k < 2 {");
                    self.line(depth + 1, "k = k + 1;");
                }
                for inner in body {
                    self.stmt(depth + 1, inner);
                }
                self.line(depth, "}");
                return;
            }
            Stmt::Signal { broadcast } => {
                let verb = if *broadcast { "broadcast" } else { "signal" };
                format!("if c0 != null {{ {verb}(c0); }}")
            }
            Stmt::Wait { mutex } => format!(
                "if c0 != null && {x} != null {{ lock({x}); wait(c0, {x}); unlock({x}); }}",
                x = m(*mutex)
            ),
        };
        self.line(depth, &text);
    }

    fn render(spec: &ProgramSpec) -> String {
        let mut renderer = Renderer {
            out: String::new(),
            current: None,
        };
        renderer.out.push_str(
            "global gr0 = null;\nglobal gr1 = null;\nglobal ga = null;\nglobal gm = null;\n\
             global slots[2] = null;\nmutex dm;\ncond dc;\n",
        );
        // Locals start as `null`, a fresh object (a record may link to the
        // previous record local, an array holds `r0`) or a declared one.
        let locals = |init: &[u8; 8], params: &[&str]| -> Vec<String> {
            let names = ["r0", "r1", "r2", "a0", "a1", "m0", "m1", "c0"];
            names
                .iter()
                .zip(init)
                .enumerate()
                .filter(|(_, (name, _))| !params.contains(name))
                .map(|(index, (name, &choice))| {
                    let value = match (index, choice % 3) {
                        (_, 0) => "null".to_string(),
                        (0, _) => "new { f: null, g: null, a: null, m: null }".to_string(),
                        (1 | 2, c) => {
                            let link = if c == 1 { names[index - 1] } else { "null" };
                            format!("new {{ f: {link}, g: null, a: null, m: null }}")
                        }
                        (3 | 4, _) => "new [2] = r0".to_string(),
                        (5 | 6, 1) => "dm".to_string(),
                        (5 | 6, _) => "new mutex".to_string(),
                        (_, 1) => "dc".to_string(),
                        (_, _) => "new cond".to_string(),
                    };
                    format!("let {name} = {value};")
                })
                .collect()
        };
        for (index, function) in spec.functions.iter().enumerate() {
            renderer.current = Some(index);
            renderer.line(0, &format!("fn f{index}(r0, a0, m0) {{"));
            for local in locals(&function.init, &["r0", "a0", "m0"]) {
                renderer.line(1, &local);
            }
            for stmt in &function.stmts {
                renderer.stmt(1, stmt);
            }
            renderer.line(1, &format!("return r{};", pick(function.ret, RECORDS)));
            renderer.line(0, "}");
        }
        renderer.current = None;
        let last = spec.threads.len() - 1;
        for (index, thread) in spec.threads.iter().enumerate() {
            // The last thread is replicated: two copies share its code.
            let header = if index == last {
                format!("thread t{index}[2](i) {{")
            } else {
                format!("thread t{index} {{")
            };
            renderer.line(0, &header);
            for local in locals(&thread.init, &[]) {
                renderer.line(1, &local);
            }
            for stmt in &thread.stmts {
                renderer.stmt(1, stmt);
            }
            renderer.line(0, "}");
        }
        renderer.out
    }
}

/// What the soundness property saw over all its cases, so that it cannot
/// pass by never exercising a flow.
#[derive(Debug, Default)]
struct Coverage {
    programs: usize,
    runs: usize,
    /// Distinct (site, variable) pairs, by what the site reaches and what
    /// kind of variable it touched.
    pairs: BTreeMap<(Reach, VarKind), usize>,
    /// Pairs touched at a site whose may-set has more than one variable.
    at_ambiguous_sites: usize,
    /// Pairs touched inside a function (reached through a call or spawn).
    in_functions: usize,
    deadlocks: usize,
    errors: usize,
}

/// The runs of each generated program, each with its own scheduler seed.
const SEEDS_PER_PROGRAM: u64 = 4;

fn soundness_case(spec: &ProgramSpec, coverage: &RefCell<Coverage>) -> Result<(), TestCaseError> {
    let source = Renderer::render(spec);
    let program = match compile(&source, &[]) {
        Ok(program) => Arc::new(program),
        Err(error) => {
            return Err(TestCaseError::fail(format!(
                "generated program does not compile: {error:?}\n{source}"
            )))
        }
    };
    let points_to = PointsTo::analyze(&program);
    let reach = reach_of_sites(&program);
    let mut coverage = coverage.borrow_mut();
    coverage.programs += 1;
    let mut all_touched = BTreeSet::new();
    for seed in 0..SEEDS_PER_PROGRAM {
        let (touched, outcome) = touched_pairs(&program, 0x9e37_79b9 ^ seed);
        coverage.runs += 1;
        match outcome {
            Outcome::Bug(bug) => match bug.kind {
                rankcheck_engine::BugKind::Deadlock => coverage.deadlocks += 1,
                _ => coverage.errors += 1,
            },
            Outcome::Pass { .. } => {}
            Outcome::Diverged { .. } => {
                return Err(TestCaseError::fail("the random scheduler diverged"))
            }
        }
        if let Err(violation) = check_pairs(&program, &points_to, &touched) {
            return Err(TestCaseError::fail(format!(
                "{violation}\nseed {seed}, program:\n{source}"
            )));
        }
        all_touched.extend(touched);
    }
    for &(site, var) in &all_touched {
        let kind = program.vars[var.index()].kind;
        let Some(&reach) = reach.get(&site) else {
            return Err(TestCaseError::fail(format!(
                "site {site} has no instruction"
            )));
        };
        *coverage.pairs.entry((reach, kind)).or_default() += 1;
        if points_to.may_access(site).len() > 1 {
            coverage.at_ambiguous_sites += 1;
        }
        let func = program.sites[site.index()].func;
        if program.functions[func.index()].name.starts_with('f') {
            coverage.in_functions += 1;
        }
    }
    Ok(())
}

/// The soundness property (docs/ALGORITHMS.md, Variables: the may-set of a site
/// holds every variable it touches), and with it the plans': tracking one
/// variable observes every site that touched it. 256 generated programs of
/// 3 functions and 2 or 3 threads (the last one replicated), 4
/// random-scheduler runs each with every variable tracked; under 2 s in a
/// debug build.
///
/// No miss probability can be stated for an unknown bug in the analysis;
/// instead, with this seed, the test fails when any one flow the analysis
/// models is removed from it (returns, call results, call and spawn
/// arguments, global reads and writes, field and element loads and stores,
/// record fields and array initial values at allocation, moves,
/// constants, the mutex of `wait`, forward and backward edges of the
/// control-flow graph, and the merging of definitions into webs).
#[test]
fn may_sets_hold_every_variable_touched_at_run_time() {
    let config = ProptestConfig {
        cases: 256,
        rng_seed: RngSeed::Fixed(0xa11a_5e70),
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let coverage = RefCell::new(Coverage::default());
    let mut runner = TestRunner::new(config);
    if let Err(error) = runner.run(&program_spec(), |spec| soundness_case(&spec, &coverage)) {
        panic!("{error}");
    }
    let coverage = coverage.into_inner();
    let pairs =
        |reach: Reach, kind: VarKind| coverage.pairs.get(&(reach, kind)).copied().unwrap_or(0);
    // The generator must reach every kind of flow, or the property says
    // nothing about it. The thresholds are far below what the fixed seed
    // gives (see the message), far above zero.
    let message = format!("coverage too low: {coverage:#?}");
    assert!(coverage.programs >= 256, "{message}");
    assert!(pairs(Reach::Field, VarKind::NewRecord) >= 200, "{message}");
    assert!(pairs(Reach::Element, VarKind::NewArray) >= 50, "{message}");
    assert!(
        pairs(Reach::Element, VarKind::GlobalArray) >= 50,
        "{message}"
    );
    assert!(pairs(Reach::Global, VarKind::Global) >= 100, "{message}");
    assert!(pairs(Reach::Sync, VarKind::NewMutex) >= 20, "{message}");
    assert!(pairs(Reach::Sync, VarKind::Mutex) >= 20, "{message}");
    assert!(
        pairs(Reach::Sync, VarKind::NewCond) + pairs(Reach::Sync, VarKind::Cond) >= 10,
        "{message}"
    );
    assert!(coverage.at_ambiguous_sites >= 50, "{message}");
    assert!(coverage.in_functions >= 100, "{message}");
    // Runs end in a pass or a deadlock, so they touch what they can; a
    // deadlock ends only a run whose other threads have all finished.
    assert_eq!(coverage.errors, 0, "{message}");
    assert!(coverage.deadlocks * 2 <= coverage.runs, "{message}");
}

// ----- The examples -----

fn examples() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("the examples directory exists")
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "rk"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "expected the examples, found {files:?}");
    files
        .into_iter()
        .map(|path| {
            let source = std::fs::read_to_string(&path).expect("a readable example");
            (path.display().to_string(), source)
        })
        .collect()
}

#[test]
fn every_example_site_has_a_sound_may_set() {
    for (path, source) in examples() {
        let program = Arc::new(compile_ok(&source));
        let points_to = PointsTo::analyze(&program);
        for (index, site) in program.sites.iter().enumerate() {
            let may = points_to.may_access(SiteId(index as u32));
            assert!(
                !may.is_empty(),
                "{path}: site `{}` has an empty may-set",
                site.text
            );
            assert!(
                may.windows(2).all(|w| w[0] < w[1]),
                "{path}: may-set not sorted"
            );
            if let Some(var) = site.var {
                assert!(
                    may.contains(&var),
                    "{path}: site `{}` misses {var}",
                    site.text
                );
            }
        }
        for var in 0..program.vars.len() {
            let var = VarId(var as u32);
            let plan = Tracking::Vars(BTreeSet::from([var])).instrumentation(&program, &points_to);
            // Never more than the analysis-free fallback observes.
            let fallback = Instrumentation::for_vars(&program, &[var]);
            for (index, site) in program.sites.iter().enumerate() {
                if !site.kind.is_sync() && plan.observed[index] {
                    assert!(fallback.observed[index], "{path}: site `{}`", site.text);
                }
            }
        }
        for seed in 0..4 {
            let (touched, _) = touched_pairs(&program, seed);
            if let Err(violation) = check_pairs(&program, &points_to, &touched) {
                panic!("{path}: {violation}");
            }
        }
    }
}

fn example(name: &str) -> Analysed {
    let path = format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("a readable example");
    Analysed::new(&source)
}

fn tracking(a: &Analysed, names: &[&str]) -> Instrumentation {
    Tracking::Vars(names.iter().map(|name| a.var(name)).collect())
        .instrumentation(&a.program, &a.points_to)
}

#[test]
fn tracking_a_corner_variable_observes_only_its_sites() {
    let a = example("corner_variable.rk");
    let cold = tracking(&a, &["cold"]);
    assert_eq!(a.observed_texts(&cold), BTreeSet::from(["cold".into()]));
    // Two reads in `reader`, one write in `writer`; no `hot` site.
    assert_eq!(cold.observed.iter().filter(|&&o| o).count(), 3);
    let hot = tracking(&a, &["hot"]);
    assert_eq!(a.observed_texts(&hot), BTreeSet::from(["hot".into()]));
    assert_eq!(hot.observed.iter().filter(|&&o| o).count(), 4);
}

#[test]
fn tracking_one_heap_variable_in_a_linked_stack() {
    let a = example("lost_push.rk");
    let node = a.var("new { val: v, next: null }");
    // Every field access reaches the one allocation site; `head` is apart.
    let nodes = tracking(&a, &["new { val: v, next: null }"]);
    assert_eq!(
        a.observed_texts(&nodes),
        BTreeSet::from(["node.next".into(), "p.next".into()])
    );
    assert_eq!(a.points_to.sites_touching(node).len(), 2);
    let head = tracking(&a, &["head"]);
    assert_eq!(a.observed_texts(&head), BTreeSet::from(["head".into()]));
}

#[test]
fn tracking_the_block_array_leaves_the_mutex_unobserved() {
    let a = example("fig12_allocation_vector.rk");
    let blocks = tracking(&a, &["blocks"]);
    let texts = a.observed_texts(&blocks);
    assert_eq!(
        texts,
        BTreeSet::from(["blocks[b]".into(), "blocks[i]".into()])
    );
    // Only the `sync m` locks (`m`) and unlocks (`}`, and the early
    // unlocks at `return`) say they touch `m`.
    let m = tracking(&a, &["m"]);
    assert_eq!(
        a.observed_texts(&m),
        BTreeSet::from([
            "m".into(),
            "}".into(),
            "return i;".into(),
            "return blocks[b] == 0;".into()
        ])
    );
}

#[test]
#[should_panic(expected = "a plan belongs to one program")]
fn a_plan_refuses_a_variable_of_another_program() {
    let a = Analysed::new("global g = 0; fn main() { g = 1; }");
    let stranger = VarId(a.program.vars.len() as u32);
    Tracking::Vars(BTreeSet::from([stranger])).instrumentation(&a.program, &a.points_to);
}
